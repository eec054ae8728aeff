// Prefilter of the match engine: every record gets one KEY, a substring of a literal every match
// of its pattern must contain. Keys are chosen by rarity across the record set and indexed by
// their q-grams, so one pass over a line with a stride finds every record whose key occurs.
//
// Tier (m, q): keys of exactly m chars. Each key is indexed under all of its m-q+1 q-grams (with
// the q-gram's offset in the key). A line is probed only at positions that are multiples of
// stride = m-q+1: every occurrence of a key covers exactly one probed position, so the probe finds
// it, and `line.startsWith(key, probe - offset)` confirms it. The table is CSR: bucket starts +
// parallel entry arrays; a bitmap in front of it keeps most misses inside a small array.

/** Candidate tiers as [key length m, q-gram length q]. The engine picks the subset that is cheapest
 * to scan for the record set at hand (see planTiers); a record goes to the active tier with the
 * longest m its longest required literal allows. Long q-grams are specific (few records share one);
 * long keys give a long stride (m - q + 1).
 */
export const TIERS: readonly (readonly [number, number])[] = [
  [32, 8],
  [24, 8],
  [16, 8],
  [12, 8],
  [10, 8],
  [8, 8],
  [6, 6],
  [5, 5],
  [4, 4],
  [3, 3],
  [2, 2],
  [1, 1],
];

/** Hash of q (1..8) chars of s at j. The same function builds the index and probes lines.
 * Tables index by the HIGH bits, which the multiplications mix well. */
export function hashAt(s: string, j: number, q: number): number {
  if (q === 16) return hashAt(s, j, 8) ^ Math.imul(hashAt(s, j + 8, 8), 0x2545f491);
  if (q === 8)
    return (
      Math.imul(s.charCodeAt(j) | (s.charCodeAt(j + 1) << 16), 0x9e3779b1) ^
      Math.imul(s.charCodeAt(j + 2) | (s.charCodeAt(j + 3) << 16), 0x85ebca6b) ^
      Math.imul(s.charCodeAt(j + 4) | (s.charCodeAt(j + 5) << 16), 0xc2b2ae35) ^
      Math.imul(s.charCodeAt(j + 6) | (s.charCodeAt(j + 7) << 16), 0x27d4eb2f)
    );
  if (q === 6)
    return (
      Math.imul(s.charCodeAt(j) | (s.charCodeAt(j + 1) << 16), 0x9e3779b1) ^
      Math.imul(s.charCodeAt(j + 2) | (s.charCodeAt(j + 3) << 16), 0x85ebca6b) ^
      Math.imul(s.charCodeAt(j + 4) | (s.charCodeAt(j + 5) << 16), 0xc2b2ae35)
    );
  if (q === 4)
    return Math.imul(s.charCodeAt(j) | (s.charCodeAt(j + 1) << 16), 0x9e3779b1) ^ Math.imul(s.charCodeAt(j + 2) | (s.charCodeAt(j + 3) << 16), 0x85ebca6b);
  let h = 0x811c9dc5;
  for (let k = 0; k < q; k++) h = Math.imul(h ^ s.charCodeAt(j + k), 0x01000193);
  return Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
}

/** Hash of the chars at the odd offsets 1, 3, 5, 7 of s at j: the anchored 8-char keys probed
 * together with the 16-char ones share these charCodeAt reads. */
export function oddHash8(s: string, j: number): number {
  return Math.imul(s.charCodeAt(j + 1) | (s.charCodeAt(j + 3) << 16), 0x9e3779b1) ^ Math.imul(s.charCodeAt(j + 5) | (s.charCodeAt(j + 7) << 16), 0x85ebca6b);
}

/** Hash of the chars at the odd offsets 1..15 of s at j (8 reads spread over 16 chars: far more
 * selective than 8 contiguous chars, which are often one common word). */
export function oddHash16(s: string, j: number): number {
  return oddHash8(s, j) ^ Math.imul(s.charCodeAt(j + 9) | (s.charCodeAt(j + 11) << 16), 0xc2b2ae35) ^ Math.imul(s.charCodeAt(j + 13) | (s.charCodeAt(j + 15) << 16), 0x27d4eb2f);
}

/** Relative scan cost per line character of searching one key with indexOf (a tier costs 1/stride). */
export const DIRECT_COST = 0.005;

