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
// The web build (a `browser` entry: vscode.dev, github.dev, web-worker extension hosts): the
// client in the web extension host, the server in a Web Worker. Node's modules resolve to the
// shims in server/src/web/shims (path: path-browserify); a name a shim lacks is a build error.
const shim = (name) => `./server/src/web/shims/${name}.ts`;
const web = {
  ...common,
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
  mainFields: ['browser', 'module', 'main'],
  alias: {
    'node:path': 'path-browserify',
    path: 'path-browserify',
    'node:fs': shim('fs'),
    'node:zlib': shim('zlib'),
    'node:http': shim('nodeOnly'),
    'node:https': shim('nodeOnly'),
    'node:stream': shim('nodeOnly'),
    'node:string_decoder': shim('stringDecoder'),
    'node:crypto': shim('crypto'),
    'node:url': shim('url'),
    'node:buffer': shim('buffer'),
    'node:os': shim('os'),
    'node:v8': shim('v8'),
  },
  inject: [shim('globals')],
  logOverride: { 'import-is-undefined': 'error' },
};
const webEntries = [
  { in: 'client/src/web.ts', out: 'dist/web/extension.js', format: 'cjs' },
  { in: 'server/src/web/main.ts', out: 'dist/web/server.js' },
];
const entries = [
  { in: 'client/src/node.ts', out: 'dist/extension.js' },
  // the language server: a launcher that runs its bundle through V8's code cache (server/launch.ts)
  { in: 'server/src/server/launch.ts', out: 'dist/server.js' },
  { in: 'server/src/server/main.ts', out: 'dist/server-main.js' },
  // the command: a small launcher that runs the CLI's bundle through V8's code cache (cli/launch.ts)
  { in: 'server/src/cli/launch.ts', out: 'dist/cli.js', banner: '#!/usr/bin/env node' },
  { in: 'server/src/cli/main.ts', out: 'dist/cli-main.js' },
  { in: 'test/bench/bench.ts', out: 'dist/bench.js', dev: true },
];
await Promise.all([
  ...webEntries
    .filter((e) => existsSync(e.in))
    .map((e) => esbuild.build({ ...web, entryPoints: [e.in], outfile: e.out, ...(e.format ? { format: e.format } : {}) })),
  ...entries
    .filter((e) => existsSync(e.in) && !(production && e.dev))
    .map((e) =>
      esbuild.build({
        ...common,
        entryPoints: [e.in],
        outfile: e.out,
        ...(e.banner ? { banner: { js: e.banner } } : {}),
      }),
    ),
]);
