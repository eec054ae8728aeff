// A small tokenizer shared by the raise-site finders. It knows each language's comments and
// string literals (which is what matters: a `throw` inside a comment or a quote inside a string
// must not confuse the finders); everything else is identifiers, numbers and punctuation.
//
// String tokens carry `text`: the literal's value with escapes decoded, except that
// interpolations are kept exactly as written (`{expr}` in Python f-strings, `${expr}` in
// JavaScript templates). Python `{{`/`}}` stay as written too (ErrLookup reads them as braces).

export type Lang = 'python' | 'javascript' | 'go' | 'java' | 'rust';

export interface Token {
  kind: 'id' | 'str' | 'num' | 'punct';
  /** identifier / punctuation text; for strings the decoded value (see above) */
  text: string;
  /** 1-based line of the first character */
  line: number;
  start: number;
  end: number;
  /** strings: f-string / template literal (its braces are interpolations) */
  interpolated?: boolean;
}

const ID_START = /[A-Za-z_$\u00c0-\uffff]/;
const ID_PART = /[A-Za-z0-9_$\u00c0-\uffff]/;
const PUNCT3 = ['>>>', '...', '===', '!==', '**=', '<<=', '>>=', '::<'];
const PUNCT2 = ['=>', '==', '!=', '<=', '>=', '&&', '||', '++', '--', '+=', '-=', '*=', '/=', '%=', '::', '->', '**', '<<', '>>', ':=', '?.', '??'];

function decodeEscape(src: string, i: number, lang: Lang): { text: string; next: number } {
  // src[i] === '\\'
  const c = src[i + 1];
  if (c === undefined) return { text: '\\', next: i + 1 };
  switch (c) {
    case 'n':
      return { text: '\n', next: i + 2 };
    case 't':
      return { text: '\t', next: i + 2 };
    case 'r':
      return { text: '\r', next: i + 2 };
    case '0':
      if (!/[0-7]/.test(src[i + 2] ?? '')) return { text: '\0', next: i + 2 };
      break;
    case 'b':
      return { text: '\b', next: i + 2 };
    case 'f':
      return { text: '\f', next: i + 2 };
    case 'v':
      return { text: '\v', next: i + 2 };
    case '\\':
    case '"':
    case "'":
    case '`':
    case '$':
      return { text: c, next: i + 2 };
    case '\n':
      return { text: '', next: i + 2 }; // line continuation
    case '\r':
      return { text: '', next: src[i + 2] === '\n' ? i + 3 : i + 2 };
    case 'x': {
      const h = /^[0-9a-fA-F]{2}/.exec(src.slice(i + 2, i + 4));
      if (h) return { text: String.fromCharCode(parseInt(h[0], 16)), next: i + 4 };
      break;
    }
    case 'u': {
      const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(src.slice(i + 2, i + 10));
      if (braced) {
        const cp = parseInt(braced[1]!, 16);
        if (cp <= 0x10ffff) return { text: String.fromCodePoint(cp), next: i + 2 + braced[0].length };
      }
      const h = /^[0-9a-fA-F]{4}/.exec(src.slice(i + 2, i + 6));
      if (h) return { text: String.fromCharCode(parseInt(h[0], 16)), next: i + 6 };
      break;
    }
  }
  // unknown escape: Python and Go keep the backslash, JavaScript drops it
  return lang === 'javascript' ? { text: c, next: i + 2 } : { text: '\\' + c, next: i + 2 };
}

export class Lexer {
  readonly tokens: Token[] = [];
  private i = 0;
  private line = 1;

  constructor(
    readonly src: string,
    readonly lang: Lang,
    from = 0,
    private readonly one = false,
  ) {
    this.i = from;
    this.run();
  }

  private lineAt(from: number, to: number): void {
    for (let k = from; k < to; k++) if (this.src.charCodeAt(k) === 10) this.line++;
  }

  private push(kind: Token['kind'], text: string, start: number, end: number, line: number, interpolated?: boolean): void {
    const t: Token = { kind, text, line, start, end };
    if (interpolated) t.interpolated = true;
    this.tokens.push(t);
  }

  private prevAllowsRegex(): boolean {
    const p = this.tokens[this.tokens.length - 1];
    if (!p) return true;
    if (p.kind === 'num' || p.kind === 'str') return false;
    if (p.kind === 'id') return ['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await'].includes(p.text);
    return ![')', ']', '}'].includes(p.text);
  }

