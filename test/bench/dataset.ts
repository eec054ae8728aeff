// Benchmark section "dataset": the whole ErrLookup index (500k rows by default) selected.
//   1. generate a synthetic dataset in ErrLookup's layout (.bench/dataset/data/: index.json.gz,
//      manifest.json, repos.json) with realistic messages (gen.ts);
//   2. child process: `sync` from a file: URL into a fresh cache (stream-gunzip -> prepared form), peak RSS;
//   3. child process, a fresh "server start" doing what the language server does: load the
//      bundled records (loadSources) with every dataset row selected (DatasetCatalogs: compact
//      rows + MatchEngine shards built in the background). It reports the time from process start
//      until a line of a bundled record matches (a hover works), hover-like probes and the longest
//      event-loop stall while the dataset builds, the time until every row matches, matching cost
//      per line with all shards, and RSS once everything is ready.
// Children run a plain-node bundle of this file (esbuild), as the server runs: no tsx in their RSS.
// Run: npm run bench (BENCH_SECTIONS=dataset), or alone: npx tsx test/bench/dataset.ts
//   BENCH_DATASET_ROWS=500000  BENCH_DATASET_REPOS=1400
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createGzip } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { Catalog, CompositeCatalog, type RecordMatch } from '../../server/src/core/catalog';
import type { ErrorRecord } from '../../server/src/core/record';
import { DatasetService, loadDatasetRecords } from '../../server/src/core/dataset';
import type { DatasetCatalog } from '../../server/src/core/dataset/datasetCatalog';
import { DatasetStore } from '../../server/src/core/dataset/store';
import { DEFAULT_SETTINGS } from '../../server/src/protocol';
import { DatasetCatalogs } from '../../server/src/server/state/datasetCatalogs';
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

/** The repository root (this file runs from test/bench, dist/ or .bench/). */
const REPO_ROOT = ((): string => {
  let d = __dirname;
  while (!fs.existsSync(path.join(d, 'package.json')) && path.dirname(d) !== d) d = path.dirname(d);
  return d;
})();
const quiet = { log: () => undefined, info: () => undefined, warn: () => undefined, error: (m: string) => process.stderr.write(m + '\n') };

