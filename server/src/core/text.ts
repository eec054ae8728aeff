// Line normalisation for matching. Log and terminal text is dressed up: ANSI colours, OSC
// shell-integration marks (OSC 633), CRLF line ends, JSON-structured log lines whose messages sit
// in escaped string values. A LineView is one text that patterns run on, with a map from its
// offsets back to UTF-16 offsets of the ORIGINAL line.

export interface LineView {
  /** The text patterns are matched against. */
  text: string;
  /** Offset in `text` -> offset in the original line. Pass `isEnd` for an exclusive end offset, so
   * that an end right before removed text (an escape sequence) maps before it, not after it. */
  toOriginal(offset: number, isEnd?: boolean): number;
  /** 'line': the whole line (ANSI stripped, trailing CR removed); 'json': one decoded JSON string value. */
  kind: 'line' | 'json';
  /** True when `text` is a substring of the first view's text (a JSON string value without escapes):
   * whatever occurs in it also occurs in the first view. */
  readonly inBase?: boolean;
}

const LINE_BREAK = /\r\n|\r|\n/;

/** Lines of a text as editors and LSP count them: split at \r\n, \n and a lone \r. (The one
 * line split of documents, the catalog and the CLI; splitting on one character when there is no
 * \r is several times faster than the regex on 50 MB logs.) */
export function splitLines(text: string): string[] {
  return text.indexOf('\r') < 0 ? text.split('\n') : text.split(LINE_BREAK);
}

const ESC = 0x1b;
const BEL = 0x07;

/** Length of the escape sequence starting at `p` (text[p] === ESC). Unterminated strings run to the end.
 * (The one grammar of escape sequences: text views, the terminal-output stripper and the SGR parser in ansi.ts use it.) */
export function escapeLength(text: string, p: number): number {
  return escapeLengthOf((i) => text.charCodeAt(i), p, text.length);
}

/** Runs shorter than this are copied byte by byte: a native copy costs ~35 ns more per call
 * (measured: 4-byte runs 61 against 6 ns, even at ~48 bytes), and a coloured line is runs of a few
 * bytes between escape sequences. */
const NATIVE_COPY_MIN = 48;

/** src[from, to) into dst at `at` (both byte arrays); returns the bytes copied. */
export function copyBytes(src: Uint8Array, from: number, to: number, dst: Uint8Array, at: number): number {
  const n = to - from;
  if (n >= NATIVE_COPY_MIN) dst.set(src.subarray(from, to), at);
  else for (let k = 0; k < n; k++) dst[at + k] = src[from + k]!;
  return n;
}

/** escapeLength over the code units `code(i)` of a text that ends at `n`: UTF-16 units of a string,
 * or the UTF-8 bytes of a line (the grammar is ASCII: a byte of a multi-byte character, >= 0x80, is
 * never part of a sequence, as its character is not). */
export function escapeLengthOf(code: (i: number) => number, p: number, n: number): number {
  if (p + 1 >= n) return 1;
  const c = code(p + 1);
  if (c === 0x5b /* [ */) {
    // CSI: parameters 0x30-0x3F, intermediates 0x20-0x2F, one final byte 0x40-0x7E
    let j = p + 2;
    while (j < n && code(j) >= 0x30 && code(j) <= 0x3f) j++;
    while (j < n && code(j) >= 0x20 && code(j) <= 0x2f) j++;
    if (j < n && code(j) >= 0x40 && code(j) <= 0x7e) j++;
    return j - p;
  }
  if (c === 0x5d /* ] OSC */ || c === 0x50 /* P DCS */ || c === 0x58 /* X SOS */ || c === 0x5e /* ^ PM */ || c === 0x5f /* _ APC */) {
    // string terminated by BEL or ST (ESC \)
    for (let j = p + 2; j < n; j++) {
      const d = code(j);
      if (d === BEL) return j + 1 - p;
      if (d === ESC && j + 1 < n && code(j + 1) === 0x5c) return j + 2 - p;
    }
    return n - p;
  }
  if (c >= 0x20 && c <= 0x2f) {
    // nF: intermediates then a final byte
    let j = p + 1;
    while (j < n && code(j) >= 0x20 && code(j) <= 0x2f) j++;
    if (j < n && code(j) >= 0x30 && code(j) <= 0x7e) j++;
    return j - p;
  }
  if (c >= 0x30 && c <= 0x7e) return 2; // Fp / Fe / Fs: ESC 7, ESC M, ESC c, ...
  return 1;
}

