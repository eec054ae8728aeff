// Loads the WebAssembly build of the byte scanner (server/wasm/scan.ts, embedded as
// scanWasm.generated.ts) and runs it over a ByteIndex: the index's filters and tables are copied
// once into the module's memory, each block is copied in, the hits are copied out. Returns
// undefined wherever WebAssembly is unavailable; ByteIndex then scans in JS (same results).

import { type ByteIndex, type ByteTier, type LongerKeys, type NativeLines, type NativeParts, type NativeScanner, type PairKeys, type SpawnThread, BUCKET_WORDS } from './bytes';
import { SCAN_WASM_BASE64, SCAN_WASM_SHARED_BASE64 } from './scanWasm.generated';

/** The part of the WebAssembly JS API used here (lib "dom" is not in this project's lib). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (mod: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (desc: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

const PAGE = 65536;
/** The module's memory is shared (a helper thread scans part of each large block: see ScanHelper) and so
 * declares its maximum: 4 GiB, all a 32-bit module can address (only what is used is committed). */
const MAX_PAGES = 65536;
/** Room for the string values of one JSON line matched in the module (more: matched in JS). */
const SPANS = 1 << 16;

/**
 * The "simple" records (literals and (.+?) holes) for exact matching inside the module (see
 * chainMatch in server/wasm/scan.ts): per record two i32 in `info` (offset of its literals in
 * `pool`; count | leading << 16 | trailing << 17 | chainable << 18), and the pool holds each
 * literal as a u16 byte length and its UTF-8 bytes.
 */
export class ChainTable {
  readonly info: Int32Array;
  pool: Uint8Array = new Uint8Array(1 << 16);
  private size = 0;
  private readonly enc = new TextEncoder();
  constructor(readonly records: number) {
    this.info = new Int32Array(records * 2);
  }
  /** Add record rec's literals; returns where their (u16 length, bytes) runs are in the pool (valid
   * until the next add), or undefined when the record is left to JS. */
  add(rec: number, literals: readonly string[], leading: boolean, trailing: boolean): { bytes: Uint8Array; start: number; end: number } | undefined {
    if (literals.length > 0xffff) return undefined;
    let room = 0;
    for (const l of literals) room += 2 + 3 * l.length;
    if (this.size + room > this.pool.length) {
      const p = new Uint8Array(Math.max(this.pool.length * 2, this.size + room));
      p.set(this.pool.subarray(0, this.size));
      this.pool = p;
    }
    const start = this.size;
    for (const l of literals) {
      const at = this.size;
      this.size += 2;
      // ASCII is copied as it is checked; a literal with any other character is encoded instead
      const pool = this.pool;
      const base = this.size;
      let len = l.length;
      for (let k = 0; k < l.length; k++) {
        const c = l.charCodeAt(k);
        if (c >= 0x80) {
          len = this.enc.encodeInto(l, pool.subarray(base)).written;
          break;
        }
        pool[base + k] = c;
      }
      if (len > 0xffff) {
        this.size = start;
        return undefined; // not chainable: matched in JS
      }
      this.pool[at] = len & 0xff;
      this.pool[at + 1] = len >>> 8;
      this.size += len;
    }
    this.info[rec * 2] = start;
    this.info[rec * 2 + 1] = literals.length | (leading ? 1 << 16 : 0) | (trailing ? 1 << 17 : 0) | (1 << 18);
    return { bytes: this.pool, start, end: this.size };
  }
  bytes(): Uint8Array {
    return this.pool.subarray(0, this.size);
  }

  /** The table as arrays (the index cache), and back. */
  snapshot(): { info: Int32Array; pool: Uint8Array } {
    return { info: this.info, pool: this.bytes() };
  }

  static restore(records: number, s: { info: Int32Array; pool: Uint8Array }): ChainTable {
    const t = new ChainTable(records);
    t.info.set(s.info);
    t.pool = s.pool;
    t.size = s.pool.length;
    return t;
  }
}
const CFG = 0; // 9 rows of 8 i32 (see server/wasm/scan.ts)
/** The helper thread's copy of the config block (its own chain scratch). */
const HELPER_CFG = 320;

