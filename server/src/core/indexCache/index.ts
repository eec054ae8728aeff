// When a load goes through the compiled index cache (file.ts: the key and the file format): the
// one flow that `scan` (cli/records.ts) and the language server (server/state/recordSources.ts)
// both use, so neither carries its own key, threshold or validation. The caller says what its
// sources are and how it loads them without the cache; this decides whether the cache is asked,
// restores a hit, and on a miss builds the engine over entries made once and hands back a save
// that writes the cache file for the next run (the caller runs it when it suits: the CLI after
// its scan, the server in time slices after the records are served).
import type { FileDigest } from '../load';
import { Catalog, engineEntry } from '../catalog';
import { type EngineEntry, MatchEngine } from '../engine';
import type { ErrorRecord } from '../record';
import { type CacheMiss, type CacheSource, type CachedLoad, DEFAULT_MIN_BYTES, cacheKey, keyFromDigests, readCacheAsync, refreshEngine, writeCache, writeCacheAsync } from './file';

export { type CacheMiss, type CacheSource, type CachedLoad, DEFAULT_MIN_BYTES, cacheKey, indexCacheDir, keyFromDigests, readCache, readCacheAsync, refreshEngine, writeCache, writeCacheAsync } from './file';

/** Record sets smaller than this are not cached ($ERROR_EXPLAINER_INDEX_CACHE_MIN_BYTES, for tests). */
export function cacheMinBytes(env: Record<string, string | undefined>): number {
  const v = Number(env['ERROR_EXPLAINER_INDEX_CACHE_MIN_BYTES']);
  return env['ERROR_EXPLAINER_INDEX_CACHE_MIN_BYTES'] !== undefined && Number.isFinite(v) && v >= 0 ? v : DEFAULT_MIN_BYTES;
}

export interface CacheOptions {
  dir: string;
  /** Sources smaller than this (bytes of record files) are not cached. */
  minBytes: number;
  /** The caller reads records' prose (documentation, solutions…): verify the records file up front
   * (and hold it: a later eviction of the entry cannot take a record's prose away); an entry
   * without prose is a miss ('lite-only'). Not full: an entry written on a miss holds no prose. */
  full?: boolean;
  /** Not full, and the caller reads few records (a scan that prints no prose): the records' lite
   * rows are checked at the first read of one, not at start-up (a bad section is a clear error
   * then, and the file is removed). Otherwise every section is checked as the file is read. */
  lazyCheck?: boolean;
}

/** What the caller's own load gives: the load (records merged, problems, sources) and, per cache
 * source in order, the files it read (loader LoadResult.files); `files` undefined: the load does
 * not line up with the sources, or failed in a way its problems do not tell (nothing is cached). */
export interface UncachedLoad {
  load: CachedLoad;
  files: (readonly string[])[] | undefined;
}

export interface CacheOutcome {
  load: CachedLoad;
  /** 'hit' (records and index from the cache), the reason it was not used, or 'off' (sources too
   * small, or a source that could not be listed or read). */
  cache: 'hit' | CacheMiss | 'off';
  /** With a miss: writes the cache file for the next run (returns an error message, never throws). */
  save?: () => string | undefined;
  /** The same save in time slices (a server answers requests meanwhile). */
  saveAsync?: (sliceMs?: number, pause?: () => Promise<void>) => Promise<string | undefined>;
  /** With a hit: writes the file's engine again when this run built a prefilter it lacked (see
   * file.ts refreshEngine: an entry a scan wrote has no string prefilter, one `explain` wrote no
   * byte index); nothing to add, nothing written. Returns an error message, never throws. */
  refresh?: () => string | undefined;
}

export interface ThroughCacheOptions {
  /** Builds the engine of a miss (default MatchEngine.build; the server builds in slices). */
  build?: (entries: readonly EngineEntry[]) => MatchEngine | Promise<MatchEngine>;
}

/**
 * A load through the cache. `loadUncached(digests)`: the caller's load of the same sources; with
 * `digests` it records the sha256 of every file it reads (a file no run has hashed yet is keyed
 * by the bytes the load read, instead of being read once more here).
 */
export async function loadThroughCache(
  sources: readonly CacheSource[],
  noBundled: boolean,
  cache: CacheOptions,
  loadUncached: (digests: Map<string, FileDigest> | undefined) => Promise<UncachedLoad>,
  opts: ThroughCacheOptions = {},
): Promise<CacheOutcome> {
  const { dir } = cache;
  const k = await cacheKey(sources, noBundled, dir, { deferUnknown: true });
  if (!k || k.bytes < cache.minBytes) return { load: (await loadUncached(undefined)).load, cache: 'off' };
  if ('deferred' in k) {
    // a file never hashed: no cache can hold it; the key comes from the bytes the load reads
    const digests = new Map<string, FileDigest>();
    const loaded = await loadUncached(digests);
    const files = loaded.files;
    if (!files || files.length !== sources.length) return { load: loaded.load, cache: 'off' };
    const got = keyFromDigests(
      sources.map((s, i) => ({ origin: s.origin, path: s.path, within: s.within, files: files[i]! })),
      noBundled,
      digests,
      dir,
    );
    if (!got) return { load: loaded.load, cache: 'off' };
    return withSave(loaded.load, 'absent', () => {
      got.rememberHashes();
      return got.key;
    }, dir, cache.full === true, opts);
  }
  k.rememberHashes();
  const got = await readCacheAsync(dir, k.key, { full: cache.full === true, lazyCheck: cache.lazyCheck === true });
  if ('load' in got) {
    const { load } = got;
    return { load, cache: 'hit', refresh: () => (load.stored ? refreshEngine(dir, k.key, load.catalog.engine, load.stored) : undefined) };
  }
  const loaded = await loadUncached(undefined);
  if (!loaded.files) return { load: loaded.load, cache: 'off' };
  return withSave(loaded.load, got.miss, () => k.key, dir, cache.full === true, opts);
}

/** A miss: the engine is built over entries made once, which the caller uses and the cache file
 * stores (with the records' prose when the caller reads it: `full`). */
async function withSave(loaded: CachedLoad, miss: CacheMiss, key: () => string, dir: string, full: boolean, opts: ThroughCacheOptions): Promise<CacheOutcome> {
  const entries = loaded.catalog.records.map(engineEntry);
  const engine = await (opts.build ? opts.build(entries) : MatchEngine.build(entries));
  const built: CachedLoad = { ...loaded, catalog: new Catalog(loaded.catalog.records as ErrorRecord[], engine) };
  return {
    load: built,
    cache: miss,
    save: () => writeCache(dir, key(), built, entries, { prose: full }),
    saveAsync: (sliceMs?: number, pause?: () => Promise<void>) => writeCacheAsync(dir, key(), built, entries, sliceMs, { prose: full, ...(pause ? { pause } : {}) }),
  };
}
