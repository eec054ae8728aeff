// Benchmark section "dataset": the whole ErrLookup index (500k rows by default) selected.
//   1. generate a synthetic dataset in ErrLookup's layout (.bench/dataset/data/: index.json.gz,
//      manifest.json, repos.json) with realistic messages (gen.ts);
//   2. child process: `sync` from a file: URL into a fresh cache (stream-gunzip -> prepared form), peak RSS;
//   3. child process (a fresh "server start"): load the prepared form (yielding), build the Catalog
//      and its engine, match lines; reports time, the longest event-loop stall and RSS at each step.
// Run: npm run bench (BENCH_SECTIONS=dataset), or alone: npx tsx test/bench/dataset.ts
//   BENCH_DATASET_ROWS=500000  BENCH_DATASET_REPOS=1400
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createGzip } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { Catalog } from '../../server/src/core/catalog';
import { loadDatasetRecords } from '../../server/src/core/dataset';
import { DatasetStore } from '../../server/src/core/dataset/store';
import { generateRecords, instantiate, rng } from './gen';
import type { BenchContext, Section } from './section';

const CLASSES = ['ValueError', 'RuntimeError', 'TypeError', 'KeyError', 'Error', 'IOError', 'AssertionError', 'HTTPException', null];
const TAGS = ['network', 'config', 'auth', 'io', 'validation', 'database', 'gpu', 'memory', 'timeout', 'parse'];

interface Layout {
  dataDir: string;
  rows: number;
  repos: number;
  gzBytes: number;
  rawBytes: number;
  genMs: number;
}