const compiled: (object | null | undefined)[] = [undefined, undefined];

/** The compiled module for a plain (0) or a shared (1) memory. */
function module(shared: number): object | undefined {
  if (compiled[shared] === undefined) {
    try {
      compiled[shared] = wasm ? new wasm.Module(Buffer.from(shared ? SCAN_WASM_SHARED_BASE64 : SCAN_WASM_BASE64, 'base64')) : null;
    } catch {
      compiled[shared] = null;
    }
  }
  return compiled[shared] ?? undefined;
}

const align = (x: number): number => (x + 63) & ~63;

/** Largest block scanned by the module (larger: the JS scan). */
const MAX_BLOCK = 4 << 20;
/** Room for listed lines: at most one per hit, plus lines with ESC / backslash (more than one such
 * line per 64 bytes: the JS walk takes the block). */
const linesCap = (hits: number, n: number): number => hits + (n >>> 6) + 64;
/** Room (i32) for the matches found in the module (more: the JS walk takes the block). */
const resultsCap = (n: number): number => (n >>> 1) + 4096;

type Exports = {
  scan(cfg: number, block: number, n: number, cand: number, out: number, cap: number): number;
  hits(): number;
  lines(cfg: number, block: number, n: number, hits: number, count: number, out: number, cap: number, res: number, rcap: number): number;
  lineCount(): number;
  verified(): number;
};

class WasmScanner implements NativeScanner {
  private readonly mem: WasmMemory;
  private u8: Uint8Array;
  private i32: Int32Array;
  private readonly fn: Exports;
  /** Start of the per-block area (block, candidates, hits, lines); everything before is the index. */
  private readonly area: number;

  /** The helper thread's config block (a copy of the main one with its own chain scratch), or 0. */
  private readonly helperCfg: number = HELPER_CFG;
  private helper: ScanHelper | undefined;
  /** The helper's stamp array (zeroed for each new helper: its instance counts stamps from 0). */
  private helperStamps = { at: 0, bytes: 0 };

