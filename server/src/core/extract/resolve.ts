// Messages that reach a raise through a name:
//  - a local assigned first, then raised or passed on:
//      msg = "unknown format %r" % fmt; raise ValueError(msg)
//      const message = `error: missing required argument '${name}'`; this.error(message, …)
//  - error helpers: functions or methods that raise/throw with one of their parameters (directly or
//    through another helper), called with a literal:
//      function fail(msg) { throw new Error(msg) }   …   fail('config file not found')
//      def _error(self, msg): raise ParseError("line %d: %s" % (self.lineno, msg))   …   self._error("bad indent")
import type { Lang, Token } from './lexer';
import type { MessageReader } from './message';
import { errorishName } from './classes';
import { type Layout, type Param, args, closing, dotted, isId, isP, params } from './tokens';

const JS_NOT_CALLS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'return', 'function', 'typeof', 'await', 'yield', 'new', 'delete', 'void', 'in', 'of', 'super', 'import']);
const METHOD_PREFIX = new Set(['static', 'async', 'get', 'set', 'public', 'private', 'protected', 'override', 'readonly', 'abstract', 'final', 'synchronized']);

/** Lines (and tokens: minified code is one line) an assignment may be above the name's use. */
const ASSIGN_WINDOW_LINES = 40;
const ASSIGN_WINDOW_TOKENS = 1500;

export class Resolver {
  constructor(
    private readonly toks: Token[],
    private readonly lang: Lang,
    private readonly layout: Layout,
    private readonly reader: MessageReader,
  ) {}

  /** The message `name` (`msg`, `self.message`, `this.text`) was assigned before token `at`, in the
   * same function (not before token `floor`). Nearest assignment wins. */
  assigned = (at: number, name: string, floor = 0): string | undefined => {
    const { toks, lang, layout } = this;
    const useLine = toks[at]?.line ?? 0;
    const first = name.split('.')[0]!;
    for (let j = at - 1; j >= floor && j >= at - ASSIGN_WINDOW_TOKENS; j--) {
      const t = toks[j]!;
      if (useLine - t.line > ASSIGN_WINDOW_LINES) return undefined;
      // leaving the function: Python `def`/`class` at a line start, JS/Java a function body's `{`
      if (lang === 'python' && layout.starts[j] && (isId(t, 'def') || isId(t, 'class') || isId(t, 'async'))) return undefined;
      if (lang !== 'python' && isP(t, '{') && layout.partner[j]! > at && this.isFunctionBody(j)) return undefined;
      if (!isId(t, first) || isP(toks[j - 1], '.')) continue;
      const [n, next] = dotted(toks, j);
      if (n !== name) continue;
      // Python `msg: str = …`, TS `const msg: string = …`
      let eq = next;
      if (isP(toks[eq], ':')) {
        const stop = lang === 'python' ? layout.lineEnd(j) : Math.min(toks.length, eq + 30);
        while (eq < stop && !isP(toks[eq], '=')) eq++;
      }
      if (!isP(toks[eq], '=')) continue;
      if (lang === 'python') {
        if (!layout.starts[j]) continue;
        return this.reader.message(eq + 1, layout.lineEnd(j));
      }
      const prev = toks[j - 1];
      const atStatement = !prev || isId(prev, 'const') || isId(prev, 'let') || isId(prev, 'var') || isId(prev, 'final') || isP(prev, ';') || isP(prev, '{') || isP(prev, '}') || (prev.kind === 'id' && lang === 'java');
      if (!atStatement) continue;
      return this.reader.message(eq + 1, this.statementEnd(eq + 1));
    }
    return undefined;
  };

  /** JS/Java: the end (exclusive) of an expression statement starting at `from`. */
  statementEnd(from: number): number {
    const { toks } = this;
    let depth = 0;
    for (let k = from; k < toks.length; k++) {
      const t = toks[k]!;
      if (t.kind === 'punct') {
        if (t.text in { '(': 1, '[': 1, '{': 1 }) depth++;
        else if (t.text === ')' || t.text === ']' || t.text === '}') {
          if (depth === 0) return k;
          depth--;
        } else if (depth === 0 && (t.text === ';' || t.text === ',')) return k;
      }
      // a line break at depth 0 ends the statement unless an operator continues it
      const next = toks[k + 1];
      if (depth === 0 && next && next.line > t.line && !(t.kind === 'punct' && CONTINUES.has(t.text)) && !(next.kind === 'punct' && CONTINUES.has(next.text))) return k + 1;
    }
    return toks.length;
  }

