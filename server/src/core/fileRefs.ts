// `file:line` references that logs print (where a stack frame or a compiler names a file):
//   Python tracebacks   File "/opt/app/python/pkg/runtime.py", line 1295, in handler
//   JS/TS stack frames  at foo (src/x.ts:10:5)   |   at src/x.ts:10:5
//   compilers, linters  path/to/file.go:12:3     |   path/to/file.rb:7
// Text in, spans out; the language server resolves them to workspace files (state/fileRefResolver.ts).

export interface FileRef {
  /** Span in the line (UTF-16 offsets, end exclusive). */
  start: number;
  end: number;
  file: string;
  /** 1-based, as printed. */
  line: number;
  column?: number;
}

const PYTHON = /File "([^"]+)", line (\d+)/g;
const JS_FRAME = /\bat (?:[^\s()]+ )?\(?((?:[A-Za-z]:)?[^\s():]+):(\d+):(\d+)\)?/g;
const GENERIC = /(?<![\w./\\-])((?:[A-Za-z]:)?[\w.~\\/-]*[\w-]\.[A-Za-z][A-Za-z0-9]{0,9}):(\d+)(?::(\d+))?/g;

export function findFileRefs(line: string): FileRef[] {
  if (line.length > 20_000 || (line.indexOf(':') < 0 && line.indexOf('File "') < 0)) return [];
  const out: FileRef[] = [];
  const overlaps = (s: number, e: number) => out.some((r) => s < r.end && r.start < e);
  for (const m of line.matchAll(PYTHON)) {
    const s = m.index + 6; // after `File "`
    out.push({ start: s, end: m.index + m[0].length, file: m[1]!, line: Number(m[2]) });
  }
  for (const m of line.matchAll(JS_FRAME)) {
    const s = m.index + m[0].indexOf(m[1]!);
    const e = s + m[1]!.length + 1 + m[2]!.length + 1 + m[3]!.length;
    if (!overlaps(s, e)) out.push({ start: s, end: e, file: m[1]!, line: Number(m[2]), column: Number(m[3]) });
  }
  for (const m of line.matchAll(GENERIC)) {
    const s = m.index;
    const e = s + m[0].length;
    if (/^https?$/i.test(m[1]!) || overlaps(s, e)) continue;
    out.push({ start: s, end: e, file: m[1]!, line: Number(m[2]), ...(m[3] ? { column: Number(m[3]) } : {}) });
  }
  return out.sort((a, b) => a.start - b.start);
}
