// Benchmark section "load": loading big record files (issue 11, item 6) against a bare JSON.parse of
// the same file. Files: realistic full records (loadData.ts: real raise sites from
// /usr/lib/python3.11 with the bundled records' prose), 100k records by default, as one compact
// JSON array (ErrLookup's per-repository layout), as JSON Lines, as gzip JSON Lines, and as the
// 2-space-indented array `extract` writes.
//
// Every measurement runs in a fresh child process (a plain-node bundle, as the CLI and the server
// run), so its peak RSS (VmHWM) is its own:
//   parse: read the file (gunzip a .gz), decode it, JSON.parse it (JSON Lines: each line)
//   load:  loader.loadRecordsFromPath(file) (lenient, as for a user's records): read, decompress,
//          split, parse, validate, positions, duplicate ids
// Passes alternate (BENCH_REPS, default 2); the best time of each kind counts, the ratio is
// load / parse of the same file. Targets: at 100k records, load <= 2x parse and peak RSS <= 400 MB.
//   BENCH_SECTIONS=load npm run bench        BENCH_LOAD_RECORDS=100000  BENCH_REPS=2
//   npx tsx test/bench/load.ts               (this section alone)
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createGzip } from 'node:zlib';
import { loadMaterial, makeRecordFile, type LoadFormat, type MadeFile } from './loadData';
import type { BenchContext, Section } from './section';

const MB = 1e6;

interface Measured {
  ms: number;
  /** CPU time (user + system, every thread) of the step. */
  cpuMs: number;
  peakRssMB: number;
  records?: number;
  problems?: number;
}

/** Peak resident set size of this process (VmHWM), in MB. */
function peakRssMB(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) / 1024;
  } catch {
    // not Linux
  }
  return process.memoryUsage.rss() / 1048576;
}

function cpuSince(c0: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(c0);
  return (d.user + d.system) / 1000;
}

// -- child phases ---------------------------------------------------------------------------------

async function phaseParse(file: string): Promise<Measured> {
  const zlib = await import('node:zlib');
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let bytes = fs.readFileSync(file);
  if (file.endsWith('.gz')) bytes = zlib.gunzipSync(bytes);
  const text = bytes.toString('utf8');
  let n = 0;
  if (/\.jsonl(\.gz)?$/.test(file)) {
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      if (end > start) {
        JSON.parse(text.slice(start, end));
        n++;
      }
      start = end + 1;
    }
  } else n = (JSON.parse(text) as unknown[]).length;
  const ms = performance.now() - t0;
  return { ms, cpuMs: cpuSince(c0), peakRssMB: peakRssMB(), records: n };
}

async function phaseLoad(file: string): Promise<Measured> {
  const { loadRecordsFromPath } = await import('../../server/src/core/load');
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await loadRecordsFromPath(file, { strict: false });
  const ms = performance.now() - t0;
  return { ms, cpuMs: cpuSince(c0), peakRssMB: peakRssMB(), records: r.records.length, problems: r.problems.length };
}

// -- parent ---------------------------------------------------------------------------------------