/** What the language server does at start-up with every dataset row selected (see the header). */
async function phaseServer(root: string, cache: string): Promise<object> {
  const gc = (globalThis as { gc?: () => void }).gc;
  // performance.now() counts from process start: boot and module loading are included
  const bootMs = performance.now();
  const rssBoot = rss();
  let last = performance.now();
  let maxStall = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    maxStall = Math.max(maxStall, now - last);
    last = now;
  }, 5);
  let readyAt = 0;
  let ready!: (c: DatasetCatalog) => void;
  const readyP = new Promise<DatasetCatalog>((r) => (ready = r));
  const cats = new DatasetCatalogs(quiet, (c) => {
    readyAt = performance.now();
    ready(c);
  });
  const ds = new DatasetService(cache);
  const settings = { ...DEFAULT_SETTINGS, dataset: { ...DEFAULT_SETTINGS.dataset, url: pathToFileURL(root).toString(), repos: ['*'] } };
  // the bundled records (records/: valid ErrLookup records, read as the loader would give them;
  // the loader itself is left out of this bundle: its jsonc-parser needs esbuild's mainFields)
  const bundledRecords: ErrorRecord[] = [];
  for (const owner of fs.readdirSync(path.join(REPO_ROOT, 'records'))) {
    const dir = path.join(REPO_ROOT, 'records', owner);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const f of fs.readdirSync(dir)) if (f.endsWith('.json')) bundledRecords.push(...(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as ErrorRecord[]));
  }
  const user = new Catalog(bundledRecords);
  void user.engine;
  // what loadSources (server/state/recordSources.ts) builds: the user's Catalog + the dataset's catalog
  const loaded = { catalog: new CompositeCatalog(user, cats.update(ds, settings)?.catalog) };
  const bundled = bundledRecords[0];
  if (!bundled) throw new Error('no bundled record');
  const userLine = `2026-11-29 12:00:00 ERROR server: ${instantiate(rng(3), bundled.errorMessage)}`;
  const isUser = (ms: RecordMatch[]): boolean => ms.some((m) => m.record.id === bundled.id);
  if (!isUser(loaded.catalog.matchLine(userLine))) throw new Error('the bundled record does not match its own line');
  const userReadyMs = performance.now();
  const rssUser = rss();
  // hover-like probes while the dataset builds: how late they run, and that they find the user record
  let probes = 0;
  let probesOk = 0;
  let worstProbeMs = 0;
  let probing = true;
  const probe = (): void => {
    const due = performance.now() + 20;
    setTimeout(() => {
      if (!probing) return;
      const ok = isUser(loaded.catalog.matchLine(userLine));
      worstProbeMs = Math.max(worstProbeMs, performance.now() - due);
      probes++;
      if (ok) probesOk++;
      probe();
    }, 20);
  };
  probe();
  const cat = await readyP;
  probing = false;
  clearInterval(ticker);
  const buildMs = readyAt - userReadyMs;
  const rssReady = rss();
  const mem0 = process.memoryUsage();
  gc?.();
  const mem = process.memoryUsage();
  // matching with every row ready (records read back from index.rows when matched)
  const lines = fs.readFileSync(path.join(root, 'sample.log'), 'utf8').split('\n').filter(Boolean);
  let found = 0;
  let t = performance.now();
  for (const l of lines) if (loaded.catalog.matchLine(l).some((m) => m.record.repo !== bundled.repo)) found++;
  const perLineUs = ((performance.now() - t) * 1000) / lines.length;
  const misses = Array.from({ length: 5000 }, (_, k) => `2026-11-29 12:00:${String(k % 60).padStart(2, '0')} INFO worker-${k % 7}: request ${k} served in ${k % 97} ms from cache shard ${k % 13} (hit ratio 0.${k % 10})`);
  t = performance.now();
  for (const l of misses) loaded.catalog.matchLine(l);
  const missUs = ((performance.now() - t) * 1000) / misses.length;
  t = performance.now();
  const hits = loaded.catalog.search(lines[7]!.slice(lines[7]!.indexOf(': ') + 2), 20);
  const searchMs = performance.now() - t;
  const rssEnd = rss();
  // a small selection (10 repositories): what most users load (as LiteRecords, the CLI's way)
  const sel = await withStallMonitor(() => loadDatasetRecords(cache, { repos: Array.from({ length: 10 }, (_, k) => `owner${k}/project-${k * 3}`) }));
  cats.dispose();
  return {
    rows: cat.rows.count,
    shards: cat.stats.shards,
    maxShardMs: cat.stats.maxShardMs,
    maxSliceMs: cat.stats.maxSliceMs,
    bootMs,
    rssBootMB: rssBoot,
    userReadyMs,
    rssUserMB: rssUser,
    buildMs,
    readyMs: readyAt,
    maxStallMs: maxStall,
    probes,
    probesOk,
    worstProbeMs,
    rssReadyMB: rssReady,
    heapReadyMB: mem0.heapUsed / MB,
    rssGcMB: mem.rss / MB,
    heapGcMB: mem.heapUsed / MB,
    arrayBuffersMB: mem.arrayBuffers / MB,
    rowColumnsMB: cat.rows.bytes / MB,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    matchedSampleLines: `${found}/${lines.length}`,
    found,
    sampleLines: lines.length,
    perLineUs,
    missUs,
    searchMs,
    searchTop: hits[0]?.kind ?? 'none',
    rssEndMB: rssEnd,
    selection10: { records: sel.value.length, ms: sel.ms },
  };
}

