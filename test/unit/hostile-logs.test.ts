// Hostile logs (issue 6): a 100 MB single line, binary data with NUL bytes and invalid UTF-8, a
// line of a million repeated pattern literals, a file that grows while it is scanned and a file
// deleted while it is open, through the CLI scan path (the built dist/cli.js, streaming, max RSS
// measured) and through the engine (time bounds linear in the input, generous enough for a
// shared 2-core machine, while a quadratic case would exceed them by orders of magnitude).
//
// Record-file bad input is in loader.test.ts, the 200 MB multi-line stream in cli.test.ts.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { main } from '../../server/src/cli/main';
import { Catalog } from '../../server/src/core/catalog';
import { MatchEngine } from '../../server/src/core/engine';

/** The child's own peak RSS (kB) for the hooks: /proc/self/status VmHWM, the peak of its own memory.
 * Not process.resourceUsage().maxRSS: Linux keeps the pre-exec peak in it, so a child spawned by a
 * mocha process of 300 MB reports at least 300 MB. (Else, without /proc, maxRSS.) */
const PEAK_RSS_KB = "(() => { try { return Number(/VmHWM:\\s+(\\d+) kB/.exec(require('fs').readFileSync('/proc/self/status', 'utf8'))[1]); } catch { return process.resourceUsage().maxRSS; } })()";
import { parseRecordText } from '../../server/src/core/load';
import { CLI, REPO, tempDir } from '../shared/paths';
import { bestMs } from '../shared/timing';

const MB = 1024 * 1024;

// User records of every matcher kind: chain (literals + holes, trailing hole), regex fallback
// (\d, \w classes), a plain literal.
const RECORDS = [
  { errorMessage: 'Inconsistent receive_count for req_id={req_id}: registered {registered}, got {got}', severity: 'error' },
  { messagePattern: 'CUDA error: (.+?) at step (\\d+)', errorMessage: 'CUDA error: {what} at step {step}', severity: 'critical' },
  { messagePattern: 'worker (\\w+) exited with code (\\d+)', errorMessage: 'worker {name} exited with code {code}', severity: 'warning' },
  { errorMessage: 'encode metadata not ready', severity: 'error' },
];
const HIT_COUNT = 'Inconsistent receive_count for req_id=r1: registered 2, got 1';
const HIT_CUDA = 'CUDA error: out of memory at step 42';
const HIT_WORKER = 'worker w7 exited with code 137';
const HIT_META = 'encode metadata not ready';

const parsed = parseRecordText(JSON.stringify(RECORDS), 'hostile.json');
const catalog = new Catalog(parsed.records);
const idOf = (msgStart: string): string => parsed.records.find((r) => r.errorMessage.startsWith(msgStart))!.id;

/** Deterministic bytes (xorshift32), so a failure reproduces. */
function randomBytes(n: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  let x = seed | 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

interface Row {
  id: string;
  line: number;
  column: number;
  endColumn: number;
  text: string;
}
interface Scan {
  code: number | null;
  rows: Row[];
  stderr: string;
  rssMb: number;
  seconds: number;
}

let tmp = '';
let recordsFile = '';
let hook = '';

/** Runs the built CLI (json format, only our records) as a child process; measures its max RSS. */
function scanChild(files: string[], onSpawn?: (child: ChildProcess) => void): Promise<Scan> {
  const t0 = Date.now();
  const child = spawn(process.execPath, ['-r', hook, CLI, 'scan', '--no-bundled', '--records', recordsFile, '--format', 'json', ...files], { cwd: REPO });
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout!.on('data', (b: Buffer) => out.push(b));
  child.stderr!.on('data', (b) => (stderr += String(b)));
  onSpawn?.(child);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const text = Buffer.concat(out).toString('utf8');
      const rows = text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Row);
      const m = /MAXRSS_KB (\d+)/.exec(stderr);
      resolve({ code, rows, stderr: stderr.replace(/MAXRSS_KB \d+\n/, ''), rssMb: m ? Number(m[1]) / 1024 : NaN, seconds: (Date.now() - t0) / 1000 });
    });
  });
}