/** The child bundle (jsonc-parser's ESM entry; see esbuild.mjs). */
function childScript(root: string): string {
  const out = path.join(root, '.bench', 'load-child.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof import('esbuild');
  esbuild.buildSync({
    entryPoints: [path.join(root, 'test', 'bench', 'load.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    mainFields: ['module', 'main'],
    external: ['vscode', 'esbuild'],
    logLevel: 'warning',
  });
  return out;
}

function child(script: string, phase: 'parse' | 'load', file: string): Measured {
  const r = spawnSync(process.execPath, [script, '--phase', phase, file], { encoding: 'utf8', maxBuffer: 16 << 20 });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !line.startsWith('{')) throw new Error(`load bench: ${phase} ${file} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return JSON.parse(line) as Measured;
}

async function gzipFile(src: string, dest: string): Promise<void> {
  if (fs.existsSync(dest) && fs.statSync(dest).mtimeMs >= fs.statSync(src).mtimeMs) return;
  await new Promise<void>((resolve, reject) => {
    const out = fs.createWriteStream(dest);
    out.on('finish', () => resolve());
    out.on('error', reject);
    fs.createReadStream(src).pipe(createGzip({ level: 6 })).pipe(out);
  });
}

export const section: Section = {
  name: 'load',
  async run(ctx: BenchContext) {
    const n = Number(ctx.env.BENCH_LOAD_RECORDS ?? 100000);
    const reps = Math.max(1, Number(ctx.env.BENCH_REPS ?? 2));
    const dir = path.join(ctx.benchDir, 'load');
    const m = loadMaterial(ctx.root);
    ctx.log(`  load: ${m.sitesFrom}; prose from ${m.prose.length} bundled records`);
    const k = n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
    const files: (MadeFile & { label: string })[] = [];
    const make = (format: LoadFormat, ext: string, label: string): MadeFile & { label: string } => {
      const f = makeRecordFile(m, path.join(dir, `records-${k}${ext}`), n, 'mixed', format);
      return { ...f, label };
    };
    files.push(make('json', '.json', 'JSON array (compact, ErrLookup layout)'));
    const jsonl = make('jsonl', '.jsonl', 'JSON Lines');
    files.push(jsonl);
    const gz = `${jsonl.file}.gz`;
    await gzipFile(jsonl.file, gz);
    files.push({ file: gz, records: n, bytes: fs.statSync(gz).size, label: 'JSON Lines, gzip' });
    files.push(make('pretty', '.pretty.json', 'JSON array, 2-space indent (as `extract` writes)'));
    const script = childScript(ctx.root);

    let md = `### Loading record files (${n.toLocaleString('en-US')} realistic full records; Node ${process.version}, ${require('node:os').cpus().length} cores)\n\n`;
    md += `Records: ${m.sitesFrom}, with every field filled (prose from the bundled records, 3–11-line source windows), all valid; lenient rules (user records). Best of ${reps} passes (time and CPU time: user + system of every thread), each in a fresh process; peak RSS = the highest VmHWM. Load average at the start: ${require('node:os').loadavg()[0].toFixed(1)}.\n\n`;
    md += '| file | size | bare JSON.parse (peak RSS) | loader (peak RSS) | **ratio** (load / parse) | records / problems |\n|---|---:|---:|---:|---:|---:|\n';
    for (const f of files) {
      let parse: Measured | undefined;
      let load: Measured | undefined;
      const best = (a: Measured | undefined, b: Measured): Measured =>
        a ? { ...b, ms: Math.min(a.ms, b.ms), cpuMs: Math.min(a.cpuMs, b.cpuMs), peakRssMB: Math.max(a.peakRssMB, b.peakRssMB) } : b;
      for (let r = 0; r < reps; r++) {
        parse = best(parse, child(script, 'parse', f.file));
        load = best(load, child(script, 'load', f.file));
      }
      const ratio = load!.ms / parse!.ms;
      const cpuRatio = load!.cpuMs / parse!.cpuMs;
      const s = (x: Measured): string => `${(x.ms / 1000).toFixed(2)} s, CPU ${(x.cpuMs / 1000).toFixed(2)} s (${x.peakRssMB.toFixed(0)} MB)`;
      ctx.log(`  ${f.label}: ${(f.bytes / MB).toFixed(0)} MB; JSON.parse ${s(parse!)}; load ${s(load!)}; ratio ${ratio.toFixed(2)} (CPU ${cpuRatio.toFixed(2)}); ${load!.records} records, ${load!.problems} problems`);
      md += `| ${f.label} | ${(f.bytes / MB).toFixed(0)} MB | ${s(parse!)} | ${s(load!)} | **${ratio.toFixed(2)}** (CPU ${cpuRatio.toFixed(2)}) | ${load!.records} / ${load!.problems} |\n`;
      if (f === files[0] && n >= 100000) {
        ctx.target(`load ${k} full records <= 2x JSON.parse of the file (${f.label})`, ratio <= 2, `${ratio.toFixed(2)} (${(load!.ms / 1000).toFixed(2)} s vs ${(parse!.ms / 1000).toFixed(2)} s)`);
        ctx.target(`load ${k} full records: peak RSS <= 400 MB`, load!.peakRssMB <= 400, `${load!.peakRssMB.toFixed(0)} MB (JSON.parse alone: ${parse!.peakRssMB.toFixed(0)} MB)`);
      }
      if (load!.records !== n || load!.problems !== 0) ctx.target(`load ${f.label}: every record, no problem`, false, `${load!.records} records, ${load!.problems} problems`);
    }
    ctx.markdown(md);
  },
};

if (require.main === module) {
  const i = process.argv.indexOf('--phase');
  if (i > 0) {
    const [phase, file] = process.argv.slice(i + 1) as [string, string];
    (phase === 'parse' ? phaseParse(file) : phaseLoad(file)).then(
      (r) => process.stdout.write(JSON.stringify(r) + '\n'),
      (e) => {
        process.stderr.write(String((e as Error).stack) + '\n');
        process.exit(1);
      },
    );
  } else {
    const root = path.resolve(__dirname, '..', '..');
    const benchDir = path.join(root, '.bench');
    fs.mkdirSync(benchDir, { recursive: true });
    const md: string[] = [];
    const targets: string[] = [];
    void section
      .run({ root, benchDir, env: process.env, log: (l) => console.log(l), markdown: (t) => md.push(t), target: (nm, ok, d) => targets.push(`| ${nm} | ${ok ? 'PASS' : 'FAIL'} | ${d} |`) })
      .then(() => console.log('\n' + md.join('\n') + '\n| target | result | measured |\n|---|---|---|\n' + targets.join('\n')));
  }
}
