// Agents and big logs in a real VS Code (test/fixtures/e2e-basic): the language-model tool through
// vscode.lm.invokeTool, the MCP server the extension would offer (spawned from its definition and
// asked for its tools), Scan Log File… into the Known Errors view (counts, occurrences, follow,
// clicking opens the line), a file over 50 MB that VS Code will not hand to extensions (opened as a
// read-only window of lines), and the view's Open documents and Terminal sections.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { KnownErrorsNode } from '../../client/src/api';
import { runMocha } from './lib/mocha';
import { bashTerminal, runInTerminal } from './lib/terminal';
import { api, closeAllEditors, fixtureUri, openFixture, poll } from './lib/util';
import { noise, sentLine, writeLog } from '../shared/logs';

const METADATA_ID = '12c38bb1afed0ec1'; // bundled "encode metadata not ready"

function toolText(r: vscode.LanguageModelToolResult): string {
  return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}


function find(nodes: KnownErrorsNode[], label: string | RegExp): KnownErrorsNode | undefined {
  return nodes.find((n) => (typeof label === 'string' ? n.label === label : label.test(n.label)));
}

/** Asks an MCP server over stdio (newline-delimited JSON-RPC) for its tools. */
function mcpTools(cmd: { command: string; args: string[]; cwd: string | undefined; env: Record<string, string> }): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd.command, cmd.args, { cwd: cmd.cwd, env: { ...process.env, ...cmd.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => (p.kill(), reject(new Error(`no tools/list answer; stderr: ${err}`))), 30000);
    p.stderr.on('data', (c: Buffer) => (err += c.toString()));
    p.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      for (const line of out.split('\n')) {
        if (!line.trim()) continue;
        const m = JSON.parse(line) as { id?: number; result?: { tools?: { name: string }[] } };
        if (m.id === 2 && m.result?.tools) {
          clearTimeout(timer);
          p.kill();
          resolve(m.result.tools.map((t) => t.name));
        }
      }
    });
    const send = (o: unknown) => p.stdin.write(JSON.stringify(o) + '\n');
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  });
}

