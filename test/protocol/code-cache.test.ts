// The language server's launcher (server/launch.ts, built to dist/server.js): the server's bundle
// (dist/server-main.js) runs through V8's code cache under the index cache folder (core/codeCache),
// as the CLI's does. The first start writes it when the server exits; the next start uses it and
// answers the same; a flipped file is not used and is written anew. ERROR_EXPLAINER_DEBUG makes
// the server say on stderr what the cache did (at its start: its last words may come after its exit).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Hover } from 'vscode-languageserver-protocol';
import { WORKSPACE_FIXTURE, tempDir } from '../shared/paths';
import { TestClient, waitFor } from './client';

describe('language server over stdio: its code cache', function () {
  this.timeout(120_000);
  let cacheDir: string;
  beforeEach(() => {
    cacheDir = tempDir('lsp-code');
  });
  afterEach(() => fs.rmSync(cacheDir, { recursive: true, force: true }));

  /** One start: a hover on a known line of the fixture workspace's log, and what the server said. */
  async function session(env: Record<string, string> = {}): Promise<{ hover: Hover | null; stderr: string }> {
    const client = await TestClient.start({ workspace: WORKSPACE_FIXTURE, env: { ERROR_EXPLAINER_INDEX_CACHE: cacheDir, ERROR_EXPLAINER_DEBUG: '1', ...env } });
    let hover: Hover | null;
    try {
      const uri = await client.open('logs/app.log', 'log');
      const lines = client.text('logs/app.log').split(/\r?\n/);
      const line = lines.findIndex((l) => l.includes('Inconsistent receive_count'));
      assert.ok(line >= 0);
      hover = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line, character: lines[line]!.indexOf('Inconsistent receive_count') + 4 } });
    } finally {
      await client.stop();
    }
    return { hover, stderr: client.stderr };
  }
  const files = () => (fs.existsSync(path.join(cacheDir, 'code')) ? fs.readdirSync(path.join(cacheDir, 'code')).filter((f) => f.endsWith('-server.v8')) : []);

  it('the first start writes it at exit, the next uses it: the same answers; a flipped file is written anew; off: none', async () => {
    const first = await session();
    assert.match(first.stderr, /code cache absent/);
    assert.ok(first.hover, 'a hover');
    // (written as the server exits: polled for, not read from its last words on stderr)
    await waitFor('the code cache file', () => files().length === 1, 20_000);
    const second = await session();
    assert.match(second.stderr, /code cache used/);
    assert.deepEqual(second.hover, first.hover);
    // a byte of the payload flipped: not used, the same answers, written again
    const file = path.join(cacheDir, 'code', files()[0]!);
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0x10;
    fs.writeFileSync(file, bytes);
    const third = await session();
    assert.match(third.stderr, /code cache corrupt/);
    assert.deepEqual(third.hover, first.hover);
    await waitFor('the code cache file written anew', () => !fs.readFileSync(file).equals(bytes), 20_000);
    assert.match((await session()).stderr, /code cache used/);
    // ERROR_EXPLAINER_CODE_CACHE=off: nothing read or written
    fs.rmSync(path.join(cacheDir, 'code'), { recursive: true, force: true });
    const off = await session({ ERROR_EXPLAINER_CODE_CACHE: 'off' });
    assert.match(off.stderr, /code cache off/);
    assert.deepEqual(off.hover, first.hover);
    assert.deepEqual(files(), []);
  });
});
