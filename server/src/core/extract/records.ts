// Skeleton records from raise sites, by ErrLookup's rules (standardbeagle/err-lookup,
// packages/pipeline/src/util/ids.ts):
//   id   = sha256(repo + "\u0001" + (errorCode ?? errorMessage) + "\u0001" + filePath), first 16 hex
//   slug = first 50 characters of (errorCode ?? errorMessage), lower case, non-alphanumerics -> "-",
//          trimmed ("error" when empty); made unique within the repository with -2, -3, ...
//   sourceCode = the raise line ±18 lines, githubUrl pinned to --sha (#Lstart-Lend)
// No explanation is invented: documentation, solutions and the other prose fields stay empty.
import { createHash } from 'node:crypto';
import { derivePattern, patternProblem } from '../pattern';
import { type ErrorRecord, skeletonRecord } from '../record';
import type { RaiseSite } from './sites';

export const CONTEXT_LINES = 18;

export function errLookupId(repo: string, errorCode: string | null, errorMessage: string, filePath: string): string {
  return createHash('sha256').update(`${repo}\u0001${errorCode ?? errorMessage}\u0001${filePath}`).digest('hex').slice(0, 16);
}

export function errLookupSlug(errorCode: string | null, errorMessage: string): string {
  const source = (errorCode ?? errorMessage).slice(0, 50).toLowerCase();
  return source.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'error';
}

export interface SiteInFile extends RaiseSite {
  /** Path relative to the extracted folder, forward slashes. */
  filePath: string;
  /** Lines of the file (for the source excerpt). */
  lines: readonly string[];
}

export interface SkippedSite {
  filePath: string;
  line: number;
  message: string;
  reason: string;
}

/** A message's pattern. Logs are matched line by line, so a message of several lines gets the
 * pattern of its first line (`file could not be opened successfully:\n{errors}` is found on the
 * line a traceback prints first); errorMessage keeps every line. */
export function messagePatternOf(message: string): string {
  const whole = derivePattern(message);
  const nl = message.search(/\r?\n/);
  if (nl <= 0) return whole;
  const first = derivePattern(message.slice(0, nl));
  // a first line with too little text of its own (`{usage}\nerror: %s`) keeps the whole pattern
  return patternProblem(first) ? whole : first;
}

export function siteToRecord(site: SiteInFile, repo: string, sha: string | null): ErrorRecord | SkippedSite {
  const messagePattern = messagePatternOf(site.message);
  const problem = patternProblem(messagePattern);
  if (problem) return { filePath: site.filePath, line: site.line, message: site.message, reason: problem };
  const start = Math.max(1, site.line - CONTEXT_LINES);
  const end = Math.min(site.lines.length, site.line + CONTEXT_LINES);
  return skeletonRecord({
    id: errLookupId(repo, null, site.message, site.filePath),
    repo,
    slug: errLookupSlug(null, site.message),
    errorCode: null,
    errorMessage: site.message,
    messagePattern,
    errorType: site.errorType,
    errorClass: site.errorClass,
    severity: 'error',
    filePath: site.filePath,
    lineNumber: site.line,
    sourceCode: site.lines.slice(start - 1, end).join('\n'),
    sourceCodeStart: start,
    sourceCodeEnd: end,
    githubUrl: sha ? `https://github.com/${repo}/blob/${sha}/${site.filePath.split('/').map(encodeURIComponent).join('/')}#L${start}-L${end}` : null,
    solutions: [],
    preventionTips: [],
    tags: site.tags ? [...site.tags] : [],
    analyzedSha: sha,
  });
}

/** Sort by file and line, keep the first record of each id, make slugs unique. Deterministic. */
export function finalizeRecords(records: ErrorRecord[]): ErrorRecord[] {
  const sorted = [...records].sort(
    (a, b) => cmp(a.filePath ?? '', b.filePath ?? '') || (a.lineNumber ?? 0) - (b.lineNumber ?? 0) || cmp(a.errorMessage, b.errorMessage),
  );
  const seen = new Set<string>();
  const slugs = new Map<string, number>();
  const out: ErrorRecord[] = [];
  for (const r of sorted) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    const n = (slugs.get(r.slug) ?? 0) + 1;
    slugs.set(r.slug, n);
    out.push(n === 1 ? r : { ...r, slug: `${r.slug}-${n}` });
  }
  return out;
}

/**
 * The folder `extract` read, kept in a record as the tag `source-root-<hex of the absolute path>`
 * (tags must be kebab-case): raise sites outside the workspace resolve to <root>/<filePath>.
 */
export const SOURCE_ROOT_TAG = 'source-root-';

export function withSourceRoot(record: ErrorRecord, dir: string): ErrorRecord {
  const tag = SOURCE_ROOT_TAG + Buffer.from(dir, 'utf8').toString('hex');
  return { ...record, tags: [...record.tags.filter((t) => !t.startsWith(SOURCE_ROOT_TAG)), tag] };
}

/** The absolute folder a record was extracted from, or undefined. */
export function sourceRootOf(record: Pick<ErrorRecord, 'tags'>): string | undefined {
  for (const t of record.tags) {
    if (!t.startsWith(SOURCE_ROOT_TAG)) continue;
    const hex = t.slice(SOURCE_ROOT_TAG.length);
    if (!/^(?:[0-9a-f]{2})+$/.test(hex)) continue;
    const dir = Buffer.from(hex, 'hex').toString('utf8');
    if (/^(?:\/|[A-Za-z]:[\\/])/.test(dir) && !dir.includes('\0')) return dir;
  }
  return undefined;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
