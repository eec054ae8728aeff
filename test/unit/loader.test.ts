import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { loadRecordsFromPath, mergeRecordSets, parseRecordBytes, parseRecordText, type LoadResult } from '../../server/src/core/load';
import { type ErrorRecord, LITE_FIELDS, PROSE_FIELDS, type RecordProblem, RECORD_KEYS, withoutProse } from '../../server/src/core/record';
import { RECORD_FIELDS } from '../../server/src/core/load/validate';
import { REPO, tempDir } from '../shared/paths';

const FIX = path.join(REPO, 'test/fixtures/records');
const BUNDLED_FILE = path.join(REPO, 'records/sgl-project/sglang.json');
const bundled: ErrorRecord[] = JSON.parse(fs.readFileSync(BUNDLED_FILE, 'utf8'));
const clone = (i = 0): Record<string, unknown> => structuredClone(bundled[i]!) as unknown as Record<string, unknown>;

/** 1-based line/column (UTF-16) of text index `i`, counted independently of the loader. */
function posAt(text: string, i: number): { line: number; column: number } {
  const lines = text.slice(0, i).split(/\r\n|\r|\n/);
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}
function indexOfOrFail(text: string, needle: string, from = 0): number {
  const i = text.indexOf(needle, from);
  assert.ok(i >= 0, `fixture text does not contain ${needle}`);
  return i;
}
/** Assert a problem starts at the first occurrence of `needle` (after `from`) and spans it. */
function assertAt(p: RecordProblem | undefined, text: string, needle: string, from = 0, spansNeedle = true): void {
  assert.ok(p, `no problem for ${needle}`);
  const i = indexOfOrFail(text, needle, from);
  const a = posAt(text, i);
  assert.deepEqual({ line: p.line, column: p.column }, a, `${p.path}: ${p.message}`);
  if (spansNeedle) {
    const b = posAt(text, i + needle.length);
    assert.deepEqual({ line: p.endLine, column: p.endColumn }, b, `end of ${p.path}`);
  }
}
const errorsOf = (r: LoadResult) => r.problems.filter((p) => p.severity === 'error');
const byPath = (r: LoadResult, pathStr: string) => r.problems.filter((p) => p.path === pathStr);
const messages = (r: LoadResult) => r.records.map((x) => x.errorMessage);

