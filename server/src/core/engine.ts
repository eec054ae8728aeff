// MatchEngine: index many record patterns once, then find EVERY record matching a line.
//
// Design (see test/bench for the numbers):
//  1. Each pattern is classified. "Simple" patterns (literals and (.+?) holes only; nearly all
//     ErrLookup patterns) are matched by a chain of indexOf searches (ChainMatcher), exact and
//     linear. Other patterns become a lazily compiled RegExp (RegexMatcher), run on bounded windows
//     of long lines. Unsafe patterns are rejected with a reason and never run.
//  2. Each record gets one key: a substring of a literal every match contains, chosen to be rare
//     across the record set. Most keys are "anchored" (they start right after a space or '_' in
//     the literal; indexed by one hash of their first 16 or 8 chars; lines are probed only right
//     after their spaces and underscores). The rest go to strided q-gram tiers chosen by scan
//     cost, or to plain indexOf when a tier would not pay (engine/prefilter.ts).
//  3. Candidates are matched fully; per record the leftmost match over the line's views wins (ties:
//     a JSON string value over the raw line). Results are ranked.
// Nothing here times out or skips records: recall is complete by construction (every match
// contains its record's key, and every key occurrence is found by the scan).

import { MIN_LITERAL_CHARS, MAX_PATTERN_LENGTH, parseSimplePattern, patternInfo, patternProblem } from './pattern';
import { lineViews, needsViews, type LineView } from './text';
import { ChainMatcher, RegexMatcher, hasTerminator, terminators, type RawMatch } from './engine/matchers';
import { GramCounts, TIERS, Tier, planTiers } from './engine/prefilter';
import { type ByteIndex, type NativeLines, buildByteIndexOf } from './engine/bytes';
import { ChainTable, wasmScanner } from './engine/wasmScan';

export interface EngineEntry {
  id: string;
  pattern: string;
  captureNames: string[];
  errorCode: string | null;
}
/** Offsets in the ORIGINAL line (UTF-16 units, end exclusive). */
export interface Capture {
  name: string;
  value: string;
  start: number;
  end: number;
}
export interface LineMatch {
  entry: number; // index into the entries given to MatchEngine.build
  start: number;
  end: number; // UTF-16 offsets in the original line, end exclusive
  text: string; // original-line text of the span
  captures: Capture[];
  literalLength: number; // literal characters of the pattern (ranking)
  codeInLine: boolean; // errorCode appears as a token in the line (ranking)
}

type Matcher = ChainMatcher | RegexMatcher;

/** Build statistics (benchmark and diagnostics). */
export interface EngineStats {
  chain: number;
  regex: number;
  rejected: number;
  /** Records without a usable key: tried on every line. */
  unkeyed: number;
  /** Records per tier, by key length. */
  tiers: { m: number; records: number; stride: number }[];
  /** Records whose key is searched with indexOf (their tier would cost more than it saves). */
  direct: number;
  indexBytes: number;
}

/** [A-Za-z0-9_] for one UTF-16 unit (NaN, i.e. outside the text, is not a word character). */
function isWordUnit(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;
}

/** True when `code` occurs in `text` with no word character directly before or after it. */
export function hasToken(text: string, code: string): boolean {
  if (!code) return false;
  let i = text.indexOf(code);
  while (i >= 0) {
    if (!(i > 0 && isWordUnit(text.charCodeAt(i - 1))) && !isWordUnit(text.charCodeAt(i + code.length))) return true;
    i = text.indexOf(code, i + 1);
  }
  return false;
}

/** Ranking: errorCode in the line, then more literal characters, then longer span, then id. */
export function compareMatches(entries: readonly EngineEntry[]): (a: LineMatch, b: LineMatch) => number {
  return (a, b) => {
    if (a.codeInLine !== b.codeInLine) return a.codeInLine ? -1 : 1;
    if (a.literalLength !== b.literalLength) return b.literalLength - a.literalLength;
    const la = a.end - a.start;
    const lb = b.end - b.start;
    if (la !== lb) return lb - la;
    const ia = entries[a.entry]!.id;
    const ib = entries[b.entry]!.id;
    if (ia !== ib) return ia < ib ? -1 : 1;
    return a.entry - b.entry;
  };
}

