// Record sources for the CLI: the bundled `records/` folder plus `--records PATH`s, merged
// (later sources win on duplicate ids) into one Catalog.
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { Catalog } from '../core/catalog';
import { loadRecordsFromPath, mergeRecordSets } from '../core/load';
import type { FileDigest, LoadResult } from '../core/load';
import type { ErrorRecord, RecordOrigin, RecordProblem } from '../core/record';
import type { ScanColumns } from '../core/scanColumns';
import { IoError } from './command';
import { type CacheMiss, type CacheOptions, type CacheSource, loadThroughCache } from '../core/indexCache';

/**
 * The bundled records folder: `records/` next to the bundle (dist/cli.js -> ../records), or at the
 * repository root when run from source (server/src/cli -> ../../../records).
 */
export function bundledRecordsPath(): string | undefined {
  const candidates = [path.resolve(__dirname, '..', 'records'), path.resolve(__dirname, '..', '..', '..', 'records')];
  return candidates.find((c) => existsSync(c) && statSync(c).isDirectory());
}

/** Fails with an IoError (exit 2) when a path given on the command line cannot be read. */
export function checkReadable(p: string, what: string): void {
  let st;
  try {
    st = statSync(p);
  } catch (e) {
    throw new IoError(`cannot read ${what} '${p}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (what === 'file' && st.isDirectory()) throw new IoError(`cannot read ${what} '${p}': is a directory`);
}

export function formatProblem(p: RecordProblem): string {
  const where = p.path && p.path !== '(file)' ? ` [${p.path}]` : '';
  return `${p.file}:${p.line}:${p.column}: ${p.severity}: ${p.message.replace(/\s*\n\s*/g, ' ')}${where}`;
}

export interface LoadedCatalog {
  catalog: Catalog;
  problems: RecordProblem[];
  /** Each source with the records it gave (before duplicate ids were merged). */
  sources: { origin: RecordOrigin; path: string; records: number }[];
  /** With `cache`: 'hit' (records and index from the cache), the reason it was not used, or 'off'
   * (a dataset in the set, sources too small, or a source that could not be listed). */
  cache?: 'hit' | CacheMiss | 'off';
  /** With a cache miss: writes the cache file for the next run; with a hit: adds to it a
   * prefilter this run built that it lacked (after the scan or explanation; returns an error
   * message). */
  saveCache?: () => string | undefined;
  /** With a cache miss: saveCache in time slices (a server answers meanwhile). */
  saveCacheAsync?: () => Promise<string | undefined>;
  /** With a cache hit: what a scan reads of a matched record (core/scanColumns). */
  scanColumns?: ScanColumns;
}

/** Loads bundled (unless noBundled) + user record paths; problems are returned, never thrown.
 * `datasetRecords` (scan --dataset) rank between bundled and user records on duplicate ids.
 * `cache`: through the index cache (core/indexCache), unless a dataset is in the set. */
export async function loadCatalog(recordPaths: string[], noBundled: boolean, datasetRecords?: ErrorRecord[], opts: { datasetPath?: string; cache?: CacheOptions; prose?: boolean } = {}): Promise<LoadedCatalog> {
  if (opts.cache && !datasetRecords) {
    const keySources: CacheSource[] = [];
    if (!noBundled) {
      const bundled = bundledRecordsPath();
      if (bundled) keySources.push({ origin: 'bundled', path: bundled });
    }
    for (const p of recordPaths) {
      checkReadable(p, 'records');
      keySources.push({ origin: 'user', path: p });
    }
    const got = await loadThroughCache(keySources, noBundled, opts.cache, async (digests) => {
      const loaded = await loadCatalogUncached(recordPaths, noBundled, undefined, { ...opts, ...(digests ? { digests } : {}) });
      return { load: loaded.catalog, files: loaded.sets.length === keySources.length ? loaded.sets.map((s) => s.result.files) : undefined };
    });
    const saveCache = got.save ?? got.refresh;
    return { ...got.load, cache: got.cache, ...(saveCache ? { saveCache } : {}), ...(got.saveAsync ? { saveCacheAsync: got.saveAsync } : {}) };
  }
  return (await loadCatalogUncached(recordPaths, noBundled, datasetRecords, opts)).catalog;
}

async function loadCatalogUncached(
  recordPaths: string[],
  noBundled: boolean,
  datasetRecords: ErrorRecord[] | undefined,
  opts: { datasetPath?: string; digests?: Map<string, FileDigest>; prose?: boolean },
): Promise<{ catalog: LoadedCatalog; sets: { origin: RecordOrigin; result: LoadResult }[] }> {
  // (prose false: a run that reads no record's prose keeps none; the records are validated all the same)
  const shared = { ...(opts.digests ? { digests: opts.digests } : {}), ...(opts.prose === false ? { prose: false } : {}) };
  const sets: { origin: RecordOrigin; result: LoadResult }[] = [];
  const sources: LoadedCatalog['sources'] = [];
  const add = (origin: RecordOrigin, p: string, result: LoadResult): void => {
    sets.push({ origin, result });
    sources.push({ origin, path: p, records: result.records.length });
  };
  if (!noBundled) {
    const bundled = bundledRecordsPath();
    if (!bundled) throw new IoError('bundled records not found (use --records PATH or --no-bundled)');
    add('bundled', bundled, await loadRecordsFromPath(bundled, { strict: true, ...shared }));
  }
  if (datasetRecords) add('dataset', opts.datasetPath ?? '(dataset)', { records: datasetRecords, problems: [], files: [] });
  for (const p of recordPaths) {
    checkReadable(p, 'records');
    add('user', path.resolve(p), await loadRecordsFromPath(p, { strict: false, ...shared }));
  }
  const merged = mergeRecordSets(sets);
  return { catalog: { catalog: new Catalog(merged.records), problems: merged.problems, sources }, sets };
}
