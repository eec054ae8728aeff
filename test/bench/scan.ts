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
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadMaterial, makeRecordFile } from './loadData';
import { fill, generateRealisticLog } from './realgen';
import { forEachLine } from './reader';
import { cachedLog } from './logCache';
import type { BenchContext, Section } from './section';
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

interface Run {
  ms: number;
  out: string;
}

function scanOnce(root: string, records: string, log: string, cacheDir: string, extra: string[] = []): Run {
  const t0 = process.hrtime.bigint();
  const p = spawnSync(process.execPath, [path.join(root, 'dist/cli.js'), 'scan', '--format', 'count', '--no-bundled', '--records', records, ...extra, log], {
    encoding: 'utf8',
    env: { ...process.env, ERROR_EXPLAINER_INDEX_CACHE: cacheDir },
    maxBuffer: 64 << 20,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (p.status !== 0) throw new Error(`scan failed (${p.status}): ${p.stderr.slice(0, 500)}`);
  return { ms, out: p.stdout.trim() };
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
  },
};

// Also runnable alone: npx tsx test/bench/scan.ts (after npm run build)
if (require.main === module) {
  void (async () => {
    const root = path.resolve(__dirname, '../..');
    const benchDir = path.join(root, '.bench');
    fs.mkdirSync(benchDir, { recursive: true });
    await section.run({ root, benchDir, env: process.env, log: console.log, markdown: console.log, target: (n, ok, d) => console.log(`${ok ? 'OK  ' : 'MISS'} ${n}: ${d}`) });
  })();
}
