// The two ways one record is matched against one view text, both linear in the text length:
//  - ChainMatcher: a "simple" pattern (literals and (.+?) holes) is matched exactly, without a
//    RegExp, by a chain of indexOf searches.
//  - RegexMatcher: any other pattern runs on a linear-time engine (RE2 semantics, re2js; see
//    linearRegex.ts), compiled lazily; on long texts only on bounded windows (tiles) around
//    occurrences of its key, so the work per tile is bounded.
// Both extend a trailing lazy hole to the end of the value (see extendEnd).

import type { RE2JS } from 're2js';
import { linearRegex } from '../linearRegex';

/** A match in view offsets: span and capture spans as [start, end] pairs (-1, -1 when a group did not participate). */
export interface RawMatch {
  start: number;
  end: number;
  caps: number[];
}

/** Line terminators: `.` in a JS regex never matches them, so holes never span them. */
const TERMINATOR = /[\n\r\u2028\u2029]/;

/** Positions of line terminators in t, or null when there are none. */
export function terminators(t: string): number[] | null {
  // four native scans are several times faster than the character-class RegExp on log lines
  if (t.indexOf('\n') < 0 && t.indexOf('\r') < 0 && t.indexOf('\u2028') < 0 && t.indexOf('\u2029') < 0) return null;
  const out: number[] = [];
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) out.push(i);
  }
  return out;
}

export function hasTerminator(s: string): boolean {
  return TERMINATOR.test(s);
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 11 || c === 12 || c === 0xa0;
}

/** End of the value a trailing hole sits in: `limit` (the end of the view, i.e. the line end or
 * the closing quote of a JSON string, or the next line terminator) without trailing whitespace;
 * never before `minEnd`. */
function extendEnd(t: string, minEnd: number, limit: number): number {
  let e = limit;
  while (e > minEnd && isSpace(t.charCodeAt(e - 1))) e--;
  return e;
}

export class ChainMatcher {
  constructor(
    readonly literals: string[],
    readonly leading: boolean,
    readonly trailing: boolean,
  ) {}

  get groups(): number {
    return this.literals.length - 1 + (this.leading ? 1 : 0) + (this.trailing ? 1 : 0);
  }

  /** Leftmost match, exactly as `new RegExp(pattern).exec(t)` finds it (plus the trailing extension). */
  match(t: string, terms: number[] | null): RawMatch | null {
    if (terms === null) {
      const r = this.inSegment(t, 0, t.length);
      return typeof r === 'number' ? null : r;
    }
    let segStart = 0;
    let ti = 0;
    for (;;) {
      const segEnd = ti < terms.length ? terms[ti]! : t.length;
      const r = this.inSegment(t, segStart, segEnd);
      if (typeof r !== 'number') return r;
      if (r < 0) return null;
      // r lies beyond this segment and no match can end before it: resume in r's segment
      while (ti < terms.length && terms[ti]! < r) ti++;
      segStart = terms[ti - 1]! + 1;
    }
  }

  /** Match inside [segStart, segEnd) (no terminators inside). Returns the match, -1 when no match
   * exists anywhere from segStart on, or a position beyond segEnd to resume from. */
  private inSegment(t: string, segStart: number, segEnd: number): RawMatch | number {
    const lits = this.literals;
    const caps: number[] = [];
    const fail = segEnd < t.length ? segEnd + 1 : -1;
    let from = segStart + (this.leading ? 1 : 0);
    let start = -1;
    let prevEnd = segStart;
    for (let i = 0; i < lits.length; i++) {
      const lit = lits[i]!;
      let p: number;
      if (lit.length === 0) {
        if (from > segEnd) return fail;
        p = from;
      } else {
        p = t.indexOf(lit, from);
        if (p < 0) return -1;
        if (p + lit.length > segEnd) return p;
      }
      if (i === 0) {
        start = this.leading ? segStart : p;
        if (this.leading) caps.push(segStart, p);
      } else caps.push(prevEnd, p);
      prevEnd = p + lit.length;
      from = prevEnd + 1;
    }
    let end = prevEnd;
    if (this.trailing) {
      if (prevEnd + 1 > segEnd) return fail;
      end = extendEnd(t, prevEnd + 1, segEnd);
      caps.push(prevEnd, end);
    }
    return { start, end, caps };
  }
}

