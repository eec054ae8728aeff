// `error-explainer extract DIR --repo owner/name [--sha SHA]`: skeleton records for the raise
// sites of a source tree (see sites.ts for what is recognised and records.ts for the rules).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ErrorRecord } from '../record';
import type { Lang } from './lexer';
import { pyImportBindings, reexportResolver } from './classes';
import { finalizeRecords, siteToRecord, type SkippedSite } from './records';
import { type ClassRaise, type RaiseSite, findSites, type SiteOptions } from './sites';

export { errLookupId, errLookupSlug, CONTEXT_LINES } from './records';
export { findRaiseSites, type RaiseSite, type SiteOptions } from './sites';
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

/** Source files below `dir` (relative, forward slashes, sorted). When `dir` is itself a
 * `node_modules` folder, the packages nested in its packages' own `node_modules` are read too
 * (`micromatch/node_modules/picomatch`: code that runs and throws like any other dependency). */
export function listSourceFiles(dir: string): string[] {
  const out: string[] = [];
  const nested = path.basename(path.resolve(dir)) === 'node_modules';
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
        if (!SKIP_DIRS.has(e.name) || (nested && e.name === 'node_modules')) walk(path.join(abs, e.name), r);
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

/** Python: the module a file is, as `import` names it from the extracted folder: its folders up to
 * the first one without `__init__.py` are packages (`email/errors.py` -> `email.errors`,
 * `configparser.py` -> `configparser`, `pkg/__init__.py` -> `pkg`). */
export function pythonModule(rel: string, isPackageDir: (relDir: string) => boolean): SiteOptions {
  const parts = rel.split('/');
  const base = parts.pop()!.replace(/\.py$/, '');
  const isPackage = base === '__init__';
  const names = isPackage ? [] : [base];
  for (let n = parts.length; n > 0 && isPackageDir(parts.slice(0, n).join('/')); n--) names.unshift(parts[n - 1]!);
  if (isPackage && names.length === 0) return { module: null, isPackage };
  return { module: names.join('.'), isPackage };
}

export interface ExtractResult {
  records: ErrorRecord[];
  files: number;
  sites: number;
  skipped: SkippedSite[];
}

/** Records for one file's text (`filePath` relative, forward slashes). `siteOpts.module` names a Python
 * file's module (unknown when not given: its classes keep their bare names). */
export function extractFromText(text: string, filePath: string, opts: ExtractOptions, siteOpts: SiteOptions = {}): FileResult {
  const lang = languageOfFile(filePath);
  const records: ErrorRecord[] = [];
  const skipped: SkippedSite[] = [];
  if (!lang) return { records, skipped, classMessages: [], classRaises: [], lines: [] };
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const { sites, classRaises } = findSites(text.replace(/^\uFEFF/, ''), lang, lang === 'python' ? siteOpts : {});
  for (const site of sites) {
    const r = siteToRecord({ ...site, filePath, lines }, opts.repo, opts.sha ?? null);
    if ('id' in r) records.push(r);
    else skipped.push(r);
  }
  const classMessages = lang === 'python' ? sites.filter((s) => s.tags?.includes('class-message')) : [];
  return { records, skipped, classMessages, classRaises, lines };
}

export interface FileResult {
  records: ErrorRecord[];
  skipped: SkippedSite[];
  /** Python: messages written in the file's exception classes (errorClass = printed name) */
  classMessages: RaiseSite[];
  /** Python: raises of classes whose message the file does not know */
  classRaises: ClassRaise[];
  lines: string[];
}

export function extractFromDir(dir: string, opts: ExtractOptions): ExtractResult {
  const files = listSourceFiles(dir);
  const all: ErrorRecord[] = [];
  const skipped: SkippedSite[] = [];
  let sites = 0;
  const packageDirs = new Map<string, boolean>();
  const isPackageDir = (relDir: string): boolean => {
    let v = packageDirs.get(relDir);
    if (v === undefined) {
      v = fs.existsSync(path.join(dir, ...relDir.split('/'), '__init__.py'));
      packageDirs.set(relDir, v);
    }
    return v;
  };
  const read = (rel: string): string | undefined => {
    const abs = path.join(dir, ...rel.split('/'));
    try {
      if (fs.statSync(abs).size > MAX_FILE_BYTES) return undefined;
      return fs.readFileSync(abs, 'utf8');
    } catch {
      return undefined;
    }
  };
  // first pass over the Python files: what each module imports, so that a class another module
  // re-exports gets the name Python prints (`from queue import Empty` -> `_queue.Empty`)
  const bindings = new Map<string, Map<string, string>>();
  const modules = new Map<string, SiteOptions>();
  for (const rel of files) {
    if (!rel.endsWith('.py')) continue;
    const m = pythonModule(rel, isPackageDir);
    modules.set(rel, m);
    const text = read(rel);
    if (text !== undefined && m.module) bindings.set(m.module, pyImportBindings(text, m.module, m.isPackage ?? false));
  }
  const reexports = reexportResolver(bindings);
  const classMessages = new Map<string, RaiseSite[]>();
  const classRaises: { rel: string; raises: ClassRaise[]; lines: string[] }[] = [];
  for (const rel of files) {
    const text = read(rel);
    if (text === undefined) continue;
    const m = modules.get(rel);
    const r = extractFromText(text, rel, opts, m ? { ...m, reexports } : {});
    sites += r.records.length + r.skipped.length;
    all.push(...r.records);
    skipped.push(...r.skipped);
    for (const c of r.classMessages) {
      const list = classMessages.get(c.errorClass!) ?? [];
      list.push(c);
      classMessages.set(c.errorClass!, list);
    }
    if (r.classRaises.length) classRaises.push({ rel, raises: r.classRaises, lines: r.lines });
  }
  // a raise of a class whose message another module writes (`raise URLError(err)` in
  // urllib/request.py, the message in urllib/error.py): a record at the raise, in the raising file
  for (const { rel, raises, lines } of classRaises) {
    for (const c of raises) {
      for (const msg of classMessages.get(c.errorClass) ?? []) {
        const r = siteToRecord({ ...msg, line: c.line, filePath: rel, lines }, opts.repo, opts.sha ?? null);
        if ('id' in r) all.push(r);
      }
    }
  }
  return { records: finalizeRecords(all), files: files.length, sites, skipped };
}

/** The output file: a JSON array (ErrLookup's per-repository layout), 2-space indent, final newline. */
export function formatRecords(records: ErrorRecord[]): string {
  return JSON.stringify(records, null, 2) + '\n';
}
