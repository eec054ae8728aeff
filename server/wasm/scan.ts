// AssemblyScript source of the byte scanner's hot loops (compiled to WebAssembly by
// scripts/build-wasm.mjs into server/src/core/engine/scanWasm.generated.ts). `scan` does exactly
// what ByteIndex.scanJs in server/src/core/engine/bytes.ts does, on the same index layout; `lines`
// does what MatchEngine's JS line walk does (engine.ts, matchAlignedBytes). Memory is the JS
// side's (imported) and laid out by engine/wasmScan.ts; nothing here allocates. The JS versions
// are the reference: unit tests compare the two on every tier, alignment and overflow.
//
// Config block at `cfg` (i32 words), one row of 8 per tier (T12, T8, T4 at bytes 0, 32, 64; A16
// and A8 at 128, 160; T2 at 192; T4s at 256):
//   [filterPtr, filterShift, tablePtr, buckets, keyLen, size, bitmapBits, stride]
// and at 224 the pair keys: [tablePtr, count] (16 bytes each: record, length, o1, o2, 0, key bytes),
// then the longer keys: [atPtr, poolPtr] (see longerHolds).
// Filter: T12 and A16 are blocked Bloom filters (2^(32 - filterShift) words; one word per hash,
// two bits set in it); A8, T8 and T4 (few records) are plain bitmaps of 2^bitmapBits bits indexed
// by the hash's top bits.
// Table: buckets of 16 i32 (one cache line): 5 window hashes, 5 key fingerprints,
// 5 payloads (record * 16 + window offset in the key), and count | OVERFLOW. One slot per hash:
// a payload < 0 (GROUPED | count) stands for count windows of that hash, (fingerprint, payload)
// pairs at the table word the slot's fingerprint names (after the buckets).

import { LINE_CANDIDATES, LINE_ESCAPED, LINE_MATCHED } from '../src/core/engine/lineStatus';
import { nibbleBuckets } from './teddy';

const C1: i32 = 0x9e3779b1;
const C2: i32 = 0x85ebca6b;
const C3: i32 = 0xc2b2ae35;
const C4: i32 = 0x27d4eb2f;
const C5: i32 = 0x2545f491;
const SLOTS: i32 = 5;
const OVERFLOW: i32 = 0x100;
const ROW: usize = 32;
/** Rows of the anchored tiers (after the chain table's row at 96). */
const ROW_A16: usize = 128;
const ROW_A8: usize = 160;
const ROW_T2: usize = 192;
const ROW_T4S: usize = 256;
/** Bytes of the block each pair key is searched in before the next key (a multiple of 16). */
const PAIR_CHUNK: i32 = 8192;
/** Up to this many pair keys are searched key by key (more: all at once by nibble tables). */
const PAIR_EACH: i32 = 3;

/** floor(h * n / 2^32): a uniform index in [0, n) from the top bits of h. */
@inline function reduce(h: u32, n: u32): u32 {
  return <u32>((<u64>h * <u64>n) >>> 32);
}

/** Mask of the two filter bits of h inside its word (its top bits; bytes.ts filterMask). */
@inline function filterMask(h: i32): u32 {
  return (<u32>1 << (<u32>h >>> 27)) | (<u32>1 << ((<u32>h >>> 22) & 31));
}

/** Byte address of h's word in the blocked filter at f of 2^(32 - shift) words (filterWord). */
@inline function filterAt(f: usize, h: i32, shift: u32): usize {
  return f + (<usize>(<u32>(h * C5) >>> shift) << 2);
}

/** Is h's bit set in the bitmap of 2^bits bits at f? */
@inline function inBitmap(f: usize, bits: u32, h: i32): bool {
  const i = <u32>h >>> (32 - bits);
  return ((load<u32>(f + (<usize>(i >>> 5) << 2)) >>> (i & 31)) & 1) != 0;
}

const FP0: i32 = 0x27d4eb2f;
const FP_STEP: i32 = 0x9e3779b8;

/** The key fingerprint of the m bytes at p (same as bytes.ts fingerprint()): independent products
 * of its 4-byte words and of its last m % 4 bytes (as its last 4 bytes when m >= 4), mixed. */
function fingerprint(p: usize, m: i32): i32 {
  let h: i32 = m;
  let k: i32 = 0;
  let c: i32 = FP0;
  for (; k + 4 <= m; k += 4) {
    h ^= load<i32>(p + <usize>k) * c;
    c += FP_STEP;
  }
  if (k < m) {
    let tail: i32 = 0;
    if (m >= 4) tail = load<i32>(p + <usize>(m - 4));
    else for (let s: i32 = 0; k < m; k++, s += 8) tail |= <i32>load<u8>(p + <usize>k) << s;
    h ^= tail * c;
  }
  h = (h ^ <i32>(<u32>h >>> 16)) * C5;
  return h ^ <i32>(<u32>h >>> 15);
}

/** Payload bit of a key whose hits are kept only where its longer literal is (bytes.ts
 * LongerKeys); the window offset is the payload's low 3 bits. */
const EXTENDED: i32 = 8;
/** The longer keys (cfg words 58, 59): per record 1 + its entry's offset in the pool (i32), and
 * the pool: [bytes before the key, length, bytes]. */
let longerAt: usize = 0;
let longerPool: usize = 0;

/** Is record rec's longer literal around its key occurrence at block + at (LongerKeys.holds in
 * bytes.ts)? */
