// Raise/throw sites in one source file and the message each one raises.
//   Python      raise X("…"), raise X(f"…{v}…"), split over lines, implicit concatenation,
//               "…" + str(v), "…%s" % v, "…{}".format(v), _("…") % v, raise X(message="…"),
//               X("…") built anywhere (return ValueError("…"), fut.set_exception(X("…")))
//   JS / TS     throw new X("…"), throw new X(`…${v}…`), "…" + v; new XError("…") anywhere
//               (factories: const rangeError = (…) => new RangeError('Invalid range: ' + …))
//   Go          errors.New("…"), fmt.Errorf("…%s…", v)  (also errors.Errorf of pkg/errors)
//   Java        throw new X("…" + v), throw new X(String.format("…%s", v))
//   Rust        panic!("…{}…"), bail!("…"), anyhow!("…")
// Placeholders are kept as written in the source: {v} / {v!r} (f-strings), ${v} (templates),
// %s / %q / %d (printf), {} / {name} (Rust). A non-literal operand of a `+` concatenation
// becomes {expr} with the expression's source text (e.g. "Invalid id " + id -> "Invalid id {id}")
// in every language: derivePattern turns all of these into (.+?).
//   Also, for every language that has them (see classes.ts and resolve.ts): messages written in
//   exception classes, class-only sites (`raise queue.Empty`: no message), a local assigned first
//   and raised after (`msg = "…"; raise X(msg)`), and calls of error helpers (`fail("…")`).
import type { ErrorType } from '../record';
import { NOT_AN_ERROR, classLikeName, errorishName, fileClasses } from './classes';
import { type Lang, tokenize } from './lexer';
import { MessageReader } from './message';
import { Resolver, findHelpers, helperCalls } from './resolve';
import { Layout, args, dotted, isId, isP } from './tokens';

export interface RaiseSite {
  /** 1-based line of the raise/throw keyword (Go: the errors.New/fmt.Errorf call; Rust: the macro;
   * a class message: the line that writes it; a helper call: the call). */
  line: number;
  errorClass: string | null;
  errorType: ErrorType;
  message: string;
  /** `class-only` (no message: matched by the class name), `class-message` (written in the class) */
  tags?: string[];
}

export interface SiteOptions {
  /** Python: the module the file is (`configparser`, `email.errors`), to name classes as Python prints them. */
  module?: string | null;
  /** Python: the file is a package's `__init__.py` (relative imports start at the module itself). */
  isPackage?: boolean;
  /** Python: follows names other modules of the tree re-export (`queue.Empty` -> `_queue.Empty`). */
  reexports?: (qualified: string) => string;
}

const PY_MESSAGE_KEYWORDS = ['message', 'msg', 'detail', 'reason', 'description'];
/** Tokens after which `X(…)` is not the construction of an exception object. */
const PY_NOT_CONSTRUCT = new Set(['raise', 'def', 'class', 'import', 'from', 'except', 'as', 'is', 'isinstance']);

/** A Python raise of a class whose message this file does not know (`raise URLError(err)`): another
 * module may write it in the class (urllib/error.py: `'<urlopen error %s>' % self.reason`). */
export interface ClassRaise {
  line: number;
  /** the printed (qualified) class name */
  errorClass: string;
}

export function findRaiseSites(src: string, lang: Lang, opts: SiteOptions = {}): RaiseSite[] {
  return findSites(src, lang, opts).sites;
}

