// ErrLookup pattern rules: derive a pattern from a message, name its captures, decide whether a
// pattern is safe to run, and split "simple" patterns (literals and (.+?) holes only) into literal
// segments so the engine can match them with a chain of indexOf searches instead of a RegExp.
//
// A messagePattern is a JavaScript regex source: unanchored, no flags.

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
// A small parser of JavaScript regex sources (no flags), enough for the safety rules, the literal
// count and the required literals used by the engine's prefilter.

interface Quant {
  min: number;
  max: number; // Infinity when unbounded
}
type Node =
  | { t: 'char'; c: string; q?: Quant }
  | { t: 'set'; wide?: boolean; q?: Quant } // class, \d, ., ... (wide: `.`, any character but a line end)
  | { t: 'assert' } // ^ $ \b \B
  | { t: 'backref'; q?: Quant }
  | { t: 'group'; capturing: boolean; name?: string; lookaround: boolean; alts: Node[][]; q?: Quant };

interface Parsed {
  alts: Node[][];
  groups: number;
  groupNames: (string | undefined)[];
}

class RegexSyntax extends Error {}

const SINGLE_ESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f', v: '\v' };

function parseRegex(src: string): Parsed {
  let i = 0;
  let groups = 0;
  const groupNames: (string | undefined)[] = [];

  const parseQuant = (): Quant | undefined => {
    const c = src[i];
    let q: Quant | undefined;
    if (c === '*') q = { min: 0, max: Infinity };
    else if (c === '+') q = { min: 1, max: Infinity };
    else if (c === '?') q = { min: 0, max: 1 };
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i));
      if (!m) return undefined; // a literal { (Annex B)
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      i += m[0].length - 1;
      q = { min, max };
    } else return undefined;
    i++;
    if (src[i] === '?') i++; // lazy
    return q;
  };

  const parseEscape = (): Node => {
    // src[i] === '\\'
    const c = src[i + 1];
    if (c === undefined) throw new RegexSyntax('\\ at end of pattern');
    i += 2;
    if (/[1-9]/.test(c)) {
      while (/[0-9]/.test(src[i] ?? '')) i++;
      return { t: 'backref' };
    }
    if (c === 'k' && src[i] === '<') {
      const end = src.indexOf('>', i);
      i = end < 0 ? src.length : end + 1;
      return { t: 'backref' };
    }
    if ('dDwWsS'.includes(c)) return { t: 'set' };
    if (c === 'b' || c === 'B') return { t: 'assert' };
    if (c === 'c' && /[A-Za-z]/.test(src[i] ?? '')) {
      i++;
      return { t: 'set' };
    }
    if (c === 'x' && /^[0-9a-fA-F]{2}/.test(src.slice(i, i + 2))) {
      const ch = String.fromCharCode(parseInt(src.slice(i, i + 2), 16));
      i += 2;
      return { t: 'char', c: ch };
    }
    if (c === 'u' && /^[0-9a-fA-F]{4}/.test(src.slice(i, i + 4))) {
      const ch = String.fromCharCode(parseInt(src.slice(i, i + 4), 16));
      i += 4;
      return { t: 'char', c: ch };
    }
    if (c === '0' && !/[0-9]/.test(src[i] ?? '')) return { t: 'char', c: '\0' };
    if (c === '0') return { t: 'set' }; // legacy octal: treat as opaque
    const single = SINGLE_ESCAPES[c];
    if (single !== undefined) return { t: 'char', c: single };
    return { t: 'char', c }; // identity escape
  };

  const parseClass = (): Node => {
    // src[i] === '['
    i++;
    if (src[i] === '^') i++;
    while (i < src.length && src[i] !== ']') i += src[i] === '\\' ? 2 : 1;
    if (i >= src.length) throw new RegexSyntax('unterminated character class');
    i++;
    return { t: 'set' };
  };

  const parseAlts = (depth: number): Node[][] => {
    const alts: Node[][] = [[]];
    while (i < src.length) {
      const c = src[i]!;
      let node: Node;
      if (c === '|') {
        alts.push([]);
        i++;
        continue;
      }
      if (c === ')') {
        if (depth === 0) throw new RegexSyntax('unmatched )');
        return alts;
      }
      if (c === '(') {
        i++;
        let capturing = true;
        let lookaround = false;
        let name: string | undefined;
        if (src[i] === '?') {
          const rest = src.slice(i, i + 4);
          if (rest.startsWith('?:')) {
            capturing = false;
            i += 2;
          } else if (rest.startsWith('?=') || rest.startsWith('?!')) {
            capturing = false;
            lookaround = true;
            i += 2;
          } else if (rest.startsWith('?<=') || rest.startsWith('?<!')) {
            capturing = false;
            lookaround = true;
            i += 3;
          } else if (rest.startsWith('?<')) {
            const end = src.indexOf('>', i);
            if (end < 0) throw new RegexSyntax('unterminated group name');
            name = src.slice(i + 2, end);
            i = end + 1;
          } else throw new RegexSyntax('invalid group');
        }
        if (capturing) {
          groups++;
          groupNames.push(name);
        }
        const inner = parseAlts(depth + 1);
        if (src[i] !== ')') throw new RegexSyntax('unterminated group');
        i++;
        node = { t: 'group', capturing, lookaround, alts: inner, ...(name !== undefined ? { name } : {}) };
      } else if (c === '\\') node = parseEscape();
      else if (c === '[') node = parseClass();
      else if (c === '.') {
        i++;
        node = { t: 'set', wide: true };
      } else if (c === '^' || c === '$') {
        i++;
        alts[alts.length - 1]!.push({ t: 'assert' });
        continue;
      } else if (c === '*' || c === '+' || c === '?') throw new RegexSyntax('nothing to repeat');
      else {
        i++;
        node = { t: 'char', c };
      }
      const q = parseQuant();
      if (q) (node as { q?: Quant }).q = q;
      alts[alts.length - 1]!.push(node);
    }
    return alts;
  };

  const alts = parseAlts(0);
  if (i < src.length) throw new RegexSyntax('unmatched )');
  return { alts, groups, groupNames };
}

