// ANSI/VT text for people: SGR styles (colours, bold, ...) as styled spans of a line, the escape
// sequences to hide, and terminal output as plain text. Pure: strings in, plain objects out. The
// sequence grammar is text.ts's escapeLength (the one the matcher's views use), so what the editor
// hides is exactly what the server strips before matching.
import { escapeLength } from './text';

/** A colour: one of the 256 palette entries (0-15: the theme's ANSI colours) or a 24-bit colour. */
export type AnsiColor = { kind: 'palette'; index: number } | { kind: 'rgb'; hex: string };

/** Graphic rendition state. Absent fields are the defaults (default colours, normal weight, ...). */
export interface SgrStyle {
  fg?: AnsiColor;
  bg?: AnsiColor;
  bold?: true;
  dim?: true;
  italic?: true;
  underline?: true;
  inverse?: true;
  strikethrough?: true;
}

/** Text of a line drawn with one non-default style: UTF-16 offsets, end exclusive. */
export interface StyledSpan {
  start: number;
  end: number;
  style: SgrStyle;
}

export interface AnsiLine {
  /** Visible text with a non-default style, left to right, never overlapping escapes. */
  spans: StyledSpan[];
  /** Escape sequences (any kind, not only SGR): the characters to hide. */
  escapes: { start: number; end: number }[];
  /** The style in force at the end of the line (SGR state carries over to the next line). */
  state: SgrStyle;
}

const ESC = 0x1b;

function isDefault(s: SgrStyle): boolean {
  for (const _ in s) return false;
  return true;
}

/** A stable key for a style (equal styles, equal keys): what the editor caches decorations by. */
export function styleKey(s: SgrStyle): string {
  const c = (x: AnsiColor | undefined): string => (x === undefined ? '' : x.kind === 'palette' ? String(x.index) : x.hex);
  return [c(s.fg), c(s.bg), s.bold ? 'b' : '', s.dim ? 'd' : '', s.italic ? 'i' : '', s.underline ? 'u' : '', s.inverse ? 'r' : '', s.strikethrough ? 's' : ''].join('|');
}

const hex2 = (n: number): string => n.toString(16).padStart(2, '0');

/** The xterm 256-colour palette entry 16-255 as #rrggbb (0-15 belong to the theme). */
export function xterm256Hex(index: number): string {
  if (index < 16 || index > 255 || !Number.isInteger(index)) throw new RangeError(`not an xterm cube/grey index: ${index}`);
  if (index >= 232) {
    const v = 8 + (index - 232) * 10;
    return `#${hex2(v)}${hex2(v)}${hex2(v)}`;
  }
  const i = index - 16;
  const level = (n: number): number => (n === 0 ? 0 : 55 + n * 40);
  return `#${hex2(level(Math.floor(i / 36)))}${hex2(level(Math.floor(i / 6) % 6))}${hex2(level(i % 6))}`;
}

/**
 * One extended colour (38/48/58) starting at params[i] (the 38 itself): `5;n` (palette) or
 * `2;r;g;b`; the colon form `38:2::r:g:b` (with a colour-space id) arrives as sub-parameters.
 * Returns the colour (undefined when malformed) and how many parameters it used.
 */
function extendedColor(params: number[][], i: number): { color: AnsiColor | undefined; used: number } {
  const head = params[i]!;
  if (head.length > 1) {
    // colon form: everything is in this one parameter
    const mode = head[1];
    if (mode === 5 && head.length >= 3) return { color: palette(head[2]!), used: 1 };
    if (mode === 2 && head.length >= 5) {
      const rgb = head.length >= 6 ? head.slice(3, 6) : head.slice(2, 5);
      return { color: rgbColor(rgb), used: 1 };
    }
    return { color: undefined, used: 1 };
  }
  const mode = params[i + 1]?.[0];
  if (mode === 5) return { color: palette(params[i + 2]?.[0]), used: 3 };
  if (mode === 2) return { color: rgbColor([params[i + 2]?.[0], params[i + 3]?.[0], params[i + 4]?.[0]]), used: 5 };
  return { color: undefined, used: params.length - i }; // unknown mode: the rest is its arguments
}

function palette(n: number | undefined): AnsiColor | undefined {
  return n !== undefined && n >= 0 && n <= 255 ? { kind: 'palette', index: n } : undefined;
}

