// AssemblyScript source of the byte scanner's hot loops (compiled to WebAssembly by
// scripts/build-wasm.mjs into server/src/core/engine/scanWasm.generated.ts). `scan` does exactly
// what ByteIndex.scanJs in server/src/core/engine/bytes.ts does, on the same index layout; `lines`
// does what MatchEngine's JS line walk does (engine.ts, matchAlignedBytes). Memory is the JS
// side's (imported) and laid out by engine/wasmScan.ts; nothing here allocates. The JS versions
// are the reference: unit tests compare the two on every tier, alignment and overflow.
//
// Config block at `cfg` (i32 words), one row of 8 per tier (T12, T8, T4):
//   [filterPtr, filterWords, tablePtr, buckets, keyLen, size, bitmapBits, 0]
// Filter: T12 is a blocked Bloom filter (one 32-bit word per hash, two bits set in it); T8 and
// T4 (few records) are plain bitmaps of 2^bitmapBits bits indexed by the hash's top bits.
// Table: buckets of 16 i32 (one cache line): 5 window hashes, 5 key fingerprints,
// 5 payloads (record * 16 + window offset in the key), and count | OVERFLOW.

const C1: i32 = 0x9e3779b1;
const C2: i32 = 0x85ebca6b;
const C3: i32 = 0xc2b2ae35;
const C5: i32 = 0x2545f491;
const SLOTS: i32 = 5;
const OVERFLOW: i32 = 0x100;
const ROW: usize = 32;

/** floor(h * n / 2^32): a uniform index in [0, n) from the top bits of h. */
@inline function reduce(h: i32, n: u32): u32 {
  return <u32>((<u64><u32>h * <u64>n) >>> 32);
}

/** Mask of the two filter bits of h inside its word. */
@inline function filterMask(h: i32): u32 {
  const g = <u32>(h * C5);
  return (<u32>1 << (g >>> 27)) | (<u32>1 << ((g >>> 22) & 31));
}

/** Is h's bit set in the bitmap of 2^bits bits at f? */
@inline function inBitmap(f: usize, bits: u32, h: i32): bool {
  const i = <u32>h >>> (32 - bits);
  return ((load<u32>(f + (<usize>(i >>> 5) << 2)) >>> (i & 31)) & 1) != 0;
}

/** FNV-1a of m bytes at p, folded: the key fingerprint (same as bytes.ts fingerprint()). */
function fingerprint(p: usize, m: i32): i32 {
  let h: i32 = 0x811c9dc5;
  for (let k: i32 = 0; k < m; k++) h = (h ^ <i32>load<u8>(p + <usize>k)) * 0x01000193;
  return h ^ <i32>(<u32>h >>> 15);
}

let outPtr: usize = 0;
let outCap: i32 = 0;
let outCount: i32 = 0;

/** Look h (a window hash that passed tier `row`'s filter at byte `probe`) up in its table; append
 * the confirmed (key start, record) pairs. */
function probe(row: usize, h: i32, probe: i32, block: usize, n: i32): void {
  const table = <usize>load<i32>(row, 8);
  const buckets = <u32>load<i32>(row, 12);
  const m = load<i32>(row, 16);
  let bucket = reduce(h, buckets);
  let fp: i32 = 0;
  let fpAt: i32 = -1;
  for (;;) {
    const base = table + (<usize>bucket << 6);
    const meta = load<i32>(base, 60);
    const used = meta & 0xff;
    for (let i: i32 = 0; i < used; i++) {
      const slot = base + (<usize>i << 2);
      if (load<i32>(slot) != h) continue;
      const payload = load<i32>(slot, SLOTS * 8);
      const at = probe - (payload & 15);
      if (at < 0 || at + m > n) continue;
      if (at != fpAt) {
        fp = fingerprint(block + <usize>at, m);
        fpAt = at;
      }
      if (load<i32>(slot, SLOTS * 4) == fp) {
        if (outCount >= outCap) {
          outCount = -1;
          return;
        }
        const o = outPtr + (<usize>outCount << 3);
        store<i32>(o, at);
        store<i32>(o, <i32>(<u32>payload >>> 4), 4);
        outCount++;
      }
    }
    if ((meta & OVERFLOW) == 0) return;
    bucket = bucket + 1 == buckets ? 0 : bucket + 1;
  }
}

