// The selected rows of the dataset as a catalog that builds in the background: rows are read
// block by block from the prepared form (index.rows) into compact columns (rows.ts), then one
// MatchEngine over all of them is built with MatchEngine.buildAsync (time slices of `sliceMs`
// with event-loop turns between them), so the server keeps answering meanwhile and a line is then
// scanned once, whatever the number of rows. build() resolves when every selected row is
// matchable (full recall: no row is dropped). With `shardRows` set, every that many rows become
// their own engine as soon as they are read (rows join while the rest is read; each line is then
// scanned once per shard, so matching costs grow with the number of shards).
//
// Records are made only when shown (a match, a lookup, a search hit): see DatasetRows.record().
// Engine entries are made on access (entriesView): their id/pattern/captureNames/errorCode are
// read from the columns (patterns come from the block being built; afterwards from the rows file).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type ExtraCatalog, rankMatch, splitLines } from '../catalog';
import { type EngineEntry, type LineMatch, MatchEngine } from '../engine';
import type { ErrorRecord } from '../record';
import { type Confidence, matchConfidence } from '../confidence';
import { fuzzyScore, SEARCH_SCORE, type SearchHit, searchTokens, TokenIndex } from '../search';
import type { LiteRecord } from './lite';
import { type BlockRef, type PreparedHead, ROWS_FILE, selectedBlocks } from './prepared';
import { DatasetRows, type PackedRow, rowRanges } from './rows';

export interface DatasetCatalogOptions {
  /** Which repositories (default: all in the head). */
  select?: (repo: string) => boolean;
  /** Rows per shard (default: all rows in one engine). Smaller shards make rows matchable while
   * the rest is read, but every shard scans each line again. */
  shardRows?: number;
  /** With shardRows: later shards adapt their size to build in about this long (default: no adaptation). */
  targetShardMs?: number;
  minShardRows?: number;
  maxShardRows?: number;
  /** Read and parse blocks for at most this long per event-loop turn (default 25 ms). */
  sliceMs?: number;
  /** Fuzzy word search over the rows when at most this many are selected (default 100000). Its
   * token index is built in the background on the first search that needs it (~1 MB per 1k rows
   * of synthetic ErrLookup messages, postings and vocabulary): it would not fit next to 500k
   * rows' engine in 400 MB. */
  fuzzyMaxRows?: number;
  /** After each shard: rows matchable so far, rows selected. */
  onProgress?: (readyRows: number, totalRows: number) => void;
}

export interface DatasetMatch {
  row: number;
  record: LiteRecord;
  match: LineMatch;
  confidence: Confidence;
}

export interface DatasetBuildStats {
  /** Wall time from build() to ready (ms). */
  ms: number;
  shards: number;
  /** Longest synchronous step of a shard build (ms): one time slice of MatchEngine.buildAsync. */
  maxShardMs: number;
  /** Longest synchronous read/parse slice (ms). */
  maxSliceMs: number;
  rejected: number;
  /** Why reading the rows file stopped early (the rows read so far are served), if it did. */
  readError?: string;
  /** Rows per shard and its build time (ms), in build order. */
  shardLog: [rows: number, ms: number][];
}

class RowEntry implements EngineEntry {
  constructor(
    private readonly rows: DatasetRows,
    private readonly row: number,
  ) {}
  get id(): string {
    return this.rows.id(this.row);
  }
  get pattern(): string {
    return this.rows.pattern(this.row);
  }
  get captureNames(): string[] {
    return this.rows.captureNames(this.row);
  }
  get errorCode(): string | null {
    return this.rows.errorCode(this.row);
  }
}

/**
 * The engine entries of a shard, as an array whose items are made when read: the engine keeps its
 * entries for the lifetime of the shard, and one object per row would cost ~24 MB at 500k rows
 * (no pointer compression in Node's V8). Reads are rare after the build (errorCode and capture
 * names of a match, ids on rank ties).
 */
