// The web build's server (dist/web/server.js) as a Web Worker runs it (webWorker.ts: a vm context
// with a worker's globals only), fed the record files a web client reads through workspace.fs
// (initializationOptions.recordFiles, RecordFilesNotification). It must answer like the desktop
// server (dist/server.js over stdio) that reads the same records from disk.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import type { Hover } from 'vscode-languageserver-protocol';
import { defaultId } from '../../server/src/core/load/validate';
import type { RecordFileDto } from '../../server/src/protocol';
import { BUNDLED, copyFixture, lineOf, positionOf, TestClient, uriOf, waitFor } from './client';

const LOG = 'logs/app.log';

function bundledFiles(): RecordFileDto[] {
  const out: RecordFileDto[] = [];
  const walk = (dir: string): void => {
    for (const name of fs.readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (fs.statSync(p).isDirectory()) walk(p);
      else if (/\.json$/.test(name)) out.push({ origin: 'bundled', root: uriOf(BUNDLED), uri: uriOf(p), base64: fs.readFileSync(p).toString('base64') });
    }
  };
  walk(BUNDLED);
  return out;
}

function workspaceFile(ws: string, name: string, content: string | Buffer): RecordFileDto {
  const p = path.join(ws, '.error-records', name);
  return { origin: 'workspace', root: uriOf(path.join(ws, '.error-records')), uri: uriOf(p), base64: Buffer.from(content).toString('base64') };
}

const PARTIAL = [{ errorMessage: 'quota of {tenant} exhausted in web worker', documentation: 'The tenant used its monthly quota.' }];