function longerHolds(rec: i32, block: usize, at: i32): bool {
  const e = load<i32>(longerAt + (<usize>rec << 2)) - 1;
  if (e < 0) return true;
  const q = longerPool + <usize>e;
  const s = at - <i32>load<u8>(q);
  if (s < 0) return false;
  const len = <i32>load<u8>(q, 1);
  const p = block + <usize>s;
  let k: i32 = 0;
  for (; k + 8 <= len; k += 8) if (load<u64>(p + <usize>k) != load<u64>(q + 2 + <usize>k)) return false;
  for (; k < len; k++) if (load<u8>(p + <usize>k) != load<u8>(q + 2 + <usize>k)) return false;
  return true;
}

let outPtr: usize = 0;
let outCap: i32 = 0;
let outCount: i32 = 0;

/** Look h (a window hash that passed tier `row`'s filter at byte `probe`) up in its table; append
 * the confirmed (key start, record) pairs. */
function probe(row: usize, h: i32, probe: i32, block: usize, n: i32): void {
  // the list overflowed in an earlier probe (-1 stays: the fused T4 step probes twice before it
  // checks, and a second probe that wrote on would lose the overflow and hits with it)
  if (outCount < 0) return;
  const table = <usize>load<i32>(row, 8);
  const buckets = <u32>load<i32>(row, 12);
  const m = load<i32>(row, 16);
  let bucket = reduce(<u32>h, buckets);
  let fp: i32 = 0;
  let fpAt: i32 = -1;
  const vh = i32x4.splat(h);
  for (;;) {
    const base = table + (<usize>bucket << 6);
    const meta = load<i32>(base, 60);
    const used = meta & 0xff;
    // the slots whose window hash is h (four at once, then the fifth), of the used ones
    let eq = <u32>i32x4.bitmask(i32x4.eq(v128.load(base), vh)) | (load<i32>(base, 16) == h ? 16 : 0);
    eq &= (<u32>1 << <u32>used) - 1;
    if (eq != 0) {
      // the hash's one slot (bytes.ts GROUPED): its window, or its group of windows as
      // (fingerprint, payload) pairs at the table word the slot's fingerprint names
      const slot = base + (<usize>ctz(eq) << 2);
      const payload = load<i32>(slot, SLOTS * 8);
      let g = slot + SLOTS * 4;
      let end = g + 4;
      let gap: usize = SLOTS * 4;
      if (payload < 0) {
        g = table + (<usize>load<i32>(g) << 2);
        end = g + (<usize>(payload & 0x7fffffff) << 3);
        gap = 4;
      }
      // (the next window two words on; a slot's own window is the only one: end = g + 4)
      for (; g < end; g += 8) {
        const pl = load<i32>(g + gap);
        const at = probe - (pl & 7);
        // (a key may end in the zero padding: see bytes.ts probe; one starting past the block, which
        // may be followed by the rest of a larger one, is not its hit)
        if (at < 0 || at >= n) continue;
        if (at != fpAt) {
          fp = fingerprint(block + <usize>at, m);
          fpAt = at;
        }
        if (load<i32>(g) == fp && ((pl & EXTENDED) == 0 || longerHolds(<i32>(<u32>pl >>> 4), block, at))) {
          if (outCount >= outCap) {
            outCount = -1;
            return;
          }
          const o = outPtr + (<usize>outCount << 3);
          store<i32>(o, at);
          store<i32>(o, <i32>(<u32>pl >>> 4), 4);
          outCount++;
        }
      }
      return;
    }
    if ((meta & OVERFLOW) == 0) return;
    bucket = bucket + 1 == buckets ? 0 : bucket + 1;
  }
}

/** End of the ascending run of hits that starts at i (positions nondecreasing), at most count. */
@inline function runEnd(src: usize, i: i32, count: i32): i32 {
  let j = i + 1;
  while (j < count && load<i32>(src + (<usize>j << 3)) >= load<i32>(src + (<usize>(j - 1) << 3))) j++;
  return j;
}

/** Stable sort of `count` (position, record) pairs at p by position through `tmp`; returns where
 * the sorted pairs are (p or tmp). Hits arrive as a few ascending runs (a tier's pass each):
 * adjacent runs are merged pairwise, round by round (log2 of the runs, not of the hits). */
function sortHits(p: usize, count: i32, tmp: usize): usize {
  if (count <= 1 || runEnd(p, 0, count) >= count) return p;
  let src = p;
  let dst = tmp;
  let runs: i32 = 2;
  while (runs > 1) {
    let lo: i32 = 0;
    runs = 0;
    while (lo < count) {
      const mid = runEnd(src, lo, count);
      const hi = mid < count ? runEnd(src, mid, count) : mid;
      runs++;
      let a = lo;
      let b = mid;
      let o = lo;
      while (a < mid && b < hi) {
        if (load<i32>(src + (<usize>b << 3)) < load<i32>(src + (<usize>a << 3))) {
          store<i64>(dst + (<usize>o << 3), load<i64>(src + (<usize>b << 3)));
          b++;
        } else {
          store<i64>(dst + (<usize>o << 3), load<i64>(src + (<usize>a << 3)));
          a++;
        }
        o++;
      }
      for (; a < mid; a++, o++) store<i64>(dst + (<usize>o << 3), load<i64>(src + (<usize>a << 3)));
      for (; b < hi; b++, o++) store<i64>(dst + (<usize>o << 3), load<i64>(src + (<usize>b << 3)));
      lo = hi;
    }
    // (each merge wrote one ascending run: after one merge, all is sorted in dst)
    if (runs > 1) {
      const t = src;
      src = dst;
      dst = t;
    }
  }
  return dst;
}

