// Raise/throw sites in one source file and the message each one raises.
//   Python      raise X("…"), raise X(f"…{v}…"), split over lines, implicit concatenation,
//               "…" + str(v), "…%s" % v, "…{}".format(v), raise X(message="…")
//   JS / TS     throw new X("…"), throw new X(`…${v}…`), "…" + v
//   Go          errors.New("…"), fmt.Errorf("…%s…", v)  (also errors.Errorf of pkg/errors)
//   Java        throw new X("…" + v), throw new X(String.format("…%s", v))
//   Rust        panic!("…{}…"), bail!("…"), anyhow!("…")
// Placeholders are kept as written in the source: {v} / {v!r} (f-strings), ${v} (templates),
// %s / %q / %d (printf), {} / {name} (Rust). A non-literal operand of a `+` concatenation
// becomes {expr} with the expression's source text (e.g. "Invalid id " + id -> "Invalid id {id}")
// in every language: derivePattern turns all of these into (.+?).
import type { ErrorType } from '../record';
import { type Lang, type Token, tokenize } from './lexer';

export interface RaiseSite {
  /** 1-based line of the raise/throw keyword (Go: the errors.New/fmt.Errorf call; Rust: the macro). */
  line: number;
  errorClass: string | null;
  errorType: ErrorType;
  message: string;
}

const OPEN: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** Index of the token closing the bracket at `open` (or toks.length). */
function closing(toks: Token[], open: number): number {
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
function args(toks: Token[], open: number): { ranges: [number, number][]; close: number } {
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

function isP(t: Token | undefined, text: string): boolean {
  return t !== undefined && t.kind === 'punct' && t.text === text;
}
function isId(t: Token | undefined, text?: string): boolean {
  return t !== undefined && t.kind === 'id' && (text === undefined || t.text === text);
}

/** Calls whose first argument is the message format: String.format(…), fmt.Sprintf(…), format!(…), util.format(…). */
const FORMAT_CALLS = ['String.format', 'fmt.Sprintf', 'format!', 'util.format', 'MessageFormat.format', 'String.Format'];

class MessageReader {
  constructor(
    private readonly toks: Token[],
    private readonly src: string,
    private readonly lang: Lang,
  ) {}

  /** The message of the expression toks[from, to), or undefined when it has no string literal. */
  message(from: number, to: number): string | undefined {
    const toks = this.toks;
    if (from >= to) return undefined;
    if (isP(toks[from], '(') && closing(toks, from) === to - 1) return this.message(from + 1, to - 1);
    // split at top-level `+`
    const operands: [number, number][] = [];
    let depth = 0;
    let start = from;
    for (let k = from; k < to; k++) {
      const t = toks[k]!;
      if (t.kind !== 'punct') continue;
      if (t.text in OPEN) depth++;
      else if (t.text === ')' || t.text === ']' || t.text === '}') depth--;
      else if (t.text === '+' && depth === 0) {
        operands.push([start, k]);
        start = k + 1;
      }
    }
    operands.push([start, to]);
    let out = '';
    let literal = false;
    for (const [a, b] of operands) {
      const lit = this.literal(a, b);
      if (b === a + 1 && toks[a]!.kind === 'num') {
        out += toks[a]!.text; // a number literal reads as itself
      } else if (lit !== undefined) {
        out += lit;
        literal = true;
      } else {
        out += `{${this.src.slice(toks[a]!.start, toks[b - 1]!.end).replace(/\s+/g, ' ').trim()}}`;
      }
    }
    return literal ? out : undefined;
  }

  /** A literal-bearing operand: strings (implicitly concatenated), "…" % x, "…".format(x), format calls. */
  private literal(a: number, b: number): string | undefined {
    const toks = this.toks;
    if (a >= b) return undefined;
    let k = a;
    let text = '';
    while (k < b && toks[k]!.kind === 'str' && !this.isCharLiteral(toks[k]!)) {
      text += toks[k]!.text;
      k++;
    }
    if (k > a) {
      if (k === b) return text;
      // "…" % args (Python), "…".format(…) / "…".formatted(…) (method on the literal)
      if (isP(toks[k], '%') || isP(toks[k], '.')) return text;
      return undefined;
    }
    if (isP(toks[a], '(') && closing(toks, a) === b - 1) return this.message(a + 1, b - 1);
    // format calls: dotted name (or macro) then (
    let name = '';
    k = a;
    while (k < b && (isId(toks[k]) || isP(toks[k], '.') || isP(toks[k], '::') || isP(toks[k], '!'))) name += toks[k++]!.text;
    if (name && isP(toks[k], '(') && FORMAT_CALLS.some((f) => name === f || name.endsWith('.' + f) || name.endsWith('::' + f))) {
      const { ranges, close } = args(toks, k);
      if (close === b - 1 && ranges[0]) return this.message(ranges[0][0], ranges[0][1]);
    }
    return undefined;
  }

  private isCharLiteral(t: Token): boolean {
    // Rust char literals and Go runes are kept with their quotes
    return (this.lang === 'rust' || this.lang === 'go') && t.text.startsWith("'") && t.text.endsWith("'") && t.text.length <= 12;
  }
}

/** Dotted name ending just before `end` (exclusive), read forwards from `from`: returns [name, next index]. */
function dotted(toks: Token[], from: number): [string, number] {
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

const PY_MESSAGE_KEYWORDS = ['message', 'msg', 'detail', 'reason', 'description'];

export function findRaiseSites(src: string, lang: Lang): RaiseSite[] {
  const toks = tokenize(src, lang);
  const reader = new MessageReader(toks, src, lang);
  const sites: RaiseSite[] = [];
  const add = (line: number, errorClass: string | null, errorType: ErrorType, from: number, to: number): void => {
    const message = reader.message(from, to);
    if (message !== undefined && message.trim() !== '') sites.push({ line, errorClass, errorType, message });
  };

  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (t.kind !== 'id') continue;
    // member access (x.raise) is not a keyword
    if (isP(toks[i - 1], '.')) continue;
    if (lang === 'python' && t.text === 'raise') {
      const [cls, k] = dotted(toks, i + 1);
      if (!cls || !isP(toks[k], '(')) continue;
      const { ranges } = args(toks, k);
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
      if (chosen) add(t.line, cls, 'exception', chosen[0], chosen[1]);
    } else if ((lang === 'javascript' || lang === 'java') && t.text === 'throw' && isId(toks[i + 1], 'new')) {
      const [cls, k] = dotted(toks, i + 2);
      // Java generics / TS type arguments are rare in throw expressions; require a direct call
      if (!cls || !isP(toks[k], '(')) continue;
      // the first argument that has a string literal (new HttpError(404, `…`) has the status first)
      const chosen = args(toks, k).ranges.find(([a, b]) => reader.message(a, b) !== undefined);
      if (chosen) add(t.line, cls, 'exception', chosen[0], chosen[1]);
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
  return sites;
}
