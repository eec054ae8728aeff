// The ErrLookup dataset, offline-first: opt-in sync into a cache folder, a prepared index that
// loads 500k rows without blocking, lazy per-repository full records, workspace suggestions.
// Entry points for the server and the CLI; see store.ts for the cache layout.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ErrorRecord } from '../record';
import { DatasetStore } from './store';
import { parseSelection } from './select';
import { cacheHome } from '../cacheDirs';

export { DatasetStore, DEFAULT_DATASET_URL, DEFAULT_LIMITS, type DatasetOptions, type DatasetStatus, type SyncResult, type DatasetFailure, type DatasetLimits } from './store';
export { DatasetError, type DatasetErrorKind } from './download';
export { DatasetService, type DatasetSettings, type DatasetServiceStatus, type DatasetServiceSuggestions } from './service';
export { isLiteRecord, LiteRecord } from './lite';
export { parseSelection, type RepoSelection } from './select';
export type { Manifest, RepoEntry, IndexRow } from './types';
export {
  scanWorkspaceDependencies,
  suggestRepositories,
  suggestionMessage,
  type Dependency,
  type Ecosystem,
  type RepoSuggestion,
  type SuggestionResult,
} from './workspace';

export { cacheHome };

/** The CLI's cache folder: $ERROR_EXPLAINER_CACHE, else $XDG_CACHE_HOME/error-explainer/dataset, else ~/.cache/... */
export function defaultCacheDir(env: Record<string, string | undefined>): string {
  if (env['ERROR_EXPLAINER_CACHE']) return env['ERROR_EXPLAINER_CACHE'];
  return path.join(cacheHome(env), 'dataset');
}

export interface LoadDatasetOptions {
  /** Selection (see select.ts); default: the selection saved by `dataset sync --repos`, else all. */
  repos?: readonly string[];
  /** Use cached full records (documentation, solutions, ...) where a repository's file is cached. */
  full?: boolean;
  yieldEvery?: number;
}

/**
 * Records of the cached dataset for matching (no network): lightweight index records, with full
 * records substituted for repositories whose file is cached when `full`. [] when nothing is cached.
 */
export async function loadDatasetRecords(cacheDir: string, opts: LoadDatasetOptions = {}): Promise<ErrorRecord[]> {
  if (!fs.existsSync(path.join(cacheDir, 'state.json'))) return [];
  const store = new DatasetStore({ cacheDir, url: DatasetStore.consentedUrl(cacheDir) });
  const selection = opts.repos ?? store.savedSelection() ?? ['*'];
  const lite = await store.loadRecords(selection, opts.yieldEvery !== undefined ? { yieldEvery: opts.yieldEvery } : {});
  if (!opts.full) return lite;
  const sel = parseSelection(selection);
  const fullById = new Map<string, ErrorRecord>();
  for (const repo of store.cachedRepos()) {
    if (!sel.has(repo)) continue;
    try {
      for (const r of await store.fullRecords(repo)) fullById.set(r.id, r);
    } catch {
      // unreadable cache file: keep the index rows
    }
  }
  return fullById.size ? lite.map((r) => fullById.get(r.id) ?? r) : lite;
}
