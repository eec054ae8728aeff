// Faults in a real VS Code: the language server process is killed; the client restarts it
// (bounded), rebuilds its state (open documents, terminal matches), shows one message, and gives
// up after too many crashes with one more message; Reload Records brings it back.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as vscode from 'vscode';
import { DIAGNOSTIC_SOURCE } from '../../server/src/protocol';
import { runMocha } from './lib/mocha';
import { bashTerminal, runInTerminal } from './lib/terminal';
import { api, openFixture, poll } from './lib/util';

const STAGED_ID = '063d2eac5107dda5'; // seen only in the terminal, never in a document

/** Pid of the language server: the extension host's child running dist/server.js. */
function serverPid(): number | undefined {
  try {
    const out = execFileSync('pgrep', ['-P', String(process.pid), '-f', 'dist/server\.js'], { encoding: 'utf8' });
    const pids = out.split('\n').map(Number).filter((n) => n > 0);
    return pids.length === 1 ? pids[0] : undefined;
  } catch {
    return undefined;
  }
}

async function killServer(): Promise<number> {
  const pid = await poll('one running server process', () => serverPid());
  process.kill(pid, 'SIGKILL');
  return pid;
}

function errorDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === DIAGNOSTIC_SOURCE);
}

let scratch: vscode.TextDocument | undefined;
async function stagedActionOffered(): Promise<boolean> {
  scratch ??= await vscode.workspace.openTextDocument({ language: 'python', content: 'def send(req_id):\n    pass\n' });
  const doc = scratch;
  const at = new vscode.Position(1, 4);
  const list = (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, new vscode.Range(at, at))) ?? [];
  return list.some((a) => a.title.startsWith('Insert validation for MMError: no staged embedding'));
}

export function run(): Promise<void> {
  return runMocha('crash', () => {
    it('restarts a killed server and rebuilds diagnostics and terminal matches, with one message', async () => {
      const a = await api();
      await a.ready();
      const editor = await openFixture('logs/app.log');
      const doc = editor.document;
      await poll('diagnostics before the crash', () => errorDiagnostics(doc.uri).length === 3);

      const term = await bashTerminal('crash-bash');
      await runInTerminal(term, "sleep 0.3; printf 'no staged embedding for /send req_id=%s (already released)\\n' r-9");
      await poll('the seen match reported', () => a.seenReported().some((s) => s.matches.some((m) => m.id === STAGED_ID)));
      await poll('the snippet offered from the terminal match', stagedActionOffered);

      const first = await killServer();
      await poll('a restart', () => a.restarts().count === 1 && a.serverRunning() && serverPid() !== undefined && serverPid() !== first);
      // The restarted server got the open document again: an edit is diagnosed.
      const end = doc.lineAt(doc.lineCount - 1).range.end;
      assert.ok(await editor.edit((b) => b.insert(end, '\n2026-11-29 10:00:09 ERROR encode metadata not ready')));
      await poll('diagnostics after the restart, including the edit', () => errorDiagnostics(doc.uri).length === 4);
      // The terminal match was re-sent: only the client knew it.
      await poll('the snippet offered after the restart', stagedActionOffered);

      await killServer();
      await poll('a second restart', () => a.restarts().count === 2 && a.serverRunning());
      await poll('diagnostics after the second restart', () => errorDiagnostics(doc.uri).length === 4);
      const restartMessages = a.messages().filter((m) => m.key === 'restarted');
      assert.equal(restartMessages.length, 1, JSON.stringify(a.messages()));
      term.dispose();
    });

    it('gives up after repeated crashes with one message, and Reload Records brings it back', async () => {
      const a = await api();
      while (!a.restarts().gaveUp) {
        const before = a.restarts().count;
        await killServer();
        await poll('the client to react to the crash', () => {
          const r = a.restarts();
          if (r.gaveUp || (r.count > before && a.serverRunning() && serverPid() !== undefined)) return true;
          throw new Error(`restarts ${JSON.stringify(r)}, running ${a.serverRunning()}, pid ${serverPid()}, messages ${JSON.stringify(a.messages())}`);
        });
      }
      assert.equal(a.restarts().count, 4);
      assert.equal(a.serverRunning(), false);
      assert.equal(a.messages().filter((m) => m.key === 'gave-up').length, 1);
      assert.equal(a.messages().filter((m) => m.key === 'restarted').length, 1);
      assert.equal(a.messages().filter((m) => m.level === 'error').length, 1, JSON.stringify(a.messages()));

      const status = await vscode.commands.executeCommand<{ records: number }>('errorExplainer.reloadRecords');
      assert.ok(status && status.records >= 4, JSON.stringify(status));
      assert.equal(a.serverRunning(), true);
      const doc = (await openFixture('logs/app.log')).document;
      await poll('diagnostics after the reload', () => errorDiagnostics(doc.uri).length >= 3);
    });
  });
}
