// Hand-written messagePatterns (anything that is not literals and (.+?) holes) on a linear-time
// regex engine.
//
// A messagePattern is a JavaScript regex source (no flags). JavaScript's engine backtracks: a
// pattern such as `ERRXYZ(a|a)*b` takes exponential time on `ERRXYZaaaa…c`, and spotting such
// shapes is a losing game. So these patterns never run on RegExp. They are parsed here with
// JavaScript's syntax (Annex B included), translated to an equivalent RE2 program and run by
// re2js, a pure-JS port of RE2 (Go's regexp): no backtracking, time O(program size × text
// length), memory O(program size). What RE2 cannot express is rejected with a reason that says
// where: backreferences and lookaround. The constant of that linear time is bounded too: at most
// MAX_PROGRAM_SIZE instructions and MAX_LOOP_COST (repetitions x capture groups), which keeps the
// worst accepted pattern near 50 µs per character of line (a realistic one: well under 1 µs).
//
// The translation keeps JavaScript's meaning of every construct:
//   `.`  any UTF-16 unit but \n \r \u2028 \u2029 (RE2's `.` only excludes \n)
//   `\s` JavaScript's white space set (RE2's \s is [\t\n\f\r ]: no \v, no Unicode spaces)
//   `\d` `\w` `\b` ASCII, as in both; `^` `$` start and end of the text (no m flag in either)
//   classes, escapes (\cX, \xHH, \uHHHH, \0, legacy octal in classes, identity escapes), literal
//   `{` `}` `]`, named groups (numbered as in JavaScript), lazy quantifiers.
// Every class becomes explicit code-unit ranges. Differences that remain: RE2 steps over a
// surrogate pair as one character (so a counted repetition such as `[^ ]{3}` counts an emoji once,
// where JavaScript counts it twice, and a capture never ends or starts between the pair's halves:
// `(.+?)(.+?)\d` on "😀r1" captures "😀" and "r" here, "\ud83d" and "\ude00r" in JavaScript), and a
// capture group inside a quantified group keeps its value
// from an earlier iteration, or from an iteration that matched nothing, where JavaScript resets or
// drops it (`(?:(a)|b)+` on "ab": group 1 is "a" here, undefined in JavaScript; `(^)?`: "" here,
// undefined there). Neither changes whether or where a pattern matches, except counted repeats
// over non-BMP text.

import { RE2JS } from 're2js';

export interface Quant {
  min: number;
  max: number; // Infinity when unbounded
  lazy: boolean;
}
export type Node =
  | { t: 'char'; c: string; at: number; q?: Quant } // one UTF-16 code unit
  | { t: 'set'; ranges: number[]; wide?: boolean; at: number; q?: Quant } // sorted disjoint [lo, hi] code-unit pairs (wide: `.`)
  | { t: 'assert'; kind: '^' | '$' | 'b' | 'B'; at: number }
  | { t: 'backref'; at: number; src: string; q?: Quant }
  | { t: 'group'; capturing: boolean; name?: string; look?: string; alts: Node[][]; at: number; q?: Quant };

export interface Parsed {
  alts: Node[][];
  groups: number;
  groupNames: (string | undefined)[];
}

export class RegexSyntax extends Error {}

// ---------------------------------------------------------------------------------------------
// Code-unit sets

const MAX_UNIT = 0xffff;

/** Sorted, merged copy of [lo, hi] pairs. */
function normalize(r: number[]): number[] {
  const pairs: [number, number][] = [];
  for (let i = 0; i < r.length; i += 2) pairs.push([r[i]!, r[i + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [lo, hi] of pairs) {
    const n = out.length;
    if (n && lo <= out[n - 1]! + 1) out[n - 1] = Math.max(out[n - 1]!, hi);
    else out.push(lo, hi);
  }
  return out;
}

/** Complement within [0, 0xFFFF] of normalized ranges. */
function complement(r: number[]): number[] {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < r.length; i += 2) {
    if (r[i]! > next) out.push(next, r[i]! - 1);
    next = r[i + 1]! + 1;
  }
  if (next <= MAX_UNIT) out.push(next, MAX_UNIT);
  return out;
}

const DIGIT = [0x30, 0x39];
const WORD = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];
/** JavaScript's \s: WhiteSpace and LineTerminator (a unit test checks it against /\s/ for every unit). */
const SPACE = [0x09, 0x0d, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff];
const DOT = complement([0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029]);
const CLASS_ESCAPES: Record<string, number[]> = { d: DIGIT, D: complement(DIGIT), w: WORD, W: complement(WORD), s: SPACE, S: complement(SPACE) };

