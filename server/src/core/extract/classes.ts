// Exception classes defined in a file, and the messages written in them:
//   Python   class NoSectionError(Error):
//                def __init__(self, section):
//                    Error.__init__(self, 'No section: %r' % (section,))     (also super().__init__(…))
//            class IllegalMonthError(ValueError):
//                def __str__(self): return "bad month number %r; must be 1-12" % self.month
//            class InvalidFileException(ValueError):
//                def __init__(self, message="Invalid file"): ValueError.__init__(self, message)
//            class X(Exception): message = "…"               (class attribute default)
//   JS / TS  class X extends Error { constructor(a) { super(`…${a}…`) } }   (also this.message = "…",
//            constructor(message = "…") { super(message) })
//   Java     class X extends Exception { X(String s) { super("…" + s); } }
// Python classes are named as Python prints them: module + qualified name (`configparser.NoSectionError`,
// `calendar.IllegalMonthError`), and names a file imports are resolved through its imports
// (`from _queue import Empty` -> `_queue.Empty`), so raise sites get the printed name too.
import type { Lang, Token } from './lexer';
import type { MessageReader } from './message';
import { type Layout, type Param, args, closing, dotted, findTop, isId, isP, params } from './tokens';

/** Python's built-in exceptions (printed without a module); aliases print as their target. */
const PY_BUILTIN_EXCEPTIONS = new Set(
  (
    'BaseException BaseExceptionGroup GeneratorExit KeyboardInterrupt SystemExit Exception ArithmeticError AssertionError ' +
    'AttributeError BufferError EOFError ExceptionGroup FloatingPointError ImportError ModuleNotFoundError IndexError KeyError ' +
    'LookupError MemoryError NameError NotImplementedError OSError OverflowError RecursionError ReferenceError RuntimeError ' +
    'StopAsyncIteration StopIteration SyntaxError IndentationError TabError SystemError TypeError UnboundLocalError ' +
    'UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError ValueError ZeroDivisionError BlockingIOError ' +
    'BrokenPipeError ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError ' +
    'FileExistsError FileNotFoundError InterruptedError IsADirectoryError NotADirectoryError PermissionError ' +
    'ProcessLookupError TimeoutError EnvironmentError IOError EncodingWarning Warning UserWarning DeprecationWarning ' +
    'PendingDeprecationWarning SyntaxWarning RuntimeWarning FutureWarning ImportWarning UnicodeWarning BytesWarning ResourceWarning'
  ).split(' '),
);
const PY_ALIASES: Record<string, string> = { IOError: 'OSError', EnvironmentError: 'OSError' };

/** Raised for control flow or to exit, not to report an error: no class-only record. */
export const NOT_AN_ERROR = new Set(['StopIteration', 'StopAsyncIteration', 'GeneratorExit', 'KeyboardInterrupt', 'SystemExit']);

const ERRORISH = /(?:Error|Exception|Failure|Fault)$/;

/** A name that reads as an exception class by itself (`ValueError`, `errors.ParseError`, `HttpException`). */
export function errorishName(name: string): boolean {
  const last = name.slice(name.lastIndexOf('.') + 1);
  return ERRORISH.test(last) || last === 'BaseException' || (PY_BUILTIN_EXCEPTIONS.has(last) && !last.endsWith('Warning'));
}

/** A name that looks like a class (CapWords), not a variable (`err`, `exc`, `self._error`, `ERR`). */
export function classLikeName(name: string): boolean {
  const last = name.slice(name.lastIndexOf('.') + 1);
  return /^[A-Z]/.test(last) && /[a-z]/.test(last);
}

export interface ClassMessage {
  line: number;
  errorClass: string;
  message: string;
}

export interface FileClasses {
  /** Exception classes of the file, by the name the file's code uses for them (Python: qualname). */
  errorClasses: Set<string>;
  /** Of those, the ones whose message is written in the class. */
  withMessage: Set<string>;
  messages: ClassMessage[];
  /** The printed / qualified name of a class named `name` in this file's code. */
  qualify(name: string): string;
}

