// Key planning of the string prefilter (what MatchEngine.matchLine uses: the language server's
// lines, explain, search): every pattern gets one KEY, a substring of a literal every match of it
// contains, chosen to be rare, and is indexed in the tier its key fits (engine/prefilter.ts):
//  - anchored keys: starting right after a space or '_' inside a literal, indexed by their first
//    16 chars (or 8 when the literal is shorter), probed only right after a line's spaces and '_'s;
//  - the rest in strided q-gram tiers chosen by scan cost, or searched with indexOf when a tier
//    would not pay (planTiers);
//  - patterns without any literal (none reach here: the engine rejects them) would be candidates of
//    every line.
// A key is rare when few other patterns share it (counts over all literals) and when ordinary text
// holds it seldom (background bits, engine/rarity.ts): a key made of common words costs a
// verification on many lines of a real log.
// The file scan has its own byte-level keys (engine/bytes.ts) and never builds this index.

import { stringBitPrefix } from './rarity';
import { GramCounts, TIERS, Tier, type StringTierSnapshot, planTiers } from './prefilter';

export interface KeyStats {
  /** Patterns without a usable key: tried on every line. */
  unkeyed: number;
  /** Patterns per tier, by key length. */
  tiers: { m: number; records: number; stride: number }[];
  /** Patterns whose key is searched with indexOf (their tier would cost more than it saves). */
  direct: number;
  indexBytes: number;
}

const isAnchor = (c: number): boolean => c === 0x20 || c === 0x5f;

/** The string prefilter over `size` patterns (slots): candidates of a text are the patterns whose
 * key occurs in it. */
export class StringIndex {
  private keys: string[];
  private tiers: Tier[] = [];
  private readonly unkeyed: number[] = [];
  /** Patterns of sparse tiers: their keys are searched with indexOf. */
  private readonly direct: number[] = [];
  private readonly seen: Int32Array;
  private stamp = 0;
  stats: KeyStats = { unkeyed: 0, tiers: [], direct: 0, indexBytes: 0 };

  constructor(private readonly size: number) {
    this.keys = new Array<string>(size).fill('');
    this.seen = new Int32Array(size);
  }