/** The literals every match of a usable pattern contains (classify's, without making a matcher). */
function requiredLiterals(pattern: string): string[] {
  const simple = parseSimplePattern(pattern);
  if (simple && !simple.literals.some(hasTerminator)) return simple.literals;
  return patternInfo(pattern)?.requiredLiterals ?? [];
}

/** Literal segments and matcher of a pattern, or a reason to reject it. */
function classify(pattern: string): { matcher: Matcher; literals: string[]; literalLength: number } | { problem: string } {
  const simple = parseSimplePattern(pattern);
  if (simple && !simple.literals.some(hasTerminator)) {
    let lit = 0;
    for (const l of simple.literals) lit += l.length;
    if (pattern.length > MAX_PATTERN_LENGTH || lit < MIN_LITERAL_CHARS) return { problem: patternProblem(pattern) ?? 'pattern is not safe' };
    return { matcher: new ChainMatcher(simple.literals, simple.leadingHole, simple.trailingHole), literals: simple.literals, literalLength: lit };
  }
  const problem = patternProblem(pattern);
  if (problem) return { problem };
  const info = patternInfo(pattern)!;
  const trailingGroup = /(?:^|[^\\])(?:\\\\)*\(\.[+*]\?\)$/.test(pattern) ? info.groups : 0;
  let longest = '';
  for (const l of info.requiredLiterals) if (l.length > longest.length) longest = l;
  // the RegexMatcher's key is its longest required literal (the prefilter key is a window of it)
  return { matcher: new RegexMatcher(pattern, longest || null, trailingGroup, info.requiredLiterals), literals: info.requiredLiterals, literalLength: info.literalLength };
}

const utf8 = new TextEncoder();

/** UTF-8 bytes b[a, e) as a string (Node's fast native slice when present). */
function utf8Slice(b: Buffer, a: number, e: number): string {
  const fast = (b as unknown as { utf8Slice?: (a: number, e: number) => string }).utf8Slice;
  return fast ? fast.call(b, a, e) : b.toString('utf8', a, e);
}

export class MatchEngine {
  readonly size: number;
  readonly rejected: { entry: number; reason: string }[] = [];
  /** Build statistics (complete once the build is). */
  stats: EngineStats = { chain: 0, regex: 0, rejected: 0, unkeyed: 0, tiers: [], direct: 0, indexBytes: 0 };

  /** usable[i] = 1: record i has a safe pattern (0: rejected, never matched). */
  private readonly usable: Uint8Array;
  /** Matchers of records that were candidates (made on first use from the pattern: at 500k
   * records, matchers and their literal strings for every record would hold ~100 MB); emptied
   * when it holds 2^17 of them. */
  private matcherCache: (Matcher | undefined)[];
  private matcherCount = 0;
  private readonly literalLengths: Int32Array;
  private readonly keys: string[];
  private tiers: Tier[] = [];
  private readonly unkeyed: number[] = [];
  /** Records of sparse tiers: their keys are searched with indexOf. */
  private readonly direct: number[] = [];
  private readonly compare: (a: LineMatch, b: LineMatch) => number;

  // per-call scratch
  private readonly seen: Int32Array; // view stamp: record already a candidate in this view
  private readonly lineSeen: Int32Array; // line stamp: record already has a result for this line
  private readonly resultAt: Int32Array; // index in the current line's results
  private viewStamp = 0;
  private lineStamp = 0;
  private readonly cands: number[] = [];
  /** Candidates of a line's first view (reused for its value views that lie inside it). */
  private readonly baseCands: number[] = [];
  private readonly marks: number[] = [];
  /** fromJson[i]: result i of the current line came from a JSON string value (wins ties). */
  private readonly fromJson: boolean[] = [];

