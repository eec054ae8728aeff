// MatchEngine: index many record patterns once, then find EVERY record matching a line.
//
// Design (see test/bench for the numbers):
//  1. Each distinct pattern is classified once (records sharing a pattern share its matching: a
//     record set holds `method` or `password` many times). "Simple" patterns (literals and (.+?)
//     holes only; nearly all ErrLookup patterns) are matched by a chain of indexOf searches
//     (ChainMatcher), exact and linear. Other patterns become a lazily compiled RegExp
//     (RegexMatcher), run on bounded windows of long lines. Unsafe patterns are rejected with a
//     reason and never run.
//  2. Two prefilters, each built on first use: the string prefilter for lines (matchLine: the
//     language server, explain, search; engine/keys.ts) and the byte index for files (scanBytes /
//     matchBytes: the CLI scan; engine/bytes.ts, run as WebAssembly, driven by engine/blocks.ts).
//     Each gives every pattern a key that every match contains, chosen rare in ordinary text and
//     among the patterns, and finds every key occurrence.
//  3. Candidates are matched fully; per pattern the leftmost match over the line's views wins (ties:
//     a JSON string value over the raw line); each record of the pattern gets its match (its own
//     capture names and error code). Results are ranked.
// Nothing here times out or skips records: recall is complete by construction (every match
// contains its pattern's key, and every key occurrence is found by the scan).

import { MIN_LITERAL_CHARS, MAX_PATTERN_LENGTH, parseSimplePattern, patternInfo, patternProblem } from './pattern';
import { lineViews, needsViews, type LineView } from './text';
import { runInSlices } from './slices';
import { ChainMatcher, RegexMatcher, hasTerminator, terminators, type RawMatch } from './engine/matchers';
import { type KeyStats, StringIndex, type StringIndexSnapshot } from './engine/keys';
import { ByteIndex, type ByteIndexSnapshot, buildByteIndexOf, type SpawnThread, type StagedBlock } from './engine/bytes';
import { ChainTable, earlyThread, wasmScanner } from './engine/wasmScan';
import { type BlockHost, LineHits, type ScanStats, scanBlock, soleMembers, takeScanStats } from './engine/blocks';
import { LongLine } from './engine/longLine';
import { type Capture, type EngineEntry, type LineMatch, type SlotResult, type SlotResults, hasToken, resultEnd } from './engine/types';

export { LineHits } from './engine/blocks';
export type { SpawnThread } from './engine/bytes';

export type { Capture, EngineEntry, LineMatch } from './engine/types';
export { hasToken } from './engine/types';

type Matcher = { match(t: string, terms: number[] | null): RawMatch | null };
/** The matcher of a pattern that no longer classifies (an entry changed after the build). */
const NEVER: Matcher = { match: () => null };

/** Build statistics (benchmark and diagnostics). */
export interface EngineStats extends KeyStats {
  chain: number;
  regex: number;
  rejected: number;
  /** Distinct usable patterns (records sharing a pattern are matched once). */
  patterns: number;
}

/** The structural order of two matches of one line, after what the caller ranks by: more literal
 * characters, then the longer span, then the id. (The one tie-break rule: core/catalog.ts ranks
 * by the error code token and confidence first, then by this.) */
export function compareStructure(a: LineMatch, b: LineMatch, idA: string, idB: string): number {
  if (a.literalLength !== b.literalLength) return b.literalLength - a.literalLength;
  const la = a.end - a.start;
  const lb = b.end - b.start;
  if (la !== lb) return lb - la;
  if (idA !== idB) return idA < idB ? -1 : 1;
  return a.entry - b.entry;
}