let tmp: string;
before(() => {
  tmp = tempDir('loader');
});
after(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('loader: record forms', () => {
  it('loads one record object (lenient user record with defaults)', async () => {
    const r = await loadRecordsFromPath(path.join(FIX, 'single.json'));
    assert.deepEqual(r.problems, []);
    assert.equal(r.records.length, 1);
    assert.equal(r.records[0]!.messagePattern, 'Connection refused by (.+?):(.+?)');
    assert.equal(r.records[0]!.severity, 'critical');
    assert.deepEqual(r.files, [path.join(FIX, 'single.json')]);
  });

  it('loads the {record, datasetVersion} envelope (strict)', async () => {
    const r = await loadRecordsFromPath(path.join(FIX, 'envelope.json'), { strict: true });
    assert.deepEqual(r.problems, []);
    assert.equal(r.records.length, 1);
    assert.deepEqual(r.records[0], bundled.find((b) => b.id === r.records[0]!.id));
    const text = fs.readFileSync(path.join(FIX, 'envelope.json'), 'utf8');
    const src = r.sources![0]!;
    assert.equal(src.path, 'record.id');
    assert.deepEqual({ line: src.line, column: src.column }, posAt(text, indexOfOrFail(text, `"${r.records[0]!.id}"`)));
  });

  it('loads a JSON array of records and envelopes', async () => {
    const r = await loadRecordsFromPath(path.join(FIX, 'mixed-array.json'));
    assert.deepEqual(r.problems, []);
    assert.deepEqual(messages(r), ['Disk quota exceeded for user {user}', 'Worker {name} lost heartbeat after {secs}s', 'Token expired at {time}']);
    assert.equal(r.records[1]!.messagePattern, 'Worker (.+?) lost heartbeat after (.+?)s');
    assert.equal(r.records[0]!.errorType, 'error_code');
  });

  it('prose: false keeps each record\'s lite fields only (validated the same, the same problems); reading its prose throws, naming it', async () => {
    const bad = [clone(0), { ...clone(1), severity: 'bogus', documentation: 7 }, { ...clone(2), messagePattern: 'a(b' }];
    const file = path.join(tempDir('prose'), 'records.json');
    fs.writeFileSync(file, JSON.stringify(bad, null, 2));
    const full = await loadRecordsFromPath(file);
    const lite = await loadRecordsFromPath(file, { prose: false });
    assert.deepEqual(lite.problems, full.problems);
    assert.equal(lite.records.length, full.records.length);
    assert.ok(full.records.length >= 2);
    lite.records.forEach((r, i) => {
      for (const k of LITE_FIELDS) assert.deepEqual(r[k], full.records[i]![k], k);
      assert.deepEqual({ ...r }, Object.fromEntries(LITE_FIELDS.map((k) => [k, full.records[i]![k]])), 'own fields: the lite ones');
      for (const k of PROSE_FIELDS) assert.throws(() => r[k], new RegExp(`record ${r.id}: its ${k} was not loaded`));
      assert.throws(() => JSON.stringify(r), /was not loaded/);
    });
    // (the two lists are every field of a record, once)
    assert.deepEqual([...LITE_FIELDS, ...PROSE_FIELDS].sort(), [...RECORD_KEYS].sort());
    // a prose field set on such a record is its own
    const r = withoutProse(full.records[0]!);
    r.documentation = 'given';
    assert.equal(r.documentation, 'given');
  });

  it('loads the bundled per-repository array in strict mode', async () => {
    const r = await loadRecordsFromPath(BUNDLED_FILE, { strict: true });
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.records, bundled);
  });

  it('loads JSON Lines (objects, envelopes, blank lines) and CRLF .ndjson', async () => {
    const r = await loadRecordsFromPath(path.join(FIX, 'lines.jsonl'));
    assert.deepEqual(r.problems, []);
    assert.deepEqual(messages(r), ['Cannot allocate {n} bytes of shared memory', 'Checkpoint {path} is corrupted', 'rate limit of (.+?) requests exceeded']);
    const c = await loadRecordsFromPath(path.join(FIX, 'crlf.ndjson'));
    assert.deepEqual(c.problems, []);
    assert.equal(c.records.length, 2);
  });

  it('detects JSON Lines content in a .json file', () => {
    const text = '{"errorMessage": "first line record failed"}\n{"errorMessage": "second line record failed"}\n';
    const r = parseRecordText(text, 'records.json');
    assert.deepEqual(r.problems, []);
    assert.equal(r.records.length, 2);
  });

  it('loads gzip-compressed files, by extension and by magic bytes', async () => {
    for (const name of ['single.json', 'mixed-array.json', 'lines.jsonl', 'envelope.json']) {
      const raw = fs.readFileSync(path.join(FIX, name));
      const plain = await loadRecordsFromPath(path.join(FIX, name));
      const gz = path.join(tmp, name + '.gz');
      fs.writeFileSync(gz, zlib.gzipSync(raw));
      const a = await loadRecordsFromPath(gz);
      assert.deepEqual(a.problems, [], name);
      assert.deepEqual(a.records, plain.records, name);
      // No .gz in the name: detected by the magic bytes (1f 8b).
      const disguised = path.join(tmp, 'disguised-' + name);
      fs.writeFileSync(disguised, zlib.gzipSync(raw));
      assert.deepEqual((await loadRecordsFromPath(disguised)).records, plain.records, name);
      assert.deepEqual(parseRecordBytes(zlib.gzipSync(raw), name).records, plain.records, name);
    }
  });

  it('reports a corrupt gzip file instead of throwing', async () => {
    const bad = path.join(tmp, 'corrupt.json.gz');
    const gz = zlib.gzipSync(fs.readFileSync(path.join(FIX, 'mixed-array.json')));
    fs.writeFileSync(bad, gz.subarray(0, gz.length - 20));
    const r = await loadRecordsFromPath(bad);
    assert.equal(r.records.length, 0);
    assert.equal(errorsOf(r).length, 1);
    assert.match(errorsOf(r)[0]!.message, /decompress/);
  });

  it('loads a folder recursively, skipping node_modules/.git and other files, surviving symlink loops', async () => {
    const dir = path.join(tmp, 'tree');
    fs.cpSync(path.join(FIX, 'tree'), dir, { recursive: true });
    for (const skip of ['node_modules/pkg', '.git']) {
      fs.mkdirSync(path.join(dir, skip), { recursive: true });
      fs.writeFileSync(path.join(dir, skip, 'ignored.json'), '[{"errorMessage": "must never load from ' + skip + '"}]');
    }
    fs.mkdirSync(path.join(dir, '.error-records'));
    fs.writeFileSync(path.join(dir, '.error-records', 'mine.json.gz'), zlib.gzipSync('{"errorMessage": "Hidden folder record is fine"}'));
    fs.symlinkSync(dir, path.join(dir, 'sub', 'loop')); // a symlink loop
    fs.symlinkSync(path.join(dir, 'a.json'), path.join(dir, 'sub', 'a-again.json')); // same file twice
    fs.symlinkSync(path.join(dir, 'missing.json'), path.join(dir, 'dangling.json'));
    const r = await loadRecordsFromPath(dir);
    assert.deepEqual(messages(r).sort(), ['Hidden folder record is fine', 'Tree record A could not start', 'Tree record B could not stop', 'Tree record C was too deep']);
    assert.ok(r.files.every((f) => !f.includes('node_modules') && !f.includes('.git')));
    assert.equal(r.files.length, 4);
    assert.deepEqual(
      r.problems.map((p) => [p.severity, path.basename(p.file)]),
      [['error', 'dangling.json']],
    );
  });

  it('reports an empty folder as info', async () => {
    const dir = path.join(tmp, 'empty');
    fs.mkdirSync(dir);
    const r = await loadRecordsFromPath(dir);
    assert.deepEqual(
      r.problems.map((p) => [p.severity, p.file]),
      [['info', dir]],
    );
  });

  it('reports a missing path instead of throwing', async () => {
    const r = await loadRecordsFromPath(path.join(tmp, 'does-not-exist.json'));
    assert.equal(r.records.length, 0);
    assert.equal(errorsOf(r).length, 1);
    assert.match(errorsOf(r)[0]!.message, /cannot read/);
  });

  it('skips a JSON Schema document in a records folder', () => {
    const schema = fs.readFileSync(path.join(REPO, 'records/schema.json'), 'utf8');
    const r = parseRecordText(schema, 'records/schema.json', { strict: true });
    assert.deepEqual(r, { records: [], problems: [], files: ['records/schema.json'], sources: [] });
  });

  it('never throws on odd top-level values', () => {
    for (const text of ['', '   \n', 'null', '42', '"str"', '[1, "x", null]', '{}', '[]', '\uFEFF[]', 'true false']) {
      const r = parseRecordText(text, 'odd.json');
      assert.equal(r.records.length, 0, text);
      if (text.trim() !== '[]' && text !== '\uFEFF[]') assert.ok(r.problems.length > 0, `no problem for ${JSON.stringify(text)}`);
    }
  });
});

