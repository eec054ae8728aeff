// Loads the WebAssembly build of the byte scanner (server/wasm/scan.ts, embedded as
// scanWasm.generated.ts) and runs it over a ByteIndex: the index's filters and tables are copied
// once into the module's memory, each block is copied in, the hits are copied out. Returns
// undefined wherever WebAssembly is unavailable; ByteIndex then scans in JS (same results).

import { type ByteIndex, type ByteTier, type NativeLines, type NativeScanner, type PairKeys, BUCKET_WORDS } from './bytes';
import { SCAN_WASM_BASE64 } from './scanWasm.generated';

/** The part of the WebAssembly JS API used here (lib "dom" is not in this project's lib). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (mod: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (desc: { initial: number }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

const PAGE = 65536;
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

let compiled: object | null | undefined;

function module(): object | undefined {
  if (compiled === undefined) {
    try {
      compiled = wasm ? new wasm.Module(Buffer.from(SCAN_WASM_BASE64, 'base64')) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled ?? undefined;
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

  constructor(api: WasmApi, mod: object, tiers: ByteTier[], pairs: PairKeys, chains: ChainTable | undefined) {
    let size = 320;
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
    this.area = size;
    this.mem = new api.Memory({ initial: Math.ceil((size + (16 << 20)) / PAGE) });
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
  }

  /** Copy the block in and run the scan: the hit count (hits at fn.hits()), or undefined when the
   * block's hits do not fit (then the JS scan takes it). Room for one hit per 4 bytes first; a
   * block with more (hundreds of thousands of records, most lines matching several: 500k realistic
   * records have ~0.45 key hits per byte) is scanned once more with room for one per byte. */
  private run(buf: Uint8Array, n: number): { count: number; cap: number; after: number } | undefined {
    // the work area is ~10 bytes per block byte: blocks over 4 MiB (a line that long) scan in JS
    if (n > MAX_BLOCK) return undefined;
    return this.runWith(buf, n, (n >>> 2) + 1024) ?? this.runWith(buf, n, n + 1024);
  }

  private runWith(buf: Uint8Array, n: number, cap: number): { count: number; cap: number; after: number } | undefined {
    const block = this.area;
    const cand = align(block + n + 32);
    // T12's passes (one list entry per probe at most), the anchored passes (bounded: see
    // server/wasm/scan.ts), the small tiers' (three per probe, plus the anchored A8 ones)
    const perProbe = ((n + 7) >>> 3) + 16;
    const anchorCap = (n >>> 3) + 1024;
    const candBytes = (4 * perProbe + 2 * anchorCap) * 8;
    const out = align(cand + candBytes);
    const after = align(out + 2 * cap * 8);
    // room for the line walk's output too (see scanLines): listed lines, then verified matches
    const need = after + linesCap(cap, n) * 32 + resultsCap(n) * 4;
    if (need > this.u8.length) {
      this.mem.grow(Math.ceil((need - this.u8.length) / PAGE));
      this.views();
    }
    this.u8.set(n === buf.length ? buf : buf.subarray(0, n), block);
    this.u8.fill(0, block + n, block + n + 32);
    const count = this.fn.scan(CFG, block, n, cand, out, cap);
    return count < 0 ? undefined : { count, cap, after };
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
    const cap = linesCap(r.count, n);
    const res = align(r.after + cap * 32);
    const lines = this.fn.lines(CFG, this.area, n, hits, r.count, r.after, cap, res, resultsCap(n));
    if (lines < 0) return undefined;
    const entries = new Int32Array(this.mem.buffer, r.after, lines * 8);
    return {
      entries,
      lines,
      pairs: new Int32Array(this.mem.buffer, hits, r.count * 2),
      results: new Int32Array(this.mem.buffer, res, lines > 0 ? entries[lines * 8 - 1]! : 0),
      total: this.fn.lineCount(),
      verified: this.fn.verified(),
    };
  }
}

/** The WebAssembly scanner over index, or undefined when the runtime cannot run it. */
export function wasmScanner(index: ByteIndex, chains?: ChainTable): NativeScanner | undefined {
  const mod = module();
  if (!mod || !wasm) return undefined;
  try {
    const { t12, t8, t4, a16, a8, t2, t4s } = index.tiers;
    return new WasmScanner(wasm, mod, [t12, t8, t4, a16, a8, t2, t4s], index.pairs, chains);
  } catch {
    return undefined;
  }
}
