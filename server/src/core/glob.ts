// Glob patterns (errorExplainer.logFiles) matched in linear time.
//
// A glob is translated to an RE2-syntax expression (globToRe2) and matched by a small Thompson
// automaton over that expression (the few constructs the translation writes: literals, `\x{…}`,
// `.`, classes, `(?:…|…)`, `*`, `?`): time linear in the path, whatever the glob, and no regex
// library, so the client (which decides which documents are logs by this rule) stays small.
// picomatch and VS Code's glob compile to backtracking RegExps, where `**/*a*a*a*a*a*a*a*a*a*b`
// against a 60-character name takes minutes.
//
// Syntax (picomatch's, without extglobs): `*` any characters but `/` (dot files included), `?` one
// character but `/`, `**` as a whole segment any number of segments (zero included: `**/x.log`
// matches `x.log`, `a/**` matches `a`), `[abc]` `[a-z]` `[!x]` `[^x]` classes (never `/`),
// `{a,b}` alternatives (nested up to a depth of 8), `\x` a literal x, a leading `!` negates.
// Everything else is literal, extglob characters such as `@(`, `+(` and `!(` included.

/** Longest glob accepted; longer ones match nothing (a user's glob is a path, not a program). */
export const MAX_GLOB_LENGTH = 1000;
const MAX_BRACE_DEPTH = 8;

const hex = (c: number) => `\\x{${c.toString(16)}}`;
const lit = (ch: string) => (/[A-Za-z0-9_]/.test(ch) ? ch : [...ch].map((c) => hex(c.codePointAt(0)!)).join(''));

/** Index of the `close` that ends the group opened at `open` (depth counted, escapes skipped), or -1. */
function closing(g: string, open: number, o: string, close: string): number {
  let depth = 0;
  for (let i = open; i < g.length; i++) {
    const c = g[i];
    if (c === '\\') i++;
    else if (c === o) depth++;
    else if (c === close && --depth === 0) return i;
  }
  return -1;
}

/** Top-level comma positions inside braces g[from, to). */
function commas(g: string, from: number, to: number): number[] {
  const out: number[] = [];
  let depth = 0;
  for (let i = from; i < to; i++) {
    const c = g[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === ',' && depth === 0) out.push(i);
  }
  return out;
}

function classSource(body: string): string {
  let negate = false;
  let i = 0;
  if (body[0] === '!' || body[0] === '^') {
    negate = true;
    i = 1;
  }
  const items: string[] = [];
  const chars = [...body.slice(i)];
  for (let k = 0; k < chars.length; k++) {
    let c = chars[k]!;
    if (c === '\\' && k + 1 < chars.length) c = chars[++k]!;
    if (chars[k + 1] === '-' && k + 2 < chars.length) {
      let d = chars[k + 2]!;
      let step = 2;
      if (d === '\\' && k + 3 < chars.length) ((d = chars[k + 3]!), (step = 3));
      const lo = c.codePointAt(0)!;
      const hi = d.codePointAt(0)!;
      if (lo <= hi) items.push(`${hex(lo)}-${hex(hi)}`);
      k += step;
      continue;
    }
    if (c !== '/') items.push(hex(c.codePointAt(0)!));
  }
  if (negate) return `[^/${items.join('')}]`;
  return items.length ? `(?:[${items.join('')}])` : '[^\\x{0}-\\x{10ffff}]';
}

