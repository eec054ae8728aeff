// Loads the WebAssembly build of the byte scanner (server/wasm/scan.ts, embedded as
// scanWasm.generated.ts) and runs it over a ByteIndex: the index's filters and tables are copied
// once into the module's memory, each block is copied in, the hits are copied out. Returns
// undefined wherever WebAssembly is unavailable; ByteIndex then scans in JS (same results).

import { type ByteIndex, type ByteTier, type LongerKeys, type NativeLines, type NativePart, type NativeParts, type NativeScanner, type PairKeys, type SpawnThread, type SpawnedThread, type StagedBlock, STAGED_AHEAD } from './bytes';
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
/** Largest block staged ahead of its walk (WasmScanner.stage): the file scan's blocks are up to
 * 1 MiB + 64 KiB (core/lineScan.ts); a larger one (a line that long) is scanned when its walk
 * comes. */
const STAGE_MAX = (1 << 20) + (128 << 10);
/** Bytes of the module's memory that leaseBuffers hands out at most (a file scan leases
 * STAGED_AHEAD + 1 blocks' buffers). */
const BUFFERS_MAX = 64 << 20;
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
  place(src: number, dst: number, n: number): void;
};

class WasmScanner implements NativeScanner {
  private readonly mem: WasmMemory;
  private u8: Uint8Array;
  private i32: Int32Array;
  private readonly fn: Exports;
  /** Start of the per-block area (block, candidates, hits, lines); everything before is the index. */
  private readonly area: number;
  /** Where the slots' work areas for staged blocks start (above the area this thread's own scans
   * of a block up to STAGE_MAX bytes use; SLOT_BYTES each). */
  private readonly stageBase: number;

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
    this.stageBase = layout(size, STAGE_MAX, STAGE_MAX + 1024).end;
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
      i32[row + 3] = t.buckets;
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

