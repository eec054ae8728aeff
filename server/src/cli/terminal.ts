// Text for people at a terminal: colours (SGR) when wanted, wrapping to the terminal's width, and
// the Markdown that core/render writes (headings, emphasis, code spans and fences, quotes, lists,
// tables, links, backslash escapes) turned into terminal text. Pure: strings in, strings out; the
// only escape sequences in the output are the SGR codes added here (record text never contains
// any: core/render strips control characters).

export type ColorMode = 'auto' | 'always' | 'never';
export const COLOR_MODES: readonly ColorMode[] = ['auto', 'always', 'never'];

/** Whether to colour: --color wins; auto = a TTY, no NO_COLOR (https://no-color.org), TERM not dumb; FORCE_COLOR forces. */
export function useColor(mode: ColorMode, stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  if (mode === 'always') return true;
  if (mode === 'never') return false;
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return true;
  return stream.isTTY === true && env['TERM'] !== 'dumb';
}

/** Columns to wrap at: the terminal's width (at most 120 for readability), else COLUMNS, else 80. */
export function terminalWidth(stream: { isTTY?: boolean; columns?: number }, env: Record<string, string | undefined>): number {
  const cols = stream.isTTY && typeof stream.columns === 'number' && stream.columns > 0 ? stream.columns : Number(env['COLUMNS']);
  const w = Number.isFinite(cols) && cols > 0 ? Math.floor(cols) : 80;
  return Math.max(40, Math.min(120, w));
}

export interface Style {
  color: boolean;
  width: number;
}

const SGR = {
  reset: '\u001b[0m',
  bold: '\u001b[1m',
  dim: '\u001b[2m',
  italic: '\u001b[3m',
  underline: '\u001b[4m',
  red: '\u001b[31m',
  green: '\u001b[32m',
  yellow: '\u001b[33m',
  blue: '\u001b[34m',
  magenta: '\u001b[35m',
  cyan: '\u001b[36m',
} as const;
export type Sgr = keyof typeof SGR;

/** `text` in the given styles (nothing added without colour). */
export function paint(style: Pick<Style, 'color'>, text: string, ...codes: Sgr[]): string {
  if (!style.color || !codes.length || !text) return text;
  return codes.map((c) => SGR[c]).join('') + text + SGR.reset;
}