function containsQuantifier(alts: Node[][]): boolean {
  for (const alt of alts)
    for (const n of alt) {
      if ('q' in n && n.q) return true;
      if (n.t === 'group' && containsQuantifier(n.alts)) return true;
    }
  return false;
}

function findProblemIn(alts: Node[][]): string | undefined {
  for (const alt of alts)
    for (const n of alt) {
      if (n.t === 'backref') return 'uses a backreference';
      if (n.t === 'group') {
        // A group that may repeat (max > 1) and contains a quantifier can backtrack exponentially.
        if (n.q && n.q.max > 1 && containsQuantifier(n.alts)) return 'has a nested quantifier (a repeated group that contains a quantifier)';
        const inner = findProblemIn(n.alts);
        if (inner) return inner;
      }
    }
  return undefined;
}

// Polynomial backtracking. A regex fails on a line only after trying every way to split the text
// between its unbounded parts: with two wildcard holes, (.+?) x (.+?) y, that is cubic in the text
// for every start position, and so is a wildcard right next to another quantifier, (.+?)(\d+).
// Such patterns are rejected unless they are simple (literals and (.+?) holes only), which the
// engine matches without a RegExp, in linear time. A trailing wildcard does not count: it always
// succeeds at once.

type Tok = 'sep' | 'wide' | 'unbounded';