/** The line without escape sequences, with segment starts for mapping offsets back. */
function stripMapped(line: string): { text: string; vStarts: number[]; oStarts: number[] } {
  let out = '';
  const vStarts = [0];
  const oStarts = [0];
  let last = 0;
  let p = line.indexOf('\x1b');
  while (p >= 0) {
    out += line.slice(last, p);
    last = p + escapeLength(line, p);
    vStarts.push(out.length);
    oStarts.push(last);
    p = line.indexOf('\x1b', last);
  }
  out += line.slice(last);
  return { text: out, vStarts, oStarts };
}

/** Remove ANSI/VT escape sequences: CSI (colours, cursor), OSC (incl. OSC 633 marks, ended by BEL
 * or ESC \), DCS/SOS/PM/APC strings and two-character escapes. */
export function stripAnsi(text: string): string {
  return text.indexOf('\x1b') < 0 ? text : stripMapped(text).text;
}

class IdentityView implements LineView {
  readonly kind = 'line' as const;
  constructor(readonly text: string) {}
  toOriginal(offset: number): number {
    return offset;
  }
}

class ShiftView implements LineView {
  constructor(
    readonly text: string,
    private readonly shift: number,
    private readonly base: LineView,
    readonly kind: 'line' | 'json',
    readonly inBase = false,
  ) {}
  toOriginal(offset: number, isEnd?: boolean): number {
    return this.base.toOriginal(offset + this.shift, isEnd);
  }
}

class SegmentView implements LineView {
  readonly kind = 'line' as const;
  constructor(
    readonly text: string,
    private readonly vStarts: number[],
    private readonly oStarts: number[],
  ) {}
  toOriginal(offset: number, isEnd?: boolean): number {
    // last segment whose start is <= offset (< offset for an end, so ends stay before removed text)
    let lo = 0;
    let hi = this.vStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      const v = this.vStarts[mid]!;
      if (v < offset || (v === offset && !isEnd)) lo = mid;
      else hi = mid - 1;
    }
    return this.oStarts[lo]! + (offset - this.vStarts[lo]!);
  }
}

class MappedView implements LineView {
  readonly kind = 'json' as const;
  constructor(
    readonly text: string,
    /** map[i] = offset in the base view of the source of text[i]; map[text.length] = the closing quote. */
    private readonly map: Int32Array,
    private readonly base: LineView,
  ) {}
  toOriginal(offset: number, isEnd?: boolean): number {
    return this.base.toOriginal(this.map[offset]!, isEnd);
  }
}

/** Decode the JSON string body text[from, to) (escapes present); undefined when an escape is invalid. */
function decodeJsonString(text: string, from: number, to: number): { text: string; map: Int32Array } | undefined {
  const map = new Int32Array(to - from + 1);
  let out = '';
  let n = 0;
  let i = from;
  while (i < to) {
    const c = text.charCodeAt(i);
    if (c !== 0x5c) {
      const next = text.indexOf('\\', i);
      const stop = next < 0 || next > to ? to : next;
      out += text.slice(i, stop);
      for (let k = i; k < stop; k++) map[n++] = k;
      i = stop;
      continue;
    }
    const e = text[i + 1];
    let ch: string;
    let len = 2;
    switch (e) {
      case '"': ch = '"'; break;
      case '\\': ch = '\\'; break;
      case '/': ch = '/'; break;
      case 'b': ch = '\b'; break;
      case 'f': ch = '\f'; break;
      case 'n': ch = '\n'; break;
      case 'r': ch = '\r'; break;
      case 't': ch = '\t'; break;
      case 'u': {
        const hex = text.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
        ch = String.fromCharCode(parseInt(hex, 16)); // surrogate halves decode one unit each
        len = 6;
        break;
      }
      default:
        return undefined;
    }
    out += ch;
    map[n++] = i;
    i += len;
  }
  map[n] = to;
  return { text: out, map: n + 1 === map.length ? map : map.subarray(0, n + 1) };
}

