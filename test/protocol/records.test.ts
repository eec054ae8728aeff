// Record sources over stdio: configuration changes (pulled per resource), hot reload on watched
// files, record-file problems published on the record file at line/column, workspace trust, and
// push diagnostics for a client without pull support.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Diagnostic, Hover } from 'vscode-languageserver-protocol';
import { copyFixture, positionOf, PUSH_ONLY_CAPABILITIES, TestClient, uriOf, waitFor } from './client';

const LOG = 'logs/app.log';
const TEAM = '.error-records/team.json';
const ID_TEAM = 'a1b2c3d4e5f60718';

interface Status {
  records: number;
  problems: number;
  workspaceTrusted: boolean;
  sources: { origin: string; path: string; records: number }[];
}

describe('language server over stdio: records and settings', function () {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });
  async function start(opts: Partial<Parameters<typeof TestClient.start>[0]> = {}): Promise<TestClient> {
    const ws = copyFixture();
    const c = await TestClient.start({ workspace: ws, ...opts });
    cleanup.push(() => fs.rmSync(ws, { recursive: true, force: true }));
    cleanup.push(() => c.stop());
    return c;
  }
  const ids = (items: Diagnostic[] | undefined) => (items ?? []).map((d) => (d.data as { id?: string } | undefined)?.id ?? d.code);

  it('pulls settings per resource and applies a configuration change without restart', async () => {
    let settings: Record<string, unknown> = {};
    const c = await start({ settings: () => settings });
    const uri = await c.open(LOG, 'log');
    const all = await c.pull(uri);
    assert.equal(all.items!.length, 4);
    assert.ok(
      c.configurationRequests.some((p) => (p as { items: { scopeUri?: string }[] }).items.some((i) => i.scopeUri === uri)),
      'settings pulled for the document',
    );

    // minSeverity: error drops the team record (warning).
    settings = { diagnostics: { minSeverity: 'error' } };
    const refreshes = c.refreshRequests;
    await c.conn.sendNotification('workspace/didChangeConfiguration', { settings: null });
    await waitFor('diagnostics refresh', () => c.refreshRequests > refreshes);
    const errorsOnly = await c.pull(uri, all.resultId);
    assert.equal(errorsOnly.kind, 'full');
    assert.equal(errorsOnly.items!.length, 3);
    assert.ok(!ids(errorsOnly.items).includes(ID_TEAM));

    // maxPerFile: 2 diagnostics, then one summary.
    settings = { diagnostics: { maxPerFile: 2 } };
    await c.conn.sendNotification('workspace/didChangeConfiguration', { settings: null });
    const capped = await waitFor('capped diagnostics', async () => {
      const r = await c.pull(uri);
      return r.items!.some((d) => d.code === 'max-per-file') ? r : undefined;
    });
    assert.equal(capped.items!.length, 3);
    const summary = capped.items![2]!;
    assert.equal(summary.code, 'max-per-file');
    assert.match(summary.message, /^2 more error matches in this file not shown/);

    // enabled: false -> nothing; a log glob that does not match -> not a log unless language `log`.
    settings = { diagnostics: { enabled: false } };
    await c.conn.sendNotification('workspace/didChangeConfiguration', { settings: null });
    await waitFor('diagnostics disabled', async () => (await c.pull(uri)).items!.length === 0);

    settings = { logFiles: ['**/*.txt'] };
    await c.conn.sendNotification('workspace/didChangeConfiguration', { settings: null });
    const txt = await c.open('notes/run.txt', 'plaintext', 'boom: encode metadata not ready\n');
    await waitFor('.txt is a log now', async () => (await c.pull(txt)).items!.length === 1);
    const plainLog = await c.open('logs/other.data', 'plaintext', 'encode metadata not ready\n');
    assert.equal((await c.pull(plainLog)).items!.length, 0);
  });

  it('loads errorExplainer.records.paths relative to the workspace folder', async () => {
    let settings: Record<string, unknown> = {};
    const c = await start({ settings: () => settings });
    const extra = path.join(c.workspace, 'more-records');
    fs.mkdirSync(extra);
    fs.writeFileSync(
      path.join(extra, 'a.jsonl'),
      JSON.stringify({ id: 'b0b0b0b0b0b0b0b0', errorMessage: 'disk quota exceeded on volume {vol}', severity: 'critical' }) + '\n',
    );
    settings = { records: { paths: ['more-records'] } };
    await c.conn.sendNotification('workspace/didChangeConfiguration', { settings: null });
    const status = await waitFor('records from paths', async () => {
      const s = await c.request<Status>('errorExplainer/status');
      return s.records === 5 ? s : undefined;
    });
    assert.deepEqual(
      status.sources.map((s) => [s.origin, s.records]),
      [['bundled', 3], ['user', 1], ['workspace', 1]],
    );
    // The new source is watched (relative pattern under the workspace folder).
    await waitFor('watcher for more-records', () =>
      c.registrations.some(
        (r) =>
          r.method === 'workspace/didChangeWatchedFiles' &&
          JSON.stringify(r.registerOptions).includes('"pattern":"more-records/**"'),
      ),
    );
    const uri = await c.open('logs/q.log', 'log', 'x: disk quota exceeded on volume /dev/sda1\n');
    const r = await c.pull(uri);
    assert.deepEqual(ids(r.items), ['b0b0b0b0b0b0b0b0']);
    assert.equal(r.items![0]!.severity, 1);
  });

  it('reloads a record file edited on disk (didChangeWatchedFiles) and re-matches open logs', async () => {
    const c = await start();
    const logUri = await c.open(LOG, 'log');
    const first = await c.pull(logUri);
    assert.ok(ids(first.items).includes(ID_TEAM));
    const logText = c.text(LOG);

    const file = path.join(c.workspace, TEAM);
    const records = JSON.parse(fs.readFileSync(file, 'utf8'));
    records[0].errorMessage = 'payment gateway {gateway} refused the card';
    records.push({ id: 'c0ffee00c0ffee00', errorMessage: 'started dp_rank={rank}', severity: 'info', errorClass: 'Startup' });
    fs.writeFileSync(file, JSON.stringify(records, null, 2));
    const notified = c.notificationsOf('errorExplainer/statusChanged').length;
    await c.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uriOf(file), type: 2 }] });
    await waitFor('statusChanged', () => c.notificationsOf('errorExplainer/statusChanged').length > notified);

    const after = await c.pull(logUri, first.resultId);
    assert.equal(after.kind, 'full');
    const got = ids(after.items);
    assert.ok(!got.includes(ID_TEAM), 'edited message no longer matches');
    assert.equal(got[0], 'c0ffee00c0ffee00');
    assert.equal(after.items![0]!.severity, 3, 'info');
    const h = await c.request<Hover | null>('textDocument/hover', { textDocument: { uri: logUri }, position: positionOf(logText, 'dp_rank=0') });
    assert.match((h!.contents as { value: string }).value, /Startup/);

    // A change elsewhere does not reload.
    const count = c.notificationsOf('errorExplainer/statusChanged').length;
    await c.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: c.uri('app.py'), type: 2 }] });
    const status = await c.request<Status>('errorExplainer/status');
    assert.equal(status.records, 5);
    assert.equal(c.notificationsOf('errorExplainer/statusChanged').length, count);
  });

  it('reloads when a record file is saved in the editor (clients without file watchers)', async () => {
    const c = await start({ capabilities: PUSH_ONLY_CAPABILITIES });
    const before = (await c.request<Status>('errorExplainer/status')).records; // the first load is done
    const file = path.join(c.workspace, TEAM);
    const records = JSON.parse(fs.readFileSync(file, 'utf8'));
    records.push({ id: 'c0ffee00c0ffee01', errorMessage: 'saved record matches {what}', severity: 'info' });
    fs.writeFileSync(file, JSON.stringify(records, null, 2));
    await c.conn.sendNotification('textDocument/didSave', { textDocument: { uri: uriOf(file) } });
    const after = await waitFor('reload after save', async () => {
      const s = await c.request<Status>('errorExplainer/status');
      return s.records === before + 1 ? s : undefined;
    });
    assert.equal(after.records, 5);
  });

  it('publishes record-file problems on the record file at the offending line and column', async () => {
    const c = await start();
    await c.open(LOG, 'log');
    const file = path.join(c.workspace, '.error-records', 'broken.json');
    const text = [
      '[',
      '  {',
      '    "id": "d00dd00dd00dd00d",',
      '    "errorMessage": "widget {name} exploded",',
      '    "severity": "catastrophic",',
      '    "lineNumber": "twelve"',
      '  }',
      ']',
      '',
    ].join('\n');
    fs.writeFileSync(file, text);
    await c.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uriOf(file), type: 1 }] });
    const uri = uriOf(file);
    const published = await waitFor('problems on broken.json', () => c.published.get(uri));
    const sev = positionOf(text, '"catastrophic"');
    const ln = positionOf(text, '"twelve"');
    const d1 = published.diagnostics.find((d) => d.range.start.line === sev.line);
    const d2 = published.diagnostics.find((d) => d.range.start.line === ln.line);
    assert.ok(d1 && d2, JSON.stringify(published.diagnostics));
    assert.equal(d1.range.start.character, sev.character);
    assert.equal(d2.range.start.character, ln.character);
    assert.equal(d1.source, 'Error Explainer');
    assert.match(d1.message, /severity/i);
    // Lenient user record: still loaded with defaults, problems are warnings.
    const status = await c.request<Status>('errorExplainer/status');
    assert.equal(status.records, 5);
    assert.ok(status.problems >= 2);

    // Invalid JSON: the syntax error is reported where it is; fixing the file clears the problems.
    const bad = '[\n  { "id": "d00dd00dd00dd00d", "errorMessage": "widget exploded" ,, }\n]\n';
    fs.writeFileSync(file, bad);
    await c.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri, type: 2 }] });
    const syntax = await waitFor('syntax problem', () => {
      const p = c.published.get(uri);
      return p && p.diagnostics.some((d) => d.severity === 1) ? p : undefined;
    });
    const comma = positionOf(bad, ',,', 1);
    assert.ok(
      syntax.diagnostics.some((d) => d.range.start.line === comma.line && d.range.start.character === comma.character),
      JSON.stringify(syntax.diagnostics),
    );
    fs.rmSync(file);
    await c.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri, type: 3 }] });
    await waitFor('problems cleared', () => c.published.get(uri)?.diagnostics.length === 0);
  });

  it('loads workspace records only when the workspace is trusted', async () => {
    const c = await start({ initializationOptions: { workspaceTrusted: false } });
    const untrusted = await c.request<Status>('errorExplainer/status');
    assert.deepEqual([untrusted.records, untrusted.workspaceTrusted], [3, false]);
    assert.deepEqual(untrusted.sources.map((s) => s.origin), ['bundled']);
    const uri = await c.open(LOG, 'log');
    assert.ok(!ids((await c.pull(uri)).items).includes(ID_TEAM));

    await c.conn.sendNotification('errorExplainer/trust', { workspaceTrusted: true });
    const trusted = await waitFor('trusted reload', async () => {
      const s = await c.request<Status>('errorExplainer/status');
      return s.workspaceTrusted ? s : undefined;
    });
    assert.equal(trusted.records, 4);
    assert.ok(ids((await c.pull(uri)).items).includes(ID_TEAM));
  });

  it('answers the dataset requests without downloading anything before opt-in', async () => {
    let settings: Record<string, unknown> = {};
    const c = await start({ settings: () => settings });
    fs.writeFileSync(path.join(c.workspace, 'package.json'), JSON.stringify({ dependencies: { axios: '^1.7.0' } }));
    const st = await c.request<{ optedIn: boolean; loaded: number; datasetVersion: string | null }>('errorExplainer/datasetStatus');
    assert.deepEqual([st.optedIn, st.loaded, st.datasetVersion], [false, 0, null]);
    const sug = await c.request<{ needsSync: boolean; unmatched: string[]; suggestions: unknown[] }>('errorExplainer/datasetSuggest');
    assert.equal(sug.needsSync, true);
    assert.deepEqual(sug.unmatched, ['axios']);
    // An explicit sync against a dataset that is not there fails cleanly; the server keeps serving.
    settings = { dataset: { url: `file://${path.join(c.workspace, 'no-such-dataset')}` } };
    await c.conn.sendNotification('workspace/didChangeConfiguration', { settings: null });
    const sync = await c.request<{ status: string; reason?: string }>('errorExplainer/datasetSync', { force: true });
    assert.equal(sync.status, 'failed');
    const status = await c.request<Status>('errorExplainer/status');
    assert.equal(status.records, 4);
  });

  it('pushes diagnostics to a client without pull support, and re-pushes after an edit', async () => {
    const c = await start({ capabilities: PUSH_ONLY_CAPABILITIES });
    assert.equal(c.initializeResult.capabilities.diagnosticProvider, undefined);
    const text = c.text(LOG);
    const uri = await c.open(LOG, 'log', text);
    const first = await waitFor('published diagnostics', () => c.published.get(uri));
    assert.equal(first.diagnostics.length, 4);
    assert.equal(first.version, 1);
    const lines = text.split('\n');
    await c.change(uri, [
      { range: { start: { line: lines.length - 1, character: 0 }, end: { line: lines.length - 1, character: 0 } }, text: 'again: encode metadata not ready\n' },
    ]);
    const second = await waitFor('re-published', () => {
      const p = c.published.get(uri);
      return p && p.diagnostics.length === 5 ? p : undefined;
    });
    assert.equal(second.version, 2);
    assert.equal(second.diagnostics[4]!.range.start.line, lines.length - 1);
    // Without workspace/configuration, defaults apply and nothing asks the client; settings
    // pushed in didChangeConfiguration (as Neovim and others do) are used instead.
    assert.equal(c.configurationRequests.length, 0);
    await c.conn.sendNotification('workspace/didChangeConfiguration', {
      settings: { errorExplainer: { diagnostics: { minSeverity: 'error' } } },
    });
    const third = await waitFor('re-published with pushed settings', () => {
      const p = c.published.get(uri);
      return p && p.diagnostics.length === 4 ? p : undefined;
    });
    assert.ok(third.diagnostics.every((d) => d.severity === 1));
    await c.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
    await waitFor('cleared on close', () => c.published.get(uri)?.diagnostics.length === 0);
  });
});
