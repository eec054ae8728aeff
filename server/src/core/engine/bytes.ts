// Byte-level prefilter for scanning files: finds the records whose key occurs in a block of UTF-8
// bytes without decoding it. Used by MatchEngine.matchBytes (the CLI's file scan); the language
// server keeps matching strings (engine/prefilter.ts).
//
// The block is read as 32-bit little-endian words at aligned offsets, one probe every 8 bytes.
// At a probe j the words w0, w1, w2 give hashes that share their multiplications:
//   H12 = f(w0, w1, w2)   the 12 bytes at j     tier T12 (nearly every record)
//   H8  = f(w0, w1)       the 8 bytes at j      tier T8 (records whose literals are all shorter)
//   H4  = f(w0)           4 bytes, every 4      tier T4 (keys of 7 bytes: in the same pass; with
//                                               many keys, 6-byte windows every 2 instead: WIDE_T4)
//   H4  = f(w0)           4 bytes, every 1-3    tier T4s (literals of 4-6 bytes; a pass of its own)
//   H2  = f(w0 & 0xffff)  2 bytes, every 1-2    tier T2 (literals of 2-3 bytes; a pass of its own)
// T4s's and T2's strides follow their shortest key (a 4-byte literal needs a probe at every byte),
// so a record set without such short literals never pays for those passes, and one short record
// does not shorten the 7-byte keys of T4 (which stay as selective as their literals allow); the
// shortest few short records are pair keys (searched each on its own), so they do not shorten the
// strides of T4s and T2 either.
// A key of K bytes in a tier of window p and stride s needs K >= p + s - 1 and is indexed under
// the hashes of its s windows at offsets 0..s-1: every occurrence of the key covers exactly one
// probe position whose window lies inside it, so that probe's hash finds it. A blocked Bloom
// filter (two bits in one 32-bit word per hash) in front of each table rejects nearly all other
// probes; a hit is confirmed by a fingerprint of the key's bytes. Keys never contain control
// characters (line breaks, ESC), so a hit never spans two lines. Every key of a tier has the same
// byte length (a window of a literal's UTF-8 bytes chosen by rarity).
//
// The hot loop runs as WebAssembly (server/wasm/scan.ts, loaded by engine/wasmScan.ts) when the
// runtime has it; scanJs below is the same algorithm in JS: the reference the tests compare it
// with, and the fallback. Memory latency dominates either way: a probe costs one filter word, a
// filter pass one table cache line.

import { bitPrefix, byteRarity } from './rarity';

const C1 = 0x9e3779b1 | 0;
const C2 = 0x85ebca6b | 0;
const C3 = 0xc2b2ae35 | 0;
const C4 = 0x27d4eb2f | 0;
/** Second filter bit of a hash. */
const C5 = 0x2545f491 | 0;

/** Little-endian word of the 4 bytes of b at i (past the end: 0). */
function wordAt(b: Uint8Array, i: number): number {
  return (b[i]! | 0) | ((b[i + 1]! | 0) << 8) | ((b[i + 2]! | 0) << 16) | ((b[i + 3]! | 0) << 24);
}

function windowHash(b: Uint8Array, i: number, span: Span): number {
  if (span === 2) return Math.imul(wordAt(b, i) & 0xffff, C1);
  if (span === 4) return Math.imul(wordAt(b, i), C1);
  if (span === 6) return Math.imul(wordAt(b, i), C1) ^ Math.imul(((b[i + 4]! | 0) | ((b[i + 5]! | 0) << 8)) + 1, C2);
  const h8 = Math.imul(wordAt(b, i), C1) ^ Math.imul(wordAt(b, i + 4), C2);
  if (span === 8) return h8;
  const h12 = h8 ^ Math.imul(wordAt(b, i + 8), C3);
  if (span === 12) return h12;
  return h12 ^ Math.imul(wordAt(b, i + 12), C4);
}

export type Span = 2 | 4 | 6 | 8 | 12 | 16;

/** Fingerprint of the m bytes of b at i: stored with each window, so a probe confirms a key from
 * the text bytes (in cache) and the entry alone, without reading the key. (Its last m % 4 bytes
 * count as the key's last 4 bytes when m >= 4: no byte loop.) A candidate that is
 * wrong anyway (2^-64 with the window hash) only costs a match attempt, which is exact. */
export function fingerprint(b: Uint8Array, i: number, m: number): number {
  // independent products of the key's 4-byte words (and one of its last m % 4 bytes): a short
  // dependency chain, unlike a byte-serial hash
  let h = m;
  let k = 0;
  let c = FP0;
  for (; k + 4 <= m; k += 4) {
    h ^= Math.imul(wordAt(b, i + k), c);
    c = (c + FP_STEP) | 0;
  }
  if (k < m) {
    // the last m % 4 bytes: as the (overlapping) last word of a key of 4 bytes or more
    let tail = 0;
    if (m >= 4) tail = wordAt(b, i + m - 4);
    else for (let s = 0; k < m; k++, s += 8) tail |= b[i + k]! << s;
    h ^= Math.imul(tail, c);
  }
  h = Math.imul(h ^ (h >>> 16), C5);
  return h ^ (h >>> 15);
}

const FP0 = 0x27d4eb2f | 0;
const FP_STEP = 0x9e3779b8 | 0; // even step from an odd start: every word's constant stays odd

/** floor(h * n / 2^32) for the unsigned h: an index in [0, n) from the top bits of h (exact, as
 * the WebAssembly scanner computes it with 64-bit integers). */
function reduce(h: number, n: number): number {
  if (n <= 0x200000) return Math.floor(((h >>> 0) * n) / 4294967296);
  const hi = (h >>> 16) * n;
  const lo = (h & 0xffff) * n;
  return Math.floor((hi + Math.floor(lo / 65536)) / 65536);
}

/** The two filter bits of h inside its filter word (from its top bits; the word comes from
 * filterWord: another mix of all its bits). */
function filterMask(h: number): number {
  return (1 << (h >>> 27)) | (1 << ((h >>> 22) & 31));
}

/** The filter word of h in a filter of 2^(32 - shift) words. */
function filterWord(h: number, shift: number): number {
  return Math.imul(h, C5) >>> shift;
}

/** Does h pass tier t's filter: its bitmap bit (T8, T4), or both bits of its blocked Bloom word? */
function passes(t: ByteTier, h: number): boolean {
  if (t.bitmapBits > 0) {
    const i = h >>> (32 - t.bitmapBits);
    return ((t.filter[i >>> 5]! >>> (i & 31)) & 1) !== 0;
  }
  const m = filterMask(h);
  return (t.filter[filterWord(h, t.filterShift)]! & m) === m;
}

/** Filter bits per indexed window (each sets two bits in one word): 16 (about 1.5 % false
 * positives) while the filter stays within 2 MB, else 8 (about 5 %). Both ends measured: at 500k
 * records (4M windows) 8 bits scanned ~25 % faster than 16 (a 4 instead of an 8 MB filter; 6 and 4
 * bits were slower again: too many table lookups); at 100k 16 bits saves table lookups, each a
 * cache miss. */
function filterBits(windows: number): number {
  return windows <= 1 << 20 ? 16 : 8;
}
/** Windows per table bucket on average (of SLOTS): few buckets overflow into the next line. */
const LOAD = 3.5;
/** A bucket is 16 words (one 64-byte cache line): 5 hashes, 5 fingerprints, 5 payloads, and
 * count | overflow flag. A lookup reads one line; a full bucket spills into the next. */