/** Write T12's probe at byte `pos` (hash h) at the end of the candidate list; 1 when it passes the
 * filter (the list grows), else 0 (the next probe overwrites it): no branch on the filter. */
@inline function listProbe(cand: usize, nc: i32, h: i32, pos: i32, f12: usize, s12: u32): i32 {
  const w = load<u32>(filterAt(f12, h, s12));
  const mk = filterMask(h);
  const c = cand + (<usize>nc << 3);
  store<i32>(c, h);
  store<i32>(c, pos, 4);
  return <i32>((w & mk) == mk);
}

/** A pair key's whole bytes at block + p: its hit (position, record) is added. False when the
 * hit list is full (the caller returns -1: overflow). */
@inline function pairHit(e: usize, block: usize, p: i32): bool {
  const len = <i32>load<u8>(e, 4);
  let j: i32 = 0;
  while (j < len && load<u8>(block + <usize>(p + j)) == load<u8>(e + 8 + <usize>j)) j++;
  if (j < len) return true;
  if (outCount >= outCap) return false;
  const o = outPtr + (<usize>outCount << 3);
  store<i32>(o, p);
  store<i32>(o, load<i32>(e), 4);
  outCount++;
  return true;
}

let hitsAt: usize = 0;

/** Where the last scan's sorted hits are (pairs of i32: key start, record). */
export function hits(): usize {
  return hitsAt;
}

/**
 * Every key occurrence in the n bytes at `block` (followed by 32 readable bytes: zero padding, or,
 * for a block that ends after a line end, the rest of a larger block, where no key occurrence
 * that starts in the block can reach: no key holds a line end), in position order: (key start, record) i32 pairs at hits(); returns their count, or -1 when more
 * than `cap` would be found. `cand` is scratch for 4 * (n / 8 + 16) pairs (T12's passes, then up
 * to three per probe for the small tiers) and `out` for 2 * cap.
 */
