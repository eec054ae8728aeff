// Glob patterns (errorExplainer.logFiles) matched in linear time.
//
// A glob is translated to an RE2 program (re2js, the engine hand-written messagePatterns run on)
// and matched by RE2's automaton: time linear in the path, whatever the glob. picomatch and
// VS Code's glob compile to backtracking RegExps, where `**/*a*a*a*a*a*a*a*a*a*b` against a
// 60-character name takes minutes.
//
// Syntax (picomatch's, without extglobs): `*` any characters but `/` (dot files included), `?` one
// character but `/`, `**` as a whole segment any number of segments (zero included: `**/x.log`
// matches `x.log`, `a/**` matches `a`), `[abc]` `[a-z]` `[!x]` `[^x]` classes (never `/`),
// `{a,b}` alternatives (nested up to a depth of 8), `\x` a literal x, a leading `!` negates.
// Everything else is literal, extglob characters such as `@(`, `+(` and `!(` included.

import { RE2JS } from 're2js';

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
  const positive: RE2JS[] = [];
  const negative: RE2JS[] = [];
  for (const raw of globs) {
    if (typeof raw !== 'string' || raw === '' || raw.length > MAX_GLOB_LENGTH) continue;
    const neg = raw.startsWith('!') && !raw.startsWith('!(');
    const g = neg ? raw.slice(1) : raw;
    try {
      const re = RE2JS.compile(globToRe2(g), opts.nocase ? RE2JS.CASE_INSENSITIVE : 0);
      (neg ? negative : positive).push(re);
    } catch {
      // a glob RE2 cannot take (never expected: the translation only emits classes, groups, *)
    }
  }
  if (!positive.length && !negative.length) return () => false;
  return (p: string) => positive.some((re) => re.testExact(p)) || negative.some((re) => !re.testExact(p));
}
