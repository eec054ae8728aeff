// Token-level helpers shared by the site finders: brackets, argument lists, dotted names, and the
// layout of a file (token columns; Python's logical lines and indented blocks).
import type { Token } from './lexer';

export const OPEN: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

export function isP(t: Token | undefined, text: string): boolean {
  return t !== undefined && t.kind === 'punct' && t.text === text;
}
export function isId(t: Token | undefined, text?: string): boolean {
  return t !== undefined && t.kind === 'id' && (text === undefined || t.text === text);
}

/** Bracket partners of token arrays that have a Layout (filled by its constructor). */
const PARTNERS = new WeakMap<Token[], Int32Array>();

/** Index of the token closing the bracket at `open` (or toks.length). */
export function closing(toks: Token[], open: number): number {
  const partner = PARTNERS.get(toks);
  if (partner) {
    const p = partner[open]!;
    return p > open ? p : toks.length;
  }
  let depth = 0;
  for (let k = open; k < toks.length; k++) {
    const t = toks[k]!;
    if (t.kind !== 'punct') continue;
    if (t.text in OPEN) depth++;
    else if (t.text === ')' || t.text === ']' || t.text === '}') {
      depth--;
      if (depth === 0) return k;
    }
  }
  return toks.length;
}

/** Top-level comma-separated ranges between `open` and its closing bracket. */
export function args(toks: Token[], open: number): { ranges: [number, number][]; close: number } {
  const close = closing(toks, open);
  const ranges: [number, number][] = [];
  let depth = 0;
  let from = open + 1;
  for (let k = open + 1; k < close; k++) {
    const t = toks[k]!;
    if (t.kind !== 'punct') continue;
    if (t.text in OPEN) depth++;
    else if (t.text === ')' || t.text === ']' || t.text === '}') depth--;
    else if (t.text === ',' && depth === 0) {
      ranges.push([from, k]);
      from = k + 1;
    }
  }
  if (from < close) ranges.push([from, close]);
  return { ranges, close };
}

/** Dotted name starting at `from`: returns [name, index after it]. */
export function dotted(toks: Token[], from: number): [string, number] {
  let k = from;
  let name = '';
  while (isId(toks[k])) {
    name += toks[k]!.text;
    k++;
    if (isP(toks[k], '.') && isId(toks[k + 1])) {
      name += '.';
      k++;
    } else break;
  }
  return [name, k];
}

/** Index of the first top-level token `text` in [from, to), or -1. */
export function findTop(toks: Token[], from: number, to: number, text: string): number {
  let depth = 0;
  for (let k = from; k < to; k++) {
    const t = toks[k]!;
    if (t.kind !== 'punct') continue;
    if (depth === 0 && t.text === text) return k;
    if (t.text in OPEN) depth++;
    else if (t.text === ')' || t.text === ']' || t.text === '}') depth--;
  }
  return -1;
}

/** A parameter of a function or method: its name and, when it has one, its default's range. */
export interface Param {
  name: string;
  rest: boolean;
  default?: [number, number];
}

const TS_MODIFIERS = new Set(['public', 'private', 'protected', 'readonly', 'override']);

/** Parameters of the list opened at `open` (Python, JS/TS, Java). Destructured ones are named ''. */
export function params(toks: Token[], open: number): Param[] {
  const out: Param[] = [];
  for (const [a0, b] of args(toks, open).ranges) {
    let a = a0;
    let rest = false;
    while (a < b && (isP(toks[a], '*') || isP(toks[a], '**') || isP(toks[a], '...'))) {
      rest = true;
      a++;
    }
    while (a + 1 < b && isId(toks[a]) && TS_MODIFIERS.has(toks[a]!.text) && isId(toks[a + 1])) a++;
    const eq = findTop(toks, a, b, '=');
    // Java: `String message` (type first); Python / JS / TS: `message`, `message: str`, `message = '…'`
    let name = '';
    const end = eq < 0 ? b : eq;
    const colon = findTop(toks, a, end, ':');
    const nameEnd = colon < 0 ? end : colon;
    if (isId(toks[a]) && (nameEnd === a + 1 || (nameEnd === a + 2 && isP(toks[a + 1], '?')))) name = toks[a]!.text;
    else if (colon < 0 && isId(toks[nameEnd - 1])) name = toks[nameEnd - 1]!.text; // Java: last identifier
    const p: Param = { name, rest };
    if (eq >= 0 && eq + 1 < b) p.default = [eq + 1, b];
    out.push(p);
  }
  return out;
}

/** Where each token sits: its column, and (Python) whether it starts a logical line. */
export class Layout {
  readonly col: Int32Array;
  /** 1 when the token is the first of a logical line (Python: outside brackets, not continued). */
  readonly starts: Uint8Array;
  /** For a bracket token, the index of its partner (open <-> close); -1 otherwise or unmatched. */
  readonly partner: Int32Array;

  constructor(
    readonly src: string,
    readonly toks: Token[],
  ) {
    const n = toks.length;
    this.col = new Int32Array(n);
    this.starts = new Uint8Array(n);
    this.partner = new Int32Array(n).fill(-1);
    const open: number[] = [];
    let prevEnd = 0;
    let lineStart = 0;
    // the next line break at or after `scan` (one forward pass over the text: linear also for a
    // minified one-line file)
    let scan = 0;
    let nextNl = src.indexOf('\n');
    for (let k = 0; k < n; k++) {
      const t = toks[k]!;
      let newLine = k === 0;
      let lastNl = -1;
      while (nextNl >= 0 && nextNl < t.start) {
        if (nextNl >= prevEnd) newLine = true;
        lastNl = nextNl;
        scan = nextNl + 1;
        nextNl = src.indexOf('\n', scan);
      }
      if (lastNl >= 0) lineStart = lastNl + 1;
      this.col[k] = t.start - lineStart;
      // Python: a backslash right before the line break continues the logical line
      if (newLine && open.length === 0 && !(lastNl > 0 && /\\[ \t]*\r?$/.test(src.slice(Math.max(prevEnd, lastNl - 8), lastNl)))) this.starts[k] = 1;
      if (t.kind === 'punct') {
        if (t.text in OPEN) open.push(k);
        else if ((t.text === ')' || t.text === ']' || t.text === '}') && open.length) {
          const o = open.pop()!;
          this.partner[o] = k;
          this.partner[k] = o;
        }
      }
      prevEnd = t.end;
    }
    PARTNERS.set(toks, this.partner);
  }

  /** Python: the first token after the indented block of the statement at `k` (its body). */
  blockEnd(k: number): number {
    let s = k;
    while (s > 0 && !this.starts[s]) s--;
    const c = this.col[s]!;
    for (let j = k + 1; j < this.toks.length; j++) if (this.starts[j] && this.col[j]! <= c) return j;
    return this.toks.length;
  }

  /** Python: the first token of the next logical line after `k` (end of k's statement). */
  lineEnd(k: number): number {
    for (let j = k + 1; j < this.toks.length; j++) if (this.starts[j]) return j;
    return this.toks.length;
  }

  /** The first token of the logical line holding `k`. */
  lineStart(k: number): number {
    let s = k;
    while (s > 0 && !this.starts[s]) s--;
    return s;
  }
}