/** Choose the active tiers for records whose longest literal lengths are given: the subset of
 * TIERS with the least scan cost per character (sum of 1/stride over active tiers, plus
 * DIRECT_COST per record that fits no active tier and is searched with indexOf). */
export function planTiers(longest: Int32Array): boolean[] {
  const CAP = 64;
  const hist = new Float64Array(CAP + 1);
  for (const l of longest) if (l > 0) hist[Math.min(l, CAP)]!++;
  const T = TIERS.length;
  let best = Infinity;
  let bestMask = 0;
  for (let mask = 0; mask < 1 << T; mask++) {
    let cost = 0;
    for (let t = 0; t < T; t++) if (mask & (1 << t)) cost += 1 / (TIERS[t]![0] - TIERS[t]![1] + 1);
    if (cost >= best) continue;
    const used = new Uint8Array(T);
    for (let l = 1; l <= CAP; l++) {
      const c = hist[l]!;
      if (c === 0) continue;
      let t = 0;
      while (t < T && (!(mask & (1 << t)) || TIERS[t]![0] > l)) t++;
      if (t < T) used[t] = 1;
      else cost += c * DIRECT_COST;
    }
    // an active tier without records costs nothing: it is dropped
    for (let t = 0; t < T; t++) if (mask & (1 << t) && !used[t]) cost -= 1 / (TIERS[t]![0] - TIERS[t]![1] + 1);
    if (cost < best) {
      best = cost;
      bestMask = mask;
    }
  }
  return TIERS.map((_, t) => (bestMask & (1 << t)) !== 0);
}

/** Bitmap bits per indexed q-gram: fewer keep the bitmap in cache, more reject more misses. */
const BITS_PER_ENTRY = 8;