  /** JS/Java: the `{` at `open` starts a function or method body (not an if/for/object block). */
  private isFunctionBody(open: number): boolean {
    const { toks } = this;
    const prev = toks[open - 1];
    if (isP(prev, '=>')) return true;
    let close = open - 1;
    // TS return type / Java throws clause: `f(a): Promise<void> {`, `void f() throws IOException {`
    for (let n = 0; n < 30 && close > 0 && !isP(toks[close], ')'); n++, close--) if (isP(toks[close], ';') || isP(toks[close], '{') || isP(toks[close], '}') || isP(toks[close], '=')) return false;
    if (!isP(toks[close], ')')) return false;
    const k = this.layout.partner[close]!;
    if (k < 0) return false;
    const name = toks[k - 1];
    if (!name) return false;
    if (isId(name, 'function')) return true;
    if (name.kind !== 'id') return false;
    return !['if', 'for', 'while', 'switch', 'catch', 'with'].includes(name.text);
  }
}

const CONTINUES = new Set(['+', '-', '*', '/', '%', '?', ':', '||', '&&', '??', '.', '?.', '=', '(', '[', ',', '+=']);

// ---------------------------------------------------------------------------------------------
// Error helpers

export interface Helper {
  name: string;
  /** called as a method (`this.x(…)`, `self.x(…)`) rather than a plain function */
  method: boolean;
  /** which argument of a call carries the message */
  index: number;
  /** the message with the parameter written `{param}` (or `${param}`) */
  template: string;
  param: string;
  errorClass: string | null;
  /** the helper's own body [from, to): calls inside it are not sites */
  body: [number, number];
}

interface FnDef {
  name: string;
  method: boolean;
  params: Param[];
  /** first call argument that maps to params[0] (a Python method's `self` is not passed) */
  offset: number;
  body: [number, number];
}

function functions(toks: Token[], lang: Lang, layout: Layout): FnDef[] {
  const out: FnDef[] = [];
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k]!;
    if (lang === 'python') {
      if (!(isId(t, 'def') && layout.starts[k] && isId(toks[k + 1]) && isP(toks[k + 2], '('))) continue;
      const ps = params(toks, k + 2);
      const method = ps[0]?.name === 'self' || ps[0]?.name === 'cls';
      const close = closing(toks, k + 2);
      let colon = close + 1;
      while (colon < toks.length && !isP(toks[colon], ':')) colon++;
      out.push({ name: toks[k + 1]!.text, method, params: method ? ps.slice(1) : ps, offset: 0, body: [colon + 1, layout.blockEnd(k)] });
      continue;
    }
    if (lang !== 'javascript') continue;
    // function NAME(…) {
    if (isId(t, 'function') && isId(toks[k + 1]) && isP(toks[k + 2], '(')) {
      const body = bodyAfter(toks, closing(toks, k + 2));
      if (body) out.push({ name: toks[k + 1]!.text, method: false, params: params(toks, k + 2), offset: 0, body });
      continue;
    }
    // const NAME = (…) => …  /  const NAME = function (…) {  /  const NAME = x => …
    if ((isId(t, 'const') || isId(t, 'let') || isId(t, 'var')) && isId(toks[k + 1]) && isP(toks[k + 2], '=')) {
      let j = k + 3;
      if (isId(toks[j], 'async')) j++;
      if (isId(toks[j], 'function')) j++;
      if (isId(toks[j]) && toks[j]!.text !== 'function' && isP(toks[j + 1], '=>')) {
        out.push({ name: toks[k + 1]!.text, method: false, params: [{ name: toks[j]!.text, rest: false }], offset: 0, body: arrowBody(toks, j + 2) });
        continue;
      }
      if (!isP(toks[j], '(')) continue;
      const close = closing(toks, j);
      const ps = params(toks, j);
      if (isP(toks[close + 1], '=>')) out.push({ name: toks[k + 1]!.text, method: false, params: ps, offset: 0, body: arrowBody(toks, close + 2) });
      else {
        const body = bodyAfter(toks, close);
        if (body) out.push({ name: toks[k + 1]!.text, method: false, params: ps, offset: 0, body });
      }
      continue;
    }
    // class methods: NAME(…) {   (after }, ;, { or a modifier)
    if (t.kind === 'id' && !JS_NOT_CALLS.has(t.text) && isP(toks[k + 1], '(') && !isP(toks[k - 1], '.')) {
      const prev = toks[k - 1];
      if (!(prev && (isP(prev, '}') || isP(prev, ';') || isP(prev, '{') || (prev.kind === 'id' && METHOD_PREFIX.has(prev.text))))) continue;
      const body = bodyAfter(toks, closing(toks, k + 1));
      if (body) out.push({ name: t.text, method: true, params: params(toks, k + 1), offset: 0, body });
    }
  }
  return out;
}

