// Bundles the end-to-end suites (test/e2e/suite-*.ts) into out/e2e/*.js for the extension host.
// `vscode` and `mocha` stay external: the extension host provides the first, node_modules the second.
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const suites = readdirSync(here).filter((f) => /^suite-.*\.ts$/.test(f));
await esbuild.build({
  entryPoints: suites.map((f) => join(here, f)),
  outdir: join(here, '..', '..', 'out', 'e2e'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'inline',
  external: ['vscode', 'mocha'],
  logLevel: 'warning',
});
console.log(`bundled ${suites.length} e2e suites into out/e2e/`);
