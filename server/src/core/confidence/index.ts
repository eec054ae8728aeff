// How sure we are that a record explains a line: a confidence in [0, 1] for every match.
//
// Matching is exact, but an exact match of a record whose whole text is "password" or
// "(.+?) failed" says little. The score adds up evidence in bits:
//  - specificity: the information in the record's literal text against a background model of
//    ordinary English and log text (words.generated.ts: a common word is worth a few bits, a rare
//    word, an identifier, a number or punctuation more);
//  - line context: an error marker on the line (ERROR, FATAL, `Error:`, `E ` ...), the record's
//    errorClass or errorCode as a token, the line being a traceback's exception line (given by
//    the caller, see blocks); a stack-frame line or a line of quoted code is context, never a match;
//  - coverage: how much of the line's message (the line without its timestamp / level prefix) the
//    match's literal text covers.
// and maps the total to [0, 1]. Pure: strings in, numbers out.
import { parseSimplePattern, patternInfo } from '../pattern';
import { WORDS_BY_RANK } from './words.generated';
import { hasToken } from '../engine/types';
import { baseView } from '../text';

export type ConfidenceLabel = 'likely' | 'possible' | 'unlikely';

export interface Confidence {
  /** 0 (surely not this record) .. 1 (surely this record). */
  score: number;
  label: ConfidenceLabel;
  /** Why, in a few words each, strongest first (shown in hovers and the CLI). */
  reasons: string[];
}

/** Matches below this confidence are not reported as problems (editor diagnostics, `scan`), only
 * listed as possible explanations (hovers, `explain`, search): see threshold.ts. */
export { DEFAULT_MIN_CONFIDENCE } from './threshold';

/** Where the line sits in an error block (see core/blocks), when the caller knows. */
export type LineRole = 'exception' | 'frame' | 'quoted' | 'plain';

export interface MatchContext {
  role?: LineRole;
  /** The block's frames name the record's raise site (file, and line when given), or name files
   * but none is the record's (`none`). */
  frameMatch?: 'file' | 'line' | 'none';
}

/** What the score reads of a record. */
export interface ScoredRecord {
  messagePattern: string;
  errorClass: string | null;
  errorCode: string | null;
  /** `class-only`: an exception raised without a message (its pattern is the class name). */
  tags?: readonly string[];
  /** patternBits(messagePattern), when the caller has it already (core/scanColumns). */
  specificity?: number;
}

/** What the score reads of a match (a LineMatch has these). */
export interface ScoredMatch {
  start: number;
  end: number;
  codeInLine: boolean;
}

export function labelOf(score: number): ConfidenceLabel {
  return score >= 0.7 ? 'likely' : score >= 0.4 ? 'possible' : 'unlikely';
}

// ---------------------------------------------------------------------------------------------
// Specificity

let rankOf: Map<string, number> | undefined;
function wordRank(w: string): number {
  if (!rankOf) {
    rankOf = new Map();
    const words = WORDS_BY_RANK.split(' ');
    for (let i = 0; i < words.length; i++) rankOf.set(words[i]!, i);
  }
  return rankOf.get(w) ?? -1;
}

/** Bits of a word of frequency rank r (0-based) in the background model: about log2 of its rank (Zipf). */
export function rankBits(r: number): number {
  return Math.log2(r + 2) + 1;
}

/** Bits of a word of `length` letters that is not among the model's words: rare, but a short
 * fragment is no identifier. */
export function unknownWordBits(length: number): number {
  return Math.min(17, 8 + 1.5 * length);
}

/** Bits of one word of letters. */
export function wordBits(word: string): number {
  const w = word.toLowerCase();
  const r = wordRank(w);
  return r >= 0 ? rankBits(r) : unknownWordBits(w.length);
}

const COMMON_PUNCT = new Set(['.', ',', ':', '-', '/', "'", '"', '(', ')']);

/** A token with inner structure: snake_case, dotted.name, camelCase, letters with digits. */
function isIdentifier(t: string): boolean {
  return /[_.]/.test(t) || /[a-z][A-Z]/.test(t) || (/\d/.test(t) && /[A-Za-z]/.test(t));
}

const TOKEN = /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*|\d+|\S/g;