/** Exported for the tests: the ranges of \s, \d, \w and `.`. */
export const SETS = { DIGIT, WORD, SPACE, DOT };

// ---------------------------------------------------------------------------------------------
// Parser: JavaScript regex syntax without flags (Annex B), with positions for error messages

const SINGLE_ESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f', v: '\v' };
const HEX2 = /^[0-9a-fA-F]{2}/;
const HEX4 = /^[0-9a-fA-F]{4}/;

export function parseRegex(src: string): Parsed {
  return new RegexParser(src).parse();
}

type Atom = { c: string } | { set: number[] };

/** One pass over a pattern: `i` is the offset read next; each method advances it past what it reads. */
class RegexParser {
  private i = 0;
  private groups = 0;
  private readonly groupNames: (string | undefined)[] = [];

  constructor(private readonly src: string) {}

  parse(): Parsed {
    const alts = this.alternatives(0);
    if (this.i < this.src.length) throw new RegexSyntax('unmatched )');
    return { alts, groups: this.groups, groupNames: this.groupNames };
  }

  /** The alternatives up to the `)` closing this depth (not consumed) or the end. */
  private alternatives(depth: number): Node[][] {
    const src = this.src;
    const alts: Node[][] = [[]];
    while (this.i < src.length) {
      const c = src[this.i]!;
      const at = this.i;
      let node: Node;
      if (c === '|') {
        alts.push([]);
        this.i++;
        continue;
      }
      if (c === ')') {
        if (depth === 0) throw new RegexSyntax('unmatched )');
        return alts;
      }
      if (c === '(') {
        this.i++;
        node = this.group(at, depth);
      } else if (c === '\\') {
        const n = this.backslash(at);
        if (n.t === 'assert') {
          alts[alts.length - 1]!.push(n);
          continue;
        }
        node = n;
      } else if (c === '[') {
        this.i++;
        node = this.charClass(at);
      } else if (c === '.') {
        this.i++;
        node = { t: 'set', ranges: DOT, wide: true, at };
      } else if (c === '^' || c === '$') {
        this.i++;
        alts[alts.length - 1]!.push({ t: 'assert', kind: c, at });
        continue;
      } else if (c === '*' || c === '+' || c === '?') throw new RegexSyntax('nothing to repeat');
      else {
        this.i++;
        node = { t: 'char', c, at };
      }
      const q = this.quantifier();
      if (q) (node as { q?: Quant }).q = q;
      alts[alts.length - 1]!.push(node);
    }
    return alts;
  }

  /** A group; src[i - 1] === '(' and `at` is its offset. */
  private group(at: number, depth: number): Node {
    const src = this.src;
    let capturing = true;
    let look: string | undefined;
    let name: string | undefined;
    if (src[this.i] === '?') {
      const rest = src.slice(this.i, this.i + 3);
      if (rest.startsWith('?:')) {
        capturing = false;
        this.i += 2;
      } else if (rest.startsWith('?=') || rest.startsWith('?!')) {
        capturing = false;
        look = rest.slice(0, 2);
        this.i += 2;
      } else if (rest === '?<=' || rest === '?<!') {
        capturing = false;
        look = rest;
        this.i += 3;
      } else if (rest.startsWith('?<')) {
        const end = src.indexOf('>', this.i);
        if (end < 0) throw new RegexSyntax('unterminated group name');
        name = src.slice(this.i + 2, end);
        this.i = end + 1;
      } else throw new RegexSyntax('invalid group');
    }
    if (capturing) {
      this.groups++;
      this.groupNames.push(name);
    }
    const inner = this.alternatives(depth + 1);
    if (src[this.i] !== ')') throw new RegexSyntax('unterminated group');
    this.i++;
    return { t: 'group', capturing, alts: inner, at, ...(name !== undefined ? { name } : {}), ...(look !== undefined ? { look } : {}) };
  }