/** Children run a plain-node bundle (no tsx loader in their memory), as the server does. */
function childScript(): string {
  if (!__filename.endsWith('.ts')) return __filename;
  const out = path.join(REPO_ROOT, '.bench', 'dataset-child.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof import('esbuild');
  esbuild.buildSync({ entryPoints: [__filename], outfile: out, bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode', 'esbuild'], logLevel: 'warning' });
  return out;
}

function child(phase: string, root: string, cache: string): Record<string, number | string | object> {
  const args = ['--expose-gc', childScript(), '--phase', phase, root, cache];
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
    const l = child('server', root, cache) as Record<string, number> & { selection10: { records: number; ms: number }; matchedSampleLines: string; searchTop: string };
    const f0 = (x: number): string => x.toFixed(0);
    ctx.log(
      `  server start-up: user-record hovers after ${f0(l.userReadyMs!)} ms (process start; boot ${f0(l.bootMs!)} ms), RSS ${f0(l.rssUserMB!)} MB; ` +
        `dataset ${l.rows} rows matchable after ${(l.readyMs! / 1000).toFixed(1)} s (${(l.buildMs! / 1000).toFixed(1)} s in the background, ${l.shards} shards, longest shard build ${f0(l.maxShardMs!)} ms, longest read slice ${f0(l.maxSliceMs!)} ms); ` +
        `longest event-loop stall ${f0(l.maxStallMs!)} ms; ${l.probesOk}/${l.probes} hover probes found the user record, latest ${f0(l.worstProbeMs!)} ms late`,
    );
    ctx.log(
      `  ready: RSS ${f0(l.rssReadyMB!)} MB (heap ${f0(l.heapReadyMB!)} MB), after GC ${f0(l.rssGcMB!)} MB (heap ${f0(l.heapGcMB!)} MB, array buffers ${f0(l.arrayBuffersMB!)} MB, row columns ${f0(l.rowColumnsMB!)} MB), peak ${f0(l.peakRssMB!)} MB; ` +
        `match ${l.perLineUs!.toFixed(1)} µs/line (${l.matchedSampleLines} dataset lines), ${l.missUs!.toFixed(1)} µs/line without a match; search ${l.searchMs!.toFixed(1)} ms (top: ${l.searchTop}); RSS ${f0(l.rssEndMB!)} MB at the end; ` +
        `10 repos: ${l.selection10.records} records in ${f0(l.selection10.ms)} ms`,
    );
    let md = `### Dataset (${rows.toLocaleString('en-US')} index rows, ${layout.repos} repositories; index ${(layout.gzBytes / MB).toFixed(0)} MB gzip / ${(layout.rawBytes / MB).toFixed(0)} MB JSON)\n\n`;
    md += '| step | time | longest event-loop stall | memory |\n|---|---:|---:|---:|\n';
    md += `| sync (verify, stream-gunzip, prepare) | ${(s.syncMs! / 1000).toFixed(1)} s | ${f0(s.syncMaxStallMs!)} ms | peak RSS ${f0(s.syncPeakRssMB!)} MB |\n`;
    md += `| server start-up until a bundled record's line matches (from process start) | ${f0(l.userReadyMs!)} ms | | RSS ${f0(l.rssUserMB!)} MB |\n`;
    md += `| dataset in the background: compact rows + ${l.shards} MatchEngine shards, until all ${l.rows!.toLocaleString('en-US')} rows match | ${(l.buildMs! / 1000).toFixed(1)} s | ${f0(l.maxStallMs!)} ms (shard build ≤ ${f0(l.maxShardMs!)} ms); ${l.probesOk}/${l.probes} hover probes answered with the user record | RSS ${f0(l.rssReadyMB!)} MB; after GC ${f0(l.rssGcMB!)} MB (heap ${f0(l.heapGcMB!)} MB) |\n`;
    md += `| matchLine, every row ready (user + dataset) | ${l.perLineUs!.toFixed(1)} µs/line with a dataset match, ${l.missUs!.toFixed(1)} µs/line without | | ${l.matchedSampleLines} matched |\n`;
    md += `| search (a message's text) | ${l.searchMs!.toFixed(1)} ms | | |\n`;
    md += `| load 10 selected repositories as records (CLI) | ${f0(l.selection10.ms)} ms | | ${l.selection10.records} records |\n`;
    ctx.markdown(md);
    ctx.target('dataset: user-record hovers work <= 1 s after start-up (500k rows selected)', l.userReadyMs! <= 1000, `${f0(l.userReadyMs!)} ms`);
    ctx.target('dataset: the background build never blocks hovers > 1 s', l.maxStallMs! <= 1000 && l.probesOk === l.probes, `longest stall ${f0(l.maxStallMs!)} ms, ${l.probesOk}/${l.probes} probes`);
    ctx.target('dataset: every sampled row matches once ready', l.found === l.sampleLines, `${l.matchedSampleLines} after ${(l.readyMs! / 1000).toFixed(1)} s`);
    ctx.target('dataset: memory <= 400 MB with the whole index ready', l.rssReadyMB! <= 400, `${f0(l.rssReadyMB!)} MB RSS (after GC ${f0(l.rssGcMB!)} MB, peak ${f0(l.peakRssMB!)} MB)`);
    ctx.target('dataset: sync never stalls > 1 s', s.syncMaxStallMs! <= 1000, `${f0(s.syncMaxStallMs!)} ms`);
  },
};

if (require.main === module) {
  const i = process.argv.indexOf('--phase');
  if (i > 0) {
    const [phase, root, cache] = process.argv.slice(i + 1) as [string, string, string];
    (phase === 'sync' ? phaseSync(root, cache) : phaseServer(root, cache)).then(
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
