// The built server over stdio, what users see (issue 15): the exclude list and severity overrides
// in diagnostics and hovers; raise sites outside the workspace (the folder `extract` read, a file
// named by a real Python traceback); snippet code actions with tab stops.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CodeAction, Hover, Location } from 'vscode-languageserver-protocol';
import { copyFixture, lineOf, positionOf, REPO, TestClient, uriOf, waitFor } from './client';
import { tempDir } from '../shared/paths';

const ID_SEND = '063d2eac5107dda5';
const ID_META = '12c38bb1afed0ec1';
const SEND_SLUG = 'no-staged-embedding-for-send-req-id-req-id-alr';

describe('language server over stdio: what users see', function () {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });

  it('records.exclude (id or slug) hides a record from diagnostics, hovers and code actions; severityOverrides change its severity', async () => {
    const ws = copyFixture();
    const settings: Record<string, unknown> = {};
    const c = await TestClient.start({ workspace: ws, settings: () => settings });
    cleanup.push(() => c.stop(), () => fs.rmSync(ws, { recursive: true, force: true }));
    const text = c.text('logs/app.log');
    const uri = await c.open('logs/app.log', 'log', text);
    const ids = async () => ((await c.pull(uri)).items ?? []).map((d) => [(d.data as { id: string }).id, d.severity]);
    const before = await ids();
    assert.deepEqual(before.slice(0, 2), [[ID_SEND, 1], [ID_META, 1]]);
    const at = positionOf(text, 'req-7f3a9');
    assert.ok(await c.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: at }));

    const configure = async (s: Record<string, unknown>) => {
      Object.assign(settings, s);
      await c.conn.sendNotification('workspace/didChangeConfiguration', { settings: null });
    };
    await configure({ records: { exclude: [SEND_SLUG] }, diagnostics: { severityOverrides: { [ID_META]: 'hint' } } });
    const after = await waitFor('the excluded record gone', async () => {
      const d = await ids();
      return d.some(([id]) => id === ID_SEND) ? undefined : d;
    });
    assert.deepEqual(after[0], [ID_META, 4], 'shown as a hint');
    assert.equal(after.length, before.length - 1);
    assert.equal(await c.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: at }), null, 'no hover for an excluded record');
    const actions = await c.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: at, end: at }, context: { diagnostics: [] } });
    assert.deepEqual(actions, []);
    // an override by slug to warning, and minSeverity applies to the severity shown
    await configure({ records: { exclude: [] }, diagnostics: { severityOverrides: { [SEND_SLUG]: 'warning' }, minSeverity: 'error' } });
    const strict = await waitFor('the override applied before minSeverity', async () => {
      const d = await ids();
      return d.some(([id]) => id === ID_META) && !d.some(([id]) => id === ID_SEND) ? d : undefined;
    });
    assert.ok(strict.every(([, sev]) => sev === 1));
    // the quick fix lowers one step: error -> warning
    const diag = ((await c.pull(uri)).items ?? []).find((d) => (d.data as { id: string }).id === ID_META)!;
    const fixes = await c.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: diag.range, context: { diagnostics: [diag] } });
    assert.deepEqual(
      fixes.find((f) => f.command?.command === 'errorExplainer.setRecordSeverity')?.command?.arguments,
      [{ id: ID_META, slug: 'encode-metadata-not-ready', severity: 'warning' }],
    );
  });

  describe('raise sites outside the workspace', () => {
    let lib: string;
    let ws: string;
    let c: TestClient;
    let log: string;
    /** 0-based line of the raise in shop/orders.py. */
    let raiseLine: number;
    const py = spawnSync('python3', ['--version']).status === 0;

    before(async function () {
      if (!py) this.skip();
      // A library outside the workspace, and a real failure of it: python3 prints the traceback.
      lib = tempDir('lib');
      fs.mkdirSync(path.join(lib, 'shop'));
      fs.writeFileSync(path.join(lib, 'shop', '__init__.py'), '');
      const orders = ['ORDERS = {}', '', '', 'def find(order_id):', '    if order_id not in ORDERS:', '        raise LookupError(f"order {order_id} does not exist in the ledger")', '    return ORDERS[order_id]', ''].join('\n');
      fs.writeFileSync(path.join(lib, 'shop', 'orders.py'), orders);
      raiseLine = lineOf(orders, 'raise LookupError');
      const run = spawnSync('python3', ['-c', `import sys; sys.path.insert(0, ${JSON.stringify(lib)}); import shop.orders as o; o.find(7)`], { encoding: 'utf8' });
      assert.match(run.stderr, new RegExp(`File ".*shop/orders\\.py", line ${raiseLine + 1}, in find`));
      log = `2026-11-30 10:00:00 INFO start\n${run.stderr}2026-11-30 10:00:01 ERROR worker: LookupError: order 8 does not exist in the ledger\n`;
      // records by `extract` (the CLI): one tagged with the folder it read, one copy without the tag
      const out = path.join(lib, 'records.json');
      const ex = spawnSync(process.execPath, [path.join(REPO, 'dist', 'cli.js'), 'extract', lib, '--repo', 'acme/shop', '--out', out], { encoding: 'utf8' });
      assert.equal(ex.status, 0, ex.stderr);
      const records = JSON.parse(fs.readFileSync(out, 'utf8')) as { id: string; tags: string[]; filePath: string }[];
      assert.equal(records.length, 1);
      assert.equal(records[0]!.filePath, 'shop/orders.py');
      assert.ok(records[0]!.tags.some((t) => t.startsWith('source-root-')), JSON.stringify(records[0]!.tags));
      ws = copyFixture();
      fs.writeFileSync(path.join(ws, '.error-records', 'shop.json'), JSON.stringify(records));
      c = await TestClient.start({ workspace: ws });
      fs.writeFileSync(path.join(ws, 'logs', 'shop.log'), log);
    });
    after(async () => {
      await c?.stop();
      if (ws) fs.rmSync(ws, { recursive: true, force: true });
      if (lib) fs.rmSync(lib, { recursive: true, force: true });
    });

    it('the folder extract read: Go to Definition, the hover link and the record request find the file', async () => {
      const uri = await c.open('logs/shop.log', 'log', log);
      const at = positionOf(log, 'order 8 does not exist', 3);
      const target = { uri: uriOf(path.join(lib, 'shop', 'orders.py')), range: { start: { line: raiseLine, character: 0 }, end: { line: raiseLine, character: 0 } } };
      const def = await waitFor('definition', async () => (await c.request<Location[] | null>('textDocument/definition', { textDocument: { uri }, position: at })) ?? undefined);
      assert.deepEqual(def, [target]);
      const h = await c.request<Hover>('textDocument/hover', { textDocument: { uri }, position: at });
      const value = (h.contents as { value: string }).value;
      assert.ok(value.includes(`](${target.uri}#L${raiseLine + 1})`), value);
      const link = /\(command:errorExplainer\.goToRaiseSite\?([^ )]+) /.exec(value);
      assert.ok(link, 'a Go to raise site link');
      const args = JSON.parse(decodeURIComponent(link[1]!))[0];
      const rec = await c.request<{ raiseSite?: unknown }>('errorExplainer/record', args);
      assert.deepEqual(rec.raiseSite, { uri: target.uri, line: raiseLine });
    });

    it('a file named by the traceback: found for a record without the tag (the library moved)', async () => {
      const records = JSON.parse(fs.readFileSync(path.join(ws, '.error-records', 'shop.json'), 'utf8')) as { tags: string[] }[];
      for (const r of records) r.tags = r.tags.filter((t) => !t.startsWith('source-root-'));
      fs.writeFileSync(path.join(ws, '.error-records', 'shop.json'), JSON.stringify(records));
      await c.request('errorExplainer/reload');
      const uri = c.uri('logs/shop.log');
      const exceptionLine = positionOf(log, 'LookupError: order 7', 'LookupError: '.length + 2);
      const target = { uri: uriOf(path.join(lib, 'shop', 'orders.py')), range: { start: { line: raiseLine, character: 0 }, end: { line: raiseLine, character: 0 } } };
      const def = await waitFor('definition from the frames', async () => {
        const d = await c.request<Location[] | null>('textDocument/definition', { textDocument: { uri }, position: exceptionLine });
        return d?.some((l) => l.uri === target.uri) ? d : undefined;
      });
      assert.deepEqual(def, [target]);
      // without frames around it (the last line is 1 line below the traceback: still near) vs. the record request alone
      const rec = await c.request<{ raiseSite?: unknown }>('errorExplainer/record', { id: (records[0] as unknown as { id: string }).id });
      assert.equal(rec.raiseSite, undefined, 'no frames, no tag, no githubUrl: no raise site');
      const near = await c.request<{ raiseSite?: unknown }>('errorExplainer/record', { id: (records[0] as unknown as { id: string }).id, near: { uri, line: exceptionLine.line } });
      assert.deepEqual(near.raiseSite, { uri: target.uri, line: raiseLine });
    });
  });

  it('snippet code actions carry the same edit with tab stops (data.snippet) for clients with snippet edits', async () => {
    const ws = copyFixture();
    const c = await TestClient.start({ workspace: ws });
    cleanup.push(() => c.stop(), () => fs.rmSync(ws, { recursive: true, force: true }));
    const text = c.text('app.py');
    const uri = await c.open('app.py', 'python', text);
    const at = positionOf(text, 'raise MMError("encode metadata not ready")');
    const actions = await c.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: at, end: at },
      context: { diagnostics: [], triggerKind: 2 },
    });
    assert.ok(actions.length > 0 && actions.every((a) => a.kind === 'quickfix'), 'the raise line relates: quick fixes, also for the light bulb');
    for (const a of actions) {
      const edit = a.edit!.changes![uri]![0]!;
      const data = a.data as { snippet: { uri: string; range: unknown; snippet: string } };
      assert.equal(data.snippet.uri, uri);
      assert.deepEqual(data.snippet.range, edit.range);
      // the snippet is the edit's text with tab stops on the names app.py does not know
      assert.equal(data.snippet.snippet.replace(/\$\{\d+:([^}]*)\}/g, '$1').replace(/\\([$}\\])/g, '$1'), edit.newText);
    }
    assert.match((actions[0]!.data as { snippet: { snippet: string } }).snippet.snippet, /\$\{1:meta_registry\}\.has\(req_id\)/);
    // a blank line relates to nothing: the light bulb gets no action
    const blank = text.split('\n').findIndex((l) => !l.trim());
    const none = await c.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: { line: blank, character: 0 }, end: { line: blank, character: 0 } },
      context: { diagnostics: [], triggerKind: 2 },
    });
    assert.deepEqual(none, []);
  });
});