function entriesView(rows: DatasetRows, start: number, count: number): EngineEntry[] {
  const target: EngineEntry[] = [];
  target.length = count;
  const index = (key: string | symbol): number => {
    if (typeof key !== 'string') return -1;
    const c = key.charCodeAt(0);
    if (c < 48 || c > 57) return -1;
    const i = Number(key);
    return Number.isInteger(i) && i < count && String(i) === key ? i : -1;
  };
  return new Proxy(target, {
    get(t, key, receiver) {
      const i = index(key);
      return i >= 0 ? new RowEntry(rows, start + i) : Reflect.get(t, key, receiver);
    },
    has(t, key) {
      return index(key) >= 0 || Reflect.has(t, key);
    },
    getOwnPropertyDescriptor(t, key) {
      const i = index(key);
      return i >= 0 ? { value: new RowEntry(rows, start + i), writable: false, enumerable: true, configurable: true } : Reflect.getOwnPropertyDescriptor(t, key);
    },
    set() {
      return false;
    },
  });
}

interface Shard {
  start: number;
  engine: MatchEngine;
}

const yieldNow = (): Promise<void> => new Promise((r) => setImmediate(r));

/** The rows read for the next shard (from row `start`) and how many rows a shard takes. */
interface PendingShard {
  start: number;
  patterns: string[];
  size: number;
}

/** The rows of one block of the rows file (its first `length` bytes in `buf`), with each row's
 * byte range in `ranges` (start, end pairs); throws when the block does not match its head entry. */
function parseBlock(buf: Buffer, length: number, count: number, ranges: number[]): PackedRow[] {
  const block = JSON.parse(buf.toString('utf8', 0, length)) as PackedRow[];
  ranges.length = 0;
  rowRanges(buf, 0, length, ranges);
  if (ranges.length !== block.length * 2 || block.length !== count) throw new Error(`${ROWS_FILE}: a block does not match its head entry`);
  return block;
}

export class DatasetCatalog implements ExtraCatalog {
  readonly total: number;
  readonly rows: DatasetRows;
  private readonly shards: Shard[] = [];
  private readyRowsCount = 0;
  private building: Promise<boolean> | undefined;
  private cancelled = false;
  private readonly opts: DatasetCatalogOptions;
  private readonly jobs: { repo: string; ref: BlockRef }[];
  stats: DatasetBuildStats = { ms: 0, shards: 0, maxShardMs: 0, maxSliceMs: 0, rejected: 0, shardLog: [] };
  /** Word tokens of the rows (small selections only, see fuzzyMaxRows), built on the first search. */
  private tokens: TokenIndex | undefined;
  private tokensBuild: Promise<boolean> | undefined;
  /** Rows whose pattern the engine refused (unsafe): never matched, like in Catalog. */
  readonly rejected: { row: number; reason: string }[] = [];

  /** Opens the rows file of a prepared version folder; nothing is read until build(). */
  constructor(
    readonly dir: string,
    head: PreparedHead,
    opts: DatasetCatalogOptions = {},
  ) {
    this.opts = opts;
    const { jobs, total } = selectedBlocks(head, opts.select);
    this.jobs = jobs;
    this.total = total;
    this.rows = new DatasetRows(path.join(dir, ROWS_FILE), total, new Set(jobs.map((j) => j.repo)).size);
  }

  /** Rows that match now (their shard is built). */
  get readyRows(): number {
    return this.readyRowsCount;
  }
  /** Every selected row matches (build() finished). */
  get isReady(): boolean {
    return this.finished;
  }
  private finished = false;

  /**
   * Read the rows and build the shards in the background (idempotent). Resolves true when every
   * row read matches, false when cancelled (dispose) first. Never throws: a rows file that cannot
   * be read to the end ends the build with the rows read so far (stats.readError says why).
   */
  build(): Promise<boolean> {
    this.building ??= this.run();
    return this.building;
  }

  /** Stop building (at the next turn) and release the rows file. Matching keeps the built shards until dropped. */
  dispose(): void {
    this.cancelled = true;
    this.rows.close();
  }

  private async run(): Promise<boolean> {
    const t0 = performance.now();
    const pending: PendingShard = { start: 0, patterns: [], size: this.opts.shardRows ?? Infinity };
    try {
      await this.readRows(pending);
    } catch (e) {
      // unreadable or inconsistent rows file: serve the rows read so far
      this.stats.readError = (e as Error).message;
    }
    if (this.cancelled) return false;
    await this.buildShard(pending);
    if (this.cancelled) return false;
    this.stats.ms = performance.now() - t0;
    this.stats.rejected = this.rejected.length;
    this.finished = true;
    this.opts.onProgress?.(this.readyRowsCount, this.total);
    return true;
  }