export function run(): Promise<void> {
  return runMocha('agents', () => {
    before(async () => {
      const a = await api();
      await a.ready();
    });
    afterEach(closeAllEditors);

    describe('language-model tool', () => {
      it('errorExplainer_explain is contributed and registered', async () => {
        const tool = await poll('the tool in vscode.lm.tools', () => vscode.lm.tools.find((t) => t.name === 'errorExplainer_explain'));
        assert.match(tool.description, /Explains error messages/);
        assert.deepEqual(Object.keys((tool.inputSchema as { properties: object }).properties), ['text', 'path']);
        assert.equal((await api()).agents().toolRegistered, true);
      });

      it('vscode.lm.invokeTool on a line with "encode metadata not ready" returns the seed record', async () => {
        const cts = new vscode.CancellationTokenSource();
        const r = await vscode.lm.invokeTool('errorExplainer_explain', { input: { text: '2026-11-29 10:00:02 ERROR encode metadata not ready' }, toolInvocationToken: undefined }, cts.token);
        const text = toolText(r);
        assert.match(text, new RegExp(METADATA_ID));
        assert.match(text, /encode metadata not ready/);
        assert.match(text, /#### Solutions/);
        assert.match(text, /### Line 1/);
      });

      it('with a workspace-relative log path, the file is scanned on disk', async () => {
        const cts = new vscode.CancellationTokenSource();
        const r = await vscode.lm.invokeTool('errorExplainer_explain', { input: { path: 'logs/app.log' }, toolInvocationToken: undefined }, cts.token);
        const text = toolText(r);
        assert.match(text, /Scanned `.*app\.log`: 7 lines/);
        assert.match(text, /encode metadata not ready/);
      });
    });

    describe('MCP server for VS Code agents', () => {
      it('is offered through registerMcpServerDefinitionProvider only where that API exists (VS Code >= 1.101)', async () => {
        // (1.100 has a proposed registerMcpServerDefinitionProvider that throws for our contribution:
        // activation must survive it, and nothing is registered there)
        const [, minor] = vscode.version.split('.').map(Number);
        assert.equal((await api()).agents().mcpProviderRegistered, (minor ?? 0) >= 101);
      });

      it('the server its definition runs answers tools/list', async () => {
        const cmd = (await api()).mcpCommand();
        assert.ok(cmd.args[0]!.endsWith('cli.js') && cmd.args[1] === 'mcp', cmd.args.join(' '));
        const tools = await mcpTools(cmd);
        assert.deepEqual(tools, ['search_error', 'get_error', 'explain_text', 'scan_log', 'list_repos', 'refresh_dataset']);
      });
    });

    describe('Scan Log File… and the Known Errors view', () => {
      it('scans a file, lists the record with its count and occurrences; clicking opens the line', async () => {
        const a = await api();
        const uri = fixtureUri('logs/run.log');
        const matched = writeLog(uri.fsPath, 3, 1499);
        const r = (await vscode.commands.executeCommand('errorExplainer.scanLogFile', uri)) as { state: string; groups: unknown[] };
        assert.equal(r.state, 'following');
        const file = await poll('run.log in the view', () => find(a.knownErrors(), 'run.log'));
        assert.match(file.description, new RegExp(`^following · 1 known error, ${matched.length} matches`));
        const rec = file.children[0]!;
        assert.match(rec.label, /MMError: no staged embedding/);
        assert.match(rec.description, new RegExp(`×${matched.length} · lines ${matched[0]}–${matched[matched.length - 1]}`));
        const occ = rec.children[0]!;
        assert.equal(occ.label, `line ${matched[0]}`);
        await vscode.commands.executeCommand(occ.command!.command, ...occ.command!.arguments);
        const ed = await poll('the log at the occurrence', () => {
          const e = vscode.window.activeTextEditor;
          return e && e.document.uri.fsPath === uri.fsPath && e.selection.active.line === matched[0]! - 1 ? e : undefined;
        });
        assert.equal(ed.document.getText(ed.selection), 'no staged embedding for /send req_id=r1499 (already released)');

        // follow: an appended match shows up
        fs.appendFileSync(uri.fsPath, `${sentLine('appended')}\n`);
        await poll('the appended match', () => find(a.knownErrors(), 'run.log')?.children[0]?.description.startsWith(`×${matched.length + 1} `));
        await vscode.commands.executeCommand('errorExplainer.knownErrors.stop', { kind: 'scan', scan: { path: uri.fsPath } });
        await poll('stopped', () => find(a.knownErrors(), 'run.log')?.description.startsWith('stopped · '));
      });

      it('a log over 50 MB (which VS Code does not hand to extensions) opens as a read-only window around the line', async () => {
        const a = await api();
        const uri = fixtureUri('logs/huge.log');
        const matched = writeLog(uri.fsPath, 52, 40_000);
        assert.ok(fs.statSync(uri.fsPath).size > 50 * 1024 * 1024);
        await assert.rejects(Promise.resolve(vscode.workspace.openTextDocument(uri)), 'VS Code refuses to open it for extensions');
        await vscode.commands.executeCommand('errorExplainer.scanLogFile', uri);
        const file = await poll('huge.log in the view', () => find(a.knownErrors(), 'huge.log'));
        const rec = file.children[0]!;
        assert.match(rec.description, new RegExp(`×${matched.length} `));
        const last = rec.children.filter((c) => c.label.startsWith('line ')).pop()!;
        const line = Number(last.label.slice(5));
        assert.equal(line, matched[matched.length - 1]);
        await vscode.commands.executeCommand(last.command!.command, ...last.command!.arguments);
        const ed = await poll('the log window', () => {
          const e = vscode.window.activeTextEditor;
          return e && e.document.uri.scheme === 'errorexplainer-log' ? e : undefined;
        });
        assert.match(ed.document.uri.path, new RegExp(`huge\\.log · lines ${line - 200}–${line + 300}$`));
        assert.equal(ed.document.lineAt(ed.selection.active.line).text, sentLine(`r${line}`));
        assert.equal(ed.document.lineAt(0).text, noise(line - 200));
        await vscode.commands.executeCommand('errorExplainer.knownErrors.remove', { kind: 'scan', scan: { path: uri.fsPath } });
        await poll('removed', () => !find(a.knownErrors(), 'huge.log'));
        fs.rmSync(uri.fsPath);
      });

      it('an unreadable file gives a message, not a node', async () => {
        const a = await api();
        const r = await vscode.commands.executeCommand('errorExplainer.scanLogFile', fixtureUri('logs/missing.log'));
        assert.equal(r, undefined);
        await poll('the error message', () => a.messages().find((m) => /cannot read '.*missing\.log': no such file/.test(m.text)));
        assert.equal(find(a.knownErrors(), 'missing.log'), undefined);
      });

      it('lists the matches of open log documents', async () => {
        const a = await api();
        await openFixture('logs/app.log');
        const docs = await poll('Open documents in the view', () => {
          const n = find(a.knownErrors(), 'Open documents');
          return n && n.children.length ? n : undefined;
        });
        const meta = docs.children.find((c) => /encode metadata|MMError/.test(c.label) && c.children.some((o) => o.label === 'app.log:2'));
        assert.ok(meta, JSON.stringify(docs.children.map((c) => [c.label, c.children.map((o) => o.label)])));
      });

      it('lists the terminal matches', async () => {
        const a = await api();
        const term = await bashTerminal('agents-e2e');
        await runInTerminal(term, "sleep 0.3; echo 'ERROR sglang: MMError: encode metadata not ready'");
        const t = await poll('Terminal in the view', () => find(a.knownErrors(), 'Terminal'));
        const rec = t.children.find((c) => /encode metadata not ready/.test(c.label));
        assert.ok(rec, JSON.stringify(t.children.map((c) => c.label)));
        assert.equal(rec.children[0]!.label, 'encode metadata not ready');
        term.dispose();
      });
    });
  });
}