export const SLOTS = 5;
export const BUCKET_WORDS = 16;
const OVERFLOW = 0x100;
/** Payload of a slot that stands for several windows of one hash (keys sharing a window: many in
 * large record sets of common words, 623 in one T12 slot at 500k realistic records): the slot's
 * fingerprint word is where in the table its windows are, as (fingerprint, payload) pairs after
 * the buckets (by window offset, largest first, then in key order), and the payload is
 * GROUPED | their count. Each hash has one slot, so a lookup stops at it, and one window's keys
 * fill no run of buckets that every lookup landing in it walks. */
const GROUPED = 0x80000000 | 0;
/** Payload bit of a key whose hits are kept only where its longer literal is (ByteIndex.longer); the
 * window offset is the payload's low 3 bits (strides are at most 8). */
const EXTENDED = 8;

/** One tier: fixed window span, stride and key length; a Bloom filter in front of a bucketed
 * hash table of [window hash, key fingerprint, record * 16 + window offset]. */
export class ByteTier {
  /** Blocked Bloom filter: 2^(32 - filterShift) words, one per hash (see filterWord, filterMask). */
  filterShift = 31;
  filter: Int32Array = new Int32Array(1);
  table: Int32Array = new Int32Array(BUCKET_WORDS);
  buckets = 1;
  /** Keys before build: record and offset of its key bytes in `src` (one buffer for all keys). */
  private readonly pendingRecs: number[] = [];
  private readonly pendingOffs: number[] = [];
  private readonly pendingSrc: Uint8Array[] = [];
  private count = 0; // keys added

  /** > 0: the filter is a plain bitmap of 2^bitmapBits bits indexed by a hash's top bits (the
   * small tiers: one load and no multiplication per probe); 0: a blocked Bloom filter. */
  bitmapBits = 0;

  constructor(
    /** Set before build (T4: 6 with many records, see WIDE_T4). */
    public span: Span,
    /** Set before build (T4, T2: from their shortest key). */
    public stride: number,
    private readonly bitmap = false,
  ) {}

  /** Key length in bytes of this tier. */
  get keyLen(): number {
    return this.span + this.stride - 1;
  }

  /** Keys added (a record may have several: the pairs of a one-byte key). */
  get size(): number {
    return this.count;
  }

  /** Records with keys in this tier. */
  records = 0;
  private lastRec = -1;

  /** Record rec's key: the keyLen bytes of src at off. `extended`: a hit is kept only where the
   * key's longer literal is (ByteIndex.longer). */
  add(rec: number, src: Uint8Array, off: number, extended = false): void {
    this.pendingSrc.push(src);
    if (rec !== this.lastRec) this.records++;
    this.lastRec = rec;
    this.pendingRecs.push(rec);
    this.pendingOffs.push(off);
    this.pendingExt.push(extended);
    this.count++;
  }
  private readonly pendingExt: boolean[] = [];

  build(): void {
    const keys = this.pendingOffs.length;
    const m = this.keyLen;
    const per = this.stride;
    const count = keys * per;
    // every window: its hash, its key's fingerprint and its payload, in key order; then the windows
    // of one hash as one group (in that order), so that each hash has one slot (GROUPED)
    const hs = new Int32Array(count);
    const fps = new Int32Array(count);
    const payloads = new Int32Array(count);
    for (let s = 0, w = 0; s < keys; s++) {
      const at = this.pendingOffs[s]!;
      const src = this.pendingSrc[s]!;
      const fp = fingerprint(src, at, m);
      const payload = this.pendingRecs[s]! * 16 + (this.pendingExt[s] ? EXTENDED : 0);
      for (let off = 0; off < per; off++, w++) {
        hs[w] = windowHash(src, at + off, this.span);
        fps[w] = fp;
        payloads[w] = payload + off;
      }
    }
    // the windows of each hash, hashes in first-seen order (a Map keeps its insertion order)
    const windowsOf = new Map<number, number[]>();
    for (let w = 0; w < count; w++) {
      const ws = windowsOf.get(hs[w]!);
      if (ws) ws.push(w);
      else windowsOf.set(hs[w]!, [w]);
    }
    let grouped = 0;
    for (const ws of windowsOf.values()) if (ws.length > 1) grouped += ws.length;
    const buckets = Math.max(1, Math.ceil(windowsOf.size / LOAD));
    this.buckets = buckets;
    const t = (this.table = new Int32Array(buckets * BUCKET_WORDS + 2 * grouped));
    if (this.bitmap) {
      // about 64 bits per window (1.5 % false positives), at least 2^16 bits (8 KB)
      this.bitmapBits = Math.min(31, Math.max(16, Math.ceil(Math.log2(Math.max(1, count) * 64))));
      this.filter = new Int32Array(2 ** (this.bitmapBits - 5));
    } else {
      // a power of two of words (at least 2): the word index is a shift, not a multiplication
      const words = Math.max(2, Math.ceil((count * filterBits(count)) / 32));
      const log = Math.ceil(Math.log2(words));
      this.filter = new Int32Array(2 ** log);
      this.filterShift = 32 - log;
    }
    const f = this.filter;
    const top = 32 - this.bitmapBits;
    let groupAt = buckets * BUCKET_WORDS;
    for (const [h, ws] of windowsOf) {
      if (this.bitmap) {
        const i = h >>> top;
        f[i >>> 5]! |= 1 << (i & 31);
      } else f[filterWord(h, this.filterShift)]! |= filterMask(h);
      let fp = fps[ws[0]!]!;
      let payload = payloads[ws[0]!]!;
      if (ws.length > 1) {
        // the slot names the group: its first word, and GROUPED | its size
        fp = groupAt;
        payload = GROUPED | ws.length;
        // by window offset, largest first (stable): a lookup works out the fingerprint once per
        // key start, and its hits come in position order (key start = probe - offset)
        ws.sort((a, b) => (payloads[b]! & 7) - (payloads[a]! & 7) || a - b);
        for (const w of ws) {
          t[groupAt++] = fps[w]!;
          t[groupAt++] = payloads[w]!;
        }
      }
      let bucket = reduce(h, buckets);
      for (;;) {
        const base = bucket * BUCKET_WORDS;
        const used = t[base + 15]! & 0xff;
        if (used < SLOTS) {
          t[base + used] = h;
          t[base + SLOTS + used] = fp;
          t[base + 2 * SLOTS + used] = payload;
          t[base + 15] = (t[base + 15]! & OVERFLOW) | (used + 1);
          break;
        }
        t[base + 15] = t[base + 15]! | OVERFLOW;
        bucket = bucket + 1 === buckets ? 0 : bucket + 1;
      }
    }
    this.pendingOffs.length = 0;
    this.pendingRecs.length = 0;
    this.pendingSrc.length = 0;
    this.pendingExt.length = 0;
  }

  bytes(): number {
    return this.filter.byteLength + this.table.byteLength;
  }

  /** The built tier as plain numbers and arrays (the index cache). */
  snapshot(): TierSnapshot {
    return { span: this.span, stride: this.stride, bitmap: this.bitmap, filterShift: this.filterShift, bitmapBits: this.bitmapBits, buckets: this.buckets, count: this.count, records: this.records, filter: this.filter, table: this.table };
  }

