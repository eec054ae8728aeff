// The document's indentation style when the client did not send formatting options: tabs when
// most indented lines start with a tab, else spaces with the most common indentation step.
export interface Indentation {
  insertSpaces: boolean;
  tabSize: number;
}

const SAMPLE_LINES = 2000;

export function detectIndentation(lines: readonly string[], fallback: Indentation = { insertSpaces: true, tabSize: 4 }): Indentation {
  let tabs = 0;
  let spaces = 0;
  const steps = new Map<number, number>();
  let prev = 0;
  const n = Math.min(lines.length, SAMPLE_LINES);
  for (let i = 0; i < n; i++) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    if (line[0] === '\t') {
      tabs++;
      continue;
    }
    const w = /^ */.exec(line)![0].length;
    if (w > 0) spaces++;
    const step = w - prev;
    if (step >= 2 && step <= 8) steps.set(step, (steps.get(step) ?? 0) + 1);
    prev = w;
  }
  if (tabs === 0 && spaces === 0) return fallback;
  if (tabs > spaces) return { insertSpaces: false, tabSize: fallback.tabSize };
  let best = fallback.tabSize;
  let bestCount = 0;
  for (const [step, count] of steps) {
    if (count > bestCount || (count === bestCount && step < best)) {
      best = step;
      bestCount = count;
    }
  }
  return { insertSpaces: true, tabSize: bestCount ? best : fallback.tabSize };
}

export function leadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}