  /** A backslash outside a class (at src[i]): a backreference, \b / \B, or an escaped character or set. */
  private backslash(at: number): Node {
    const src = this.src;
    if (this.i + 1 >= src.length) throw new RegexSyntax('\\ at end of pattern');
    const e = src[this.i + 1]!;
    if (/[1-9]/.test(e)) {
      this.i += 2;
      while (/[0-9]/.test(src[this.i] ?? '')) this.i++;
      return { t: 'backref', at, src: src.slice(at, this.i) };
    }
    if (e === 'k' && src[this.i + 2] === '<') {
      const end = src.indexOf('>', this.i);
      this.i = end < 0 ? src.length : end + 1;
      return { t: 'backref', at, src: src.slice(at, this.i) };
    }
    if (e === 'b' || e === 'B') {
      this.i += 2;
      return { t: 'assert', kind: e, at };
    }
    this.i++;
    const a = this.escapeAtom(false);
    return 'c' in a ? { t: 'char', c: a.c, at } : { t: 'set', ranges: a.set, at };
  }

  /** A quantifier at src[i] (*, +, ?, {n}, {n,}, {n,m}, each optionally lazy), or undefined. */
  private quantifier(): Quant | undefined {
    const src = this.src;
    const c = src[this.i];
    let min: number;
    let max: number;
    if (c === '*') ((min = 0), (max = Infinity));
    else if (c === '+') ((min = 1), (max = Infinity));
    else if (c === '?') ((min = 0), (max = 1));
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(this.i, this.i + 40));
      if (!m) return undefined; // a literal { (Annex B)
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      if (max < min) throw new RegexSyntax('numbers out of order in {} quantifier');
      this.i += m[0].length - 1;
    } else return undefined;
    this.i++;
    let lazy = false;
    if (src[this.i] === '?') {
      lazy = true;
      this.i++;
    }
    return { min, max, lazy };
  }

  /** An escape that stands for one character or a set, shared by classes and the top level.
   * src[i] is the character after the backslash; advances i past the escape. */
  private escapeAtom(inClass: boolean): Atom {
    const src = this.src;
    const c = src[this.i]!;
    this.i++;
    const set = CLASS_ESCAPES[c];
    if (set) return { set };
    const single = SINGLE_ESCAPES[c];
    if (single !== undefined) return { c: single };
    if (c === 'c') {
      const x = src[this.i] ?? '';
      if (/[A-Za-z]/.test(x) || (inClass && /[0-9_]/.test(x))) {
        this.i++;
        return { c: String.fromCharCode(x.charCodeAt(0) % 32) };
      }
      this.i--; // Annex B: `\c` not followed by a control letter is a backslash, then `c`
      return { c: '\\' };
    }
    if (c === 'x' && HEX2.test(src.slice(this.i, this.i + 2))) {
      this.i += 2;
      return { c: String.fromCharCode(parseInt(src.slice(this.i - 2, this.i), 16)) };
    }
    if (c === 'u' && HEX4.test(src.slice(this.i, this.i + 4))) {
      this.i += 4;
      return { c: String.fromCharCode(parseInt(src.slice(this.i - 4, this.i), 16)) };
    }
    if (/[0-7]/.test(c) && (inClass || c === '0')) {
      // \0 (NUL), and in classes legacy octal \1 .. \377
      let v = c.charCodeAt(0) - 48;
      for (let k = 0; k < 2 && /[0-7]/.test(src[this.i] ?? '') && v * 8 + (src.charCodeAt(this.i) - 48) <= 0o377; k++) v = v * 8 + (src.charCodeAt(this.i++) - 48);
      return { c: String.fromCharCode(v) };
    }
    if (inClass && c === 'b') return { c: '\b' };
    return { c }; // identity escape
  }

  /** One member of a class: a character or an escape. */
  private classAtom(): Atom {
    const c = this.src[this.i]!;
    this.i++;
    if (c !== '\\') return { c };
    if (this.i >= this.src.length) throw new RegexSyntax('\\ at end of pattern');
    return this.escapeAtom(true);
  }

  /** A character class; src[i - 1] === '[' and `at` is its offset. */
  private charClass(at: number): Node {
    const src = this.src;
    let negate = false;
    if (src[this.i] === '^') {
      negate = true;
      this.i++;
    }
    const ranges: number[] = [];
    while (this.i < src.length && src[this.i] !== ']') {
      const a = this.classAtom();
      if (src[this.i] === '-' && this.i + 1 < src.length && src[this.i + 1] !== ']') {
        this.i++;
        const b = this.classAtom();
        if ('c' in a && 'c' in b) {
          const lo = a.c.charCodeAt(0);
          const hi = b.c.charCodeAt(0);
          if (lo > hi) throw new RegexSyntax('range out of order in character class');
          ranges.push(lo, hi);
          continue;
        }
        // Annex B: a class escape at either end makes the '-' literal
        for (const x of [a, b]) if ('c' in x) ranges.push(x.c.charCodeAt(0), x.c.charCodeAt(0));
        else ranges.push(...x.set);
        ranges.push(0x2d, 0x2d);
        continue;
      }
      if ('c' in a) ranges.push(a.c.charCodeAt(0), a.c.charCodeAt(0));
      else ranges.push(...a.set);
    }
    if (this.i >= src.length) throw new RegexSyntax('unterminated character class');
    this.i++;
    const set = normalize(ranges);
    return { t: 'set', ranges: negate ? complement(set) : set, at };
  }
}