/** Decoded string values (not keys) of a JSON object in `base.text`, starting at `from`. */
function jsonValueViews(base: LineView, from: number): LineView[] {
  const t = base.text;
  const n = t.length;
  const views: LineView[] = [];
  let i = from;
  for (;;) {
    const q = t.indexOf('"', i);
    if (q < 0) break;
    let j = q + 1;
    let escaped = false;
    while (j < n) {
      const c = t.charCodeAt(j);
      if (c === 0x22) break;
      if (c === 0x5c) {
        escaped = true;
        j += 2;
      } else j++;
    }
    if (j >= n) break; // unterminated string: not JSON
    let k = j + 1;
    while (k < n && (t.charCodeAt(k) === 0x20 || t.charCodeAt(k) === 0x09)) k++;
    const isKey = t.charCodeAt(k) === 0x3a; /* : */
    if (!isKey && j > q + 1) {
      if (!escaped) views.push(new ShiftView(t.slice(q + 1, j), q + 1, base, 'json', true));
      else {
        const d = decodeJsonString(t, q + 1, j);
        if (d) views.push(new MappedView(d.text, d.map, base));
      }
    }
    i = j + 1;
  }
  return views;
}

/** True when a line needs more than the identity view (escape sequences, CR, a JSON object). */
export function needsViews(line: string): boolean {
  const n = line.length;
  if (n === 0) return false;
  let last = line.charCodeAt(n - 1);
  if (last === 0x0d) return true;
  let e = n - 1;
  while (e > 0 && (last === 0x20 || last === 0x09)) last = line.charCodeAt(--e);
  if (last === 0x7d /* } */ && line.indexOf('{') >= 0) return true;
  return line.indexOf('\x1b') >= 0;
}

/** The first view of a line alone (ANSI stripped, trailing CRs removed): what `lineViews(line)[0]` is,
 * without looking for JSON string values. */
export function baseView(line: string): LineView {
  let base: LineView;
  if (line.indexOf('\x1b') >= 0) {
    const s = stripMapped(line);
    base = new SegmentView(s.text, s.vStarts, s.oStarts);
  } else base = new IdentityView(line);
  const text = base.text;
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x0d) end--;
  if (end === text.length) return base;
  return base instanceof IdentityView ? new IdentityView(text.slice(0, end)) : new ShiftView(text.slice(0, end), 0, base, 'line');
}

/** The views of a line to match: first the whole line (ANSI stripped, trailing CR removed), then,
 * for a JSON-structured line (a `{...}` object, possibly after a prefix), each decoded string value. */
export function lineViews(line: string): LineView[] {
  if (!needsViews(line)) return [new IdentityView(line)];
  let base: LineView;
  if (line.indexOf('\x1b') >= 0) {
    const s = stripMapped(line);
    base = new SegmentView(s.text, s.vStarts, s.oStarts);
  } else base = new IdentityView(line);
  let text = base.text;
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x0d) end--;
  if (end < text.length) {
    text = text.slice(0, end);
    base = base instanceof IdentityView ? new IdentityView(text) : new ShiftView(text, 0, base, 'line');
  }
  const views: LineView[] = [base];
  const trimmed = text.trimEnd();
  const open = text.indexOf('{');
  // one push per view: a JSON line can hold millions of values, more than spread arguments allow
  if (open >= 0 && trimmed.endsWith('}')) for (const v of jsonValueViews(base, open)) views.push(v);
  return views;
}
