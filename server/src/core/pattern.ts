// ErrLookup pattern rules: derive a pattern from a message, name its captures, decide whether a
// pattern can be used, and split "simple" patterns (literals and (.+?) holes only) into literal
// segments so the engine can match them with a chain of indexOf searches instead of a regex.
//
// A messagePattern is a JavaScript regex source: unanchored, no flags. Patterns that are not
// simple run on a linear-time engine (linearRegex.ts), never on RegExp.

import { linearRegex, parseRegex, type Node, type Parsed } from './linearRegex';

const SINGLE_ESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f', v: '\v' };

export const HOLE = '(.+?)';

/** Characters ErrLookup escapes when deriving a pattern from a message. */
const SPECIAL = '.*+?^${}()|[]\\';
const SPECIAL_CODE = new Uint8Array(128);
for (const c of SPECIAL) SPECIAL_CODE[c.charCodeAt(0)] = 1;
/** Longest pattern that is accepted (ErrLookup's limit). */
export const MAX_PATTERN_LENGTH = 500;
/** Fewest literal characters (outside holes) a pattern needs; fewer would match nearly anything. */
export const MIN_LITERAL_CHARS = 6;

// ---------------------------------------------------------------------------------------------
// Messages: literals and placeholders

export type MessagePart = { kind: 'literal'; text: string } | { kind: 'placeholder'; name: string | undefined; source: string };

/** printf-style conversion: %s %d %r %5.2f %-10s %lu %zu %v %q ... and %(name)s. */
const PRINTF = /%(?:\(([^()]*)\))?[-+#0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|ll|[hlLzjt])?[diouxXeEfFgGcrsaAvqTpwb]/y;

/** Index just past the `}` closing the `{` at `open`, counting nesting; -1 when unclosed. */
function closeBrace(message: string, open: number): number {
  let depth = 0;
  for (let i = open; i < message.length; i++) {
    const c = message[i];
    if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) return i + 1;
    } else if (c === '\n') return -1;
  }
  return -1;
}

/** Name of a `{...}` placeholder: the expression without f-string conversion, format spec or `=`. */
function braceName(expr: string): string | undefined {
  let depth = 0;
  let quote = '';
  let end = expr.length;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i]!;
    if (quote) {
      if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (depth === 0 && (c === ':' || (c === '!' && /^![rsa]$/.test(expr.slice(i, i + 2)) && i + 2 >= expr.trimEnd().length))) {
      end = i;
      break;
    }
  }
  let name = expr.slice(0, end).trim();
  if (name.endsWith('=') && !/[=!<>]=$/.test(name)) name = name.slice(0, -1).trim();
  return name === '' || /^\d+$/.test(name) ? undefined : name;
}

/** Split a message into literal text and placeholders, left to right. (Strings are built from
 * slices and joins, never char by char: flat strings scan fast.) */
export function messageParts(message: string): MessagePart[] {
  const parts: MessagePart[] = [];
  const lit: string[] = [];
  let runStart = 0;
  const endRun = (at: number) => {
    if (at > runStart) lit.push(message.slice(runStart, at));
  };
  const flush = () => {
    if (lit.length) parts.push({ kind: 'literal', text: lit.join('') });
    lit.length = 0;
  };
  let i = 0;
  while (i < message.length) {
    const c = message[i]!;
    if ((c === '{' && message[i + 1] === '{') || (c === '}' && message[i + 1] === '}')) {
      endRun(i);
      lit.push(c); // format-string escape: {{ prints {
      i += 2;
      runStart = i;
      continue;
    }
    if (c === '{' || (c === '$' && message[i + 1] === '{')) {
      const open = c === '$' ? i + 1 : i;
      const end = closeBrace(message, open);
      if (end > 0) {
        endRun(i);
        flush();
        parts.push({ kind: 'placeholder', name: braceName(message.slice(open + 1, end - 1)), source: message.slice(i, end) });
        i = end;
        runStart = i;
        continue;
      }
    }
    if (c === '%') {
      if (message[i + 1] === '%') {
        endRun(i);
        lit.push('%'); // printf escape: %% prints %
        i += 2;
        runStart = i;
        continue;
      }
      PRINTF.lastIndex = i;
      const m = PRINTF.exec(message);
      if (m) {
        endRun(i);
        flush();
        const name = m[1]?.trim();
        parts.push({ kind: 'placeholder', name: name ? name : undefined, source: m[0] });
        i += m[0].length;
        runStart = i;
        continue;
      }
    }
    i++;
  }
  endRun(message.length);
  flush();
  return parts;
}

