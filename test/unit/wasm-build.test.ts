import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

// The WebAssembly byte scanner is committed as generated code (scanWasm.generated.ts) so that
// builds and tests need no compiler step; this keeps it honest: it must be exactly what
// scripts/build-wasm.mjs builds from server/wasm/scan.ts with the pinned AssemblyScript.
describe('WebAssembly byte scanner build', () => {
  it('the committed module is what the AssemblyScript source compiles to', function () {
    this.timeout(60_000);
    const root = path.resolve(__dirname, '../..');
    const out = execFileSync(process.execPath, [path.join(root, 'scripts/build-wasm.mjs'), '--check'], { cwd: root, encoding: 'utf8' });
    assert.match(out, /up to date/);
  });
});