interface Ctx {
  toks: Token[];
  lang: Lang;
  layout: Layout;
  reader: MessageReader;
  /** The message an identifier holds at token `at` (an assignment before it), if any. */
  assigned: (at: number, name: string, floor: number) => string | undefined;
}

// ---------------------------------------------------------------------------------------------
// Python

interface PyImports {
  /** local name -> dotted target (`Empty` -> `_queue.Empty`, `errors` -> `email.errors`) */
  names: Map<string, string>;
}

function pyImports(toks: Token[], layout: Layout, module: string | null, isPackage: boolean): PyImports {
  const names = new Map<string, string>();
  const pkgParts = module ? module.split('.') : [];
  if (module && !isPackage) pkgParts.pop();
  const bind = (local: string, target: string): void => {
    if (!names.has(local)) names.set(local, target);
  };
  for (let k = 0; k < toks.length; k++) {
    if (!layout.starts[k]) continue;
    if (isId(toks[k], 'import')) {
      const end = layout.lineEnd(k);
      let j = k + 1;
      while (j < end) {
        const [name, next] = dotted(toks, j);
        if (!name) break;
        if (isId(toks[next], 'as') && isId(toks[next + 1])) {
          bind(toks[next + 1]!.text, name);
          j = next + 2;
        } else {
          bind(name.split('.')[0]!, name.split('.')[0]!);
          j = next;
        }
        if (!isP(toks[j], ',')) break;
        j++;
      }
    } else if (isId(toks[k], 'from')) {
      const end = layout.lineEnd(k);
      let j = k + 1;
      let dots = 0;
      while (isP(toks[j], '.') || isP(toks[j], '...')) dots += toks[j++]!.text.length;
      const [from, next] = isId(toks[j], 'import') ? ['', j] : dotted(toks, j);
      j = next;
      if (!isId(toks[j], 'import')) continue;
      let base = from;
      if (dots > 0) {
        if (!module) continue;
        const up = pkgParts.slice(0, pkgParts.length - (dots - 1));
        if (up.length === 0 && dots > 1) continue;
        base = [...up, ...(from ? [from] : [])].join('.');
      }
      if (!base) continue;
      j++;
      if (isP(toks[j], '(')) j++;
      while (j < end && isId(toks[j])) {
        const orig = toks[j]!.text;
        j++;
        let local = orig;
        if (isId(toks[j], 'as') && isId(toks[j + 1])) {
          local = toks[j + 1]!.text;
          j += 2;
        }
        if (orig !== '*') bind(local, `${base}.${orig}`);
        if (!isP(toks[j], ',')) break;
        j++;
      }
    }
  }
  return { names };
}

/** The message a Python expression holds: a literal-bearing expression, or a parameter's string
 * default, or what a local (or self.x) was assigned before `at`. */
function pyArgMessage(ctx: Ctx, a: number, b: number, ps: Param[], floor: number): string | undefined {
  const m = ctx.reader.message(a, b);
  if (m !== undefined) return m;
  const [name, next] = dotted(ctx.toks, a);
  if (!name || next !== b) return undefined;
  const p = ps.find((x) => x.name === name && x.default);
  if (p?.default) {
    const d = ctx.reader.message(p.default[0], p.default[1]);
    if (d !== undefined) return d;
  }
  return ctx.assigned(a, name, floor);
}

/** The positional arguments of a call whose `(` is at `open`, without the first `skip`. */
function positionals(toks: Token[], open: number, skip: number): [number, number][] {
  return args(toks, open).ranges.filter(([a, b]) => !(isId(toks[a]) && isP(toks[a + 1], '=') && b > a + 1)).slice(skip);
}

/** Messages written in a Python class body [from, to): what __str__ returns (every return with a
 * literal), else what __init__ passes to the base class, else a class attribute. */
