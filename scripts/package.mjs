// npm run package: production build (minified, no source maps), then `vsce package` with the
// allowlist .vscodeignore; prints the .vsix path, its size and its file list.
//   node scripts/package.mjs [--out FILE]
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(join(root, 'package.json'), 'utf8')));
const i = process.argv.indexOf('--out');
const out = resolve(i > 0 ? process.argv[i + 1] : join(root, `${pkg.name}-${pkg.version}.vsix`));
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

run(process.execPath, ['esbuild.mjs', '--production']);
for (const f of ['dist/extension.js', 'dist/server.js', 'dist/server-main.js', 'dist/cli.js', 'dist/cli-main.js']) {
  if (!existsSync(join(root, f))) throw new Error(`${f} was not built`);
}
const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
// --no-dependencies: everything is bundled by esbuild. --allow-missing-repository /
// --skip-license: no prompts in CI (the LICENSE file is still included).
// --no-rewrite-relative-links: the README's screenshot ships in the package (.vscodeignore) and
// stays a relative link, which VS Code resolves inside the installed extension; vsce would
// otherwise need a public repository URL to rewrite it (and fail without one).
run(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--no-rewrite-relative-links', '--out', out]);
const listing = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: root, encoding: 'utf8' });
const kb = (statSync(out).size / 1024).toFixed(1);
console.log(`\n${out}\nsize: ${kb} KiB\nfiles:\n${listing.trim().replace(/^/gm, '  ')}`);
