// Where a record's error is raised, read from text: the raise line in a file's lines (the message
// text near the record's lineNumber; local code may have moved), the record's filePath as a safe
// relative path, the records raised in a file (RaisedInIndex), and the absolute paths that stack
// frames print around a log line. No file system: the language server's RaiseSiteResolver
// (server/state/raiseSiteResolver.ts) reads the files and caches the results.
import * as path from 'node:path';
import type { FileRef } from './fileRefs';
import { messageParts } from './pattern';
import type { ErrorRecord } from './record';

/** How far (lines) around a matched log line stack frames are read for its raise site. */
export const FRAME_LINES_BEFORE = 60;
export const FRAME_LINES_AFTER = 40;

/** How far (lines) from lineNumber the message text may have moved. */
export const SEARCH_RADIUS = 100;

/** The longest literal piece of the message (what source code must contain), or ''. */
export function messageFragment(message: string): string {
  let best = '';
  for (const p of messageParts(message)) {
    if (p.kind !== 'literal') continue;
    const t = p.text.trim();
    if (t.length > best.length) best = t;
  }
  return best;
}

/**
 * Finds `fragment` (or, when it is short, the errorClass) near 1-based `lineNumber` in `lines`.
 * Returns the 0-based raise line and text line, or undefined when the text is not near.
 */
export function locateInLines(record: ErrorRecord, lines: readonly string[]): { line: number; textLine: number } | undefined {
  const expected = Math.max(0, (record.lineNumber ?? 1) - 1);
  const fragment = messageFragment(record.errorMessage);
  const needle = fragment.length >= 6 ? fragment : record.errorClass ?? fragment;
  if (!needle) return { line: Math.min(expected, Math.max(0, lines.length - 1)), textLine: expected };
  let found = -1;
  for (let d = 0; d <= SEARCH_RADIUS; d++) {
    for (const i of d === 0 ? [expected] : [expected - d, expected + d]) {
      if (i >= 0 && i < lines.length && lines[i]!.includes(needle)) {
        found = i;
        break;
      }
    }
    if (found >= 0) break;
  }
  if (found < 0) return undefined;
  // Where the text sits relative to the raise line in the record's own source excerpt.
  let offset = 0;
  if (record.sourceCode && record.sourceCodeStart != null && record.lineNumber != null) {
    const src = record.sourceCode.split(/\r\n|\r|\n/);
    const rel = record.lineNumber - record.sourceCodeStart;
    let best = -1;
    for (let k = 0; k < src.length; k++) {
      if (src[k]!.includes(needle) && (best < 0 || Math.abs(k - rel) < Math.abs(best - rel))) best = k;
    }
    if (best >= 0) offset = best - rel;
  }
  const line = Math.max(0, Math.min(found - offset, lines.length - 1));
  return { line, textLine: found };
}

/** A record's filePath as a relative path with forward slashes, or undefined when it is absolute or climbs out (`..`). */
export function relativeFilePath(filePath: string): string | undefined {
  const rel = filePath.replace(/\\/g, '/').replace(/^\.?\/+/, '');
  if (!rel || rel.split('/').includes('..') || path.isAbsolute(rel) || /^[A-Za-z]:/.test(rel)) return undefined;
  return rel;
}

/**
 * Absolute file paths printed by stack-trace frames (`File "…", line N`, `at f (/x.js:1:2)`,
 * `path:line`) on the lines around `line`, nearest first. `refsOf(i)` gives the references of line i.
 */
export function framePathsNear(refsOf: (i: number) => readonly FileRef[], lineCount: number, line: number): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const take = (i: number) => {
    for (const r of refsOf(i)) {
      if (!path.isAbsolute(r.file) || seen.has(r.file)) continue;
      seen.add(r.file);
      out.push(r.file);
    }
  };
  take(line);
  for (let d = 1; d <= Math.max(FRAME_LINES_BEFORE, FRAME_LINES_AFTER); d++) {
    if (d <= FRAME_LINES_BEFORE && line - d >= 0) take(line - d);
    if (d <= FRAME_LINES_AFTER && line + d < lineCount) take(line + d);
  }
  return out;
}

/** Index: records by the base name of their filePath (hover on a raise site in a source file). */
export class RaisedInIndex {
  private readonly byBase = new Map<string, ErrorRecord[]>();

  constructor(records: readonly ErrorRecord[] = []) {
    for (const r of records) this.add(r);
  }

  add(r: ErrorRecord): void {
    if (!r.filePath || r.lineNumber == null) return;
    const base = path.posix.basename(r.filePath.replace(/\\/g, '/'));
    let list = this.byBase.get(base);
    if (!list) this.byBase.set(base, (list = []));
    list.push(r);
  }

  /** Records whose filePath the given file path ends with. */
  recordsRaisedIn(filePath: string): ErrorRecord[] {
    const norm = filePath.replace(/\\/g, '/');
    const list = this.byBase.get(path.posix.basename(norm));
    if (!list) return [];
    return list.filter((r) => {
      const rel = r.filePath!.replace(/\\/g, '/').replace(/^\.?\/+/, '');
      return norm === rel || norm.endsWith('/' + rel);
    });
  }
}