function pyClassMessages(ctx: Ctx, from: number, to: number): { line: number; message: string }[] {
  const { toks, layout } = ctx;
  let bodyCol = -1;
  for (let j = from; j < to; j++)
    if (layout.starts[j]) {
      bodyCol = layout.col[j]!;
      break;
    }
  const defs = new Map<string, { open: number; body: [number, number] }>();
  let strAlias: string | undefined;
  let attr: { line: number; message: string } | undefined;
  for (let j = from; j < to; j++) {
    if (!layout.starts[j] || layout.col[j] !== bodyCol) continue;
    if (isId(toks[j], 'def') && isId(toks[j + 1]) && isP(toks[j + 2], '(')) {
      const name = toks[j + 1]!.text;
      const close = closing(toks, j + 2);
      let colon = close + 1;
      while (colon < to && !isP(toks[colon], ':')) colon++;
      if (!defs.has(name)) defs.set(name, { open: j + 2, body: [colon + 1, Math.min(to, layout.blockEnd(j))] });
    } else if (isId(toks[j]) && isP(toks[j + 1], '=') && !isP(toks[j + 2], '=')) {
      const name = toks[j]!.text;
      const end = Math.min(to, layout.lineEnd(j));
      if (name === '__str__' && isId(toks[j + 2]) && j + 3 === end) strAlias = toks[j + 2]!.text;
      else if (/^(?:message|msg|default_message|default_msg|default_detail|error_message|description)$/.test(name) && !attr) {
        const m = ctx.reader.message(j + 2, end);
        if (m !== undefined) attr = { line: toks[j]!.line, message: m };
      }
    }
  }
  // __str__ decides what is printed; then the message the constructor passes up; then an attribute
  const out: { line: number; message: string }[] = [];
  const str = defs.get('__str__') ?? (strAlias ? defs.get(strAlias) : undefined);
  if (str) {
    const [a, b] = str.body;
    const ps = params(toks, str.open);
    for (let j = a; j < b; j++) {
      if (!isId(toks[j], 'return')) continue;
      const m = pyArgMessage(ctx, j + 1, Math.min(b, layout.lineEnd(j)), ps, a);
      if (m !== undefined && m.trim() !== '') out.push({ line: toks[j]!.line, message: m });
    }
    if (out.length) return out;
  }
  const init = defs.get('__init__');
  if (init) {
    const [a, b] = init.body;
    const ps = params(toks, init.open);
    for (let j = a; j < b; j++) {
      // super().__init__(msg, …) / super(X, self).__init__(msg) / Base.__init__(self, msg, …)
      if (!(isId(toks[j], '__init__') && isP(toks[j - 1], '.') && isP(toks[j + 1], '('))) continue;
      const viaSuper = isP(toks[j - 2], ')') && isId(toks[closingBack(toks, j - 2) - 1], 'super');
      // the first argument that holds a message: InterpolationError.__init__(self, option, section, msg)
      for (const [x, y] of positionals(toks, j + 1, viaSuper ? 0 : 1)) {
        const m = pyArgMessage(ctx, x, y, ps, a);
        if (m === undefined || m.trim() === '') continue;
        out.push({ line: toks[j]!.line, message: m });
        break;
      }
    }
    if (out.length) return out;
  }
  return attr && attr.message.trim() !== '' ? [attr] : [];
}

/** Index of the `(` matching the `)` at `close`. */
function closingBack(toks: Token[], close: number): number {
  let depth = 0;
  for (let k = close; k >= 0; k--) {
    const t = toks[k]!;
    if (t.kind !== 'punct') continue;
    if (t.text === ')' || t.text === ']' || t.text === '}') depth++;
    else if (t.text === '(' || t.text === '[' || t.text === '{') {
      depth--;
      if (depth === 0) return k;
    }
  }
  return 0;
}

