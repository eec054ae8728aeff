// The packaged extension, installed from the .vsix with `code-server --install-extension`
// (not the development folder): it activates, carries only bundled code, and serves a hover.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { runMocha } from './lib/mocha';
import { api, EXTENSION_ID, hoverText, openFixture, poll, posOf } from './lib/util';

function listFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(path.join(dir, e.name)).map((f) => `${e.name}/${f}`) : [e.name],
  );
}

export function run(): Promise<void> {
  return runMocha('vsix', () => {
    it('is the installed package, with bundled code only', () => {
      const ext = vscode.extensions.getExtension(EXTENSION_ID);
      assert.ok(ext);
      assert.equal(ext.extensionKind, vscode.ExtensionKind.Workspace);
      assert.match(ext.extensionPath, /[\\/]extensions[\\/]error-explainer\.error-explainer-\d/, ext.extensionPath);
      const files = listFiles(ext.extensionPath).filter((f) => !/^\.vsixmanifest$|^\[Content_Types\]\.xml$/.test(f));
      assert.ok(['dist/extension.js', 'dist/server.js', 'dist/server-main.js', 'dist/cli.js', 'dist/cli-main.js'].every((f) => files.includes(f)), files.join('\n'));
      assert.ok(files.some((f) => f.startsWith('records/')), files.join('\n'));
      const unexpected = files.filter((f) => !/^(dist\/(extension|server|server-main|cli|cli-main)\.js|records\/.+|package\.json|README\.md|test\/e2e\/artifacts\/(hover|problems|terminal|ansi)\.png|media\/icon\.png|media\/walkthrough\/[\w-]+\.(md|log)|LICENSE(\.\w+)?|CHANGELOG\.md)$/i.test(f));
      // the icon, the walkthrough's pages and sample log, and the changelog are in the package
      for (const f of ['media/icon.png', 'media/walkthrough/sample.log', 'media/walkthrough/open-log.md']) assert.ok(files.includes(f), `${f} missing`);
      // vsce stores README.md and CHANGELOG.md as extension/readme.md and extension/changelog.md
      assert.ok(files.some((f) => f.toLowerCase() === 'changelog.md'), `CHANGELOG.md missing:\n${files.join('\n')}`);
      assert.deepEqual(unexpected, []);
    });

    it("its CLI runs from the package: the launcher, its bundle through the code cache, the bundled records", () => {
      const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
      const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'ee-vsix-cli-'));
      try {
        const run = () =>
          spawnSync(process.execPath, [path.join(ext.extensionPath, 'dist', 'cli.js'), 'explain', 'Inconsistent receive_count for req_id=req-42: registered 2, got 3'], {
            encoding: 'utf8',
            env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', ERROR_EXPLAINER_INDEX_CACHE: cache, ERROR_EXPLAINER_DEBUG: '1' },
          });
        const first = run();
        assert.equal(first.status, 0, first.stderr);
        assert.match(first.stdout, /receive_count/);
        assert.match(first.stderr, /code cache absent/);
        const second = run();
        assert.equal(second.stdout, first.stdout);
        assert.match(second.stderr, /code cache used/);
      } finally {
        fs.rmSync(cache, { recursive: true, force: true });
      }
    });

    it('activates and serves a hover from its bundled records', async () => {
      const a = await api();
      await a.ready();
      const doc = (await openFixture('logs/app.log')).document;
      const md = await poll('a hover', () => hoverText(doc.uri, posOf(doc, 'Inconsistent receive_count', 4)));
      assert.ok(md.includes('register'), md);
      // (the glance since uxed: "**Captured:** req_id = `req-42` · …")
      assert.match(md.replace(/\\/g, ''), /\*\*Captured:\*\* req_id = `req-42`/);
    });
  });
}