  constructor(
    api: WasmApi,
    private readonly mod: object,
    private readonly shared: boolean,
    tiers: ByteTier[],
    pairs: PairKeys,
    chains: ChainTable | undefined,
    longer: LongerKeys,
  ) {
    let size = 640;
    const at: { filter: number; table: number }[] = [];
    for (const t of tiers) {
      const filter = size;
      size = align(size + t.filter.byteLength);
      const table = size;
      size = align(size + t.table.byteLength);
      at.push({ filter, table });
    }
    const pairsAt = size;
    size = align(size + Math.max(16, pairs.table.byteLength));
    const longerPool = longer.bytes();
    const longerAt = { at: size, pool: 0 };
    size = align(size + longer.at.byteLength);
    longerAt.pool = size;
    size = align(size + longerPool.byteLength + 8);
    const pool = chains?.bytes();
    const chainAt = { info: size, pool: 0, stamps: 0, spans: 0 };
    if (chains && pool) {
      size = align(size + chains.info.byteLength);
      chainAt.pool = size;
      size = align(size + pool.byteLength + 8);
      chainAt.stamps = size;
      size = align(size + chains.records * 4);
      chainAt.spans = size;
      size = align(size + SPANS * 8);
    }
    // the helper thread's own chain scratch: verify() stamps records per call and its instance
    // counts stamps apart from this one's, so the two may not share the array
    const helperAt = { stamps: size, spans: 0 };
    if (chains && pool) {
      this.helperStamps = { at: size, bytes: chains.records * 4 };
      size = align(size + chains.records * 4);
      helperAt.spans = size;
      size = align(size + SPANS * 8);
    }
    this.area = size;
    const initial = Math.ceil((size + (16 << 20)) / PAGE);
    this.mem = new api.Memory(shared ? { initial, maximum: MAX_PAGES, shared: true } : { initial });
    const inst = new api.Instance(mod, { env: { memory: this.mem } });
    this.fn = inst.exports as unknown as Exports;
    this.u8 = new Uint8Array(this.mem.buffer);
    this.i32 = new Int32Array(this.mem.buffer);
    const i32 = this.i32;
    tiers.forEach((t, k) => {
      new Int32Array(this.mem.buffer, at[k]!.filter, t.filter.length).set(t.filter);
      new Int32Array(this.mem.buffer, at[k]!.table, t.table.length).set(t.table);
      // rows (8 i32 each): T12, T8, T4 at i32 0, 8, 16; the chain table at 24; A16, A8, T2 at 32,
      // 40, 48; the pair keys at 56; T4s at 64
      const row = (CFG >> 2) + (k < 3 ? k * 8 : k < 6 ? 32 + (k - 3) * 8 : 64);
      i32[row] = at[k]!.filter;
      i32[row + 1] = t.filterShift;
      i32[row + 2] = at[k]!.table;
      i32[row + 3] = t.table.length / BUCKET_WORDS;
      i32[row + 4] = t.keyLen;
      i32[row + 5] = t.size;
      i32[row + 6] = t.bitmapBits;
      i32[row + 7] = t.stride;
    });
    // the pair keys (see PairKeys) at i32 56, 57
    new Uint8Array(this.mem.buffer, pairsAt, pairs.table.length).set(pairs.table);
    i32[56] = pairsAt;
    i32[57] = pairs.count;
    // the longer keys (see LongerKeys) at i32 58, 59
    new Int32Array(this.mem.buffer, longerAt.at, longer.at.length).set(longer.at);
    new Uint8Array(this.mem.buffer, longerAt.pool, longerPool.length).set(longerPool);
    i32[58] = longerAt.at;
    i32[59] = longerAt.pool;
    if (chains && pool) {
      new Int32Array(this.mem.buffer, chainAt.info, chains.info.length).set(chains.info);
      new Uint8Array(this.mem.buffer, chainAt.pool, pool.length).set(pool);
      i32[24] = chainAt.info;
      i32[25] = chainAt.pool;
      i32[26] = chainAt.stamps;
      i32[27] = chains.records;
      i32[28] = chainAt.spans;
      i32[29] = SPANS;
    }
    i32.copyWithin(HELPER_CFG >> 2, CFG >> 2, (CFG >> 2) + 80);
    if (chains && pool) {
      i32[(HELPER_CFG >> 2) + 26] = helperAt.stamps;
      i32[(HELPER_CFG >> 2) + 28] = helperAt.spans;
    }
  }

  /** Start the helper thread (see ScanHelper): from then on scanLines splits large blocks in two
   * and the helper scans the second part while this thread scans and walks the first. False when no thread
   * can be started here. */
  startHelper(spawn: SpawnThread): boolean {
    if (this.shared && !this.helper) {
      this.u8.fill(0, this.helperStamps.at, this.helperStamps.at + this.helperStamps.bytes);
      this.helperBase += this.helperVerified;
      this.helperVerified = 0;
      this.helper = ScanHelper.start(spawn, this.mod, this.mem);
    }
    return this.helper !== undefined;
  }

  /** Stop the helper thread (scans go on in this thread). */
  stopHelper(): void {
    this.helper?.stop();
    this.helper = undefined;
  }

  /** Copy the block in and run the scan at the work area: the hit count (hits at fn.hits()), or
   * undefined when the block's hits do not fit (then the JS scan takes it). Room for one hit per 4
   * bytes first; a block with more (hundreds of thousands of records, most lines matching several:
   * 500k realistic records have ~0.45 key hits per byte) is scanned once more with room for one per
   * byte. */
  private run(buf: Uint8Array, n: number): { count: number; at: Layout } | undefined {
    // the work area is ~10 bytes per block byte: blocks over 4 MiB (a line that long) scan in JS
    if (n > MAX_BLOCK) return undefined;
    return this.runWith(buf, n, firstCap(n)) ?? this.runWith(buf, n, n + 1024);
  }

  private runWith(buf: Uint8Array, n: number, cap: number): { count: number; at: Layout } | undefined {
    const at = layout(this.area, n, cap);
    this.reserve(at.end);
    this.place(buf, n, at);
    const count = this.fn.scan(CFG, at.block, n, at.cand, at.out, cap);
    return count < 0 ? undefined : { count, at };
  }

