// Hostile input over stdio (issue 14): a backtracking pattern in a workspace record, hostile
// errorExplainer.logFiles globs and their trust boundary, record files that are symlinks out of the
// workspace or the configured folders, and broken LSP frames.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Diagnostic, Hover } from 'vscode-languageserver-protocol';
import { BUNDLED, copyFixture, SERVER, TestClient, waitFor } from './client';
import { tempDir } from '../shared/paths';

interface Status {
  records: number;
  problems: number;
  workspaceTrusted: boolean;
}

describe('language server over stdio: hostile input (issue 14)', function () {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });
  async function start(opts: Partial<Parameters<typeof TestClient.start>[0]> = {}, prepare?: (ws: string) => void): Promise<TestClient> {
    const ws = copyFixture();
    prepare?.(ws);
    const c = await TestClient.start({ workspace: ws, ...opts });
    cleanup.push(() => fs.rmSync(ws, { recursive: true, force: true }));
    cleanup.push(() => c.stop());
    await waitFor('records loaded', async () => ((await c.request<Status>('errorExplainer/status')).records > 0 ? true : undefined));
    return c;
  }
  const hoverAt = (c: TestClient, uri: string, line: number, character: number) =>
    c.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line, character } });
  const ids = (items: Diagnostic[] | undefined) => (items ?? []).map((d) => (d.data as { id?: string } | undefined)?.id);

  it('a workspace record with the backtracking pattern ERRXYZ(a|a)*b: hovers and diagnostics answer at once, the match is found', async () => {
    const c = await start({}, (ws) =>
      fs.writeFileSync(path.join(ws, '.error-records', 'redos.json'), JSON.stringify([{ id: 'dead0000dead0000', messagePattern: 'ERRXYZ(a|a)*b', errorMessage: 'the xyz error' }])),
    );
    const hostile = 'ERRXYZ' + 'a'.repeat(40) + 'c b';
    const uri = await c.open('logs/redos.log', 'log', `${hostile}\n${'ERRXYZ' + 'a'.repeat(5000) + 'c b'}\nERRXYZaaab\n`);
    const t0 = Date.now();
    assert.equal(await hoverAt(c, uri, 0, 3), null);
    assert.equal(await hoverAt(c, uri, 1, 3), null);
    const hit = await hoverAt(c, uri, 2, 3);
    assert.ok(hit && JSON.stringify(hit.contents).includes('xyz error'), JSON.stringify(hit));
    assert.deepEqual(ids((await c.pull(uri)).items), ['dead0000dead0000']);
    // RegExp: the first line alone did not finish in 60 s; the linear engine answers all of it at once
    assert.ok(Date.now() - t0 < 5000, `${Date.now() - t0} ms`);
  });

  it('errorExplainer.logFiles: hostile globs are matched in linear time; an untrusted workspace gets the default globs', async () => {
    const name = 'a'.repeat(60) + 'c.txt';
    const globs = ['**/*a*a*a*a*a*a*a*a*a*b', '**/*.txt'];
    // trusted: the workspace's globs apply (so the hostile one runs)
    const c = await start({ settings: { logFiles: globs } }, (ws) => fs.writeFileSync(path.join(ws, name), 'encode metadata not ready\n'));
    const uri = await c.open(name, 'plaintext', 'encode metadata not ready\n');
    const t0 = Date.now();
    const report = await c.pull(uri);
    assert.ok(Date.now() - t0 < 5000, `${Date.now() - t0} ms (picomatch: minutes)`);
    assert.equal(report.items?.length, 1, 'a *.txt file is a log by the workspace glob');

    // untrusted: the same workspace values are ignored (VS Code drops them too: restrictedConfigurations)
    const u = await start({ settings: { logFiles: globs }, initializationOptions: { workspaceTrusted: false } }, (ws) => fs.writeFileSync(path.join(ws, name), 'x\n'));
    const uu = await u.open(name, 'plaintext', 'encode metadata not ready\n');
    assert.deepEqual((await u.pull(uu)).items ?? [], []);
    const log = await u.open('logs/other.log', 'plaintext', 'encode metadata not ready\n');
    assert.equal((await u.pull(log)).items?.length, 1, 'the default **/*.log still applies');
    // granting trust applies the workspace's globs
    await u.conn.sendNotification('errorExplainer/trust', { workspaceTrusted: true });
    await waitFor('trusted', async () => ((await u.request<Status>('errorExplainer/status')).workspaceTrusted ? true : undefined));
    await waitFor('the .txt file is a log now', async () => ((await u.pull(uu)).items?.length === 1 ? true : undefined));
  });

  it('record files never make the server read outside the workspace or the configured folders (symlinks included); each refused link is reported', async () => {
    const outside = tempDir('outside');
    cleanup.push(() => fs.rmSync(outside, { recursive: true, force: true }));
    const secret = (id: string, msg: string) => JSON.stringify([{ id, errorMessage: msg }]);
    fs.writeFileSync(path.join(outside, 'secret.json'), secret('5ec0000000000001', 'outside secret file matched'));
    fs.mkdirSync(path.join(outside, 'dir'));
    fs.writeFileSync(path.join(outside, 'dir', 'more.json'), secret('5ec0000000000002', 'outside secret folder matched'));
    const configured = tempDir('configured');
    cleanup.push(() => fs.rmSync(configured, { recursive: true, force: true }));
    fs.writeFileSync(path.join(configured, 'own.json'), secret('c0f0000000000001', 'configured own record matched'));
    fs.symlinkSync(path.join(outside, 'secret.json'), path.join(configured, 'link.json'));
    const c = await start({ settings: { records: { paths: [configured] } } }, (ws) => {
      const dir = path.join(ws, '.error-records');
      fs.symlinkSync(path.join(outside, 'secret.json'), path.join(dir, 'secret.json'));
      fs.symlinkSync(path.join(outside, 'dir'), path.join(dir, 'linked-dir'));
      // a link that stays inside the workspace is fine
      fs.mkdirSync(path.join(ws, 'shared'));
      fs.writeFileSync(path.join(ws, 'shared', 'inside.json'), secret('1a5de00000000001', 'inside shared record matched'));
      fs.symlinkSync(path.join(ws, 'shared', 'inside.json'), path.join(dir, 'inside.json'));
      // a record whose filePath goes through a symlink out of the workspace is not read either
      fs.symlinkSync(outside, path.join(ws, 'escape'));
      fs.writeFileSync(path.join(outside, 'code.py'), 'raise X("outside code line here")\n');
      fs.writeFileSync(path.join(dir, 'site.json'), JSON.stringify([{ id: '517e000000000001', errorMessage: 'outside code line here', filePath: 'escape/code.py', lineNumber: 1 }]));
    });
    const text = ['outside secret file matched', 'outside secret folder matched', 'configured own record matched', 'inside shared record matched', 'outside code line here'].join('\n');
    const found = await c.request<{ record: { id: string } }[]>('errorExplainer/explainText', { text });
    assert.deepEqual(found.map((m) => m.record.id).sort(), ['1a5de00000000001', '517e000000000001', 'c0f0000000000001']);
    // the refused links are problems on the links themselves
    const reported = [...c.published.values()].flatMap((p) => p.diagnostics.map((d) => `${p.uri} ${d.message}`)).join('\n');
    for (const link of [path.join('.error-records', 'secret.json'), path.join('.error-records', 'linked-dir'), path.join(configured, 'link.json')])
      assert.match(reported, new RegExp(`${link.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/^\//, '')}.*outside`), reported);
    // the raise site through the escaping symlink is not resolved to the outside file
    const uri = await c.open('logs/site.log', 'log', 'outside code line here\n');
    const links = await c.request<{ target?: string }[]>('textDocument/documentLink', { textDocument: { uri } });
    assert.ok(!links.some((l) => l.target?.includes('escape/code.py') || l.target?.includes(outside)), JSON.stringify(links));
  });

  describe('broken frames on stdio: logged, and the process exits (so the client restarts it)', () => {
    const frames: [string, string | Buffer, RegExp][] = [
      ['Content-Length: abc', 'Content-Length: abc\r\n\r\n{}', /Content-Length is not a byte count: "abc"/],
      ['Content-Length: -5', 'Content-Length: -5\r\n\r\n{"jsonrpc":"2.0"}', /Content-Length is not a byte count: "-5"/],
      ['no header', '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}', /expected a header/],
      ['no Content-Length', 'Content-Type: application/json\r\n\r\n{}', /no Content-Length/],
    ];
    for (const [name, bytes, reason] of frames) {
      it(name, async () => {
        const proc = spawn(process.execPath, [SERVER, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
        let stderr = '';
        let stdout = '';
        proc.stderr.on('data', (d) => (stderr += String(d)));
        proc.stdout.on('data', (d) => (stdout += String(d)));
        const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
        // a good frame first (the stream is fine until the broken one), then the broken frame;
        // stdin stays open: only the checker can end the process
        const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {}, initializationOptions: { bundledRecordsPath: BUNDLED } } });
        proc.stdin.write(`Content-Length: ${Buffer.byteLength(init)}\r\n\r\n${init}`);
        await waitFor('initialize answered', () => (stdout.includes('"id":1') ? true : undefined));
        proc.stdin.write(bytes);
        const timer = setTimeout(() => proc.kill(), 10_000);
        const code = await exited;
        clearTimeout(timer);
        assert.equal(code, 1, `exit code (killed after 10 s when the server stays alive): ${stderr}`);
        assert.match(stderr, /broken LSP stream on stdin/);
        assert.match(stderr, reason);
        assert.match(stderr, /frame 2/, 'the first, well-formed frame was accepted');
      });
    }
  });
});