describe('loader: located problems', () => {
  it('locates each wrong field value in an array (strict), other records load', () => {
    const good0 = clone(0);
    const good2 = clone(2);
    for (const field of RECORD_FIELDS) {
      const bad = clone(1);
      const wrong = ['httpStatus', 'lineNumber', 'sourceCodeStart', 'sourceCodeEnd', 'schemaVersion'].includes(field) ? `wrong-${field}` : 424242;
      bad[field] = wrong;
      const text = JSON.stringify([good0, bad, good2], null, 2);
      const r = parseRecordText(text, 'bad.json', { strict: true });
      assert.deepEqual(r.records.map((x) => x.id), [bundled[0]!.id, bundled[2]!.id], field);
      const errs = errorsOf(r);
      assert.equal(errs.length, 1, `${field}: ${JSON.stringify(r.problems)}`);
      assert.equal(errs[0]!.path, `[1].${field}`);
      assertAt(errs[0], text, JSON.stringify(wrong), text.indexOf(`"id": "${bundled[1]!.id}"`));
      assert.match(errs[0]!.message, /record skipped/);
    }
  });

  it('locates each wrong-typed optional field of user records as a warning; the record still loads', () => {
    for (const field of RECORD_FIELDS) {
      if (field === 'errorMessage' || field === 'messagePattern') continue;
      const text = `[\n  {"errorMessage": "first record works fine"},\n  {"errorMessage": "second record has a bad field",\n   "${field}": {"bad": ["value"]}}\n]\n`;
      const r = parseRecordText(text, 'user.json');
      assert.equal(r.records.length, 2, field);
      const p = byPath(r, `[1].${field}`);
      assert.equal(p.length, 1, `${field}: ${JSON.stringify(r.problems)}`);
      assert.equal(p[0]!.severity, 'warning');
      assertAt(p[0], text, '{"bad": ["value"]}');
    }
  });

  it('locates problems inside envelopes, JSON Lines lines, array items, keys and missing fields', () => {
    const text = [
      '[',
      '  {"record": {"errorMessage": "envelope record is here", "httpStatus": 777}, "datasetVersion": 5, "extra": 1},',
      '  {"errorMessage": "tags record is here", "tags": ["fine", "Not Kebab"], "solutionz": []},',
      '  {"severity": "error"}',
      ']',
    ].join('\n');
    const r = parseRecordText(text, 'x.json');
    assert.equal(r.records.length, 2);
    assertAt(byPath(r, '[0].record.httpStatus')[0], text, '777');
    assertAt(byPath(r, '[0].datasetVersion')[0], text, '5, "extra"', 0, false);
    assertAt(byPath(r, '[0].extra')[0], text, '"extra"');
    assertAt(byPath(r, '[1].tags[1]')[0], text, '"Not Kebab"');
    const unknown = byPath(r, '[1].solutionz')[0];
    assertAt(unknown, text, '"solutionz"');
    assert.equal(unknown!.severity, 'info');
    assert.match(unknown!.message, /did you mean "solutions"/);
    const missing = byPath(r, '[2]')[0];
    assert.equal(missing!.severity, 'error');
    assertAt(missing, text, '{"severity"', 0, false);

    const lines = '{"errorMessage": "line one is a fine record"}\n\n{"errorMessage": "line three record", "severity": "fatal"}\n';
    const l = parseRecordText(lines, 'x.jsonl');
    assert.equal(l.records.length, 2);
    assert.equal(l.problems[0]!.path, '[2].severity');
    assertAt(l.problems[0], lines, '"fatal"');
  });

  it('warns about a field given twice, at the ignored occurrence (valid and recovering parser)', () => {
    const rec = '{"errorMessage": "twice severity record", "severity": "info", "severity": "critical"}';
    for (const text of [`[${rec}]`, `[${rec} {"errorMessage": "comma is missing before me"}]`]) {
      const r = parseRecordText(text, 'dup-key.json');
      assert.equal(r.records[0]!.severity, 'critical');
      const w = byPath(r, '[0].severity');
      assert.equal(w.length, 1, JSON.stringify(r.problems));
      assert.equal(w[0]!.severity, 'warning');
      assertAt(w[0], text, '"severity"');
    }
  });

  it('counts columns in UTF-16 units after astral characters', () => {
    const text = '[{"errorMessage": "😀😀 emoji message here", "httpStatus": "😀x"}]';
    const r = parseRecordText(text, 'u.json');
    assertAt(byPath(r, '[0].httpStatus')[0], text, '"😀x"');
  });

  it('reports the later of duplicate ids as info, naming the earlier one; the later wins', () => {
    const a = clone(0);
    const b = { ...clone(0), documentation: 'the later copy' };
    const text = JSON.stringify([a, clone(1), b], null, 2);
    const r = parseRecordText(text, 'dup.json', { strict: true });
    assert.equal(r.records.length, 2);
    assert.equal(r.records.find((x) => x.id === a.id)!.documentation, 'the later copy');
    const info = r.problems.filter((p) => p.severity === 'info');
    assert.equal(info.length, 1);
    assert.equal(info[0]!.path, '[2].id');
    const firstId = text.indexOf(`"${a.id}"`);
    assertAt(info[0], text, `"${a.id}"`, firstId + 1);
    const earlier = posAt(text, firstId);
    assert.match(info[0]!.message, new RegExp(`dup\\.json:${earlier.line}:${earlier.column}`));
  });

  it('mergeRecordSets: user records override bundled ones, reported as info at the user id', async () => {
    const bundledSet = await loadRecordsFromPath(BUNDLED_FILE, { strict: true });
    const userText = JSON.stringify([{ id: bundled[1]!.id, errorMessage: 'my own version of encode metadata not ready' }, { errorMessage: 'a new user error message' }], null, 2);
    const userSet = parseRecordText(userText, '/ws/.error-records/mine.json');
    const m = mergeRecordSets([
      { origin: 'bundled', result: bundledSet },
      { origin: 'user', result: userSet },
    ]);
    assert.equal(m.records.length, 4);
    assert.equal(m.records.find((x) => x.id === bundled[1]!.id)!.errorMessage, 'my own version of encode metadata not ready');
    assert.equal(m.origins.get(bundled[1]!.id), 'user');
    assert.equal(m.origins.get(bundled[0]!.id), 'bundled');
    const info = m.problems.filter((p) => p.severity === 'info');
    assert.equal(info.length, 1);
    assert.equal(info[0]!.file, '/ws/.error-records/mine.json');
    assertAt(info[0], userText, `"${bundled[1]!.id}"`);
    assert.match(info[0]!.message, /bundled record in .*sglang\.json:50:11/);
    assert.equal(m.sources.get(bundled[1]!.id)!.file, '/ws/.error-records/mine.json');
  });
});