/** The sites of a file, and (Python) the raises whose message may be written in another file's class. */
export function findSites(src: string, lang: Lang, opts: SiteOptions = {}): { sites: RaiseSite[]; classRaises: ClassRaise[] } {
  const toks = tokenize(src, lang);
  const reader = new MessageReader(toks, src, lang);
  const layout = new Layout(src, toks);
  const resolver = new Resolver(toks, lang, layout, reader);
  const classes = fileClasses(toks, lang, layout, reader, resolver.assigned, opts);
  const sites: RaiseSite[] = [];
  /** The message of argument [from, to): its literal text, or what the name it is was assigned. */
  const messageOf = (from: number, to: number): string | undefined => {
    const m = reader.message(from, to);
    if (m !== undefined) return m;
    const [name, next] = dotted(toks, from);
    return name && next === to ? resolver.assigned(from, name) : undefined;
  };
  const classRaises: ClassRaise[] = [];
  const add = (line: number, errorClass: string | null, errorType: ErrorType, from: number, to: number): boolean => {
    const message = messageOf(from, to);
    if (message === undefined || message.trim() === '') return false;
    sites.push({ line, errorClass, errorType, message });
    return true;
  };
  const classOnly = (line: number, written: string, printed: string): void => {
    const last = written.slice(written.lastIndexOf('.') + 1);
    if (NOT_AN_ERROR.has(last) || last.endsWith('Warning') || !classLikeName(written) || classes.withMessage.has(written)) return;
    sites.push({ line, errorClass: printed, errorType: 'exception', message: printed, tags: ['class-only'] });
  };

  for (const m of classes.messages) sites.push({ line: m.line, errorClass: m.errorClass, errorType: 'exception', message: m.message, tags: ['class-message'] });

  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (t.kind !== 'id') continue;
    // member access (x.raise) is not a keyword
    if (isP(toks[i - 1], '.')) continue;
    if (lang === 'python' && t.text === 'raise') {
      const [cls, k] = dotted(toks, i + 1);
      if (!cls) continue;
      const printed = classes.qualify(cls);
      if (!isP(toks[k], '(')) {
        // raise X  /  raise X from e: an exception without a message
        if (k >= toks.length || layout.starts[k] || isId(toks[k], 'from') || isP(toks[k], ';')) {
          classOnly(t.line, cls, printed);
          if (classLikeName(cls)) classRaises.push({ line: t.line, errorClass: printed });
        }
        continue;
      }
      const { ranges } = args(toks, k);
      if (ranges.length === 0) {
        classOnly(t.line, cls, printed);
        if (classLikeName(cls)) classRaises.push({ line: t.line, errorClass: printed });
        continue;
      }
      let chosen: [number, number] | undefined;
      for (const [a, b] of ranges) {
        const kw = isId(toks[a]) && isP(toks[a + 1], '=');
        if (!kw) {
          chosen ??= [a, b];
          break;
        }
        if (PY_MESSAGE_KEYWORDS.includes(toks[a]!.text)) {
          chosen = [a + 2, b];
          break;
        }
      }
      if (!(chosen && add(t.line, printed, 'exception', chosen[0], chosen[1])) && classLikeName(cls)) classRaises.push({ line: t.line, errorClass: printed });
    } else if (lang === 'python' && !PY_NOT_CONSTRUCT.has(toks[i - 1]?.text ?? '') && !isP(toks[i - 1], '@')) {
      // X("…") built without raise: return ValueError("…"), self._exc = TimeoutError("…")
      // (cheap test first: the dotted name's last part must read as a class, and a call follow)
      let e = i;
      while (isP(toks[e + 1], '.') && isId(toks[e + 2])) e += 2;
      if (!isP(toks[e + 1], '(') || !/^[A-Z]/.test(toks[e]!.text)) {
        i = e;
        continue;
      }
      const [cls, k] = dotted(toks, i);
      if (!isP(toks[k], '(') || !(errorishName(cls) || classes.errorClasses.has(cls)) || !classLikeName(cls)) continue;
      const { ranges } = args(toks, k);
      const pos = ranges.find(([a, b]) => !(isId(toks[a]) && isP(toks[a + 1], '=') && b > a + 1));
      const kw = ranges.find(([a]) => isId(toks[a]) && isP(toks[a + 1], '=') && PY_MESSAGE_KEYWORDS.includes(toks[a]!.text));
      const chosen = pos ?? (kw ? ([kw[0] + 2, kw[1]] as [number, number]) : undefined);
      if (chosen && reader.message(chosen[0], chosen[1]) !== undefined) add(t.line, classes.qualify(cls), 'exception', chosen[0], chosen[1]);
      i = k;
    } else if ((lang === 'javascript' || lang === 'java') && t.text === 'new') {
      const thrown = isId(toks[i - 1], 'throw');
      const [cls, k] = dotted(toks, i + 1);
      // Java generics / TS type arguments are rare in throw expressions; require a direct call
      if (!cls || !isP(toks[k], '(')) continue;
      if (!thrown && !(errorishName(cls) || classes.errorClasses.has(cls))) continue;
      const { ranges } = args(toks, k);
      if (ranges.length === 0) {
        if (thrown) classOnly(t.line, cls, cls);
        continue;
      }
      // the first argument that has a string literal (new HttpError(404, `…`) has the status first),
      // else a single name assigned before (const msg = `…`; throw new Error(msg))
      const lit = ranges.find(([a, b]) => reader.message(a, b) !== undefined);
      const chosen = lit ?? ranges.find(([a, b]) => dotted(toks, a)[1] === b);
      if (chosen) add((thrown ? toks[i - 1]! : t).line, cls, 'exception', chosen[0], chosen[1]);
    } else if (lang === 'go' && (t.text === 'errors' || t.text === 'fmt') && isP(toks[i + 1], '.') && isId(toks[i + 2]) && isP(toks[i + 3], '(')) {
      const fn = toks[i + 2]!.text;
      const ok = t.text === 'errors' ? fn === 'New' || fn === 'Errorf' : fn === 'Errorf';
      if (!ok) continue;
      const first = args(toks, i + 3).ranges[0];
      if (first) add(t.line, null, 'error_code', first[0], first[1]);
    } else if (lang === 'rust' && (t.text === 'panic' || t.text === 'bail' || t.text === 'anyhow') && isP(toks[i + 1], '!') && toks[i + 2] && ['(', '[', '{'].includes(toks[i + 2]!.text)) {
      const first = args(toks, i + 2).ranges[0];
      // the message must be the format string itself (bail!(MyError::X) has none)
      if (!first || toks[first[0]]?.kind !== 'str') continue;
      add(t.line, null, t.text === 'panic' ? 'panic' : 'error_code', first[0], first[0] + 1);
    }
  }

  for (const c of helperCalls(toks, lang, reader, resolver, findHelpers(toks, lang, layout, reader))) {
    sites.push({ line: toks[c.at]!.line, errorClass: c.helper.errorClass === null ? null : classes.qualify(c.helper.errorClass), errorType: 'exception', message: c.message });
  }
  return { sites, classRaises };
}