  private constructor(private readonly entries: readonly EngineEntry[]) {
    const n = entries.length;
    this.size = n;
    this.usable = new Uint8Array(n);
    this.matcherCache = new Array<Matcher | undefined>(n);
    this.literalLengths = new Int32Array(n);
    this.keys = new Array<string>(n).fill('');
    this.seen = new Int32Array(n);
    this.lineSeen = new Int32Array(n);
    this.resultAt = new Int32Array(n);
    this.compare = compareMatches(entries);
  }

  /** The build, as steps: each `yield` is a point where an incremental build may give the event
   * loop a turn (about every thousand records). */
  private *buildSteps(): Generator<void, void, void> {
    const entries = this.entries;
    const n = entries.length;
    // 1. classify, and count the anchored grams of every literal (literals are not kept: at 500k
    //    records they would be ~100 MB held through the whole build; step 2 parses them again)
    const bits = n > 200_000 ? 22 : n > 20_000 ? 20 : 18; // small enough to stay in cache
    const anchored16 = new Tier(16, 16, true);
    const anchored8 = new Tier(8, 8, true);
    const isAnchor = (c: number) => c === 0x20 || c === 0x5f;
    const counts16 = new GramCounts(16, bits);
    const counts8 = new GramCounts(8, bits);
    let chain = 0;
    let regex = 0;
    for (let i = 0; i < n; i++) {
      if ((i & 1023) === 1023) yield;
      const c = classify(entries[i]!.pattern);
      if ('problem' in c) {
        this.rejected.push({ entry: i, reason: c.problem });
        continue;
      }
      this.usable[i] = 1;
      this.literalLengths[i] = c.literalLength;
      if (c.matcher instanceof ChainMatcher) chain++;
      else regex++;
      // 2. one key per record, in the longest tier its literals allow, chosen by rarity of its
      //    grams across all records' literals. 2a. anchored keys: right after a space or '_'
      //    inside a literal, indexed by their first 16 chars when the literal allows (few records
      //    share a 16-gram), else their first 8
      for (const l of c.literals)
        for (let p = 1; p + 8 <= l.length; p++)
          if (isAnchor(l.charCodeAt(p - 1))) {
            counts8.addAt(l, p);
            if (p + 16 <= l.length) counts16.addAt(l, p);
          }
    }
    /** Literals of the records without an anchored key (for the strided tiers below). */
    const literals: string[][] = new Array<string[]>(n);
    const inAnchored = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      if ((i & 1023) === 1023) yield;
      if (!this.usable[i]) continue;
      let best = Infinity;
      let key = '';
      let q = 8;
      const lits = requiredLiterals(entries[i]!.pattern);
      for (const l of lits)
        for (let p = 1; p + 8 <= l.length; p++) {
          if (!isAnchor(l.charCodeAt(p - 1))) continue;
          // a 16-gram key is preferred: its count is compared with a head start
          const long = p + 16 <= l.length;
          const c = long ? counts16.countAt(l, p) : counts8.countAt(l, p) + 2;
          if (c < best) {
            best = c;
            q = long ? 16 : 8;
            key = l.slice(p, Math.min(l.length, p + 24)); // verified in full: longer is more specific
          }
        }
      if (key) {
        this.keys[i] = key;
        (q === 16 ? anchored16 : anchored8).add(i);
        inAnchored[i] = 1;
      } else literals[i] = lits;
    }