function source(g: string, depth: number): string {
  let out = '';
  for (let i = 0; i < g.length; i++) {
    const c = g[i]!;
    if (c === '\\' && i + 1 < g.length) {
      out += lit(g[++i]!);
      continue;
    }
    if (c === '*') {
      let j = i;
      while (g[j] === '*') j++;
      const starts = i === 0 || g[i - 1] === '/';
      const ends = j === g.length || g[j] === '/';
      if (j - i >= 2 && starts && ends) {
        if (j === g.length) {
          // `a/**`: the segments below a, or a itself (the slash before ** is optional)
          if (out.endsWith('/')) out = out.slice(0, -1) + '(?:/.*)?';
          else out += '.*';
        } else {
          out += '(?:[^/]*/)*'; // `**/`: zero or more whole segments
          j++;
        }
      } else out += '[^/]*';
      i = j - 1;
      continue;
    }
    if (c === '?') {
      out += '[^/]';
      continue;
    }
    if (c === '[') {
      const end = g.indexOf(']', i + 2);
      if (end > 0) {
        out += classSource(g.slice(i + 1, end));
        i = end;
        continue;
      }
    }
    if (c === '{' && depth < MAX_BRACE_DEPTH) {
      const end = closing(g, i, '{', '}');
      const cs = end > 0 ? commas(g, i + 1, end) : [];
      if (cs.length) {
        const parts: string[] = [];
        let from = i + 1;
        for (const k of [...cs, end]) {
          parts.push(source(g.slice(from, k), depth + 1));
          from = k + 1;
        }
        out += `(?:${parts.join('|')})`;
        i = end;
        continue;
      }
    }
    if (c === '/') {
      out += '/';
      continue;
    }
    const u = c.charCodeAt(0);
    if (u >= 0xd800 && u <= 0xdbff && i + 1 < g.length) {
      out += lit(g.slice(i, i + 2)); // a surrogate pair: one character
      i++;
      continue;
    }
    out += lit(c);
  }
  return out;
}

/** RE2 source matching exactly the paths the glob matches (anchored both ends). Exported for tests. */
export function globToRe2(glob: string): string {
  return `^(?:${source(glob, 0)})$`;
}

export type PathMatcher = (path: string) => boolean;

/** One matcher for a list of globs: true when any glob matches the path (forward slashes). */
export function compileGlobs(globs: readonly string[], opts: { nocase?: boolean } = {}): PathMatcher {
  const positive: Automaton[] = [];
  const negative: Automaton[] = [];
  for (const raw of globs) {
    if (typeof raw !== 'string' || raw === '' || raw.length > MAX_GLOB_LENGTH) continue;
    const neg = raw.startsWith('!') && !raw.startsWith('!(');
    const g = neg ? raw.slice(1) : raw;
    try {
      (neg ? negative : positive).push(new Automaton(globToRe2(g), !!opts.nocase));
    } catch {
      // an expression the automaton cannot read (never expected: it reads all the translation writes)
    }
  }
  if (!positive.length && !negative.length) return () => false;
  return (p: string) => positive.some((a) => a.matches(p)) || negative.some((a) => !a.matches(p));
}

// ---------------------------------------------------------------------------------------------
// The automaton: globToRe2's expression parsed into states (a character test, or empty moves),
// then run over the path's code points with a set of current states (no backtracking).

type CharTest = (c: number) => boolean;
interface State {
  /** Undefined: an empty move to every `out`. */
  test?: CharTest;
  out: number[];
}
type Node =
  | { kind: 'char'; test: CharTest }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; alts: Node[] }
  | { kind: 'star' | 'opt'; node: Node };

const MATCH = 0;

class Automaton {
  private readonly states: State[] = [{ out: [] }]; // states[MATCH]
  private readonly start: number;
  private readonly mark: Uint32Array;
  private generation = 0;

  constructor(expression: string, nocase: boolean) {
    const parser = new ExpressionParser(expression, nocase);
    const node = parser.parse();
    this.start = this.build(node, MATCH);
    this.mark = new Uint32Array(this.states.length);
  }

  matches(path: string): boolean {
    let current = this.closure([this.start]);
    for (const ch of path) {
      const c = ch.codePointAt(0)!;
      const next: number[] = [];
      for (const s of current) {
        const st = this.states[s]!;
        if (st.test?.(c)) next.push(...st.out);
      }
      if (next.length === 0) return false;
      current = this.closure(next);
    }
    return current.includes(MATCH);
  }

  /** The states reachable from `from` by empty moves (the character tests and MATCH among them). */
  private closure(from: number[]): number[] {
    const g = ++this.generation;
    const out: number[] = [];
    const stack = [...from];
    while (stack.length) {
      const s = stack.pop()!;
      if (this.mark[s] === g) continue;
      this.mark[s] = g;
      const st = this.states[s]!;
      if (st.test || s === MATCH) out.push(s);
      else stack.push(...st.out);
    }
    return out;
  }