/** Bits of information in a literal text (a record's message without its placeholders). */
export function textBits(text: string): number {
  let bits = 0;
  const seen = new Set<string>();
  TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = TOKEN.exec(text))) {
    const t = m[0];
    // a token repeated adds little
    const again = seen.has(t);
    seen.add(t);
    const b = tokenBits(t);
    bits += again ? b / 4 : b;
  }
  return bits;
}

/** Bits of one token, remembered: record sets repeat the same words (`the`, `failed`, `{`) in
 * thousands of messages, and a scan reads the specificity of every record it matches. */
const tokenCache = new Map<string, number>();

function tokenBits(t: string): number {
  let b = tokenCache.get(t);
  if (b !== undefined) return b;
  if (/^\d+$/.test(t)) b = Math.min(16, 3.3 * t.length);
  else if (t.length === 1 && !/[A-Za-z]/.test(t)) b = COMMON_PUNCT.has(t) ? 1.5 : 3.5;
  else if (isIdentifier(t)) b = Math.min(28, 14 + t.length);
  else b = wordBits(t);
  // (bounded: identifiers are many and rarely seen twice)
  if (tokenCache.size >= 1 << 18) tokenCache.clear();
  tokenCache.set(t, b);
  return b;
}

const specificityCache = new Map<string, number>();

/** patternBits of a pattern when it was worked out already in this process (a peek: nothing is
 * computed), else undefined. */
export function knownPatternBits(pattern: string): number | undefined {
  return specificityCache.get(pattern);
}

/** Bits of information in a pattern's literal text (cached per pattern). */
export function patternBits(pattern: string): number {
  let bits = specificityCache.get(pattern);
  if (bits !== undefined) return bits;
  const simple = parseSimplePattern(pattern);
  const literals = simple ? simple.literals : (patternInfo(pattern)?.requiredLiterals ?? []);
  // literals are separate runs of text: a word split by a hole is two fragments, which is right
  bits = 0;
  for (const l of literals) bits += textBits(l);
  // (one number per pattern: bounded far above any record set's size, so a 500k-record scan does
  // not clear it over and over — at 50,000 a 100k-record scan re-tokenized patterns on every hit)
  if (specificityCache.size >= 1 << 20) specificityCache.clear();
  specificityCache.set(pattern, bits);
  return bits;
}

// ---------------------------------------------------------------------------------------------
// Line context

/** Error markers: log levels, pytest's `E   `, glog's `E1201`, `Error:` / `SomethingError:`,
 * `Exception`, `panic:`. */
