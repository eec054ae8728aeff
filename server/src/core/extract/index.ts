// `error-explainer extract DIR --repo owner/name [--sha SHA]`: skeleton records for the raise
// sites of a source tree (see sites.ts for what is recognised and records.ts for the rules).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ErrorRecord } from '../record';
import type { Lang } from './lexer';
import { finalizeRecords, siteToRecord, type SkippedSite } from './records';
import { findRaiseSites } from './sites';

export { errLookupId, errLookupSlug, CONTEXT_LINES } from './records';
export { findRaiseSites, type RaiseSite } from './sites';
export type { SkippedSite } from './records';

const EXT_LANG: Record<string, Lang> = {
  '.py': 'python',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.ts': 'javascript',
  '.tsx': 'javascript',
  '.mts': 'javascript',
  '.cts': 'javascript',
  '.go': 'go',
  '.java': 'java',
  '.rs': 'rust',
};

/** Folders never searched: dependencies, build output, caches, VCS metadata. */
const SKIP_DIRS = new Set(['.git', '.hg', '.svn', 'node_modules', '__pycache__', '.venv', 'venv', '.tox', '.mypy_cache', '.pytest_cache', 'target', '.gradle', '.idea', '.vscode']);
const MAX_FILE_BYTES = 2 << 20;

export function languageOfFile(file: string): Lang | undefined {
  const base = path.basename(file);
  if (base.endsWith('.d.ts') || base.endsWith('.d.mts') || base.endsWith('.d.cts') || /\.min\.js$/.test(base)) return undefined;
  return EXT_LANG[path.extname(base).toLowerCase()];
}

/** Source files below `dir` (relative, forward slashes, sorted). */
export function listSourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string, rel: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) walk(path.join(abs, e.name), r);
      } else if (e.isFile() && languageOfFile(e.name)) out.push(r);
    }
  };
  walk(dir, '');
  return out.sort();
}

export interface ExtractOptions {
  repo: string;
  sha?: string | null;
}

export interface ExtractResult {
  records: ErrorRecord[];
  files: number;
  sites: number;
  skipped: SkippedSite[];
}

/** Records for one file's text (`filePath` relative, forward slashes). */
export function extractFromText(text: string, filePath: string, opts: ExtractOptions): { records: ErrorRecord[]; skipped: SkippedSite[] } {
  const lang = languageOfFile(filePath);
  const records: ErrorRecord[] = [];
  const skipped: SkippedSite[] = [];
  if (!lang) return { records, skipped };
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  for (const site of findRaiseSites(text.replace(/^\uFEFF/, ''), lang)) {
    const r = siteToRecord({ ...site, filePath, lines }, opts.repo, opts.sha ?? null);
    if ('id' in r) records.push(r);
    else skipped.push(r);
  }
  return { records, skipped };
}

export function extractFromDir(dir: string, opts: ExtractOptions): ExtractResult {
  const files = listSourceFiles(dir);
  const all: ErrorRecord[] = [];
  const skipped: SkippedSite[] = [];
  let sites = 0;
  for (const rel of files) {
    const abs = path.join(dir, ...rel.split('/'));
    let text: string;
    try {
      if (fs.statSync(abs).size > MAX_FILE_BYTES) continue;
      text = fs.readFileSync(abs, 'utf8');
    } catch {
      continue;
    }
    const r = extractFromText(text, rel, opts);
    sites += r.records.length + r.skipped.length;
    all.push(...r.records);
    skipped.push(...r.skipped);
  }
  return { records: finalizeRecords(all), files: files.length, sites, skipped };
}

/** The output file: a JSON array (ErrLookup's per-repository layout), 2-space indent, final newline. */
export function formatRecords(records: ErrorRecord[]): string {
  return JSON.stringify(records, null, 2) + '\n';
}
