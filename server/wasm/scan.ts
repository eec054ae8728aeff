// AssemblyScript source of the byte scanner's hot loop (compiled to WebAssembly by
// scripts/build-wasm.mjs into server/src/core/engine/scanWasm.generated.ts). It does exactly what
// ByteIndex.scanJs in server/src/core/engine/bytes.ts does, on the same index layout, over memory
// that the JS side owns and lays out (imported memory; nothing here allocates). The JS version is
// the reference: unit tests compare the two on every tier, alignment and overflow.
//
// Config block at `cfg` (i32 words), one row of 6 per tier (T12, T8, T4):
//   [filterPtr, filterWords, tablePtr, buckets, keyLen, size]
// Filter: one 32-bit word per probe, two bits set in it (a blocked Bloom filter).
// Table: buckets of 16 i32 (one cache line): 5 window hashes, 5 key fingerprints,
// 5 payloads (record * 16 + window offset in the key), and count | OVERFLOW.

const C1: i32 = 0x9e3779b1;
const C2: i32 = 0x85ebca6b;
const C3: i32 = 0xc2b2ae35;
const C5: i32 = 0x2545f491;
const SLOTS: i32 = 5;
const OVERFLOW: i32 = 0x100;

/** floor(h * n / 2^32): a uniform index in [0, n) from the top bits of h. */
@inline function reduce(h: i32, n: u32): u32 {
  return <u32>((<u64><u32>h * <u64>n) >>> 32);
}

/** Mask of the two filter bits of h inside its word. */
@inline function filterMask(h: i32): u32 {
  const g = <u32>(h * C5);
  return (<u32>1 << (g >>> 27)) | (<u32>1 << ((g >>> 22) & 31));
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

/** Look h (a window hash that passed the filter at byte `probe`) up in tier row `row`; append
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

/**
 * Every key occurrence in the n bytes at `block` (which is 4-byte aligned and followed by 32 zero
 * bytes): writes (key start, record) i32 pairs at `out` and returns their count, or -1 when more
 * than `cap` pairs would be written. `cand` is scratch for 2 * (n / 8 + 8) pairs of i32.
 */
export function scan(cfg: usize, block: usize, n: i32, cand: usize, out: usize, cap: i32): i32 {
  outPtr = out;
  outCap = cap;
  outCount = 0;
  const lastWord = (n + 3) >>> 2;
  const r12 = cfg;
  const r8 = cfg + 24;
  const r4 = cfg + 48;
  const f12 = <usize>load<i32>(r12);
  const w12 = <u32>load<i32>(r12, 4);
  const half = <usize>(((lastWord >>> 1) + 8) << 3);
  const cand8 = cand + half;
  let nc: i32 = 0;
  let nc8: i32 = 0;
  // One probe every 8 bytes: T12 (and T8, sharing two multiplications) without branches; the
  // probes that pass a filter are listed and looked up afterwards.
  if (load<i32>(r8, 20) == 0) {
    for (let k: i32 = 0; k < lastWord; k += 2) {
      const p = block + (<usize>k << 2);
      const h = (load<i32>(p) * C1) ^ (load<i32>(p, 4) * C2) ^ (load<i32>(p, 8) * C3);
      const w = load<u32>(f12 + (<usize>reduce(h, w12) << 2));
      const mk = filterMask(h);
      const c = cand + (<usize>nc << 3);
      store<i32>(c, h);
      store<i32>(c, k << 2, 4);
      nc += <i32>((w & mk) == mk);
    }
  } else {
    const f8 = <usize>load<i32>(r8);
    const w8 = <u32>load<i32>(r8, 4);
    for (let k: i32 = 0; k < lastWord; k += 2) {
      const p = block + (<usize>k << 2);
      const h8 = (load<i32>(p) * C1) ^ (load<i32>(p, 4) * C2);
      const h = h8 ^ (load<i32>(p, 8) * C3);
      const w = load<u32>(f12 + (<usize>reduce(h, w12) << 2));
      const mk = filterMask(h);
      const c = cand + (<usize>nc << 3);
      store<i32>(c, h);
      store<i32>(c, k << 2, 4);
      nc += <i32>((w & mk) == mk);
      // T8's filter is small and rarely passed: a branch (well predicted) beats more stores
      const v = load<u32>(f8 + (<usize>reduce(h8, w8) << 2));
      const mv = filterMask(h8);
      if ((v & mv) == mv) {
        const c8 = cand8 + (<usize>nc8 << 3);
        store<i32>(c8, h8);
        store<i32>(c8, k << 2, 4);
        nc8++;
      }
    }
  }
  // T4 (few records with short keys): its own pass, one probe every 4 bytes
  if (load<i32>(r4, 20) != 0) {
    const f4 = <usize>load<i32>(r4);
    const w4 = <u32>load<i32>(r4, 4);
    for (let k: i32 = 0; k < lastWord; k++) {
      const h = load<i32>(block + (<usize>k << 2)) * C1;
      const w = load<u32>(f4 + (<usize>reduce(h, w4) << 2));
      const mk = filterMask(h);
      if ((w & mk) == mk) {
        probe(r4, h, k << 2, block, n);
        if (outCount < 0) return -1;
      }
    }
  }
  for (let i: i32 = 0; i < nc8; i++) {
    const c = cand8 + (<usize>i << 3);
    probe(r8, load<i32>(c), load<i32>(c, 4), block, n);
    if (outCount < 0) return -1;
  }
  for (let i: i32 = 0; i < nc; i++) {
    const c = cand + (<usize>i << 3);
    probe(r12, load<i32>(c), load<i32>(c, 4), block, n);
    if (outCount < 0) return -1;
  }
  return outCount;
}