function pythonClasses(ctx: Ctx, module: string | null, isPackage: boolean, reexports: ((name: string) => string) | undefined): FileClasses {
  const { toks, layout } = ctx;
  const imports = pyImports(toks, layout, module, isPackage);
  interface Def {
    k: number;
    qual: string;
    bases: string[];
    body: [number, number];
  }
  const classes: Def[] = [];
  // enclosing classes and functions, for __qualname__ (`Outer.Inner`, `f.<locals>.X`)
  const stack: { col: number; end: number; name: string; fn: boolean }[] = [];
  for (let k = 0; k < toks.length; k++) {
    if (!layout.starts[k]) continue;
    while (stack.length && k >= stack[stack.length - 1]!.end) stack.pop();
    let kk = k;
    if (isId(toks[kk], 'async')) kk++;
    const kw = toks[kk];
    if (!(isId(kw, 'class') || isId(kw, 'def')) || !isId(toks[kk + 1])) continue;
    const name = toks[kk + 1]!.text;
    const end = layout.blockEnd(k);
    const prefix = stack.map((s) => (s.fn ? `${s.name}.<locals>` : s.name)).join('.');
    const qual = prefix ? `${prefix}.${name}` : name;
    if (kw!.text === 'class') {
      const bases: string[] = [];
      let colon = kk + 2;
      if (isP(toks[kk + 2], '(')) {
        for (const [a, b] of args(toks, kk + 2).ranges) {
          const [base, next] = dotted(toks, a);
          if (base && next === b) bases.push(base);
        }
        colon = closing(toks, kk + 2) + 1;
      }
      classes.push({ k: kk, qual, bases, body: [colon + 1, end] });
    }
    stack.push({ col: layout.col[k]!, end, name, fn: kw!.text === 'def' });
  }
  const local = new Map(classes.map((c) => [c.qual, c]));
  const topLevel = new Set(classes.filter((c) => !c.qual.includes('.')).map((c) => c.qual));
  const qualify = (name: string): string => {
    const q = qualifyHere(name);
    return reexports ? reexports(q) : q;
  };
  const qualifyHere = (name: string): string => {
    const parts = name.split('.');
    const head = parts[0]!;
    const imported = imports.names.get(head);
    if (imported) return [imported, ...parts.slice(1)].join('.');
    if (local.has(name) && (parts.length > 1 || topLevel.has(name))) return module ? `${module}.${name}` : name;
    if (parts.length === 1 && PY_BUILTIN_EXCEPTIONS.has(name)) return PY_ALIASES[name] ?? name;
    return name;
  };
  // exception classes: an error-ish base, or a base that is one of the file's exception classes
  const errorClasses = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const c of classes) {
      if (errorClasses.has(c.qual)) continue;
      if (c.bases.some((b) => b.endsWith('Warning'))) continue;
      if (c.bases.some((b) => errorishName(b) || errorClasses.has(b))) {
        errorClasses.add(c.qual);
        changed = true;
      }
    }
  }
  const messages: ClassMessage[] = [];
  const withMessage = new Set<string>();
  for (const c of classes) {
    if (!errorClasses.has(c.qual)) continue;
    const ms = pyClassMessages(ctx, c.body[0], c.body[1]);
    if (!ms.length) continue;
    withMessage.add(c.qual);
    for (const m of ms) messages.push({ line: m.line, errorClass: module ? `${module}.${c.qual}` : c.qual, message: m.message });
  }
  return { errorClasses, withMessage, messages, qualify };
}

// ---------------------------------------------------------------------------------------------
// JavaScript / TypeScript / Java

function braceClasses(ctx: Ctx): FileClasses {
  const { toks } = ctx;
  interface Def {
    name: string;
    base: string;
    body: [number, number];
  }
  const classes: Def[] = [];
  for (let k = 0; k < toks.length; k++) {
    if (!isId(toks[k], 'class') || isP(toks[k - 1], '.') || !isId(toks[k + 1])) continue;
    const name = toks[k + 1]!.text;
    let j = k + 2;
    let base = '';
    // class X<T> extends Base<T> implements I {
    for (let n = 0; j < toks.length && n < 200 && !isP(toks[j], '{'); j++, n++) {
      if (isId(toks[j], 'extends') && !base) base = dotted(toks, j + 1)[0];
      if (isP(toks[j], ';') || isP(toks[j], '(')) break;
    }
    if (!isP(toks[j], '{')) continue;
    classes.push({ name, base, body: [j + 1, closing(toks, j)] });
  }
  const errorClasses = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const c of classes) {
      if (errorClasses.has(c.name) || !c.base) continue;
      if (errorishName(c.base) || errorClasses.has(c.base.slice(c.base.lastIndexOf('.') + 1))) {
        errorClasses.add(c.name);
        changed = true;
      }
    }
  }
  const messages: ClassMessage[] = [];
  const withMessage = new Set<string>();
  for (const c of classes) {
    if (!errorClasses.has(c.name)) continue;
    const m = braceClassMessage(ctx, c.name, c.body[0], c.body[1]);
    if (!m) continue;
    withMessage.add(c.name);
    messages.push({ line: m.line, errorClass: c.name, message: m.message });
  }
  return { errorClasses, withMessage, messages, qualify: (n) => n };
}

