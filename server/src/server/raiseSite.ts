// Where a record's error is raised, resolved against the workspace: a workspace file whose path
// ends with the record's filePath, when the message text is found near lineNumber (local code may
// have moved: the line is shifted by the distance the text moved). Otherwise the pinned githubUrl.
// Results are cached per record id until files change or the records reload.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { messageParts } from '../core/pattern';
import type { ErrorRecord } from '../core/record';
import { safeGithubUrl } from '../core/render';
import { pathToUri } from './uri';

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

  /** Local resolution only. */
  resolveLocal(record: ErrorRecord): LocalRaiseSite | undefined {
    if (!record.filePath) return undefined;
    for (const file of this.candidates(record.filePath)) {
      const lines = this.openText(file) ?? this.readLines(file);
      if (!lines) continue;
      const at = locateInLines(record, lines);
      if (at) return { kind: 'local', path: file, uri: pathToUri(file), line: at.line, textLine: at.textLine };
    }
    return undefined;
  }

  /** Workspace files whose path ends with `filePath`: <folder>/<filePath> and <folder>/<child>/<filePath>. */
  candidates(filePath: string): string[] {
    const rel = filePath.replace(/\\/g, '/').replace(/^\.?\/+/, '');
    if (!rel || rel.split('/').includes('..') || path.isAbsolute(rel)) return [];
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
