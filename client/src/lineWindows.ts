// Which lines of a document get decorations (no `vscode` import; unit-tested).

/** Documents up to this many lines (and FULL_MAX_CHARS characters) are decorated whole. */
export const FULL_MAX_LINES = 20_000;
export const FULL_MAX_CHARS = 4 * 1024 * 1024;
/** Around each visible range of a large document, this many lines are decorated too. */
export const MARGIN_LINES = 200;

/** Inclusive line windows: every line of a small document, else each visible range widened by
 * MARGIN_LINES (clamped to the document), merged where they touch. */
export function decorationWindows(lineCount: number, chars: number, visible: readonly { start: number; end: number }[]): [number, number][] {
  if (lineCount <= 0) return [];
  if (lineCount <= FULL_MAX_LINES && chars <= FULL_MAX_CHARS) return [[0, lineCount - 1]];
  const wins = visible
    .map((r) => [Math.max(0, r.start - MARGIN_LINES), Math.min(lineCount - 1, r.end + MARGIN_LINES)] as [number, number])
    .sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const w of wins) {
    const last = out[out.length - 1];
    if (last && w[0] <= last[1] + 1) last[1] = Math.max(last[1], w[1]);
    else out.push(w);
  }
  return out;
}
