// `error-explainer scan` on error blocks: one match per block on its exception line (the record its
// frames say raised it, with "block" in json), none on frames or quoted code, plain lines as
// before; what a parse of the whole text gives, through the byte scan (only windows around
// matches are decoded, across the scan's byte blocks, wherever they end).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { AFTER, BlockContext } from '../../server/src/cli/blockContext';
import { main } from '../../server/src/cli/main';
import { LineHits, MatchEngine } from '../../server/src/core/engine';
import { forEachMatchingLine } from '../../server/src/core/lineScan';
import { type ErrorBlock, findBlocks } from '../../server/src/core/blocks';
import { Catalog, explainBlocks, traceAt, traceChoice } from '../../server/src/core/catalog';
import { parseRecordText } from '../../server/src/core/load';
import { TRACES, traceFiles, traceLines } from './traces';
import { rng } from '../bench/gen';
import { CLI, REPO, tempDir } from '../shared/paths';

const RECORDS = path.join(TRACES, 'records.json');
const catalog = new Catalog(parseRecordText(readFileSync(RECORDS, 'utf8'), 'records.json').records);

// (every match, whatever its confidence: these tests compare the scan's block windows with a parse of the whole text)
function scanJson(file: string): { line: number; id: string; block?: { firstLine: number; lastLine: number; kind: string } }[] {
  const r = spawnSync(process.execPath, [CLI, 'scan', '--no-bundled', '--records', RECORDS, '--format', 'json', '--min-confidence', '0', file], { cwd: REPO, encoding: 'utf8', maxBuffer: 256 << 20 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trimEnd().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** What scan must report for `lines`: per block its best match, per plain line every match (1-based). */
function expected(lines: string[]): string[] {
  const ex = explainBlocks(catalog, lines);
  const out: { line: number; s: string }[] = [];
  // one per trace: a block and the blocks chained to it (traceChoice), of the blocks with matches
  const withMatches = ex.blocks.filter((b) => b.matches.length > 0);
  const byBlock = new Map(withMatches.map((b) => [b.block, b]));
  const blocks = withMatches.map((b) => b.block);
  for (let i = 0; i < blocks.length; ) {
    const trace = traceAt(blocks, i);
    const members = trace.map((b) => byBlock.get(b)!);
    const e = i + trace.length;
    const k = traceChoice(
      trace,
      members.map((m) => m.matches[0]),
    );
    const b = members[k]!;
    const best = b.matches[0]!;
    const at = b.lines.find((l) => l.matches.some((m) => m.record.id === best.record.id))!.line;
    out.push({ line: at, s: `${at + 1} ${best.record.id} block ${b.block.kind} ${b.block.first + 1}-${b.block.last + 1}` });
    i = e;
  }
  for (const l of ex.lines) for (const m of l.matches) out.push({ line: l.line, s: `${l.line + 1} ${m.record.id}` });
  return out.sort((a, b) => a.line - b.line || (a.s < b.s ? -1 : 1)).map((o) => o.s);
}

/** (the order of several records on one plain line is the engine's: compared sorted) */
/** What a block read of its lines (its lines' span and roles are compared apart; line indexes
 * from the block's first line: a stream numbers lines from 1, findBlocks from 0). */
function blockContents(b: ErrorBlock): string {
  const at = <T extends { lineIndex: number }>(x: T): T => ({ ...x, lineIndex: x.lineIndex - b.first });
  return JSON.stringify({ kind: b.kind, errorClass: b.errorClass, errorCode: b.errorCode, raising: b.raising, frames: b.frames.map(at), exceptions: b.exceptions.map(at), chain: b.chain });
}

const rows = (rs: ReturnType<typeof scanJson>) =>
  rs
    .map((r) => ({ line: r.line, s: `${r.line} ${r.id}${r.block ? ` block ${r.block.kind} ${r.block.firstLine}-${r.block.lastLine}` : ''}` }))
    .sort((a, b) => a.line - b.line || (a.s < b.s ? -1 : 1))
    .map((o) => o.s);

/** All traces with log lines between them (some without a blank line before the next trace). */
function traceLog(): string[] {
  const out: string[] = [];
  traceFiles().forEach((name, i) => {
    out.push(`2026-12-01 09:00:${String(i % 60).padStart(2, '0')} INFO step ${i}`);
    if (i % 7 === 3) out.push("2026-12-01 09:00:00 ERROR unknown archive format 'zip'");
    out.push(...traceLines(name));
  });
  return out;
}

describe('cli scan: error blocks', () => {
  let dir: string;
  before(() => {
    dir = tempDir('cli-blocks');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('one match per block, on its exception line, the raising file\'s record; none on frames or quoted code', () => {
    const lines = [...traceLines('python/shutil_archive.txt'), ...traceLines('node/picomatch_empty.txt'), "2026-12-01 ERROR unknown archive format 'zip'"];
    const file = path.join(dir, 'small.log');
    writeFileSync(file, lines.join('\n'));
    const got = scanJson(file);
    const exc = lines.findIndex((l) => l.startsWith("ValueError: unknown archive format 'foo'"));
    const tb = lines.findIndex((l) => l.startsWith('Traceback'));
    const quoted = lines.findIndex((l) => l.includes('raise ValueError("unknown archive format'));
    const py = got.filter((r) => r.block?.kind === 'python');
    assert.equal(py.length, 1);
    assert.equal(py[0]!.line, exc + 1);
    assert.deepEqual([py[0]!.block!.firstLine, py[0]!.block!.lastLine], [tb + 1, exc + 1]);
    assert.equal(catalog.get(py[0]!.id)!.filePath, 'shutil.py');
    const node = got.filter((r) => r.block?.kind === 'node');
    assert.equal(catalog.get(node[0]!.id)!.filePath, 'picomatch/lib/picomatch.js');
    assert.ok(!got.some((r) => r.line === quoted + 1), 'the quoted raise statement is not reported');
    // the plain line: every matching record, as before
    assert.equal(got.filter((r) => r.line === lines.length).length, 3);
    assert.deepEqual(rows(got), expected(lines));
  });

  it('a chained traceback is one problem: on the exception that ended the program; the cause only when that one has no record', () => {
    // real chains from the corpus (printed by Python 3.11): KeyError -> NoOptionError ("During
    // handling"), plistlib.InvalidFileException -> the program's own ConfigError ("direct cause")
    const real = readFileSync(path.join(REPO, 'test/fixtures/real/python-tracebacks.log'), 'utf8').split('\n');
    const truth = JSON.parse(readFileSync(path.join(REPO, 'test/fixtures/real/python-tracebacks.truth.json'), 'utf8')) as { blocks: { id: string; firstLine: number; lastLine: number; exceptionLine: number }[] };
    // (the records of the standard library these tracebacks were printed by, as a user extracts them)
    const py = path.join(dir, 'python311.json');
    const x = spawnSync(process.execPath, [CLI, 'extract', '/usr/lib/python3.11', '--repo', 'python/cpython', '--out', py], { encoding: 'utf8' });
    assert.equal(x.status, 0, x.stderr);
    const pick = (id: string) => truth.blocks.find((b) => b.id === id)!;
    for (const [id, onLast] of [['configparser_no_option', true], ['chain_direct_cause', false]] as const) {
      const t = pick(id);
      const file = path.join(dir, `${id}.log`);
      writeFileSync(file, real.slice(t.firstLine - 1, t.lastLine).join('\n') + '\n');
      const r = spawnSync(process.execPath, [CLI, 'scan', '--no-bundled', '--no-cache', '--records', py, '--format', 'json', file], { cwd: REPO, encoding: 'utf8' });
      const got = r.stdout.trimEnd().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { line: number; text?: string });
      assert.equal(got.length, 1, `${id}: one problem for the whole chain: ${r.stdout}`);
      const finalLine = t.exceptionLine - t.firstLine + 1;
      if (onLast) assert.equal(got[0]!.line, finalLine, `${id}: on the final exception`);
      else assert.ok(got[0]!.line < finalLine, `${id}: the cause (the final exception has no record)`);
    }
  });

  it('coloured lines (whole lines, and colour inside frames and headers) near blocks and plain matches: what a parse of the whole text gives', () => {
    // the neighbourhood of a matched line with a colour sequence is checked with the sequences
    // stripped (blockContext quietStripped): every block must still be found
    const r = rng(20261203);
    const paint = (l: string): string => {
      const x = r();
      if (x < 0.15) return `\x1b[31m${l}\x1b[0m`;
      if (x < 0.25 && l.length > 6) {
        // a colour change inside the line, at a random place (also inside a token a shape needs)
        const at = 1 + Math.floor(r() * (l.length - 2));
        return `${l.slice(0, at)}\x1b[1;33m${l.slice(at)}\x1b[0m`;
      }
      return l;
    };
    const plain = traceLog();
    const coloured = plain.map(paint);
    assert.ok(coloured.filter((l) => l.includes('\x1b')).length > plain.length / 5);
    const file = path.join(dir, 'coloured.log');
    writeFileSync(file, coloured.join('\n'));
    const got = rows(scanJson(file));
    assert.deepEqual(got, expected(coloured));
    assert.ok(got.some((g) => g.includes(' block ')), 'blocks were found');
  });

  it('text output says where it was raised', () => {
    const file = path.join(dir, 'text.log');
    writeFileSync(file, traceLines('python/queue_task_done.txt').join('\n'));
    const r = spawnSync(process.execPath, [CLI, 'scan', '--no-bundled', '--records', RECORDS, '--no-explain', file], { cwd: REPO, encoding: 'utf8' });
    assert.match(r.stdout, /\n {4}in a Python traceback \(lines 1-6\), raised at \/usr\/lib\/python3\.11\/queue\.py:75 in task_done\n/);
  });

  it('explain: a pasted trace is explained by its exception line, the raising file\'s record first', () => {
    const explain = (text: string, ...args: string[]) => {
      const r = spawnSync(process.execPath, [CLI, 'explain', '--no-bundled', '--records', RECORDS, ...args], { cwd: REPO, encoding: 'utf8', input: text });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout;
    };
    const out = explain(traceLines('node/picomatch_empty.txt').join('\n'), '--limit', '2');
    assert.ok(out.startsWith('TypeError, in a JavaScript stack (lines 1-14), raised at /tmp/ee-traces/node/node_modules/picomatch/lib/picomatch.js:59 in picomatch:\n'), out.slice(0, 200));
    const [first, second] = out.split('─'.repeat(72));
    assert.match(first!, /local\/node_modules/);
    assert.match(first!, /picomatch\/lib\/picomatch\.js/);
    assert.match(second!, /tsx\/dist\/cli\.mjs/, "tsx's bundled copy second");
    const md = explain(traceLines('python/shutil_archive.txt').join('\n'), '--markdown', '--limit', '1');
    assert.ok(md.startsWith('*ValueError, in a Python traceback \\(lines 1-6\\), raised at /usr/lib/python3\\.11/shutil\\.py\\:1105 in make\\_archive:*'), md.slice(0, 200));
  });

  it('a big file (byte scan, windows across 1 MiB blocks): what a parse of the whole text gives', () => {
    // traces every ~40 kB between ordinary lines, so that some straddle the 1 MiB block boundaries
    const filler = Array.from({ length: 400 }, (_, i) => `2026-12-01 10:00:00.${String(i).padStart(3, '0')} INFO worker heartbeat ok, queue depth ${i % 17}`);
    const traces = traceLog();
    const lines: string[] = [];
    for (let round = 0; round < 12; round++) {
      for (let k = 0; k < traces.length; k += 37) {
        lines.push(...filler.slice(0, 100 + ((k * 7 + round) % 300)));
        lines.push(...traces.slice(k, k + 37));
      }
    }
    const text = lines.join('\n') + '\n';
    assert.ok(text.length > 3 << 20, `${text.length} bytes`);
    const file = path.join(dir, 'big.log');
    writeFileSync(file, text);
    const got = rows(scanJson(file));
    const want = expected(lines);
    assert.ok(want.filter((w) => w.includes(' block ')).length > 100);
    assert.deepEqual(got, want);
  });

  it('a log where every line matches, traces and coloured lines among them (quiet runs grown by chunks): what a parse of the whole text gives', () => {
    // matched lines one after another grow a quiet run by chunks of bytes: a trace, or a coloured
    // line, just past a chunk that was quiet must still get its window and its roles
    const r = rng(11);
    const traces = traceLog();
    const lines: string[] = [];
    let t = 0;
    for (let round = 0; lines.length < 60_000; round++) {
      const n = 5 + Math.floor(r() * (round % 3 === 0 ? 40 : 400));
      for (let i = 0; i < n; i++) {
        const plain = `2026-12-01 09:00:00 ERROR unknown archive format 'zip${lines.length}'`;
        lines.push(r() < 0.03 ? `\x1b[31m2026-12-01 09:00:00 ERROR\x1b[0m unknown archive format 'c${i}'` : plain);
      }
      const len = 3 + Math.floor(r() * 30);
      lines.push(...traces.slice(t, t + len));
      t = (t + len) % traces.length;
    }
    const text = lines.join('\n') + '\n';
    assert.ok(text.length > 2 << 20, `${text.length} bytes`);
    const file = path.join(dir, 'dense-traces.log');
    writeFileSync(file, text);
    const got = rows(scanJson(file));
    const want = expected(lines);
    assert.ok(want.filter((w) => w.includes(' block ')).length > 100);
    assert.ok(want.length > 50_000, `${want.length} matches`);
    assert.deepEqual(got, want);
  });

  it('windows across byte blocks anywhere, with \\n, \\r\\n and lone \\r line ends: the roles of a parse of the whole text', async () => {
    // every line of the traces as one input, cut into chunks of every size: each chunk's whole lines
    // are one byte block of the scan, so block boundaries fall anywhere in and around the traces
    const lines = traceLog();
    const ends = ['\n', '\r\n', '\r'];
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    for (const mode of ['lf', 'crlf', 'mixed']) {
      // (a lone \r before an empty line's \n would read as one \r\n: not there)
      const end = (i: number) => (mode === 'lf' ? '\n' : mode === 'crlf' ? '\r\n' : i % 3 === 2 && lines[i + 1] === '' ? '\n' : ends[i % 3]!);
      const text = lines.map((l, i) => l + end(i)).join('');
      const bytes = Buffer.from(text);
      for (const chunk of [1 << 20, 4096, 701, 97]) {
        const parts: Buffer[] = [];
        for (let p = 0; p < bytes.length; ) {
          const len = 1 + rnd(chunk);
          parts.push(bytes.subarray(p, p + len));
          p += len;
        }
        const out: string[] = [];
        // (and what each block read of its lines: its class and frames, as a parse of the whole text has them)
        const contents: string[] = [];
        const bc = new BlockContext<number>((n, line, ms, block, role) => {
          out.push(`${n}:${ms}:${block ? `${block.first}-${block.last}` : '-'}:${role ?? '-'}:${line}`);
          contents.push(block ? blockContents(block) : '-');
        });
        let blocks = 0;
        const counting = { begin: (buf: Uint8Array, n: number, first: number) => (blocks++, bc.begin(buf, n, first)), end: (last: number) => bc.end(last) };
        const stats = await forEachMatchingLine(Readable.from(parts), catalog.engine, (n, hits) => bc.match(n, hits.text(), hits.byteStart(), hits.count), async () => undefined, { blocks: counting });
        bc.finish();
        assert.equal(stats.lines, lines.length, `${mode}/${chunk}`);
        if (chunk < 1000) assert.ok(blocks > 100, `${blocks} byte blocks`);
        // each matched line handed back once, in order, with the roles of a parse of the whole text
        const whole = findBlocks(lines);
        const ns = out.map((o) => Number(o.split(':')[0]));
        assert.deepEqual(ns, [...ns].sort((x, y) => x - y), 'in order');
        assert.ok(out.length > 50, `${out.length} lines handed back`);
        let withFrames = 0;
        out.forEach((o, i) => {
          const [n, , span, role, ...rest] = o.split(':');
          const k = Number(n) - 1;
          assert.equal(rest.join(':'), lines[k], `${mode}/${chunk}: the line's text`);
          const b = whole.find((x) => x.first <= k && k <= x.last);
          assert.equal(span, b ? `${b.first + 1}-${b.last + 1}` : '-', `${mode}/${chunk}: ${o}`);
          assert.equal(role, b ? b.roles[k - b.first] : '-', `${mode}/${chunk}: ${o}`);
          assert.equal(contents[i], b ? blockContents(b) : '-', `${mode}/${chunk}: ${o}: the block's class and frames`);
          if (b?.frames.length) withFrames++;
        });
        assert.ok(withFrames > 20, `${withFrames} lines in blocks with frames`);
      }
    }
  });

  it('a matched exception header whose frames come more than NEAR lines below it, in quiet lines: the role of a parse of the whole text', async () => {
    // (no block token within NEAR lines of the header: only its own header token sends it to a
    // window, and there the frames further down make it the stack's exception line; the quiet
    // test's "no header token here" must not be said of it)
    const lines: string[] = [];
    const info = (i: number) => `2026-12-08 01:00:${String(i % 60).padStart(2, '0')} INFO request ${i} served in 12 ms`;
    for (let i = 0; i < 300; i++) lines.push(info(i));
    const header = lines.length;
    lines.push('TypeError: the boom of undefined cannot be read', '    while handling request 7', '    for user 12 of tenant 3', '    with the cache cold', '    after 2 retries', '    in worker 5', '    at handler (/srv/app.js:10:5)', '    at process (/srv/app.js:20:3)');
    for (let i = 0; i < 300; i++) lines.push(info(i));
    const whole = findBlocks(lines);
    const b = whole.find((x) => x.first <= header && header <= x.last);
    assert.equal(b?.roles[header - b.first], 'exception', 'a parse of the whole text makes the header its stack\'s exception line');
    const engine = MatchEngine.build(['the boom of undefined', 'served in'].map((pattern, i) => ({ id: `g${i}`, pattern, captureNames: [], errorCode: null })));
    const out = new Map<number, string>();
    const bc = new BlockContext<number>((n, _line, _ms, block, role) => out.set(n, `${block ? `${block.first}-${block.last}` : '-'}:${role ?? '-'}`));
    await forEachMatchingLine(Readable.from([Buffer.from(lines.join('\n') + '\n')]), engine, (n, hits) => bc.match(n, hits.text(), hits.byteStart(), hits.count), async () => undefined, { blocks: bc });
    bc.finish();
    assert.equal(out.get(header + 1), `${b!.first + 1}-${b!.last + 1}:exception`);
    // (and the log lines around it, far from any block, plain)
    assert.equal(out.get(1), '-:-');
    assert.equal(out.get(lines.length), '-:-');
    assert.equal(out.size, 601);
    assert.equal(engine.rejected.length, 0);
  });

  it('a real pytest report where many lines match generic records: every matched line gets the role of a parse of the whole text', async () => {
    // (a window grows while a block is being parsed: a report's quoted code lies far from its
    // frames and `E` lines, and lines there must still be the report's, not plain lines)
    const text = readFileSync(path.join(REPO, 'test/fixtures/real/python-tracebacks.log'), 'utf8');
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const generic = ['      ', 'File "', 'Error: ', 'return', '    if ', 'import'].map((pattern, i) => ({ id: `g${i}`, pattern, captureNames: [], errorCode: null }));
    const engine = MatchEngine.build(generic);
    const out: string[] = [];
    const bc = new BlockContext<number>((n, _line, _ms, block, r) => out.push(`${n} ${block ? `${block.first}-${block.last}` : '-'}:${r ?? '-'}`));
    await forEachMatchingLine(Readable.from([Buffer.from(text)]), engine, (n, hits) => bc.match(n, hits.text(), hits.byteStart(), hits.count), async () => undefined, { blocks: bc });
    bc.finish();
    const whole = findBlocks(lines);
    const roleOf = (k: number) => {
      const b = whole.find((x) => x.first <= k && k <= x.last);
      return b ? `${b.first + 1}-${b.last + 1}:${b.roles[k - b.first]}` : '-:-';
    };
    let quoted = 0;
    for (const o of out) {
      const [n, got] = o.split(' ');
      assert.equal(got, roleOf(Number(n) - 1), `line ${n}: ${lines[Number(n) - 1]}`);
      if (got!.endsWith(':quoted')) quoted++;
    }
    assert.equal(engine.rejected.length, 0);
    assert.ok(out.length > 400, `${out.length} of ${lines.length} lines matched`);
    assert.ok(whole.some((b) => b.last - b.first > 60), 'a report longer than a window');
    assert.ok(quoted > 100, `${quoted} matched lines of quoted code`);
  });

  it('a byte block ending at any line: the roles of a parse of the whole text (a line near the end waits for the next block)', async () => {
    // two chunks cut at a line end: the scan's byte blocks end there, so a matched line's
    // neighbours after it (a Node preamble's quoted throw: its exception line three lines on) are
    // in the next block. (Traces apart, more plain lines between them than a window's lookahead:
    // the window of a trace's match does not reach the next trace.)
    const filler = (i: number) => Array.from({ length: AFTER + 2 }, (_, j) => `2026-12-01 09:00:${String(i % 60).padStart(2, '0')} INFO step ${i}.${j}`);
    const lines = traceFiles().flatMap((name, i) => [...filler(i), ...traceLines(name)]);
    const text = lines.join('\n') + '\n';
    const isFiller = (p: number) => / INFO step \d+\.\d+$/.test(text.slice(text.lastIndexOf('\n', p - 1) + 1, p));
    const whole = findBlocks(lines);
    const role = (k: number) => {
      const b = whole.find((x) => x.first <= k && k <= x.last);
      return b ? `${b.first + 1}-${b.last + 1}:${b.roles[k - b.first]}` : '-:-';
    };
    let cuts = 0;
    for (let p = text.indexOf('\n'); p >= 0; p = text.indexOf('\n', p + 1)) {
      if (isFiller(p)) continue; // (cuts after the traces' lines only)
      cuts++;
      const out: string[] = [];
      const bc = new BlockContext<number>((n, _line, _ms, block, r) => out.push(`${n} ${block ? `${block.first}-${block.last}` : '-'}:${r ?? '-'}`));
      await forEachMatchingLine(Readable.from([Buffer.from(text.slice(0, p + 1)), Buffer.from(text.slice(p + 1))]), catalog.engine, (n, hits) => bc.match(n, hits.text(), hits.byteStart(), hits.count), async () => undefined, { blocks: bc });
      bc.finish();
      const cutLine = text.slice(0, p).split('\n').length;
      for (const o of out) {
        const [n, got] = o.split(' ');
        assert.equal(got, role(Number(n) - 1), `cut after line ${cutLine}: line ${n}`);
      }
    }
    assert.ok(cuts > 300, `${cuts} cuts`);
  });

  it('lines longer than a byte block (matched between blocks, by their first 64 KiB): what a parse of the whole text gives', () => {
    // 5 MiB lines (the byte scan hands over blocks of at most 4 MiB: such a line is matched between
    // two of them, engine/longLine): a plain line; a traceback's exception line with a window open
    // (its quoted raise line matched); one with no window open (frames without quoted code: the
    // lines before come from the previous block's tail); a Node exception line whose frames come
    // in the next byte block; a long line matching nothing inside a traceback ends that block
    const big = 5 << 20;
    const shutil = traceLines('python/shutil_archive.txt');
    const queue = traceLines('python/queue_task_done.txt');
    const minimatch = traceLines('node/minimatch_long.txt');
    const excOf = (t: string[], head: string) => t.findIndex((l) => l.startsWith(head));
    const shutilExc = excOf(shutil, 'ValueError:');
    const queueExc = excOf(queue, 'ValueError:');
    const mmExc = excOf(minimatch, 'TypeError:');
    const noQuotes = (t: string[], upTo: number) => t.slice(0, upTo).filter((l) => !/^ {4}\S/.test(l));
    // (more lines than a window between the parts: no window reaches from one part into the next)
    const gap = (k: number) => Array.from({ length: 60 }, (_, i) => `2026-12-01 10:0${k}:${String(i).padStart(2, '0')} INFO heartbeat`);
    const build = (fill: string) => [
      ...shutil,
      ...gap(1),
      `2026-12-01 ERROR unknown archive format 'zip' ${fill}`,
      ...gap(2),
      ...shutil.slice(0, shutilExc),
      `ValueError: unknown archive format '${fill}'`,
      ...gap(3),
      ...noQuotes(queue, queueExc),
      `ValueError: task_done() called too many times ${fill}`,
      ...gap(4),
      ...minimatch.slice(0, mmExc),
      `TypeError: pattern is too long: ${fill}`,
      ...minimatch.slice(mmExc + 1),
      ...traceLines('node/picomatch_empty.txt'),
      "2026-12-01 ERROR unknown archive format 'zip' zzz",
    ];
    const lines = build('z'.repeat(big));
    const file = path.join(dir, 'long.log');
    writeFileSync(file, lines.join('\n') + '\n');
    const got = scanJson(file);
    assert.deepEqual(rows(got), expected(build('zzz')));
    // (what that comparison rests on: each long line reported, in its block where it has one, the
    // raising file's record first)
    const longAt = lines.flatMap((l, i) => (l.length > big ? [i + 1] : []));
    assert.equal(longAt.length, 4);
    const at = (n: number) => got.filter((r) => r.line === n);
    assert.ok(at(longAt[0]!).length > 0 && at(longAt[0]!).every((r) => !r.block));
    for (const [n, kind, file] of [[longAt[1]!, 'python', 'shutil.py'], [longAt[2]!, 'python', 'queue.py'], [longAt[3]!, 'node', 'minimatch/dist/commonjs/assert-valid-pattern.js']] as const) {
      assert.equal(at(n).length, 1, `line ${n}`);
      assert.equal(at(n)[0]!.block?.kind, kind, `line ${n}`);
      assert.equal(catalog.get(at(n)[0]!.id)!.filePath, file, `line ${n}`);
    }
    assert.equal(got.filter((r) => r.block?.kind === 'node').length, 2, 'minimatch and the picomatch stack after it');
  });

  it('a long line that matches nothing, inside a traceback: the block ends there (no window reaches across it)', () => {
    const shutil = traceLines('python/shutil_archive.txt');
    const exc = shutil.findIndex((l) => l.startsWith('ValueError:'));
    // the long line between the traceback's frames and its exception line
    const lines = [...shutil.slice(0, exc), '    ' + 'x'.repeat(5 << 20), ...shutil.slice(exc)];
    const file = path.join(dir, 'long-nomatch.log');
    writeFileSync(file, lines.join('\n') + '\n');
    const got = scanJson(file);
    // the exception line, after the long line, is in no block it could reach: its matches are a
    // plain line's (the block before the long line has no exception line, so nothing of it)
    const n = lines.findIndex((l) => l.startsWith('ValueError:')) + 1;
    assert.ok(got.length > 0);
    assert.ok(got.every((r) => r.line === n && !r.block), JSON.stringify(got));
    assert.deepEqual(rows(got), expected([lines[n - 1]!]).map((w) => w.replace(/^1 /, `${n} `)));
  });
});

describe('cli scan: what a matched line costs (issue 11 item 4)', () => {
  // lines outside any error block are reported from the scan's hits: --format count makes no
  // LineMatch (no captures), other formats make only those they print; lines inside a block's
  // window are made once, when the window holds them
  const made = { all: 0, some: 0, one: 0 };
  const proto = LineHits.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const orig = { matches: proto.matches!, matchesWhere: proto.matchesWhere!, make: proto.make! };
  let dir: string;
  let log: string;
  before(() => {
    proto.matches = function (this: unknown, ...a: unknown[]) {
      made.all++;
      return orig.matches.apply(this, a);
    };
    proto.matchesWhere = function (this: unknown, ...a: unknown[]) {
      made.some++;
      return orig.matchesWhere.apply(this, a);
    };
    proto.make = function (this: unknown, ...a: unknown[]) {
      made.one++;
      return orig.make.apply(this, a);
    };
    dir = tempDir('cli-cost');
    // plain lines far from any traceback, each matching one record; then one traceback
    const lines: string[] = [];
    for (let i = 0; i < 300; i++) lines.push(i % 3 === 0 ? `2026-12-01 09:00:00 ERROR unknown archive format 'zip${i}'` : `2026-12-01 09:00:00 INFO step ${i} done`);
    lines.push('', ...traceLines('python/shutil_archive.txt'));
    log = path.join(dir, 'plain.log');
    writeFileSync(log, lines.join('\n') + '\n');
  });
  after(() => {
    Object.assign(proto, orig);
    rmSync(dir, { recursive: true, force: true });
  });
  const run = async (format: string, extra: string[] = [], file = log): Promise<string> => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (b: Buffer) => chunks.push(b));
    const code = await main(['scan', '--no-bundled', '--no-cache', '--records', RECORDS, '--format', format, ...extra, file], { stdin: Readable.from([]), stdout: out, stderr: new PassThrough(), cwd: REPO, env: {} });
    assert.equal(code, 0);
    return Buffer.concat(chunks).toString();
  };

  it('--format count: no LineMatch for a line outside a block; the same counts as json', async () => {
    for (const minConf of ['0', '0.5']) {
      made.all = made.some = made.one = 0;
      const count = JSON.parse(await run('count', ['--min-confidence', minConf])) as { matches: number; belowConfidence: number; byRecord: Record<string, number> };
      const countMade = { ...made };
      const json = (await run('json', ['--min-confidence', minConf])).trimEnd().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: string });
      const byRecord: Record<string, number> = {};
      for (const j of json) byRecord[j.id] = (byRecord[j.id] ?? 0) + 1;
      assert.equal(count.matches, json.length);
      assert.deepEqual(count.byRecord, byRecord);
      assert.ok(count.matches >= 100, `${count.matches} matches`);
      // the only LineMatches made: the traceback's window lines (matches(), at most a few lines)
      assert.equal(countMade.some, 0);
      assert.ok(countMade.all <= 5, `count made the matches of ${countMade.all} lines`);
    }
  });

  it('--format json: LineMatches only for the matches it prints', async () => {
    made.all = made.some = made.one = 0;
    const all = (await run('json', ['--min-confidence', '0'])).trimEnd().split('\n').filter(Boolean);
    const madeAll = made.one;
    made.all = made.some = made.one = 0;
    // a threshold no plain match reaches: nothing printed, nothing made for those lines
    const none = (await run('json', ['--min-confidence', '1'])).trimEnd().split('\n').filter(Boolean);
    assert.equal(none.length, 0);
    assert.ok(all.length >= 100);
    assert.ok(madeAll >= 100, `${madeAll} made for ${all.length} printed`);
    assert.ok(made.one <= 5 * 8, `${made.one} LineMatches made with nothing printed`);
  });

  it('a traceback, then thousands of lines that all match: the window ends after the traceback (not at the run\'s end)', async () => {
    // (a log where most lines match a generic record, as dpkg.log's `install` lines do, with a
    // traceback in it: lines after the block are plain, each reported from its own hits)
    const trace = traceLines('python/shutil_archive.txt');
    const run2000 = Array.from({ length: 2000 }, (_, i) => `2026-12-01 09:00:00 ERROR unknown archive format 'zip${i}'`);
    const dense = path.join(dir, 'dense.log');
    writeFileSync(dense, [...trace, ...run2000].join('\n') + '\n');
    made.all = made.some = made.one = 0;
    const count = JSON.parse(await run('count', ['--min-confidence', '0'], dense)) as { matches: number };
    const held = made.all;
    const json = (await run('json', ['--min-confidence', '0'], dense)).trimEnd().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { line: number; block?: unknown });
    assert.equal(count.matches, json.length);
    // every line of the run reported on its own, the traceback once (its block)
    assert.equal(new Set(json.filter((j) => j.line > trace.length).map((j) => j.line)).size, run2000.length);
    assert.equal(json.filter((j) => j.block).length, 1);
    // the LineMatches made for held lines: the traceback's and a window's worth after it
    assert.ok(held <= trace.length + 2 * AFTER, `the matches of ${held} lines held for windows`);
  });
});
