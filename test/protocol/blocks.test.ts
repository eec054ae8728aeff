// The built server over stdio on real traces (test/fixtures/traces: failing programs run on this
// machine) with real records (extracted from this machine's Python standard library and
// node_modules): one diagnostic per block with the block as its range and its frames as related
// information, quoted code and frames never flagged, the hover's "Raised at", edits that grow a
// block. Positions come from the text.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Diagnostic, Hover } from 'vscode-languageserver-protocol';
import { REPO, TestClient, copyFixture, uriOf, waitFor } from './client';

const TRACES = path.join(REPO, 'test', 'fixtures', 'traces');
const trace = (name: string) => fs.readFileSync(path.join(TRACES, name), 'utf8').replace(/\n+$/, '').split('\n');

type Range = Diagnostic['range'];
const tuple = (r: Range) => [r.start.line, r.start.character, r.end.line, r.end.character];

function lineWith(lines: readonly string[], text: string, from = 0): number {
  const i = lines.findIndex((l, k) => k >= from && l.includes(text));
  assert.ok(i >= 0, `no line with ${text}`);
  return i;
}

describe('language server over stdio: error blocks', function () {
  let ws: string;
  let c: TestClient;
  let lines: string[];
  let uri: string;
  let items: Diagnostic[];
  const recordOf = (d: Diagnostic) => (d.data as { id: string }).id;
  let records: { id: string; filePath: string; messagePattern: string }[];

  before(async () => {
    ws = copyFixture();
    // the real records, as workspace records; and picomatch's source as a workspace file
    fs.cpSync(path.join(TRACES, 'records.json'), path.join(ws, '.error-records', 'traces.json'));
    fs.mkdirSync(path.join(ws, 'node_modules', 'picomatch', 'lib'), { recursive: true });
    fs.cpSync(path.join(REPO, 'node_modules', 'picomatch', 'lib', 'picomatch.js'), path.join(ws, 'node_modules', 'picomatch', 'lib', 'picomatch.js'));
    records = JSON.parse(fs.readFileSync(path.join(TRACES, 'records.json'), 'utf8'));
    lines = [
      '2026-12-01 09:00:00 INFO backup starting',
      ...trace('python/shutil_archive.txt'),
      '2026-12-01 09:00:01 INFO retrying',
      ...trace('node/picomatch_empty.txt'),
      '2026-12-01 09:00:02 ERROR unknown archive format \'zip\'',
      ...trace('java/CausedBy.txt'),
      ...trace('go/panic_explicit.txt'),
      ...trace('rust/panic_explicit.txt'),
      // the Python traceback again, as docker compose prints it (coloured prefix on every line)
      ...trace('python/queue_task_done.txt').map((l) => `\x1b[36mworker_1  |\x1b[0m ${l}`),
      '2026-12-01 09:00:03 INFO done',
    ];
    fs.writeFileSync(path.join(ws, 'logs', 'traces.log'), lines.join('\n') + '\n');
    c = await TestClient.start({ workspace: ws });
    await waitFor('records loaded', async () => (await c.request<{ records: number }>('errorExplainer/status')).records > records.length);
    uri = await c.open('logs/traces.log', 'log');
    items = (await c.pull(uri)).items!;
  });
  after(async () => {
    await c?.stop();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('one diagnostic per block that a record explains, with the block\'s lines as its range', () => {
    const py = lineWith(lines, 'Traceback (most recent call last)');
    const pyExc = lineWith(lines, "ValueError: unknown archive format 'foo'");
    const node = lineWith(lines, 'node_modules/picomatch/lib/picomatch.js:59');
    const nodeLast = lineWith(lines, 'at node:internal/main/run_main_module', node);
    const docker = lineWith(lines, 'worker_1');
    const dockerExc = lineWith(lines, 'ValueError: task_done() called too many times', docker);
    const plain = lineWith(lines, "ERROR unknown archive format 'zip'");
    const ranges = [...new Set(items.map((d) => JSON.stringify(tuple(d.range))))].map((r) => JSON.parse(r) as number[]).sort((a, b) => a[0]! - b[0]!);
    assert.deepEqual(ranges, [
      [py, 0, pyExc, lines[pyExc]!.length],
      [node, 0, nodeLast, lines[nodeLast]!.length],
      // outside blocks a line is flagged as before: on its match
      [plain, lines[plain]!.indexOf('unknown archive'), plain, lines[plain]!.length],
      [docker, 0, dockerExc, lines[dockerExc]!.length],
    ]);
    // one per block (the best record), and on a plain line one per matching record, as before
    assert.equal(items.filter((d) => d.range.start.line === py).length, 1);
    assert.equal(items.filter((d) => d.range.start.line === plain).length, 3);
  });

  it('the frames decide which record: the raising file, not another with the same message', () => {
    const byId = new Map(records.map((r) => [r.id, r]));
    const fileOf = (line: number) => byId.get(recordOf(items.find((d) => d.range.start.line <= line && line <= d.range.end.line)!))!.filePath;
    assert.equal(fileOf(lineWith(lines, "ValueError: unknown archive format 'foo'")), 'shutil.py');
    assert.equal(fileOf(lineWith(lines, 'TypeError: Expected pattern to be a non-empty string')), 'picomatch/lib/picomatch.js');
    assert.equal(fileOf(lineWith(lines, 'ValueError: task_done() called too many times')), 'queue.py');
  });

  it('related information: the frames from the raising one outwards, at the workspace file when it exists', () => {
    const node = items.find((d) => lines[d.range.start.line]!.includes('picomatch.js:59'))!;
    const frames = node.relatedInformation!.filter((r) => /^(raised here|called from)/.test(r.message));
    assert.equal(frames.length, 9);
    assert.match(frames[0]!.message, /^raised here: picomatch \(\/tmp\/ee-traces\/node\/node_modules\/picomatch\/lib\/picomatch\.js:59\)$/);
    assert.equal(frames[0]!.location.uri, uriOf(path.join(ws, 'node_modules', 'picomatch', 'lib', 'picomatch.js')));
    assert.deepEqual(tuple(frames[0]!.location.range), [58, 10, 58, 10]);
    // a frame that is no workspace file: its line in the log
    const internal = frames.find((f) => f.message.includes('node:internal/modules/cjs/loader:1521'))!;
    const at = lineWith(lines, 'node:internal/modules/cjs/loader:1521:14');
    assert.equal(internal.location.uri, uri);
    assert.deepEqual(tuple(internal.location.range), [at, lines[at]!.indexOf('node:internal'), at, lines[at]!.indexOf(')')]);
  });

  it('quoted code and frames are never flagged, though a record matches their text', () => {
    const quoted = lineWith(lines, 'raise ValueError("unknown archive format');
    const pyFrame = lineWith(lines, 'File "/usr/lib/python3.11/shutil.py"');
    for (const l of [quoted, pyFrame]) assert.ok(!items.some((d) => d.range.start.line === l), `line ${l} flagged`);
    // every diagnostic starts at a block's first line or on a plain line's match
    for (const d of items) assert.ok(!/^\s+(at |File ")/.test(lines[d.range.start.line]!), lines[d.range.start.line]);
  });

  it('hover on the exception line: raised at the raising frame, linking the workspace file; nothing on a frame', async () => {
    const exc = lineWith(lines, 'TypeError: Expected pattern to be a non-empty string');
    const h = await c.request<Hover>('textDocument/hover', { textDocument: { uri }, position: { line: exc, character: lines[exc]!.indexOf('pattern') } });
    const md = (h.contents as { value: string }).value;
    const target = uriOf(path.join(ws, 'node_modules', 'picomatch', 'lib', 'picomatch.js'));
    const title = md.split('\n')[0]!;
    assert.ok(title.includes(`raised at [\`…/lib/picomatch.js:59\`](${target}#L59,11)`), md.slice(0, 300));
    assert.equal(md.match(/raised at/gi)?.length, 1, 'one raise site in the hover');
    const frame = lineWith(lines, '    at picomatch (/tmp/ee-traces/node/node_modules/picomatch/index.js');
    assert.equal(await c.request('textDocument/hover', { textDocument: { uri }, position: { line: frame, character: lines[frame]!.indexOf('picomatch') } }), null);
  });

  it('a frame added under a block grows its diagnostic; deleting its frames turns the exception line into a plain line', async () => {
    const py = lineWith(lines, 'Traceback (most recent call last)');
    const exc = lineWith(lines, "ValueError: unknown archive format 'foo'");
    // insert one more frame (and its quoted line) before the raising one
    const at = lineWith(lines, 'File "/usr/lib/python3.11/shutil.py"');
    await c.change(uri, [{ range: { start: { line: at, character: 0 }, end: { line: at, character: 0 } }, text: '  File "/tmp/ee-traces/python/helpers.py", line 9, in pack\n    shutil.make_archive(name, fmt)\n' }]);
    let after = (await c.pull(uri)).items!;
    const grown = after.find((d) => d.range.start.line === py)!;
    assert.deepEqual(tuple(grown.range), [py, 0, exc + 2, lines[exc]!.length]);
    assert.equal(grown.relatedInformation!.filter((r) => /^(raised here|called from)/.test(r.message)).length, 3);
    // delete the whole traceback but its exception line: a plain line again, flagged on its match
    await c.change(uri, [{ range: { start: { line: py, character: 0 }, end: { line: exc + 2, character: 0 } }, text: '' }]);
    after = (await c.pull(uri)).items!;
    const plain = after.find((d) => d.range.start.line === py)!;
    assert.deepEqual(tuple(plain.range), [py, lines[exc]!.indexOf('unknown'), py, lines[exc]!.length]);
  });
});