  /** Grow the memory to hold `end` bytes (only while the helper is idle). */
  private reserve(end: number): void {
    if (end > this.u8.length) {
      this.mem.grow(Math.ceil((end - this.u8.length) / PAGE));
      this.views();
    }
  }

  /** Copy buf[0, n) to the layout's block and zero the 32 bytes after it. */
  private place(buf: Uint8Array, n: number, at: Layout): void {
    this.u8.set(n === buf.length ? buf : buf.subarray(0, n), at.block);
    this.u8.fill(0, at.block + n, at.block + n + 32);
  }

  get memoryBytes(): number {
    return this.u8.length;
  }

  /** Views of the whole memory (made again after it grows: growing detaches the old ones). */
  private views(): void {
    this.u8 = new Uint8Array(this.mem.buffer);
    this.i32 = new Int32Array(this.mem.buffer);
  }

  /** The last scan's hits (reused between calls: a scan per ANSI line must not allocate). */
  private pos = new Int32Array(1024);
  private rec = new Int32Array(1024);

  scan(buf: Uint8Array, n: number): { pos: Int32Array; rec: Int32Array; count: number } | undefined {
    const r = this.run(buf, n);
    if (!r) return undefined;
    const { count } = r;
    if (this.pos.length < count) {
      this.pos = new Int32Array(count * 2);
      this.rec = new Int32Array(count * 2);
    }
    const pos = this.pos;
    const rec = this.rec;
    const i32 = this.i32;
    const at = this.fn.hits() >>> 2;
    for (let i = 0; i < count; i++) {
      pos[i] = i32[at + 2 * i]!;
      rec[i] = i32[at + 2 * i + 1]!;
    }
    return { pos, rec, count };
  }

  scanLines(buf: Uint8Array, n: number): NativeLines | undefined {
    const r = this.run(buf, n);
    if (!r) return undefined;
    const hits = this.fn.hits();
    const lines = this.fn.lines(CFG, r.at.block, n, hits, r.count, r.at.lines, r.at.linesCap, r.at.res, r.at.resCap);
    if (lines < 0) return undefined;
    return this.linesAt(r.at, lines, hits, r.count, this.fn.lineCount(), this.fn.verified());
  }

  /** The walk's result as views of the memory (valid until the next call). */
  private linesAt(at: Layout, lines: number, hits: number, count: number, total: number, verified: number): NativeLines {
    const entries = new Int32Array(this.mem.buffer, at.lines, lines * 8);
    return {
      entries,
      lines,
      pairs: new Int32Array(this.mem.buffer, hits, count * 2),
      results: new Int32Array(this.mem.buffer, at.res, lines > 0 ? entries[lines * 8 - 1]! : 0),
      total,
      verified: verified + this.helperBase + this.helperVerified,
    };
  }

  /** This thread's share of a split block: it scans its part and walks it while the helper scans
   * the rest, so the helper's part is the larger one when the walk is slow (many matched lines). */
  private share = 0.5;

  /** Move the share so that both parts take the same time, from the last block's times per byte
   * of each thread (halfway there each block: the times are noisy). */
  private balance(mainPerByte: number, helperPerByte: number): void {
    if (!(mainPerByte > 0 && helperPerByte > 0)) return;
    const even = helperPerByte / (mainPerByte + helperPerByte);
    this.share = Math.min(0.9, Math.max(0.1, (this.share + even) / 2));
  }

  /** Candidates the helper's instance verified so far (its running count, as verified()), and
   * those of the helpers before it. */
  private helperVerified = 0;
  private helperBase = 0;
  helped = 0;