describe('loader: syntax errors', () => {
  const recs = [1, 2, 3, 4].map((n) => `{"errorMessage": "record number ${n} has failed"}`);

  it('missing comma between records: all records load, error at the second record', () => {
    const text = `[\n  ${recs[0]},\n  ${recs[1]}\n  ${recs[2]},\n  ${recs[3]}\n]`;
    const r = parseRecordText(text, 'x.json');
    assert.equal(r.records.length, 4);
    const e = errorsOf(r);
    assert.equal(e.length, 1);
    assertAt(e[0], text, recs[2]!, 0, false);
    assert.match(e[0]!.message, /',' expected/);
  });

  it('missing comma inside a record: that record is skipped, the others load', () => {
    const broken = '{"errorMessage": "record number 2 has failed" "severity": "error"}';
    const text = `[\n  ${recs[0]},\n  ${broken},\n  ${recs[2]}\n]`;
    const r = parseRecordText(text, 'x.json');
    assert.deepEqual(messages(r), ['record number 1 has failed', 'record number 3 has failed']);
    const e = errorsOf(r);
    assert.equal(e.length, 1);
    assertAt(e[0], text, '"severity"', 0, false);
    assert.equal(e[0]!.path, '[1]');
    assert.match(e[0]!.message, /record at \[1\] is skipped/);
  });

  it('truncated file: complete records load, the cut one is reported', () => {
    const full = `[\n  ${recs[0]},\n  ${recs[1]},\n  ${recs[2]}\n]`;
    const text = full.slice(0, full.indexOf('number 3') + 4);
    const r = parseRecordText(text, 'x.json');
    assert.deepEqual(messages(r), ['record number 1 has failed', 'record number 2 has failed']);
    const e = errorsOf(r);
    assert.ok(e.length >= 1);
    assert.equal(e[0]!.path, '[2]');
    assert.ok(e.every((p) => p.line === 4), JSON.stringify(e));
  });

  it('trailing garbage: the records load, error at the garbage', () => {
    const text = `[${recs[0]}, ${recs[1]}]\n}} oops`;
    const r = parseRecordText(text, 'x.json');
    assert.equal(r.records.length, 2);
    const e = errorsOf(r);
    assert.ok(e.length >= 1);
    assertAt(e[0], text, '}} oops', 0, false);
    assert.equal(e[0]!.path, '(file)');
  });

  it('comments, trailing commas and doubled commas are errors at their place; records load', () => {
    const text = `[\n  // my records\n  ${recs[0]},,\n  ${recs[1]},\n]`;
    const r = parseRecordText(text, 'x.json');
    assert.equal(r.records.length, 2);
    const e = errorsOf(r);
    assertAt(e[0], text, '// my records', 0);
    assert.match(e[0]!.message, /comments/);
    assertAt(e[1], text, ',\n', text.indexOf('},,') + 2, false);
    assertAt(e[2], text, ']', text.lastIndexOf(','), false);
  });

  it('an unterminated string swallows only its own record', () => {
    const text = `[\n  ${recs[0]},\n  {"errorMessage": "oops},\n  ${recs[2]}\n]`;
    const r = parseRecordText(text, 'x.json');
    assert.ok(messages(r).includes('record number 1 has failed'));
    assert.ok(errorsOf(r).length >= 1);
    assert.equal(errorsOf(r)[0]!.line, 3);
  });

  it('a broken JSON Lines line is skipped, the others load', () => {
    const text = `${recs[0]}\n{"errorMessage": "broken line" "x": 1}\n${recs[2]}\n{"errorMessage": "cut off`;
    const r = parseRecordText(text, 'x.jsonl');
    assert.deepEqual(messages(r), ['record number 1 has failed', 'record number 3 has failed']);
    const e = errorsOf(r);
    assert.equal(e.length, 2);
    assert.equal(e[0]!.path, '[1]');
    assertAt(e[0], text, '"x"', 0, false);
    assert.equal(e[1]!.path, '[3]');
    assert.equal(e[1]!.line, 4);
  });

  it('a syntax error range never spills onto the next line', () => {
    const texts = [
      `[\n  {"errorMessage": "record number 1 has failed"\n  {"errorMessage": "x"}\n]`,
      `[\n  ${recs[0]},\n  {"errorMessage": "cut\n`,
      `{"errorMessage": "jsonl record without its close brace"\n${recs[1]}\n`,
      `{"errorMessage": "jsonl record without its close brace"\r\n${recs[1]}\r\n`,
    ];
    for (const text of texts) {
      const r = parseRecordText(text, 'x.jsonl');
      const e = errorsOf(r);
      assert.ok(e.length >= 1, text);
      for (const p of e) assert.equal(p.endLine, p.line, JSON.stringify(p));
    }
  });

  it('a raw NUL byte in a string is a located error; records around it load', () => {
    const text = `[${recs[0]}, {"errorMessage": "raw \u0000 nul"}, ${recs[2]}]`;
    const r = parseRecordText(text, 'x.json');
    assert.deepEqual(messages(r), ['record number 1 has failed', 'record number 3 has failed']);
    assertAt(errorsOf(r)[0], text, '\u0000', 0, false);
  });
});

