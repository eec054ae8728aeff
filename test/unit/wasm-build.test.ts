import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

// The WebAssembly modules (the byte scanner, the loader's prose reducer) are committed as generated
// code (scanWasm.generated.ts, proseWasm.generated.ts) so that builds and tests need no compiler
// step; this keeps them honest: each must be exactly what scripts/build-wasm.mjs builds from
// server/wasm/*.ts with the pinned AssemblyScript.
describe('WebAssembly modules build', () => {
  it('the committed modules are what the AssemblyScript sources compile to', function () {
    this.timeout(60_000);
    const root = path.resolve(__dirname, '../..');
    const out = execFileSync(process.execPath, [path.join(root, 'scripts/build-wasm.mjs'), '--check'], { cwd: root, encoding: 'utf8' });
    assert.match(out, /scanWasm\.generated\.ts is up to date/);
    assert.match(out, /proseWasm\.generated\.ts is up to date/);
  });
});