  static restore(t: TierSnapshot): ByteTier {
    const tier = new ByteTier(t.span, t.stride, t.bitmap);
    tier.filterShift = t.filterShift;
    tier.bitmapBits = t.bitmapBits;
    tier.buckets = t.buckets;
    tier.count = t.count;
    tier.records = t.records;
    tier.filter = t.filter;
    tier.table = t.table;
    return tier;
  }
}

export interface TierSnapshot {
  span: Span;
  stride: number;
  bitmap: boolean;
  filterShift: number;
  bitmapBits: number;
  buckets: number;
  count: number;
  records: number;
  filter: Int32Array;
  table: Int32Array;
}

export interface ByteIndexSnapshot {
  tiers: Record<keyof ByteTiers, TierSnapshot>;
  unkeyed: number[];
  pairs: { table: Uint8Array; count: number };
  longer: { at: Int32Array; pool: Uint8Array };
}

/** Bytes of a literal kept around a short key (LongerKeys). */
const LONGER_MAX = 32;

/**
 * Longer keys: a record whose key is a short window (8 bytes or less: tiers A8, T4, T4s, T2) of a
 * longer literal has up to LONGER_MAX bytes of that literal around it here, and a hit of its key is
 * kept only where they are (`stat` of `static` is no hit in `status`, `configur` of ` configured`
 * none in `configure`). Exact: wherever the record matches, the literal is there whole, and it
 * never starts before its block (a block, or a part of one, starts at a line start) nor reaches
 * past its zero padding (a literal holds no zero byte). Per record `at[rec]` is 1 + the offset of
 * its entry in `pool` (0: none); an entry is [bytes of the literal before the key, length, the
 * literal's bytes].
 */
export class LongerKeys {
  constructor(
    public at: Int32Array,
    public pool: Uint8Array = new Uint8Array(1024),
    private size = 0,
  ) {}

  /** Keep the literal src[partOff, partOff + partLen) around the key at keyOff (keyLen bytes) for
   * record rec; false when it is no longer than the key. */
  add(rec: number, src: Uint8Array, partOff: number, partLen: number, keyOff: number, keyLen: number): boolean {
    if (partLen <= keyLen) return false;
    const start = Math.max(partOff, keyOff - (LONGER_MAX >>> 1));
    const end = Math.min(partOff + partLen, start + LONGER_MAX);
    if (this.size + 2 + (end - start) > this.pool.length) {
      const p = new Uint8Array(this.pool.length * 2 + LONGER_MAX);
      p.set(this.pool.subarray(0, this.size));
      this.pool = p;
    }
    const e = this.size;
    this.pool[e] = keyOff - start;
    this.pool[e + 1] = end - start;
    this.pool.set(src.subarray(start, end), e + 2);
    this.size += 2 + (end - start);
    this.at[rec] = e + 1;
    return true;
  }

  /** Is record rec's literal around its key occurrence at buf[keyAt]? (The WebAssembly scanner's
   * longerHolds does the same.) */
  holds(rec: number, buf: Uint8Array, keyAt: number): boolean {
    const e = this.at[rec]! - 1;
    if (e < 0) return true;
    const pool = this.pool;
    const s = keyAt - pool[e]!;
    if (s < 0) return false;
    const len = pool[e + 1]!;
    for (let k = 0; k < len; k++) if (buf[s + k] !== pool[e + 2 + k]) return false;
    return true;
  }

  /** The pool as used (the index cache, the module's copy). */
  bytes(): Uint8Array {
    return this.pool.subarray(0, this.size);
  }
}

export interface ByteHits {
  /** Byte offset of each hit's key, nondecreasing (a record may repeat). */
  pos: Int32Array;
  rec: Int32Array;
  count: number;
}

export interface ByteTiers {
  /** 16 bytes at an anchor (right after a space or '_'): keys of 16 bytes starting at an anchor
   * inside a literal, one window per record (the main tier: nearly every record). */
  a16: ByteTier;
  /** 8 bytes at an anchor: records whose anchored literal runs are shorter. */
  a8: ByteTier;
  /** 12-byte windows every 8 bytes: keys of 19 bytes (records without an anchored key). */
  t12: ByteTier;
  /** 8-byte windows every 8 bytes: keys of 15 bytes (probed in the same pass as T12). */
  t8: ByteTier;
  /** 4-byte windows every 4 bytes: keys of 7 bytes (in the strided pass when there is one). */
  t4: ByteTier;
  /** 4-byte windows every 1-3 bytes: keys of 4-6 bytes, records whose literals are that short (a
   * pass of its own, only when used). */
  t4s: ByteTier;
  /** 2-byte windows every 1-2 bytes: keys of 2-3 bytes (a pass of its own, only when used). */
  t2: ByteTier;
}

/**
 * Starts a thread that runs `source` (CommonJS, with require) with `data` as its
 * require('node:worker_threads').workerData. The edges give one (the CLI: node:worker_threads);
 * the core imports no thread API, so it runs where there is none (the web build).
 */
export type SpawnThread = (source: string, data: object) => SpawnedThread;
/** A thread SpawnThread started (a worker_threads Worker); postMessage: to hand a thread started
 * before its data existed (earlyThread) its data. */
export interface SpawnedThread {
  unref(): void;
  terminate(): unknown;
  postMessage?(data: unknown): void;
}

/** The WebAssembly scanner's interface (engine/wasmScan.ts): the same hits as scanJs, or
 * undefined when it cannot take this block (then scanJs runs). */
export interface NativeScanner {
  /** Bytes of the module's memory (its copy of the index, the chain table, the block work area). */
  readonly memoryBytes: number;
  scan(buf: Uint8Array, n: number): { pos: Int32Array; rec: Int32Array; count: number } | undefined;
  /** scan, then the line walk (engine/blocks.ts jsWalk does it in JS otherwise): the lines that
   * hold hits or an ESC / backslash byte, in one part. Views into the module's memory, valid until
   * the next call. */
  scanLines(buf: Uint8Array, n: number): NativeLines | undefined;
  /** scanLines in parts when a helper thread runs (see NativeParts), else the whole block as one
   * part; a block staged ahead (stage) as the helper scans it. */
  scanParts(buf: Uint8Array, n: number, staged?: StagedBlock): NativeParts | undefined;
  /** Hand a block to the helper thread ahead of its walk (engine/wasmScan.ts stage): undefined
   * where it is not (no helper, a small or a very large block). */
  stage(buf: Uint8Array, n: number): StagedBlock | undefined;
  /** Let a second thread scan the later parts of each large block in scanParts
   * (engine/wasmScan.ts ScanHelper), given up when it does not answer within timeoutMs; false
   * when this scanner cannot (no shared memory, no thread). */
  startHelper(spawn: SpawnThread, timeoutMs?: number): boolean;
  stopHelper(): void;
  /** `count` buffers of `bytes` bytes in the module's memory for a reader's blocks (a staged block
   * read into one is scanned where it is), until release(); undefined where this scanner cannot
   * (engine/wasmScan.ts). */
  leaseBuffers?(count: number, bytes: number): { buffers: Uint8Array[]; release(): void } | undefined;
  /** Blocks split into parts so far, and what became of their later parts (each counts once):
   * scanned by the helper thread, by this thread where the helper had not begun them, or again
   * with more room (their hits did not fit, or the helper failed). */
  readonly splits: number;
  /** Of the split blocks, those staged ahead of their walk (stage). */
  readonly staged: number;
  readonly parts: number;
  readonly helped: number;
  readonly stolen: number;
  readonly refits: number;
  /** Of the split blocks' later parts, those scanned where the reader put them (leaseBuffers). */
  readonly inPlace: number;
}