  /**
   * buf[0, n) in two parts of whole lines when a helper runs and the block is large: [0, split)
   * scanned here while the helper scans [split, n) in its own work area. `first` is the first
   * part's walk; `rest()` waits for the second's (its line numbers, positions and indexes are its
   * own: add first.total and `split`), or undefined when it cannot be had (then the caller walks
   * [split, n) in JS). The caller walks the first part while the helper is still at the second.
   * Each part is walked as a block of its own: a key never holds a line break, so each part's hits
   * are the block's hits there. Undefined when the first part does not fit (the JS walk takes the
   * block). Without a helper, or for a small block: the whole block as `first`.
   */
  scanParts(buf: Uint8Array, n: number): NativeParts | undefined {
    const split = this.helper && n >= SPLIT_MIN && n <= MAX_BLOCK ? splitPoint(buf, n, this.share) : -1;
    if (split < 0) {
      const whole = this.scanLines(buf, n);
      return whole && { first: whole };
    }
    const helper = this.helper!;
    const nb = n - split;
    // everything this thread scans for this block (the first part, again with more room, the
    // stripped text of its coloured lines, a JSON line's values) stays below what an n-byte block
    // with room for a hit per byte needs; the helper's area is above it
    const atB = layout(layout(this.area, n, n + 1024).end, nb, firstCap(nb));
    this.reserve(atB.end);
    this.place(buf.subarray(split, n), nb, atB);
    helper.post(this.helperCfg, atB, nb);
    const t0 = performance.now();
    const first = this.scanLines(buf, split);
    const rest = (): { lines: NativeLines; split: number } | undefined => {
      // this thread's time for its part: the scan and the caller's walk of it
      const mainMs = performance.now() - t0;
      const done = helper.wait();
      if (done) this.balance(mainMs / split, done.ms / nb);
      let b: NativeLines | undefined;
      if (!done) this.stopHelper(); // the thread died or hangs: scan on here from now on
      else if (done.lines >= 0) {
        this.helperVerified = done.verified;
        this.helped++;
        b = this.linesAt(atB, done.lines, done.hits, done.count, done.total, this.fn.verified());
      }
      // its hits or lines did not fit the helper's room (or the helper is gone): here, with more
      b ??= this.scanLines(buf.subarray(split, n), nb);
      return b && { lines: b, split };
    };
    if (!first) {
      rest(); // (the helper's area is free again; the JS walk takes the whole block)
      return undefined;
    }
    return { first, split, rest };
  }
}

/** Where one block's work is in the memory (all byte addresses; caps in entries). */
interface Layout {
  block: number;
  cand: number;
  out: number;
  cap: number;
  lines: number;
  linesCap: number;
  res: number;
  resCap: number;
  end: number;
}

/** Room for one hit per 4 bytes (the first try). */
const firstCap = (n: number): number => (n >>> 2) + 1024;

/** The work area of an n-byte block at `base` with room for `cap` hits: the block (and its 32 zero
 * bytes), T12's passes (one list entry per probe at most), the anchored passes (bounded: see
 * server/wasm/scan.ts), the small tiers' (three per probe, plus the anchored A8 ones), the hits
 * (and the sort's scratch), the listed lines, the verified matches. */
function layout(base: number, n: number, cap: number): Layout {
  const block = base;
  const cand = align(block + n + 32);
  const perProbe = ((n + 7) >>> 3) + 16;
  const anchorCap = (n >>> 3) + 1024;
  const out = align(cand + (4 * perProbe + 2 * anchorCap) * 8);
  const lines = align(out + 2 * cap * 8);
  const lc = linesCap(cap, n);
  const res = align(lines + lc * 32);
  const resCap = resultsCap(n);
  return { block, cand, out, cap, lines, linesCap: lc, res, resCap, end: align(res + resCap * 4) };
}

/** Blocks this large or larger are split between two threads when a helper runs. */
const SPLIT_MIN = 64 << 10;

/** Where the second part of buf[0, n) starts: after the first \n from n * share on (-1: none). */
function splitPoint(buf: Uint8Array, n: number, share: number): number {
  const nl = buf.indexOf(0x0a, Math.floor(n * share));
  return nl >= 0 && nl + 1 < n ? nl + 1 : -1;
}

/** The helper's code: a second instance of the module on the same memory, scanning what the
 * control words say (see ScanHelper). */
