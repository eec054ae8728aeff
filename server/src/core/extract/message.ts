// The message an expression builds, read from its tokens: string literals (implicitly
// concatenated), `+` concatenation (a non-literal operand becomes {expr}), `"…" % args`,
// `"…".format(…)`, format calls (String.format, fmt.Sprintf, util.format, format!) and gettext
// wrappers (`_("…")`, `gettext("…")`), optionally followed by `%` / `.format(…)`.
import type { Lang, Token } from './lexer';
import { OPEN, args, closing, isId, isP } from './tokens';

/** Calls whose first argument is the message format. */
const FORMAT_CALLS = ['String.format', 'fmt.Sprintf', 'format!', 'util.format', 'MessageFormat.format', 'String.Format'];
/** gettext-style wrappers: the first argument is the (translatable) message itself. */
const GETTEXT_CALLS = new Set(['_', 'gettext', 'ngettext', 'N_', 'gettext_lazy', 'ugettext', 'pgettext']);

export class MessageReader {
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
    // `msg || "default"` / `msg ?? "…"` / Python `msg or "…"`: the first alternative with a literal
    const alts = this.alternatives(from, to);
    if (alts.length > 1) {
      for (const [a, b] of alts) {
        const m = this.message(a, b);
        if (m !== undefined) return m;
      }
      return undefined;
    }
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
        out += `{${this.source(a, b)}}`;
      }
    }
    return literal ? out : undefined;
  }

  /** Top-level `||` / `??` (JS) or `or` (Python) alternatives of [from, to). A conditional
   * (`a ? b : c`, `b if a else c`) is left whole. */
  private alternatives(from: number, to: number): [number, number][] {
    const toks = this.toks;
    const out: [number, number][] = [];
    let depth = 0;
    let start = from;
    for (let k = from; k < to; k++) {
      const t = toks[k]!;
      if (t.kind === 'punct') {
        if (t.text in OPEN) depth++;
        else if (t.text === ')' || t.text === ']' || t.text === '}') depth--;
        else if (depth === 0 && t.text === '?') return [[from, to]];
        else if (depth === 0 && (t.text === '||' || t.text === '??') && this.lang !== 'python') {
          out.push([start, k]);
          start = k + 1;
        }
      } else if (depth === 0 && t.kind === 'id' && this.lang === 'python') {
        if (t.text === 'if' || t.text === 'for' || t.text === 'lambda') return [[from, to]];
        if (t.text === 'or') {
          out.push([start, k]);
          start = k + 1;
        }
      }
    }
    out.push([start, to]);
    return out;
  }

  /** The source text of toks[a, b), whitespace collapsed. */
  source(a: number, b: number): string {
    if (a >= b) return '';
    return this.src.slice(this.toks[a]!.start, this.toks[b - 1]!.end).replace(/\s+/g, ' ').trim();
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
      // "…" % args (Python), "…".format(…) / "…".formatted(…) (method on the literal);
      // but ", ".join(names) is the names, not the separator
      if (isP(toks[k], '%')) return text;
      if (isP(toks[k], '.')) return isId(toks[k + 1], 'join') ? undefined : text;
      return undefined;
    }
    if (isP(toks[a], '(') && closing(toks, a) === b - 1) return this.message(a + 1, b - 1);
    // format calls: dotted name (or macro) then (
    let name = '';
    k = a;
    while (k < b && (isId(toks[k]) || isP(toks[k], '.') || isP(toks[k], '::') || isP(toks[k], '!'))) name += toks[k++]!.text;
    if (!name || !isP(toks[k], '(')) return undefined;
    const { ranges, close } = args(toks, k);
    const first = ranges[0];
    if (!first) return undefined;
    if (FORMAT_CALLS.some((f) => name === f || name.endsWith('.' + f) || name.endsWith('::' + f))) {
      if (close === b - 1) return this.message(first[0], first[1]);
      return undefined;
    }
    if (this.lang === 'python' && GETTEXT_CALLS.has(name)) {
      // _("…"), _("…") % args, _("…").format(…)
      if (close === b - 1 || isP(toks[close + 1], '%') || isP(toks[close + 1], '.')) return this.message(first[0], first[1]);
    }
    return undefined;
  }

  private isCharLiteral(t: Token): boolean {
    // Rust char literals and Go runes are kept with their quotes
    return (this.lang === 'rust' || this.lang === 'go') && t.text.startsWith("'") && t.text.endsWith("'") && t.text.length <= 12;
  }
}