    // 2b. the rest: strided tiers
    const longestOf = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      if ((i & 1023) === 1023) yield;
      if (!this.usable[i] || inAnchored[i]) continue;
      let longest = 0;
      for (const l of literals[i]!) if (l.length > longest) longest = l.length;
      longestOf[i] = longest;
    }
    const active = planTiers(longestOf);
    const tiers = TIERS.map(([m, q]) => new Tier(m, q));
    const tierOf = new Int8Array(n).fill(-1);
    for (let i = 0; i < n; i++) {
      if ((i & 1023) === 1023) yield;
      if (!this.usable[i] || inAnchored[i]) continue;
      const longest = longestOf[i]!;
      if (longest === 0) {
        this.unkeyed.push(i);
        continue;
      }
      const t = tiers.findIndex((tier, k) => active[k] && tier.m <= longest);
      if (t >= 0) tierOf[i] = t;
      else {
        // searched with indexOf: the key is the record's longest literal
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
          if (this.usable[k]) for (const l of literals[k] ?? requiredLiterals(entries[k]!.pattern)) if (l.length >= q) counts.addLiteral(l);
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
    const tierStats: EngineStats['tiers'] = [];
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
    this.stats = { chain, regex, rejected: this.rejected.length, unkeyed: this.unkeyed.length, tiers: tierStats, direct: this.direct.length, indexBytes };
  }

  static build(entries: readonly EngineEntry[]): MatchEngine {
    const e = new MatchEngine(entries);
    for (const _ of e.buildSteps());
    return e;
  }

  /**
   * The same engine, built in slices of about `sliceMs` (default 25) with an event-loop turn
   * between them, so a server stays responsive while it indexes a large record set. Resolves
   * undefined when `cancelled()` turns true (checked between slices).
   */
  static async buildAsync(entries: readonly EngineEntry[], opts: { sliceMs?: number; cancelled?: () => boolean; onSlice?: (ms: number) => void } = {}): Promise<MatchEngine | undefined> {
    const sliceMs = opts.sliceMs ?? 25;
    const e = new MatchEngine(entries);
    const steps = e.buildSteps();
    for (;;) {
      const t0 = performance.now();
      let done = false;
      while (!(done = steps.next().done === true) && performance.now() - t0 < sliceMs);
      opts.onSlice?.(performance.now() - t0);
      if (done) return e;
      await new Promise<void>((r) => setImmediate(r));
      if (opts.cancelled?.()) return undefined;
    }
  }

  /** Every matching entry, ranked, one match (the leftmost) per entry. */
  matchLine(line: string): LineMatch[] {
    return this.matchLineWith(line, undefined);
  }

  /** matchLine, with the first view's candidates given (a superset of the records that can match
   * the line, from the byte scan) instead of collected by the string prefilter. */
  private matchLineWith(line: string, given: readonly number[] | undefined, lineViewsOf?: LineView[]): LineMatch[] {
    if (++this.lineStamp >= 0x3fffffff) {
      this.lineSeen.fill(0);
      this.lineStamp = 1;
    }
    const results: LineMatch[] = [];
    const plain = !needsViews(line);
    let base = line; // the first view's text: where errorCode tokens are looked for
    if (plain) {
      if (given === undefined) this.matchView(line, undefined, line, results);
      else if (given.length > 0) this.matchCandidates(line, undefined, line, results, given);
    } else {
      const views = lineViewsOf ?? lineViews(line);
      base = views[0]!.text;
      const baseCands = this.baseCands;
      baseCands.length = 0;
      for (let k = 0; k < views.length; k++) {
        const v = views[k]!;
        // a value view inside the first view: its candidates are among the first view's
        // (every key occurrence in it is one in the first view), so it is not scanned again
        if (k > 0 && v.inBase) {
          if (baseCands.length > 0) this.matchCandidates(v.text, v, line, results, baseCands);
          continue;
        }
        if (k === 0 && given !== undefined) {
          if (given.length > 0) this.matchCandidates(v.text, v, line, results, given);
          for (const rec of given) baseCands.push(rec);
          continue;
        }
        this.matchView(v.text, v, line, results);
        if (k === 0) for (const rec of this.cands) baseCands.push(rec);
      }
    }
    if (results.length === 0) return results;
    for (const r of results) {
      const code = this.entries[r.entry]!.errorCode;
      if (code) r.codeInLine = hasToken(base, code);
    }
    if (results.length > 1) results.sort(this.compare);
    return results;
  }

  /**
   * Match every line of a block of text (lines end with \n; a final line without \n counts).
   * Calls onLine(lineIndex, matches, line) in order for each line with matches; returns the number
   * of lines. Same results as matchLine on each line, but lines without any key occurrence (and
   * without ANSI escapes or backslash escapes) are never split out or touched: one strided pass
   * over the whole block finds the lines worth matching. For scanning files.
   */
  matchText(text: string, onLine: (lineIndex: number, matches: LineMatch[], line: string) => void): number {
    const n = text.length;
    const marks = this.marks;
    marks.length = 0;
    const everyLine = this.unkeyed.length > 0;
    if (!everyLine) {
      for (const tier of this.tiers) tier.hits(text, this.keys, marks);
      const markAll = (needle: string) => {
        let p = text.indexOf(needle);
        while (p >= 0) {
          marks.push(p);
          const nl = text.indexOf('\n', p);
          if (nl < 0) break;
          p = text.indexOf(needle, nl + 1);
        }
      };
      for (const rec of this.direct) markAll(this.keys[rec]!);
      markAll('\x1b'); // views differ from the raw text: ANSI sequences ...
      markAll('\\'); // ... and JSON escapes
      marks.sort((a, b) => a - b);
    }
    let lineNo = 0;
    let pos = 0; // start of line lineNo
    let mi = 0;
    while (pos < n) {
      let target: number;
      if (everyLine) target = pos;
      else {
        while (mi < marks.length && marks[mi]! < pos) mi++;
        if (mi >= marks.length) break;
        target = marks[mi]!;
      }
      // advance to the line containing target
      let nl = text.indexOf('\n', pos);
      while (nl >= 0 && nl < target) {
        lineNo++;
        pos = nl + 1;
        nl = text.indexOf('\n', pos);
      }
      const end = nl < 0 ? n : nl;
      const line = text.slice(pos, end);
      const ms = this.matchLine(line);
      if (ms.length) onLine(lineNo, ms, line);
      if (nl < 0) return lineNo + 1;
      lineNo++;
      pos = nl + 1;
    }
    // count the remaining lines
    while (pos < n) {
      const nl = text.indexOf('\n', pos);
      lineNo++;
      if (nl < 0) break;
      pos = nl + 1;
    }
    return lineNo;
  }

  private byteIndexCache: ByteIndex | undefined;
  private byteSeen: Int32Array | undefined;
  private byteStamp = 0;
  private byteScratch: Uint8Array | undefined;

  /** The byte-level prefilter for matchBytes (built on first use: the language server never needs
   * it). It scans with WebAssembly when the runtime has it, unless opts.wasm is false (then in JS:
   * the same hits, for tests and comparisons); options count only on the first call. */
  byteIndex(opts: { wasm?: boolean } = {}): ByteIndex {
    if (!this.byteIndexCache) {
      // the simple records' literals also go to the WebAssembly module, which matches them exactly
      // on plain ASCII lines (the rest is matched here)
      const chains = opts.wasm !== false ? new ChainTable(this.size) : undefined;
      const index = buildByteIndexOf(this.size, (i) => {
        if (!this.usable[i]) return null;
        const pattern = this.entries[i]!.pattern;
        const simple = parseSimplePattern(pattern);
        if (simple && !simple.literals.some(hasTerminator)) {
          // the chain table's UTF-8 copy serves the byte index too (encoded once)
          return chains?.add(i, simple.literals, simple.leadingHole, simple.trailingHole) ?? simple.literals;
        }
        return patternInfo(pattern)?.requiredLiterals ?? [];
      });
      if (chains) index.native = wasmScanner(index, chains);
      this.byteIndexCache = index;
    }
    return this.byteIndexCache;
  }

  /**
   * Match every line of a block of UTF-8 bytes, buf[0, n): whole lines ending with \n (a final
   * line without \n counts). Calls onLine(lineIndex, matches, line, lineStart) in order for each line with
   * matches and returns the number of lines: the same results as matchLine on each decoded line.
   * Lines are decoded only when a record's key occurs in their bytes (or they hold an ANSI escape
   * or a backslash, whose views differ from the raw bytes). For scanning files.
   * Fastest when buf.byteOffset is a multiple of 4 and buf.length >= n + 32 (those 32 bytes
   * are zeroed during the scan and restored after it); otherwise the block is copied first.
   */
  matchBytes(buf: Uint8Array, n: number, onLine: (lineIndex: number, matches: LineMatch[], line: string, lineStart: number) => void): number {
    const index = this.byteIndex();
    if ((buf.byteOffset & 3) !== 0 || buf.length < n + 32) {
      if (!this.byteScratch || this.byteScratch.length < n + 32) this.byteScratch = new Uint8Array(Math.max(n + 32, 1 << 16));
      this.byteScratch.set(buf.subarray(0, n));
      buf = this.byteScratch;
    }
    // the scan reads up to 32 bytes past n: zero them for it, and give the caller's bytes back after
    const saved = buf.slice(n, n + 32);
    buf.fill(0, n, n + 32);
    try {
      return this.matchAlignedBytes(buf, n, index, onLine);
    } finally {
      buf.set(saved, n);
    }
  }

  private matchAlignedBytes(buf: Uint8Array, n: number, index: ByteIndex, onLine: (lineIndex: number, matches: LineMatch[], line: string, lineStart: number) => void): number {
    const bytes = Buffer.from(buf.buffer, buf.byteOffset, n + 32);
    // no string of the whole block: lines are found with native byte searches, and only candidate
    // lines are decoded (a 1 MB string per block would also cost major GCs on a big heap)
    const decode = (a: number, b: number): string => utf8Slice(bytes, a, b);
    const nextNl = (from: number): number => {
      const p = bytes.indexOf(10, from);
      return p < 0 || p >= n ? -1 : p;
    };
    if (index.unkeyed.length > 0) {
      // records without a byte key: every line is a candidate
      let lineNo = 0;
      let pos = 0;
      while (pos < n) {
        let nl = nextNl(pos);
        if (nl < 0) nl = n;
        const line = decode(pos, nl);
        const ms = this.matchLine(line);
        if (ms.length) onLine(lineNo, ms, line, pos);
        lineNo++;
        pos = nl + 1;
      }
      return lineNo;
    }
    const listed = index.native?.scanLines(buf, n);
    if (listed) return this.matchListedLines(bytes, listed, onLine);
    const hits = index.scan(buf, n);
    // lines whose views differ from their bytes: ANSI escapes and JSON escapes (matched in full)
    const special: number[] = [];
    for (const needle of [0x1b, 0x5c]) {
      let p = bytes.indexOf(needle, 0);
      while (p >= 0 && p < n) {
        special.push(p);
        p = bytes.indexOf(needle, p + 1);
      }
    }
    if (special.length > 1) special.sort((a, b) => a - b);
    const cands: number[] = [];
    let lineNo = 0;
    let pos = 0; // start of line lineNo
    let nl = nextNl(0);
    let hi = 0;
    let si = 0;
    for (;;) {
      const nextHit = hi < hits.count ? hits.pos[hi]! : n;
      const nextSpecial = si < special.length ? special[si]! : n;
      const target = Math.min(nextHit, nextSpecial);
      if (target >= n) break;
      while (nl >= 0 && nl < target) {
        lineNo++;
        pos = nl + 1;
        nl = nextNl(pos);
      }
      const end = nl < 0 ? n : nl;
      const full = nextSpecial < end;
      while (si < special.length && special[si]! < end) si++;
      const first = hi;
      while (hi < hits.count && hits.pos[hi]! < end) hi++;
      cands.length = 0;
      this.uniqueRecords(hits.rec, first, hi, 1, cands);
      const line = decode(pos, end);
      const ms = full ? this.matchLine(line) : this.matchLineWith(line, cands);
      if (ms.length) onLine(lineNo, ms, line, pos);
      if (nl < 0) return lineNo + 1;
      lineNo++;
      pos = nl + 1;
      nl = nextNl(pos);
    }
    // count the remaining lines
    while (nl >= 0) {
      lineNo++;
      pos = nl + 1;
      nl = nextNl(pos);
    }
    return pos < n ? lineNo + 1 : lineNo;
  }

  /** The lines the WebAssembly line walk listed: the same work as the JS walk in matchAlignedBytes. */
  private matchListedLines(bytes: Buffer, listed: NativeLines, onLine: (lineIndex: number, matches: LineMatch[], line: string, lineStart: number) => void): number {
    // copies: the views into the module's memory do not survive a reentrant scan from onLine
    const entries = listed.entries.slice();
    const pairs = listed.pairs.slice();
    const results = listed.results.slice();
    const total = listed.total;
    const cands: number[] = [];
    for (let i = 0; i < listed.lines; i++) {
      const o = i * 8;
      const start = entries[o + 1]!;
      const end = entries[o + 2]!;
      const status = entries[o + 5]!;
      const line = utf8Slice(bytes, start, end);
      if (status === 2) {
        onLine(entries[o]!, this.nativeMatches(line, results, entries[o + 6]!, entries[o + 7]!), line, start);
        continue;
      }
      if (status === 1) {
        const ms = this.matchEscapedLine(line);
        if (ms.length) onLine(entries[o]!, ms, line, start);
        continue;
      }
      cands.length = 0;
      // records at the odd words of the (position, record) pairs
      this.uniqueRecords(pairs, 2 * entries[o + 3]! + 1, 2 * entries[o + 4]! + 1, 2, cands);
      // a CRLF line: matched without its CR (what its first view would be: same matches and
      // offsets, without making views)
      const ms = this.matchLineWith(end > start && bytes[end - 1] === 0x0d ? line.slice(0, -1) : line, cands);
      if (ms.length) onLine(entries[o]!, ms, line, start);
    }
    return total;
  }

  /** Append to out each record of recs[from], recs[from + step], ... before `to`, once. */
  private uniqueRecords(recs: Int32Array, from: number, to: number, step: number, out: number[]): number[] {
    if (!this.byteSeen) this.byteSeen = new Int32Array(this.size);
    const seen = this.byteSeen;
    if (++this.byteStamp >= 0x3fffffff) {
      seen.fill(0);
      this.byteStamp = 1;
    }
    const st = this.byteStamp;
    for (let i = from; i < to; i += step) {
      const rec = recs[i]!;
      if (seen[rec] !== st) {
        seen[rec] = st;
        out.push(rec);
      }
    }
    return out;
  }

  private escScratch: Uint8Array | undefined;

  /** matchLine for a line with ESC (ANSI sequences): its keys are looked for in its stripped text
   * (the first view) by the byte scanner, instead of the string prefilter (several times faster). */
  private matchEscapedLine(line: string): LineMatch[] {
    const native = this.byteIndexCache?.native;
    if (!native) return this.matchLine(line);
    const views = lineViews(line);
    const text = views[0]!.text;
    const room = text.length * 3 + 32;
    if (!this.escScratch || this.escScratch.length < room) this.escScratch = new Uint8Array(Math.max(room, 4096));
    const buf = this.escScratch;
    const n = utf8.encodeInto(text, buf).written;
    buf.fill(0, n, n + 32);
    const hits = native.scan(buf, n);
    if (!hits) return this.matchLine(line);
    return this.matchLineWith(line, this.uniqueRecords(hits.rec, 0, hits.count, 1, []), views);
  }

  /** LineMatches of the matches the WebAssembly module found on a plain ASCII line (results[from,
   * to): [record, start, end, captures, (start, end) * captures], offsets in the line), ranked. */
  private nativeMatches(line: string, results: Int32Array, from: number, to: number): LineMatch[] {
    const ms: LineMatch[] = [];
    for (let r = from; r < to; ) {
      const rec = results[r]!;
      const start = results[r + 1]!;
      const end = results[r + 2]!;
      const caps = results[r + 3]!;
      const entry = this.entries[rec]!;
      const names = entry.captureNames;
      const captures: Capture[] = [];
      for (let g = 0; g < caps; g++) {
        const s = results[r + 4 + 2 * g]!;
        const e = results[r + 5 + 2 * g]!;
        captures.push({ name: names[g] ?? String(g + 1), value: line.slice(s, e), start: s, end: e });
      }
      const code = entry.errorCode;
      ms.push({ entry: rec, start, end, text: line.slice(start, end), captures, literalLength: this.literalLengths[rec]!, codeInLine: code ? hasToken(line, code) : false });
      r += 4 + 2 * caps;
    }
    if (ms.length > 1) ms.sort(this.compare);
    return ms;
  }

  /** Cheap check: false means matchLine(line) is certainly empty. */
  mightMatch(line: string): boolean {
    if (this.unkeyed.length > 0) return true;
    const texts = needsViews(line) ? lineViews(line).map((v) => v.text) : [line];
    for (const t of texts) {
      for (const tier of this.tiers) if (tier.any(t, this.keys)) return true;
      for (const rec of this.direct) if (t.indexOf(this.keys[rec]!) >= 0) return true;
    }
    return false;
  }

  /** Candidate records whose key occurs in text (for tests and diagnostics). */
  candidates(text: string): number[] {
    const out: number[] = [];
    this.collect(text, out);
    return out;
  }

  private collect(text: string, out: number[]): void {
    if (++this.viewStamp >= 0x3fffffff) {
      this.seen.fill(0);
      this.viewStamp = 1;
    }
    const st = this.viewStamp;
    for (const tier of this.tiers) tier.scan(text, this.keys, this.seen, st, out);
    for (const rec of this.direct) if (text.indexOf(this.keys[rec]!) >= 0) out.push(rec);
    for (const rec of this.unkeyed) out.push(rec);
  }

  private matchView(text: string, view: LineView | undefined, line: string, results: LineMatch[]): void {
    const cands = this.cands;
    cands.length = 0;
    this.collect(text, cands);
    if (cands.length === 0) return;
    this.matchCandidates(text, view, line, results, cands);
  }

  /** Match the candidate records on one view and merge into the line's results (leftmost wins). */
  private matchCandidates(text: string, view: LineView | undefined, line: string, results: LineMatch[], cands: readonly number[]): void {
    const terms = terminators(text);
    const json = view !== undefined && view.kind === 'json';
    for (const rec of cands) {
      if (!this.usable[rec]) continue;
      const raw = this.matcherOf(rec)?.match(text, terms);
      if (!raw) continue;
      const start = view ? view.toOriginal(raw.start) : raw.start;
      if (this.lineSeen[rec] === this.lineStamp) {
        const at = this.resultAt[rec]!;
        const prev = results[at]!;
        if (start > prev.start || (start === prev.start && (!json || this.fromJson[at]))) continue;
        results[at] = this.toLineMatch(rec, raw, start, view, line);
        this.fromJson[at] = json;
        continue;
      }
      this.lineSeen[rec] = this.lineStamp;
      this.resultAt[rec] = results.length;
      this.fromJson[results.length] = json;
      results.push(this.toLineMatch(rec, raw, start, view, line));
    }
  }

  /** The matcher of a usable record (cached; the cache is emptied when it grows past 2^17).
   * Undefined if the entry's pattern no longer classifies (it changed after the build). */
  private matcherOf(rec: number): Matcher | undefined {
    let m = this.matcherCache[rec];
    if (!m) {
      const c = classify(this.entries[rec]!.pattern);
      if ('problem' in c) {
        this.usable[rec] = 0;
        return undefined;
      }
      m = c.matcher;
      if (++this.matcherCount > 1 << 17) {
        this.matcherCache = new Array<Matcher | undefined>(this.size);
        this.matcherCount = 1;
      }
      this.matcherCache[rec] = m;
    }
    return m;
  }

  private toLineMatch(rec: number, raw: RawMatch, start: number, view: LineView | undefined, line: string): LineMatch {
    const end = view ? view.toOriginal(raw.end, true) : raw.end;
    const names = this.entries[rec]!.captureNames;
    const captures: Capture[] = [];
    for (let g = 0; g * 2 < raw.caps.length; g++) {
      const s = raw.caps[g * 2]!;
      const e = raw.caps[g * 2 + 1]!;
      if (s < 0) continue;
      const os = view ? view.toOriginal(s) : s;
      const oe = view ? view.toOriginal(e, true) : e;
      // the value is the matched (decoded) text; offsets point into the original line
      captures.push({ name: names[g] ?? String(g + 1), value: view ? view.text.slice(s, e) : line.slice(s, e), start: os, end: oe });
    }
    return { entry: rec, start, end, text: line.slice(start, end), captures, literalLength: this.literalLengths[rec]!, codeInLine: false };
  }
}
