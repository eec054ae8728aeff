// The compiled index cache in the language server (core/indexCache, issue 11 item 5): the first
// start on a record set above the size threshold loads, builds and then writes a cache file; the
// next start restores it (status.indexCache 'hit') and answers the same diagnostics and hovers
// (hovers read the records' prose, restored lazily from the cache's records file). A cache file
// with flipped bytes (index or records file) is detected, not used, rebuilt, and the answers stay
// the same. The records: TypeScript's own diagnostic messages, pretty-printed so that the file is
// above DEFAULT_MIN_BYTES (the threshold is not lowered for this test), and the fixture workspace's
// .error-records/team.json, whose record has documentation and solutions (the hover shows them).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Diagnostic, Hover } from 'vscode-languageserver-protocol';
import { DEFAULT_MIN_BYTES } from '../../server/src/core/indexCache';
import { REPO, tempDir } from '../shared/paths';
import { copyFixture, TestClient, waitFor } from './client';

interface Status {
  records: number;
  problems: number;
  sources: { origin: string; path: string; records: number }[];
  indexCache?: 'hit' | 'miss' | 'off';
  indexCacheReason?: string;
}

describe('language server over stdio: the index cache', function () {
  this.timeout(180_000);
  let tmp: string;
  let cacheDir: string;
  let recordsFile: string;
  let ws: string;
  const LOG = 'logs/tsc.log';
  before(() => {
    tmp = tempDir('lsp-index');
    cacheDir = path.join(tmp, 'cache');
    recordsFile = path.join(tmp, 'records', 'typescript.json');
    fs.mkdirSync(path.dirname(recordsFile));
    const records = JSON.parse(fs.readFileSync(path.join(REPO, 'test/fixtures/real/typescript-records.json'), 'utf8')) as unknown[];
    fs.writeFileSync(recordsFile, JSON.stringify(records, null, 2));
    assert.ok(fs.statSync(recordsFile).size > DEFAULT_MIN_BYTES, 'the record file is above the cache threshold');
    ws = copyFixture();
    fs.copyFileSync(path.join(REPO, 'test/fixtures/real/tsc-output.log'), path.join(ws, LOG));
  });
  after(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.rmSync(ws, { recursive: true, force: true });
  });

  const cacheFiles = () => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).filter((f) => f.endsWith('.eeidx') || f.endsWith('.eerec')) : []);
  const logLines = (c: TestClient) => c.notificationsOf('window/logMessage').map((m) => (m as { message: string }).message);

  /** One server start: its status, the log's diagnostics and the hover at each diagnostic. */
  async function session(paths: string[] = [recordsFile]): Promise<{ status: Status; diagnostics: Diagnostic[]; hovers: (Hover | null)[]; client: TestClient }> {
    const client = await TestClient.start({ workspace: ws, settings: { records: { paths } }, env: { ERROR_EXPLAINER_INDEX_CACHE: cacheDir } });
    try {
      const status = await client.request<Status>('errorExplainer/status');
      const diagnostics: Diagnostic[] = [];
      const hovers: (Hover | null)[] = [];
      for (const [log, languageId] of [[LOG, 'log'], ['logs/app.log', 'log']] as const) {
        const uri = await client.open(log, languageId);
        const items = (await client.pull(uri)).items ?? [];
        diagnostics.push(...items);
        const lines = client.text(log).split(/\r?\n/);
        for (const d of items) {
          // on the matched message (a diagnostic's range may start at the line's timestamp)
          const at = lines[d.range.start.line]!.indexOf(d.message.split('\n')[0]!);
          const position = at >= 0 ? { line: d.range.start.line, character: at } : d.range.start;
          hovers.push(await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position }));
        }
      }
      // a miss writes the cache file after the records are served: wait for it (or its failure)
      if (status.indexCache === 'miss') await waitFor('index cache written', () => logLines(client).some((l) => /index cache (written|not written)/.test(l)), 120_000);
      return { status, diagnostics, hovers, client };
    } finally {
      await client.stop();
    }
  }

  let first: Awaited<ReturnType<typeof session>>;
  const sameAnswers = (got: Awaited<ReturnType<typeof session>>) => {
    assert.deepEqual(got.diagnostics, first.diagnostics);
    assert.deepEqual(got.hovers, first.hovers);
    assert.equal(got.status.records, first.status.records);
    assert.equal(got.status.problems, first.status.problems);
    assert.deepEqual(got.status.sources, first.status.sources);
  };

  it('the first start builds and writes a cache file; the second restores it and answers the same', async () => {
    first = await session();
    assert.equal(first.status.indexCache, 'miss');
    assert.equal(first.status.indexCacheReason, 'absent');
    assert.ok(logLines(first.client).some((l) => l.includes('index cache written')), logLines(first.client).join('\n'));
    assert.equal(cacheFiles().length, 2, 'one index file and its records file');
    assert.ok(first.diagnostics.length >= 10, `the tsc log has TypeScript diagnostics (${first.diagnostics.length})`);
    const tsDiagnostics = first.diagnostics.filter((d) => /^TS\d+/.test(String(d.code)));
    assert.ok(tsDiagnostics.length >= 10, 'diagnostics come from the TypeScript records');
    assert.ok(first.hovers.every((h) => h !== null), JSON.stringify(first.diagnostics.filter((_, i) => first.hovers[i] === null)));
    // hovers show the records' links (githubUrl: a lite field) and prose (documentation, solutions:
    // heavy fields, read from the cache's records file on a hit)
    assert.ok(first.hovers.some((h) => JSON.stringify(h).includes('github.com/microsoft/TypeScript')));
    assert.ok(first.hovers.some((h) => JSON.stringify(h).includes('The payment gateway did not answer in time')));
    assert.ok(first.hovers.some((h) => JSON.stringify(h).includes('Retry with backoff')));

    const before = cacheFiles().map((f) => [f, fs.statSync(path.join(cacheDir, f)).mtimeMs]);
    const second = await session();
    assert.equal(second.status.indexCache, 'hit');
    assert.equal(second.status.indexCacheReason, undefined);
    assert.ok(logLines(second.client).some((l) => l.includes('index cache hit')));
    sameAnswers(second);
    // a hit writes nothing
    assert.deepEqual(cacheFiles().map((f) => [f, fs.statSync(path.join(cacheDir, f)).mtimeMs]), before);
  });

  for (const kind of ['.eeidx', '.eerec']) {
    it(`a cache ${kind === '.eeidx' ? 'index' : 'records'} file with flipped bytes is not used: rebuilt, same answers, then a hit again`, async () => {
      const file = path.join(cacheDir, cacheFiles().find((f) => f.endsWith(kind))!);
      const bytes = fs.readFileSync(file);
      for (const at of [Math.floor(bytes.length / 2), bytes.length - 3]) bytes[at] = bytes[at]! ^ 0x55;
      fs.writeFileSync(file, bytes);
      const rebuilt = await session();
      assert.equal(rebuilt.status.indexCache, 'miss');
      assert.equal(rebuilt.status.indexCacheReason, 'checksum');
      sameAnswers(rebuilt);
      const again = await session();
      assert.equal(again.status.indexCache, 'hit');
      sameAnswers(again);
    });
  }

  it('a records.paths entry that names no file is a problem, and the other sources stay cached; once the file is there it is another key', async () => {
    const missing = path.join(tmp, 'records', 'later.json');
    const paths = [recordsFile, missing];
    const a = await session(paths);
    assert.equal(a.status.indexCache, 'miss', 'the cache was off for every source before');
    const b = await session(paths);
    assert.equal(b.status.indexCache, 'hit');
    assert.equal(b.status.problems, a.status.problems, 'the missing file is still reported');
    assert.ok(a.status.problems > first.status.problems);
    assert.deepEqual(b.diagnostics, a.diagnostics);
    fs.copyFileSync(path.join(REPO, 'test/fixtures/records/single.json'), missing);
    try {
      const c = await session(paths);
      assert.equal(c.status.indexCache, 'miss');
      assert.equal(c.status.records, a.status.records + 1);
    } finally {
      fs.rmSync(missing, { force: true });
    }
  });
});
