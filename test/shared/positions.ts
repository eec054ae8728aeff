// Positions found from the text, never hand-counted: the one rule for every test layer (unit,
// protocol, and the e2e suites, which esbuild bundles with it; no node: or vscode import here).

export interface Pos {
  line: number;
  character: number;
}

/** Offset of the `occurrence`-th `needle` in `text`; throws when there are fewer. */
export function offsetOf(text: string, needle: string, occurrence = 1): number {
  let idx = -1;
  for (let i = 0; i < occurrence; i++) {
    idx = text.indexOf(needle, idx + 1);
    if (idx < 0) throw new Error(`"${needle}" not found`);
  }
  return idx;
}

/** Position of the `occurrence`-th `needle` in `text` (+ `offset` characters); CR, LF and CRLF end lines. */
export function positionOf(text: string, needle: string, offset = 0, occurrence = 1): Pos {
  const idx = offsetOf(text, needle, occurrence) + offset;
  const before = text.slice(0, idx);
  const line = before.split(/\r\n|\r|\n/).length - 1;
  const lineStart = Math.max(before.lastIndexOf('\n'), before.lastIndexOf('\r')) + 1;
  return { line, character: idx - lineStart };
}

/** 0-based index of the first line containing `needle`. */
export function lineOf(text: string, needle: string): number {
  return positionOf(text, needle).line;
}