export function scan(cfg: usize, block: usize, n: i32, cand: usize, out: usize, cap: i32): i32 {
  outPtr = out;
  outCap = cap;
  outCount = 0;
  longerAt = <usize>load<i32>(cfg, 232);
  longerPool = <usize>load<i32>(cfg, 236);
  const lastWord = (n + 3) >>> 2;
  const r12 = cfg;
  const r8 = cfg + ROW;
  const r4 = cfg + 2 * ROW;
  const f12 = <usize>load<i32>(r12);
  const s12 = <u32>load<i32>(r12, 4);
  // scratch: T12's list (one entry per probe at most), the anchored list, the small tiers' list
  const anchors = cand + <usize>(((lastWord >>> 1) + 8) << 3);
  const anchorCap: i32 = (n >>> 3) + 1024;
  const small = anchors + (<usize>anchorCap << 3);
  let nc: i32 = 0;
  let ns: i32 = 0;
  let na: i32 = 0;
  const use8 = load<i32>(r8, 20) != 0;
  const use4 = load<i32>(r4, 20) != 0;
  const r2 = cfg + ROW_T2;
  const use2 = load<i32>(r2, 20) != 0;
  const rA = cfg + ROW_A16;
  const rA8 = cfg + ROW_A8;
  const useA = load<i32>(rA, 20) != 0;
  const useA8 = load<i32>(rA8, 20) != 0;
  if (useA || useA8) {
    // the anchored tiers: the 16 (and 8) bytes right after every space and '_' of the block
    const fA = <usize>load<i32>(rA);
    const sA = <u32>load<i32>(rA, 4);
    const fA8 = <usize>load<i32>(rA8);
    const bA8 = <u32>load<i32>(rA8, 24);
    const vSP = i8x16.splat(0x20);
    const vUS = i8x16.splat(0x5f);
    for (let i: i32 = 0; i < n; i += 32) {
      // 32 bytes at a time (two SIMD compares, one mask: half the loop exits, which the branch
      // predictor misses; reads up to 31 bytes into the zero padding)
      const x = v128.load(block + <usize>i);
      const y = v128.load(block + <usize>i, 16);
      let m = <u32>i8x16.bitmask(v128.or(i8x16.eq(x, vSP), i8x16.eq(x, vUS))) | (<u32>i8x16.bitmask(v128.or(i8x16.eq(y, vSP), i8x16.eq(y, vUS))) << 16);
      while (m != 0) {
        const at = i + 1 + <i32>ctz(m);
        m &= m - 1;
        if (at >= n) break;
        const q = block + <usize>at;
        const h8 = (load<i32>(q) * C1) ^ (load<i32>(q, 4) * C2);
        if (useA8 && inBitmap(fA8, bA8, h8)) {
          if (ns >= anchorCap) return -1;
          const e = small + (<usize>ns << 3);
          store<i32>(e, h8);
          store<i32>(e, (at << 2) | 3, 4);
          ns++;
        }
        if (useA) {
          const h = h8 ^ (load<i32>(q, 8) * C3) ^ (load<i32>(q, 12) * C4);
          const w = load<u32>(filterAt(fA, h, sA));
          const mk = filterMask(h);
          if ((w & mk) == mk) {
            if (na >= anchorCap) return -1;
            const e = anchors + (<usize>na << 3);
            store<i32>(e, h);
            store<i32>(e, at, 4);
            na++;
          }
        }
      }
    }
  }
  // pair keys (few records with short literals only). Up to PAIR_EACH keys: each key where its two
  // rarest bytes are, 16 positions at a time, key by key over chunks of the block that stay in the
  // first-level cache (each key's two byte vectors made once per chunk). More keys: all at once,
  // 16 positions at a time: each
  // key's first three bytes (fewer for shorter keys) looked up by nibble in small tables, one bit
  // per key (key k: bit k & 7), the three lookups ANDed; where a bit is left, that key is compared
  // in full (keys in their order: the hits of one position come out in key order, as before). The
  // tables are made in the sort's scratch half of `out` (cap >= 1024 pairs; unused until the sort).
  // Reads up to 23 bytes past a position: the zero padding.
  const pairs = <usize>load<i32>(cfg, 224);
  const np = load<i32>(cfg, 228);
  for (let c: i32 = 0; np > 0 && np <= PAIR_EACH && c < n; c += PAIR_CHUNK) {
    const ce = min(c + PAIR_CHUNK, n);
    for (let k: i32 = 0; k < np; k++) {
      const e = pairs + (<usize>k << 4);
      const o1 = <usize>load<u8>(e, 5);
      const o2 = <usize>load<u8>(e, 6);
      const v1 = i8x16.splat(load<u8>(e + 8 + o1));
      const v2 = i8x16.splat(load<u8>(e + 8 + o2));
      const b1 = block + o1;
      const b2 = block + o2;
      for (let i: i32 = c; i < ce; i += 16) {
        let m = <u32>i8x16.bitmask(v128.and(i8x16.eq(v128.load(b1 + <usize>i), v1), i8x16.eq(v128.load(b2 + <usize>i), v2)));
        while (m != 0) {
          const p = i + <i32>ctz(m);
          m &= m - 1;
          if (p >= n) break;
          if (!pairHit(e, block, p)) return -1;
        }
      }
    }
  }
  if (np > PAIR_EACH) {
    const tb = out + (<usize>cap << 3); // 3 offsets x (lo nibble, hi nibble) x 16 bytes, then 16 bytes of scratch
    memory.fill(tb, 0, 112);
    for (let k: i32 = 0; k < np; k++) {
      const e = pairs + (<usize>k << 4);
      const len = <i32>load<u8>(e, 4);
      const bit = <u8>(<u32>1 << <u32>(k & 7));
      for (let j: i32 = 0; j < 3; j++) {
        const lo = tb + <usize>(j << 5);
        const hi = lo + 16;
        if (j < len) {
          const c = <i32>load<u8>(e + 8 + <usize>j);
          store<u8>(lo + <usize>(c & 15), load<u8>(lo + <usize>(c & 15)) | bit);
          store<u8>(hi + <usize>(c >>> 4), load<u8>(hi + <usize>(c >>> 4)) | bit);
        } else {
          for (let d: usize = 0; d < 16; d++) {
            store<u8>(lo + d, load<u8>(lo + d) | bit);
            store<u8>(hi + d, load<u8>(hi + d) | bit);
          }
        }
      }
    }
    const L0 = v128.load(tb);
    const H0 = v128.load(tb, 16);
    const L1 = v128.load(tb, 32);
    const H1 = v128.load(tb, 48);
    const L2 = v128.load(tb, 64);
    const H2 = v128.load(tb, 80);
    const scratch = tb + 96;
    for (let i: i32 = 0; i < n; i += 16) {
      const r = nibbleBuckets(block + <usize>i, L0, H0, L1, H1, L2, H2);
      if (!v128.any_true(r)) continue;
      v128.store(scratch, r);
      let m = <u32>i8x16.bitmask(v128.not(i8x16.eq(r, i8x16.splat(0))));
      while (m != 0) {
        const lane = <i32>ctz(m);
        m &= m - 1;
        const p = i + lane;
        if (p >= n) break;
        const bits = <i32>load<u8>(scratch + <usize>lane);
        for (let k: i32 = 0; k < np; k++) {
          if (((bits >>> (k & 7)) & 1) == 0) continue;
          const e = pairs + (<usize>k << 4);
          if (!pairHit(e, block, p)) return -1;
        }
      }
    }
  }
  // T4 (unless fused below), T4s and T2 (records with short literals only): passes of their own at
  // their strides, looked up at once (small bitmaps, rarely passed)
  const useT12 = load<i32>(r12, 20) != 0;
  const f4 = <usize>load<i32>(r4);
  const b4 = <u32>load<i32>(r4, 24);
  const s4 = load<i32>(r4, 28);
  // T4 at stride 4 shares the strided pass's loads and first multiplication when there is one
  // (T4 of 6-byte windows at stride 2, bytes.ts WIDE_T4: keyLen 7 = span + stride - 1; fused too,
  // four probes per step of 8 bytes)
  const span6 = load<i32>(r4, 16) - s4 + 1 == 6;
  const fused4 = use4 && (s4 == 4 || span6) && (useT12 || use8);
  if (use4 && !fused4) {
    for (let p: i32 = 0; p < n; p += s4) {
      const q = block + <usize>p;
      const h = span6 ? (load<i32>(q) * C1) ^ ((<i32>load<u16>(q, 4) + 1) * C2) : load<i32>(q) * C1;
      if (inBitmap(f4, b4, h)) {
        probe(r4, h, p, block, n);
        if (outCount < 0) return -1;
      }
    }
  }
  const r4s = cfg + ROW_T4S;
  if (load<i32>(r4s, 20) != 0) {
    const f = <usize>load<i32>(r4s);
    const b = <u32>load<i32>(r4s, 24);
    const s = load<i32>(r4s, 28);
    for (let p: i32 = 0; p < n; p += s) {
      const h = load<i32>(block + <usize>p) * C1;
      if (inBitmap(f, b, h)) {
        probe(r4s, h, p, block, n);
        if (outCount < 0) return -1;
      }
    }
  }
  if (use2) {
    const f2 = <usize>load<i32>(r2);
    const b2 = <u32>load<i32>(r2, 24);
    const s2 = load<i32>(r2, 28);
    for (let p: i32 = 0; p < n; p += s2) {
      const h = <i32>load<u16>(block + <usize>p) * C1;
      if (inBitmap(f2, b2, h)) {
        probe(r2, h, p, block, n);
        if (outCount < 0) return -1;
      }
    }
  }
  if (!useT12 && !use8) {
    // no strided tier: no pass over every position
  } else if (!use8 && !fused4) {
    // one probe every 8 bytes, T12 only, without branches: probes that pass the filter are listed
    for (let k: i32 = 0; k < lastWord; k += 2) {
      const p = block + (<usize>k << 2);
      const h = (load<i32>(p) * C1) ^ (load<i32>(p, 4) * C2) ^ (load<i32>(p, 8) * C3);
      nc += listProbe(cand, nc, h, k << 2, f12, s12);
    }
  } else {
    // the same, plus T8 (the 8 bytes at k) and T4 (the 4 bytes at k and k + 4) on small bitmaps:
    // they share the multiplications and are rarely passed (predicted branches); T8's passes go to
    // a second list as (hash, position * 4 + 1), T4's are looked up at once
    const f8 = <usize>load<i32>(r8);
    const b8 = <u32>load<i32>(r8, 24);
    for (let k: i32 = 0; k < lastWord; k += 2) {
      const p = block + (<usize>k << 2);
      const a0 = load<i32>(p) * C1;
      const w1 = load<i32>(p, 4);
      const h8 = a0 ^ (w1 * C2);
      const h = h8 ^ (load<i32>(p, 8) * C3);
      if (useT12) nc += listProbe(cand, nc, h, k << 2, f12, s12);
      if (use8 && inBitmap(f8, b8, h8)) {
        const s = small + (<usize>ns << 3);
        ns++;
        store<i32>(s, h8);
        store<i32>(s, (k << 4) | 1, 4);
      }
      if (fused4) {
        const a1 = w1 * C1;
        if (span6) {
          // the 6-byte windows at k * 4 + 0, 2, 4, 6 (bytes.ts windowHash(…, 6); past n: padding,
          // which no key window holds)
          const q = k << 2;
          const e0 = a0 ^ ((<i32>(w1 & 0xffff) + 1) * C2);
          if (inBitmap(f4, b4, e0)) probe(r4, e0, q, block, n);
          const e1 = (load<i32>(p, 2) * C1) ^ ((<i32>load<u16>(p, 6) + 1) * C2);
          if (inBitmap(f4, b4, e1)) probe(r4, e1, q + 2, block, n);
          const e2 = a1 ^ ((<i32>load<u16>(p, 8) + 1) * C2);
          if (inBitmap(f4, b4, e2)) probe(r4, e2, q + 4, block, n);
          const e3 = (load<i32>(p, 6) * C1) ^ ((<i32>load<u16>(p, 10) + 1) * C2);
          if (inBitmap(f4, b4, e3)) probe(r4, e3, q + 6, block, n);
        } else {
          if (inBitmap(f4, b4, a0)) probe(r4, a0, k << 2, block, n);
          if (inBitmap(f4, b4, a1)) probe(r4, a1, (k + 1) << 2, block, n);
        }
        if (outCount < 0) return -1;
      }
    }
  }
  // the anchored passes first (their buckets touched a batch ahead, as T12's below)
  const tA = <usize>load<i32>(rA, 8);
  const bA = <u32>load<i32>(rA, 12);
  let touchedA: i32 = 0;
  for (let a: i32 = 0; a < na; a++) {
    if (a >= touchedA) {
      touchedA = min(a + 16, na);
      let sink: i32 = 0;
      for (let t = a; t < touchedA; t++) sink |= load<i32>(tA + (<usize>reduce(load<u32>(anchors + (<usize>t << 3)), bA) << 6), 60);
      if (sink == 0x7fffffff) touchedA = a;
    }
    const e = anchors + (<usize>a << 3);
    probe(rA, load<i32>(e), load<i32>(e, 4), block, n);
    if (outCount < 0) return -1;
  }
  // look the passes up in position order (both lists are ascending): hits come out nearly sorted.
  // T12's buckets are mostly cache misses: each batch of them is first touched with independent
  // loads (the CPU overlaps those misses), then probed from cache.
  const t12 = <usize>load<i32>(r12, 8);
  const b12 = <u32>load<i32>(r12, 12);
  let i: i32 = 0;
  let j: i32 = 0;
  let touched: i32 = 0;
  while (i < nc || j < ns) {
    if (i >= touched && i < nc) {
      touched = min(i + 16, nc);
      let sink: i32 = 0;
      for (let t = i; t < touched; t++) sink |= load<i32>(t12 + (<usize>reduce(load<u32>(cand + (<usize>t << 3)), b12) << 6), 60);
      if (sink == 0x7fffffff) touched = i; // keeps the loads (never true: meta counts stay small)
    }
    const ci = cand + (<usize>i << 3);
    const sj = small + (<usize>j << 3);
    const pi = i < nc ? load<i32>(ci, 4) : 0x7fffffff;
    const pj = j < ns ? load<i32>(sj, 4) >> 2 : 0x7fffffff;
    if (pj < pi) {
      const tag = load<i32>(sj, 4);
      const t = tag & 3;
      probe(t == 1 ? r8 : rA8, load<i32>(sj), tag >> 2, block, n);
      j++;
    } else {
      probe(r12, load<i32>(ci), pi, block, n);
      i++;
    }
    if (outCount < 0) return -1;
  }
  hitsAt = sortHits(out, outCount, out + (<usize>cap << 3));
  return outCount;
}