/** Writes `pieces` (repeated `times`) to a file with backpressure, in constant memory. */
async function writeFile(file: string, pieces: (Buffer | string)[], times = 1): Promise<void> {
  const ws = fs.createWriteStream(file);
  for (let t = 0; t < times; t++)
    for (const p of pieces) if (!ws.write(p)) await new Promise<void>((r) => ws.once('drain', () => r()));
  await new Promise<void>((r, j) => ws.end((e?: Error | null) => (e ? j(e) : r())));
}

/**
 * An in-process `scan --format json FILE` whose stdout is not read: once its output buffer is
 * flushed, backpressure holds the scan in the middle of the file (`started`) until `release()`,
 * which drains stdout and resolves with the exit code and the number of JSON rows.
 */
function stalledScan(file: string): { run: { started: Promise<void> }; release: () => Promise<{ code: number; rows: number; stderr: string }> } {
  const stdout = new PassThrough({ highWaterMark: 16 });
  const stderr = new PassThrough();
  let errText = '';
  stderr.on('data', (b) => (errText += String(b)));
  const started = new Promise<void>((r) => stdout.once('readable', () => r()));
  const done = main(['scan', '--no-bundled', '--records', recordsFile, '--format', 'json', file], { stdin: new PassThrough(), stdout, stderr, cwd: REPO, env: {} });
  return {
    run: { started },
    release: async () => {
      let rows = 0;
      stdout.pipe(
        new Writable({
          write(chunk: Buffer, _enc, cb) {
            for (const c of chunk) if (c === 10) rows++;
            cb();
          },
        }),
      );
      const code = await done;
      await new Promise((r) => setImmediate(r));
      return { code, rows, stderr: errText };
    },
  };
}