/** The engine's ranking: errorCode in the line, then compareStructure. */
export function compareMatches(entries: readonly EngineEntry[]): (a: LineMatch, b: LineMatch) => number {
  return (a, b) => {
    if (a.codeInLine !== b.codeInLine) return a.codeInLine ? -1 : 1;
    return compareStructure(a, b, entries[a.entry]!.id, entries[b.entry]!.id);
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

/** MatchEngine.snapshot(): see there. */
export interface EngineSnapshot {
  slotOf: Int32Array;
  memberStart: Int32Array;
  members: Int32Array;
  slotRecord: Int32Array;
  literalLengths: Int32Array;
  simple: Uint8Array;
  rejected: { entry: number; reason: string }[];
  stats: EngineStats;
  /** The byte index when it was built (see snapshot()). */
  bytes: ByteIndexSnapshot | undefined;
  chains: { info: Int32Array; pool: Uint8Array } | undefined;
  /** The string prefilter when it was built (see snapshot()). */
  strings?: StringIndexSnapshot | undefined;
}

export class MatchEngine {
  /** Records (entries). */
  readonly size: number;
  readonly rejected: { entry: number; reason: string }[] = [];
  /** Build statistics (the string prefilter's part once it is built). */
  stats: EngineStats = { chain: 0, regex: 0, rejected: 0, patterns: 0, unkeyed: 0, tiers: [], direct: 0, indexBytes: 0 };

  // Patterns ("slots"): records sharing a pattern string share one slot. members[memberStart[s] ..
  // memberStart[s + 1]) are slot s's records.
  /** Slot of each record; -1: rejected. */
  private readonly slotOf: Int32Array;
  private slotCount = 0;
  private memberStart: Int32Array = new Int32Array(1);
  private members: Int32Array = new Int32Array(0);
  /** A record of each slot (its pattern is the slot's). */
  private slotRecord: Int32Array;
  private literalLengths: Int32Array;
  /** 1: the slot's pattern is simple (a literal chain); 0: a general regex. */
  private simple: Uint8Array;
  /** Matchers of slots that were candidates (made on first use: at 500k records, matchers and
   * their literal strings for every pattern would hold ~100 MB); emptied at 2^17 of them. */
  private matcherCache: (Matcher | undefined)[] = [];
  private matcherCount = 0;
  private strings: StringIndex | undefined;
  private bytesIndex: ByteIndex | undefined;
  private chainTable: ChainTable | undefined;
  private readonly compare: (a: LineMatch, b: LineMatch) => number;

  // per-line scratch (by slot)
  private lineSeen = new Int32Array(0);
  private resultAt = new Int32Array(0);
  private lineStamp = 0;
  private readonly cands: number[] = [];
  /** Candidates of a line's first view (reused for its value views that lie inside it). */
  private readonly baseCands: number[] = [];

  private constructor(private readonly entries: readonly EngineEntry[]) {
    const n = entries.length;
    this.size = n;
    this.slotOf = new Int32Array(n).fill(-1);
    this.slotRecord = new Int32Array(0);
    this.literalLengths = new Int32Array(0);
    this.simple = new Uint8Array(0);
    this.compare = compareMatches(entries);
  }

  /** Classify every distinct pattern once, as steps (a `yield` about every thousand records). */
  private *classifySteps(): Generator<void, void, void> {
    const entries = this.entries;
    const n = entries.length;
    const slotByPattern = new Map<string, number>();
    const problems: (string | undefined)[] = [];
    const firstRec: number[] = [];
    const lits: number[] = [];
    const simple: number[] = [];
    let chain = 0;
    let regex = 0;
    for (let i = 0; i < n; i++) {
      if ((i & 1023) === 1023) yield;
      const pattern = entries[i]!.pattern;
      let slot = slotByPattern.get(pattern);
      if (slot === undefined) {
        slot = firstRec.length;
        slotByPattern.set(pattern, slot);
        firstRec.push(i);
        const c = classify(pattern);
        if ('problem' in c) {
          problems.push(c.problem);
          lits.push(0);
          simple.push(0);
        } else {
          problems.push(undefined);
          lits.push(c.literalLength);
          const isChain = c.matcher instanceof ChainMatcher;
          simple.push(isChain ? 1 : 0);
          if (isChain) chain++;
          else regex++;
        }
      }
      const problem = problems[slot];
      if (problem !== undefined) this.rejected.push({ entry: i, reason: problem });
      else this.slotOf[i] = slot;
    }
    // usable slots only, renumbered densely
    const dense = new Int32Array(firstRec.length).fill(-1);
    let count = 0;
    for (let s = 0; s < firstRec.length; s++) if (problems[s] === undefined) dense[s] = count++;
    this.slotCount = count;
    this.slotRecord = new Int32Array(count);
    this.literalLengths = new Int32Array(count);
    this.simple = new Uint8Array(count);
    for (let s = 0; s < firstRec.length; s++) {
      const d = dense[s]!;
      if (d < 0) continue;
      this.slotRecord[d] = firstRec[s]!;
      this.literalLengths[d] = lits[s]!;
      this.simple[d] = simple[s]!;
    }
    const sizes = new Int32Array(count + 1);
    for (let i = 0; i < n; i++) {
      const s = this.slotOf[i]!;
      if (s < 0) continue;
      const d = dense[s]!;
      this.slotOf[i] = d;
      sizes[d + 1]!++;
    }
    for (let s = 0; s < count; s++) sizes[s + 1]! += sizes[s]!;
    this.memberStart = sizes.slice();
    this.members = new Int32Array(sizes[count]!);
    const fill = sizes;
    for (let i = 0; i < n; i++) {
      const s = this.slotOf[i]!;
      if (s >= 0) this.members[fill[s]!++] = i;
    }
    this.matcherCache = new Array<Matcher | undefined>(count);
    this.lineSeen = new Int32Array(count);
    this.resultAt = new Int32Array(count);
    this.stats = { ...this.stats, chain, regex, rejected: this.rejected.length, patterns: count };
  }

  /** The string prefilter's build, as steps. */
  private *stringSteps(): Generator<void, void, void> {
    const index = new StringIndex(this.slotCount);
    yield* index.buildSteps((s) => requiredLiterals(this.patternOf(s)));
    this.strings = index;
    this.stats = { ...this.stats, ...index.stats };
  }

  private patternOf(slot: number): string {
    return this.entries[this.slotRecord[slot]!]!.pattern;
  }

  /** Classify the patterns; the prefilters are built on first use (matchLine: the string
   * prefilter; scanBytes / matchBytes: the byte index), so a file scan never builds the string one. */
  static build(entries: readonly EngineEntry[]): MatchEngine {
    const e = new MatchEngine(entries);
    for (const _ of e.classifySteps());
    return e;
  }

  /**
   * The engine with its string prefilter, built in slices of about `sliceMs` (default 25) with an
   * event-loop turn between them, so a server stays responsive while it indexes a large record set.
   * Resolves undefined when `cancelled()` turns true (checked between slices).
   */
  static async buildAsync(entries: readonly EngineEntry[], opts: { sliceMs?: number; cancelled?: () => boolean; onSlice?: (ms: number) => void } = {}): Promise<MatchEngine | undefined> {
    const sliceMs = opts.sliceMs ?? 25;
    const e = new MatchEngine(entries);
    const steps = (function* () {
      yield* e.classifySteps();
      yield* e.stringSteps();
    })();
    const done = await runInSlices(steps, sliceMs, { stop: opts.cancelled, onSlice: opts.onSlice });
    return done ? e : undefined;
  }

  /** Build the string prefilter now (matchLine builds it on first use): a server that matches
   * lines plans it before its first request, or has it from the index cache. */
  prepareLines(): void {
    this.stringIndex();
  }

  private stringIndex(): StringIndex {
    if (!this.strings) for (const _ of this.stringSteps());
    return this.strings!;
  }

  /** Every matching entry, ranked, one match (the leftmost) per entry. */
  matchLine(line: string): LineMatch[] {
    return this.matchLineWith(line, undefined);
  }

  /** Candidate patterns (slots) of a line: those whose key occurs in one of its views (for tests
   * and diagnostics; every match of the line is among them). */
  candidates(line: string): number[] {
    const out: number[] = [];
    const texts = needsViews(line) ? lineViews(line).map((v) => v.text) : [line];
    for (const t of texts) this.stringIndex().collect(t, out);
    return [...new Set(out)];
  }

  /** matchLine, with the first view's candidate patterns given (a superset of the patterns that
   * can match the line, from the byte scan) instead of collected by the string prefilter; other
   * views not inside the first are prefiltered with `prefilter` (default: the string prefilter). */
  private matchLineWith(line: string, given: readonly number[] | undefined, lineViewsOf?: LineView[], prefilter?: (text: string, out: number[]) => void): LineMatch[] {
    const { results, base } = this.slotResultsWith(line, given, lineViewsOf, prefilter);
    return this.expand(results, line, base);
  }

  /** matchLineWith's slot results, before they are made LineMatches (the file scan makes them
   * when they are asked for: lineMatchOf). */
  private slotResultsWith(line: string, given: readonly number[] | undefined, lineViewsOf?: LineView[], prefilter?: (text: string, out: number[]) => void): SlotResults {
    if (++this.lineStamp >= 0x3fffffff) {
      this.lineSeen.fill(0);
      this.lineStamp = 1;
    }
    const results: SlotResult[] = [];
    const collect = prefilter ?? ((text: string, out: number[]) => this.stringIndex().collect(text, out));
    const plain = !needsViews(line);
    let base = line; // the first view's text: where errorCode tokens are looked for
    if (plain) {
      if (given === undefined) {
        const cands = this.cands;
        cands.length = 0;
        collect(line, cands);
        this.matchCandidates(line, undefined, results, cands);
      } else if (given.length > 0) this.matchCandidates(line, undefined, results, given);
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
          if (baseCands.length > 0) this.matchCandidates(v.text, v, results, baseCands);
          continue;
        }
        if (k === 0 && given !== undefined) {
          if (given.length > 0) this.matchCandidates(v.text, v, results, given);
          for (const s of given) baseCands.push(s);
          continue;
        }
        const cands = this.cands;
        cands.length = 0;
        collect(v.text, cands);
        this.matchCandidates(v.text, v, results, cands);
        if (k === 0) for (const s of cands) baseCands.push(s);
      }
    }
    return { results, base };
  }

  /** Match the candidate patterns on one view and merge into the line's results (leftmost wins). */
  private matchCandidates(text: string, view: LineView | undefined, results: SlotResult[], cands: readonly number[]): void {
    const terms = terminators(text);
    const json = view !== undefined && view.kind === 'json';
    for (const slot of cands) {
      const raw = this.matcherOf(slot).match(text, terms);
      if (!raw) continue;
      const start = view ? view.toOriginal(raw.start) : raw.start;
      if (this.lineSeen[slot] === this.lineStamp) {
        const prev = results[this.resultAt[slot]!]!;
        if (start > prev.start || (start === prev.start && (!json || prev.json))) continue;
        prev.raw = raw;
        prev.start = start;
        prev.view = view;
        prev.json = json;
        continue;
      }
      this.lineSeen[slot] = this.lineStamp;
      this.resultAt[slot] = results.length;
      results.push({ slot, raw, start, view, json });
    }
  }

  /** One LineMatch per record of each matched pattern, ranked. */
  private expand(results: readonly SlotResult[], line: string, base: string): LineMatch[] {
    const out: LineMatch[] = [];
    for (const r of results) for (let k = this.memberStart[r.slot]!; k < this.memberStart[r.slot + 1]!; k++) out.push(this.lineMatchOf(this.members[k]!, r, line, base));
    if (out.length > 1) out.sort(this.compare);
    return out;
  }

  /** Record rec's LineMatch of its pattern's result r on the line (base: SlotResults.base). */
  private lineMatchOf(rec: number, r: SlotResult, line: string, base: string): LineMatch {
    const m = this.toLineMatch(rec, r, line);
    const code = this.entries[rec]!.errorCode;
    if (code) m.codeInLine = hasToken(base, code);
    return m;
  }

  /** The matcher of a usable slot (cached; the cache is emptied when it grows past 2^17). */
  private matcherOf(slot: number): Matcher {
    let m = this.matcherCache[slot];
    if (!m) {
      const c = classify(this.patternOf(slot));
      m = 'problem' in c ? NEVER : c.matcher;
      if (++this.matcherCount > 1 << 17) {
        this.matcherCache = new Array<Matcher | undefined>(this.slotCount);
        this.matcherCount = 1;
      }
      this.matcherCache[slot] = m;
    }
    return m;
  }

  private toLineMatch(rec: number, r: SlotResult, line: string): LineMatch {
    const { slot, raw, start, view } = r;
    const end = resultEnd(r);
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
    return { entry: rec, start, end, text: line.slice(start, end), captures, literalLength: this.literalLengths[slot]!, codeInLine: false };
  }

  // -------------------------------------------------------------------------------------------
  // Files: blocks of UTF-8 bytes

  /** The byte-level prefilter for scanBytes (built on first use: the language server never needs
   * it). It scans with WebAssembly when the runtime has it, unless opts.wasm is false (then in JS:
   * the same hits, for tests and comparisons); options count only on the first call. */
  byteIndex(opts: { wasm?: boolean } = {}): ByteIndex {
    if (!this.bytesIndex) {
      // the simple patterns' literals also go to the WebAssembly module, which matches them exactly
      // on plain ASCII lines (the rest is matched here)
      const chains = opts.wasm !== false ? new ChainTable(this.slotCount) : undefined;
      this.chainTable = chains;
      const index = buildByteIndexOf(this.slotCount, (s) => {
        const pattern = this.patternOf(s);
        if (this.simple[s]) {
          const simple = parseSimplePattern(pattern)!;
          // the chain table's UTF-8 copy serves the byte index too (encoded once)
          return chains?.add(s, simple.literals, simple.leadingHole, simple.trailingHole) ?? simple.literals;
        }
        const required = patternInfo(pattern)?.requiredLiterals ?? [];
        // a pattern that needs a line break (a message of several lines) matches no line the module
        // verifies (plain ASCII, no CR, JSON values without escapes): its chain is that literal
        // alone, which the module never finds there, so such a line is not handed to JS for it
        const lineBreak = required.find(hasTerminator);
        if (lineBreak !== undefined) chains?.add(s, [lineBreak], false, false);
        return required;
      });
      if (chains) index.native = wasmScanner(index, chains);
      this.bytesIndex = index;
    }
    return this.bytesIndex;
  }

  /** The engine's state (patterns, and each prefilter that was built) as plain numbers, strings
   * and arrays: the index cache (core/indexCache) stores it, `restore` makes the engine from it.
   * The byte index and chain table are in it when they were built (the CLI scans before it
   * saves), the string prefilter when it was (the language server builds it before it saves:
   * planning it again took 1.2 s at 100k records, on the first hover after a restore); the
   * restored engine builds a missing one on first use. */
  snapshot(): EngineSnapshot {
    const index = this.bytesIndex;
    return {
      slotOf: this.slotOf,
      memberStart: this.memberStart,
      members: this.members,
      slotRecord: this.slotRecord,
      literalLengths: this.literalLengths,
      simple: this.simple,
      rejected: this.rejected,
      stats: this.stats,
      bytes: index?.snapshot(),
      chains: index ? this.chainTable?.snapshot() : undefined,
      strings: this.strings?.snapshot(),
    };
  }

  /** The engine of `snapshot()` over the same entries, without classifying or indexing anything. */
  static restore(entries: readonly EngineEntry[], s: EngineSnapshot): MatchEngine {
    if (s.slotOf.length !== entries.length) throw new Error('index snapshot: the entries differ');
    const e = new MatchEngine(entries);
    e.slotOf.set(s.slotOf);
    e.slotCount = s.slotRecord.length;
    e.memberStart = s.memberStart;
    e.members = s.members;
    e.slotRecord = s.slotRecord;
    e.literalLengths = s.literalLengths;
    e.simple = s.simple;
    e.rejected.push(...s.rejected);
    e.stats = s.stats;
    e.matcherCache = new Array<Matcher | undefined>(e.slotCount);
    e.lineSeen = new Int32Array(e.slotCount);
    e.resultAt = new Int32Array(e.slotCount);
    if (s.bytes) {
      const index = ByteIndex.restore(s.bytes);
      if (s.chains) {
        e.chainTable = ChainTable.restore(e.slotCount, s.chains);
        index.native = wasmScanner(index, e.chainTable);
      }
      e.bytesIndex = index;
    }
    if (s.strings) {
      if (s.strings.size !== e.slotCount) throw new Error('index snapshot: the string prefilter is of other patterns');
      e.strings = StringIndex.restore(s.strings);
    }
    return e;
  }

  private host: BlockHost | undefined;

  /** What the block driver (engine/blocks.ts) needs of the engine. */
  private blockHost(): BlockHost {
    this.host ??= {
      index: this.byteIndex(),
      members: this.members,
      memberStart: this.memberStart,
      soleMember: soleMembers(this.members, this.memberStart),
      entries: this.entries,
      literalLengths: this.literalLengths,
      compare: this.compare,
      slotResultsWith: (line, slots, views, prefilter) => this.slotResultsWith(line, slots, views, prefilter),
      lineMatchOf: (rec, r, line, base) => this.lineMatchOf(rec, r, line, base),
      matchAll: (line) => this.matchLine(line),
    };
    return this.host;
  }

  /**
   * Match every line of a block of UTF-8 bytes, buf[0, n): lines end at \n, or at a CR not
   * followed by \n (a lone CR, as editors count lines; a CRLF's CR is not part of the line); a
   * final line without one counts. Calls onLine(lineIndex, hits) in order for each line with
   * matches (`hits` is valid during the call only: read its count and entries, or materialize its
   * LineMatches) and returns the number of lines: the same results as matchLine on each line.
   * Only lines where a pattern's key occurs are decoded (and lines with an ANSI escape or a
   * backslash, whose views differ from the raw bytes). For scanning files.
   * Fastest when buf.byteOffset is a multiple of 4 and buf.length >= n + 32 (those 32 bytes are
   * zeroed during the scan and restored after it); otherwise the block is copied first.
   * `staged`: stageBytes' result for these bytes, when the block was handed over ahead.
   */
  scanBytes(buf: Uint8Array, n: number, onLine: (lineIndex: number, hits: LineHits) => void, staged?: StagedBlock): number {
    return scanBlock(this.blockHost(), buf, n, onLine, staged);
  }

  /**
   * Hand buf[0, n) to the scan thread (useScanThread) ahead of its scanBytes, which is then given
   * the result and the same bytes: the thread scans this block while this one walks the block
   * before (see BlocksAhead, which keeps that order). Undefined where there is nothing to hand
   * over (no scan thread, a small block): scanBytes scans it as usual.
   */
  stageBytes(buf: Uint8Array, n: number): StagedBlock | undefined {
    return this.bytesIndex?.stage(buf, n);
  }

  /** `count` buffers of at least `bytes` bytes for a file scan's blocks (core/lineScan.ts, LineBlocks
   * `buffers`) in the scanner's memory, where a staged block's parts are scanned as they are, not
   * copied (NativeScanner.leaseBuffers); release() once no scan reads them. Undefined where there
   * is no such memory (then the reader's own buffers serve). */
  leaseBlockBuffers(count: number, bytes: number): { buffers: Uint8Array[]; release(): void } | undefined {
    return this.bytesIndex?.native?.leaseBuffers?.(count, bytes);
  }

  /**
   * A line too long for a block, matched to its end in constant memory (engine/longLine.ts): feed
   * it with segment(bytes), then end(); `done` receives its ranked matches (exact UTF-16 columns;
   * span and capture texts cut at VALUE_MAX bytes) and the line's first 64 KiB as its text.
   */
  longLine(done: (matches: LineMatch[], prefix: string) => void): LongLine {
    const host = this.blockHost();
    return new LongLine(
      {
        ...host,
        patternOf: (s) => this.patternOf(s),
        isSimple: (s) => this.simple[s] === 1,
        matcherOf: (s) => this.matcherOf(s),
      },
      done,
    );
  }

  /**
   * Let file scans (scanBytes) use a second thread: it scans each large block's later parts
   * while this thread scans the first and walks each part (the same results; see
   * engine/wasmScan.ts ScanHelper). `spawn` starts the thread (the CLI passes
   * node:worker_threads); a thread that does not answer within `timeoutMs` is given up (default
   * 20 s). False when the scanner cannot (no WebAssembly, no shared memory). Builds the byte index
   * if needed.
   */
  /** A scan thread started now, before the engine that will use it is loaded (its start-up then
   * overlaps the load): pass its `spawn` to useScanThread; dispose() stops it if none took it. */
  static earlyScanThread(spawn: SpawnThread): { spawn: SpawnThread; dispose(): void } {
    return earlyThread(spawn);
  }

  useScanThread(spawn: SpawnThread, timeoutMs?: number): boolean {
    return this.byteIndex().native?.startHelper(spawn, timeoutMs) ?? false;
  }

  /** Stop the thread of useScanThread (scans go on in this one). */
  stopScanThread(): void {
    this.bytesIndex?.native?.stopHelper();
  }

  /** What the file scans did since the last call: lines, key hits, candidate lines and patterns,
   * matched lines (for the benchmark). */
  scanStats(): ScanStats {
    return takeScanStats(this.blockHost());
  }

  /** scanBytes, with each line's ranked LineMatches and text (the line without its end). */
  matchBytes(buf: Uint8Array, n: number, onLine: (lineIndex: number, matches: LineMatch[], line: string) => void, staged?: StagedBlock): number {
    return this.scanBytes(buf, n, (i, hits) => onLine(i, hits.matches(), hits.text()), staged);
  }
}