/** Colours of a record severity: critical and error red, warning yellow, info cyan. */
export function severityCodes(severity: string): Sgr[] {
  switch (severity) {
    case 'critical':
      return ['bold', 'red'];
    case 'error':
      return ['red'];
    case 'warning':
      return ['yellow'];
    default:
      return ['cyan'];
  }
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** Display width of text with SGR codes (code points; SGR codes count 0). */
export function visibleLength(text: string): number {
  let n = 0;
  for (const _ of text.replace(ANSI, '')) n++;
  return n;
}

/**
 * Wraps text (SGR codes allowed) at spaces to `width` columns: the first line starts with
 * `first`, the others with `rest`. Words longer than a line are kept whole. Styles stay open
 * across line breaks (they are re-emitted after the indentation).
 */
export function wrap(text: string, width: number, first = '', rest = first): string[] {
  const words = text.split(/ +/).filter((w) => w.length > 0);
  const lines: string[] = [];
  let line = first;
  let len = visibleLength(first);
  let empty = true;
  let open = ''; // SGR codes in effect at the end of `line`
  const track = (w: string) => {
    for (const m of w.matchAll(ANSI)) open = m[0] === SGR.reset ? '' : open + m[0];
  };
  for (const w of words) {
    const wl = visibleLength(w);
    if (!empty && len + 1 + wl > width) {
      lines.push(open ? line + SGR.reset : line);
      line = rest + open;
      len = visibleLength(rest);
      empty = true;
    }
    line += (empty ? '' : ' ') + w;
    len += (empty ? 0 : 1) + wl;
    empty = false;
    track(w);
  }
  lines.push(line);
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Markdown (the subset core/render writes) -> terminal text

const PUNCT = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/**
 * Inline Markdown to styled text: code spans, **bold**, _italic_, [text](href), backslash escapes.
 * A link shows its text; its http(s)/file URL goes to `links` when given (the caller prints it
 * after the paragraph), else right after the text in angle brackets.
 */
export function inline(md: string, style: Style, links?: string[]): string {
  let out = '';
  let bold = false;
  let italic = false;
  /** After a toggle: turning a style on adds its code; turning one off resets and re-adds the others. */
  const restyle = (on: boolean, code: string) => {
    if (!style.color) return;
    out += on ? code : SGR.reset + (bold ? SGR.bold : '') + (italic ? SGR.italic : '');
  };
  const reopen = () => {
    if (style.color && (bold || italic)) out += (bold ? SGR.bold : '') + (italic ? SGR.italic : '');
  };
  let i = 0;
  while (i < md.length) {
    const c = md[i]!;
    if (c === '\\' && i + 1 < md.length && PUNCT.includes(md[i + 1]!)) {
      out += md[i + 1];
      i += 2;
      continue;
    }
    if (c === '`') {
      let n = 0;
      while (md[i + n] === '`') n++;
      const fence = '`'.repeat(n);
      let close = md.indexOf(fence, i + n);
      while (close >= 0 && md[close + n] === '`') close = md.indexOf(fence, close + n + 1);
      if (close < 0) {
        out += fence;
        i += n;
        continue;
      }
      let code = md.slice(i + n, close);
      if (code.length > 2 && code.startsWith(' ') && code.endsWith(' ')) code = code.slice(1, -1);
      out += paint(style, code, 'cyan');
      reopen();
      i = close + n;
      continue;
    }
    if (c === '*' && md[i + 1] === '*') {
      bold = !bold;
      restyle(bold, SGR.bold);
      i += 2;
      continue;
    }
    if (c === '_' && (italic || !/[\p{L}\p{N}]/u.test(md[i - 1] ?? '')) && (!italic || !/[\p{L}\p{N}]/u.test(md[i + 1] ?? ''))) {
      italic = !italic;
      restyle(italic, SGR.italic);
      i++;
      continue;
    }
    if (c === '[') {
      const m = /^\[((?:\\.|`[^`]*`|[^\]\\`])*)\]\(([^()\s]*)(?: "[^"]*")?\)/.exec(md.slice(i));
      if (m) {
        const text = inline(m[1]!, style);
        const href = m[2]!;
        const shown = /^https?:|^file:/i.test(href);
        if (shown && links) links.push(href);
        out += shown && !links ? `${text} ${paint(style, `<${href}>`, 'dim')}` : text;
        reopen();
        i += m[0].length;
        continue;
      }
    }
    out += c;
    i++;
  }
  if (style.color && (bold || italic)) out += SGR.reset;
  return out;
}

/** Markdown written by core/render as terminal text, wrapped to style.width; `indent` before every line. */
export function markdownToTerminal(md: string, style: Style, indent = ''): string {
  const lines = md.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  const width = Math.max(20, style.width - visibleLength(indent));
  const blank = () => {
    if (out.length && out[out.length - 1] !== '') out.push('');
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = /^(`{3,}|~{3,})/.exec(line);
    if (fence) {
      const close = fence[1]!;
      blank();
      i++;
      while (i < lines.length && lines[i] !== close) {
        out.push(`${indent}    ${paint(style, lines[i]!, 'dim')}`.trimEnd());
        i++;
      }
      i++; // closing fence
      blank();
      continue;
    }
    if (!line.trim()) {
      blank();
      i++;
      continue;
    }
    const heading = /^(#{1,6}) (.*)$/.exec(line);
    if (heading) {
      blank();
      const text = inline(heading[2]!, style);
      const level = heading[1]!.length;
      out.push(...wrap(paint(style, text, ...(level <= 3 ? (['bold', 'underline'] as Sgr[]) : (['bold'] as Sgr[]))), width).map((l) => indent + l));
      i++;
      continue;
    }
    if (/^---+$/.test(line.trim())) {
      blank();
      out.push(indent + paint(style, '─'.repeat(Math.min(width, 72)), 'dim'));
      blank();
      i++;
      continue;
    }
    if (line.startsWith('>')) {
      const parts: string[] = [];
      while (i < lines.length && lines[i]!.startsWith('>')) parts.push(lines[i++]!.replace(/^> ?/, ''));
      const text = paint(style, inline(parts.join(' '), style), 'italic');
      out.push(...wrap(text, width, '│ ', '│ ').map((l) => indent + l));
      continue;
    }
    if (line.startsWith('|')) {
      const rows: string[][] = [];
      while (i < lines.length && lines[i]!.startsWith('|')) {
        const cells = splitRow(lines[i++]!);
        if (!cells.every((c) => /^:?-+:?$/.test(c.trim()))) rows.push(cells);
      }
      const [head, ...body] = rows;
      const pairs = head && head.length === 2 && /^capture$/i.test(head[0]!.trim());
      const shown = pairs ? body : rows;
      const widths: number[] = [];
      for (const r of shown) r.forEach((c, k) => (widths[k] = Math.max(widths[k] ?? 0, visibleLength(inline(c.trim(), style)))));
      for (const r of shown) {
        const cells = r.map((c, k) => {
          const t = inline(c.trim(), style);
          return k < r.length - 1 ? t + ' '.repeat(Math.max(0, (widths[k] ?? 0) - visibleLength(t))) : t;
        });
        out.push(indent + '  ' + (pairs ? `${paint(style, cells[0]!, 'bold')} = ${cells.slice(1).join('  ')}` : cells.join('  ')).trimEnd());
      }
      continue;
    }
    const item = /^(\d+[.)]|[-*+]) (.*)$/.exec(line);
    if (item) {
      const marker = /^\d/.test(item[1]!) ? item[1]! : '•';
      const parts = [item[2]!];
      i++;
      while (i < lines.length && /^ {2,}\S/.test(lines[i]!) && !/^(\d+[.)]|[-*+]) /.test(lines[i]!)) parts.push(lines[i++]!.trim());
      const pad = ' '.repeat(visibleLength(marker) + 1);
      out.push(...wrap(inline(parts.join(' '), style), width, `  ${marker} `, `  ${pad}`).map((l) => indent + l));
      continue;
    }
    // a paragraph: until a blank line or another block; its link URLs on lines of their own
    const parts: string[] = [];
    while (i < lines.length && lines[i]!.trim() && !/^(`{3,}|~{3,}|#{1,6} |>|\||---+$|(\d+[.)]|[-*+]) )/.test(lines[i]!)) parts.push(lines[i++]!.trim());
    if (!parts.length) parts.push(lines[i++]!.trim());
    const links: string[] = [];
    out.push(...wrap(inline(parts.join(' '), style, links), width).map((l) => indent + l));
    for (const href of links) out.push(indent + '  ' + paint(style, href, 'dim'));
  }
  while (out.length && out[out.length - 1] === '') out.pop();
  return out.join('\n') + '\n';
}

/** Cells of a Markdown table row (`\|` inside a cell is text). */
function splitRow(row: string): string[] {
  const cells: string[] = [];
  let cur = '';
  const body = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\' && body[i + 1] === '|') {
      cur += '\\|';
      i++;
    } else if (c === '|') {
      cells.push(cur);
      cur = '';
    } else cur += c;
  }
  cells.push(cur);
  return cells;
}