/** The constructor (JS `constructor(…)`, Java `Name(…)`) whose body holds token `at`: its parameters. */
function enclosingCtorParams(toks: Token[], name: string, from: number, at: number): { params: Param[]; body: number } | undefined {
  let best: { params: Param[]; body: number } | undefined;
  for (let j = from; j < at; j++) {
    if (!(isId(toks[j], 'constructor') || isId(toks[j], name)) || !isP(toks[j + 1], '(') || isP(toks[j - 1], '.') || isId(toks[j - 1], 'new')) continue;
    const close = closing(toks, j + 1);
    let open = close + 1;
    while (open < at && open < close + 40 && !isP(toks[open], '{') && !isP(toks[open], ';')) open++;
    if (!isP(toks[open], '{')) continue;
    if (closing(toks, open) > at) best = { params: params(toks, j + 1), body: open };
  }
  return best;
}

function braceClassMessage(ctx: Ctx, name: string, from: number, to: number): { line: number; message: string } | undefined {
  const { toks, reader } = ctx;
  let fromThis: { line: number; message: string } | undefined;
  for (let j = from; j < to; j++) {
    if (isId(toks[j], 'super') && isP(toks[j + 1], '(') && !isP(toks[j - 1], '.')) {
      const ranges = args(toks, j + 1).ranges;
      // the first argument with a string (super(404, `…`) has the status first)
      for (const [a, b] of ranges) {
        const m = reader.message(a, b);
        if (m !== undefined && m.trim() !== '') return { line: toks[j]!.line, message: m };
      }
      // super(message) with `constructor(message = "…")`, or a local assigned before
      const first = ranges.find(([a, b]) => b === a + 1 && isId(toks[a]));
      if (first) {
        const ctor = enclosingCtorParams(toks, name, from, j);
        const p = ctor?.params.find((x) => x.name === toks[first[0]]!.text && x.default);
        const d = p?.default ? reader.message(p.default[0], p.default[1]) : undefined;
        if (d !== undefined && d.trim() !== '') return { line: toks[j]!.line, message: d };
        const v = ctx.assigned(first[0], toks[first[0]]!.text, ctor?.body ?? from);
        if (v !== undefined && v.trim() !== '') return { line: toks[j]!.line, message: v };
      }
    } else if (ctx.lang === 'javascript' && !fromThis && isId(toks[j], 'this') && isP(toks[j + 1], '.') && isId(toks[j + 2], 'message') && isP(toks[j + 3], '=')) {
      const end = findStatementEnd(toks, j + 4, to);
      const m = reader.message(j + 4, end);
      if (m !== undefined && m.trim() !== '') fromThis = { line: toks[j]!.line, message: m };
    }
  }
  return fromThis;
}

/** End (exclusive) of a JS/Java expression statement starting at `from`: `;` or `}` at depth 0. */
export function findStatementEnd(toks: Token[], from: number, limit: number): number {
  const semi = findTop(toks, from, limit, ';');
  const brace = findTop(toks, from, limit, '}');
  const ends = [semi, brace].filter((x) => x >= 0);
  return ends.length ? Math.min(...ends) : limit;
}

export interface PythonModuleInfo {
  module?: string | null;
  isPackage?: boolean;
  /** Follows names other modules re-export: `queue.Empty` -> `_queue.Empty` (queue.py imports it). */
  reexports?: (qualified: string) => string;
}

