// The loader reads files entry by entry (records/split.ts) and validates records without issues by
// a shortcut (validate.ts cleanRecord). Both must give exactly what the whole-text, rule-by-rule way
// gives: the same records, problems (positions, messages) and sources. Also: inputs that are not
// regular files (pipes, devices) are read once and capped, and loading stays near JSON.parse speed.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { loadRecordsFromPath, parseRecordBytes, parseRecordChunks, parseRecordText } from '../../server/src/core/load';
import { MAX_RECORD_FILE_BYTES } from '../../server/src/core/load/decode';
import { RECORD_FIELDS, validateRecord, validateRecordExact } from '../../server/src/core/load/validate';
import { REPO, tempDir } from '../shared/paths';

const FIX = path.join(REPO, 'test/fixtures/records');
const bundled = JSON.parse(fs.readFileSync(path.join(REPO, 'records/sgl-project/sglang.json'), 'utf8')) as Record<string, unknown>[];
const SEED = Number(process.env['FUZZ_SEED'] ?? 42);
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 150);

/** Bytes cut into pieces of 1..max bytes (cuts inside UTF-8 sequences too). */
function cut(b: Buffer, seed: number, max: number): Buffer[] {
  const out: Buffer[] = [];
  let x = seed >>> 0 || 1;
  for (let i = 0; i < b.length; ) {
    x = (x * 1103515245 + 12345) >>> 0;
    const n = 1 + (x % max);
    out.push(b.subarray(i, i + n));
    i += n;
  }
  return out;
}

// Values that test every rule: valid ones of each field, wrong ones, odd strings.
const fieldValue = fc.oneof(
  fc.constantFrom(...bundled.flatMap((r) => Object.values(r))),
  fc.constantFrom(null, '', ' ', '\ud800', 'a\u2014b', '😀', 'x"y', 'back\\slash', 'end\\', '\\"', '\\\\\\', 'q\\\\"\\', 'line\nbreak', 0, 1.5, -1, 404, true, [], ['ok-tag'], ['Bad Tag'], {}, { id: 'x' }),
  fc.string({ maxLength: 12 }),
);
const recordLike = fc
  .tuple(
    fc.shuffledSubarray([...RECORD_FIELDS, '$schema', 'unknownField', 'record'] as string[]),
    fc.array(fieldValue, { minLength: 40, maxLength: 40 }),
    fc.boolean(),
  )
  .map(([keys, values, keepBundled]) => {
    const base = keepBundled ? { ...bundled[values.length % bundled.length]! } : {};
    const o: Record<string, unknown> = base;
    keys.slice(0, 8).forEach((k, i) => (o[k] = values[i]));
    if (!('errorMessage' in o) && !('messagePattern' in o)) o['errorMessage'] = 'a message that is long enough';
    return o;
  });

