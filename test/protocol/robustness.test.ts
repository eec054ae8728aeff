// Robustness over stdio: cancellation of a long diagnostics request, malformed params, unknown
// documents, hostile record text. The server answers every time and stays up.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CancellationTokenSource, LSPErrorCodes, ResponseError } from 'vscode-languageserver-protocol';
import type { Hover } from 'vscode-languageserver-protocol';
import { copyFixture, TestClient } from './client';

describe('language server over stdio: robustness', function () {
  let ws: string;
  let c: TestClient;
  before(async () => {
    ws = copyFixture();
    fs.writeFileSync(
      path.join(ws, '.error-records', 'hostile.json'),
      JSON.stringify({
        id: 'e0e0e0e0e0e0e0e0',
        errorMessage: 'hostile widget failed with code {code}',
        errorClass: 'Hostile',
        documentation: 'See [docs](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%22%7D) <script>alert(1)</script> ![x](https://evil.example/p.png)',
        solutions: ['[click](command:evil.run)', '<img src=x onerror=alert(1)>'],
        githubUrl: 'javascript:alert(1)',
        tryCatchPattern: 'try:\n    run()\nexcept Hostile:\n    pass',
      }),
    );
    c = await TestClient.start({ workspace: ws });
  });
  after(async () => {
    await c?.stop();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('cancels a diagnostics request on a huge log mid-scan, then finishes it on the next pull', async () => {
    const line = 'INFO 2026-08-28 worker heartbeat ok, nothing to report here at all\n';
    const uri = await c.open('logs/huge.log', 'log', line.repeat(600_000) + 'boom: encode metadata not ready\n');
    const source = new CancellationTokenSource();
    const t0 = Date.now();
    const pending = c.conn.sendRequest('textDocument/diagnostic', { textDocument: { uri } }, source.token);
    // Cancel while the server is scanning (600k lines take far longer than 30 ms to match).
    setTimeout(() => source.cancel(), 30);
    await assert.rejects(pending, (e: unknown) => e instanceof ResponseError && e.code === LSPErrorCodes.RequestCancelled);
    const cancelledAfter = Date.now() - t0;
    const full = await c.pull(uri);
    assert.equal(full.items!.length, 1);
    assert.equal(full.items![0]!.range.start.line, 600_000);
    assert.ok(cancelledAfter < 20_000, `cancelled after ${cancelledAfter} ms`);
    await c.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
  });

  it('answers malformed params and unknown documents with empty results', async () => {
    const unknown = c.uri('nope.log');
    assert.equal(await c.request('textDocument/hover', { textDocument: { uri: unknown }, position: { line: 0, character: 0 } }), null);
    assert.deepEqual(await c.request('textDocument/documentLink', { textDocument: { uri: unknown } }), []);
    assert.deepEqual((await c.pull(unknown)).items, []);
    assert.deepEqual(await c.request('errorExplainer/search', {}), []);
    assert.deepEqual(await c.request('errorExplainer/search', { query: 42 }), []);
    assert.equal(await c.request('errorExplainer/record', { id: 7 }), null);
    assert.deepEqual(await c.request('errorExplainer/explainText', { text: null }), []);
    assert.equal(await c.request('errorExplainer/snippet', { id: 'nope', kind: 'validation', uri: unknown, line: 0 }), null);
    const uri = await c.open('logs/short.log', 'log', 'one line\n');
    assert.equal(await c.request('textDocument/hover', { textDocument: { uri }, position: { line: 99, character: 5 } }), null);
    await c.change(uri, [{ range: { start: { line: 50, character: 3 }, end: { line: 60, character: 0 } }, text: 'x' }]);
    const status = await c.request<{ records: number }>('errorExplainer/status');
    assert.equal(status.records, 5);
  });

  it('keeps hostile record text inert in hovers', async () => {
    const text = 'ERROR hostile widget failed with code 7\n';
    const uri = await c.open('logs/hostile.log', 'log', text);
    const h = await c.request<Hover>('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: text.indexOf('widget') } });
    const value = (h.contents as { value: string }).value;
    const links = [...value.matchAll(/\]\(([^ )]+)/g)].map((m) => m[1]!);
    assert.ok(links.length >= 3);
    for (const l of links) assert.match(l, /^command:errorExplainer\.(insertSnippet|openRecord|copyExplanation|goToRaiseSite)\?/);
    assert.doesNotMatch(value, /(^|[^\\])<(script|img)/);
    assert.doesNotMatch(value, /(^|[^\\`])!\[/);
    assert.ok(!/\]\(javascript:/.test(value));
  });
});