/** Placeholders of an ErrLookup message, left to right: {expr}, ${expr}, %s-style, %(name)s.
 * Placeholders without a usable name ({}, {0}, %s) are named by their 1-based position. */
export function placeholderNames(message: string): string[] {
  const names: string[] = [];
  for (const p of messageParts(message)) if (p.kind === 'placeholder') names.push(p.name ?? String(names.length + 1));
  return names;
}

const ESCAPE_RE = /[.*+?^${}()|[\]\\]/g;

/** Escape the characters ErrLookup escapes. */
export function escapeLiteral(text: string): string {
  return text.replace(ESCAPE_RE, '\\$&');
}

/** ErrLookup's rule: escape . * + ? ^ $ { } ( ) | [ ] \ and turn each placeholder into (.+?). */
export function derivePattern(message: string): string {
  return messageParts(message)
    .map((p) => (p.kind === 'literal' ? escapeLiteral(p.text) : HOLE))
    .join('');
}

// ---------------------------------------------------------------------------------------------
// Hand-written patterns: parsed with JavaScript's regex syntax (linearRegex.ts), which also runs
// them on a linear-time engine. Here: the literal count and the required literals used by the
// engine's prefilter, and the reasons a pattern is refused.

/** Literal characters of a parsed pattern outside holes and optional parts (top level only;
 * with a top-level alternation, the smallest branch counts). */
function literalCount(alts: Node[][]): number {
  let best = Infinity;
  for (const alt of alts) {
    let n = 0;
    for (const node of alt) if (node.t === 'char' && (!node.q || node.q.min > 0)) n++;
    best = Math.min(best, n);
  }
  return best === Infinity ? 0 : best;
}

export interface PatternInfo {
  /** Number of capturing groups. */
  groups: number;
  /** Names of named groups, by group number - 1 (undefined when unnamed). */
  groupNames: (string | undefined)[];
  /** Literal characters outside holes (ranking and the < 6 rule). */
  literalLength: number;
  /** Literal strings every match must contain, in order (for prefilters). Empty when the pattern
   * has a top-level alternation. */
  requiredLiterals: string[];
}

/** Facts about a pattern that compiles; undefined when it cannot be parsed. */
export function patternInfo(pattern: string): PatternInfo | undefined {
  let parsed: Parsed;
  try {
    parsed = parseRegex(pattern);
  } catch {
    return undefined;
  }
  const requiredLiterals: string[] = [];
  if (parsed.alts.length === 1) {
    let run = '';
    for (const n of parsed.alts[0]!) {
      if (n.t === 'char' && !n.q) run += n.c;
      else {
        if (run) requiredLiterals.push(run);
        run = '';
      }
    }
    if (run) requiredLiterals.push(run);
  }
  return { groups: parsed.groups, groupNames: parsed.groupNames, literalLength: literalCount(parsed.alts), requiredLiterals };
}

function tooFewLiterals(lits: number): string {
  return `pattern has only ${lits} literal character${lits === 1 ? '' : 's'} outside holes (at least ${MIN_LITERAL_CHARS} needed); it would match almost any line`;
}

/** Why a pattern cannot be used (too long, does not compile, needs what a linear-time engine cannot
 * do — backreferences, lookaround —, < 6 literal chars), or undefined. */
export function patternProblem(pattern: string): string | undefined {
  // Fast path for simple patterns (literals and (.+?) holes: every derived ErrLookup pattern). They
  // always compile and are matched without any regex engine (ChainMatcher): only the length and
  // the literal characters are left to check. Same answers as the full check (patternProblemFull;
  // the fuzz tests compare them, line terminators in literals included), without compiling a
  // program per record.
  const simple = parseSimplePattern(pattern);
  if (simple) {
    if (pattern.length > MAX_PATTERN_LENGTH) return `pattern is longer than ${MAX_PATTERN_LENGTH} characters (${pattern.length})`;
    let lits = 0;
    for (const l of simple.literals) lits += l.length;
    if (lits < MIN_LITERAL_CHARS) return tooFewLiterals(lits);
    return undefined;
  }
  return patternProblemFull(pattern);
}