/** The `{…}` body right after the `)` at `close` (a TS return type may come between), as [from, to). */
function bodyAfter(toks: Token[], close: number): [number, number] | undefined {
  let j = close + 1;
  if (isP(toks[j], ':')) for (let n = 0; n < 40 && j < toks.length && !isP(toks[j], '{'); n++) j++;
  if (!isP(toks[j], '{')) return undefined;
  return [j + 1, closing(toks, j)];
}

function arrowBody(toks: Token[], from: number): [number, number] {
  if (isP(toks[from], '{')) return [from + 1, closing(toks, from)];
  let depth = 0;
  for (let k = from; k < toks.length; k++) {
    const t = toks[k]!;
    if (t.kind !== 'punct') continue;
    if (t.text in { '(': 1, '[': 1, '{': 1 }) depth++;
    else if (t.text === ')' || t.text === ']' || t.text === '}') {
      if (depth === 0) return [from, k];
      depth--;
    } else if (depth === 0 && (t.text === ';' || t.text === ',')) return [from, k];
  }
  return [from, toks.length];
}

/** A parameter named like a message. Only such a parameter makes an error helper: a function that
 * throws with `name` or `event` in its message validates that value (`hook(event)` throws
 * "Unexpected value for event …"), and its callers' literals are values, not messages. */
const MESSAGE_PARAM = /^(?:msg|message|text|reason|details?|description|desc|what|errmsg)$|msg|message/i;

/** How argument range [a, b) uses a parameter of `ps` as the message: the bare parameter (`{p}`:
 * any name, `new Error(er)` makes `er` the message) or, for a parameter named like a message, a
 * template. `strict`: bare parameters only when named like a message too. */
function paramTemplate(toks: Token[], reader: MessageReader, a: number, b: number, ps: Param[], strict = false): { param: string; template: string } | undefined {
  if (b === a + 1 && isId(toks[a])) {
    const p = ps.find((x) => x.name === toks[a]!.text && !x.rest && (!strict || MESSAGE_PARAM.test(x.name)));
    return p ? { param: p.name, template: `{${p.name}}` } : undefined;
  }
  const m = reader.message(a, b);
  if (m === undefined) return undefined;
  for (const p of ps) {
    if (!p.name || p.rest || !MESSAGE_PARAM.test(p.name)) continue;
    if (m.includes(`{${p.name}}`)) return { param: p.name, template: m };
  }
  return undefined;
}

/** Fill a helper's template with the message of the call's argument. */
export function fillTemplate(h: Helper, arg: string): string {
  return h.template.split(`\${${h.param}}`).join(arg).split(`{${h.param}}`).join(arg);
}