describe('web build server (dist/web/server.js in a worker-like context)', function () {
  let ws: string;
  let web: TestClient;
  let desktop: TestClient;
  let files: RecordFileDto[];

  before(async () => {
    ws = copyFixture();
    fs.writeFileSync(path.join(ws, '.error-records', 'partial.json'), JSON.stringify(PARTIAL));
    fs.appendFileSync(path.join(ws, LOG), '2026-08-28T05:10:14Z ERROR quota of acme exhausted in web worker\n');
    files = [
      ...bundledFiles(),
      workspaceFile(ws, 'partial.json', JSON.stringify(PARTIAL)),
      workspaceFile(ws, 'team.json', fs.readFileSync(path.join(ws, '.error-records', 'team.json'))),
    ];
    web = await TestClient.start({ workspace: ws, web: true, initializationOptions: { recordFiles: files } });
    desktop = await TestClient.start({ workspace: ws });
  });
  after(async () => {
    await web?.stop();
    await desktop?.stop();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('loads the records it was sent, in the same order and with the same ids as the desktop server reads them', async () => {
    const st = await web.request<{ records: number; sources: { origin: string; path: string; records: number }[] }>('errorExplainer/status');
    const ds = await desktop.request<{ records: number; sources: { origin: string; records: number }[] }>('errorExplainer/status');
    assert.equal(st.records, ds.records);
    assert.deepEqual(
      st.sources.map((s) => [s.origin, s.records]),
      ds.sources.map((s) => [s.origin, s.records]),
    );
    assert.equal(st.sources[1]!.path, uriOf(path.join(ws, '.error-records')), 'a folder of files is one source');
    // a partial record's id is derived (sha256) the same way in the worker (the crypto shim)
    const hits = await web.request<{ id: string; repo: string }[]>('errorExplainer/search', { query: 'quota of' });
    assert.equal(hits[0]?.id, defaultId(hits[0]!.repo, PARTIAL[0]!.errorMessage, null));
    assert.deepEqual(hits.map((h) => h.id), (await desktop.request<{ id: string }[]>('errorExplainer/search', { query: 'quota of' })).map((h) => h.id));
  });

  it('diagnoses and hovers a log as the desktop server does (but for a raise site in a workspace file)', async () => {
    const text = web.text(LOG);
    const uri = await web.open(LOG, 'log', text);
    await desktop.open(LOG, 'log', text);
    const w = (await web.pull(uri)).items!;
    const d = (await desktop.pull(uri)).items!;
    assert.ok(w.length >= 5, JSON.stringify(w.map((x) => x.message)));
    assert.deepEqual(
      w.map((x) => [x.range, x.code, x.message, x.severity]),
      d.map((x) => [x.range, x.code, x.message, x.severity]),
    );
    const at = positionOf(text, 'encode metadata not ready', 3);
    const hoverText = async (c: TestClient): Promise<string> => ((await c.request<Hover>('textDocument/hover', { textDocument: { uri }, position: at })).contents as { value: string }).value;
    const value = await hoverText(web);
    assert.match(value, /MMError/);
    // the one difference: with no file system, the raise site is the record's pinned GitHub link,
    // not the workspace file the desktop server found
    // (the glance's title: "… · raised at [`…/encoder/runtime.py:1280`](<link>)")
    const raisedAt = / · raised at \[`[^`]+`\]\(([^)\s]+)\)/;
    assert.match(raisedAt.exec(value)![1]!, /^https:\/\/github\.com\//);
    assert.match(raisedAt.exec(await hoverText(desktop))![1]!, /^file:\/\//);
    assert.equal(value.replace(raisedAt, ''), (await hoverText(desktop)).replace(raisedAt, ''));
    assert.ok(w.some((x) => x.range.start.line === lineOf(text, 'quota of acme')), 'the partial workspace record matches');
  });

  it('answers explainText and search; has no dataset', async () => {
    const m = await web.request<{ record: { errorClass: string } }[]>('errorExplainer/explainText', { text: 'ERROR MMError: encode metadata not ready (HTTP 504)' });
    assert.equal(m[0]?.record.errorClass, 'MMError');
    const recent = await web.request<{ kind: string }[]>('errorExplainer/search', { query: '' });
    assert.ok(recent.length > 0 && recent.every((r) => r.kind === 'recent'));
    assert.equal(await web.request('errorExplainer/datasetStatus'), null);
  });

  it('reports problems of a sent file on its URI, and reloads when the files change', async () => {
    const broken = workspaceFile(ws, 'broken.json', '[{"errorMessage": 42}');
    const gzipped = workspaceFile(ws, 'inflated.json', zlib.gunzipSync(zlib.gzipSync(JSON.stringify([{ errorMessage: 'widget {name} melted in the web build' }]))));
    const unreadable: RecordFileDto = { origin: 'user', root: 'vscode-vfs://github/o/r/records', uri: 'vscode-vfs://github/o/r/records', error: 'not found (EntryNotFound)' };
    await web.conn.sendNotification('errorExplainer/recordFiles', { files: [...files.filter((f) => !f.uri.endsWith('team.json')), broken, gzipped, unreadable] });
    const st = await waitFor('the reload', async () => {
      const s = await web.request<{ records: number; problems: number }>('errorExplainer/status');
      return s.problems >= 2 ? s : undefined;
    });
    const diags = await waitFor('problems of broken.json', () => web.published.get(broken.uri));
    assert.ok(diags.diagnostics.length >= 1 && diags.diagnostics.every((x) => x.range.start.line === 0), JSON.stringify(diags.diagnostics));
    assert.match((await waitFor('the unreadable source', () => web.published.get(unreadable.uri))).diagnostics[0]!.message, /cannot read records: not found/);
    const hits = await web.request<{ errorMessage: string }[]>('errorExplainer/search', { query: 'melted' });
    assert.equal(hits[0]?.errorMessage, 'widget {name} melted in the web build');
    // team.json is gone, and its record with it
    assert.equal(await web.request('errorExplainer/record', { id: 'a1b2c3d4e5f60718' }), null);
    assert.notEqual(await desktop.request('errorExplainer/record', { id: 'a1b2c3d4e5f60718' }), null);
    assert.ok(st.records > 0);
  });

  it('ignores user and workspace files while the workspace is untrusted', async () => {
    const c = await TestClient.start({ workspace: ws, web: true, initializationOptions: { recordFiles: files, workspaceTrusted: false } });
    try {
      const st = await c.request<{ records: number; sources: { origin: string }[] }>('errorExplainer/status');
      assert.deepEqual([...new Set(st.sources.map((s) => s.origin))], ['bundled']);
      const ds = await desktop.request<{ sources: { origin: string; records: number }[] }>('errorExplainer/status');
      assert.equal(st.records, ds.sources.find((s) => s.origin === 'bundled')!.records);
      assert.equal((await c.request<unknown[]>('errorExplainer/search', { query: 'quota of' })).length, 0);
    } finally {
      await c.stop();
    }
  });

  it('needs nothing from Node: no require, process, Buffer or setImmediate in its scope, no error on its console', () => {
    const scope = web.worker!.scope;
    for (const name of ['require', 'process', 'Buffer', 'setImmediate', 'module', '__dirname']) assert.equal(scope[name], undefined, name);
    assert.deepEqual(web.worker!.console.filter((l) => /error|not available|exception/i.test(l)), []);
  });
});