  /**
   * The build, as steps: each `yield` is a point where an incremental build may give the event loop
   * a turn (about every thousand patterns). `literalsOf(slot)`: the literals every match of the
   * pattern contains, or null for a pattern that takes no part (it is asked again in a later
   * pass: the literals of 500k patterns are not kept through the build).
   */
  *buildSteps(literalsOf: (slot: number) => readonly string[] | null): Generator<void, void, void> {
    const n = this.size;
    const bits = n > 200_000 ? 22 : n > 20_000 ? 20 : 18; // small enough to stay in cache
    const anchored16 = new Tier(16, 16, true);
    const anchored8 = new Tier(8, 8, true);
    const counts16 = new GramCounts(16, bits);
    const counts8 = new GramCounts(8, bits);
    const usable = new Uint8Array(n);
    // 1. count the anchored grams of every literal
    for (let i = 0; i < n; i++) {
      if ((i & 1023) === 1023) yield;
      const lits = literalsOf(i);
      if (!lits) continue;
      usable[i] = 1;
      for (const l of lits)
        for (let p = 1; p + 8 <= l.length; p++)
          if (isAnchor(l.charCodeAt(p - 1))) {
            counts8.addAt(l, p);
            if (p + 16 <= l.length) counts16.addAt(l, p);
          }
    }
    // 2a. anchored keys: the rarest anchored window (shared by the fewest patterns, fewest
    //     expected occurrences in ordinary text); a 16-char key is preferred (more specific)
    const literals: string[][] = new Array<string[]>(n);
    const inAnchored = new Uint8Array(n);
    let pre = new Float64Array(256);
    for (let i = 0; i < n; i++) {
      if ((i & 1023) === 1023) yield;
      if (!usable[i]) continue;
      let best = -Infinity;
      let key = '';
      let q = 8;
      const lits = literalsOf(i) ?? [];
      for (const l of lits) {
        if (l.length < 9) continue;
        if (pre.length < l.length + 1) pre = new Float64Array(l.length * 2);
        stringBitPrefix(l, pre);
        for (let p = 1; p + 8 <= l.length; p++) {
          if (!isAnchor(l.charCodeAt(p - 1))) continue;
          const long = p + 16 <= l.length;
          const m = long ? 16 : 8;
          const shared = long ? counts16.countAt(l, p) : counts8.countAt(l, p);
          const score = pre[p + m]! - pre[p]! - Math.log2(1 + shared) + (long ? 2 : 0);
          if (score > best) {
            best = score;
            q = m;
            key = l.slice(p, Math.min(l.length, p + 24)); // verified in full: longer is more specific
          }
        }
      }
      if (key) {
        this.keys[i] = key;
        (q === 16 ? anchored16 : anchored8).add(i);
        inAnchored[i] = 1;
      } else literals[i] = lits as string[];
    }

    // 2b. the rest: strided tiers
    const longestOf = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      if ((i & 1023) === 1023) yield;
      if (!usable[i] || inAnchored[i]) continue;
      let longest = 0;
      for (const l of literals[i]!) if (l.length > longest) longest = l.length;
      longestOf[i] = longest;
    }
    const active = planTiers(longestOf);
    const tiers = TIERS.map(([m, q]) => new Tier(m, q));
    const tierOf = new Int8Array(n).fill(-1);
    for (let i = 0; i < n; i++) {
      if ((i & 1023) === 1023) yield;
      if (!usable[i] || inAnchored[i]) continue;
      const longest = longestOf[i]!;
      if (longest === 0) {
        this.unkeyed.push(i);
        continue;
      }
      const t = tiers.findIndex((tier, k) => active[k] && tier.m <= longest);
      if (t >= 0) tierOf[i] = t;
      else {
        // searched with indexOf: the key is the pattern's longest literal
        for (const l of literals[i]!) if (l.length === longest) this.keys[i] = l;
        this.direct.push(i);
      }
    }
    const countsByQ = new Map<number, GramCounts>();
    for (let i = 0; i < n; i++) {
      if ((i & 1023) === 1023) yield;
      const t = tierOf[i]!;
      if (t < 0) continue;
      const q = tiers[t]!.q;
      if (!countsByQ.has(q)) {
        const counts = new GramCounts(q, bits);
        for (let k = 0; k < n; k++) {
          if ((k & 1023) === 1023) yield;
          if (usable[k]) for (const l of literals[k] ?? literalsOf(k) ?? []) if (l.length >= q) counts.addLiteral(l);
        }
        countsByQ.set(q, counts);
      }
      const counts = countsByQ.get(q)!;
      const m = tiers[t]!.m;
      let bestKey = '';
      let bestCost = Infinity;
      for (const l of literals[i]!) {
        if (l.length < m) continue;
        const w = counts.bestWindow(l, m);
        if (w.cost < bestCost) {
          bestCost = w.cost;
          bestKey = l.slice(w.start, w.start + m);
        }
      }
      this.keys[i] = bestKey;
      tiers[t]!.add(i);
    }
    const tierStats: KeyStats['tiers'] = [];
    this.tiers = [];
    let indexBytes = 0;
    // small anchored-8 tier: indexOf per key; else probed in the same pass as the 16-gram tier
    if (anchored8.size > 0 && anchored8.size <= 32) {
      for (const rec of anchored8.takeRecords()) this.direct.push(rec);
    }
    const shareAnchors = anchored16.size > 0 && anchored8.size > 0;
    anchored16.odd = true;
    anchored8.odd = shareAnchors;
    for (const t of [anchored16, anchored8, ...tiers]) {
      if (t.size === 0) continue;
      tierStats.push({ m: t.m, records: t.size, stride: t.anchored ? 0 : t.stride });
      yield* t.buildSteps(this.keys);
      indexBytes += t.bytes();
      if (t === anchored8 && shareAnchors) anchored16.partner = t; // scanned with anchored16
      else this.tiers.push(t);
    }
    this.stats = { unkeyed: this.unkeyed.length, tiers: tierStats, direct: this.direct.length, indexBytes };
  }

  /** The built index as plain numbers, strings and arrays (the index cache stores it with the
   * engine: a restored server then matches its first line without planning 100k keys again). */
  snapshot(): StringIndexSnapshot {
    return {
      size: this.size,
      keys: this.keys,
      tiers: this.tiers.map((t) => ({ tier: t.snapshot(), partner: t.partner?.snapshot() ?? null })),
      unkeyed: this.unkeyed,
      direct: this.direct,
      stats: this.stats,
    };
  }

  /** The index of snapshot() (over the same patterns). */
  static restore(s: StringIndexSnapshot): StringIndex {
    if (s.keys.length !== s.size) throw new Error('string index snapshot: its keys do not fit');
    const index = new StringIndex(s.size);
    index.keys = s.keys;
    index.tiers = s.tiers.map(({ tier, partner }) => {
      const t = Tier.restore(tier);
      if (partner) t.partner = Tier.restore(partner);
      return t;
    });
    for (const rec of s.unkeyed) index.unkeyed.push(rec);
    for (const rec of s.direct) index.direct.push(rec);
    index.stats = s.stats;
    return index;
  }

  /** Append to out every pattern whose key occurs in text (once each). */
  collect(text: string, out: number[]): void {
    if (++this.stamp >= 0x3fffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    const st = this.stamp;
    for (const tier of this.tiers) tier.scan(text, this.keys, this.seen, st, out);
    for (const rec of this.direct) if (text.indexOf(this.keys[rec]!) >= 0) out.push(rec);
    for (const rec of this.unkeyed) out.push(rec);
  }
}

/** A built StringIndex (StringIndex.snapshot): the tiers in scan order, each with the anchored
 * tier probed in its pass (Tier.partner), if any. */
export interface StringIndexSnapshot {
  size: number;
  keys: string[];
  tiers: { tier: StringTierSnapshot; partner: StringTierSnapshot | null }[];
  unkeyed: number[];
  direct: number[];
  stats: KeyStats;
}