/** The native line walk's result. Per listed line eight i32 in `entries`: line number, start, end
 * (without the \n), first hit, end of hits, status (0: match in JS with the hits as candidates;
 * 1: holds ESC, match in JS from scratch; 2: matched natively), first and end index of its matches
 * in `results`.
 * A natively matched line is listed only when something matched; each match in `results` is
 * [record, start, end, captures, (capture start, end) * captures], offsets in the line (plain
 * ASCII, so bytes are UTF-16 units). `pairs`: the hits as (position, record), in position order;
 * `total`: the number of lines in the block. */
/** A block's line walk in parts of whole lines (engine/wasmScan.ts scanParts): `next()` for each
 * part in order (one part when no helper thread scans parts of the block): it waits for the part
 * where the helper scans it (the helper scans the parts one after another while this thread walks
 * the ones before) and gives its byte range and its walk, whose line numbers, positions and
 * indexes are its own (add the lines before it and `start`), or lines undefined when it could not
 * be had (the JS walk takes [start, end)); undefined after the last part. Walk each part before
 * asking for the next: a part's views are valid until then. */
export interface NativeParts {
  next: () => NativePart | undefined;
}

/** How many blocks may be staged ahead of the one being walked (NativeScanner.stage): the helper
 * thread scans them while this thread walks, so it need not wait while one block takes this thread
 * longer to walk than the helper to scan, or the other way round. */
export const STAGED_AHEAD = 3;

/** A block handed to the helper thread ahead of its walk (NativeScanner.stage, ByteIndex.stage):
 * give it back with the same bytes when the block is walked. */
export interface StagedBlock {
  /** The block's length in bytes. */
  readonly n: number;
  /** It will not be walked: its work areas are free again (once the helper is done with them). */
  release(): void;
}

export interface NativePart {
  start: number;
  end: number;
  lines: NativeLines | undefined;
}

export interface NativeLines {
  entries: Int32Array;
  lines: number;
  pairs: Int32Array;
  results: Int32Array;
  total: number;
  /** The module's running count of candidate patterns it matched itself (statistics). */
  verified: number;
}

export class ByteIndex {
  /** Records without a byte key: every line is a candidate for them. */
  readonly unkeyed: number[];
  readonly tiers: ByteTiers;
  /** The WebAssembly scanner over this index, when available (set by the engine). */
  native: NativeScanner | undefined;
  private hitPos: Int32Array = new Int32Array(1024);
  private hitRec: Int32Array = new Int32Array(1024);
  private hitCount = 0;
  /** Probes that passed a filter (hash, position), looked up after the pass. */
  private candH = new Int32Array(0);
  private candP = new Int32Array(0);
  private cand8H = new Int32Array(0);
  private cand8P = new Int32Array(0);

  constructor(
    tiers: ByteTiers,
    unkeyed: number[],
    /** Records with only short literals, when few: searched key by key. */
    readonly pairs: PairKeys = new PairKeys(),
    built = false,
    /** Longer keys of records with short keys (none: a record's key alone decides). */
    readonly longer: LongerKeys = new LongerKeys(new Int32Array(0)),
  ) {
    const { a16, a8, t12, t8, t4, t4s, t2 } = tiers;
    if (
      a16.span !== 16 || a16.stride !== 1 || a8.span !== 8 || a8.stride !== 1 || t12.span !== 12 || t12.stride !== 8 || t8.span !== 8 || t8.stride !== 8 ||
      (t4.span !== 4 && !(t4.span === 6 && t4.stride === 2)) || t4.stride < 1 || t4.stride > 4 || t4s.span !== 4 || t4s.stride < 1 || t4s.stride > 3 || t2.span !== 2 || t2.stride < 1 || t2.stride > 2
    ) {
      throw new Error('ByteIndex: unsupported tier layout');
    }
    if (!built) for (const t of [a16, a8, t12, t8, t4, t4s, t2]) t.build();
    this.tiers = tiers;
    this.unkeyed = unkeyed;
  }

  /** The built index as plain numbers and arrays (the index cache). */
  snapshot(): ByteIndexSnapshot {
    const t = this.tiers;
    return {
      tiers: { a16: t.a16.snapshot(), a8: t.a8.snapshot(), t12: t.t12.snapshot(), t8: t.t8.snapshot(), t4: t.t4.snapshot(), t4s: t.t4s.snapshot(), t2: t.t2.snapshot() },
      unkeyed: this.unkeyed,
      pairs: { table: this.pairs.table, count: this.pairs.count },
      longer: { at: this.longer.at, pool: this.longer.bytes() },
    };
  }

  static restore(s: ByteIndexSnapshot): ByteIndex {
    const pairs = new PairKeys();
    pairs.table = s.pairs.table;
    pairs.count = s.pairs.count;
    const t = s.tiers;
    const tiers: ByteTiers = { a16: ByteTier.restore(t.a16), a8: ByteTier.restore(t.a8), t12: ByteTier.restore(t.t12), t8: ByteTier.restore(t.t8), t4: ByteTier.restore(t.t4), t4s: ByteTier.restore(t.t4s), t2: ByteTier.restore(t.t2) };
    return new ByteIndex(tiers, s.unkeyed, pairs, true, new LongerKeys(s.longer.at, s.longer.pool.slice(), s.longer.pool.length));
  }

  /** Sizes; bytes: the JS index (filters and tables), nativeBytes: the WebAssembly module's memory. */
  get stats(): { a16: number; a8: number; t12: number; t8: number; t4: number; t4s: number; t4sstride: number; t2: number; t2stride: number; pairs: number; unkeyed: number; bytes: number; native: boolean; nativeBytes: number } {
    const { a16, a8, t12, t8, t4, t4s, t2 } = this.tiers;
    const bytes = a16.bytes() + a8.bytes() + t12.bytes() + t8.bytes() + t4.bytes() + t4s.bytes() + t2.bytes();
    return {
      a16: a16.records,
      a8: a8.records,
      t12: t12.records,
      t8: t8.records,
      t4: t4.records,
      t4s: t4s.records,
      t4sstride: t4s.stride,
      t2: t2.records,
      t2stride: t2.stride,
      pairs: this.pairs.count,
      unkeyed: this.unkeyed.length,
      bytes,
      native: this.native !== undefined,
      nativeBytes: this.native?.memoryBytes ?? 0,
    };
  }

  private push(pos: number, rec: number): void {
    if (this.hitCount === this.hitPos.length) {
      const p = new Int32Array(this.hitPos.length * 2);
      p.set(this.hitPos);
      this.hitPos = p;
      const r = new Int32Array(this.hitRec.length * 2);
      r.set(this.hitRec);
      this.hitRec = r;
    }
    this.hitPos[this.hitCount] = pos;
    this.hitRec[this.hitCount++] = rec;
  }

