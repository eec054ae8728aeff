// `file:line` references that logs print, resolved to workspace files when they exist:
//   Python tracebacks   File "/opt/app/python/pkg/runtime.py", line 1295, in handler
//   JS/TS stack frames  at foo (src/x.ts:10:5)   |   at src/x.ts:10:5
//   compilers, linters  path/to/file.go:12:3     |   path/to/file.rb:7
// A path that does not exist as given is tried as a suffix under each workspace folder (logs
// from another machine print its absolute paths); at least two path components must match.
import * as fs from 'node:fs';
import * as path from 'node:path';

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

/** Resolves printed paths to existing files in the workspace (cached until `clear()`). */
export class FileRefResolver {
  private readonly cache = new Map<string, string | null>();

  constructor(private readonly folders: () => readonly string[]) {}

  clear(): void {
    this.cache.clear();
  }

  resolve(printed: string): string | undefined {
    const hit = this.cache.get(printed);
    if (hit !== undefined) return hit ?? undefined;
    const found = this.lookup(printed);
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(printed, found ?? null);
    return found;
  }

  private lookup(printed: string): string | undefined {
    const folders = this.folders();
    if (folders.length === 0) return undefined;
    if (path.isAbsolute(printed)) {
      if (folders.some((f) => isInside(printed, f)) && isFile(printed)) return printed;
    } else {
      for (const f of folders) {
        const p = path.resolve(f, printed);
        if (isInside(p, f) && isFile(p)) return p;
      }
    }
    // Suffix under a workspace folder: drop leading components, keep at least two.
    const parts = printed.split(/[\\/]+/).filter((p) => p && p !== '.' && p !== '..');
    for (let i = 1; i <= parts.length - 2; i++) {
      const rel = parts.slice(i);
      for (const f of folders) {
        const p = path.join(f, ...rel);
        if (isFile(p)) return p;
      }
    }
    return undefined;
  }
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