describe('loader: hostile input', () => {
  // About 1.5 s (valid) and 2 s (with a syntax error) on an idle 2-core machine; the bounds are
  // far looser because the machine is shared, yet a super-linear loader would miss them by hours.
  it('loads a 50 MB file in a few seconds, with a bad record located in the middle', function () {
    this.timeout(600_000);
    const parts: string[] = [];
    let size = 0;
    let i = 0;
    const badAt = 5000;
    while (size < 50 * 1024 * 1024) {
      const rec = clone(i % 3);
      rec.id = i.toString(16).padStart(16, '0');
      if (i === badAt) rec.httpStatus = 'not-a-status';
      const s = JSON.stringify(rec, null, 2);
      parts.push(s);
      size += s.length + 2;
      i++;
    }
    const text = '[\n' + parts.join(',\n') + '\n]\n';
    parts.length = 0;
    const file = path.join(tmp, 'big.json');
    fs.writeFileSync(file, text);
    const t0 = Date.now();
    const r = parseRecordBytes(fs.readFileSync(file), file, { strict: true });
    const ms = Date.now() - t0;
    assert.equal(r.records.length, i - 1);
    assert.equal(errorsOf(r).length, 1);
    assert.equal(errorsOf(r)[0]!.path, `[${badAt}].httpStatus`);
    assertAt(errorsOf(r)[0], text, '"not-a-status"');
    assert.ok(ms < 120_000, `50 MB took ${ms} ms`);
    // The same file with a syntax error goes through the recovering parser.
    const broken = text.replace('"not-a-status"', '"not-a-status" "x"');
    const t1 = Date.now();
    const r2 = parseRecordText(broken, file, { strict: true });
    const ms2 = Date.now() - t1;
    assert.equal(r2.records.length, i - 1);
    assert.ok(errorsOf(r2).length >= 1);
    assert.ok(errorsOf(r2).every((p) => p.path === `[${badAt}]`), JSON.stringify(errorsOf(r2)));
    assert.ok(ms2 < 180_000, `50 MB with a syntax error took ${ms2} ms`);
    console.log(`      50 MB (${i} records): ${ms} ms valid, ${ms2} ms with a syntax error`);
  });

  it('deeply nested arrays neither overflow the stack nor hang, and are located', function () {
    this.timeout(300_000);
    const good = '{"errorMessage": "a good record stays loaded"}';
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    // Valid JSON: the deep entry is not a record.
    const t1 = `[${good}, ${deep}, ${good.replace('good', 'fine')}]`;
    const r1 = parseRecordText(t1, 'deep.json');
    assert.equal(r1.records.length, 2);
    assertAt(errorsOf(r1)[0], t1, deep, 0, true);
    // Deep inside a field.
    const t2 = `[{"errorMessage": "deep solutions record", "solutions": ${deep}}, ${good}]`;
    const r2 = parseRecordText(t2, 'deep.json');
    assert.equal(r2.records.length, 2);
    assert.equal(r2.problems[0]!.path, '[0].solutions[0]');
    // Unbalanced: 100k '[' and no closes (JSON.parse fails, recovery must not recurse).
    const t3 = `[${good}, ${'['.repeat(100_000)}`;
    const r3 = parseRecordText(t3, 'deep.json');
    assert.deepEqual(messages(r3), ['a good record stays loaded']);
    const deepErr = errorsOf(r3).find((p) => /nested deeper/.test(p.message));
    assert.ok(deepErr);
    assert.equal(deepErr.path, '[1]');
    // JSON Lines with a deep line.
    const t4 = `${good}\n${'['.repeat(100_000)}\n${good}\n`;
    const r4 = parseRecordText(t4, 'deep.jsonl');
    assert.equal(r4.records.length, 1); // same id twice: merged
    assert.ok(errorsOf(r4).some((p) => p.line === 2));
    // Objects too.
    const t5 = `[${good}, ${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}]`;
    assert.equal(parseRecordText(t5, 'deep.json').records.length, 1);
  });

  it('accepts \\u0000 in strings and repairs lone surrogates with a located warning', () => {
    const text = '[{"errorMessage": "nul \\u0000 inside message", "documentation": "lone \\ud800 here"}, {"errorMessage": "next record is fine"}]';
    const r = parseRecordText(text, 'x.json');
    assert.equal(r.records.length, 2);
    assert.equal(r.records[0]!.errorMessage, 'nul \u0000 inside message');
    assert.equal(r.records[0]!.documentation, 'lone \uFFFD here');
    assert.equal(r.problems.length, 1);
    assert.equal(r.problems[0]!.severity, 'warning');
    assertAt(r.problems[0], text, '"lone \\ud800 here"');
  });

  it('invalid UTF-8 bytes become a warning, not a crash', () => {
    const bytes = Buffer.concat([Buffer.from('[{"errorMessage": "bad bytes '), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(' in here"}, {"errorMessage": "clean record text"}]')]);
    const r = parseRecordBytes(bytes, 'bytes.json');
    assert.equal(r.records.length, 2);
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0]!.message, /not valid UTF-8/);
    assert.equal(r.problems[0]!.column, '[{"errorMessage": "bad bytes '.length + 1);
  });

  it('decodes UTF-16 files with a BOM and ignores a UTF-8 BOM', () => {
    const text = '[{"errorMessage": "utf sixteen record ok"}]';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    assert.equal(parseRecordBytes(le, 'le.json').records.length, 1);
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('[{"errorMessage": "x", "httpStatus": 1}]')]);
    const r = parseRecordBytes(bom, 'bom.json');
    assert.equal(r.problems.filter((p) => p.path === '[0].httpStatus')[0]!.column, '[{"errorMessage": "x", "httpStatus": '.length + 1);
  });

  const unsafe: [string, string][] = [
    ['invalid regex', 'unclosed (group here'],
    ['backreference', 'ERRXYZ (\\w+) again \\1'],
    ['lookahead', 'ERRXYZ(?=abc)'],
    ['repetition over 1000', 'ERRXYZ a{5000}'],
    ['no literal text', '(.+?)(.+?)'],
    ['too short', 'ab(.+?)'],
  ];
  for (const [name, pattern] of unsafe) {
    it(`rejects a pattern (${name}) with an error at its value; other records load`, () => {
      const text = JSON.stringify([{ errorMessage: 'first good record message' }, { messagePattern: pattern, errorMessage: 'message of the unsafe one' }, { errorMessage: 'third good record message' }], null, 2);
      for (const strict of [false, true]) {
        const input = strict ? JSON.stringify([clone(0), { ...clone(1), messagePattern: pattern }, clone(2)], null, 2) : text;
        const r = parseRecordText(input, 'p.json', { strict });
        assert.equal(r.records.length, 2, `${name} strict=${strict}`);
        const e = errorsOf(r);
        assert.equal(e.length, 1, JSON.stringify(e));
        assert.equal(e[0]!.path, '[1].messagePattern');
        assertAt(e[0], input, JSON.stringify(pattern));
      }
    });
  }

  it('a record with 200k unknown keys (and duplicates) loads in linear time', function () {
    this.timeout(300_000);
    const keys = Array.from({ length: 200_000 }, (_, k) => `"k${k}": ${k}`).join(', ');
    const text = `[{"errorMessage": "many keys record here", ${keys}, "k5": 0, "severity": "bogus"}, {"errorMessage": "next record is fine"}]`;
    const t0 = Date.now();
    const r = parseRecordText(text, 'keys.json');
    const ms = Date.now() - t0;
    assert.equal(r.records.length, 2);
    assertAt(byPath(r, '[0].k5')[0], text, '"k5"');
    assertAt(byPath(r, '[0].severity')[0], text, '"bogus"');
    assert.ok(r.problems.length < 100, String(r.problems.length));
    assert.ok(ms < 60_000, `${ms} ms`); // about 1 s idle; quadratic would take hours
  });

  it('caps the number of reported problems per file', function () {
    this.timeout(120_000);
    const text = JSON.stringify(Array.from({ length: 3000 }, (_, k) => ({ errorMessage: `message number ${k} here`, bogus: k })));
    const r = parseRecordText(text, 'many.json');
    assert.equal(r.records.length, 3000);
    assert.equal(r.problems.length, 1001);
    assert.match(r.problems[1000]!.message, /2000 more problems/);
  });

  it('fuzz: never throws, every problem is well-formed (fixed seed)', function () {
    this.timeout(300_000);
    const valid = JSON.stringify([{ errorMessage: 'fuzz base record one', tags: ['a'] }, { record: { messagePattern: 'fuzz (.+?) two' } }], null, 1);
    const mutated = fc.tuple(fc.nat(valid.length), fc.nat(20), fc.string({ maxLength: 8 })).map(([at, del, ins]) => valid.slice(0, at) + ins + valid.slice(at + del));
    fc.assert(
      fc.property(fc.oneof(mutated, fc.string({ maxLength: 200 }), fc.json()), fc.boolean(), (text, strict) => {
        const r = parseRecordText(text, 'fuzz.json', { strict });
        const lines = text.split(/\r\n|\r|\n/).length;
        for (const p of r.problems) {
          assert.ok(p.line >= 1 && p.line <= lines && p.column >= 1, JSON.stringify(p));
          assert.ok(p.endLine > p.line || (p.endLine === p.line && p.endColumn >= p.column), JSON.stringify(p));
        }
        for (const rec of r.records) assert.match(rec.id, /^[0-9a-f]{16}$/);
        parseRecordText(text, 'fuzz.jsonl', { strict });
      }),
      { seed: 42, numRuns: 400 },
    );
  });
});