// ---------------------------------------------------------------------------------------------
// The line walk: which lines hold hits or bytes that make a line's views differ from its raw
// bytes (ESC: ANSI sequences; backslash: JSON escapes), with their numbers and bounds.

let totalLines: i32 = 0;

/** Lines in the block of the last `lines` call. */
export function lineCount(): i32 {
  return totalLines;
}

let verifiedCount: i32 = 0;

/** Candidate patterns matched here on plain lines so far (a running count, for statistics). */
export function verified(): i32 {
  return verifiedCount;
}

// ---------------------------------------------------------------------------------------------
// Exact matching of "simple" patterns (literals and (.+?) holes) on plain ASCII lines, as
// ChainMatcher.inSegment (engine/matchers.ts) does on the decoded line: each literal's first
// occurrence from the previous literal's end + 1, a leading hole needs one character before the
// first literal, a trailing hole runs to the line end less trailing whitespace. On such a line a
// byte is a UTF-16 unit, so the offsets are the string's.
//
// Chain table (cfg row 3, at cfg + 96): [infoPtr, poolPtr, stampPtr, records, spansPtr,
// spansCap] (spans: scratch for a JSON line's value spans). Per record two i32 at
// info: the offset of its literals in the pool, and count | leading << 16 | trailing << 17 |
// chainable << 18. The pool holds each literal as a u16 byte length and its UTF-8 bytes.

