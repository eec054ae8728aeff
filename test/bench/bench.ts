// `npm run bench`: runs every benchmark section in one process and prints one report.
//   BENCH_SECTIONS=engine,lsp  choose sections (default: all present)
//   engine knobs: BENCH_SIZES=1000,10000 BENCH_MB=20 BENCH_SAMPLE=20000 BENCH_SEED=7
// Sections: the engine (./engine.ts) always; test/bench/lsp.ts, dataset.ts, load.ts, logscan.ts when those files exist (bundled on
// the fly with esbuild, so bench.ts does not depend on it). Results: stdout and .bench/results.md.
// Exit code 1 when a section reports a failed target.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { engineSection } from './engine';
import { section as realSection } from './real';
import type { BenchContext, Section } from './section';

const root = path.resolve(__dirname, '..');
const benchDir = path.join(root, '.bench');

/** A section in an optional file: bundled with esbuild into dist/ and loaded if the file exists. */
async function optionalSection(name: string, file: string): Promise<Section | undefined> {
  const src = path.join(root, 'test/bench', file);
  if (!fs.existsSync(src)) return undefined;
  const req = createRequire(__filename);
  const esbuild = req('esbuild') as typeof import('esbuild');
  const out = path.join(root, 'dist', `bench-${name}.js`);
  // (mainFields as in esbuild.mjs: jsonc-parser's UMD main does not bundle)
  await esbuild.build({ entryPoints: [src], outfile: out, bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode', 'esbuild'], mainFields: ['module', 'main'], logLevel: 'warning' });
  const mod = req(out) as { section?: Section; run?: Section['run'] };
  if (mod.section) return mod.section;
  if (mod.run) return { name, run: mod.run };
  throw new Error(`${file} exports neither section nor run`);
}

async function main(): Promise<void> {
  fs.mkdirSync(benchDir, { recursive: true });
  const md: string[] = [];
  const targets: { name: string; ok: boolean; detail: string }[] = [];
  const ctx: BenchContext = {
    root,
    benchDir,
    env: process.env,
    log: (l) => console.log(l),
    markdown: (t) => md.push(t),
    target: (name, ok, detail) => targets.push({ name, ok, detail }),
  };
  const sections: Section[] = [engineSection, realSection];
  const lsp = await optionalSection('lsp', 'lsp.ts');
  if (lsp) sections.push(lsp);
  const dataset = await optionalSection('dataset', 'dataset.ts');
  if (dataset) sections.push(dataset);
  const load = await optionalSection('load', 'load.ts');
  if (load) sections.push(load);
  const logscan = await optionalSection('logscan', 'logscan.ts');
  if (logscan) sections.push(logscan);
  const scan = await optionalSection('scan', 'scan.ts');
  if (scan) sections.push(scan);
  const precision = await optionalSection('precision', 'precision.ts');
  if (precision) sections.push(precision);
  const wanted = process.env.BENCH_SECTIONS?.split(',').map((s) => s.trim());
  for (const s of sections) {
    if (wanted && !wanted.includes(s.name)) continue;
    console.log(`\n== ${s.name} ==`);
    await s.run(ctx);
  }
  let report = md.join('\n');
  if (targets.length) {
    report += '\n| target | result | measured |\n|---|---|---|\n';
    for (const t of targets) report += `| ${t.name} | ${t.ok ? 'PASS' : 'FAIL'} | ${t.detail} |\n`;
  }
  fs.writeFileSync(path.join(benchDir, 'results.md'), report);
  console.log('\n' + report);
  if (targets.some((t) => !t.ok)) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