  /** Hash h passed tier t's filter at byte position `probe`: look it up in its bucket(s). */
  private probe(t: ByteTier, h: number, probe: number, buf: Uint8Array, n: number): void {
    const table = t.table;
    const m = t.keyLen;
    let bucket = reduce(h, t.buckets);
    let fp = 0;
    let fpAt = -1;
    for (;;) {
      const base = bucket * BUCKET_WORDS;
      const meta = table[base + 15]!;
      const used = meta & 0xff;
      for (let i = 0; i < used; i++) {
        if (table[base + i] !== h) continue;
        // the hash's one slot: its window, or its group of windows (GROUPED)
        const payload = table[base + 2 * SLOTS + i]!;
        // g: a window's fingerprint word, its payload `gap` words on; the next window two words on
        // (a slot's own window is the only one: end = g + 1)
        let g = base + SLOTS + i;
        let end = g + 1;
        let gap = SLOTS;
        if (payload < 0) {
          g = table[g]!;
          end = g + 2 * (payload & 0x7fffffff);
          gap = 1;
        }
        for (; g < end; g += 2) {
          const pl = table[g + gap]!;
          // (a key may end in the zero padding after n: no key holds a zero byte but the pairs of a
          // one-byte key, whose occurrence at the block's last byte is found that way)
          const at = probe - (pl & 7);
          if (at < 0) continue;
          if (at !== fpAt) {
            fp = fingerprint(buf, at, m);
            fpAt = at;
          }
          if (table[g]! === fp && ((pl & EXTENDED) === 0 || this.longer.holds(pl >>> 4, buf, at))) this.push(at, pl >>> 4);
        }
        return;
      }
      if ((meta & OVERFLOW) === 0) return;
      bucket = bucket + 1 === t.buckets ? 0 : bucket + 1;
    }
  }

  /** The scan plus the line walk in the WebAssembly module, in parts (see NativeParts),
   * or undefined when there is no module or it gives up on this block (then: scan, and the walk
   * in JS). */
  scanParts(buf: Uint8Array, n: number, staged?: StagedBlock): NativeParts | undefined {
    return this.native?.scanParts(buf, n, staged);
  }

  /** buf[0, n) handed to the helper thread ahead of its walk (NativeScanner.stage), where the
   * walk will scan it in the module (not with records that have no key: engine/blocks.ts). */
  stage(buf: Uint8Array, n: number): StagedBlock | undefined {
    return this.unkeyed.length > 0 ? undefined : this.native?.stage(buf, n);
  }

  /**
   * Every key occurrence in buf[0, n) (possibly a few more: candidates are matched exactly), in
   * position order. buf's byteOffset is a multiple of 4 and the 32 bytes after n are readable and
   * zero. Runs the WebAssembly scanner when there is one.
   */
  scan(buf: Uint8Array, n: number): ByteHits {
    const native = this.native?.scan(buf, n);
    if (native) {
      this.hitPos = native.pos;
      this.hitRec = native.rec;
      this.hitCount = native.count;
      return this.sorted();
    }
    return this.scanJs(buf, n);
  }

  /** scan in JS: the reference for the WebAssembly scanner (server/wasm/scan.ts does the same). */
  scanJs(buf: Uint8Array, n: number): ByteHits {
    this.hitCount = 0;
    const words = new Int32Array(buf.buffer, buf.byteOffset, (n + 32) >>> 2);
    const { a16, a8, t12, t8, t4, t4s, t2 } = this.tiers;
    // anchored tiers: 16 (and 8) bytes right after every space and '_'
    if (a16.size > 0 || a8.size > 0) {
      for (let p = 1; p < n; p++) {
        const c = buf[p - 1];
        if (c !== 0x20 && c !== 0x5f) continue;
        const h8 = Math.imul(wordAt(buf, p), C1) ^ Math.imul(wordAt(buf, p + 4), C2);
        if (a8.size > 0 && passes(a8, h8)) this.probe(a8, h8, p, buf, n);
        if (a16.size > 0) {
          const h = h8 ^ Math.imul(wordAt(buf, p + 8), C3) ^ Math.imul(wordAt(buf, p + 12), C4);
          if (passes(a16, h)) this.probe(a16, h, p, buf, n);
        }
      }
    }
    // pair keys: each key where its two rarest bytes are
    const pt = this.pairs.table;
    for (let k = 0; k < this.pairs.count; k++) {
      const e = k * 16;
      const rec = pt[e]! | (pt[e + 1]! << 8) | (pt[e + 2]! << 16) | (pt[e + 3]! << 24);
      const len = pt[e + 4]!;
      const o1 = pt[e + 5]!;
      const o2 = pt[e + 6]!;
      const c1 = pt[e + 8 + o1]!;
      const c2 = pt[e + 8 + o2]!;
      for (let p = 0; p < n; p++) {
        if (buf[p + o1] !== c1 || buf[p + o2] !== c2) continue;
        let j = 0;
        while (j < len && buf[p + j] === pt[e + 8 + j]) j++;
        if (j === len) this.push(p, rec);
      }
    }
    // T4, T4s and T2: passes of their own at their strides
    for (const t of [t4, t4s]) {
      if (t.size === 0) continue;
      const s4 = t.stride;
      for (let p = 0; p < n; p += s4) {
        const h = t.span === 6 ? windowHash(buf, p, 6) : Math.imul(wordAt(buf, p), C1);
        if (passes(t, h)) this.probe(t, h, p, buf, n);
      }
    }
    if (t2.size > 0) {
      const s2 = t2.stride;
      for (let p = 0; p < n; p += s2) {
        const h = Math.imul((buf[p]! | 0) | ((buf[p + 1]! | 0) << 8), C1);
        if (passes(t2, h)) this.probe(t2, h, p, buf, n);
      }
    }
    if (t12.size === 0 && t8.size === 0) return this.sorted();
    const lastWord = (n + 3) >>> 2; // words from here on are padding
    // One probe every 8 bytes. T12's filter is read without branches (a branch per probe on a
    // multi-megabyte filter mispredicts and serialises the cache misses); passing probes are
    // listed and looked up afterwards.
    const cap = ((lastWord >>> 1) + 8) | 0;
    if (this.candH.length < cap) {
      this.candH = new Int32Array(cap);
      this.candP = new Int32Array(cap);
    }
    const ch = this.candH;
    const cp = this.candP;
    const f12 = t12.filter;
    const s12 = t12.filterShift;
    let nc = 0;
    let nc8 = 0;
    const use8 = t8.size > 0;
    if (use8 && this.cand8H.length < cap) {
      this.cand8H = new Int32Array(cap);
      this.cand8P = new Int32Array(cap);
    }
    const c8h = this.cand8H;
    const c8p = this.cand8P;
    for (let k = 0; k < lastWord; k += 2) {
      const h8 = Math.imul(words[k]!, C1) ^ Math.imul(words[k + 1]!, C2);
      const h = h8 ^ Math.imul(words[k + 2]!, C3);
      const mk = filterMask(h);
      ch[nc] = h;
      cp[nc] = k << 2;
      nc += (f12[filterWord(h, s12)]! & mk) === mk ? 1 : 0;
      if (use8 && passes(t8, h8)) {
        c8h[nc8] = h8;
        c8p[nc8++] = k << 2;
      }
    }
    for (let i = 0; i < nc8; i++) this.probe(t8, c8h[i]!, c8p[i]!, buf, n);
    for (let i = 0; i < nc; i++) this.probe(t12, ch[i]!, cp[i]!, buf, n);
    return this.sorted();
  }

