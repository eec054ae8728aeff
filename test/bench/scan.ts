// Benchmark section "scan": `error-explainer scan` end to end, as CI runs it (issue 11, items 5 and 8):
// a fresh process loads the records, builds (or restores) the index and scans the log. Ratio =
// raw read+split of the same log (this process, the bench reader) / the scan process's wall time.
//
//   cold: no index cache (a fresh cache folder each pass)
//   warm: the cache the previous run wrote (the second scan with the same records)
//
// Records: realistic full records (loadData.ts: real raise sites from /usr/lib/python3.11 with the
// bundled records' prose), BENCH_SCAN_RECORDS (default 100k), one compact JSON array as ErrLookup
// serves them. Log: BENCH_SCAN_MB (default 200) of realistic noise (realgen.ts) with 1 % of lines
// printed from the records. Targets at 100k records on 200 MB: warm >= 0.3, cold >= 0.15.
//   BENCH_SECTIONS=scan npm run bench      BENCH_SCAN_RECORDS=100000 BENCH_SCAN_MB=200 BENCH_REPS=2
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadMaterial, makeRecordFile } from './loadData';
import { fill, generateRealisticLog } from './realgen';
import { forEachLine } from './reader';
import { cachedLog } from './logCache';
import type { BenchContext, Section } from './section';
import { scanOnce } from './cliRun';
import type { ErrorRecord } from '../../server/src/core/record';

const MB = 1e6;

function makeLog(ctx: BenchContext, base: string, records: ErrorRecord[], mb: number): string {
  return cachedLog(ctx, base, (write, truth) =>
    generateRealisticLog(
      {
        bytes: mb * MB,
        matchFraction: 0.01,
        seed: 17,
        printMatch: (r) => {
          const i = Math.floor(r() * records.length);
          return { rec: i, text: fill(r, records[i]!.errorMessage) };
        },
      },
      write,
      truth,
    ),
  ).file;
}


export const section: Section = {
  name: 'scan',
  async run(ctx: BenchContext): Promise<void> {
    const n = Number(ctx.env.BENCH_SCAN_RECORDS ?? 100_000);
    const mb = Number(ctx.env.BENCH_SCAN_MB ?? 200);
    const reps = Math.max(1, Number(ctx.env.BENCH_REPS ?? 2));
    const m = loadMaterial(ctx.root);
    const recFile = makeRecordFile(m, path.join(ctx.benchDir, `scan-records-${n}.json`), n, 'mixed', 'json');
    const records = JSON.parse(fs.readFileSync(recFile.file, 'utf8')) as ErrorRecord[];
    const log = makeLog(ctx, path.join(ctx.benchDir, `scan-v1-${n}-${mb}mb`), records, mb);
    const logBytes = fs.statSync(log).size;
    ctx.log(`scan: ${n} records (${(recFile.bytes / MB).toFixed(0)} MB JSON, ${m.sitesFrom}), log ${(logBytes / MB).toFixed(0)} MB`);

    const cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'ee-bench-cache-'));
    let raw = Infinity;
    let cold = Infinity;
    let warm = Infinity;
    let noCache = Infinity;
    const outs = new Set<string>();
    try {
      for (let rep = 0; rep < reps; rep++) {
        const t0 = process.hrtime.bigint();
        forEachLine(log, () => undefined);
        raw = Math.min(raw, Number(process.hrtime.bigint() - t0) / 1e6);
        const dir = path.join(cacheRoot, `rep${rep}`);
        const c = scanOnce(ctx.root, recFile.file, log, dir);
        cold = Math.min(cold, c.ms);
        const w = scanOnce(ctx.root, recFile.file, log, dir);
        warm = Math.min(warm, w.ms);
        const nc = scanOnce(ctx.root, recFile.file, log, dir, ['--no-cache']);
        noCache = Math.min(noCache, nc.ms);
        outs.add(c.out).add(w.out).add(nc.out);
        ctx.log(`  rep ${rep + 1}: raw ${raw.toFixed(0)} ms, cold ${c.ms.toFixed(0)} ms, warm ${w.ms.toFixed(0)} ms, --no-cache ${nc.ms.toFixed(0)} ms`);
      }
    } finally {
      fs.rmSync(cacheRoot, { recursive: true, force: true });
    }
    const count = JSON.parse([...outs][0]!) as { lines: number; matches: number };
    const same = outs.size === 1;
    const ratio = (ms: number) => (raw / ms).toFixed(2);
    ctx.markdown(
      [
        `### \`scan\` end to end (${n.toLocaleString('en')} records, ${(recFile.bytes / MB).toFixed(0)} MB JSON; ${(logBytes / MB).toFixed(0)} MB log, ${count.matches.toLocaleString('en')} matches in ${count.lines.toLocaleString('en')} lines)`,
        '',
        '| run | wall time | ratio to raw read+split |',
        '|---|---|---|',
        `| raw read+split of the log (bench reader) | ${(raw / 1000).toFixed(2)} s | 1 |`,
        `| scan, cold (no index cache yet: load, build, scan, write the cache) | ${(cold / 1000).toFixed(2)} s | ${ratio(cold)} |`,
        `| scan, warm (the index cache of the run before) | ${(warm / 1000).toFixed(2)} s | ${ratio(warm)} |`,
        `| scan --no-cache | ${(noCache / 1000).toFixed(2)} s | ${ratio(noCache)} |`,
        '',
        `Every run reported the same counts: ${same ? 'yes' : 'NO'}. Best of ${reps} passes each, passes interleaved.`,
        '',
      ].join('\n'),
    );
    ctx.target('scan end to end: the same counts cold, warm and without cache', same, [...outs].join(' / ').slice(0, 300));
    if (n >= 100_000 && mb >= 200) {
      ctx.target('scan end to end, warm cache >= 0.3 (100k records, 200 MB)', raw / warm >= 0.3, ratio(warm));
      ctx.target('scan end to end, cold >= 0.15 (100k records, 200 MB)', raw / cold >= 0.15, ratio(cold));
    }
    if (ctx.env.BENCH_SCAN_REAL !== '0') realMaterial(ctx, reps);
  },
};

