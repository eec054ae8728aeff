// Restricted Mode in a real VS Code (workspace trust enabled, folder not trusted): workspace records
// (.error-records/) and workspace values of errorExplainer.records.paths and .dataset.* are not used,
// workspace errorExplainer.logFiles globs do not apply; bundled records still explain errors; the
// status item says so.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { runMocha } from './lib/mocha';
import { api, hoverText, openFixture, poll, posOf, workspaceRoot } from './lib/util';

export function run(): Promise<void> {
  return runMocha('restricted', () => {
    it('the folder is untrusted and VS Code withholds the workspace record paths', () => {
      assert.equal(vscode.workspace.isTrusted, false);
      // capabilities.untrustedWorkspaces.restrictedConfigurations: the workspace value is ignored
      const paths = vscode.workspace.getConfiguration('errorExplainer').get<string[]>('records.paths');
      assert.deepEqual(paths, []);
      // ... although the workspace does set one (VS Code hides it even from inspect())
      const settings = fs.readFileSync(path.join(workspaceRoot().fsPath, '.vscode', 'settings.json'), 'utf8');
      assert.deepEqual(JSON.parse(settings)['errorExplainer.records.paths'], ['more-records/extra.json']);
    });

    it('the workspace does not choose the dataset URL or repositories: VS Code withholds them, and the server uses the one the user opted in for', async () => {
      const settings = JSON.parse(fs.readFileSync(path.join(workspaceRoot().fsPath, '.vscode', 'settings.json'), 'utf8'));
      assert.equal(settings['errorExplainer.dataset.url'], 'https://dataset.invalid');
      const cfg = vscode.workspace.getConfiguration('errorExplainer');
      assert.equal(cfg.get<string>('dataset.url'), 'https://errors.standardbeagle.com');
      assert.equal(cfg.get<number>('dataset.refreshHours'), 24);
      // nor which repositories of it are matched (the fixture asks for all: "*")
      assert.deepEqual(settings['errorExplainer.dataset.repos'], ['*']);
      assert.deepEqual(cfg.get<string[]>('dataset.repos'), []);
      const st = (await vscode.commands.executeCommand('errorExplainer.datasetStatus')) as { url: string; optedIn: boolean };
      assert.equal(st.url, 'https://errors.standardbeagle.com');
      assert.equal(st.optedIn, false);
    });

    it('loads only the bundled records and says so', async () => {
      const a = await api();
      await a.ready();
      const status = await poll('a status from the server', () => a.lastStatus());
      assert.equal(status.workspaceTrusted, false);
      assert.deepEqual([...new Set(status.sources.map((s) => s.origin))], ['bundled']);
      assert.equal(status.records, 3);
      await poll('the restricted status item', () => a.statusText().records.includes('(restricted)'));
    });

    it('workspace logFiles globs are withheld too: a *.txt file the workspace calls a log gets no hover', async () => {
      const globs = vscode.workspace.getConfiguration('errorExplainer').get<string[]>('logFiles');
      assert.deepEqual(globs, ['**/*.log', '**/*.log.[0-9]*', '**/*.out', '**/*.err']);
      const settings = JSON.parse(fs.readFileSync(path.join(workspaceRoot().fsPath, '.vscode', 'settings.json'), 'utf8'));
      assert.ok(settings['errorExplainer.logFiles'].includes('**/*.txt'));
      // the server answers for the log (same text), so the .txt file's empty hover is a real "no"
      const log = (await openFixture('logs/app.log')).document;
      await poll('a hover in the log', () => hoverText(log.uri, posOf(log, 'encode metadata', 3)));
      const txt = (await openFixture('notes/app.txt')).document;
      assert.equal(await hoverText(txt.uri, posOf(txt, 'encode metadata', 3)), '');
    });

    it('hovers explain bundled errors but not the workspace ones', async () => {
      const doc = (await openFixture('logs/app.log')).document;
      const md = await poll('a hover from a bundled record', () => hoverText(doc.uri, posOf(doc, 'encode metadata', 3)));
      assert.ok(md.includes('meta'), md);
      assert.equal(await hoverText(doc.uri, posOf(doc, 'tenant acme', 3)), '');
      assert.equal(await hoverText(doc.uri, posOf(doc, 'feature flag', 3)), '');
      assert.equal(await vscode.commands.executeCommand('errorExplainer.explainText', 'tenant acme exceeded its storage quota'), undefined);
      assert.equal(await vscode.commands.executeCommand('errorExplainer.explainText', 'feature flag x is not defined'), undefined);
    });
  });
}
