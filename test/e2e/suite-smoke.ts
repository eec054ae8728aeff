// Smoke: the extension activates in a real VS Code, registers its commands, and its server answers.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { runMocha } from './lib/mocha';
import { api, poll } from './lib/util';

export function run(): Promise<void> {
  return runMocha('smoke', () => {
    describe('activation', () => {
      it('activates and registers every command of the manifest', async () => {
        const a = await api();
        assert.equal(typeof a.serverRunning, 'function');
        const all = await vscode.commands.getCommands(true);
        const pkg = vscode.extensions.getExtension('error-explainer.error-explainer')?.packageJSON as {
          contributes: { commands: { command: string }[] };
        };
        for (const c of pkg.contributes.commands) assert.ok(all.includes(c.command), `command ${c.command} is not registered`);
      });
      it('starts the language server on demand', async () => {
        const a = await api();
        await a.ready();
        await poll('server running', () => a.serverRunning());
      });
      it('reports the ErrLookup dataset as not downloaded before the user opts in', async () => {
        const st = (await vscode.commands.executeCommand('errorExplainer.datasetStatus')) as {
          optedIn: boolean;
          datasetVersion: string | null;
          loaded: number;
        };
        assert.equal(st.optedIn, false);
        assert.equal(st.datasetVersion, null);
        assert.equal(st.loaded, 0);
      });
    });
  });
}