/** Stable sort of `count` (position, record) pairs at p by position (bottom-up merge sort through
 * `tmp`); returns where the sorted pairs are (p or tmp). Hits arrive nearly sorted: a run check
 * skips the sort. */
function sortHits(p: usize, count: i32, tmp: usize): usize {
  let sorted = true;
  for (let i: i32 = 1; i < count; i++)
    if (load<i32>(p + (<usize>i << 3)) < load<i32>(p + (<usize>(i - 1) << 3))) {
      sorted = false;
      break;
    }
  if (sorted) return p;
  let src = p;
  let dst = tmp;
  for (let width: i32 = 1; width < count; width <<= 1) {
    for (let lo: i32 = 0; lo < count; lo += width << 1) {
      const mid = min(lo + width, count);
      const hi = min(lo + (width << 1), count);
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
    }
    const t = src;
    src = dst;
    dst = t;
  }
  return src;
}

/** Write T12's probe at byte `pos` (hash h) at the end of the candidate list; 1 when it passes the
 * filter (the list grows), else 0 (the next probe overwrites it): no branch on the filter. */
@inline function listProbe(cand: usize, nc: i32, h: i32, pos: i32, f12: usize, w12: u32): i32 {
  const w = load<u32>(f12 + (<usize>reduce(h, w12) << 2));
  const mk = filterMask(h);
  const c = cand + (<usize>nc << 3);
  store<i32>(c, h);
  store<i32>(c, pos, 4);
  return <i32>((w & mk) == mk);
}

let hitsAt: usize = 0;

/** Where the last scan's sorted hits are (pairs of i32: key start, record). */
export function hits(): usize {
  return hitsAt;
}

/**
 * Every key occurrence in the n bytes at `block` (8-byte aligned, followed by 32 zero bytes), in
 * position order: (key start, record) i32 pairs at hits(); returns their count, or -1 when more
 * than `cap` would be found. `cand` is scratch for 4 * (n / 8 + 16) pairs (T12's passes, then up
 * to three per probe for the small tiers) and `out` for 2 * cap.
 */