/** Texts longer than this are matched by a general regex only in windows (tiles) of 2 * WINDOW
 * characters, stepped by WINDOW, that contain the record's key: matches longer than WINDOW
 * characters on such long lines are not found. Each tile costs a bounded amount, so the whole line
 * stays linear. */
export const LONG_TEXT = 8192;
export const WINDOW = 2048;

export class RegexMatcher {

  constructor(
    readonly source: string,
    /** A literal every match contains, or null (then every tile is tried). */
    readonly key: string | null,
    /** 1-based group extended to the end of the value when the pattern ends with it; 0 when none. */
    readonly trailingGroup: number,
    /** Literals every match contains, in this order: checked with indexOf before the regex runs. */
    readonly required: readonly string[] = [],
  ) {}

  /** Do the required literals occur in order within t[from, to)? Linear; rules out most texts
   * (e.g. a line repeating the literals in a wrong order) before the regex engine runs. */
  private hasRequired(t: string, from: number, to: number): boolean {
    let at = from;
    for (const lit of this.required) {
      const p = t.indexOf(lit, at);
      if (p < 0 || p + lit.length > to) return false;
      at = p + lit.length;
    }
    return true;
  }

  /** The compiled program (held by linearRegex's bounded cache, not here: the engine keeps up to
   * 2^17 matchers). Only patterns patternProblem accepts get a RegexMatcher. */
  private regex(): RE2JS {
    const re = linearRegex(this.source);
    if (typeof re === 'string') throw new Error(`pattern ${re}`);
    return re;
  }

  match(t: string, terms: number[] | null): RawMatch | null {
    const n = t.length;
    if (!this.hasRequired(t, 0, n)) return null;
    if (n <= LONG_TEXT) return this.finish(t, this.exec(t, 0), terms);
    let k = 0;
    const tiles = Math.max(1, Math.ceil((n - WINDOW) / WINDOW));
    while (k < tiles) {
      if (this.key !== null) {
        const occ = t.indexOf(this.key, k * WINDOW);
        if (occ < 0) return null;
        k = Math.max(k, Math.floor(occ / WINDOW) - 1);
        if (k >= tiles) k = tiles - 1;
      }
      const from = k * WINDOW;
      const to = Math.min(n, from + 2 * WINDOW);
      const tile = t.slice(from, to);
      const r = this.hasRequired(tile, 0, tile.length) ? this.exec(tile, from) : null;
      if (r) return this.finish(t, r, terms);
      k++;
    }
    return null;
  }

  private exec(text: string, offset: number): RawMatch | null {
    // find() with captures runs RE2's one-pass, bit-state or NFA matcher (each linear, memory
    // O(program)); test() first would use the lazy DFA, whose state cache can take 8 MB per
    // pattern and, on hostile patterns, thrash (measured 10x slower than the NFA)
    const m = this.regex().matcher(text);
    if (!m.find()) return null;
    const caps: number[] = [];
    const groups = m.groupCount();
    for (let g = 1; g <= groups; g++) {
      const s = m.start(g);
      if (s >= 0) caps.push(s + offset, m.end(g) + offset);
      else caps.push(-1, -1);
    }
    return { start: m.start() + offset, end: m.end() + offset, caps };
  }

  private finish(t: string, r: RawMatch | null, terms: number[] | null): RawMatch | null {
    if (!r || this.trailingGroup === 0) return r;
    const i = (this.trailingGroup - 1) * 2;
    if (r.caps[i + 1] !== r.end || r.caps[i]! < 0) return r;
    let limit = t.length;
    if (terms)
      for (const p of terms)
        if (p >= r.end) {
          limit = p;
          break;
        }
    const end = extendEnd(t, r.end, limit);
    r.caps[i + 1] = end;
    r.end = end;
    return r;
  }
}
