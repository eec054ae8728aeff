// Benchmark section "servercache": the language server's start with the index cache (issue 11,
// item 5). The built server over stdio, a fresh process per start, a private cache folder:
//   cold: no cache yet (load, validate, index; then the cache is written in time slices, during
//         which errorExplainer/status is asked again and again: the longest wait is printed)
//   warm: the cache of the start before (twice)
// Time = initialize sent -> errorExplainer/status answered (that request waits for the records).
// Record sets: real records from `extract node_modules` (this checkout's) and BENCH_SCAN_RECORDS
// (default 100k) realistic full records, the file the `scan` section uses.
//   BENCH_SECTIONS=servercache npm run bench
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TestClient } from '../protocol/client';
import { extractFromDir } from '../../server/src/core/extract';
import { loadMaterial, makeRecordFile } from './loadData';
import type { BenchContext, Section } from './section';

interface Start {
  ms: number;
  cache: string;
  records: number;
  maxWaitMs: number;
}

async function start(recordFile: string, cacheDir: string): Promise<Start> {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ee-bench-ws-'));
  const t0 = performance.now();
  const c = await TestClient.start({ workspace: ws, settings: { records: { paths: [recordFile] } }, env: { ERROR_EXPLAINER_INDEX_CACHE: cacheDir }, nodeArgs: ['--max-old-space-size=4096'] });
  try {
    const st = await c.request<{ records: number; indexCache?: string; indexCacheReason?: string }>('errorExplainer/status');
    const ms = performance.now() - t0;
    let maxWaitMs = 0;
    if (st.indexCache === 'miss') {
      const written = () => c.notificationsOf('window/logMessage').some((m) => /index cache (written|not written)/.test((m as { message: string }).message));
      const until = Date.now() + 120_000;
      while (!written() && Date.now() < until) {
        const s = performance.now();
        await c.request('errorExplainer/status');
        maxWaitMs = Math.max(maxWaitMs, performance.now() - s);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    return { ms, cache: `${st.indexCache ?? '?'}${st.indexCacheReason ? ` (${st.indexCacheReason})` : ''}`, records: st.records, maxWaitMs };
  } finally {
    await c.stop();
    fs.rmSync(ws, { recursive: true, force: true });
  }
}

export const section: Section = {
  name: 'servercache',
  async run(ctx: BenchContext): Promise<void> {
    const sets: { name: string; file: string }[] = [];
    const nm = path.join(ctx.benchDir, 'servercache-node_modules.json');
    if (!fs.existsSync(nm)) fs.writeFileSync(nm, JSON.stringify(extractFromDir(path.join(ctx.root, 'node_modules'), { repo: 'npm/node_modules' }).records));
    sets.push({ name: '`extract node_modules` (real)', file: nm });
    const n = Number(ctx.env.BENCH_SCAN_RECORDS ?? 100_000);
    const made = makeRecordFile(loadMaterial(ctx.root), path.join(ctx.benchDir, `scan-records-${n}.json`), n, 'mixed', 'json');
    sets.push({ name: `${n.toLocaleString('en-US')} realistic full records`, file: made.file });
    let md = '### Language server start with the index cache (initialize -> `errorExplainer/status` answered; fresh server process each)\n\n';
    md += '| records | file | cold (cache written after) | longest status wait while writing | warm | warm again |\n|---|---:|---:|---:|---:|---:|\n';
    for (const s of sets) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ee-bench-srvcache-'));
      try {
        const cold = await start(s.file, dir);
        const w1 = await start(s.file, dir);
        const w2 = await start(s.file, dir);
        ctx.log(`  ${s.name}: ${cold.records} records; cold ${cold.ms.toFixed(0)} ms [${cold.cache}], longest wait while writing ${cold.maxWaitMs.toFixed(0)} ms; warm ${w1.ms.toFixed(0)} ms [${w1.cache}], ${w2.ms.toFixed(0)} ms [${w2.cache}]`);
        md += `| ${s.name}: ${cold.records.toLocaleString('en-US')} | ${(fs.statSync(s.file).size / 1e6).toFixed(0)} MB | ${(cold.ms / 1000).toFixed(2)} s (${cold.cache}) | ${cold.maxWaitMs.toFixed(0)} ms | ${(w1.ms / 1000).toFixed(2)} s (${w1.cache}) | ${(w2.ms / 1000).toFixed(2)} s (${w2.cache}) |\n`;
        ctx.target(`server start restores the index cache: ${s.name}`, w1.cache === 'hit' && w2.cache === 'hit', `${w1.cache}, ${w2.cache}`);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
    ctx.markdown(md);
  },
};