/**
 * `scan` on real material only: records `extract` finds on this machine (/usr/lib/python3.11,
 * node_modules) and TypeScript's diagnostics (the fixture set), over this machine's logs and the
 * real tracebacks, Node stacks and tsc output of test/fixtures/real, repeated to BENCH_SCAN_REAL_MB
 * (default 40). Most of its lines are dpkg/apt lines that generic records match (`install`), next
 * to real error blocks: the scan's block windows and scoring, not its key scan, decide the time.
 * No target of its own; warm runs, text and count output.
 */
function realMaterial(ctx: BenchContext, reps: number): void {
  const mb = Number(ctx.env.BENCH_SCAN_REAL_MB ?? 40);
  const cli = path.join(ctx.root, 'dist/cli.js');
  const recordFiles: string[] = [];
  for (const [name, dir] of [
    ['python', '/usr/lib/python3.11'],
    ['node_modules', path.join(ctx.root, 'node_modules')],
  ] as const) {
    if (!fs.existsSync(dir)) continue;
    const out = path.join(ctx.benchDir, `scan-real-${name}.json`);
    const x = spawnSync(process.execPath, [cli, 'extract', dir, '--repo', `local/${name}`, '--out', out], { encoding: 'utf8' });
    if (x.status !== 0) throw new Error(`extract ${dir} failed: ${x.stderr.slice(0, 300)}`);
    recordFiles.push(out);
  }
  recordFiles.push(path.join(ctx.root, 'test/fixtures/real/typescript-records.json'));
  const records = recordFiles.reduce((k, f) => k + (JSON.parse(fs.readFileSync(f, 'utf8')) as unknown[]).length, 0);
  // the log: this machine's logs, then the real traces and logs of the fixtures, over and over
  const fixtures = path.join(ctx.root, 'test/fixtures/real');
  const parts: string[] = [];
  const add = (f: string) => {
    try {
      if (fs.statSync(f).isFile()) parts.push(fs.readFileSync(f, 'utf8'));
    } catch {
      // not on this machine
    }
  };
  for (const f of fs.readdirSync('/var/log').filter((f) => f.endsWith('.log'))) add(path.join('/var/log', f));
  for (const f of fs.readdirSync(fixtures).filter((f) => f.endsWith('.log'))) add(path.join(fixtures, f));
  for (const f of fs.readdirSync(path.join(fixtures, 'unrelated-logs'))) add(path.join(fixtures, 'unrelated-logs', f));
  const base = parts.map((t) => (t.endsWith('\n') ? t : t + '\n')).join('');
  const log = path.join(ctx.benchDir, `scan-real-${mb}mb.log`);
  const fd = fs.openSync(log, 'w');
  for (let written = 0; written < mb * MB; written += Buffer.byteLength(base)) fs.writeSync(fd, base);
  fs.closeSync(fd);
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ee-bench-real-'));
  let raw = Infinity;
  const best: Record<string, number> = { count: Infinity, text: Infinity };
  const outs: Record<string, Set<string>> = { count: new Set(), text: new Set() };
  try {
    scanOnce(ctx.root, recordFiles, log, cacheDir, [], 'text'); // (writes the cache, with the prose text reads)
    for (let rep = 0; rep < Math.max(2, reps); rep++) {
      const t0 = process.hrtime.bigint();
      forEachLine(log, () => undefined);
      raw = Math.min(raw, Number(process.hrtime.bigint() - t0) / 1e6);
      for (const format of ['count', 'text']) {
        const r = scanOnce(ctx.root, recordFiles, log, cacheDir, format === 'text' ? ['--color', 'never'] : [], format);
        best[format] = Math.min(best[format]!, r.ms);
        outs[format]!.add(createHash('sha256').update(r.out).digest('hex'));
      }
    }
  } finally {
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }
  const counts = JSON.parse(scanOnce(ctx.root, recordFiles, log, cacheDir, ['--no-cache']).out) as { lines: number; matches: number; belowConfidence: number };
  const ratio = (ms: number) => (raw / ms).toFixed(2);
  ctx.log(`  real material: ${records} records, ${mb} MB: raw ${raw.toFixed(0)} ms, count ${best.count!.toFixed(0)} ms, text ${best.text!.toFixed(0)} ms`);
  ctx.markdown(
    [
      `### \`scan\` on real material (${records.toLocaleString('en')} records extracted from this machine + TypeScript's diagnostics; ${mb} MB of this machine's logs and real traces: ${counts.matches.toLocaleString('en')} matches and ${counts.belowConfidence.toLocaleString('en')} below confidence in ${counts.lines.toLocaleString('en')} lines)`,
      '',
      '| run (warm index cache) | wall time | ratio to raw read+split |',
      '|---|---|---|',
      `| raw read+split of the log (bench reader) | ${(raw / 1000).toFixed(2)} s | 1 |`,
      `| scan --format count | ${(best.count! / 1000).toFixed(2)} s | ${ratio(best.count!)} |`,
      `| scan --format text (explanations) | ${(best.text! / 1000).toFixed(2)} s | ${ratio(best.text!)} |`,
      '',
      `Best of ${Math.max(2, reps)} passes each, interleaved; every pass of a format gave the same output: ${outs.count!.size === 1 && outs.text!.size === 1 ? 'yes' : 'NO'}.`,
      '',
    ].join('\n'),
  );
  ctx.target('scan on real material: the same output in every pass', outs.count!.size === 1 && outs.text!.size === 1, `${outs.count!.size} / ${outs.text!.size} distinct outputs`);
}

// Also runnable alone: npx tsx test/bench/scan.ts (after npm run build)
if (require.main === module) {
  void (async () => {
    const root = path.resolve(__dirname, '../..');
    const benchDir = path.join(root, '.bench');
    fs.mkdirSync(benchDir, { recursive: true });
    await section.run({ root, benchDir, env: process.env, log: console.log, markdown: console.log, target: (n, ok, d) => console.log(`${ok ? 'OK  ' : 'MISS'} ${n}: ${d}`) });
  })();
}