describe('hostile logs', function () {
  this.timeout(120_000);

  before(() => {
    assert.deepEqual(parsed.problems, [], 'the test records load cleanly');
    if (!fs.existsSync(CLI)) spawnSync(process.execPath, ['esbuild.mjs'], { cwd: REPO, stdio: 'inherit' });
    tmp = tempDir('hostile');
    recordsFile = path.join(tmp, 'records.json');
    fs.writeFileSync(recordsFile, JSON.stringify(RECORDS));
    hook = path.join(tmp, 'rss.js');
    fs.writeFileSync(hook, `process.on('exit', () => require('fs').writeSync(2, 'MAXRSS_KB ' + ${PEAK_RSS_KB} + '\\n'));\n`);
  });
  after(() => tmp && fs.rmSync(tmp, { recursive: true, force: true }));

  describe('through the CLI scan path (streaming)', () => {
    it('a 100 MB single line: bounded memory, matched to its end with exact columns, the next line still scanned', async () => {
      const file = path.join(tmp, 'one-line.log');
      const filler = Buffer.from('x'.repeat(MB - 100));
      // hits at 1 KB, 10 MB and 60 MB into the line (a chain, a regex, a regex), then a normal line
      const pieces: (Buffer | string)[] = ['x'.repeat(1000), ` ${HIT_COUNT} `];
      let size = 1000 + HIT_COUNT.length + 2;
      for (let i = 0; size < 100 * MB; i++) {
        pieces.push(filler);
        size += filler.length;
        if (i === 10) pieces.push(` ${HIT_CUDA} `), (size += HIT_CUDA.length + 2);
        if (i === 60) pieces.push(` ${HIT_WORKER} `), (size += HIT_WORKER.length + 2);
      }
      pieces.push(`\n[x] ${HIT_META}\n`);
      await writeFile(file, pieces);
      const oneLine = fs.readFileSync(file).toString('latin1'); // (ASCII: bytes are columns)

      const r = await scanChild([file]);
      assert.equal(r.code, 0, r.stderr);
      const got = r.rows.map((x) => [x.id, x.line, x.column]).sort((a, b) => (a[1] as number) - (b[1] as number) || (a[2] as number) - (b[2] as number));
      assert.deepEqual(got, [
        [idOf('Inconsistent'), 1, oneLine.indexOf(HIT_COUNT) + 1],
        [idOf('CUDA'), 1, oneLine.indexOf(HIT_CUDA) + 1],
        [idOf('worker'), 1, oneLine.indexOf(HIT_WORKER) + 1],
        [idOf('encode'), 2, '[x] '.length + 1],
      ]);
      assert.doesNotMatch(r.stderr, /longer than/);
      // the first match's trailing capture runs to the end of the 100 MB line: its text is cut at 4 KiB
      const first = r.rows.find((x) => x.id === idOf('Inconsistent'))!;
      assert.ok(JSON.stringify(first).length < 20_000, 'span and capture texts are cut');
      console.log(`      100 MB line: ${r.seconds.toFixed(1)} s, max RSS ${r.rssMb.toFixed(0)} MB`);
      // Bounded by the 4 MiB windows (the scanner's work area for a 4 MiB block is most of it;
      // 119-143 MB of the child's own peak measured, VmHWM; the ~215 MB noted before was mocha's own
      // RSS carried into maxRSS), not by the line: holding the whole line and its copies would take
      // > 400 MB.
      assert.ok(r.rssMb < 300, `max RSS ${r.rssMb} MB`);
    });

    it('binary data with NUL bytes and invalid UTF-8: same lines and UTF-16 columns as decoding the whole file', async () => {
      const file = path.join(tmp, 'binary.log');
      const parts: Buffer[] = [];
      const hits = [HIT_COUNT, HIT_CUDA, HIT_WORKER, HIT_META];
      for (let i = 0; i < 400; i++) {
        // random bytes (every value: NUL, lone continuation bytes, truncated sequences, CR, LF),
        // a run of NULs, then a hit on the same line after the junk
        parts.push(randomBytes(20_000 + ((i * 7919) % 9000), i + 1), Buffer.alloc(i % 3 === 0 ? 5000 : 1), Buffer.from(' ' + hits[i % hits.length]! + ' '));
        if (i % 5 === 0) parts.push(Buffer.from([0xf0, 0x9f, 0x98])); // a cut 4-byte sequence right after a hit
      }
      await writeFile(file, parts);
      const whole = fs.readFileSync(file).toString('utf8').split(/\r\n|\r|\n/);
      const want: [string, number, number][] = [];
      whole.forEach((l, i) => {
        for (const m of catalog.matchLine(l)) want.push([m.record.id, i + 1, m.match.start + 1]);
      });
      // (a random ESC ] before a hit opens an OSC string that hides the rest of its line, as in a terminal)
      assert.ok(want.length >= 360, `the planted hits are found in the decoded file (${want.length})`);

      const r = await scanChild([file]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(
        r.rows.map((x) => [x.id, x.line, x.column]),
        want,
      );
      // every reported span is the record's text at that place in the decoded file
      for (const x of r.rows) assert.equal(whole[x.line - 1]!.slice(x.column - 1, x.endColumn - 1), x.text);
    });

    it('a file that grows while it is scanned: the scan ends, every reported match is real', async () => {
      const file = path.join(tmp, 'growing.log');
      const block = `${'[t] Decode batch. #running-req: 3, token usage: 0.01\n'.repeat(99)}[t] ERROR: ${HIT_COUNT}\n`;
      await writeFile(file, [block], 3000); // ~15 MB, 3000 matches before the scan starts
      const appender = path.join(tmp, 'append.js');
      // appends blocks in two writes (half lines) and partial lines, as fast as it can, up to 40 MB
      fs.writeFileSync(
        appender,
        `const fs=require('fs');const fd=fs.openSync(process.argv[2],'a');const b=${JSON.stringify(block)};` +
          `for(let i=1;i<=8000;i++){fs.writeSync(fd,b.slice(0,17));fs.writeSync(fd,b.slice(17));if(i%50===0)fs.writeSync(fd,'partial line with ${HIT_META.slice(0, 10)}');}`,
      );
      const grow = spawn(process.execPath, [appender, file], { stdio: 'ignore' });
      try {
        await new Promise<void>((resolve) => setTimeout(resolve, 0));
        const r = await scanChild([file]);
        assert.equal(r.code, 0, r.stderr);
        assert.ok(r.rows.length >= 3000, `at least the matches present at the start (${r.rows.length})`);
        grow.kill();
        await new Promise((res) => (grow.exitCode !== null || grow.signalCode !== null ? res(null) : grow.once('exit', res)));
        // lines only grew at the end: every reported match is in the final file at its place
        const final = fs.readFileSync(file, 'utf8').split('\n');
        for (const x of r.rows) {
          const line = final[x.line - 1];
          assert.ok(line !== undefined && line.slice(x.column - 1, x.endColumn - 1) === x.text, `line ${x.line}`);
        }
        // and nothing before the last reported line was skipped
        const last = r.rows[r.rows.length - 1]!.line;
        const expected = final.slice(0, last).filter((l) => l.includes(HIT_COUNT)).length;
        assert.equal(r.rows.length, expected);
      } finally {
        grow.kill();
      }
    });

    it('a file that grows faster than it is scanned: the scan reads it as it was when opened, and ends', async () => {
      const file = path.join(tmp, 'outpaced.log');
      const block = `${'[t] Decode batch. #running-req: 3, token usage: 0.01\n'.repeat(19)}[t] ERROR: ${HIT_COUNT}\n`;
      await writeFile(file, [block], 5000);
      const { run, release } = stalledScan(file);
      await run.started;
      // while the scan is held mid-file, the file doubles (a writer faster than the scan)
      fs.appendFileSync(file, block.repeat(5000));
      const { code, rows, stderr } = await release();
      assert.equal(code, 0, stderr);
      assert.equal(rows, 5000, 'exactly the matches present when the file was opened');
    });

    it('a file truncated while it is scanned: the scan ends without an error, with matches from the lines that were there', async () => {
      const file = path.join(tmp, 'truncated.log');
      const block = `${'[t] Decode batch. #running-req: 3, token usage: 0.01\n'.repeat(19)}[t] ERROR: ${HIT_COUNT}\n`;
      const blocks = 10_000; // ~10 MB: many reads (and one read ahead) after the cut
      await writeFile(file, [block], blocks);
      const { run, release } = stalledScan(file);
      await run.started;
      // (cut to a tenth, mid-line)
      fs.truncateSync(file, Math.floor(fs.statSync(file).size / 10) + 7);
      const { code, rows, stderr } = await release();
      assert.equal(code, 0, stderr);
      assert.ok(rows >= 1 && rows <= blocks, `${rows} matches`);
    });

    it('a file deleted while it is open: the scan reads it to the end, nothing is lost', async () => {
      const file = path.join(tmp, 'deleted.log');
      const block = `${'[t] Decode batch. #running-req: 3, token usage: 0.01\n'.repeat(19)}[t] ERROR: ${HIT_COUNT}\n`;
      const blocks = 10_000; // 10 000 matches, ~10 MB: far more output than a flush holds
      await writeFile(file, [block], blocks);
      const { run, release } = stalledScan(file);
      await run.started;
      fs.unlinkSync(file);
      assert.ok(!fs.existsSync(file));
      const { code, rows, stderr } = await release();
      assert.equal(code, 0, stderr);
      assert.equal(rows, blocks, 'one JSON row per planted match');
    });
  });

  describe('through the engine: time linear in the line', () => {
    const M = 1_000_000;
    // [name, line]: each repeats what a pattern looks for, a million times where that is cheap to
    // build; every one would be quadratic (hours) for a naive regex scan from every position.
    const shapes: [string, () => string, number][] = [
      ['first literal of a chain pattern x1M', () => 'Inconsistent receive_count for req_id='.repeat(M), 0],
      ['two literals of a chain pattern, the third missing x1M', () => 'Inconsistent receive_count for req_id=x: registered '.repeat(M / 4), 0],
      ['a plain literal cut short x1M', () => 'encode metadata not '.repeat(M), 0],
      ['the key of a regex-fallback pattern x1M', () => 'worker '.repeat(M), 0],
      ['a regex key with its hole, the digits missing x100k', () => 'CUDA error: x at step '.repeat(M / 10), 0],
      ['the longest literal of a regex x250k', () => 'CUDA error: '.repeat(M / 4), 0],
      ['1M NUL characters then a hit', () => '\0'.repeat(M) + HIT_META, 1],
      ['500k escape sequences then a hit', () => '\x1b[31m'.repeat(M / 2) + HIT_META, 1],
      ['a JSON line with 1M tiny string values (more than spread arguments allow)', () => '{' + '"a":"b",'.repeat(M) + '"z":"y"}', 0],
      ['a JSON line with 250k string values', () => '{' + '"k":"encode metadata",'.repeat(M / 4) + '"z":"y"}', 0],
      ['a JSON line with 50k escaped values, the last a hit', () => '{' + '"k":"\\u0041 metadata",'.repeat(M / 20) + `"msg":"\\"${HIT_META}\\""}`, 1],
      ['a 16M-character line of one character', () => 'a'.repeat(16 * M), 0],
    ];
    for (const [name, make, expected] of shapes) {
      it(name, () => {
        const line = make();
        let n = -1;
        const ms = bestMs(() => {
          n = catalog.matchLine(line).length;
        }, 1);
        console.log(`      ${(line.length / M).toFixed(1)}M chars: ${ms.toFixed(0)} ms (${((ms * 1000) / line.length).toFixed(3)} µs/char)`);
        assert.equal(n, expected);
        // linear: at most 10 µs per character (measured 0.01-3 on a busy 2-core machine); a
        // quadratic scan of these lines would take ~10^5-10^6 times longer
        assert.ok(ms < 1e-2 * line.length + 2000, `${ms} ms for ${line.length} characters`);
      });
    }

    it('patterns that backtrack in RegExp run on the linear engine: fast on hostile lines, same results as RegExp on lines it handles', () => {
      // measured with a plain RegExp on 4000 characters: ~35 s, 0.6 s, 0.6 s; on the 49-character
      // repro line ERRXYZ(a|a)*b did not finish in 60 s (issue 14). These were refused by shape
      // before; now they run, on re2js.
      const bad: [string, string, string][] = [
        // pattern, unit of a hostile line, a short line that matches
        ['a (.+?) x (.+?) y (.+?) z\\d', 'a x y x y x y ', 'a 1 x 2 y 3 z4'],
        ['(.+?) failed: (.+?) code (\\d+)', 'x failed: ', 'job failed: disk code 28'],
        ['(\\d+)t-o::(.+?)(.+?)\\s\\(', '1t-o:: ab ', '12t-o::abc ('],
        ['ERRXYZ(a|a)*b', 'a', 'ERRXYZaaab'],
        ['ERRXYZ (x+x+)+y', 'x', 'ERRXYZ xxxy'],
      ];
      const engine = MatchEngine.build(bad.map(([pattern], i) => ({ id: `p${i}`, pattern, captureNames: [], errorCode: null })));
      assert.deepEqual(engine.rejected, []);
      for (const [i, [pattern, unit, good]] of bad.entries()) {
        const line = (pattern.startsWith('ERRXYZ') ? 'ERRXYZ ' : '') + unit.repeat(Math.ceil(8000 / unit.length)) + 'c b';
        const ms = bestMs(() => engine.matchLine(line), 1);
        assert.ok(ms < 1000, `${pattern}: ${ms} ms on ${line.length} characters`);
        // the verdict and captures RegExp gives on a line it handles quickly
        const want = new RegExp(pattern, 'd').exec(good)!;
        const got = engine.matchLine(good).find((m) => m.entry === i)!;
        assert.ok(got, pattern);
        assert.equal(got.start, want.index, pattern);
        const trailing = pattern.endsWith('(.+?)'); // none here: spans equal RegExp's
        assert.equal(trailing, false);
        assert.equal(got.end, want.index + want[0].length, pattern);
        assert.deepEqual(
          got.captures.map((c) => [c.start, c.end]),
          want.indices!.slice(1).filter((x) => x !== undefined).map((x) => [x[0], x[1]]),
          pattern,
        );
      }
      // the repro, exactly: 'ERRXYZ' + 40 'a' + 'c b'
      const repro = MatchEngine.build([{ id: 'r', pattern: 'ERRXYZ(a|a)*b', captureNames: [], errorCode: null }]);
      const line = 'ERRXYZ' + 'a'.repeat(40) + 'c b';
      assert.ok(bestMs(() => assert.deepEqual(repro.matchLine(line), []), 1) < 100);
    });

    it('doubling a hostile line about doubles the time (linear, not quadratic)', () => {
      const unit = 'CUDA error: x at step ';
      const small = unit.repeat(25_000);
      const big = unit.repeat(100_000);
      const ts = bestMs(() => catalog.matchLine(small), 3);
      const tb = bestMs(() => catalog.matchLine(big), 3);
      console.log(`      x25k: ${ts.toFixed(0)} ms, x100k: ${tb.toFixed(0)} ms`);
      // 4x the input: linear ~4x, quadratic 16x; allow noise
      assert.ok(tb < 10 * ts + 200, `${ts} ms -> ${tb} ms`);
    });
  });
});