  /** States for `node` that continue at `next`; returns the first. */
  private build(node: Node, next: number): number {
    switch (node.kind) {
      case 'char':
        return this.add({ test: node.test, out: [next] });
      case 'seq': {
        let s = next;
        for (let i = node.items.length - 1; i >= 0; i--) s = this.build(node.items[i]!, s);
        return s;
      }
      case 'alt':
        return this.add({ out: node.alts.map((a) => this.build(a, next)) });
      case 'opt':
        return this.add({ out: [this.build(node.node, next), next] });
      case 'star': {
        const loop = this.add({ out: [] });
        this.states[loop]!.out.push(this.build(node.node, loop), next);
        return loop;
      }
    }
  }

  private add(s: State): number {
    this.states.push(s);
    return this.states.length - 1;
  }
}

/** Reads the RE2 syntax globToRe2 writes; anything else throws. */
class ExpressionParser {
  private i = 0;

  constructor(
    private readonly src: string,
    private readonly nocase: boolean,
  ) {}

  parse(): Node {
    if (!this.src.startsWith('^') || !this.src.endsWith('$')) throw new Error('unanchored');
    this.i = 1;
    const node = this.alternatives();
    if (this.i !== this.src.length - 1) throw new Error(`unexpected ${this.src[this.i]} at ${this.i}`);
    return node;
  }

  private alternatives(): Node {
    const alts = [this.sequence()];
    while (this.src[this.i] === '|') {
      this.i++;
      alts.push(this.sequence());
    }
    return alts.length === 1 ? alts[0]! : { kind: 'alt', alts };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.i < this.src.length - 1 && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      let atom = this.atom();
      const q = this.src[this.i];
      if (q === '*' || q === '?') {
        this.i++;
        atom = { kind: q === '*' ? 'star' : 'opt', node: atom };
      }
      items.push(atom);
    }
    return { kind: 'seq', items };
  }

  private atom(): Node {
    const { src } = this;
    if (src.startsWith('(?:', this.i)) {
      this.i += 3;
      const node = this.alternatives();
      if (src[this.i] !== ')') throw new Error('unclosed group');
      this.i++;
      return node;
    }
    if (src[this.i] === '[') return this.charClass();
    if (src[this.i] === '.') {
      this.i++;
      return { kind: 'char', test: (c) => c !== 0x0a }; // RE2's `.`: any character but a newline
    }
    const c = this.literal();
    return { kind: 'char', test: this.fold((x) => x === c) };
  }

  /** `[…]` or `[^…]`: single characters and ranges, each a literal or `\x{…}`. */
  private charClass(): Node {
    this.i++; // [
    const negate = this.src[this.i] === '^';
    if (negate) this.i++;
    const ranges: [number, number][] = [];
    while (this.src[this.i] !== ']') {
      if (this.i >= this.src.length) throw new Error('unclosed class');
      const lo = this.literal();
      let hi = lo;
      if (this.src[this.i] === '-' && this.src[this.i + 1] !== ']') {
        this.i++;
        hi = this.literal();
      }
      ranges.push([lo, hi]);
    }
    this.i++; // ]
    const inRanges = this.fold((c) => ranges.some(([lo, hi]) => c >= lo && c <= hi));
    return { kind: 'char', test: negate ? (c) => !inRanges(c) : inRanges };
  }

  /** One character: `\x{hex}`, else itself (a code point). */
  private literal(): number {
    const { src } = this;
    if (src.startsWith('\\x{', this.i)) {
      const end = src.indexOf('}', this.i);
      if (end < 0) throw new Error('unclosed escape');
      const c = parseInt(src.slice(this.i + 3, end), 16);
      this.i = end + 1;
      return c;
    }
    if ('\\()|*?[]'.includes(src[this.i]!)) throw new Error(`unexpected ${src[this.i]} at ${this.i}`);
    const c = src.codePointAt(this.i)!;
    this.i += c > 0xffff ? 2 : 1;
    return c;
  }

  /** With nocase, a test also passes for the character's other case (simple case folding). */
  private fold(test: CharTest): CharTest {
    if (!this.nocase) return test;
    return (c) => test(c) || test(otherCase(c, 'lower')) || test(otherCase(c, 'upper'));
  }
}

function otherCase(c: number, to: 'lower' | 'upper'): number {
  const s = String.fromCodePoint(c);
  const t = to === 'lower' ? s.toLowerCase() : s.toUpperCase();
  const d = t.codePointAt(0)!;
  return t.length === (d > 0xffff ? 2 : 1) ? d : c;
}
