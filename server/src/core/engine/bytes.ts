// Byte-level prefilter for scanning files: finds the records whose key occurs in a block of UTF-8
// bytes without decoding it. Used by MatchEngine.matchBytes (the CLI's file scan); the language
// server keeps matching strings (engine/prefilter.ts).
//
// The block is read as 32-bit little-endian words at aligned offsets, one probe every 8 bytes.
// At a probe j the words w0, w1, w2 give hashes that share their multiplications:
//   H12 = f(w0, w1, w2)   the 12 bytes at j     tier T12 (nearly every record)
//   H8  = f(w0, w1)       the 8 bytes at j      tier T8 (records whose literals are all shorter)
//   H4  = f(w0)           4 bytes, every 4      tier T4 (shorter still; a pass of its own)
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
  if (span === 4) return Math.imul(wordAt(b, i), C1);
  const h8 = Math.imul(wordAt(b, i), C1) ^ Math.imul(wordAt(b, i + 4), C2);
  if (span === 8) return h8;
  const h12 = h8 ^ Math.imul(wordAt(b, i + 8), C3);
  if (span === 12) return h12;
  return h12 ^ Math.imul(wordAt(b, i + 12), C4);
}

export type Span = 4 | 8 | 12 | 16;

/** Fingerprint of the m bytes of b at i: stored with each window, so a probe confirms a key from
 * the text bytes (in cache) and the entry alone, without reading the key. A candidate that is
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
  let tail = 0;
  for (let s = 0; k < m; k++, s += 8) tail |= b[i + k]! << s;
  h ^= Math.imul(tail, c);
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
  private src: Uint8Array = new Uint8Array(0);
  private count = 0; // keys added

  /** > 0: the filter is a plain bitmap of 2^bitmapBits bits indexed by a hash's top bits (the
   * small tiers: one load and no multiplication per probe); 0: a blocked Bloom filter. */
  bitmapBits = 0;

  constructor(
    readonly span: Span,
    readonly stride: 1 | 4 | 8 | 16,
    private readonly bitmap = false,
  ) {}

  /** Key length in bytes of this tier. */
  get keyLen(): number {
    return this.span + this.stride - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Record rec's key: the keyLen bytes of src at off (every key of a tier comes from the same src). */
  add(rec: number, src: Uint8Array, off: number): void {
    this.src = src;
    this.pendingRecs.push(rec);
    this.pendingOffs.push(off);
    this.count++;
  }

  build(): void {
    const keys = this.pendingOffs.length;
    const src = this.src;
    const m = this.keyLen;
    const per = this.stride;
    const count = keys * per;
    const buckets = Math.max(1, Math.ceil(count / LOAD));
    this.buckets = buckets;
    this.table = new Int32Array(buckets * BUCKET_WORDS);
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
    const t = this.table;
    const f = this.filter;
    const top = 32 - this.bitmapBits;
    for (let s = 0; s < keys; s++) {
      const at = this.pendingOffs[s]!;
      const fp = fingerprint(src, at, m);
      const rec = this.pendingRecs[s]!;
      for (let off = 0; off < per; off++) {
        const h = windowHash(src, at + off, this.span);
        if (this.bitmap) {
          const i = h >>> top;
          f[i >>> 5]! |= 1 << (i & 31);
        } else f[filterWord(h, this.filterShift)]! |= filterMask(h);
        let bucket = reduce(h, buckets);
        for (;;) {
          const base = bucket * BUCKET_WORDS;
          const used = t[base + 15]! & 0xff;
          if (used < SLOTS) {
            t[base + used] = h;
            t[base + SLOTS + used] = fp;
            t[base + 2 * SLOTS + used] = rec * 16 + off;
            t[base + 15] = (t[base + 15]! & OVERFLOW) | (used + 1);
            break;
          }
          t[base + 15] = t[base + 15]! | OVERFLOW;
          bucket = bucket + 1 === buckets ? 0 : bucket + 1;
        }
      }
    }
    this.pendingOffs.length = 0;
    this.pendingRecs.length = 0;
    this.src = new Uint8Array(0);
  }

  bytes(): number {
    return this.filter.byteLength + this.table.byteLength;
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
  /** 4-byte windows every 4 bytes: keys of 7 bytes (a pass of its own, only when used). */
  t4: ByteTier;
}

/** The WebAssembly scanner's interface (engine/wasmScan.ts): the same hits as scanJs, or
 * undefined when it cannot take this block (then scanJs runs). */
export interface NativeScanner {
  /** Bytes of the module's memory (its copy of the index, the chain table, the block work area). */
  readonly memoryBytes: number;
  scan(buf: Uint8Array, n: number): { pos: Int32Array; rec: Int32Array; count: number } | undefined;
  /** scan, then the line walk (engine.ts matchAlignedBytes does it in JS otherwise): the lines that
   * hold hits or an ESC / backslash byte. Views into the module's memory, valid until the next call. */
  scanLines(buf: Uint8Array, n: number): NativeLines | undefined;
}

/** The native line walk's result. Per listed line eight i32 in `entries`: line number, start, end
 * (without the \n), first hit, end of hits, status (0: match in JS with the hits as candidates;
 * 1: holds ESC, match in JS from scratch; 2: matched natively), first and end index of its matches
 * in `results`.
 * A natively matched line is listed only when something matched; each match in `results` is
 * [record, start, end, captures, (capture start, end) * captures], offsets in the line (plain
 * ASCII, so bytes are UTF-16 units). `pairs`: the hits as (position, record), in position order;
 * `total`: the number of lines in the block. */
export interface NativeLines {
  entries: Int32Array;
  lines: number;
  pairs: Int32Array;
  results: Int32Array;
  total: number;
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

  constructor(tiers: ByteTiers, unkeyed: number[]) {
    const { a16, a8, t12, t8, t4 } = tiers;
    if (a16.span !== 16 || a16.stride !== 1 || a8.span !== 8 || a8.stride !== 1 || t12.span !== 12 || t12.stride !== 8 || t8.span !== 8 || t8.stride !== 8 || t4.span !== 4 || t4.stride !== 4) {
      throw new Error('ByteIndex: unsupported tier layout');
    }
    for (const t of [a16, a8, t12, t8, t4]) t.build();
    this.tiers = tiers;
    this.unkeyed = unkeyed;
  }

  /** Sizes; bytes: the JS index (filters and tables), nativeBytes: the WebAssembly module's memory. */
  get stats(): { a16: number; a8: number; t12: number; t8: number; t4: number; unkeyed: number; bytes: number; native: boolean; nativeBytes: number } {
    const { a16, a8, t12, t8, t4 } = this.tiers;
    const bytes = a16.bytes() + a8.bytes() + t12.bytes() + t8.bytes() + t4.bytes();
    return { a16: a16.size, a8: a8.size, t12: t12.size, t8: t8.size, t4: t4.size, unkeyed: this.unkeyed.length, bytes, native: this.native !== undefined, nativeBytes: this.native?.memoryBytes ?? 0 };
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
        const payload = table[base + 2 * SLOTS + i]!;
        const at = probe - (payload & 15);
        if (at < 0 || at + m > n) continue;
        if (at !== fpAt) {
          fp = fingerprint(buf, at, m);
          fpAt = at;
        }
        if (table[base + SLOTS + i] === fp) this.push(at, payload >>> 4);
      }
      if ((meta & OVERFLOW) === 0) return;
      bucket = bucket + 1 === t.buckets ? 0 : bucket + 1;
    }
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
    const { a16, a8, t12, t8, t4 } = this.tiers;
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
    if (t12.size === 0 && t8.size === 0 && t4.size === 0) return this.sorted();
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
    // T4 (few records with short keys): its own pass, one probe every 4 bytes
    if (t4.size > 0) {
      for (let k = 0; k < lastWord; k++) {
        const h = Math.imul(words[k]!, C1);
        if (passes(t4, h)) this.probe(t4, h, k << 2, buf, n);
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

/** The first window of `span` bytes of the literal b[off, off + len) that starts right after a
 * space or '_' inside it (start -1: none); cost 0. */
function firstAnchored(b: Uint8Array, off: number, len: number, span: number): { start: number; cost: number } {
  for (let j = 1; j + span <= len; j++) {
    const c = b[off + j - 1];
    if (c === 0x20 || c === 0x5f) return { start: j, cost: 0 };
  }
  return { start: -1, cost: 0 };
}

/** Counts of window hashes over byte literals, to choose rare key windows (saturating bytes). */
export class ByteGramCounts {
  private readonly counts: Uint8Array;
  private readonly shift: number;
  private scratch = new Float64Array(256);
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
  /** The rarest anchored window of the literal b[off, off + len): its start (-1: none) and count. */
  bestAnchored(b: Uint8Array, off: number, len: number): { start: number; cost: number } {
    let best = Infinity;
    let start = -1;
    for (let j = 1; j + this.span <= len; j++) {
      const c0 = b[off + j - 1];
      if (c0 !== 0x20 && c0 !== 0x5f) continue;
      const cost = this.counts[windowHash(b, off + j, this.span) >>> this.shift]!;
      if (cost < best) {
        best = cost;
        start = j;
      }
    }
    return { start, cost: best };
  }
  /** Start (in the literal) and cost of the best key of m bytes in b[off, off + len) (cost: sum of its windows' counts). */
  bestWindow(b: Uint8Array, off: number, len: number, m: number): { start: number; cost: number } {
    const span = this.span;
    const grams = len - span + 1;
    if (this.scratch.length < grams) this.scratch = new Float64Array(grams * 2);
    const c = this.scratch;
    for (let j = 0; j < grams; j++) c[j] = this.counts[windowHash(b, off + j, span) >>> this.shift]!;
    const per = m - span + 1;
    let sum = 0;
    for (let j = 0; j < per; j++) sum += c[j]!;
    let best = sum;
    let bestStart = 0;
    for (let s = 1; s + m <= len; s++) {
      sum += c[s + per - 1]! - c[s - 1]!;
      if (sum < best) {
        best = sum;
        bestStart = s;
      }
    }
    return { start: bestStart, cost: best };
  }
}

/** The literals of all records as UTF-8 in one buffer, split at control characters (keys never
 * hold them), parts shorter than 7 bytes dropped: part k is bytes[off[k], off[k] + len[k]), and
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
          if (k - a >= 7) this.copyPart(src, a, k);
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
        if (k - start >= 7) this.addPart(l, start, k, ascii);
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

export function buildByteIndexOf(n: number, literalsOf: (i: number) => RecordLiterals): ByteIndex {
  const lb = new LiteralBytes(n, literalsOf);
  const { bytes, off, len, first, usable } = lb;
  const a16 = new ByteTier(16, 1);
  const a8 = new ByteTier(8, 1, true);
  const t12 = new ByteTier(12, 8);
  const t8 = new ByteTier(8, 8, true);
  const t4 = new ByteTier(4, 4, true);
  // A record's key is, by preference: 16 bytes starting right after a space or '_' inside one of
  // its literals (A16: one window per record, probed only at such anchors, so the filter stays
  // small enough for the cache at 500k records); 8 such bytes (A8); else a strided tier (T12 for a
  // literal of >= 19 bytes, then T8, T4), whose pass over every position is only made when used.
  const tiers = [t12, t8, t4];
  const anchored = [a16, a8];
  const bits = n > 200_000 ? 22 : n > 20_000 ? 20 : 18;
  const counts = new Map<number, ByteGramCounts>();
  const countsFor = (span: Span): ByteGramCounts => {
    let c = counts.get(span);
    if (!c) {
      c = new ByteGramCounts(span, bits);
      for (let k = 0; k < off.length; k++) if (len[k]! >= span) c.add(bytes, off[k]!, len[k]!);
      counts.set(span, c);
    }
    return c;
  };
  const anchorCounts = new Map<number, ByteGramCounts>();
  const anchorCountsFor = (span: Span): ByteGramCounts => {
    let c = anchorCounts.get(span);
    if (!c) {
      c = new ByteGramCounts(span, bits);
      for (let k = 0; k < off.length; k++) if (len[k]! > span) c.addAnchored(bytes, off[k]!, len[k]!);
      anchorCounts.set(span, c);
    }
    return c;
  };
  const unkeyed: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!usable[i]) continue;
    let placed = false;
    for (const tier of anchored) {
      // A16 keys are the rarest across the records; the few A8 ones any (no counting pass for them)
      const c = tier === a16 ? anchorCountsFor(tier.span) : undefined;
      let best = Infinity;
      let key = -1;
      for (let k = first[i]!; k < first[i + 1]!; k++) {
        if (len[k]! <= tier.span) continue;
        const w = c ? c.bestAnchored(bytes, off[k]!, len[k]!) : firstAnchored(bytes, off[k]!, len[k]!, tier.span);
        if (w.start >= 0 && w.cost < best) {
          best = w.cost;
          key = off[k]! + w.start;
        }
      }
      if (key >= 0) {
        tier.add(i, bytes, key);
        placed = true;
        break;
      }
    }
    if (placed) continue;
    let l = 0;
    for (let k = first[i]!; k < first[i + 1]!; k++) if (len[k]! > l) l = len[k]!;
    const tier = tiers.find((t) => l >= t.keyLen);
    if (!tier) {
      unkeyed.push(i);
      continue;
    }
    const m = tier.keyLen;
    const c = countsFor(tier.span);
    let best = Infinity;
    let key = -1;
    for (let k = first[i]!; k < first[i + 1]!; k++) {
      if (len[k]! < m) continue;
      const w = c.bestWindow(bytes, off[k]!, len[k]!, m);
      if (w.cost < best) {
        best = w.cost;
        key = off[k]! + w.start;
      }
    }
    tier.add(i, bytes, key);
  }
  return new ByteIndex({ a16, a8, t12, t8, t4 }, unkeyed);
}