const CHAINABLE: i32 = 1 << 18;

/** First occurrence of the ll >= 1 bytes at lit in line[from, len), or -1 (String.indexOf; an
 * empty literal is chainMatch's own case). The first and the last byte are looked for together,
 * 16 positions at a time (a common first letter alone passes often): the last byte's loads read
 * up to 14 bytes past len (i <= len - ll), inside the block or its zero padding, never taken. */
function find(line: usize, len: i32, lit: usize, ll: i32, from: i32): i32 {
  const last = len - ll;
  const pat = i8x16.splat(load<u8>(lit));
  const tail = ll - 1;
  const pat2 = i8x16.splat(load<u8>(lit + <usize>tail));
  for (let i = from; i <= last; i += 16) {
    let m = <u32>i8x16.bitmask(v128.and(i8x16.eq(v128.load(line + <usize>i), pat), i8x16.eq(v128.load(line + <usize>(i + tail)), pat2)));
    while (m != 0) {
      const p = i + <i32>ctz(m);
      if (p > last) return -1;
      m &= m - 1;
      let k: i32 = 1;
      while (k < tail && load<u8>(line + <usize>(p + k)) == load<u8>(lit + <usize>k)) k++;
      if (k >= tail) return p;
    }
  }
  return -1;
}

@inline function isSpace(c: u32): bool {
  return c == 32 || c == 9 || c == 11 || c == 12;
}

/** Match record rec's chain on line[0, len); on a match write [rec, start, end, caps, (capStart,
 * capEnd) * caps] at res and return the number of i32 written, else 0. */
function chainMatch(line: usize, len: i32, rec: i32, info: usize, pool: usize, res: usize): i32 {
  const meta = load<i32>(info + (<usize>rec << 3), 4);
  let p = pool + <usize>load<i32>(info + (<usize>rec << 3));
  const count = meta & 0xffff;
  const leading = (meta >> 16) & 1;
  let from: i32 = leading;
  let start: i32 = -1;
  let prevEnd: i32 = 0;
  let caps: i32 = 0;
  const capAt = res + 16;
  for (let i: i32 = 0; i < count; i++) {
    const ll = <i32>load<u16>(p);
    const lit = p + 2;
    p = lit + <usize>ll;
    let pos: i32;
    if (ll == 0) {
      if (from > len) return 0;
      pos = from;
    } else {
      pos = find(line, len, lit, ll, from);
      if (pos < 0) return 0;
    }
    if (i == 0) {
      start = leading ? 0 : pos;
      if (leading) {
        store<i32>(capAt, 0);
        store<i32>(capAt, pos, 4);
        caps = 1;
      }
    } else {
      const c = capAt + (<usize>caps << 3);
      store<i32>(c, prevEnd);
      store<i32>(c, pos, 4);
      caps++;
    }
    prevEnd = pos + ll;
    from = prevEnd + 1;
  }
  let end = prevEnd;
  if ((meta >> 17) & 1) {
    if (prevEnd + 1 > len) return 0;
    end = len;
    while (end > prevEnd + 1 && isSpace(load<u8>(line + <usize>(end - 1)))) end--;
    const c = capAt + (<usize>caps << 3);
    store<i32>(c, prevEnd);
    store<i32>(c, end, 4);
    caps++;
  }
  store<i32>(res, rec);
  store<i32>(res, start, 4);
  store<i32>(res, end, 8);
  store<i32>(res, caps, 12);
  return 4 + 2 * caps;
}

/** Can line[0, len) be matched here: only ASCII and no CR (the caller dropped a final one)? Then 0
 * for a plain line, or 1 + the position of its first '{' for a JSON-structured line (last
 * non-blank character '}'; its string values are views, see jsonValues); else -1. */
