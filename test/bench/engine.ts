// Engine section of `npm run bench`: ErrLookup-shaped records (N = 1k, 10k, 100k, 500k) against
// one generated log of >= 100 MB with known matching lines and near misses.
//
// Knobs: BENCH_SIZES=1000,10000  BENCH_MB=20  BENCH_SAMPLE=20000 (latency sample lines)
//        BENCH_SEED=7  BENCH_REPS=3 (interleaved timing passes; the best of each kind counts)

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { MatchEngine } from '../../server/src/core/engine';
import { needsViews } from '../../server/src/core/text';
import { generateLog, generateRecords, toEntries, type GenRecord } from './gen';
import { forEachByteBlock, forEachLine } from './reader';
import { cachedLog } from './logCache';
import type { BenchContext, Section } from './section';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const MATCH_FRACTION = 0.1;
const NEAR_MISS_FRACTION = 0.1;

function memory(): { heap: number; rss: number } {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed + m.arrayBuffers, rss: m.rss };
}

function ensureLog(ctx: BenchContext, records: GenRecord[], mb: number, seed: number): { file: string; truth: Int32Array } {
  return cachedLog(ctx, path.join(ctx.benchDir, `log-v2-${mb}mb-n${records.length}-s${seed}`), (write, truth) =>
    generateLog({ records, bytes: mb * 1e6, matchFraction: MATCH_FRACTION, nearMissFraction: NEAR_MISS_FRACTION, seed }, write, truth),
  );
}