const HELPER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { mod, memory, ctl } = workerData;
const x = new WebAssembly.Instance(mod, { env: { memory } }).exports;
const c = new Int32Array(ctl);
for (;;) {
  Atomics.wait(c, 0, 0);
  if (Atomics.load(c, 0) === 2) break;
  const t0 = performance.now();
  try {
    const count = x.scan(c[4], c[5], c[6], c[7], c[8], c[9]);
    c[16] = count;
    if (count >= 0) {
      const hits = x.hits();
      c[17] = hits;
      c[18] = x.lines(c[4], c[5], c[6], hits, count, c[10], c[11], c[12], c[13]);
      c[19] = x.lineCount();
    }
    c[20] = x.verified();
  } catch {
    c[16] = -2;
  }
  c[21] = Math.round((performance.now() - t0) * 1000);
  Atomics.store(c, 0, 0);
  Atomics.store(c, 1, 1);
  Atomics.notify(c, 1);
}
`;

/** How long a block may take the helper before it is given up (it hangs or died). */
const HELPER_TIMEOUT_MS = 20_000;

/** What the helper found in its part: as the module's own calls return them (lines -1: did not
 * fit). */
interface HelperResult {
  count: number;
  hits: number;
  lines: number;
  total: number;
  verified: number;
  /** How long the helper took (milliseconds). */
  ms: number;
}

/**
 * The thread that scans the second part of each large block (WasmScanner.scanParts). It
 * shares the module's memory: the index is there once, and each part has its own work area.
 * Control words (i32, shared): [0] job (0 none, 1 scan, 2 stop), [1] done, [4..13] the scan's and
 * the walk's arguments, [16..21] count, hits, lines, lineCount, verified, microseconds taken. The
 * caller blocks in wait() for the part (Atomics.wait; the split follows the threads' times, so it
 * is mostly done by then).
 */
class ScanHelper {
  private constructor(
    private readonly thread: { unref(): void; terminate(): unknown },
    private readonly c: Int32Array,
  ) {}

  static start(spawn: SpawnThread, mod: object, memory: WasmMemory): ScanHelper | undefined {
    try {
      const ctl = new SharedArrayBuffer(32 * 4);
      const thread = spawn(HELPER_SOURCE, { mod, memory, ctl });
      // never keeps the process alive; it is stopped with the scanner or dies with the process
      thread.unref();
      return new ScanHelper(thread, new Int32Array(ctl));
    } catch {
      return undefined;
    }
  }

  /** A job posted and not waited for yet. */
  private pending = false;

  post(cfg: number, at: Layout, n: number): void {
    // (a caller that never asked for the last part: its job must be done before the area is reused)
    if (this.pending) this.wait();
    this.pending = true;
    const c = this.c;
    c[4] = cfg;
    c[5] = at.block;
    c[6] = n;
    c[7] = at.cand;
    c[8] = at.out;
    c[9] = at.cap;
    c[10] = at.lines;
    c[11] = at.linesCap;
    c[12] = at.res;
    c[13] = at.resCap;
    Atomics.store(c, 1, 0);
    Atomics.store(c, 0, 1);
    Atomics.notify(c, 0);
  }

  /** The posted part's result, or undefined when the helper failed or did not answer in time. */
  wait(): HelperResult | undefined {
    this.pending = false;
    const c = this.c;
    if (Atomics.wait(c, 1, 0, HELPER_TIMEOUT_MS) === 'timed-out' || c[16]! === -2) return undefined;
    const count = c[16]!;
    return { count, hits: c[17]!, lines: count >= 0 ? c[18]! : -1, total: c[19]!, verified: c[20]!, ms: c[21]! / 1000 };
  }

  stop(): void {
    Atomics.store(this.c, 0, 2);
    Atomics.notify(this.c, 0);
    void this.thread.terminate();
  }
}

/** The WebAssembly scanner over index, or undefined when the runtime cannot run it. Its memory is
 * shared where the runtime allows it (a helper thread can be started), else plain. */
export function wasmScanner(index: ByteIndex, chains?: ChainTable): NativeScanner | undefined {
  if (!wasm) return undefined;
  const { t12, t8, t4, a16, a8, t2, t4s } = index.tiers;
  for (const shared of typeof SharedArrayBuffer === 'function' ? [1, 0] : [0]) {
    const mod = module(shared);
    if (!mod) continue;
    try {
      return new WasmScanner(wasm, mod, shared === 1, [t12, t8, t4, a16, a8, t2, t4s], index.pairs, chains, index.longer);
    } catch {
      // (a shared memory refused: the plain module)
    }
  }
  return undefined;
}