  /** Start the helper thread (see ScanHelper): from then on scanParts cuts large blocks into
   * parts, which the helper scans while this thread walks them (see there). False when no thread
   * can be started here. */
  startHelper(spawn: SpawnThread, timeoutMs = HELPER_TIMEOUT_MS): boolean {
    if (this.shared && !this.helper) {
      this.u8.fill(0, this.helperStamps.at, this.helperStamps.at + this.helperStamps.bytes);
      this.helperBase += this.helperVerified;
      this.helperVerified = 0;
      this.helper = ScanHelper.start(spawn, this.mod, this.mem, timeoutMs);
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
    // the work area is ~10 bytes per block byte: blocks over 4 MiB (a line that long) scan in JS,
    // and so do those over STAGE_MAX while a staged block's work areas are above STAGE_MAX's
    if (n > MAX_BLOCK || (n > STAGE_MAX && this.waiting())) return undefined;
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

  /** Copy buf[0, n) to the layout's block and zero the 32 bytes after it (in the module when buf
   * is in its memory: leaseBuffers). */
  private place(buf: Uint8Array, n: number, at: Layout): void {
    if (this.ownBuffers.has(buf.buffer)) {
      this.fn.place(buf.byteOffset, at.block, n);
      return;
    }
    this.u8.set(n === buf.length ? buf : buf.subarray(0, n), at.block);
    this.u8.fill(0, at.block + n, at.block + n + 32);
  }

  /** Where buf is in the module's memory (a buffer of leaseBuffers, or a part of one), else -1. */
  private addressOf(buf: Uint8Array): number {
    return this.ownBuffers.has(buf.buffer) ? buf.byteOffset : -1;
  }

  /** Copy the parts of buf to their work areas, unless they are scanned where they are (cutParts
   * `inPlace`: buf in the module's memory). */
  private placeParts(buf: Uint8Array, parts: readonly Part[]): void {
    for (const p of parts) if (p.at.block === p.at.own) this.place(buf.subarray(p.start, p.end), p.end - p.start, p.at);
  }

  /** The memory objects (SharedArrayBuffers) of the buffers leaseBuffers handed out: a view on
   * one of them is in the module's memory at its byteOffset. */
  private readonly ownBuffers = new WeakSet<object>();
  /** Buffers of the module's memory handed out and given back (leaseBuffers). */
  private readonly freeBuffers: Uint8Array[] = [];
  /** Where leaseBuffers' buffers start (above every work area: this thread's for a block up to
   * MAX_BLOCK, and the staged slots'), and where it makes its next one. */
  private buffersStart = 0;
  private buffersEnd = 0;

  /**
   * `count` buffers of `bytes` bytes in the module's (shared) memory, for a reader's blocks
   * (core/lineBlocks.ts): the parts of a block read into one are scanned where they are, not
   * copied to their work areas first (TypedArray.set into a shared memory: 80-100 ms of this
   * thread's time in a 200 MB file scan). The buffers stay valid when the memory grows (a shared
   * memory's buffers are never detached); release() gives them back once no scan reads them.
   * Undefined for a plain memory (growing it would detach them) or past BUFFERS_MAX bytes.
   */
  leaseBuffers(count: number, bytes: number): { buffers: Uint8Array[]; release(): void } | undefined {
    if (!this.shared) return undefined;
    const size = align(bytes);
    const buffers: Uint8Array[] = [];
    if (this.buffersEnd === 0) this.buffersEnd = this.buffersStart = this.buffersBase();
    for (let k = 0; k < count; k++) {
      const i = this.freeBuffers.findIndex((b) => b.length === size);
      if (i >= 0) {
        buffers.push(this.freeBuffers.splice(i, 1)[0]!);
        continue;
      }
      if (this.buffersEnd + size - this.buffersStart > BUFFERS_MAX) {
        this.freeBuffers.push(...buffers);
        return undefined;
      }
      this.reserve(this.buffersEnd + size);
      const b = new Uint8Array(this.mem.buffer, this.buffersEnd, size);
      this.ownBuffers.add(b.buffer);
      this.buffersEnd += size;
      buffers.push(b);
    }
    let released = false;
    return {
      buffers,
      release: () => {
        if (released) return;
        released = true;
        this.freeBuffers.push(...buffers);
      },
    };
  }

  private buffersBase(): number {
    return align(Math.max(this.stageBase + SLOTS * SLOT_BYTES, layout(this.area, MAX_BLOCK, MAX_BLOCK + 1024).end));
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
    return r && this.walkAt(r.at, n, r.count);
  }

  /** The line walk of the n bytes at `at` after this thread's scan of them found `count` hits
   * (undefined when its lines do not fit). */
  private walkAt(at: Layout, n: number, count: number): NativeLines | undefined {
    const hits = this.fn.hits();
    const lines = this.fn.lines(CFG, at.block, n, hits, count, at.lines, at.linesCap, at.res, at.resCap);
    if (lines < 0) return undefined;
    return this.linesAt(at, lines, hits, count, this.fn.lineCount(), this.fn.verified());
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

  /** This thread's first part of a split block, as a share of it: set so that this thread's scan
   * of it and its walk of the whole block take what the helper's scan of the rest takes (see
   * balance; where the walk alone takes longer, the first part is FIRST_PART bytes). The parts
   * each thread takes where the other is behind even the rest out within the block. */
  private share = 0.5;

  /** Move the share so that both threads are busy for the same time, from the last block's times
   * per byte: this thread's scan (of its first part) and walk (of the whole block), the helper's
   * scan (halfway there each block: the times are noisy). */
  private balance(scanPerByte: number, walkPerByte: number, helperPerByte: number): void {
    if (!(scanPerByte > 0 && helperPerByte > 0 && walkPerByte >= 0)) return;
    // share * scan + walk = (1 - share) * helper
    const even = (helperPerByte - walkPerByte) / (scanPerByte + helperPerByte);
    this.share = Math.min(0.9, Math.max(0, (this.share + even) / 2));
  }

  /** Candidates the helper's instance verified so far (its running count, as verified()), and
   * those of the helpers before it. */
  private helperVerified = 0;
  private helperBase = 0;
  /** Blocks split into parts (of them, those staged ahead), and what became of their later parts
   * (each counts once): scanned by the helper, scanned by this thread where the helper had not
   * begun them, or scanned again here with more room (their hits did not fit, or the helper
   * failed). */
  splits = 0;
  staged = 0;
  parts = 0;
  helped = 0;
  stolen = 0;
  refits = 0;
  /** Parts of split blocks scanned where the reader put them (a leaseBuffers buffer), not copied. */
  inPlace = 0;

  /** The blocks staged in each helper slot (stage), until walked. */
  private readonly stagedIn: (Staged | undefined)[] = new Array<Staged | undefined>(SLOTS).fill(undefined);

  /** Is a staged block waiting for its walk? (Its parts' work areas are in use: a block that is
   * not staged does not split, and one larger than STAGE_MAX is left to the JS scan.) */
  private waiting(): boolean {
    return this.stagedIn.some((b) => b !== undefined && !b.walked && !b.dead);
  }


  /**
   * Hand buf[0, n) to the helper ahead of its walk: its parts are copied to their work areas and
   * the helper scans them, one after another, while this thread walks the block before (the
   * caller keeps buf[0, n) as it is until then). Pass the result to scanParts with the same bytes;
   * blocks are walked in the order staged, at most STAGED_AHEAD staged blocks ahead of the one
   * being walked (a block staged into the slot of one not walked yet makes that one an ordinary
   * block).
   * Undefined where there is no helper or the block is small or larger than STAGE_MAX.
   */
  stage(buf: Uint8Array, n: number): StagedBlock | undefined {
    const helper = this.helper;
    if (!helper || n < SPLIT_MIN || n > STAGE_MAX) return undefined;
    const slot = helper.nextSlot;
    const base = this.stageBase + slot * SLOT_BYTES;
    const address = this.addressOf(buf);
    const parts = cutParts(buf, 0, n, base, address);
    if (parts.length === 0 || parts[parts.length - 1]!.at.end > base + SLOT_BYTES) return undefined;
    // (the slot's last job, SLOTS jobs back, must be done before its areas are filled again)
    if (!helper.drain([slot])) {
      this.stopHelper();
      return undefined;
    }
    const before = this.stagedIn[slot];
    if (before && !before.walked) before.dead = true;
    this.reserve(this.stageBase + SLOTS * SLOT_BYTES);
    this.placeParts(buf, parts);
    if (address >= 0) this.inPlace += parts.length;
    const staged = new Staged(this, n, parts, helper, helper.post(this.helperCfg, parts.map((p) => ({ at: p.at, n: p.end - p.start }))));
    this.stagedIn[slot] = staged;
    return staged;
  }

  /** A staged block that will not be walked (StagedBlock.release): once the helper is done with
   * its parts, their work areas are free. */
  release(b: Staged): void {
    if (this.helper === b.helper && !this.helper.drain([b.job.slot])) this.stopHelper();
    b.dead = true;
  }

  /**
   * buf[0, n) in parts of whole lines (see NativeParts), undefined when its scan does not fit
   * (the JS walk takes the block). A block staged ahead (`staged`, from stage): its parts as the
   * helper scans them. Else, when a helper runs and the block is large: a small first part
   * [0, split) scanned here while the helper scans the parts of [split, n) one after another, each
   * in its own work area. The caller walks each part while the helper scans the later ones; where
   * the next part is not scanned yet, this thread scans one the helper has not begun, the last one
   * first, instead of waiting (both threads claim a part with a compare-and-swap), so neither
   * thread waits for the other within a block whichever of scan and walk takes longer. Each part
   * is walked as a block of its own: a key never holds a line break, so each part's hits are the
   * block's hits there. Without a helper, or for a small block: the whole block as one part.
   */
  scanParts(buf: Uint8Array, n: number, staged?: StagedBlock): NativeParts | undefined {
    if (staged instanceof Staged && staged.owner === this && staged.n === n && !staged.walked && !staged.dead) {
      staged.walked = true;
      this.splits++;
      this.staged++;
      this.parts += staged.parts.length;
      return { next: this.partsOf(buf, staged.parts, staged.helper, staged.job) };
    }
    const split = this.helper && !this.waiting() && n >= SPLIT_MIN && n <= MAX_BLOCK ? splitPoint(buf, Math.max(FIRST_PART, Math.floor(n * this.share)), n) : -1;
    if (split < 0) {
      const whole = this.scanLines(buf, n);
      let given = false;
      return whole && { next: () => (given ? undefined : ((given = true), { start: 0, end: n, lines: whole })) };
    }
    const helper = this.helper!;
    // everything this thread scans for this block outside the parts (the first part, again with
    // more room, the stripped text of its coloured lines, a JSON line's values, a part whose hits
    // did not fit) stays below what an n-byte block with room for a hit per byte needs; the parts'
    // work areas are above it
    const address = this.addressOf(buf);
    const parts = cutParts(buf, split, n, layout(this.area, n, n + 1024).end, address);
    // (the helper's jobs must be done before their areas are filled again: a helper that never
    // got to them hangs or died, and this thread scans on alone)
    if (!helper.drain()) {
      this.stopHelper();
      return this.scanParts(buf, n);
    }
    this.reserve(parts[parts.length - 1]!.at.end);
    this.placeParts(buf, parts);
    if (address >= 0) this.inPlace += parts.length;
    const job = helper.post(this.helperCfg, parts.map((p) => ({ at: p.at, n: p.end - p.start })));
    const t0 = performance.now();
    const first = this.scanLines(buf, split);
    const scanMs = performance.now() - t0;
    this.splits++;
    this.parts += parts.length;
    const rest = this.partsOf(buf, parts, helper, job, (ownMs, helperMs, helperBytes) => {
      if (helperBytes > 0) this.balance(scanMs / split, Math.max(0, performance.now() - t0 - scanMs - ownMs) / n, helperMs / helperBytes);
    });
    let given = false;
    return { next: () => (given ? rest() : ((given = true), { start: 0, end: split, lines: first })) };
  }

  /**
   * The walks of a job's parts, one per call in order (undefined after the last): the helper's
   * where it scanned the part, else this thread's (it scans the last part the helper has not
   * begun while the next one is not done, or waits for it), else scanned again here with more
   * room. `done` gets this thread's time in scans of parts and in waits, and the helper's time
   * and bytes in its parts, after the last part.
   */
  private partsOf(buf: Uint8Array, parts: readonly Part[], helper: ScanHelper, job: HelperJob, done?: (ownMs: number, helperMs: number, helperBytes: number) => void): () => NativePart | undefined {
    /** The parts this thread scanned itself (null: their hits did not fit). */
    const mine: (NativeLines | null | undefined)[] = [];
    let k = 0;
    let ownMs = 0;
    let helperMs = 0;
    let helperBytes = 0;
    let finished = false;
    return () => {
      if (k >= parts.length) {
        if (!finished) done?.(ownMs, helperMs, helperBytes);
        finished = true;
        return undefined;
      }
      const p = parts[k]!;
      let lines: NativeLines | undefined;
      while (mine[k] === undefined && this.helper === helper) {
        const d = helper.done(job);
        if (d > k) {
          if (!helper.tookPart(job, k)) break; // (this thread's: in mine[k])
          const r = helper.result(job, k);
          if (!r) this.stopHelper(); // the module threw there: scan on here from now on
          else if (r.lines >= 0) {
            this.helperVerified = r.verified;
            this.helped++;
            helperMs += r.ms;
            helperBytes += p.end - p.start;
            lines = this.linesAt(p.at, r.lines, r.hits, r.count, r.total, this.fn.verified());
          }
          break;
        }
        // not scanned yet: scan the last part the helper has not begun here, or wait
        const tw = performance.now();
        let j = parts.length - 1;
        while (j >= k && !helper.claim(job, j)) j--;
        if (j >= k) mine[j] = this.scanPart(parts[j]!) ?? null;
        else if (!helper.waitPast(job, d)) this.stopHelper(); // the thread died or hangs
        ownMs += performance.now() - tw;
      }
      if (!lines && mine[k]) {
        lines = mine[k]!;
        this.stolen++;
      }
      k++;
      if (!lines) {
        // its hits or lines did not fit the room (or the helper is gone): here, with more
        this.refits++;
        lines = this.scanLines(buf.subarray(p.start, p.end), p.end - p.start);
      }
      return { start: p.start, end: p.end, lines };
    };
  }

  /** Scan and walk a part in its own (already filled) work area, in this thread. */
  private scanPart(p: Part): NativeLines | undefined {
    const n = p.end - p.start;
    const count = this.fn.scan(CFG, p.at.block, n, p.at.cand, p.at.out, p.at.cap);
    return count < 0 ? undefined : this.walkAt(p.at, n, count);
  }
}

/** A part of a split block: its bytes' range and its work area. */
interface Part {
  start: number;
  end: number;
  at: Layout;
}

/** A block staged ahead of its walk (WasmScanner.stage): its parts, in their work areas, posted to
 * the helper as `job`. */
class Staged implements StagedBlock {
  walked = false;
  /** Its slot was staged into again before it was walked: its results are gone (it is walked as
   * a block that was not staged). */
  dead = false;
  constructor(
    readonly owner: WasmScanner,
    readonly n: number,
    readonly parts: readonly Part[],
    readonly helper: ScanHelper,
    readonly job: HelperJob,
  ) {}

  release(): void {
    if (!this.walked && !this.dead) this.owner.release(this);
  }
}

/** buf[from, n) cut into up to MAX_PARTS parts of whole lines, at least PART_MIN bytes each, their
 * work areas one after another from `base`; with `inPlace` (where buf is in the module's memory),
 * each part's block is its bytes there: the scan reads them where they are (server/wasm/scan.ts
 * reads past a block's end without taking what it finds there: a part ends after a line end, and
 * no key holds one). */
function cutParts(buf: Uint8Array, from: number, n: number, base: number, inPlace = -1): Part[] {
  const parts: Part[] = [];
  const count = Math.min(MAX_PARTS, Math.max(1, Math.floor((n - from) / PART_MIN)));
  const size = Math.floor((n - from) / count);
  for (let k = 0, start = from; k < count && start < n; k++) {
    const end = k === count - 1 ? -1 : splitPoint(buf, start + size, n);
    const stop = end < 0 ? n : end;
    const at = layout(base, stop - start, firstCap(stop - start));
    if (inPlace >= 0) at.block = inPlace + start;
    parts.push({ start, end: stop, at });
    base = at.end;
    start = stop;
  }
  return parts;
}

/** Where one block's work is in the memory (all byte addresses; caps in entries). */
interface Layout {
  /** Where the scan reads the block: `own` (its place in the layout, copied there), or where it
   * already is in the memory (cutParts inPlace). */
  block: number;
  own: number;
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
  return { block, own: block, cand, out, cap, lines, linesCap: lc, res, resCap, end: align(res + resCap * 4) };
}

/** Blocks this large or larger are split between two threads when a helper runs. */
const SPLIT_MIN = 64 << 10;
/** This thread's first part of a split block is at least this large. */
const FIRST_PART = 32 << 10;
/** The rest of a split block is cut into up to MAX_PARTS parts of at least PART_MIN bytes: the
 * last part's walk is the time the helper waits for the next block. */
const PART_MIN = 64 << 10;
const MAX_PARTS = 8;

/** The bytes of one slot's work areas for staged blocks (their parts' layouts, one after another). */
const SLOT_BYTES = layout(0, STAGE_MAX, firstCap(STAGE_MAX)).end + MAX_PARTS * (layout(0, 0, firstCap(0)).end + 512);

/** Where a part of buf[0, n) that should end near `at` ends: after the first \n from `at` on (-1:
 * none before n's last byte). */
function splitPoint(buf: Uint8Array, at: number, n: number): number {
  const nl = at < n ? buf.indexOf(0x0a, at) : -1;
  return nl >= 0 && nl + 1 < n ? nl + 1 : -1;
}

/** The helper's control words (i32): [0] jobs posted so far, [4] stop; SLOTS job slots, job j in
 * slot j % SLOTS (the next blocks' jobs are posted while this thread walks the block before them:
 * see stage), slot s's words at SLOT_WORDS[s]: parts done, parts, config block; its parts' words
 * from PART_WORDS + s * MAX_PARTS * PART_STRIDE, PART_STRIDE per part, of which PART_STATUS is
 * the part's status (0 free, 1 the helper's, 2 the caller's: claimed by compare-and-swap). */
const SLOTS = STAGED_AHEAD + 1;
// (each slot's words, and each part's, in a cache line of their own: the helper writes a slot's
// count of parts done while this thread posts the next job and polls the others)
const SLOT_WORDS = [16, 32, 48, 64, 80, 96, 112].slice(0, SLOTS);
if (SLOT_WORDS.length < SLOTS) throw new Error('wasmScan: more job slots than control words (STAGED_AHEAD is at most 6)');
const STOP_WORD = 4;
const PART_WORDS = 128;
const PART_STRIDE = 16;
const PART_STATUS = 15;
const partWord = (slot: number, k: number): number => PART_WORDS + (slot * MAX_PARTS + k) * PART_STRIDE;

/** The helper's code: a second instance of the module on the same memory, taking the jobs in the
 * order posted and scanning each job's parts one after another (see ScanHelper). */
const HELPER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
// (started early, earlyThread: the data comes as the first message)
if (workerData && workerData.mod) run(workerData);
else parentPort.once('message', run);
function run({ mod, memory, ctl }) {
const x = new WebAssembly.Instance(mod, { env: { memory } }).exports;
const c = new Int32Array(ctl);
for (let taken = 0; ; taken++) {
  for (let posted = Atomics.load(c, 0); posted <= taken && Atomics.load(c, ${STOP_WORD}) === 0; posted = Atomics.load(c, 0)) Atomics.wait(c, 0, posted);
  if (Atomics.load(c, ${STOP_WORD}) !== 0) break;
  const slot = taken % ${SLOTS};
  const w = [${SLOT_WORDS.join(', ')}][slot];
  const cfg = c[w + 2];
  const parts = c[w + 1];
  for (let k = 0; k < parts; k++) {
    const a = ${PART_WORDS} + (slot * ${MAX_PARTS} + k) * ${PART_STRIDE};
    const t0 = performance.now();
    // (the caller's thread may have taken the part: then it is only told done)
    if (Atomics.compareExchange(c, a + ${PART_STATUS}, 0, 1) === 0) try {
      const count = x.scan(cfg, c[a], c[a + 1], c[a + 2], c[a + 3], c[a + 4]);
      c[a + 9] = count;
      if (count >= 0) {
        const hits = x.hits();
        c[a + 10] = hits;
        c[a + 11] = x.lines(cfg, c[a], c[a + 1], hits, count, c[a + 5], c[a + 6], c[a + 7], c[a + 8]);
        c[a + 12] = x.lineCount();
      }
      c[a + 13] = x.verified();
    } catch {
      c[a + 9] = -2;
    }
    c[a + 14] = Math.round((performance.now() - t0) * 1000);
    Atomics.store(c, w, k + 1);
    Atomics.notify(c, w);
  }
}
}
`;

/**
 * The scan helper's thread started before its scanner exists: its Node start-up (~25 ms) then
 * overlaps the loading of the index instead of the first blocks of the scan. `spawn` of the
 * result is what a scanner's startHelper takes: its first call hands the started thread its data
 * (a message) and returns it; later calls spawn as `spawn` does. dispose(): the thread is stopped
 * if no scanner took it (it never keeps the process alive either way).
 */
export function earlyThread(spawn: SpawnThread): { spawn: SpawnThread; dispose(): void } {
  let early: SpawnedThread | undefined;
  try {
    early = spawn(HELPER_SOURCE, {});
    early.unref();
    if (!early.postMessage) {
      early.terminate();
      early = undefined;
    }
  } catch {
    early = undefined; // startHelper spawns one then, or scans without
  }
  return {
    spawn: (source, data) => {
      const t = early;
      if (!t || source !== HELPER_SOURCE) return spawn(source, data);
      early = undefined;
      t.postMessage!(data);
      return t;
    },
    dispose: () => {
      early?.terminate();
      early = undefined;
    },
  };
}

/** How long a part may take the helper before it is given up (it hangs or died), by default. */
const HELPER_TIMEOUT_MS = 20_000;

/** What the helper found in a part: as the module's own calls return them (lines -1: did not
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

/** A job posted to the helper: its slot and how many parts it has. */
interface HelperJob {
  slot: number;
  parts: number;
}

/**
 * The thread that scans the later parts of each large block (WasmScanner.scanParts), and every
 * part of a block staged ahead of its walk (WasmScanner.stage). It shares the module's memory: the
 * index is there once, and each part has its own work area. Up to SLOTS jobs are posted at a time
 * (see SLOT_WORDS); per part, PART_STRIDE words: [0..8] the scan's and the walk's arguments,
 * [9..14] count, hits, lines, lineCount, verified, microseconds taken, [PART_STATUS] who took the
 * part. The caller walks a job's parts in order; for one not done yet it scans a free one itself
 * (claim) or blocks in waitPast (Atomics.wait).
 */
class ScanHelper {
  private constructor(
    private readonly thread: { unref(): void; terminate(): unknown },
    private readonly c: Int32Array,
    private readonly timeoutMs: number,
  ) {}

  static start(spawn: SpawnThread, mod: object, memory: WasmMemory, timeoutMs: number): ScanHelper | undefined {
    try {
      const ctl = new SharedArrayBuffer((PART_WORDS + SLOTS * MAX_PARTS * PART_STRIDE) * 4);
      const thread = spawn(HELPER_SOURCE, { mod, memory, ctl });
      // never keeps the process alive; it is stopped with the scanner or dies with the process
      thread.unref();
      return new ScanHelper(thread, new Int32Array(ctl), timeoutMs);
    } catch {
      return undefined;
    }
  }

  /** Jobs posted so far, and the last job of each slot (undefined: none, or known done). */
  private posted = 0;
  private readonly live: (HelperJob | undefined)[] = new Array<HelperJob | undefined>(SLOTS).fill(undefined);

  /** The slot the next job goes to. */
  get nextSlot(): number {
    return this.posted % SLOTS;
  }

  /** Post a job to the next slot (its last job must be done: drain()). */
  post(cfg: number, parts: readonly { at: Layout; n: number }[]): HelperJob {
    const c = this.c;
    const slot = this.posted % SLOTS;
    const w = SLOT_WORDS[slot]!;
    c[w + 1] = parts.length;
    c[w + 2] = cfg;
    parts.forEach((p, k) => {
      const a = partWord(slot, k);
      c[a] = p.at.block;
      c[a + 1] = p.n;
      c[a + 2] = p.at.cand;
      c[a + 3] = p.at.out;
      c[a + 4] = p.at.cap;
      c[a + 5] = p.at.lines;
      c[a + 6] = p.at.linesCap;
      c[a + 7] = p.at.res;
      c[a + 8] = p.at.resCap;
      Atomics.store(c, a + PART_STATUS, 0);
    });
    Atomics.store(c, w, 0);
    const job = { slot, parts: parts.length };
    this.live[slot] = job;
    this.posted++;
    Atomics.store(c, 0, this.posted);
    Atomics.notify(c, 0);
    return job;
  }

  /** Parts of `job` the helper is done with (scanned, or left to the caller). */
  done(job: HelperJob): number {
    return Atomics.load(this.c, SLOT_WORDS[job.slot]!);
  }

  /** Take part k of `job` for the caller's thread: false when the helper began it (or it is taken). */
  claim(job: HelperJob, k: number): boolean {
    return Atomics.compareExchange(this.c, partWord(job.slot, k) + PART_STATUS, 0, 2) === 0;
  }

  /** Did the helper scan part k of `job` (not the caller)? */
  tookPart(job: HelperJob, k: number): boolean {
    return Atomics.load(this.c, partWord(job.slot, k) + PART_STATUS) === 1;
  }

  /** The helper's result of part k of `job`, once done(job) > k, or undefined when the module threw there. */
  result(job: HelperJob, k: number): HelperResult | undefined {
    const c = this.c;
    const a = partWord(job.slot, k);
    const count = c[a + 9]!;
    if (count === -2) return undefined;
    return { count, hits: c[a + 10]!, lines: count >= 0 ? c[a + 11]! : -1, total: c[a + 12]!, verified: c[a + 13]!, ms: c[a + 14]! / 1000 };
  }

  /** Wait until done(job) is past `done`: false when the helper did not get there in time (it
   * hangs or died; its jobs are given up). */
  waitPast(job: HelperJob, done: number): boolean {
    if (Atomics.wait(this.c, SLOT_WORDS[job.slot]!, done, this.timeoutMs) !== 'timed-out') return true;
    this.live.fill(undefined);
    return false;
  }

  /** Wait until the jobs of the given slots (default: all) are done (their results are not
   * wanted any more): false when the helper did not get there in time. */
  drain(slots?: readonly number[]): boolean {
    // (the oldest job first: the helper takes them in order)
    for (let i = 0; i < SLOTS; i++) {
      const slot = (this.posted + i) % SLOTS;
      const job = this.live[slot];
      if (!job || (slots && !slots.includes(slot))) continue;
      for (let d = this.done(job); d < job.parts; d = this.done(job)) if (!this.waitPast(job, d)) return false;
      this.live[slot] = undefined;
    }
    return true;
  }

  stop(): void {
    Atomics.store(this.c, STOP_WORD, 1);
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