function pow2AtLeast(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

export class Tier {
  readonly stride: number;
  private bits!: Uint8Array;
  private bitShift = 0;
  private starts!: Int32Array;
  private bucketShift = 0;
  /** Entry e: ent[2e] = q-gram hash, ent[2e+1] = record * 32 + offset in the key (one cache line). */
  private ent!: Int32Array;
  private readonly members: number[] = [];
  /** Anchored tier hashed on odd offsets (oddHash16 / oddHash8) instead of hashAt. Set before build. */
  odd = false;

  constructor(
    readonly m: number,
    readonly q: number,
    /** Anchored tier: each key starts right after a space or '_' inside its literal and is indexed
     * by its first q chars only; lines are probed only right after their spaces and '_'s. One
     * entry per record keeps the table small enough to stay in cache at 100k+ records. */
    readonly anchored = false,
  ) {
    this.stride = anchored ? 1 : m - q + 1;
  }

  get size(): number {
    return this.members.length;
  }

  add(rec: number): void {
    this.members.push(rec);
  }

  /** Members (before build). */
  get records(): readonly number[] {
    return this.members;
  }

  /** Remove and return the members (before build). */
  takeRecords(): number[] {
    return this.members.splice(0, this.members.length);
  }

  /** Build the table from the members' keys. */
  build(keys: string[]): void {
    for (const _ of this.buildSteps(keys));
  }

  /** build(), as steps (a `yield` about every 16k keys: see MatchEngine.buildAsync). */
  *buildSteps(keys: string[]): Generator<void, void, void> {
    const per = this.stride;
    const count = this.members.length * per;
    const buckets = pow2AtLeast(Math.max(16, count));
    this.bucketShift = 32 - Math.log2(buckets);
    const bitCount = pow2AtLeast(Math.max(64, count * BITS_PER_ENTRY));
    this.bits = new Uint8Array(bitCount >>> 3);
    this.bitShift = 32 - Math.log2(bitCount);
    const hashOf = new Int32Array(count);
    const counts = new Int32Array(buckets + 1);
    let e = 0;
    let done = 0;
    for (const rec of this.members) {
      if ((++done & 16383) === 0) yield;
      const key = keys[rec]!;
      for (let off = 0; off < per; off++) {
        const h = this.odd ? (this.q === 16 ? oddHash16(key, off) : oddHash8(key, off)) : hashAt(key, off, this.q);
        hashOf[e++] = h;
        counts[(h >>> this.bucketShift) + 1]!++;
        // the anchored 16-gram tier (not odd) filters on the hash of the first 8 chars (cheaper to compute)
        const b = (this.anchored && this.q === 16 && !this.odd ? hashAt(key, off, 8) : h) >>> this.bitShift;
        this.bits[b >>> 3]! |= 1 << (b & 7);
      }
    }
    for (let b = 0; b < buckets; b++) counts[b + 1]! += counts[b]!;
    this.starts = counts.slice();
    const fill = counts; // reuse as insertion cursors
    this.ent = new Int32Array(count * 2);
    e = 0;
    yield;
    for (const rec of this.members) {
      if ((++done & 16383) === 0) yield;
      for (let off = 0; off < per; off++) {
        const h = hashOf[e++]!;
        const slot = fill[h >>> this.bucketShift]!++;
        this.ent[slot * 2] = h;
        this.ent[slot * 2 + 1] = rec * 32 + off;
      }
    }
    this.members.length = 0;
  }

  /** Push every record whose key occurs in s (once per stamp) onto out. */
  scan(s: string, keys: string[], stamp: Int32Array, st: number, out: number[]): void {
    if (this.anchored) {
      this.scanAnchored(s, ' ', keys, stamp, st, out);
      this.scanAnchored(s, '_', keys, stamp, st, out);
      return;
    }
    const q = this.q;
    const stride = this.stride;
    const last = s.length - q;
    const bits = this.bits;
    const bitShift = this.bitShift;
    const bucketShift = this.bucketShift;
    const starts = this.starts;
    const ent = this.ent;
    for (let j = 0; j <= last; j += stride) {
      // the q = 8 hash inline (the hot loop of the engine); same as hashAt
      const h =
        q === 8
          ? Math.imul(s.charCodeAt(j) | (s.charCodeAt(j + 1) << 16), 0x9e3779b1) ^
            Math.imul(s.charCodeAt(j + 2) | (s.charCodeAt(j + 3) << 16), 0x85ebca6b) ^
            Math.imul(s.charCodeAt(j + 4) | (s.charCodeAt(j + 5) << 16), 0xc2b2ae35) ^
            Math.imul(s.charCodeAt(j + 6) | (s.charCodeAt(j + 7) << 16), 0x27d4eb2f)
          : hashAt(s, j, q);
      const b = h >>> bitShift;
      if ((bits[b >>> 3]! & (1 << (b & 7))) === 0) continue;
      const bucket = h >>> bucketShift;
      const end = starts[bucket + 1]!;
      for (let e = starts[bucket]!; e < end; e++) {
        if (ent[2 * e] !== h) continue;
        const payload = ent[2 * e + 1]!;
        const rec = payload >>> 5;
        if (stamp[rec] === st) continue;
        const at = j - (payload & 31);
        if (at >= 0 && s.startsWith(keys[rec]!, at)) {
          stamp[rec] = st;
          out.push(rec);
        }
      }
    }
  }

  /** Probe right after every `delim` (native indexOf hops: cheaper than a JS pass over every char). */
  /** An anchored tier probed at the same anchors as this one (one pass over the anchors for both). */
  partner: Tier | undefined;

  private scanAnchored(s: string, delim: string, keys: string[], stamp: Int32Array | null, st: number, out: number[]): void {
    const n = s.length;
    const q = this.q;
    const partner = this.partner;
    const pq = partner ? partner.q : q;
    const last = n - Math.min(q, pq);
    const split = q === 16 && (!partner || pq === 8);
    const odd = this.odd && (!partner || partner.odd);
    let p = s.indexOf(delim);
    while (p >= 0 && p < last) {
      const j = p + 1;
      p = s.indexOf(delim, j);
      if (odd) {
        // 4 reads for the 8-char partner, 4 more for the 16-char keys (one hash for bitmap and bucket)
        const h8 = Math.imul(s.charCodeAt(j + 1) | (s.charCodeAt(j + 3) << 16), 0x9e3779b1) ^ Math.imul(s.charCodeAt(j + 5) | (s.charCodeAt(j + 7) << 16), 0x85ebca6b);
        if (j + 16 <= n) {
          const h = h8 ^ Math.imul(s.charCodeAt(j + 9) | (s.charCodeAt(j + 11) << 16), 0xc2b2ae35) ^ Math.imul(s.charCodeAt(j + 13) | (s.charCodeAt(j + 15) << 16), 0x27d4eb2f);
          const b = h >>> this.bitShift;
          if ((this.bits[b >>> 3]! & (1 << (b & 7))) !== 0) this.bucketAt(s, j, h, keys, stamp, st, out);
        }
        if (partner) partner.probeAt(s, j, h8, keys, stamp, st, out);
        continue;
      }
      if (split) {
        // hash 8 chars; the 16-gram hash (and its bucket) only when the bitmap lets it through
        const h8 =
          Math.imul(s.charCodeAt(j) | (s.charCodeAt(j + 1) << 16), 0x9e3779b1) ^
          Math.imul(s.charCodeAt(j + 2) | (s.charCodeAt(j + 3) << 16), 0x85ebca6b) ^
          Math.imul(s.charCodeAt(j + 4) | (s.charCodeAt(j + 5) << 16), 0xc2b2ae35) ^
          Math.imul(s.charCodeAt(j + 6) | (s.charCodeAt(j + 7) << 16), 0x27d4eb2f);
        const b = h8 >>> this.bitShift;
        if (j + 16 <= n && (this.bits[b >>> 3]! & (1 << (b & 7))) !== 0) this.bucketAt(s, j, h8 ^ Math.imul(hashAt(s, j + 8, 8), 0x2545f491), keys, stamp, st, out);
        if (partner) partner.probeAt(s, j, h8, keys, stamp, st, out);
        continue;
      }
      if (j + q <= n) this.probeAt(s, j, hashAt(s, j, q), keys, stamp, st, out);
      if (partner && j + pq <= n) partner.probeAt(s, j, hashAt(s, j, pq), keys, stamp, st, out);
    }
  }

  /** Check the keys whose indexed gram hashes to h, at line position j (anchored tiers: offset 0). */
  probeAt(s: string, j: number, h: number, keys: string[], stamp: Int32Array | null, st: number, out: number[]): void {
    const b = h >>> this.bitShift;
    if ((this.bits[b >>> 3]! & (1 << (b & 7))) === 0) return;
    this.bucketAt(s, j, h, keys, stamp, st, out);
  }

  private bucketAt(s: string, j: number, h: number, keys: string[], stamp: Int32Array | null, st: number, out: number[]): void {
    const starts = this.starts;
    const ent = this.ent;
    const bucket = h >>> this.bucketShift;
    const end = starts[bucket + 1]!;
    for (let e = starts[bucket]!; e < end; e++) {
      if (ent[2 * e] !== h) continue;
      const rec = ent[2 * e + 1]! >>> 5;
      if (stamp === null) {
        if (s.startsWith(keys[rec]!, j)) {
          out.push(j);
          return;
        }
        continue;
      }
      if (stamp[rec] === st) continue;
      if (s.startsWith(keys[rec]!, j)) {
        stamp[rec] = st;
        out.push(rec);
      }
    }
  }

  /** Push the start of every key occurrence in s (a whole block of text; not deduplicated). */
  hits(s: string, keys: string[], out: number[]): void {
    if (this.anchored) {
      this.scanAnchored(s, ' ', keys, null, 0, out);
      this.scanAnchored(s, '_', keys, null, 0, out);
      return;
    }
    const q = this.q;
    const stride = this.stride;
    const last = s.length - q;
    const bits = this.bits;
    const bitShift = this.bitShift;
    const bucketShift = this.bucketShift;
    const starts = this.starts;
    const ent = this.ent;
    for (let j = 0; j <= last; j += stride) {
      const h = hashAt(s, j, q);
      const b = h >>> bitShift;
      if ((bits[b >>> 3]! & (1 << (b & 7))) === 0) continue;
      const bucket = h >>> bucketShift;
      const end = starts[bucket + 1]!;
      for (let e = starts[bucket]!; e < end; e++) {
        if (ent[2 * e] !== h) continue;
        const payload = ent[2 * e + 1]!;
        const at = j - (payload & 31);
        if (at >= 0 && s.startsWith(keys[payload >>> 5]!, at)) {
          out.push(at);
          break; // one hit marks the line
        }
      }
    }
  }

  /** True when some key of this tier occurs in s. */
  any(s: string, keys: string[]): boolean {
    if (this.anchored) {
      const out: number[] = [];
      this.hits(s, keys, out);
      return out.length > 0;
    }
    const q = this.q;
    const last = s.length - q;
    for (let j = 0; j <= last; j += this.stride) {
      const h = hashAt(s, j, q);
      const b = h >>> this.bitShift;
      if ((this.bits[b >>> 3]! & (1 << (b & 7))) === 0) continue;
      const bucket = h >>> this.bucketShift;
      const end = this.starts[bucket + 1]!;
      for (let e = this.starts[bucket]!; e < end; e++) {
        if (this.ent[2 * e] !== h) continue;
        const payload = this.ent[2 * e + 1]!;
        const at = j - (payload & 31);
        if (at >= 0 && s.startsWith(keys[payload >>> 5]!, at)) return true;
      }
    }
    return false;
  }

  /** Bytes held by the table (for the benchmark). */
  bytes(): number {
    return this.bits.byteLength + this.starts.byteLength + this.ent.byteLength;
  }

  /** The built table as plain numbers and arrays (the index cache stores it; see restore). */
  snapshot(): StringTierSnapshot {
    return { m: this.m, q: this.q, anchored: this.anchored, odd: this.odd, bits: this.bits, bitShift: this.bitShift, starts: this.starts, bucketShift: this.bucketShift, ent: this.ent };
  }

  /** The built tier of snapshot() (its partner is set by the index that holds both). */
  static restore(s: StringTierSnapshot): Tier {
    const t = new Tier(s.m, s.q, s.anchored);
    const buckets = 2 ** (32 - s.bucketShift);
    if (s.starts.length !== buckets + 1 || s.ent.length !== 2 * s.starts[buckets]! || s.bits.length * 8 !== 2 ** (32 - s.bitShift)) throw new Error('string tier snapshot: its arrays do not fit');
    t.odd = s.odd;
    t.bits = s.bits;
    t.bitShift = s.bitShift;
    t.starts = s.starts;
    t.bucketShift = s.bucketShift;
    t.ent = s.ent;
    return t;
  }
}

/** A built Tier (Tier.snapshot). */
export interface StringTierSnapshot {
  m: number;
  q: number;
  anchored: boolean;
  odd: boolean;
  bits: Uint8Array;
  bitShift: number;
  starts: Int32Array;
  bucketShift: number;
  ent: Int32Array;
}

/** Counts of q-gram hashes over all candidate literals, to rate keys by rarity. Saturating byte
 * counters in a table small enough to stay in cache (the build is bound by its random accesses). */
export class GramCounts {
  private readonly counts: Uint8Array;
  private readonly shift: number;
  private scratch = new Float64Array(256);
  constructor(
    readonly q: number,
    bits = 21,
  ) {
    this.counts = new Uint8Array(1 << bits);
    this.shift = 32 - bits;
  }
  addLiteral(lit: string): void {
    const q = this.q;
    const counts = this.counts;
    const shift = this.shift;
    // every second position: a common q-gram still shows up as common, at half the build cost
    for (let j = 0; j + q <= lit.length; j += 2) {
      const i = hashAt(lit, j, q) >>> shift;
      const c = counts[i]!;
      if (c !== 255) counts[i] = c + 1;
    }
  }
  addAt(lit: string, j: number): void {
    const i = hashAt(lit, j, this.q) >>> this.shift;
    const c = this.counts[i]!;
    if (c !== 255) this.counts[i] = c + 1;
  }
  countAt(lit: string, j: number): number {
    return this.counts[hashAt(lit, j, this.q) >>> this.shift]!;
  }
  /** Best key window (start, cost) of length m inside lit: the one whose q-grams are rarest
   * (cost: sum of the q-grams' counts, each of which the scan may have to verify). */
  bestWindow(lit: string, m: number): { start: number; cost: number } {
    const q = this.q;
    const grams = lit.length - q + 1;
    if (this.scratch.length < grams) this.scratch = new Float64Array(grams * 2);
    const c = this.scratch;
    for (let j = 0; j < grams; j++) c[j] = this.counts[hashAt(lit, j, q) >>> this.shift]!;
    const per = m - q + 1;
    let sum = 0;
    for (let j = 0; j < per; j++) sum += c[j]!;
    let best = sum;
    let bestStart = 0;
    for (let s = 1; s + m <= lit.length; s++) {
      sum += c[s + per - 1]! - c[s - 1]!;
      if (sum < best) {
        best = sum;
        bestStart = s;
      }
    }
    return { start: bestStart, cost: best };
  }
}