function plainAscii(line: usize, len: i32): i32 {
  let open: i32 = -1;
  let i: i32 = 0;
  // 16 bytes at a time: any high bit (non-ASCII), any CR, the first '{'
  const vCR = i8x16.splat(0x0d);
  const vOPEN = i8x16.splat(0x7b);
  for (; i + 16 <= len; i += 16) {
    const x = v128.load(line + <usize>i);
    if ((i8x16.bitmask(x) | i8x16.bitmask(i8x16.eq(x, vCR))) != 0) return -1;
    if (open < 0) {
      const b = i8x16.bitmask(i8x16.eq(x, vOPEN));
      if (b != 0) open = i + <i32>ctz(b);
    }
  }
  for (; i < len; i++) {
    const c = load<u8>(line + <usize>i);
    if (c >= 0x80 || c == 0x0d) return -1;
    if (c == 0x7b && open < 0) open = i;
  }
  if (open < 0) return 0;
  let e = len;
  while (e > 0 && (load<u8>(line + <usize>(e - 1)) == 32 || load<u8>(line + <usize>(e - 1)) == 9)) e--;
  return e > 0 && load<u8>(line + <usize>(e - 1)) == 0x7d ? open + 1 : 0;
}

/** The string values of a JSON-structured line without backslashes, as text.ts jsonValueViews
 * finds them from its first '{': every non-empty string not followed by ':' (a key). Writes (start,
 * end) pairs at `spans`, at most `cap`; returns their number, or -1 when there are more. */
function jsonValues(line: usize, len: i32, open: i32, spans: usize, cap: i32): i32 {
  let count: i32 = 0;
  let i = open;
  for (;;) {
    let q = i;
    while (q < len && load<u8>(line + <usize>q) != 0x22) q++;
    if (q >= len) break;
    let j = q + 1;
    while (j < len && load<u8>(line + <usize>j) != 0x22) j++;
    if (j >= len) break; // unterminated string: not JSON
    let k = j + 1;
    while (k < len && (load<u8>(line + <usize>k) == 32 || load<u8>(line + <usize>k) == 9)) k++;
    const isKey = k < len && load<u8>(line + <usize>k) == 0x3a;
    if (!isKey && j > q + 1) {
      if (count >= cap) return -1;
      store<i32>(spans + (<usize>count << 3), q + 1);
      store<i32>(spans + (<usize>count << 3), j, 4);
      count++;
    }
    i = j + 1;
  }
  return count;
}

let stampNow: i32 = 0;
let resPtr: usize = 0;
let resCap: i32 = 0;
let resCount: i32 = 0;

/** Verify the line's hits [from, to) here when every candidate record is chainable and the line is
 * plain ASCII: returns 2 with its matches appended to the results (possibly none), 0 when the line
 * must be matched in JS, or -1 when the results are full. */
function verify(cfg: usize, block: usize, start: i32, end: i32, hitPairs: usize, from: i32, to: i32, special: i32): i32 {
  const info = <usize>load<i32>(cfg, 96);
  if (info == 0) return LINE_CANDIDATES;
  const pool = <usize>load<i32>(cfg, 100);
  const stamps = <usize>load<i32>(cfg, 104);
  let len = end - start;
  const line = block + <usize>start;
  if (len > 0 && load<u8>(line + <usize>(len - 1)) == 0x0d) len--;
  const kind = plainAscii(line, len);
  // a backslash only matters in a JSON line (escapes in its values: matched in JS)
  if (kind < 0 || (kind > 0 && (special & 2) != 0)) return LINE_CANDIDATES;
  for (let h = from; h < to; h++) {
    const rec = load<i32>(hitPairs + (<usize>h << 3), 4);
    if ((load<i32>(info + (<usize>rec << 3), 4) & CHAINABLE) == 0) return LINE_CANDIDATES;
  }
  // a JSON-structured line: its string values are matched too, as in MatchEngine.matchCandidates:
  // per record the leftmost match wins, and at the same start a value's match wins over the line's
  const spans = <usize>load<i32>(cfg, 112);
  let values: i32 = 0;
  if (kind > 0) {
    values = jsonValues(line, len, kind - 1, spans, load<i32>(cfg, 116));
    if (values < 0) return LINE_CANDIDATES;
  }
  if (++stampNow == 0x3fffffff) {
    memory.fill(stamps, 0, <usize>load<i32>(cfg, 108) << 2);
    stampNow = 1;
  }
  for (let h = from; h < to; h++) {
    const rec = load<i32>(hitPairs + (<usize>h << 3), 4);
    const st = stamps + (<usize>rec << 2);
    if (load<i32>(st) == stampNow) continue;
    store<i32>(st, stampNow);
    const size = 6 + 2 * (load<i32>(info + (<usize>rec << 3), 4) & 0xffff); // >= one result's i32
    if (resCount + 2 * size > resCap) return -1;
    const best = resPtr + (<usize>resCount << 2);
    verifiedCount++;
    let w = chainMatch(line, len, rec, info, pool, best);
    let fromJson = false;
    const tmp = best + (<usize>size << 2);
    for (let v: i32 = 0; v < values; v++) {
      const a = load<i32>(spans + (<usize>v << 3));
      const wv = chainMatch(line + <usize>a, load<i32>(spans + (<usize>v << 3), 4) - a, rec, info, pool, tmp);
      if (wv == 0) continue;
      const sv = load<i32>(tmp, 4) + a;
      if (w != 0) {
        const sb = load<i32>(best, 4);
        if (sv > sb || (sv == sb && fromJson)) continue;
      }
      // take the value's match, in line offsets
      store<i32>(best, rec);
      for (let k: i32 = 1; k < wv; k++) store<i32>(best + (<usize>k << 2), load<i32>(tmp + (<usize>k << 2)) + (k == 3 ? 0 : a));
      w = wv;
      fromJson = true;
    }
    resCount += w;
  }
  return LINE_MATCHED;
}