// ---------------------------------------------------------------------------------------------
// Translation to RE2 syntax

/** A construct the linear-time engine cannot run; `at` is its 0-based offset in the pattern. */
export class Unsupported extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
const hex = (c: number) => `\\x{${c.toString(16)}}`;
const PLAIN = /[A-Za-z0-9 _\-:;,'"=<>/!@#%&~`]/;

function emitUnit(c: number): string {
  const ch = String.fromCharCode(c);
  return c < 128 && PLAIN.test(ch) ? ch : hex(c);
}

/** Does the normalized range list contain every unit of [lo, hi]? */
function covers(r: number[], lo: number, hi: number): boolean {
  for (let i = 0; i < r.length; i += 2) if (r[i]! <= lo && r[i + 1]! >= hi) return true;
  return false;
}
function intersects(r: number[], lo: number, hi: number): boolean {
  for (let i = 0; i < r.length; i += 2) if (r[i]! <= hi && r[i + 1]! >= lo) return true;
  return false;
}

function emitSet(r: number[], at: number): string {
  // JavaScript matches a non-BMP character as two units; a set holding every surrogate matches
  // it (both halves), so in RE2, which sees one character, it must hold U+10000..U+10FFFF too.
  // Lone surrogates stay themselves (re2js reads them as their own value).
  let astral = false;
  if (intersects(r, 0xd800, 0xdfff)) {
    if (!covers(r, 0xd800, 0xdfff))
      throw new Unsupported('has a character class with only some halves of surrogate pairs (a character outside the Basic Multilingual Plane, such as an emoji, inside [...]); write such characters as an alternative, e.g. (?:😀|x)', at);
    astral = true;
  }
  if (r.length === 0) return '[^\\x{0}-\\x{10ffff}]';
  let s = '[';
  for (let i = 0; i < r.length; i += 2) s += r[i] === r[i + 1] ? hex(r[i]!) : `${hex(r[i]!)}-${hex(r[i + 1]!)}`;
  if (astral) s += '\\x{10000}-\\x{10ffff}';
  return s + ']';
}

function emitQuant(q: Quant | undefined): string {
  if (!q) return '';
  let s: string;
  if (q.min === 0 && q.max === Infinity) s = '*';
  else if (q.min === 1 && q.max === Infinity) s = '+';
  else if (q.min === 0 && q.max === 1) s = '?';
  else if (q.max === Infinity) s = `{${q.min},}`;
  else if (q.min === q.max) s = `{${q.min}}`;
  else s = `{${q.min},${q.max}}`;
  return q.lazy ? s + '?' : s;
}

/** Can the node match the empty string? */
function nullable(n: Node): boolean {
  if (n.t === 'assert') return true;
  if ('q' in n && n.q && n.q.min === 0) return true;
  if (n.t === 'group') return n.alts.some((alt) => alt.every(nullable));
  return false;
}

function emitAlts(alts: Node[][]): string {
  return alts.map(emitSeq).join('|');
}

function emitSeq(seq: Node[]): string {
  let s = '';
  for (let k = 0; k < seq.length; k++) {
    const n = seq[k]!;
    switch (n.t) {
      case 'char': {
        const c = n.c.charCodeAt(0);
        if (isHigh(c) || isLow(c)) {
          const next = seq[k + 1];
          if (isHigh(c) && !n.q && next?.t === 'char' && isLow(next.c.charCodeAt(0))) {
            // a surrogate pair written as two units: one character for RE2
            if (next.q) throw new Unsupported('repeats only the second half of a character outside the Basic Multilingual Plane; put the character in a group, e.g. (?:😀)+', next.at);
            s += hex(0x10000 + ((c - 0xd800) << 10) + (next.c.charCodeAt(0) - 0xdc00));
            k++;
            continue;
          }
          throw new Unsupported('has half of a surrogate pair on its own (such as \\ud83d)', n.at);
        }
        s += emitUnit(c) + emitQuant(n.q);
        break;
      }
      case 'set':
        s += emitSet(n.ranges, n.at) + emitQuant(n.q);
        break;
      case 'assert':
        s += n.kind === '^' || n.kind === '$' ? n.kind : '\\' + n.kind;
        break;
      case 'backref':
        throw new Unsupported(`uses a backreference (${n.src} at character ${n.at + 1}), which a linear-time engine cannot run`, n.at);
      case 'group':
        if (n.look !== undefined)
          throw new Unsupported(
            `uses a ${n.look.startsWith('?<') ? 'lookbehind' : 'lookahead'} (${'(' + n.look} at character ${n.at + 1}), which a linear-time engine cannot run; match the text itself instead`,
            n.at,
          );
        // JavaScript drops an iteration past the minimum that matches nothing and backtracks into
        // the group for a longer one; RE2 accepts it. Same answers only when the body cannot be
        // empty, so a repeated group that can match nothing is refused.
        if (n.q && n.q.max > n.q.min && n.alts.some((alt) => alt.every(nullable)))
          throw new Unsupported(
            `repeats a group that can match the empty string (the group at character ${n.at + 1}); JavaScript and a linear-time engine treat its empty repetitions differently. Make the group match at least one character`,
            n.at,
          );
        s += (n.capturing ? '(' : '(?:') + emitAlts(n.alts) + ')' + emitQuant(n.q);
        break;
    }
  }
  return s;
}

/** The RE2 source with the same meaning as a parsed JavaScript pattern; throws Unsupported. */
export function toRe2Source(parsed: Parsed): string {
  return emitAlts(parsed.alts);
}

// ---------------------------------------------------------------------------------------------
// Compiled programs

/** Largest RE2 program accepted. The time per character of a match is bounded by the program
 * size (threads of the NFA), so this bounds the constant of the linear time; hand-written
 * patterns are far below it (a 60-character pattern is ~60 instructions, a 500-character literal
 * ~500). */
export const MAX_PROGRAM_SIZE = 1000;

/** Most "loop cost" accepted: the characters and classes that sit inside repetitions (a counted
 * repetition {n,m} counts m copies, nested ones multiply), times (3 + capture groups) / 3. The NFA's
 * live threads come from those repetitions and each thread carries the captures, so this bounds
 * the time per character: measured on this machine ~0.2 µs per unit of cost per character, so at
 * most ~50 µs per character for the worst pattern accepted (a realistic hand-written pattern costs
 * 2-40: `status (\w+) (\S+) (\S+)` is 3 × 2 = 6). */
export const MAX_LOOP_COST = 250;

/** Atoms inside repetitions, counted repetitions expanded (see MAX_LOOP_COST). */
function loopWeight(alts: Node[][], mult: number, inLoop: boolean): number {
  let w = 0;
  for (const alt of alts)
    for (const n of alt) {
      const q = 'q' in n ? n.q : undefined;
      const repeats = q !== undefined && q.max > 1;
      const copies = repeats ? (q.max === Infinity ? Math.max(1, q.min) : q.max) : 1;
      if (n.t === 'group') w += loopWeight(n.alts, mult * copies, inLoop || repeats);
      else if (n.t === 'char' || n.t === 'set') {
        if (repeats || inLoop) w += mult * copies;
      }
      if (w > 1e9) return w;
    }
  return w;
}

/** Compiled programs by pattern, most recently used last, bounded by their instructions in all
 * (a program takes ~210 bytes of heap per instruction, measured on 11,017 realistic patterns: ~11
 * KB each on average, up to ~210 KB at MAX_PROGRAM_SIZE) and by their number. A bound of 512
 * programs made the realistic 100k record set's 1,460 regular expressions in use on its log
 * compile 3,109 times in one scan (each compile ~70 us): the least recently used was evicted
 * just before it was needed again. */
const cache = new Map<string, RE2JS | string>();
/** Instructions the cache may hold in all (~21 MB), and programs at most. */
export const CACHE_INSTRUCTIONS = 100_000;
const CACHE_PROGRAMS = 4096;
let cachedInstructions = 0;
let compiles = 0;

/** What the program cache holds, and how many compiles it has made so far (tests, benches). */
export function linearRegexCache(): { programs: number; instructions: number; compiles: number } {
  return { programs: cache.size, instructions: cachedInstructions, compiles };
}

const weightOf = (r: RE2JS | string): number => (typeof r === 'string' ? 1 : r.programSize());

function compile(pattern: string): RE2JS | string {
  let parsed: Parsed;
  try {
    parsed = parseRegex(pattern);
  } catch (e) {
    return `is not supported: ${(e as Error).message}`;
  }
  let source: string;
  try {
    source = toRe2Source(parsed);
  } catch (e) {
    if (e instanceof Unsupported) return e.message;
    throw e;
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (e) {
    const m = (e as Error).message.replace(/^error parsing regexp: /, '');
    return `cannot run on the linear-time engine: ${m}${/repeat count/.test(m) ? ' (a counted repetition may repeat at most 1000 times, nested ones included)' : ''}`;
  }
  const size = re.programSize();
  if (size > MAX_PROGRAM_SIZE) return `is too large for the linear-time engine (${size} instructions, at most ${MAX_PROGRAM_SIZE}); use fewer or smaller counted repetitions`;
  const weight = loopWeight(parsed.alts, 1, false);
  const cost = Math.ceil((weight * (3 + parsed.groups)) / 3);
  if (cost > MAX_LOOP_COST)
    return `repeats too much for the linear-time engine: ${weight} characters or classes inside repetitions with ${parsed.groups} capture group${parsed.groups === 1 ? '' : 's'} (cost ${cost}, at most ${MAX_LOOP_COST}); use fewer or smaller repetitions or fewer groups`;
  return re;
}

/** The compiled program of a pattern, or why it cannot run (without "pattern " in front). */
export function linearRegex(pattern: string): RE2JS | string {
  let r = cache.get(pattern);
  if (r !== undefined) {
    cache.delete(pattern);
    cache.set(pattern, r);
    return r;
  }
  r = compile(pattern);
  compiles++;
  const w = weightOf(r);
  while (cache.size > 0 && (cache.size >= CACHE_PROGRAMS || cachedInstructions + w > CACHE_INSTRUCTIONS)) {
    const [oldest, program] = cache.entries().next().value!;
    cache.delete(oldest);
    cachedInstructions -= weightOf(program);
  }
  cache.set(pattern, r);
  cachedInstructions += w;
  return r;
}