  private run(): void {
    const { src, lang } = this;
    const n = src.length;
    const hashComment = lang === 'python';
    while (this.i < n) {
      if (this.one && this.tokens.length > 0) return;
      const c = src[this.i]!;
      const start = this.i;
      if (c === '\n') {
        this.line++;
        this.i++;
        continue;
      }
      if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') {
        this.i++;
        continue;
      }
      if (hashComment && c === '#') {
        while (this.i < n && src[this.i] !== '\n') this.i++;
        continue;
      }
      if (!hashComment && c === '/' && src[this.i + 1] === '/') {
        while (this.i < n && src[this.i] !== '\n') this.i++;
        continue;
      }
      if (!hashComment && c === '/' && src[this.i + 1] === '*') {
        const end = src.indexOf('*/', this.i + 2);
        const stop = end < 0 ? n : end + 2;
        this.lineAt(this.i, stop);
        this.i = stop;
        continue;
      }
      if (lang === 'javascript' && c === '/' && this.prevAllowsRegex()) {
        this.skipRegex();
        continue;
      }
      if (lang === 'rust' && c === "'") {
        // char literal or lifetime
        const m = /^'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^'\\\n])'/.exec(src.slice(this.i, this.i + 16));
        if (m) {
          this.push('str', m[0], start, start + m[0].length, this.line);
          this.i += m[0].length;
        } else {
          this.i++; // lifetime tick
        }
        continue;
      }
      if (this.tryString()) continue;
      if (ID_START.test(c)) {
        let j = this.i + 1;
        while (j < n && ID_PART.test(src[j]!)) j++;
        this.push('id', src.slice(this.i, j), start, j, this.line);
        this.i = j;
        continue;
      }
      if (/[0-9]/.test(c)) {
        let j = this.i + 1;
        while (j < n && /[0-9A-Za-z_.]/.test(src[j]!)) j++;
        this.push('num', src.slice(this.i, j), start, j, this.line);
        this.i = j;
        continue;
      }
      const three = src.slice(this.i, this.i + 3);
      const two = src.slice(this.i, this.i + 2);
      const p = PUNCT3.includes(three) ? three : PUNCT2.includes(two) ? two : c;
      this.push('punct', p, start, start + p.length, this.line);
      this.i += p.length;
    }
  }

  private skipRegex(): void {
    const { src } = this;
    let j = this.i + 1;
    let inClass = false;
    while (j < src.length && src[j] !== '\n') {
      const ch = src[j]!;
      if (ch === '\\') j += 2;
      else {
        if (ch === '[') inClass = true;
        else if (ch === ']') inClass = false;
        else if (ch === '/' && !inClass) break;
        j++;
      }
    }
    j++;
    while (j < src.length && /[a-z]/.test(src[j]!)) j++;
    this.push('punct', 'regex', this.i, j, this.line);
    this.i = j;
  }

  /** Recognise a string literal at this.i; pushes a token and returns true. */
  private tryString(): boolean {
    const { src, lang } = this;
    const c = src[this.i]!;
    if (lang === 'python') {
      const m = /^([rRbBuUfF]{0,2})('''|"""|'|")/.exec(src.slice(this.i, this.i + 5));
      if (!m) return false;
      const prefix = m[1]!.toLowerCase();
      if (prefix && !/^(r|u|b|f|br|rb|fr|rf)$/.test(prefix)) return false;
      // a prefix must not be the tail of an identifier (handled: identifiers are consumed whole before)
      this.readQuoted(this.i + m[0].length, m[2]!, { raw: prefix.includes('r'), fstring: prefix.includes('f'), multiline: m[2]!.length === 3 });
      return true;
    }
    if (lang === 'javascript') {
      if (c === '"' || c === "'") {
        this.readQuoted(this.i + 1, c, {});
        return true;
      }
      if (c === '`') {
        this.readTemplate();
        return true;
      }
      return false;
    }
    if (lang === 'go') {
      if (c === '"') {
        this.readQuoted(this.i + 1, c, {});
        return true;
      }
      if (c === '`') {
        this.readQuoted(this.i + 1, '`', { raw: true, multiline: true });
        return true;
      }
      if (c === "'") {
        this.readQuoted(this.i + 1, "'", {});
        return true;
      }
      return false;
    }
    if (lang === 'java') {
      if (src.startsWith('"""', this.i)) {
        this.readQuoted(this.i + 3, '"""', { multiline: true });
        return true;
      }
      if (c === '"' || c === "'") {
        this.readQuoted(this.i + 1, c, {});
        return true;
      }
      return false;
    }
    // rust
    const m = /^(b?)(r(#*))?"/.exec(src.slice(this.i, this.i + 40));
    if (!m) return false;
    if (m[2] !== undefined) {
      const close = '"' + (m[3] ?? '');
      this.readQuoted(this.i + m[0].length, close, { raw: true, multiline: true });
    } else this.readQuoted(this.i + m[0].length, '"', { multiline: true });
    return true;
  }

  private readQuoted(from: number, quote: string, o: { raw?: boolean; fstring?: boolean; multiline?: boolean }): void {
    const { src } = this;
    const start = this.i;
    const line = this.line;
    let j = from;
    let text = '';
    while (j < src.length) {
      if (src.startsWith(quote, j)) {
        j += quote.length;
        break;
      }
      const ch = src[j]!;
      if (ch === '\n' && !o.multiline) break; // unterminated
      if (ch === '\\' && !o.raw) {
        const e = decodeEscape(src, j, this.lang);
        text += e.text;
        j = e.next;
        continue;
      }
      if (ch === '\\' && o.raw && src[j + 1] === quote[0] && quote.length === 1) {
        text += ch + src[j + 1];
        j += 2;
        continue;
      }
      if (o.fstring && ch === '{' && src[j + 1] !== '{') {
        // keep the interpolation as written; its own quotes must not end the string
        const end = this.braceEnd(j, quote);
        text += src.slice(j, end);
        j = end;
        continue;
      }
      if (o.fstring && ch === '{') {
        text += '{{';
        j += 2;
        continue;
      }
      text += ch;
      j++;
    }
    this.lineAt(start, j);
    this.push('str', text, start, j, line, o.fstring);
    this.i = j;
  }

  /** Index past the `}` that closes the interpolation opened at `open` (Python f-string). */
  private braceEnd(open: number, quote: string): number {
    const { src } = this;
    let depth = 0;
    let inner = '';
    for (let k = open; k < src.length; k++) {
      const ch = src[k]!;
      if (inner) {
        if (ch === inner) inner = '';
        continue;
      }
      if ((ch === '"' || ch === "'") && !src.startsWith(quote, k)) inner = ch;
      else if (ch === '{') depth++;
      else if (ch === '}') {
        depth--;
        if (depth === 0) return k + 1;
      } else if (src.startsWith(quote, k) || (ch === '\n' && quote.length === 1)) return k;
    }
    return src.length;
  }

  private readTemplate(): void {
    const { src } = this;
    const start = this.i;
    const line = this.line;
    let j = this.i + 1;
    let text = '';
    while (j < src.length) {
      const ch = src[j]!;
      if (ch === '`') {
        j++;
        break;
      }
      if (ch === '\\') {
        const e = decodeEscape(src, j, 'javascript');
        text += e.text;
        j = e.next;
        continue;
      }
      if (ch === '$' && src[j + 1] === '{') {
        const end = this.jsExprEnd(j + 2);
        text += src.slice(j, end);
        j = end;
        continue;
      }
      text += ch;
      j++;
    }
    this.lineAt(start, j);
    this.push('str', text, start, j, line, true);
    this.i = j;
  }

  /** Index past the `}` closing a template interpolation whose body starts at `from`. */
  private jsExprEnd(from: number): number {
    let depth = 0;
    let k = from;
    const { src } = this;
    while (k < src.length) {
      const ch = src[k]!;
      if (ch === '"' || ch === "'" || ch === '`') {
        // skip a nested literal (string or template) by lexing just that token
        const t = new Lexer(src, 'javascript', k, true).tokens[0];
        k = t ? t.end : k + 1;
        continue;
      }
      if (ch === '{') depth++;
      else if (ch === '}') {
        if (depth === 0) return k + 1;
        depth--;
      }
      k++;
    }
    return src.length;
  }
}

export function tokenize(src: string, lang: Lang): Token[] {
  return new Lexer(src, lang).tokens;
}