export function findHelpers(toks: Token[], lang: Lang, layout: Layout, reader: MessageReader): Helper[] {
  if (lang !== 'python' && lang !== 'javascript') return [];
  const fns = functions(toks, lang, layout).sort((a, b) => a.body[0] - b.body[0] || b.body[1] - a.body[1]);
  if (!fns.length) return [];
  // the innermost function whose body holds each token (bodies nest or are disjoint)
  const owner = new Int32Array(toks.length).fill(-1);
  const stack: number[] = [];
  let next = 0;
  for (let k = 0; k < toks.length; k++) {
    while (stack.length && k >= fns[stack[stack.length - 1]!]!.body[1]) stack.pop();
    while (next < fns.length && fns[next]!.body[0] <= k) {
      if (k < fns[next]!.body[1]) stack.push(next);
      next++;
      while (stack.length && k >= fns[stack[stack.length - 1]!]!.body[1]) stack.pop();
    }
    if (stack.length) owner[k] = stack[stack.length - 1]!;
  }
  // what raises inside functions: error constructions and calls (of possible helpers)
  const builds: { fn: number; cls: string; open: number }[] = [];
  const calls: { fn: number; name: string; method: boolean; open: number }[] = [];
  for (let j = 0; j < toks.length; j++) {
    const fn = owner[j]!;
    if (fn < 0) continue;
    if (lang === 'python' && isId(toks[j], 'raise')) {
      const [c, k] = dotted(toks, j + 1);
      if (c && isP(toks[k], '(')) builds.push({ fn, cls: c, open: k });
    } else if (lang === 'javascript' && isId(toks[j], 'new')) {
      const [c, k] = dotted(toks, j + 1);
      if (c && errorishName(c) && isP(toks[k], '(')) builds.push({ fn, cls: c, open: k });
    } else if (isId(toks[j]) && isP(toks[j + 1], '(') && !isP(toks[j - 1], '.') && !isId(toks[j - 1], 'def') && !isId(toks[j - 1], 'function')) {
      calls.push({ fn, name: toks[j]!.text, method: false, open: j + 1 });
    } else if ((isId(toks[j], 'this') || isId(toks[j], 'self') || isId(toks[j], 'cls')) && isP(toks[j + 1], '.') && isId(toks[j + 2]) && isP(toks[j + 3], '(')) {
      calls.push({ fn, name: toks[j + 2]!.text, method: true, open: j + 3 });
    }
  }
  const byFn = new Map<number, Helper>();
  const byName = new Map<string, Helper>();
  const key = (name: string, method: boolean): string => (method ? '.' : '') + name;
  const found = (fn: number, use: { param: string; template: string }, template: string, errorClass: string | null): void => {
    const f = fns[fn]!;
    const h: Helper = { name: f.name, method: f.method, index: f.params.findIndex((p) => p.name === use.param), template, param: use.param, errorClass, body: f.body };
    byFn.set(fn, h);
    if (h.index >= 0 && !byName.has(key(h.name, h.method))) byName.set(key(h.name, h.method), h);
  };
  for (const b of builds) {
    if (byFn.has(b.fn)) continue;
    const ranges = args(toks, b.open).ranges.map(([a, end]): [number, number] => (lang === 'python' && isId(toks[a]) && isP(toks[a + 1], '=') ? [a + 2, end] : [a, end]));
    // new CommanderError(exitCode, code, message): the parameter named like a message, else the only one
    const uses = ranges.map(([a, end]) => paramTemplate(toks, reader, a, end, fns[b.fn]!.params));
    const use = uses.find((u) => u && MESSAGE_PARAM.test(u.param)) ?? (uses.filter((u) => u).length === 1 ? uses.find((u) => u) : undefined);
    if (use) found(b.fn, use, use.template, b.cls);
  }
  // a helper that calls a helper with its parameter (commander: missingArgument -> error -> _exit)
  for (let round = 0; round < 4; round++) {
    let added = false;
    for (const c of calls) {
      if (byFn.has(c.fn)) continue;
      const inner = byName.get(key(c.name, c.method));
      if (!inner) continue;
      const r = args(toks, c.open).ranges[inner.index];
      if (!r) continue;
      const use = paramTemplate(toks, reader, r[0], r[1], fns[c.fn]!.params);
      if (!use) continue;
      found(c.fn, use, fillTemplate(inner, use.template), inner.errorClass);
      added = true;
    }
    if (!added) break;
  }
  return [...byName.values()];
}

/** Calls of the helpers with a message (a literal, or a local assigned one) outside their own bodies. */
export function helperCalls(toks: Token[], lang: Lang, reader: MessageReader, resolver: Resolver, helpers: Helper[]): { at: number; helper: Helper; message: string }[] {
  const out: { at: number; helper: Helper; message: string }[] = [];
  if (!helpers.length) return out;
  const fnByName = new Map(helpers.filter((h) => !h.method).map((h) => [h.name, h]));
  const methodByName = new Map(helpers.filter((h) => h.method).map((h) => [h.name, h]));
  const selfName = lang === 'python' ? 'self' : 'this';
  for (let j = 0; j < toks.length; j++) {
    let h: Helper | undefined;
    let open = -1;
    let at = j;
    if (isId(toks[j]) && isP(toks[j + 1], '(') && !isP(toks[j - 1], '.') && !isId(toks[j - 1], 'def') && !isId(toks[j - 1], 'function')) {
      h = fnByName.get(toks[j]!.text);
      open = j + 1;
    } else if ((isId(toks[j], selfName) || (lang === 'python' && isId(toks[j], 'cls'))) && isP(toks[j + 1], '.') && isId(toks[j + 2]) && isP(toks[j + 3], '(')) {
      h = methodByName.get(toks[j + 2]!.text);
      open = j + 3;
      at = j;
    }
    if (!h || (j >= h.body[0] && j < h.body[1])) continue;
    const r = args(toks, open).ranges[h.index];
    if (!r) continue;
    let m = reader.message(r[0], r[1]);
    if (m === undefined) {
      const [name, next] = dotted(toks, r[0]);
      if (name && next === r[1]) m = resolver.assigned(r[0], name);
    }
    if (m === undefined || m.trim() === '') continue;
    out.push({ at, helper: h, message: fillTemplate(h, m) });
  }
  return out;
}