/** patternProblem without the fast path for simple patterns (exported for the tests). */
export function patternProblemFull(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return `pattern is longer than ${MAX_PATTERN_LENGTH} characters (${pattern.length})`;
  // a messagePattern is JavaScript regex syntax: what RegExp refuses is a syntax error (it is
  // only compiled here, never run)
  try {
    new RegExp(pattern);
  } catch (e) {
    return `pattern does not compile: ${(e as Error).message}`;
  }
  const re = linearRegex(pattern);
  if (typeof re === 'string') return `pattern ${re}`;
  const lits = literalCount(parseRegex(pattern).alts);
  if (lits < MIN_LITERAL_CHARS) return tooFewLiterals(lits);
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Simple patterns

/** A pattern made only of literals and (.+?) holes, as literal segments; undefined when it needs a real regex.
 * The pattern is [hole] literals[0] hole literals[1] hole ... literals[n-1] [hole]; a literal is ''
 * only between two adjacent holes (or before/after a leading/trailing hole that follows another). */
export function parseSimplePattern(pattern: string): { literals: string[]; leadingHole: boolean; trailingHole: boolean } | undefined {
  const literals: string[] = [];
  let pieces: string[] = []; // pieces of the current literal (joined: flat strings, fast to scan)
  let runStart = 0; // start of the current run of plain characters
  let holes = 0;
  let leadingHole = false;
  let lastWasHole = false;
  let i = 0;
  const n = pattern.length;
  const endRun = (at: number) => {
    if (at > runStart) pieces.push(pattern.slice(runStart, at));
  };
  while (i < n) {
    const c = pattern.charCodeAt(i);
    if (c < 128 && SPECIAL_CODE[c]) {
      endRun(i);
      if (c === 0x28 /* ( */ && pattern.startsWith(HOLE, i)) {
        if (i === 0) leadingHole = true;
        else literals.push(pieces.length === 1 ? pieces[0]! : pieces.join(''));
        pieces = [];
        holes++;
        lastWasHole = true;
        i += HOLE.length;
        runStart = i;
        continue;
      }
      if (c !== 0x5c /* \ */) return undefined;
      const e = pattern[i + 1];
      if (e === undefined) return undefined;
      let ch: string;
      let len = 2;
      if (/[A-Za-z0-9]/.test(e)) {
        const single = SINGLE_ESCAPES[e];
        if (single !== undefined) ch = single;
        else if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(pattern.slice(i + 2, i + 4))) {
          ch = String.fromCharCode(parseInt(pattern.slice(i + 2, i + 4), 16));
          len = 4;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(pattern.slice(i + 2, i + 6))) {
          ch = String.fromCharCode(parseInt(pattern.slice(i + 2, i + 6), 16));
          len = 6;
        } else return undefined;
      } else ch = e;
      pieces.push(ch);
      lastWasHole = false;
      i += len;
      runStart = i;
      continue;
    }
    lastWasHole = false;
    i++;
  }
  endRun(n);
  const trailingHole = lastWasHole;
  if (!trailingHole) literals.push(pieces.length === 1 ? pieces[0]! : pieces.join(''));
  else if (holes === 1 && leadingHole) return undefined; // the pattern is just (.+?)
  if (literals.length === 0) return undefined;
  return { literals, leadingHole, trailingHole };
}

/** Capture names for a record: placeholder names when their count equals the pattern's groups, else "1","2",...
 * (named groups of a hand-written pattern keep their names). */
export function captureNames(message: string, pattern: string): string[] {
  const simple = parseSimplePattern(pattern); // fast path: holes are the only groups
  const info = simple ? undefined : patternInfo(pattern);
  const groups = simple ? simple.literals.length - 1 + (simple.leadingHole ? 1 : 0) + (simple.trailingHole ? 1 : 0) : info ? info.groups : 0;
  const names = placeholderNames(message);
  if (names.length === groups) return names;
  const out: string[] = [];
  for (let g = 0; g < groups; g++) out.push(info?.groupNames[g] ?? String(g + 1));
  return out;
}

/** Literal characters of a pattern outside its holes (ranking: more is more specific). */
export function literalLength(pattern: string): number {
  const simple = parseSimplePattern(pattern);
  if (simple) return simple.literals.reduce((n, l) => n + l.length, 0);
  return patternInfo(pattern)?.literalLength ?? 0;
}