function rgbColor(parts: (number | undefined)[]): AnsiColor | undefined {
  if (parts.length !== 3 || parts.some((p) => p === undefined || !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  return { kind: 'rgb', hex: `#${parts.map((p) => hex2(p!)).join('')}` };
}

/**
 * Applies the parameters of one SGR sequence (`ESC [ params m`, e.g. "1;31", "38;5;208", "" = reset)
 * to `style`; returns the new style (the input is not changed). Unknown codes are ignored.
 */
export function applySgr(paramText: string, style: SgrStyle): SgrStyle {
  const s: SgrStyle = { ...style };
  // "1;38:2::255:0:0" -> [[1], [38, 2, NaN, 255, 0, 0]]; empty parameters are 0 (colon-form
  // sub-parameters may be empty: the colour-space id)
  const params = paramText.split(';').map((p) => p.split(':').map((x, k) => (x === '' ? (k === 0 ? 0 : NaN) : Number(x))));
  for (let i = 0; i < params.length; i++) {
    const code = params[i]![0]!;
    if (code === 0) {
      for (const k of Object.keys(s) as (keyof SgrStyle)[]) delete s[k];
    } else if (code === 1) s.bold = true;
    else if (code === 2) s.dim = true;
    else if (code === 3) s.italic = true;
    else if (code === 4) {
      if (params[i]![1] === 0) delete s.underline;
      else s.underline = true;
    } else if (code === 7) s.inverse = true;
    else if (code === 9) s.strikethrough = true;
    else if (code === 21) s.underline = true; // doubly underlined
    else if (code === 22) {
      delete s.bold;
      delete s.dim;
    } else if (code === 23) delete s.italic;
    else if (code === 24) delete s.underline;
    else if (code === 27) delete s.inverse;
    else if (code === 29) delete s.strikethrough;
    else if (code >= 30 && code <= 37) s.fg = { kind: 'palette', index: code - 30 };
    else if (code === 39) delete s.fg;
    else if (code >= 40 && code <= 47) s.bg = { kind: 'palette', index: code - 40 };
    else if (code === 49) delete s.bg;
    else if (code >= 90 && code <= 97) s.fg = { kind: 'palette', index: code - 90 + 8 };
    else if (code >= 100 && code <= 107) s.bg = { kind: 'palette', index: code - 100 + 8 };
    else if (code === 38 || code === 48 || code === 58) {
      const { color, used } = extendedColor(params, i);
      if (code === 38 && color) s.fg = color;
      else if (code === 48 && color) s.bg = color;
      // 58 (underline colour) is parsed only to skip its arguments
      i += used - 1;
    }
  }
  return s;
}

/** SGR parameters of the escape at text[p, p+len), or undefined when it is not an SGR sequence. */
function sgrParams(text: string, p: number, len: number): string | undefined {
  if (len < 3 || text.charCodeAt(p + 1) !== 0x5b /* [ */ || text.charCodeAt(p + len - 1) !== 0x6d /* m */) return undefined;
  const params = text.slice(p + 2, p + len - 1);
  return /^[0-9;:]*$/.test(params) ? params : undefined;
}

/**
 * The styled spans and escape sequences of one line. `state` is the style in force where the line
 * starts (the previous line's `state`; default: none). Text outside `spans` has the default style.
 */
export function parseAnsiLine(line: string, state: SgrStyle = {}): AnsiLine {
  const spans: StyledSpan[] = [];
  const escapes: { start: number; end: number }[] = [];
  let style = state;
  let from = 0;
  const flush = (to: number): void => {
    if (to > from && !isDefault(style)) {
      const last = spans[spans.length - 1];
      // adjacent text of the same style (split only by a non-SGR escape) is one span
      if (last && last.end === from && styleKey(last.style) === styleKey(style)) last.end = to;
      else spans.push({ start: from, end: to, style });
    }
  };
  let p = line.indexOf('\x1b');
  while (p >= 0) {
    flush(p);
    const len = escapeLength(line, p);
    const prev = escapes[escapes.length - 1];
    if (prev && prev.end === p) prev.end = p + len;
    else escapes.push({ start: p, end: p + len });
    const params = sgrParams(line, p, len);
    if (params !== undefined) style = applySgr(params, style);
    from = p + len;
    p = line.indexOf('\x1b', from);
  }
  flush(line.length);
  return { spans, escapes, state: style };
}

/** True when the text contains an escape sequence (a quick test before parsing). */
export function hasEscapes(text: string): boolean {
  return text.indexOf('\x1b') >= 0;
}

// 8-bit (C1) introducers that terminals also accept: CSI and the string controls.
const C1_CSI = 0x9b;
const C1_STRINGS = new Set([0x90 /* DCS */, 0x98 /* SOS */, 0x9d /* OSC */, 0x9e /* PM */, 0x9f /* APC */]);

/** Length of the C1 sequence at text[p] (0x9b CSI or a C1 string ended by BEL, ST or ESC \). */
function c1Length(text: string, p: number): number {
  const n = text.length;
  if (text.charCodeAt(p) === C1_CSI) {
    let j = p + 1;
    while (j < n && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x3f) j++;
    while (j < n && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
    if (j < n && text.charCodeAt(j) >= 0x40 && text.charCodeAt(j) <= 0x7e) j++;
    return j - p;
  }
  for (let j = p + 1; j < n; j++) {
    const d = text.charCodeAt(j);
    if (d === 0x07 || d === 0x9c) return j + 1 - p;
    if (d === ESC && text.charCodeAt(j + 1) === 0x5c) return j + 2 - p;
  }
  return n - p;
}

// C0 controls except tab and newline (CR is handled as an overprint first), and DEL.
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/**
 * Terminal output as the plain text a person reads: escape sequences removed (CSI colours and
 * cursor moves, OSC strings such as the shell-integration marks `ESC ] 633 ; C BEL`, DCS/APC
 * strings, two-character escapes, their 8-bit C1 forms), carriage-return overprints resolved per
 * line ("50%\r100%" reads "100%"), other control characters except tab and newline dropped.
 */
export function terminalText(text: string): string {
  let plain = '';
  let last = 0;
  for (let p = 0; p < text.length; p++) {
    const c = text.charCodeAt(p);
    if (c !== ESC && c !== C1_CSI && !C1_STRINGS.has(c)) continue;
    plain += text.slice(last, p);
    const len = c === ESC ? escapeLength(text, p) : c1Length(text, p);
    last = p + len;
    p = last - 1;
  }
  plain += text.slice(last);
  const lines = plain.split('\n').map((line) => {
    const l = line.endsWith('\r') ? line.slice(0, -1) : line;
    const cr = l.lastIndexOf('\r');
    return cr >= 0 ? l.slice(cr + 1) : l;
  });
  return lines.join('\n').replace(CONTROL, '');
}