const STRONG_MARKER = /(?:^|[\s\[(|:"'])(?:ERROR|ERR|FATAL|CRITICAL|CRIT|SEVERE|PANIC|EMERG|ALERT)(?=$|[\s\]):|,"'])|\b(?:[A-Z][A-Za-z0-9]*)?(?:Error|Exception|Exit|Failure|Fault)\b:?|\bpanic:|\bpanicked at\b|\bTraceback\b|^\s*E(?:\s{1,4}|\d{4}\s)/;
const WEAK_MARKER = /(?:^|[\s\[(|:"'])(?:WARN|WARNING|error|fatal|failed|failure)(?=$|[\s\]):|,"'])/;

export function errorMarker(line: string): 'strong' | 'weak' | undefined {
  if (STRONG_MARKER.test(line)) return 'strong';
  if (WEAK_MARKER.test(line)) return 'weak';
  return undefined;
}

/** A name that reads as an exception class (`ValueError`, `NoSectionError`, `Empty`), not a
 * helper such as `self.error`. */
function classLike(name: string): boolean {
  return /^[A-Z][A-Za-z0-9_]{2,}$/.test(name);
}

/** The record's error class on the line: its full name or its last dotted part, when that reads
 * as a class name. */
export function classInLine(line: string, errorClass: string | null): boolean {
  if (!errorClass) return false;
  // (the answer of the last question is kept: a line's hits are scored one after another, and
  // many of their records share a class; 2 million hits on a realistic 100k log asked it anew each)
  if (line === lastClassLine && errorClass === lastClass) return lastClassIn;
  const dot = errorClass.lastIndexOf('.');
  const last = errorClass.slice(dot + 1);
  const found = classLike(last) && (hasToken(line, errorClass) || (dot >= 0 && hasToken(line, last)));
  lastClassLine = line;
  lastClass = errorClass;
  lastClassIn = found;
  return found;
}
let lastClassLine = '';
let lastClass = '';
let lastClassIn = false;

/** An exception without a message (a class-only record): the line must read as its exception line,
 * the class at the end of the line or before a ':' (`_queue.Empty`, `… ERROR worker: queue.Empty`,
 * `E   queue.Empty: …`); else the class name is just a word of the line. */
function classOnlyInContext(line: string, match: ScoredMatch): boolean {
  const after = line.charCodeAt(match.end);
  return match.end >= line.trimEnd().length || after === 0x3a /* : */;
}

/** Where the message starts: after a leading timestamp (syslog's `Dec  1 09:00:44 host` too),
 * level, logger name or process tag. */
export function messageStart(line: string): number {
  const m = /^\s*(?:(?:\[[^\]]{0,80}\]|\d[\d\-:T.,/+Z ]{5,40}\d|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)? \S+|[A-Z]{3,9}\b:?|\w[\w.\-]{0,40}\[\d+\]:|[\w.\-]{1,40}:\d+:|-|\|)\s*)*/.exec(line);
  return m ? m[0].length : 0;
}

/** Source code as tracebacks and test reports quote it, whatever the block around it (a reader
 * may see a line without its block: the CLI's windows): a `raise` / `throw` statement, an
 * `except …:` clause, an indented assignment of a string literal (`msg = "…"`), an indented
 * line that is only a string literal continuing a call (`    "… files")`). pytest marks the
 * failing line with `>`. The message a program logs reads otherwise. */
export const CODE_STATEMENT = /^>?\s*(?:raise\s+[A-Za-z_][\w.]*(?:\(|\s*$|\s+from\s)|throw\s+(?:new\s+)?[A-Za-z_$][\w.$]*\(|except(?:\s+[\w.(), ]+?)?(?:\s+as\s+\w+)?:\s*$)/;
export const CODE_INDENTED = /^(?:>|\s{4})\s*(?:[A-Za-z_][\w.]*\s+=\s+[rbfuRBFU]{0,2}["']|[rbfuRBFU]{0,2}(["']).*\1\s*\)+[,;:]?\s*$)/;

/** What a statement starts with, at a position (sticky): CODE_STATEMENT's keyword, after its `>`
 * and blanks. */
const KEYWORD_AT = />?\s*(?:raise|throw|except)/y;
/** A line starting with what CODE_INDENTED needs (`>` or a blank). */
const INDENT_OR_QUOTE = /^[>\s]/;

/** from: messageStart(line), when the caller has it. */
export function looksLikeCode(line: string, from?: number): boolean {
  if (line.length > 4096) return false;
  // (cheap first: without an escape sequence (which may hide any of it) and without a `>` or a
  // blank at its start, a line is code only with a statement's keyword at its start or after
  // its log prefix: two anchored looks instead of searching the line for each keyword)
  if (line.indexOf('\x1b') < 0 && !INDENT_OR_QUOTE.test(line)) {
    KEYWORD_AT.lastIndex = 0;
    if (!KEYWORD_AT.test(line)) {
      const at = from ?? messageStart(line);
      if (at === 0) return false;
      KEYWORD_AT.lastIndex = at;
      if (!KEYWORD_AT.test(line)) return false;
    }
  }
  const text = baseView(line).text;
  if (CODE_STATEMENT.test(text) || CODE_INDENTED.test(text)) return true;
  // (a statement after a log prefix too: `Dec  1 … worker[42]:     raise X(…)`)
  const at = from ?? messageStart(line);
  return at > 0 && CODE_STATEMENT.test(text.slice(Math.min(at, text.length)));
}

// ---------------------------------------------------------------------------------------------
// The score

/** Evidence (bits) at which the score is 0, and bits per halving of the doubt above it. */
const ZERO_AT = 18;
const HALF_LIFE = 9;
/** Bits lost by a record whose file is in none of its trace's frames. */
const NOT_IN_FRAMES = 18;
/** Bits each piece of evidence adds (read by the score and by its ceiling, plainScoreCeiling). */
const CODE_BITS = 24;
const CLASS_BITS = 16;
const EXCEPTION_LINE_BITS = 14;
const STRONG_MARKER_BITS = 8;
const WEAK_MARKER_BITS = 4;
const FRAME_LINE_BITS = 16;
const FRAME_FILE_BITS = 10;
/** Coverage adds 8 * share - 4: at most this many bits (the whole message covered). */
const COVERAGE_MAX_BITS = 4;

/** What the score reads of a line whatever the record: computed once per line. */
export interface LineFacts {
  marker: 'strong' | 'weak' | undefined;
  /** The line reads as source code (a traceback's quoted `raise X(...)`), not as a message. */
  code: boolean;
  /** Where the message starts (after timestamp, level, logger...). */
  from: number;
  /** Length of the message (trimmed). */
  rest: number;
}

/** from: messageStart(line) when the caller has it (-1 or absent: worked out here). */
export function lineFacts(line: string, from = -1): LineFacts {
  if (line.indexOf('\x1b') >= 0) {
    // a coloured line: its log prefix, error marker and message are read from its text without the
    // escapes (`\x1b[31mERROR\x1b[0m` is a marker); `from` maps back to the line, as match spans are
    const view = baseView(line);
    const text = view.text;
    const at = messageStart(text);
    return { marker: errorMarker(text), code: looksLikeCode(line, at), from: view.toOriginal(at), rest: text.slice(at).trim().length };
  }
  if (from < 0) from = messageStart(line);
  return { marker: errorMarker(line), code: looksLikeCode(line, from), from, rest: line.slice(from).trim().length };
}

type Reason = { bits: number; text: string };

/** The evidence (bits) that `record` explains `line`; reasons appended to `reasons` when given. */
export function confidenceBits(record: ScoredRecord, match: ScoredMatch, line: string, ctx: MatchContext, facts: LineFacts, reasons?: Reason[]): number {
  if (record.tags?.includes('class-only') && ctx.role !== 'exception' && !classOnlyInContext(line, match)) {
    reasons?.push({ bits: -30, text: 'an exception class named on a line that is not its exception line' });
    return 0;
  }
  const spec = record.specificity ?? patternBits(record.messagePattern);
  // (ordered by how far it is from an ordinary message's 20 bits)
  reasons?.push({ bits: spec - 20, text: spec >= 30 ? 'specific message text' : spec >= 20 ? 'fairly generic message text' : 'generic message text (common words only)' });
  let bits = spec;
  if (match.codeInLine && record.errorCode) {
    bits += CODE_BITS;
    reasons?.push({ bits: CODE_BITS, text: `error code ${record.errorCode} on the line` });
  }
  // (a class-only record's text is its class: no second bonus for it)
  if (record.errorClass && !record.tags?.includes('class-only') && classInLine(line, record.errorClass)) {
    bits += CLASS_BITS;
    reasons?.push({ bits: CLASS_BITS, text: `${record.errorClass} on the line` });
  }
  if (ctx.role === 'exception') {
    bits += EXCEPTION_LINE_BITS;
    reasons?.push({ bits: EXCEPTION_LINE_BITS, text: 'the exception line of a stack trace' });
  } else if (facts.marker) {
    const b = facts.marker === 'strong' ? STRONG_MARKER_BITS : WEAK_MARKER_BITS;
    bits += b;
    reasons?.push({ bits: b, text: facts.marker === 'strong' ? 'an error marker on the line' : 'a warning or failure word on the line' });
  }
  if (ctx.frameMatch === 'none') {
    // the trace says where it was raised, and it was not in this record's file: another file
    // raises the same text (a copy, a C module, a different call) — unless the frames print a
    // build of the record's source (compiled JS of a TS file), which a specific message survives
    bits -= NOT_IN_FRAMES;
    reasons?.push({ bits: -NOT_IN_FRAMES, text: 'its file is in none of the stack trace frames' });
  } else if (ctx.frameMatch) {
    const b = ctx.frameMatch === 'line' ? FRAME_LINE_BITS : FRAME_FILE_BITS;
    bits += b;
    reasons?.push({ bits: b, text: ctx.frameMatch === 'line' ? 'raised at a frame of the stack trace' : 'its file is in the stack trace' });
  }
  // coverage of the line's message by the match span
  if (facts.rest > 0) {
    const covered = Math.max(0, Math.min(match.end, line.length) - Math.max(match.start, facts.from));
    const share = Math.min(1, covered / facts.rest);
    const b = 2 * COVERAGE_MAX_BITS * share - COVERAGE_MAX_BITS;
    bits += b;
    if (share >= 0.8) reasons?.push({ bits: b, text: 'covers the whole message' });
    else if (share < 0.3) reasons?.push({ bits: b, text: 'covers a small part of the line' });
  }
  return bits;
}

/** The score of an amount of evidence, rounded to 3 decimals. */
export function scoreOfBits(bits: number): number {
  const score = bits <= ZERO_AT ? 0 : 1 - Math.pow(2, -(bits - ZERO_AT) / HALF_LIFE);
  return Math.round(score * 1000) / 1000;
}

/**
 * Does evidence `bits` score at least `min`? The same answer as `scoreOfBits(bits) >= min`, read
 * from `threshold` (scoreThreshold(min)) where the bits are clearly on one side of it: the score
 * grows with the bits, and a rounded score reaches min exactly from the bits where the unrounded
 * one reaches min's 3-decimal step minus half a step. Within 1e-6 bits of it, the score decides.
 */
export function scoresAtLeast(bits: number, min: number, threshold: number): boolean {
  if (bits > threshold + 1e-6) return true;
  if (bits < threshold - 1e-6) return false;
  return scoreOfBits(bits) >= min;
}

/** The bits from which scoreOfBits reaches min (scoresAtLeast). */
export function scoreThreshold(min: number): number {
  const step = Math.ceil(min * 1000 - 1e-9);
  if (step <= 0) return -Infinity;
  if (step > 1000) return Infinity;
  return ZERO_AT - HALF_LIFE * Math.log2(1 - (step - 0.5) / 1000);
}

/** The score of a frame or quoted-code line: context, never a match of its own. */
const CONTEXT_SCORE = 0.05;

/** Only the score (no reasons): for filtering many matches. */
export function confidenceScore(record: ScoredRecord, match: ScoredMatch, line: string, ctx: MatchContext = {}, facts: LineFacts = lineFacts(line)): number {
  if (ctx.role === 'frame' || ctx.role === 'quoted' || (facts.code && ctx.role !== 'exception')) return CONTEXT_SCORE;
  return scoreOfBits(confidenceBits(record, match, line, ctx, facts));
}

/** The highest score `record` can get on a line outside any error block (no role, no frames),
 * read without the line: its specificity plus every bonus a line could add (an error code only
 * when it is on the line: `codeInLine`; its class only when that is: `classOnLine`, classInLine).
 * confidenceScore(record, m, line) never exceeds it, so a match whose ceiling is below a threshold
 * needs neither the line's facts nor its score. */
export function plainScoreCeiling(record: ScoredRecord, codeInLine: boolean, classOnLine = true): number {
  return Math.max(CONTEXT_SCORE, scoreOfBits(ceilingBits(record, codeInLine, classOnLine)));
}

/** The evidence behind plainScoreCeiling. */
function ceilingBits(record: ScoredRecord, codeInLine: boolean, classOnLine: boolean): number {
  let bits = (record.specificity ?? patternBits(record.messagePattern)) + STRONG_MARKER_BITS + COVERAGE_MAX_BITS;
  if (codeInLine && record.errorCode) bits += CODE_BITS;
  if (classOnLine && record.errorClass && !record.tags?.includes('class-only')) bits += CLASS_BITS;
  return bits;
}

/** plainScoreCeiling(record, codeInLine, classOnLine) >= min, read from the bits where they are
 * clearly on one side of `threshold` (scoreThreshold(min)): no power is taken (scoresAtLeast). */
function ceilingReaches(record: ScoredRecord, codeInLine: boolean, classOnLine: boolean, min: number, threshold: number): boolean {
  return CONTEXT_SCORE >= min || scoresAtLeast(ceilingBits(record, codeInLine, classOnLine), min, threshold);
}

/** The matches of one line (a LineHits: the scan's live hits). */
export interface HitList {
  readonly count: number;
  entry(i: number): number;
  start(i: number): number;
  end(i: number): number;
}

/** What a record's ceiling allows at a threshold (PlainScorer, per record once): bit
 * (code ? 1 : 0) | (class ? 2 : 0) is set when a line with (or without) the record's error code and
 * its class on it can reach the threshold; ASKED marks the record as worked out. */
const ASKED = 16;
const ANY_LINE = 1 << 0;
const allowsBit = (code: boolean, cls: boolean) => 1 << ((code ? 1 : 0) | (cls ? 2 : 0));

/**
 * Scores the hits of plain lines (lines outside any error block) against one threshold: score()
 * returns how many reach `minConfidence`, and then scoreOf(k) is hit k's score and `facts` the
 * line's facts (read from the line only where a hit's bounds do not decide, or when asked: a
 * reporter reuses them). A hit whose ceiling is below the threshold scores 0 and costs one array
 * read (most hits of generic records), or a look for the record's code or class on the line where
 * only one of them lifts the ceiling: what the ceiling allows is worked out once per record.
 */
export class PlainScorer {
  private scores = new Float64Array(64);
  /** Hits whose score is worked out when asked (scoreOf): their start, end and code on the line. */
  private starts = new Int32Array(64);
  private ends = new Int32Array(64);
  private codes = new Uint8Array(64);
  private entries = new Int32Array(64);
  private line = '';
  private lineFacts: LineFacts | undefined;
  private readonly allows: Uint8Array;
  /** Each record as scored, with its specificity (worked out once: not looked up per hit). */
  private readonly recs: (ScoredRecord | undefined)[];
  constructor(
    private readonly recordOf: (entry: number) => ScoredRecord,
    records: number,
    private readonly minConfidence: number,
  ) {
    this.allows = new Uint8Array(records);
    this.recs = new Array<ScoredRecord | undefined>(records);
    this.threshold = scoreThreshold(minConfidence);
  }
  /** scoreThreshold(minConfidence). */
  private readonly threshold: number;

  /** The facts of the line score() saw last (worked out on first read: a reporter reuses them). */
  get facts(): LineFacts {
    return (this.lineFacts ??= lineFacts(this.line, this.lineFrom));
  }
  /** messageStart of the line, once the code test has it (-1: not yet). */
  private lineFrom = -1;

  private allowed(entry: number): number {
    let a = this.allows[entry]!;
    if (a === 0) {
      const r = this.recordOf(entry);
      const record: ScoredRecord =
        r.specificity !== undefined
          ? r
          : {
              messagePattern: r.messagePattern,
              errorClass: r.errorClass,
              errorCode: r.errorCode,
              specificity: patternBits(r.messagePattern),
              ...(r.tags ? { tags: r.tags } : {}),
            };
      this.recs[entry] = record;
      a = ASKED;
      // (the ceiling only grows with the code and the class on the line: a record that cannot reach
      // the threshold with both costs one ceiling, one that reaches it with neither two)
      const min = this.minConfidence;
      const t = this.threshold;
      if (ceilingReaches(record, true, true, min, t)) {
        a |= allowsBit(true, true);
        if (ceilingReaches(record, false, false, min, t)) a |= allowsBit(false, false) | allowsBit(true, false) | allowsBit(false, true);
        else {
          if (ceilingReaches(record, true, false, min, t)) a |= allowsBit(true, false);
          if (ceilingReaches(record, false, true, min, t)) a |= allowsBit(false, true);
        }
      }
      this.allows[entry] = a;
    }
    return a;
  }

  private grow(n: number): void {
    if (this.scores.length >= n) return;
    this.scores = new Float64Array(n * 2);
    this.starts = new Int32Array(n * 2);
    this.ends = new Int32Array(n * 2);
    this.codes = new Uint8Array(n * 2);
    this.entries = new Int32Array(n * 2);
  }

  score(hits: HitList, line: string): number {
    this.grow(hits.count);
    this.line = line;
    this.lineFacts = undefined;
    this.lineFrom = -1;
    const scores = this.scores;
    // what a line's facts can add to a record's evidence on a plain line: a marker (0 .. STRONG)
    // and the match's coverage of the message (-COVERAGE_MAX .. COVERAGE_MAX); with the record's
    // own evidence (neutral facts) these bound the score without reading the line's level, prefix
    // or markers. A code line scores CONTEXT_SCORE: below any threshold above it.
    const bounded = this.minConfidence > CONTEXT_SCORE;
    let code: boolean | undefined;
    let confident = 0;
    for (let k = 0; k < hits.count; k++) {
      const entry = hits.entry(k);
      const a = this.allowed(entry);
      scores[k] = 0;
      if (a === ASKED) continue;
      const record = this.recs[entry]!;
      const codeInLine = record.errorCode ? hasToken(line, record.errorCode) : false;
      // (the class looked for only where the ceiling needs it)
      if (!(a & ANY_LINE) && !(a & allowsBit(codeInLine, false)) && !(a & allowsBit(codeInLine, true) && classInLine(line, record.errorClass))) continue;
      const match = { start: hits.start(k), end: hits.end(k), codeInLine };
      if (bounded && this.lineFacts === undefined) {
        const own = confidenceBits(record, match, line, {}, NEUTRAL_FACTS);
        if (!scoresAtLeast(own + STRONG_MARKER_BITS + COVERAGE_MAX_BITS, this.minConfidence, this.threshold)) continue;
        if ((code ??= line.indexOf('\x1b') >= 0 ? this.facts.code : looksLikeCode(line, (this.lineFrom = messageStart(line))))) continue;
        if (scoresAtLeast(own - COVERAGE_MAX_BITS, this.minConfidence, this.threshold)) {
          // confident whatever the line's facts: its exact score when asked
          scores[k] = NaN;
          this.starts[k] = match.start;
          this.ends[k] = match.end;
          this.codes[k] = codeInLine ? 1 : 0;
          this.entries[k] = entry;
          confident++;
          continue;
        }
      }
      const score = confidenceScore(record, match, line, {}, this.facts);
      scores[k] = score;
      if (score >= this.minConfidence) confident++;
    }
    return confident;
  }

  /** Does hit k of the line score() saw last reach minConfidence? The same answer as
   * `scoreOf(k) >= minConfidence`, without working out the exact score of a hit that reaches it
   * whatever the line's facts (a scan that only counts never needs it). */
  confident(k: number): boolean {
    const s = this.scores[k]!;
    return Number.isNaN(s) || s >= this.minConfidence;
  }

  /** Hit k's score on the line score() saw last (0: below the threshold by its ceiling or bound). */
  scoreOf(k: number): number {
    let s = this.scores[k]!;
    if (Number.isNaN(s)) {
      s = confidenceScore(this.recs[this.entries[k]!]!, { start: this.starts[k]!, end: this.ends[k]!, codeInLine: this.codes[k] === 1 }, this.line, {}, this.facts);
      this.scores[k] = s;
    }
    return s;
  }
}

/** Facts that add nothing: a record's own evidence on a line (PlainScorer's bounds). */
const NEUTRAL_FACTS: LineFacts = Object.freeze({ marker: undefined, code: false, from: 0, rest: 0 });

/** Confidence that `record` explains `line`, where `match` is its match on that line. */
export function matchConfidence(record: ScoredRecord, match: ScoredMatch, line: string, ctx: MatchContext = {}, facts: LineFacts = lineFacts(line)): Confidence {
  if (ctx.role === 'frame' || ctx.role === 'quoted' || (facts.code && ctx.role !== 'exception')) {
    return { score: CONTEXT_SCORE, label: 'unlikely', reasons: [ctx.role === 'frame' ? 'a stack frame line (context, not an error)' : 'source code quoted by a traceback (context, not an error)'] };
  }
  const reasons: Reason[] = [];
  const score = scoreOfBits(confidenceBits(record, match, line, ctx, facts, reasons));
  reasons.sort((a, b) => Math.abs(b.bits) - Math.abs(a.bits));
  return { score, label: labelOf(score), reasons: reasons.map((r) => r.text) };
}
