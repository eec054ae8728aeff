// Where a record's error is raised: a local file whose path ends with the record's filePath, when
// the message text is found near lineNumber (local code may have moved: the line is shifted by the
// distance the text moved). Tried in order: the workspace folders; the folder `extract` read (the
// record's source-root tag); in a log, the files named by stack-trace frames around the matched
// line (resolveNear). Otherwise the pinned githubUrl.
// Results are cached per record id (and frame path) until files change or the records reload.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sourceRootOf } from '../../core/extract/records';
import { languageForPath } from '../../core/languages';
import type { ErrorRecord } from '../../core/record';
import { safeGithubUrl } from '../../core/render';
import { locateInLines, relativeFilePath } from '../../core/raiseSite';
import { pathToUri } from '../uri';
import { isFile } from './fileRefResolver';

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

/** Is the real path of `p` (symlinks resolved) inside the real path of `folder`? */
function realInside(p: string, folder: string): boolean {
  try {
    const rel = path.relative(fs.realpathSync(folder), fs.realpathSync(p));
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  } catch {
    return false;
  }
}