let listed: i32 = 0;
let listCap: i32 = 0;
let listPtr: usize = 0;

/** The line [start, end) with hits [from, to) and `special` (1: holds ESC, 2: holds a backslash):
 * list it as eight i32 [line number, start, end, first hit, end of hits, status, first result, end
 * of results] unless it was verified here without a match. Status: 0 match in JS with the hits as
 * the line's candidates (its other views, e.g. JSON values with escapes, are prefiltered there),
 * 1 match in JS from scratch (ESC: the stripped text may hold keys the raw bytes do not), 2
 * verified here (its matches are the results). False when out of room. */
function consider(cfg: usize, block: usize, lineNo: i32, start: i32, end: i32, hitPairs: usize, from: i32, to: i32, special: i32): bool {
  if (to == from && !special) return true;
  let status: i32 = special & 1 ? LINE_ESCAPED : LINE_CANDIDATES;
  const r0 = resCount;
  if (status == LINE_CANDIDATES) {
    status = verify(cfg, block, start, end, hitPairs, from, to, special);
    if (status < 0) return false;
    if (status == LINE_MATCHED && resCount == r0) return true; // no candidate matches: nothing to do in JS
  }
  if (listed >= listCap) return false;
  const o = listPtr + <usize>listed * 32;
  store<i32>(o, lineNo);
  store<i32>(o, start, 4);
  store<i32>(o, end, 8);
  store<i32>(o, from, 12);
  store<i32>(o, to, 16);
  store<i32>(o, status, 20);
  store<i32>(o, r0, 24);
  store<i32>(o, resCount, 28);
  listed++;
  return true;
}

/**
 * Walk the n bytes at `block` (32 readable bytes after, as for scan) once, with the `count` sorted
 * hits at `hitPairs`, and list the lines that hold a hit or an ESC / backslash byte (see
 * consider(); lines are numbered from 0 and end with \n; `end` excludes the \n), up to `cap`
 * lines at `out`; verified matches go to the `rcap` i32 at `res`. Returns the number of listed
 * lines, or -1 when out of room; lineCount() then gives the block's number of lines.
 */
export function lines(cfg: usize, block: usize, n: i32, hitPairs: usize, count: i32, out: usize, cap: i32, res: usize, rcap: i32): i32 {
  listed = 0;
  listCap = cap;
  listPtr = out;
  resPtr = res;
  resCap = rcap;
  resCount = 0;
  let lineNo: i32 = 0;
  let lineStart: i32 = 0;
  let special: i32 = 0;
  let h: i32 = 0;
  const vNL = i8x16.splat(0x0a);
  const vCR = i8x16.splat(0x0d);
  const vESC = i8x16.splat(0x1b);
  const vBS = i8x16.splat(0x5c);
  for (let i: i32 = 0; i < n; i += 32) {
    // 32 bytes at a time (reads up to 31 bytes into the zero padding)
    const x = v128.load(block + <usize>i);
    const y = v128.load(block + <usize>i, 16);
    let m = <u32>i8x16.bitmask(v128.or(v128.or(v128.or(i8x16.eq(x, vNL), i8x16.eq(x, vESC)), i8x16.eq(x, vBS)), i8x16.eq(x, vCR))) |
      (<u32>i8x16.bitmask(v128.or(v128.or(v128.or(i8x16.eq(y, vNL), i8x16.eq(y, vESC)), i8x16.eq(y, vBS)), i8x16.eq(y, vCR))) << 16);
    // each interesting byte of the 32, lowest first (up to n: what follows may be the rest of a
    // larger block, not zero padding)
    while (m != 0) {
      const k = i + <i32>ctz(m);
      if (k >= n) break;
      m &= m - 1;
      const c = load<u8>(block + <usize>k);
      // a line ends at \n, and at a CR not followed by \n (a lone CR, as editors count lines; a
      // CRLF's CR stays in its line and is dropped when the line is matched)
      if (c == 0x0a || (c == 0x0d && (k + 1 >= n || load<u8>(block + <usize>(k + 1)) != 0x0a))) {
        const from = h;
        while (h < count && load<i32>(hitPairs + (<usize>h << 3)) < k) h++;
        if (!consider(cfg, block, lineNo, lineStart, k, hitPairs, from, h, special)) return -1;
        lineNo++;
        lineStart = k + 1;
        special = 0;
      } else if (c != 0x0d) special |= c == 0x1b ? 1 : 2;
    }
  }
  if (lineStart < n) {
    if (!consider(cfg, block, lineNo, lineStart, n, hitPairs, h, count, special)) return -1;
    lineNo++;
  }
  totalLines = lineNo;
  return listed;
}

/** Copy the n bytes at src (a block the reader put in this memory, core/lineBlocks.ts) to dst (a
 * block's place in its work area) and zero the 32 bytes after them (engine/wasmScan.ts place). */
export function place(src: usize, dst: usize, n: i32): void {
  memory.copy(dst, src, <usize>n);
  memory.fill(dst + <usize>n, 0, 32);
}