export function scan(cfg: usize, block: usize, n: i32, cand: usize, out: usize, cap: i32): i32 {
  outPtr = out;
  outCap = cap;
  outCount = 0;
  const lastWord = (n + 3) >>> 2;
  const r12 = cfg;
  const r8 = cfg + ROW;
  const r4 = cfg + 2 * ROW;
  const f12 = <usize>load<i32>(r12);
  const w12 = <u32>load<i32>(r12, 4);
  const small = cand + <usize>(((lastWord >>> 1) + 8) << 3);
  let nc: i32 = 0;
  let ns: i32 = 0;
  const use8 = load<i32>(r8, 20) != 0;
  const use4 = load<i32>(r4, 20) != 0;
  if (!use8 && !use4) {
    // one probe every 8 bytes, T12 only, without branches: probes that pass the filter are listed
    for (let k: i32 = 0; k < lastWord; k += 2) {
      const p = block + (<usize>k << 2);
      const h = (load<i32>(p) * C1) ^ (load<i32>(p, 4) * C2) ^ (load<i32>(p, 8) * C3);
      nc += listProbe(cand, nc, h, k << 2, f12, w12);
    }
  } else {
    // the same, plus T8 (the 8 bytes at k) and T4 (4 bytes at k and k + 4) on small bitmaps:
    // they share the multiplications and are rarely passed (a predicted branch); their passes go
    // to a second list as (hash, position * 4 + tier)
    const f8 = <usize>load<i32>(r8);
    const b8 = <u32>load<i32>(r8, 24);
    const f4 = <usize>load<i32>(r4);
    const b4 = <u32>load<i32>(r4, 24);
    for (let k: i32 = 0; k < lastWord; k += 2) {
      const p = block + (<usize>k << 2);
      const a0 = load<i32>(p) * C1;
      const w1 = load<i32>(p, 4);
      const h8 = a0 ^ (w1 * C2);
      const h = h8 ^ (load<i32>(p, 8) * C3);
      nc += listProbe(cand, nc, h, k << 2, f12, w12);
      if (use8 && inBitmap(f8, b8, h8)) {
        const s = small + (<usize>ns << 3);
        ns++;
        store<i32>(s, h8);
        store<i32>(s, (k << 4) | 1, 4);
      }
      if (use4) {
        if (inBitmap(f4, b4, a0)) {
          const s = small + (<usize>ns << 3);
          ns++;
          store<i32>(s, a0);
          store<i32>(s, (k << 4) | 2, 4);
        }
        const a1 = w1 * C1;
        if (inBitmap(f4, b4, a1)) {
          const s = small + (<usize>ns << 3);
          ns++;
          store<i32>(s, a1);
          store<i32>(s, ((k + 1) << 4) | 2, 4);
        }
      }
    }
  }
  // look the passes up in position order (both lists are ascending): hits come out nearly sorted
  let i: i32 = 0;
  let j: i32 = 0;
  while (i < nc || j < ns) {
    const ci = cand + (<usize>i << 3);
    const sj = small + (<usize>j << 3);
    const pi = i < nc ? load<i32>(ci, 4) : 0x7fffffff;
    const pj = j < ns ? load<i32>(sj, 4) >> 2 : 0x7fffffff;
    if (pj < pi) {
      const tag = load<i32>(sj, 4);
      probe((tag & 3) == 1 ? r8 : r4, load<i32>(sj), tag >> 2, block, n);
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

const ONES: u64 = 0x0101010101010101;
const LOW7: u64 = 0x7f7f7f7f7f7f7f7f;
const HIGH: u64 = 0x8080808080808080;

/** High bit set in each byte of x that is zero (exact). */
@inline function zeroBytes(x: u64): u64 {
  return ~(((x & LOW7) + LOW7) | x) & HIGH;
}

let totalLines: i32 = 0;

/** Lines in the block of the last `lines` call. */
export function lineCount(): i32 {
  return totalLines;
}

/** One listed line: number, start, end, its hits [from, to), whether it holds ESC or backslash. */
@inline function listLine(o: usize, lineNo: i32, start: i32, end: i32, from: i32, to: i32, special: i32): void {
  store<i32>(o, lineNo);
  store<i32>(o, start, 4);
  store<i32>(o, end, 8);
  store<i32>(o, from, 12);
  store<i32>(o, to, 16);
  store<i32>(o, special, 20);
}

/**
 * Walk the n bytes at `block` (8-byte aligned, 32 zero bytes after) once, with the `count` sorted
 * hits at `hitPairs`. For each line that holds a hit or an ESC / backslash byte, writes six i32 at
 * `out`: line number (0-based, lines end with \n), start, end (exclusive, without the \n), first
 * hit, end of its hits, and 1 if it holds ESC or backslash (else 0). Returns the number of such
 * lines, or -1 when more than `cap`; lineCount() then gives the block's number of lines.
 */
export function lines(block: usize, n: i32, hitPairs: usize, count: i32, out: usize, cap: i32): i32 {
  let lineNo: i32 = 0;
  let lineStart: i32 = 0;
  let special: i32 = 0;
  let h: i32 = 0;
  let emitted: i32 = 0;
  const NL = ONES * 0x0a;
  const ESC = ONES * 0x1b;
  const BS = ONES * 0x5c;
  for (let i: i32 = 0; i < n; i += 8) {
    const x = load<u64>(block + <usize>i);
    if ((zeroBytes(x ^ NL) | zeroBytes(x ^ ESC) | zeroBytes(x ^ BS)) == 0) continue;
    const end = min(i + 8, n);
    for (let k: i32 = i; k < end; k++) {
      const c = load<u8>(block + <usize>k);
      if (c == 0x0a) {
        const from = h;
        while (h < count && load<i32>(hitPairs + (<usize>h << 3)) < k) h++;
        if (h > from || special) {
          if (emitted >= cap) return -1;
          listLine(out + <usize>emitted * 24, lineNo, lineStart, k, from, h, special);
          emitted++;
        }
        lineNo++;
        lineStart = k + 1;
        special = 0;
      } else if (c == 0x1b || c == 0x5c) special = 1;
    }
  }
  if (lineStart < n) {
    if (count > h || special) {
      if (emitted >= cap) return -1;
      listLine(out + <usize>emitted * 24, lineNo, lineStart, n, h, count, special);
      emitted++;
    }
    lineNo++;
  }
  totalLines = lineNo;
  return emitted;
}
