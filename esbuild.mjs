// One build for every entry point: the VS Code client, the language server, the CLI and the
// benchmark. tsc only type-checks (`npm run typecheck`); esbuild bundles.
//   node esbuild.mjs            development build with source maps
//   node esbuild.mjs --production  minified, no source maps (used by `npm run package`)
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';

const production = process.argv.includes('--production');
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  external: ['vscode'],
  // jsonc-parser's "main" is a UMD build with dynamic requires that esbuild cannot follow; its ESM entry bundles.
  mainFields: ['module', 'main'],
};
const entries = [
  { in: 'client/src/extension.ts', out: 'dist/extension.js' },
  { in: 'server/src/server/main.ts', out: 'dist/server.js' },
  { in: 'server/src/cli/main.ts', out: 'dist/cli.js', banner: '#!/usr/bin/env node' },
  { in: 'test/bench/bench.ts', out: 'dist/bench.js', dev: true },
];
await Promise.all(
  entries
    .filter((e) => existsSync(e.in) && !(production && e.dev))
    .map((e) =>
      esbuild.build({
        ...common,
        entryPoints: [e.in],
        outfile: e.out,
        ...(e.banner ? { banner: { js: e.banner } } : {}),
      }),
    ),
);