/** JSON text of records in every form the loader reads, with textual twists JSON.stringify never makes. */
const recordText = fc
  .tuple(
    fc.array(recordLike, { minLength: 0, maxLength: 4 }),
    fc.constantFrom('array', 'pretty', 'lines', 'crlf-lines', 'envelopes', 'single', 'single-pretty', 'lines-of-arrays'),
    fc.constantFrom('none', 'dup-id', 'escaped-id', 'dup-field', 'id-last', 'lone-cr', 'bom', 'trailing', 'blank-lines', 'ws', 'raw-tab', 'bad-escape', 'u-escape', 'lone-surrogate', 'nested-prose'),
  )
  .map(([recs, form, twist]) => {
    const one = (r: Record<string, unknown>, indent?: number): string => {
      let t = JSON.stringify(r, null, indent);
      if (twist === 'dup-id') t = t.replace(/^\{/, '{"id": "0123456789abcdef",');
      if (twist === 'escaped-id') t = t.replace(/^\{/, '{"\\u0069d": "0123456789abcdef",');
      if (twist === 'dup-field') t = t.replace(/^\{/, '{"severity": 5,');
      if (twist === 'id-last') t = t.replace(/\}$/, t.length > 2 ? ', "id": "fedcba9876543210"}' : '"id": "fedcba9876543210"}');
      if (twist === 'lone-cr') t = t.replace(/,"/, ',\r"');
      // free-text values the prose reducer must leave whole (invalid, or not plain) or not touch
      // (a free-text name below a record)
      const text = /"(documentation|solutions|sourceCode|tryCatchPattern)": ?\[?"/;
      if (twist === 'raw-tab') t = t.replace(text, '$&a\tb');
      if (twist === 'bad-escape') t = t.replace(text, '$&a\\qb');
      if (twist === 'u-escape') t = t.replace(text, '$&\\u00e9\\n');
      if (twist === 'lone-surrogate') t = t.replace(text, '$&x\\ud800y');
      if (twist === 'nested-prose') t = t.replace(/^\{/, '{"errorClass": {"documentation": "a long text that stays"},');
      return t;
    };
    let text: string;
    switch (form) {
      case 'array':
        text = `[${recs.map((r) => one(r)).join(',')}]`;
        break;
      case 'pretty':
        text = `[\n${recs.map((r) => '  ' + one(r, 2).replace(/\n/g, '\n  ')).join(',\n')}\n]\n`;
        break;
      case 'lines':
        text = recs.map((r) => one(r)).join('\n') + '\n';
        break;
      case 'crlf-lines':
        text = recs.map((r) => one(r)).join('\r\n');
        break;
      case 'envelopes':
        text = JSON.stringify(recs.map((r) => ({ record: r, datasetVersion: '2026-01-01' }))).replace(/"record":\{/g, (m) => (twist === 'dup-id' ? `${m}"id":"0123456789abcdef",` : m));
        break;
      case 'single':
        text = one(recs[0] ?? {});
        break;
      case 'single-pretty':
        text = one(recs[0] ?? {}, '\t' as unknown as number).replace(/\n/g, '\r\n');
        break;
      default:
        text = recs.map((r) => JSON.stringify([r, r])).join('\n');
    }
    if (twist === 'bom') text = '\ufeff' + text;
    if (twist === 'trailing') text += ' x';
    if (twist === 'blank-lines') text = text.replace(/\n/g, '\n  \n');
    if (twist === 'ws') text = ' \r\n\t' + text + '\n\n';
    return text;
  });

describe('loader: entry by entry = the whole text at once', function () {
  this.timeout(120_000);

  it('the same records, problems and sources for every form and twist (property)', () => {
    let streamed = 0;
    let reduced = 0;
    let runs = 0;
    fc.assert(
      fc.property(recordText, fc.boolean(), fc.constantFrom('f.json', 'f.jsonl', 'f.ndjson', 'f'), fc.nat(), (text, strict, name, seed) => {
        runs++;
        const slow = parseRecordText(text, name, { strict, streaming: false });
        assert.deepEqual(parseRecordText(text, name, { strict }), slow);
        const bytes = Buffer.from(text, 'utf8');
        assert.deepEqual(parseRecordBytes(bytes, name, { strict }), parseRecordBytes(bytes, name, { strict, streaming: false }));
        const chunked = parseRecordChunks(cut(bytes, seed, 1 + (seed % 40)), name, { strict });
        if (chunked) {
          streamed++;
          assert.deepEqual(chunked, parseRecordBytes(bytes, name, { strict, streaming: false }));
        }
        // without prose: the bytes go through the prose reducer, which shortens free-text values
        // (every record, problem and position the same)
        const lite = parseRecordBytes(bytes, name, { strict, streaming: false, prose: false });
        assert.deepEqual(parseRecordBytes(bytes, name, { strict, prose: false }), lite);
        const liteChunked = parseRecordChunks(cut(bytes, seed + 1, 1 + (seed % 70)), name, { strict, prose: false });
        if (liteChunked) {
          reduced++;
          assert.deepEqual(liteChunked, lite);
        }
      }),
      { seed: SEED, numRuns: RUNS * 4, endOnFailure: true },
    );
    assert.ok(streamed > runs / 2, `the entry-by-entry path ran for ${streamed} of ${runs} inputs`);
    assert.ok(reduced > runs / 2, `the reduced entry-by-entry path ran for ${reduced} of ${runs} inputs`);
  });

  it('the fixtures, cut at every size, give what the whole text gives', () => {
    for (const name of fs.readdirSync(FIX).filter((f) => /\.(json|jsonl|ndjson)$/.test(f))) {
      const bytes = fs.readFileSync(path.join(FIX, name));
      const slow = parseRecordBytes(bytes, name, { streaming: false });
      for (let max = 1; max <= 64; max *= 2) {
        const r = parseRecordChunks(cut(bytes, max, max), name);
        assert.ok(r, `${name} is read entry by entry`);
        assert.deepEqual(r, slow, `${name} in pieces of up to ${max} bytes`);
      }
    }
  });

  it('line ends outside strings count wherever they are: inside a value, after it, in a text read again as JSON Lines', () => {
    // the first value is followed by more, so the text is read again from its start as JSON Lines
    // (the splitter's searches must not remember the first reading); a lone \r inside a value, and
    // one after a line's value, each end a line for the positions after them
    const texts = [
      '{"id":"0123456789abcdef",\r"repo":"a/b","errorMessage":"a message that is long enough"}\r\n{"errorType":"x",\r"lineNumber":["Bad Tag"],"errorMessage":"a message that is long enough"}',
      '{"errorMessage":"a message that is long enough"} \r {"errorMessage":"another message, long enough","severity":1}\n{"lineNumber":"x","errorMessage":"a third message long enough"}',
      '[{"errorMessage":"a message that is long enough",\r\n"severity":1},\r{"errorMessage":"another one that is long enough","lineNumber":"x"}]',
    ];
    for (const text of texts) {
      for (const name of ['f', 'f.jsonl', 'f.json']) {
        const slow = parseRecordText(text, name, { streaming: false });
        assert.deepEqual(parseRecordText(text, name), slow, `${name}: ${JSON.stringify(text)}`);
        assert.ok(slow.problems.length + slow.records.length > 0);
      }
    }
  });

  it('a large read is decoded in pieces: characters of 2, 3 and 4 bytes across every piece boundary stay whole', () => {
    // > 3 decode pieces (60 KiB each) of records whose messages are full of multi-byte characters
    const recs = Array.from({ length: 400 }, (_, i) => ({
      errorMessage: `record ${i}: ${'é—😀'.repeat(40 + (i % 7))} failed`,
      documentation: 'ü'.repeat(i % 13),
      lineNumber: i % 50 === 0 ? 'bad' : i + 1,
    }));
    for (const text of [JSON.stringify(recs), recs.map((r) => JSON.stringify(r)).join('\n')]) {
      const bytes = Buffer.from(text, 'utf8');
      assert.ok(bytes.length > 3 * 61440, `${bytes.length} bytes`);
      const slow = parseRecordBytes(bytes, 'f', { streaming: false });
      assert.equal(slow.records.length, 400);
      assert.equal(slow.problems.length, 8);
      assert.deepEqual(parseRecordBytes(bytes, 'f'), slow);
      assert.deepEqual(parseRecordChunks([bytes], 'f'), slow);
    }
  });

  it('a multi-byte character split between two reads is decoded whole', () => {
    const text = `[${JSON.stringify({ errorMessage: 'disk quota — exceeded for 😀 user {user}' })}]`;
    const bytes = Buffer.from(text);
    const at = bytes.indexOf(Buffer.from('😀')) + 2;
    const r = parseRecordChunks([bytes.subarray(0, at), bytes.subarray(at)], 'x.json');
    assert.equal(r?.records[0]?.errorMessage, 'disk quota — exceeded for 😀 user {user}');
    assert.equal(parseRecordChunks([Buffer.from('[{"errorMessage": "bad \xff byte here ok"}]', 'latin1')], 'x.json'), undefined, 'invalid UTF-8 goes the exact way');
  });

  it('validateRecord = the rule-by-rule validation, for every record shape (property)', () => {
    fc.assert(
      fc.property(recordLike, fc.boolean(), (raw, strict) => {
        assert.deepEqual(validateRecord(raw, { strict }), validateRecordExact(raw, { strict }));
      }),
      { seed: SEED, numRuns: RUNS * 10, endOnFailure: true },
    );
    for (const r of bundled) {
      assert.deepEqual(validateRecord(r, { strict: true }), validateRecordExact(r, { strict: true }));
      assert.deepEqual(validateRecord(r), validateRecordExact(r));
    }
  });
});

describe('loader: inputs that are not regular files (issue 14, item 6)', function () {
  this.timeout(120_000);
  let tmp: string;
  before(() => (tmp = tempDir('loader-pipe')));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  /** A FIFO that a child process fills with `content` (then closes). */
  function fifo(name: string, content: Buffer | string): string {
    const p = path.join(tmp, name);
    const r = spawnSync('mkfifo', [p]);
    if (r.status !== 0) throw new Error('mkfifo failed');
    spawn(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(p)}, Buffer.from(${JSON.stringify(Buffer.from(content).toString('base64'))}, 'base64'))`], { stdio: 'ignore' });
    return p;
  }

  it('records read from a pipe are loaded, not dropped (like --records <(cat x.jsonl))', async () => {
    const text = fs.readFileSync(path.join(FIX, 'lines.jsonl'));
    const want = await loadRecordsFromPath(path.join(FIX, 'lines.jsonl'));
    const r = await loadRecordsFromPath(fifo('records-pipe', text));
    assert.ok(r.records.length > 0);
    assert.deepEqual(r.records, want.records);
    assert.deepEqual(r.problems, []);
    const gz = await loadRecordsFromPath(fifo('records-pipe-gz', zlib.gzipSync(text)));
    assert.deepEqual(gz.records, want.records);
  });

  it('a broken file read from a pipe is reported, with its position', async () => {
    const r = await loadRecordsFromPath(fifo('broken-pipe', '[{"errorMessage": "the first record is fine"},\n {"errorMessage": "x" "y"}]'));
    assert.equal(r.records.length, 1);
    const errors = r.problems.filter((p) => p.severity === 'error');
    assert.ok(errors.length >= 1, JSON.stringify(r.problems));
    assert.equal(errors[0]!.line, 2);
  });

  it('a device that never ends (/dev/zero) stops at the cap with a clear error', async function () {
    if (!fs.existsSync('/dev/zero')) this.skip();
    const t0 = Date.now();
    const r = await loadRecordsFromPath('/dev/zero');
    assert.equal(r.records.length, 0);
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0]!.message, new RegExp(`larger than ${MAX_RECORD_FILE_BYTES / 1048576} MiB`));
    assert.ok(Date.now() - t0 < 60_000);
  });

  it('`error-explainer validate /dev/zero` ends with that error and exit 1, in bounded memory', function () {
    const cli = path.join(REPO, 'dist/cli.js');
    if (!fs.existsSync(cli) || !fs.existsSync('/dev/zero')) this.skip();
    // the child may not grow past 1 GB (a V8 heap limit would be ignored: the bytes are buffers)
    const r = spawnSync('bash', ['-c', `ulimit -v 4000000; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(cli)} validate /dev/zero`], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 1, r.stderr + r.stdout);
    assert.match(r.stdout, /larger than 256 MiB/);
  });
});

describe('loader: speed (issue 11, item 6)', function () {
  this.timeout(300_000);

  it('loads 20k full records in at most 3x the CPU time of a bare JSON.parse (best of 3)', async () => {
    const tmp = tempDir('loader-speed');
    try {
      const recs: Record<string, unknown>[] = [];
      for (let i = 0; i < 20000; i++) {
        const b = bundled[i % bundled.length]!;
        recs.push({ ...b, id: i.toString(16).padStart(16, '0'), slug: `record-${i}`, errorMessage: `${String(b.errorMessage)} #${i}`, messagePattern: `${String(b.messagePattern)} #${i}` });
      }
      const file = path.join(tmp, 'big.json');
      fs.writeFileSync(file, JSON.stringify(recs));
      const cpu = async (f: () => unknown): Promise<number> => {
        const c = process.cpuUsage();
        await f();
        const d = process.cpuUsage(c);
        return d.user + d.system;
      };
      let parse = Infinity;
      let load = Infinity;
      for (let k = 0; k < 3; k++) {
        parse = Math.min(parse, await cpu(() => JSON.parse(fs.readFileSync(file, 'utf8'))));
        load = Math.min(
          load,
          await cpu(async () => {
            const r = await loadRecordsFromPath(file);
            assert.equal(r.records.length, 20000);
            assert.deepEqual(r.problems, []);
          }),
        );
      }
      assert.ok(load <= 3 * parse, `load ${(load / 1000).toFixed(0)} ms CPU vs JSON.parse ${(parse / 1000).toFixed(0)} ms`);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