function pct(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

function rawPass(file: string): { seconds: number; lines: number; chars: number } {
  let chars = 0;
  const t0 = process.hrtime.bigint();
  const lines = forEachLine(file, (l) => {
    chars += l.length;
  });
  return { seconds: Number(process.hrtime.bigint() - t0) / 1e9, lines, chars };
}

interface Row {
  n: number;
  indexed: string;
  buildMs: number;
  heapMB: number;
  rssMB: number;
  rawMBs: number;
  engMBs: number;
  ratio: number;
  byteBuildMs: number;
  byteIndexMB: number;
  bytesMBs: number;
  bytesRatio: number;
  bytesRecall: string;
  bytesOk: boolean;
  p50: number;
  p99: number;
  p99match: number;
  recall: string;
  recallOk: boolean;
  matches: number;
  exact: string;
}

async function runSize(ctx: BenchContext, all: GenRecord[], n: number, log: { file: string; truth: Int32Array }, sampleSize: number, reps: number): Promise<Row> {
  const fileMB = fs.statSync(log.file).size / 1e6;
  const entries = toEntries(all.slice(0, n));
  const m0 = memory();
  const t0 = process.hrtime.bigint();
  const engine = MatchEngine.build(entries);
  const buildMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const m1 = memory();
  const s = engine.stats;
  ctx.log(`N=${n}: built in ${buildMs.toFixed(0)} ms; chain ${s.chain}, regex ${s.regex}, rejected ${s.rejected}, unkeyed ${s.unkeyed}; tiers ${s.tiers.map((t) => `m${t.m}:${t.records}`).join(' ')}; index ${(s.indexBytes / 1e6).toFixed(1)} MB`);

  // raw read+split, then the engine with the same reader, then raw again (best raw is used)
  const raw1 = rawPass(log.file);
  const truth = log.truth;
  let ti = 0;
  let expected = 0;
  let found = 0;
  let matches = 0;
  const missed: string[] = [];
  const every = Math.max(1, Math.floor(raw1.lines / sampleSize));
  const sample: string[] = [];
  const te = process.hrtime.bigint();
  forEachLine(log.file, (line, no) => {
    const ms = engine.matchLine(line);
    matches += ms.length;
    if (no % every === 0) sample.push(line);
    while (ti < truth.length && truth[ti] === no) {
      const rec = truth[ti + 1]!;
      ti += 2;
      if (rec >= n) continue;
      expected++;
      let ok = false;
      for (const m of ms) if (m.entry === rec) ok = true;
      if (ok) found++;
      else if (missed.length < 5) missed.push(`line ${no + 1} record ${rec}`);
    }
  });
  let engSeconds = Number(process.hrtime.bigint() - te) / 1e9;

  // file scan (matchBytes, what `error-explainer scan` runs): raw bytes, only candidate lines decoded
  const tbb = process.hrtime.bigint();
  engine.byteIndex();
  const byteBuildMs = Number(process.hrtime.bigint() - tbb) / 1e6;
  const bs = engine.byteIndex().stats;
  ctx.log(`  byte index built in ${byteBuildMs.toFixed(0)} ms: A16 ${bs.a16}, A8 ${bs.a8}, T12 ${bs.t12}, T8 ${bs.t8}, T4 ${bs.t4}, unkeyed ${bs.unkeyed}; ${bs.native ? "WebAssembly" : "JS"} scanner; ${(bs.bytes / 1e6).toFixed(1)} MB (+ ${(bs.nativeBytes / 1e6).toFixed(1)} MB module memory)`);
  let yFound = 0;
  let yExpected = 0;
  let yMatches = 0;
  let ty: number;
  {
    let base = 0;
    let yi = 0;
    const t1 = process.hrtime.bigint();
    forEachByteBlock(log.file, (buf, len) => {
      const lines = engine.matchBytes(buf, len, (i, ms) => {
        const no = base + i;
        yMatches += ms.length;
        while (yi < truth.length && truth[yi]! < no) yi += 2;
        while (yi < truth.length && truth[yi] === no) {
          const rec = truth[yi + 1]!;
          yi += 2;
          if (rec < n && ms.some((m) => m.entry === rec)) yFound++;
        }
      });
      base += lines;
    });
    ty = Number(process.hrtime.bigint() - t1) / 1e9;
    for (let k = 1; k < truth.length; k += 2) if (truth[k]! < n) yExpected++;
  }
  // The machine is shared: interleave more raw / per-line / file-scan passes and keep the best of
  // each, so a burst of someone else's load does not decide a ratio.
  let rawSeconds = raw1.seconds;
  for (let rep = 1; rep < reps; rep++) {
    rawSeconds = Math.min(rawSeconds, rawPass(log.file).seconds);
    let sink = 0;
    const t2 = process.hrtime.bigint();
    forEachLine(log.file, (line) => {
      sink += engine.matchLine(line).length;
    });
    engSeconds = Math.min(engSeconds, Number(process.hrtime.bigint() - t2) / 1e9);
    const t4 = process.hrtime.bigint();
    forEachByteBlock(log.file, (buf, len) => {
      engine.matchBytes(buf, len, (_i, ms) => {
        sink += ms.length;
      });
    });
    ty = Math.min(ty, Number(process.hrtime.bigint() - t4) / 1e9);
    if (sink < 0) ctx.log('');
  }
  rawSeconds = Math.min(rawSeconds, rawPass(log.file).seconds);
  if (missed.length) ctx.log(`  MISSED: ${missed.join('; ')}`);

  // per-line latency on a sample of the log's lines
  const lat = new Float64Array(sample.length);
  const latMatch: number[] = [];
  // each sampled line is timed in 3 rounds and its best time counts (a preemption by another
  // process on the shared machine is not the engine's latency)
  lat.fill(Infinity);
  const hasMatch = new Uint8Array(sample.length);
  for (let rep = 0; rep < 3; rep++)
    for (let i = 0; i < sample.length; i++) {
      const a = process.hrtime.bigint();
      const r = engine.matchLine(sample[i]!);
      const us = Number(process.hrtime.bigint() - a) / 1e3;
      if (us < lat[i]!) lat[i] = us;
      if (r.length) hasMatch[i] = 1;
    }
  for (let i = 0; i < sample.length; i++) if (hasMatch[i]) latMatch.push(lat[i]!);
  lat.sort();
  const lm = Float64Array.from(latMatch).sort();

  // exactness: on sampled plain lines, the engine's set equals brute force over every RegExp
  let exactLines = 0;
  let exactBad = 0;
  // (compiling every record's RegExp is what the engine avoids; at 100k+ it would not fit the heap)
  const budget = n <= 10000 ? Math.min(sample.length, Math.floor(3e6 / n)) : 0;
  if (budget > 0) {
    const res = entries.map((e) => new RegExp(e.pattern));
    for (let i = 0; i < sample.length && exactLines < budget; i += Math.max(1, Math.floor(sample.length / budget))) {
      const line = sample[i]!;
      if (needsViews(line)) continue;
      exactLines++;
      const got = new Set(engine.matchLine(line).map((m) => m.entry));
      let same = true;
      for (let k = 0; k < res.length; k++) if (res[k]!.test(line) !== got.has(k) && !engine.rejected.some((r) => r.entry === k)) same = false;
      if (!same) exactBad++;
    }
  }

  const row: Row = {
    n,
    indexed: `${s.chain}/${s.regex}/${s.rejected}`,
    buildMs,
    heapMB: (m1.heap - m0.heap) / 1e6,
    rssMB: (m1.rss - m0.rss) / 1e6,
    rawMBs: fileMB / rawSeconds,
    engMBs: fileMB / engSeconds,
    ratio: rawSeconds / engSeconds,
    byteBuildMs,
    // the JS index plus the WebAssembly module's memory as the scans left it (it grows with blocks)
    byteIndexMB: (bs.bytes + engine.byteIndex().stats.nativeBytes) / 1e6,
    bytesMBs: fileMB / ty,
    bytesRatio: rawSeconds / ty,
    bytesRecall: `${yFound}/${yExpected}`,
    bytesOk: yFound === yExpected && yExpected > 0 && yMatches === matches,
    p50: pct(lat, 0.5),
    p99: pct(lat, 0.99),
    p99match: lm.length ? pct(lm, 0.99) : 0,
    recall: `${found}/${expected}`,
    recallOk: found === expected && expected > 0,
    matches,
    exact: budget > 0 ? `${exactLines - exactBad}/${exactLines}` : '-',
  };
  ctx.log(
    `  raw ${row.rawMBs.toFixed(0)} MB/s, engine ${row.engMBs.toFixed(0)} MB/s, ratio ${row.ratio.toFixed(2)}; file scan (bytes) ${row.bytesMBs.toFixed(0)} MB/s, ratio ${row.bytesRatio.toFixed(2)}, recall ${row.bytesRecall}${yMatches === matches ? '' : ` MATCH COUNT DIFFERS ${yMatches}`}; p50 ${row.p50.toFixed(1)} µs, p99 ${row.p99.toFixed(1)} µs (matching lines ${row.p99match.toFixed(1)}), recall ${row.recall}, matches ${matches}, brute-force check ${row.exact}`,
  );
  return row;
}

export const engineSection: Section = {
  name: 'engine',
  async run(ctx) {
    const sizes = (ctx.env.BENCH_SIZES ?? '1000,10000,100000,500000').split(',').map((x) => Number(x.trim())).filter((x) => x > 0);
    const mb = Number(ctx.env.BENCH_MB ?? 110);
    const seed = Number(ctx.env.BENCH_SEED ?? 7);
    const sampleSize = Number(ctx.env.BENCH_SAMPLE ?? 20000);
    const maxN = Math.max(...sizes);
    const tg = Date.now();
    const all = generateRecords(maxN, seed);
    ctx.log(`generated ${maxN} records in ${((Date.now() - tg) / 1000).toFixed(1)} s`);
    const log = ensureLog(ctx, all, mb, seed);
    const rows: Row[] = [];
    const reps = Math.max(1, Number(ctx.env.BENCH_REPS ?? 3));
    for (const n of sizes) rows.push(await runSize(ctx, all, n, log, sampleSize, reps));

    const fileMB = fs.statSync(log.file).size / 1e6;
    let md = `### Matching engine (${fileMB.toFixed(0)} MB log, ${(MATCH_FRACTION * 100).toFixed(0)} % matching lines, ${(NEAR_MISS_FRACTION * 100).toFixed(0)} % near misses; Node ${process.version}, ${require('node:os').cpus().length} cores)\n\n`;
    md += '| records | chain/regex/rejected | build (+ byte index) | memory (heap+buffers / RSS Δ; byte index incl. its WebAssembly memory) | raw read+split | **file scan, bytes (ratio)** | matchLine per line (ratio) | p50 / p99 per line | recall (lines, bytes) | brute-force equal |\n';
    md += '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n';
    for (const r of rows)
      md += `| ${r.n.toLocaleString('en-US')} | ${r.indexed} | ${r.buildMs.toFixed(0)} ms (+ ${r.byteBuildMs.toFixed(0)} ms) | ${r.heapMB.toFixed(0)} / ${r.rssMB.toFixed(0)} MB; ${r.byteIndexMB.toFixed(0)} MB | ${r.rawMBs.toFixed(0)} MB/s | **${r.bytesMBs.toFixed(0)} MB/s (${r.bytesRatio.toFixed(2)})** | ${r.engMBs.toFixed(0)} MB/s (${r.ratio.toFixed(2)}) | ${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} µs | ${r.recall} ${r.recallOk ? '(100 %)' : ''}, ${r.bytesRecall} | ${r.exact} |\n`;
    ctx.markdown(md);

    for (const r of rows) {
      ctx.target(`recall N=${r.n}`, r.recallOk, r.recall);
      ctx.target(`file-scan (bytes) recall N=${r.n} (same matches as matchLine)`, r.bytesOk, r.bytesRecall);
      if (r.exact !== '-') ctx.target(`brute-force equality N=${r.n}`, r.exact.split('/')[0] === r.exact.split('/')[1], r.exact);
      if (r.n === 100000) {
        // the scan throughput target is judged on the file scan (what `scan FILE` runs); the
        // string modes (language server documents) are reported above for comparison
        ctx.target('ratio >= 0.5 at 100k (file scan, bytes)', r.bytesRatio >= 0.5, r.bytesRatio.toFixed(2));
        ctx.target('build <= 1 s at 100k', r.buildMs <= 1000, `${r.buildMs.toFixed(0)} ms`);
        ctx.target('build + byte index <= 1 s at 100k (what the file scan needs)', r.buildMs + r.byteBuildMs <= 1000, `${(r.buildMs + r.byteBuildMs).toFixed(0)} ms`);
        ctx.target('p99 <= 50 µs at 100k', r.p99 <= 50, `${r.p99.toFixed(1)} µs`);
      }
      if (r.n === 500000) {
        ctx.target('ratio >= 0.3 at 500k (file scan, bytes)', r.bytesRatio >= 0.3, r.bytesRatio.toFixed(2));
      }
    }
  },
};