  /** Read the selected blocks into `rows`, building a shard each time `pending` is full and
   * yielding every sliceMs; stops when cancelled. Throws on an unreadable or inconsistent file. */
  private async readRows(pending: PendingShard): Promise<void> {
    const sliceMs = this.opts.sliceMs ?? 25;
    const fd = fs.openSync(this.rows.file, 'r');
    try {
      let buf = Buffer.alloc(1 << 20);
      const ranges: number[] = [];
      let sliceStart = performance.now();
      for (const { repo, ref } of this.jobs) {
        if (this.cancelled) return;
        const [offset, length, count] = ref;
        if (buf.length < length) buf = Buffer.alloc(length);
        if (fs.readSync(fd, buf, 0, length, offset) !== length) throw new Error(`${ROWS_FILE} is shorter than its head says`);
        const block = parseBlock(buf, length, count, ranges);
        for (let k = 0; k < block.length; k++) {
          const p = block[k]!;
          this.rows.add(p, repo, offset + ranges[2 * k]!, ranges[2 * k + 1]! - ranges[2 * k]!);
          pending.patterns.push(p[4]);
        }
        const now = performance.now();
        if (pending.patterns.length >= pending.size) {
          this.stats.maxSliceMs = Math.max(this.stats.maxSliceMs, now - sliceStart);
          await this.buildShard(pending);
          sliceStart = performance.now();
        } else if (now - sliceStart >= sliceMs) {
          this.stats.maxSliceMs = Math.max(this.stats.maxSliceMs, now - sliceStart);
          await yieldNow();
          sliceStart = performance.now();
        }
      }
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Build a shard of the pending rows (in slices of sliceMs), then start the next one; with
   * targetShardMs, the next shard's size aims at that build time. */
  private async buildShard(pending: PendingShard): Promise<void> {
    const { start, patterns } = pending;
    if (patterns.length === 0) return;
    await yieldNow();
    if (this.cancelled) return;
    const entries = entriesView(this.rows, start, patterns.length);
    this.rows.setPending(start, patterns);
    const t = performance.now();
    let slowest = 0;
    const engine = await MatchEngine.buildAsync(entries, {
      sliceMs: this.opts.sliceMs ?? 25,
      cancelled: () => this.cancelled,
      onSlice: (ms) => {
        slowest = Math.max(slowest, ms);
      },
    });
    const ms = performance.now() - t;
    this.rows.setPending(0, undefined);
    if (!engine) return; // cancelled
    for (const r of engine.rejected) this.rejected.push({ row: start + r.entry, reason: r.reason });
    this.shards.push({ start, engine });
    this.readyRowsCount = start + patterns.length;
    this.stats.maxShardMs = Math.max(this.stats.maxShardMs, slowest);
    this.stats.shards++;
    this.stats.shardLog.push([patterns.length, Math.round(ms)]);
    const target = this.opts.targetShardMs;
    if (target !== undefined && Number.isFinite(pending.size)) {
      // next shard: aim at the target time (build time is about linear in rows)
      const scaled = Math.round((patterns.length * target) / Math.max(1, ms));
      const minRows = this.opts.minShardRows ?? 2000;
      const maxRows = this.opts.maxShardRows ?? Infinity;
      pending.size = Math.max(minRows, Math.min(maxRows, Math.round((pending.size + scaled) / 2)));
    }
    pending.start += patterns.length;
    pending.patterns = [];
    this.opts.onProgress?.(this.readyRowsCount, this.total);
    await yieldNow();
  }

  /** Every row matching the line (over the shards built so far), ranked like Catalog.matchLine. */
  matchLine(line: string): DatasetMatch[] {
    const out: DatasetMatch[] = [];
    for (const s of this.shards) {
      for (const m of s.engine.matchLine(line)) {
        const row = s.start + m.entry;
        m.entry = row;
        const record = this.rows.record(row);
        out.push({ row, record, match: m, confidence: matchConfidence(record, m, line) });
      }
    }
    if (out.length > 1) out.sort(rankMatch);
    return out;
  }

  /**
   * Exact error code / id / slug, then rows whose pattern matches the query (its first 50 lines),
   * then (small selections, once built) fuzzy word hits; scored like SearchIndex.search so the
   * CompositeCatalog can merge them with the user's hits.
   */
  search(query: string, limit = 20): SearchHit[] {
    const q = query.trim();
    if (!q || limit <= 0) return [];
    const hits: SearchHit[] = [];
    const seen = new Set<number>();
    const add = (row: number, kind: SearchHit['kind'], score: number): void => {
      if (seen.has(row) || hits.length >= limit) return;
      seen.add(row);
      hits.push({ record: this.rows.record(row), kind, score });
    };
    for (const r of this.rows.rowsWithCode(q)) add(r, 'code', SEARCH_SCORE.code);
    for (const r of this.rows.rowsWithId(q.toLowerCase())) add(r, 'id', SEARCH_SCORE.id);
    if (q.toLowerCase() !== q) for (const r of this.rows.rowsWithId(q)) add(r, 'id', SEARCH_SCORE.id);
    for (const r of this.rows.rowsWithSlug(q)) add(r, 'slug', SEARCH_SCORE.slug);
    if (hits.length >= limit) return hits;
    if (q.length >= 4) {
      const ranked: number[] = [];
      const inRanked = new Set<number>();
      for (const line of splitLines(query).slice(0, 50)) {
        for (const m of this.matchLine(line)) {
          if (inRanked.has(m.row)) continue;
          inRanked.add(m.row);
          ranked.push(m.row);
        }
      }
      ranked.forEach((r, rank) => add(r, 'pattern', SEARCH_SCORE.pattern - rank / (ranked.length + 1)));
    }
    if (hits.length >= limit) return hits;
    if (!this.tokens) {
      void this.fuzzyReady(); // the next searches have word hits
      return hits;
    }
    const rows = this.rows;
    const tie = (a: number, b: number): number => rows.severityRank(a) - rows.severityRank(b) || (rows.id(a) < rows.id(b) ? -1 : rows.id(a) > rows.id(b) ? 1 : 0);
    for (const f of this.tokens.fuzzy(query, limit + seen.size, tie)) add(f.index, 'fuzzy', fuzzyScore(f.score));
    return hits;
  }

  /**
   * Build the word index for fuzzy search (in the background, after the rows are read; once).
   * Resolves true when it is searchable, false when the selection is too large or the catalog was
   * disposed first.
   */
  fuzzyReady(): Promise<boolean> {
    if (this.tokensBuild) return this.tokensBuild;
    if (this.total > (this.opts.fuzzyMaxRows ?? 100_000)) return Promise.resolve(false);
    this.tokensBuild = (async () => {
      if (!(await this.build())) return false;
      const index = new TokenIndex();
      const buf: string[] = [];
      const sliceMs = this.opts.sliceMs ?? 25;
      let slice = performance.now();
      for (let r = 0; r < this.rows.count; r++) {
        if (this.cancelled) return false;
        index.add(r, searchTokens(this.rows.peek(r), buf));
        if (performance.now() - slice >= sliceMs) {
          await yieldNow();
          slice = performance.now();
        }
      }
      index.finish(this.rows.count);
      this.tokens = index;
      return true;
    })();
    return this.tokensBuild;
  }

  /** A record by id, slug or error code (that precedence, like Catalog.get). */
  get(key: string): ErrorRecord | undefined {
    const k = key.trim();
    for (const q of k === key ? [key] : [key, k]) {
      const byId = this.rows.rowsWithId(q)[0];
      if (byId !== undefined) return this.rows.record(byId);
    }
    for (const q of k === key ? [key] : [key, k]) {
      const bySlug = this.rows.rowsWithSlug(q).find((r) => this.rows.record(r).slug === q);
      if (bySlug !== undefined) return this.rows.record(bySlug);
    }
    for (const q of k === key ? [key] : [key, k]) {
      const byCode = this.rows.rowsWithCode(q).find((r) => this.rows.errorCode(r) === q);
      if (byCode !== undefined) return this.rows.record(byCode);
    }
    return undefined;
  }
}