export function fileClasses(toks: Token[], lang: Lang, layout: Layout, reader: MessageReader, assigned: Ctx['assigned'], py: PythonModuleInfo): FileClasses {
  const ctx: Ctx = { toks, lang, layout, reader, assigned };
  if (lang === 'python') return pythonClasses(ctx, py.module ?? null, py.isPackage ?? false, py.reexports);
  if (lang === 'javascript' || lang === 'java') return braceClasses(ctx);
  return { errorClasses: new Set(), withMessage: new Set(), messages: [], qualify: (n) => n };
}

// ---------------------------------------------------------------------------------------------
// Python imports across a tree (for re-exported names)

/** The names a Python file's import statements bind (`from _queue import Empty` -> Empty: _queue.Empty),
 * read line by line (parenthesised and backslash-continued imports included), without the lexer:
 * the cheap first pass of `extract` over a tree. */
export function pyImportBindings(text: string, module: string | null, isPackage: boolean): Map<string, string> {
  const out = new Map<string, string>();
  const pkg = module ? module.split('.') : [];
  if (module && !isPackage) pkg.pop();
  const lines = text.split(/\r\n|\r|\n/);
  const aliases: [string, string][] = [];
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    // a module-level alias of a class: `TimeoutError = TimeoutError` (asyncio.exceptions), `error = Error`
    const al = /^([A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w.]*)\s*(?:#.*)?$/.exec(line);
    if (al && classLikeName(al[1]!) && classLikeName(al[2]!)) aliases.push([al[1]!, al[2]!]);
    const m = /^\s*(from\s+(\.*)([\w.]*)\s+import\s+|import\s+)(.*)$/.exec(line);
    if (!m) continue;
    let rest = m[4]!;
    // continuation: an open parenthesis, or a trailing backslash
    if (rest.includes('(') && !rest.includes(')')) {
      while (i + 1 < lines.length && !rest.includes(')')) rest += ' ' + lines[++i]!;
    }
    while (/\\\s*$/.test(rest) && i + 1 < lines.length) rest = rest.replace(/\\\s*$/, ' ') + lines[++i]!;
    rest = rest.replace(/#.*$/, '').replace(/[()]/g, ' ');
    const items = rest.split(',').map((x) => x.trim().split(/\s+as\s+/));
    if (m[1]!.startsWith('from')) {
      const dots = m[2]!.length;
      let base = m[3]!;
      if (dots > 0) {
        if (!module) continue;
        const up = pkg.slice(0, pkg.length - (dots - 1));
        base = [...up, ...(base ? [base] : [])].join('.');
      }
      if (!base) continue;
      for (const [name, alias] of items) if (name && /^\w+$/.test(name) && (!alias || /^\w+$/.test(alias)) && !out.has(alias ?? name)) out.set(alias ?? name, `${base}.${name}`);
    } else {
      for (const [name, alias] of items) if (name && /^[\w.]+$/.test(name) && alias && /^\w+$/.test(alias) && !out.has(alias)) out.set(alias, name);
    }
    line = '';
  }
  for (const [name, target] of aliases) {
    if (out.has(name)) continue;
    const head = target.split('.')[0]!;
    const imported = out.get(head);
    if (imported) out.set(name, [imported, ...target.split('.').slice(1)].join('.'));
    else if (PY_BUILTIN_EXCEPTIONS.has(target)) out.set(name, PY_ALIASES[target] ?? target);
    else if (module && target !== name) out.set(name, `${module}.${target}`);
  }
  return out;
}

/** Resolve `M.X` through the import bindings of module M, hop by hop (at most 5). */
export function reexportResolver(bindings: Map<string, Map<string, string>>): (qualified: string) => string {
  return (qualified) => {
    let q = qualified;
    for (let hop = 0; hop < 5; hop++) {
      const dot = q.lastIndexOf('.');
      if (dot < 0) return q;
      const target = bindings.get(q.slice(0, dot))?.get(q.slice(dot + 1));
      if (!target || target === q) return q;
      q = target;
    }
    return q;
  };
}
