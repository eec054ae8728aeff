// Where a record's error is raised: a local file whose path ends with the record's filePath, when
// the message text is found near lineNumber (local code may have moved: the line is shifted by the
// distance the text moved). Tried in order: the workspace folders; the folder `extract` read (the
// record's source-root tag); in a log, the files named by stack-trace frames around the matched
// line (resolveNear). Otherwise the pinned githubUrl.
// Results are cached per record id (and frame path) until files change or the records reload.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sourceRootOf } from '../core/extract/records';
import { languageForPath } from '../core/languages';
import { messageParts } from '../core/pattern';
import type { ErrorRecord } from '../core/record';
import { safeGithubUrl } from '../core/render';
import type { FileRef } from './fileRefs';
import { pathToUri } from './uri';

/** How far (lines) around a matched log line stack frames are read for its raise site. */
export const FRAME_LINES_BEFORE = 60;
export const FRAME_LINES_AFTER = 40;

/** How far (lines) from lineNumber the message text may have moved. */
export const SEARCH_RADIUS = 100;
const MAX_FILE_BYTES = 20 * 1024 * 1024;

export interface LocalRaiseSite {
  kind: 'local';
  path: string;
  uri: string;
  /** 0-based line of the raise statement. */
  line: number;
  /** 0-based line where the message text was found (>= line for multi-line raises). */
  textLine: number;
}
export interface RemoteRaiseSite {
  kind: 'remote';
  url: string;
}
export type RaiseSite = LocalRaiseSite | RemoteRaiseSite;

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

interface FileText {
  mtimeMs: number;
  size: number;
  lines: string[];
}

export class RaiseSiteResolver {
  private readonly cache = new Map<string, RaiseSite | null>();
  private readonly nearCache = new Map<string, LocalRaiseSite | null>();
  private readonly files = new Map<string, FileText | null>();
  private readonly childDirs = new Map<string, string[]>();

  /**
   * `folders`: workspace folder paths. `openText`: text of an open document by path (unsaved
   * edits win over the disk).
   */
  constructor(
    private readonly folders: () => readonly string[],
    private readonly openText: (filePath: string) => string[] | undefined = () => undefined,
  ) {}

  /** Bumped by clear(): callers caching anything derived from raise sites compare it. */
  version = 0;

  /** Forget everything (records reloaded, files changed, folders changed). */
  clear(): void {
    this.version++;
    this.cache.clear();
    this.nearCache.clear();
    this.files.clear();
    this.childDirs.clear();
  }

  resolve(record: ErrorRecord): RaiseSite | undefined {
    const hit = this.cache.get(record.id);
    if (hit !== undefined) return hit ?? undefined;
    let site: RaiseSite | undefined;
    try {
      site = this.resolveLocal(record);
    } catch {
      site = undefined;
    }
    if (!site) {
      const url = safeGithubUrl(record.githubUrl);
      if (url) site = { kind: 'remote', url: record.githubUrl! };
    }
    if (this.cache.size > 100_000) this.cache.clear();
    this.cache.set(record.id, site ?? null);
    return site;
  }

  /**
   * The raise site seen from a log line: resolve(record) when it is local, else the first file
   * named by `framePaths` (absolute paths printed by stack frames near the line) whose path ends
   * with the record's filePath and holds its message near lineNumber; else resolve(record).
   */
  resolveNear(record: ErrorRecord, framePaths: readonly string[]): RaiseSite | undefined {
    const base = this.resolve(record);
    if (base?.kind === 'local' || !record.filePath || framePaths.length === 0) return base;
    const rel = relativeFilePath(record.filePath);
    if (!rel) return base;
    for (const printed of framePaths) {
      if (!path.isAbsolute(printed)) continue; // relative paths are the workspace's (resolve tried them)
      const norm = printed.replace(/\\/g, '/');
      if (!norm.endsWith('/' + rel)) continue;
      const key = `${record.id}\u0000${printed}`;
      let hit = this.nearCache.get(key);
      if (hit === undefined) {
        hit = this.localAt(record, path.normalize(printed)) ?? null;
        if (this.nearCache.size > 10_000) this.nearCache.clear();
        this.nearCache.set(key, hit);
      }
      if (hit) return hit;
    }
    return base;
  }

  /** Local resolution only: the workspace, then the record's source root. */
  resolveLocal(record: ErrorRecord): LocalRaiseSite | undefined {
    if (!record.filePath) return undefined;
    for (const file of this.candidates(record.filePath)) {
      const site = this.localAt(record, file);
      if (site) return site;
    }
    const root = sourceRootOf(record);
    const rel = relativeFilePath(record.filePath);
    if (root && rel) return this.localAt(record, path.join(root, ...rel.split('/')));
    return undefined;
  }

  /** `file` as the raise site when it is a source file that holds the message near lineNumber. */
  private localAt(record: ErrorRecord, file: string): LocalRaiseSite | undefined {
    if (!languageForPath(file) || !isFile(file)) return undefined;
    const lines = this.openText(file) ?? this.readLines(file);
    if (!lines) return undefined;
    const at = locateInLines(record, lines);
    return at ? { kind: 'local', path: file, uri: pathToUri(file), line: at.line, textLine: at.textLine } : undefined;
  }

  /** Workspace files whose path ends with `filePath`: <folder>/<filePath> and <folder>/<child>/<filePath>. */
  candidates(filePath: string): string[] {
    const rel = relativeFilePath(filePath);
    if (!rel) return [];
    const out: string[] = [];
    for (const folder of this.folders()) {
      for (const base of [folder, ...this.children(folder)]) {
        const p = path.join(base, ...rel.split('/'));
        // a record's filePath never makes the server read outside the workspace, symlinks included
        if (isFile(p) && realInside(p, folder)) out.push(p);
      }
    }
    return out;
  }

  private children(folder: string): string[] {
    let c = this.childDirs.get(folder);
    if (!c) {
      try {
        c = fs
          .readdirSync(folder, { withFileTypes: true })
          .filter((d) => d.isDirectory() && !d.name.startsWith('.') && d.name !== 'node_modules')
          .slice(0, 200)
          .map((d) => path.join(folder, d.name));
      } catch {
        c = [];
      }
      this.childDirs.set(folder, c);
    }
    return c;
  }

  private readLines(file: string): string[] | undefined {
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      return undefined;
    }
    const cached = this.files.get(file);
    if (cached && cached.mtimeMs === st.mtimeMs && cached.size === st.size) return cached.lines;
    if (st.size > MAX_FILE_BYTES) return undefined;
    try {
      const lines = fs.readFileSync(file, 'utf8').split(/\r\n|\r|\n/);
      this.files.set(file, { mtimeMs: st.mtimeMs, size: st.size, lines });
      return lines;
    } catch {
      return undefined;
    }
  }
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

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Is the real path of `p` (symlinks resolved) inside the real path of `folder`? */
function realInside(p: string, folder: string): boolean {
  try {
    const rel = path.relative(fs.realpathSync(folder), fs.realpathSync(p));
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  } catch {
    return false;
  }
}

/** Index: records by the base name of their filePath (hover on a raise site in a source file). */
export class RaisedInIndex {
  private readonly byBase = new Map<string, ErrorRecord[]>();

  constructor(records: readonly ErrorRecord[]) {
    for (const r of records) {
      if (!r.filePath || r.lineNumber == null) continue;
      const base = path.posix.basename(r.filePath.replace(/\\/g, '/'));
      let list = this.byBase.get(base);
      if (!list) this.byBase.set(base, (list = []));
      list.push(r);
    }
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