  /** Hits come tier by tier, and a window's key starts up to 7 bytes before its probe: restore
   * position order (ties: the order found) for the caller's line walk. */
  private sorted(): ByteHits {
    const pos = this.hitPos;
    const count = this.hitCount;
    let ordered = true;
    for (let i = 1; i < count; i++)
      if (pos[i]! < pos[i - 1]!) {
        ordered = false;
        break;
      }
    if (!ordered) {
      const order = Array.from({ length: count }, (_, i) => i);
      order.sort((a, b) => pos[a]! - pos[b]! || a - b);
      const p = new Int32Array(Math.max(count, 1024));
      const r = new Int32Array(Math.max(count, 1024));
      order.forEach((from, to) => {
        p[to] = pos[from]!;
        r[to] = this.hitRec[from]!;
      });
      this.hitPos = p;
      this.hitRec = r;
    }
    return { pos: this.hitPos, rec: this.hitRec, count };
  }
}

/** Counts of window hashes over byte literals, to choose rare key windows (saturating bytes). */
export class ByteGramCounts {
  private readonly counts: Uint8Array;
  private readonly shift: number;
  constructor(
    readonly span: Span,
    bits: number,
  ) {
    this.counts = new Uint8Array(1 << bits);
    this.shift = 32 - bits;
  }
  /** Count the windows of the literal b[off, off + len) (every second one). */
  add(b: Uint8Array, off: number, len: number): void {
    for (let j = 0; j + this.span <= len; j += 2) {
      const i = windowHash(b, off + j, this.span) >>> this.shift;
      const c = this.counts[i]!;
      if (c !== 255) this.counts[i] = c + 1;
    }
  }
  /** Count the anchored windows of the literal b[off, off + len): those starting right after a
   * space or '_' inside it. */
  addAnchored(b: Uint8Array, off: number, len: number): void {
    for (let j = 1; j + this.span <= len; j++) {
      const c0 = b[off + j - 1];
      if (c0 !== 0x20 && c0 !== 0x5f) continue;
      const i = windowHash(b, off + j, this.span) >>> this.shift;
      const c = this.counts[i]!;
      if (c !== 255) this.counts[i] = c + 1;
    }
  }
  /** The count of the window of `span` bytes at b[at] (saturated at 255). */
  countAt(b: Uint8Array, at: number): number {
    return this.counts[windowHash(b, at, this.span) >>> this.shift]!;
  }
}

/** Shortest literal part kept (a part of one byte keys a record only when it has no longer one). */
const MIN_PART = 1;

/** The literals of all records as UTF-8 in one buffer, split at control characters (keys never
 * hold them), parts shorter than MIN_PART bytes dropped: part k is bytes[off[k], off[k] + len[k]), and
 * record i's parts are first[i] .. first[i + 1] - 1. */
class LiteralBytes {
  bytes = new Uint8Array(1 << 16);
  private size = 0;
  off: number[] = [];
  len: number[] = [];
  readonly first: Int32Array;
  private readonly enc = new TextEncoder();
  /** Records that take part (literalsOf gave an array, possibly empty). */
  readonly usable: Uint8Array;
  constructor(n: number, literalsOf: (i: number) => RecordLiterals) {
    this.first = new Int32Array(n + 1);
    this.usable = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      this.first[i] = this.off.length;
      const lits = literalsOf(i);
      if (!lits) continue;
      this.usable[i] = 1;
      if ('bytes' in lits) this.addEncoded(lits.bytes, lits.start, lits.end);
      else for (const l of lits) this.addLiteral(l);
    }
    this.first[n] = this.off.length;
  }
  /** Literals already in UTF-8 as (u16 length, bytes) runs in src[start, end) (a ChainTable's). */
  private addEncoded(src: Uint8Array, start: number, end: number): void {
    let p = start;
    while (p < end) {
      const len = src[p]! | (src[p + 1]! << 8);
      p += 2;
      let a = p;
      for (let k = p; k <= p + len; k++) {
        const c = k < p + len ? src[k]! : 0;
        if (c < 0x20 || c === 0x7f) {
          if (k - a >= MIN_PART) this.copyPart(src, a, k);
          a = k + 1;
        }
      }
      p += len;
    }
  }
  private copyPart(src: Uint8Array, a: number, e: number): void {
    if (this.size + (e - a) > this.bytes.length) {
      const b = new Uint8Array(Math.max(this.bytes.length * 2, this.size + (e - a)));
      b.set(this.bytes.subarray(0, this.size));
      this.bytes = b;
    }
    // literal parts are short: a loop beats making a subarray for set()
    const dst = this.bytes;
    for (let k = a, o = this.size; k < e; k++, o++) dst[o] = src[k]!;
    this.off.push(this.size);
    this.len.push(e - a);
    this.size += e - a;
  }
  private addLiteral(l: string): void {
    let start = 0;
    let ascii = true;
    for (let k = 0; k <= l.length; k++) {
      const c = k < l.length ? l.charCodeAt(k) : 0;
      if (c < 0x20 || c === 0x7f) {
        if (k - start >= MIN_PART) this.addPart(l, start, k, ascii);
        start = k + 1;
        ascii = true;
      } else if (c >= 0x80) ascii = false;
    }
  }
  private addPart(l: string, a: number, e: number, ascii: boolean): void {
    const room = (e - a) * 3;
    if (this.size + room > this.bytes.length) {
      const b = new Uint8Array(Math.max(this.bytes.length * 2, this.size + room));
      b.set(this.bytes.subarray(0, this.size));
      this.bytes = b;
    }
    const at = this.size;
    if (ascii) {
      for (let k = a; k < e; k++) this.bytes[this.size++] = l.charCodeAt(k);
    } else {
      this.size += this.enc.encodeInto(l.slice(a, e), this.bytes.subarray(this.size)).written;
    }
    this.off.push(at);
    this.len.push(this.size - at);
  }
}

/**
 * Plan the byte keys of n records from their required literals (null: a record that is never a
 * candidate, e.g. a rejected pattern) and build the index.
 */
export function buildByteIndex(literals: (readonly string[] | null)[]): ByteIndex {
  return buildByteIndexOf(literals.length, (i) => literals[i] ?? null);
}

/** buildByteIndex with each record's literals asked for once, in order, and not kept: at 500k
 * records, holding every literal string until the end made the build mostly garbage collection. */
/** A record's literals for the byte index: strings, UTF-8 already laid out as (u16 length, bytes)
 * runs in bytes[start, end), or null for a record that never takes part. */
export type RecordLiterals = readonly string[] | { bytes: Uint8Array; start: number; end: number } | null;

/** How much cheaper an anchored key is to scan for than a strided one (bits of rarity it may give
 * up): the anchored pass runs anyway and its filter stays in cache; a strided tier adds a pass. */
const ANCHOR_PREFERENCE = 6;
/** T12 and T8 are used only when at least this many records have no anchored key and would be
 * theirs (fewer: see buildByteIndexOf). */
export const FUSED_MIN = 256;
/** An anchored key this rare (bits of background information, less its sharing) is kept even when
 * a strided window would be rarer. */
const ANCHOR_GOOD = 16;

/** Best key window of m bytes inside the part b[off, off + len) by background bits less the
 * record-set sharing of its stride windows (counts: windows of `span`); start -1 when len < m. */