async function writeDataset(root: string, rows: number, repoCount: number, log: (s: string) => void): Promise<Layout> {
  const dataDir = path.join(root, 'data');
  const stamp = path.join(root, `stamp-${rows}-${repoCount}.json`);
  if (fs.existsSync(stamp)) return JSON.parse(fs.readFileSync(stamp, 'utf8')) as Layout;
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  const t0 = Date.now();
  const recs = generateRecords(rows, 11);
  log(`  generated ${rows} messages in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const perRepo = Math.ceil(rows / repoCount);
  const repoName = (k: number): string => `owner${Math.floor(k / 3)}/project-${k}`;
  const datasetVersion = '2026-11-29T00:00:00.000Z';
  const gz = createGzip({ level: 6 });
  const gzFile = path.join(dataDir, 'index.json.gz');
  const outStream = fs.createWriteStream(gzFile);
  gz.pipe(outStream);
  const rawHash = createHash('sha256');
  let rawBytes = 0;
  const write = async (s: string): Promise<void> => {
    rawHash.update(s);
    rawBytes += Buffer.byteLength(s);
    if (!gz.write(s)) await new Promise<void>((r) => gz.once('drain', () => r()));
  };
  await write(`{"schemaVersion":2,"datasetVersion":"${datasetVersion}","errors":[`);
  let batch: string[] = [];
  for (let i = 0; i < rows; i++) {
    const g = recs[i]!;
    const r = rng(i + 99);
    const cls = CLASSES[Math.floor(r() * CLASSES.length)] ?? null;
    const slug = g.message.slice(0, 50).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
    const tags = [TAGS[Math.floor(r() * TAGS.length)]!, TAGS[Math.floor(r() * TAGS.length)]!].filter((t, k, a) => a.indexOf(t) === k);
    batch.push(JSON.stringify({ id: g.id, repo: repoName(Math.floor(i / perRepo)), slug, code: g.errorCode, msg: g.message, pattern: g.pattern, type: 'exception', cls, tags, sev: 'error' }));
    if (batch.length === 5000) {
      await write((i + 1 > 5000 ? ',' : '') + batch.join(','));
      batch = [];
    }
  }
  if (batch.length) await write((rows > batch.length ? ',' : '') + batch.join(','));
  await write(']}');
  gz.end();
  await new Promise<void>((r) => outStream.on('close', () => r()));
  const gzBuf = fs.readFileSync(gzFile);
  const repos = Array.from({ length: Math.ceil(rows / perRepo) }, (_, k) => ({
    repo: repoName(k), description: null, language: 'Python', stars: 1000 - (k % 1000), sourceFiles: 100, defaultBranch: 'main',
    analyzedSha: null, analyzedAt: null, errorCount: Math.min(perRepo, rows - k * perRepo),
  }));
  const reposStr = JSON.stringify(repos);
  fs.writeFileSync(path.join(dataDir, 'repos.json'), reposStr);
  const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
  const manifest = {
    schemaVersion: 2, datasetVersion, counts: { repos: repos.length, errors: rows },
    files: {
      index: { path: '/data/index.json.gz', bytes: gzBuf.length, sha256: sha(gzBuf), encoding: 'gzip', rawBytes, rawSha256: rawHash.digest('hex') },
      repos: { path: '/data/repos.json', bytes: Buffer.byteLength(reposStr), sha256: sha(reposStr) },
    },
  };
  fs.writeFileSync(path.join(dataDir, 'manifest.json'), JSON.stringify(manifest));
  // a sample of log lines produced by these messages, for the match step
  const sample: string[] = [];
  for (let k = 0; k < 2000; k++) {
    const g = recs[Math.floor(rng(k + 5)() * rows)]!;
    sample.push(`2026-11-29 12:00:00 ERROR worker: ${instantiate(rng(k + 7), g.message)}`);
  }
  fs.writeFileSync(path.join(root, 'sample.log'), sample.join('\n') + '\n');
  const layout: Layout = { dataDir, rows, repos: repos.length, gzBytes: gzBuf.length, rawBytes, genMs: Date.now() - t0 };
  fs.writeFileSync(stamp, JSON.stringify(layout));
  return layout;
}

// -- child phases -------------------------------------------------------------------------------

const MB = 1024 * 1024;
const rss = (): number => process.memoryUsage().rss / MB;

/** Longest gap between 5 ms ticks while `fn` runs (what a hover request would wait at most). */
async function withStallMonitor<T>(fn: () => Promise<T> | T): Promise<{ value: T; ms: number; maxStallMs: number }> {
  let last = performance.now();
  let maxStall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxStall = Math.max(maxStall, now - last);
    last = now;
  }, 5);
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 10));
  clearInterval(timer);
  maxStall = Math.max(maxStall, performance.now() - last);
  return { value, ms, maxStallMs: maxStall };
}

async function phaseSync(root: string, cache: string): Promise<object> {
  fs.rmSync(cache, { recursive: true, force: true });
  const store = new DatasetStore({ cacheDir: cache, url: pathToFileURL(root).toString() });
  const r = await withStallMonitor(() => store.sync({ force: true, optIn: true }));
  if (r.value.status !== 'updated') throw new Error(`sync: ${r.value.status} ${r.value.reason ?? ''}`);
  const rowsFile = fs.readdirSync(path.join(cache, 'v')).map((d) => path.join(cache, 'v', d, 'index.rows'))[0]!;
  return { syncMs: r.ms, syncMaxStallMs: r.maxStallMs, syncPeakRssMB: process.resourceUsage().maxRSS / 1024, preparedMB: fs.statSync(rowsFile).size / MB };
}

async function phaseLoad(root: string, cache: string): Promise<object> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const rss0 = rss();
  const load = await withStallMonitor(() => loadDatasetRecords(cache, { repos: ['*'] }));
  gc?.();
  const rssRecords = rss();
  const heapRecords = process.memoryUsage().heapUsed / MB;
  const cat = await withStallMonitor(() => new Catalog(load.value));
  const eng = await withStallMonitor(() => cat.value.engine.size);
  gc?.();
  const rssEngine = rss();
  const heapEngine = process.memoryUsage().heapUsed / MB;
  const lines = fs.readFileSync(path.join(root, 'sample.log'), 'utf8').split('\n').filter(Boolean);
  let found = 0;
  const t = performance.now();
  for (const l of lines) if (cat.value.matchLine(l).length) found++;
  const perLineUs = ((performance.now() - t) * 1000) / lines.length;
  // a small selection (10 repositories): what most users load
  const sel = await withStallMonitor(() => loadDatasetRecords(cache, { repos: Array.from({ length: 10 }, (_, k) => `owner${k}/project-${k * 3}`) }));
  return {
    records: load.value.length,
    rssBaseMB: rss0,
    loadMs: load.ms,
    loadMaxStallMs: load.maxStallMs,
    rssRecordsMB: rssRecords,
    heapRecordsMB: heapRecords,
    catalogMs: cat.ms,
    engineMs: eng.ms,
    engineSize: eng.value,
    rssEngineMB: rssEngine,
    heapEngineMB: heapEngine,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    matchedSampleLines: `${found}/${lines.length}`,
    perLineUs,
    selection10: { records: sel.value.length, ms: sel.ms },
  };
}

function child(phase: string, root: string, cache: string): Record<string, number | string | object> {
  const args = [...process.execArgv, '--expose-gc', __filename, '--phase', phase, root, cache];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 16 << 20 });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !line.startsWith('{')) throw new Error(`phase ${phase} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return JSON.parse(line) as Record<string, number | string | object>;
}

// -- section --------------------------------------------------------------------------------------

export const section: Section = {
  name: 'dataset',
  async run(ctx: BenchContext) {
    const rows = Number(ctx.env.BENCH_DATASET_ROWS ?? 500000);
    const repos = Number(ctx.env.BENCH_DATASET_REPOS ?? 1400);
    const root = path.join(ctx.benchDir, 'dataset');
    const cache = path.join(ctx.benchDir, 'dataset-cache');
    const layout = await writeDataset(root, rows, repos, ctx.log);
    ctx.log(`  dataset: ${rows} rows, ${layout.repos} repos, index ${(layout.gzBytes / MB).toFixed(1)} MB gzip / ${(layout.rawBytes / MB).toFixed(1)} MB JSON`);
    const s = child('sync', root, cache) as Record<string, number>;
    ctx.log(`  sync: ${(s.syncMs! / 1000).toFixed(1)} s, longest stall ${s.syncMaxStallMs!.toFixed(0)} ms, peak RSS ${s.syncPeakRssMB!.toFixed(0)} MB, prepared ${s.preparedMB!.toFixed(0)} MB`);
    const l = child('load', root, cache) as Record<string, number> & { selection10: { records: number; ms: number }; matchedSampleLines: string };
    ctx.log(
      `  start-up: load ${l.loadMs!.toFixed(0)} ms (longest stall ${l.loadMaxStallMs!.toFixed(0)} ms), RSS ${l.rssBaseMB!.toFixed(0)} -> ${l.rssRecordsMB!.toFixed(0)} MB with ${l.records} records (heap ${l.heapRecordsMB!.toFixed(0)} MB); ` +
        `Catalog ${l.catalogMs!.toFixed(0)} ms + engine ${l.engineMs!.toFixed(0)} ms (blocking), RSS ${l.rssEngineMB!.toFixed(0)} MB (heap ${l.heapEngineMB!.toFixed(0)} MB), peak ${l.peakRssMB!.toFixed(0)} MB; ` +
        `match ${l.perLineUs!.toFixed(1)} µs/line, ${l.matchedSampleLines}; 10 repos: ${l.selection10.records} records in ${l.selection10.ms.toFixed(0)} ms`,
    );
    let md = `### Dataset (${rows.toLocaleString('en-US')} index rows, ${layout.repos} repositories; index ${(layout.gzBytes / MB).toFixed(0)} MB gzip / ${(layout.rawBytes / MB).toFixed(0)} MB JSON)\n\n`;
    md += '| step | time | longest event-loop stall | memory |\n|---|---:|---:|---:|\n';
    md += `| sync (verify, stream-gunzip, prepare) | ${(s.syncMs! / 1000).toFixed(1)} s | ${s.syncMaxStallMs!.toFixed(0)} ms | peak RSS ${s.syncPeakRssMB!.toFixed(0)} MB |\n`;
    md += `| start-up: load prepared form (all rows) | ${l.loadMs!.toFixed(0)} ms | ${l.loadMaxStallMs!.toFixed(0)} ms | RSS ${l.rssRecordsMB!.toFixed(0)} MB (heap ${l.heapRecordsMB!.toFixed(0)} MB) |\n`;
    md += `| new Catalog(records) | ${l.catalogMs!.toFixed(0)} ms | ${l.catalogMs!.toFixed(0)} ms (synchronous) | |\n`;
    md += `| catalog.engine (MatchEngine.build) | ${l.engineMs!.toFixed(0)} ms | ${l.engineMs!.toFixed(0)} ms (synchronous) | RSS ${l.rssEngineMB!.toFixed(0)} MB (heap ${l.heapEngineMB!.toFixed(0)} MB), peak ${l.peakRssMB!.toFixed(0)} MB |\n`;
    md += `| matchLine (sample of real-shaped lines) | ${l.perLineUs!.toFixed(1)} µs/line | | ${l.matchedSampleLines} matched |\n`;
    md += `| load 10 selected repositories | ${l.selection10.ms.toFixed(0)} ms | | ${l.selection10.records} records |\n`;
    ctx.markdown(md);
    ctx.target('dataset: memory <= 400 MB with the whole index', l.rssEngineMB! <= 400, `${l.rssEngineMB!.toFixed(0)} MB RSS (peak ${l.peakRssMB!.toFixed(0)} MB)`);
    ctx.target('dataset: loading the prepared form never stalls > 1 s', l.loadMaxStallMs! <= 1000, `${l.loadMaxStallMs!.toFixed(0)} ms`);
    ctx.target('dataset: Catalog + engine build stalls <= 1 s', l.catalogMs! + l.engineMs! <= 1000, `${(l.catalogMs! + l.engineMs!).toFixed(0)} ms`);
    ctx.target('dataset: sync never stalls > 1 s', s.syncMaxStallMs! <= 1000, `${s.syncMaxStallMs!.toFixed(0)} ms`);
  },
};

if (require.main === module) {
  const i = process.argv.indexOf('--phase');
  if (i > 0) {
    const [phase, root, cache] = process.argv.slice(i + 1) as [string, string, string];
    (phase === 'sync' ? phaseSync(root, cache) : phaseLoad(root, cache)).then(
      (r) => process.stdout.write(JSON.stringify(r) + '\n'),
      (e) => {
        process.stderr.write(String((e as Error).stack) + '\n');
        process.exit(1);
      },
    );
  } else {
    const benchDir = path.resolve(__dirname, '..', '..', '.bench');
    fs.mkdirSync(benchDir, { recursive: true });
    const md: string[] = [];
    const targets: string[] = [];
    section
      .run({
        root: path.resolve(__dirname, '..', '..'),
        benchDir,
        env: process.env,
        log: (l) => console.log(l),
        markdown: (t) => md.push(t),
        target: (n, ok, d) => targets.push(`| ${n} | ${ok ? 'PASS' : 'FAIL'} | ${d} |`),
      })
      .then(() => console.log('\n' + md.join('\n') + '\n| target | result | measured |\n|---|---|---|\n' + targets.join('\n')));
  }
}