/** The sequence of a pattern as separators (required characters) and unbounded parts. */
function backtrackTokens(alt: Node[], out: Tok[]): void {
  for (const n of alt) {
    if (n.t === 'assert' || n.t === 'backref') continue;
    if (n.t === 'group') {
      if (n.lookaround) continue;
      if (n.q && n.q.max === Infinity) out.push('unbounded');
      else if (n.alts.length === 1) backtrackTokens(n.alts[0]!, out);
      else if (containsQuantifier(n.alts)) out.push(n.alts.some((a) => a.some((x) => x.t === 'set' && x.wide && x.q?.max === Infinity)) ? 'wide' : 'unbounded');
      else if (!n.q || n.q.min > 0) out.push('sep');
      continue;
    }
    if (n.q && n.q.max === Infinity) out.push(n.t === 'set' && n.wide ? 'wide' : 'unbounded');
    else if (!n.q || n.q.min > 0) out.push('sep');
  }
}

function backtrackProblem(parsed: Parsed): string | undefined {
  for (const alt of parsed.alts) {
    const toks: Tok[] = [];
    backtrackTokens(alt, toks);
    if (toks[toks.length - 1] === 'wide') toks.pop();
    if (toks.filter((t) => t === 'wide').length > 1)
      return 'has more than one unbounded wildcard such as (.+?) or .* (besides a trailing one); a line that almost matches makes it backtrack for a very long time. Use only literal text and (.+?) holes (matched without backtracking) or narrower classes such as \\d+ or [^ ]+';
    for (let k = 0; k + 1 < toks.length; k++) {
      const a = toks[k]!;
      const b = toks[k + 1]!;
      if (a !== 'sep' && b !== 'sep' && (a === 'wide' || b === 'wide'))
        return 'has an unbounded wildcard such as (.+?) right next to another repeated part, as in (.+?)(\\d+); a line that almost matches makes it backtrack for a very long time. Put literal text between them';
    }
  }
  return undefined;
}

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

/** Why a pattern is unsafe (too long, backreference, nested quantifier, polynomial backtracking, < 6 literal chars, does not compile), or undefined. */
export function patternProblem(pattern: string): string | undefined {
  // Fast path for simple patterns (literals and (.+?) holes: every derived ErrLookup pattern). They
  // always compile, hold no backreference or nested quantifier and cannot backtrack badly: only the
  // length and the literal characters are left to check. Same answers as the full check
  // (patternProblemFull; the fuzz tests compare them), without compiling a RegExp per record.
  const simple = parseSimplePattern(pattern);
  if (simple && !simple.literals.some((l) => /[\n\r\u2028\u2029]/.test(l))) {
    if (pattern.length > MAX_PATTERN_LENGTH) return `pattern is longer than ${MAX_PATTERN_LENGTH} characters (${pattern.length})`;
    let lits = 0;
    for (const l of simple.literals) lits += l.length;
    if (lits < MIN_LITERAL_CHARS)
      return `pattern has only ${lits} literal character${lits === 1 ? '' : 's'} outside holes (at least ${MIN_LITERAL_CHARS} needed); it would match almost any line`;
    return undefined;
  }
  return patternProblemFull(pattern);
}

/** patternProblem without the fast path for simple patterns (exported for the tests). */
export function patternProblemFull(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return `pattern is longer than ${MAX_PATTERN_LENGTH} characters (${pattern.length})`;
  try {
    new RegExp(pattern);
  } catch (e) {
    return `pattern does not compile: ${(e as Error).message}`;
  }
  let parsed: Parsed;
  try {
    parsed = parseRegex(pattern);
  } catch (e) {
    return `pattern is not supported: ${(e as Error).message}`;
  }
  const problem = findProblemIn(parsed.alts);
  if (problem) return `pattern ${problem}`;
  const simple = parseSimplePattern(pattern);
  if (!simple || simple.literals.some((l) => /[\n\r\u2028\u2029]/.test(l))) {
    const backtrack = backtrackProblem(parsed);
    if (backtrack) return `pattern ${backtrack}`;
  }
  const lits = literalCount(parsed.alts);
  if (lits < MIN_LITERAL_CHARS)
    return `pattern has only ${lits} literal character${lits === 1 ? '' : 's'} outside holes (at least ${MIN_LITERAL_CHARS} needed); it would match almost any line`;
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