function bestStrided(b: Uint8Array, off: number, len: number, m: number, pre: Float64Array, counts: ByteGramCounts): { start: number; score: number } {
  if (len < m) return { start: -1, score: -Infinity };
  let start = -1;
  let score = -Infinity;
  for (let s = 0; s + m <= len; s++) {
    const sc = pre[s + m]! - pre[s]! - Math.log2(1 + counts.countAt(b, off + s));
    if (sc > score) {
      score = sc;
      start = s;
    }
  }
  return { start, score };
}

export function buildByteIndexOf(n: number, literalsOf: (i: number) => RecordLiterals): ByteIndex {
  const lb = new LiteralBytes(n, literalsOf);
  const { bytes, off, len, first, usable } = lb;
  const a16 = new ByteTier(16, 1);
  const a8 = new ByteTier(8, 1, true);
  const t12 = new ByteTier(12, 8);
  const t8 = new ByteTier(8, 8, true);
  const t4 = new ByteTier(4, 4, true);
  const t4s = new ByteTier(4, 3, true);
  const t2 = new ByteTier(2, 2, true);
  // A record's key is the window of its literals that is rarest in ordinary text (background bits,
  // engine/rarity.ts) and least shared with other records' literals (counts), by preference one
  // starting right after a space or '_' inside a literal (A16: 16 bytes, A8: 8 bytes: probed only
  // at such anchors, one window per record, so the filter stays in cache at 500k records); else a
  // strided tier (T12: windows of 19 bytes, T8: 15, T4: 7); records whose literals are all shorter
  // go to T4 (4-6 bytes) or T2 (2-3 bytes), whose strides follow their shortest keys. Every tier's
  // pass is made only when it has records.
  const bits = n > 200_000 ? 22 : n > 20_000 ? 20 : 18;
  const countsOf = new Map<string, ByteGramCounts>();
  const counts = (span: Span, anchoredOnly: boolean): ByteGramCounts => {
    const k = `${span}${anchoredOnly ? 'a' : ''}`;
    let c = countsOf.get(k);
    if (!c) {
      c = new ByteGramCounts(span, bits);
      for (let p = 0; p < off.length; p++) {
        if (anchoredOnly) {
          if (len[p]! > span) c.addAnchored(bytes, off[p]!, len[p]!);
        } else if (len[p]! >= span) c.add(bytes, off[p]!, len[p]!);
      }
      countsOf.set(k, c);
    }
    return c;
  };
  const c16 = counts(16, true);
  const c8 = counts(8, true);
  // a short key (8 bytes or less) of a longer literal: its hits are kept where the literal is
  const longer = new LongerKeys(new Int32Array(n));
  const addKey = (tier: ByteTier, i: number, key: number): void => {
    let extended = false;
    if (tier.keyLen <= 8) {
      for (let k = first[i]!; k < first[i + 1]!; k++) {
        if (off[k]! <= key && key + tier.keyLen <= off[k]! + len[k]!) {
          extended = longer.add(i, bytes, off[k]!, len[k]!, key, tier.keyLen);
          break;
        }
      }
    }
    tier.add(i, bytes, key, extended);
  };
  /** Record i's best window of tier's key length over its literals (strided: bestStrided), or -1. */
  const bestWindow = (i: number, tier: ByteTier): number => {
    const m = tier.keyLen;
    const c = counts(tier.span as Span, false);
    let best = -Infinity;
    let key = -1;
    for (let k = first[i]!; k < first[i + 1]!; k++) {
      if (len[k]! < m) continue;
      if (pre.length < len[k]! + 1) pre = new Float64Array(len[k]! * 2);
      bitPrefix(bytes, off[k]!, len[k]!, pre);
      const w = bestStrided(bytes, off[k]!, len[k]!, m, pre, c);
      if (w.start >= 0 && w.score > best) {
        best = w.score;
        key = off[k]! + w.start;
      }
    }
    return key;
  };
  let pre = new Float64Array(256);
  const unkeyed: number[] = [];
  let short: number[] = []; // records for T4 / T2 (placed once their strides are known)
  // records with an anchored or a strided key (-1: none) but no good anchored one, placed after all
  // are seen; `prefer`: the anchored one by ANCHOR_PREFERENCE
  const open: { i: number; keyA: number; tierA: ByteTier; keyS: number; tierS: ByteTier; prefer: boolean }[] = [];
  let single: number[] = []; // records whose literals are single bytes: T2 at stride 1
  const strided: [ByteTier, number][] = [
    [t12, 12],
    [t8, 8],
    [t4, 4],
  ];
  for (let i = 0; i < n; i++) {
    if (!usable[i]) continue;
    let bestA = -Infinity;
    let keyA = -1;
    let tierA = a16;
    let bestS = -Infinity;
    let keyS = -1;
    let tierS = t12;
    let longest = 0;
    for (let k = first[i]!; k < first[i + 1]!; k++) {
      const o = off[k]!;
      const l = len[k]!;
      if (l > longest) longest = l;
      if (l < 7) continue;
      if (pre.length < l + 1) pre = new Float64Array(l * 2);
      bitPrefix(bytes, o, l, pre);
      for (let p = 1; p + 8 <= l; p++) {
        const c = bytes[o + p - 1];
        if (c !== 0x20 && c !== 0x5f) continue;
        if (p + 16 <= l) {
          const sc = pre[p + 16]! - pre[p]! - Math.log2(1 + c16.countAt(bytes, o + p)) + 1; // 16 bytes verify more
          if (sc > bestA) {
            bestA = sc;
            keyA = o + p;
            tierA = a16;
          }
        }
        const sc8 = pre[p + 8]! - pre[p]! - Math.log2(1 + c8.countAt(bytes, o + p));
        if (sc8 > bestA) {
          bestA = sc8;
          keyA = o + p;
          tierA = a8;
        }
      }
    }
    // the strided windows only matter when no anchored key is good enough on its own (most records
    // have one: then neither the windows nor the strided tiers' counts are computed)
    if (!(keyA >= 0 && bestA >= ANCHOR_GOOD)) {
      for (let k = first[i]!; k < first[i + 1]!; k++) {
        const o = off[k]!;
        const l = len[k]!;
        if (l < 7) continue;
        if (pre.length < l + 1) pre = new Float64Array(l * 2);
        bitPrefix(bytes, o, l, pre);
        for (const [tier, span] of strided) {
          const w = bestStrided(bytes, o, l, tier.keyLen, pre, counts(span as Span, false));
          if (w.start >= 0 && w.score > bestS) {
            bestS = w.score;
            keyS = o + w.start;
            tierS = tier;
          }
        }
      }
    }
    if (keyA >= 0 && bestA >= ANCHOR_GOOD) addKey(tierA, i, keyA);
    else if (keyA >= 0 || keyS >= 0) open.push({ i, keyA, tierA, keyS, tierS, prefer: keyA >= 0 && bestA + ANCHOR_PREFERENCE >= bestS });
    else if (longest >= 2) short.push(i);
    else if (first[i + 1]! > first[i]!) single.push(i);
    else unkeyed.push(i);
  }
  // the records left open: anchored or strided by ANCHOR_PREFERENCE, unless so few of them have no
  // anchored key and would be T12's or T8's that those tiers' pass (every 8 bytes, fused with T4's:
  // server/wasm/scan.ts) is not worth it: then every record with an anchored key takes it, and
  // those few take their best window of T4's (which probes at a stride of its own). 76 of 100k
  // realistic full records needed T12 or T8 for want of an anchored key; 3,518 others were there
  // by preference, and their pass was a third of the key scan (one thread: 791 -> 625 ms).
  const needWide = open.filter((r) => r.keyA < 0 && r.tierS !== t4).length;
  const anchorAll = needWide < FUSED_MIN;
  for (const r of open) {
    if (r.keyA >= 0 && (r.prefer || anchorAll)) addKey(r.tierA, r.i, r.keyA);
    else if (!anchorAll || r.tierS === t4) addKey(r.tierS, r.i, r.keyS);
    else addKey(t4, r.i, bestWindow(r.i, t4));
  }
  // a record's longest literal (its index in off/len), and pair keys made of those
  const longestOf = (i: number): number => {
    let k0 = first[i]!;
    for (let k = first[i]!; k < first[i + 1]!; k++) if (len[k]! > len[k0]!) k0 = k;
    return k0;
  };
  const pairs = new PairKeys();
  // T4's 7-byte keys as 6-byte windows at stride 2 when they are many (see WIDE_T4)
  const done = (): ByteIndex => {
    if (t4.records >= WIDE_T4) {
      t4.span = 6;
      t4.stride = 2;
    }
    return new ByteIndex({ a16, a8, t12, t8, t4, t4s, t2 }, unkeyed, pairs, false, longer);
  };
  const toPairs = (recs: number[]): void => {
    for (const i of recs) {
      const k0 = longestOf(i);
      pairs.add(i, bytes, off[k0]!, Math.min(len[k0]!, PAIR_KEY));
    }
  };
  // few records with only short literals: each key searched on its own by a pair of its rarest bytes
  // (16 positions at a time), so one short record costs about what its occurrences cost and never
  // a probe at every byte
  if (short.length + single.length <= PAIR_MAX) {
    toPairs([...short, ...single]);
    return done();
  }
  // many: the short tiers T4s and T2, strides from their shortest keys (a 4-byte literal is probed
  // at every byte); T4's 7-byte keys stay as they are. The shortest ones and single bytes go to
  // pair keys when they are few: those under 6 bytes if they are few, else under 5, else under 4,
  // so that a few short records never make the others' pass probe more often. (A T2 pass probes
  // every byte or two: with 10k log templates, two such records cost a third of the scan; one
  // 4-byte literal, `Row {x} one` of the realistic 100k set, made T4s probe every byte for 611
  // records of 5-6 bytes rather than every second.)
  for (const under of [6, 5, 4]) {
    const few = short.filter((i) => len[longestOf(i)]! < under);
    if (few.length + single.length > PAIR_MAX) continue;
    toPairs([...few, ...single]);
    const paired = new Set(few);
    short = short.filter((i) => !paired.has(i));
    single = [];
    break;
  }
  let min4 = 7;
  let min2 = 3;
  const toT4: number[] = [];
  const toT2: number[] = [];
  for (const i of short) {
    const l = len[longestOf(i)]!;
    if (l >= 4) {
      toT4.push(i);
      min4 = Math.min(min4, l);
    } else {
      toT2.push(i);
      min2 = Math.min(min2, l);
    }
  }
  if (toT4.length) t4s.stride = Math.max(1, Math.min(3, min4 - 3));
  if (toT2.length) t2.stride = Math.max(1, min2 - 1);
  if (single.length) t2.stride = 1;
  for (const i of toT4) addKey(t4s, i, bestWindow(i, t4s));
  for (const i of toT2) addKey(t2, i, bestWindow(i, t2));
  // a record whose literals are single bytes: its rarest byte c, as the 256 two-byte keys (c, any)
  // of T2 (one hit per occurrence of c, the last byte of a block included: the zero padding)
  for (const i of single) {
    let c = -1;
    let best = -Infinity;
    for (let k = first[i]!; k < first[i + 1]!; k++) {
      const b = bitPrefix(bytes, off[k]!, 1, pre)[1]!;
      if (b > best) {
        best = b;
        c = bytes[off[k]!]!;
      }
    }
    const keys = singlePairs(c);
    for (let d = 0; d < 256; d++) t2.add(i, keys, 2 * d);
  }
  return done();
}

/**
 * With this many records or more, T4's 7-byte keys are indexed as 6-byte windows at stride 2
 * instead of 4-byte windows at stride 4 (the same keys: 6 + 2 - 1 = 4 + 4 - 1). A 4-byte window
 * of a key (`stat`, `tion`) occurs in much ordinary text, and each occurrence is a table probe: with
 * 1,089 such keys (10k log templates) they were 40 % of the module's scan, with 4,772 (100k
 * realistic records) more. The 6-byte windows are probed in the strided pass too (four per 8-byte
 * step: server/wasm/scan.ts), but twice as often, which the stride-4 probes of a few hundred keys
 * (the real record sets have 37-119) do not repay. Measured, two threads, count-only: templates
 * 10k 0.84 -> 0.59-0.68 s, realistic 100k 2.02 -> 1.30-1.40 s; the real sets 10-20 % slower when
 * forced wide (with a pass of their own).
 */
const WIDE_T4 = 512;

/** At most this many records with only short literals are searched as pair keys (more: T4/T2). */
const PAIR_MAX = 16;
/** Bytes of a pair key (short literals are < 7 bytes). */
export const PAIR_KEY = 8;

/** Short keys searched each on its own: a key's bytes, and the two of its bytes (offsets o1 <= o2)
 * rarest in ordinary text, compared 16 positions at a time. Layout per key (16 bytes, as the
 * WebAssembly module reads it): record (i32), length, o1, o2, 0, then the key's bytes (8). */
export class PairKeys {
  table: Uint8Array = new Uint8Array(0);
  count = 0;
  add(rec: number, src: Uint8Array, at: number, len: number): void {
    const t = new Uint8Array((this.count + 1) * 16);
    t.set(this.table);
    const e = this.count * 16;
    new DataView(t.buffer).setInt32(e, rec, true);
    let o1 = 0;
    let o2 = 0;
    // the rarest byte, then the rarest other one (by position order: o1 <= o2)
    for (let k = 1; k < len; k++) if (byteRarity(src[at + k]!) > byteRarity(src[at + o1]!)) o1 = k;
    let other = -1;
    for (let k = 0; k < len; k++) if (k !== o1 && (other < 0 || byteRarity(src[at + k]!) > byteRarity(src[at + other]!))) other = k;
    if (other >= 0) {
      o2 = Math.max(o1, other);
      o1 = Math.min(o1, other);
    } else o2 = o1;
    t[e + 4] = len;
    t[e + 5] = o1;
    t[e + 6] = o2;
    for (let k = 0; k < len; k++) t[e + 8 + k] = src[at + k]!;
    this.table = t;
    this.count++;
  }
}

const pairsOf = new Map<number, Uint8Array>();
/** The 256 byte pairs (c, 0), (c, 1), ... (c, 255) in one buffer. */
function singlePairs(c: number): Uint8Array {
  let p = pairsOf.get(c);
  if (!p) {
    p = new Uint8Array(512);
    for (let d = 0; d < 256; d++) {
      p[2 * d] = c;
      p[2 * d + 1] = d;
    }
    pairsOf.set(c, p);
  }
  return p;
}
