// Record sources and (re)loading: bundled records, errorExplainer.records.paths (files or
// folders, relative paths resolved against each workspace folder) and each workspace folder's
// `.error-records/`. The last two load only in a trusted workspace. Later sources override
// earlier ones on duplicate ids (bundled < user < workspace). A failed load never throws: it
// yields problems, and the caller keeps serving the catalog it has. A source reads only inside
// its bounds, symlinks resolved: a configured path inside itself, .error-records/ inside its
// workspace folder (a link out is reported and not followed). With an index cache (core/indexCache:
// the CLI's, the same key and files), a set of sources that was loaded before is restored from it
// instead of being parsed, validated and indexed; a miss loads as without it and hands back the
// save (RecordsState runs it after the records are served).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Catalog, CompositeCatalog, type ExtraCatalog, type RecordCatalog } from '../../core/catalog';
import { MatchEngine } from '../../core/engine';
import { type CacheSource, loadThroughCache } from '../../core/indexCache';
import { type FileDigest, loadRecordsFromPath, LoadResult, mergeRecordSets } from '../../core/load';
import type { ErrorRecord, RecordOrigin, RecordProblem } from '../../core/record';
import type { SourceStatus, StatusResult } from '../../protocol';
import { RecordIndex } from '../../core/recordIndex';
import { errorText, Logger, yieldToInteractive } from '../runSafe';
import { isInside } from '../uri';

export const WORKSPACE_RECORDS_DIR = '.error-records';

export interface SourceSpec {
  origin: RecordOrigin;
  path: string;
  /** Skip silently when the path does not exist (workspace .error-records/). */
  optional?: boolean;
  /** Folders this source may read from (real paths checked; undefined: anywhere, the bundle). */
  within?: string[];
}

export interface SourceInput {
  bundledPath: string | undefined;
  includeBundled: boolean;
  /** errorExplainer.records.paths per workspace folder (folder undefined = no workspace). */
  paths: { folder: string | undefined; paths: string[] }[];
  folders: readonly string[];
  trusted: boolean;
}

export interface LoadedRecords {
  /** The user's records plus the dataset's (CompositeCatalog) when one is selected. */
  catalog: RecordCatalog;
  index: RecordIndex;
  problems: RecordProblem[];
  status: StatusResult;
  specs: SourceSpec[];
  /** After a cache miss: writes the cache file, in time slices (an error message; never throws). */
  saveCache?: () => Promise<string | undefined>;
}

/** Where the index cache is and what it caches (server.ts: from the environment, never from
 * workspace settings). */
export interface IndexCacheConfig {
  dir: string;
  minBytes: number;
}

export function defaultBundledPath(): string {
  return path.join(__dirname, '..', 'records');
}

export function sourceSpecs(input: SourceInput): SourceSpec[] {
  const specs: SourceSpec[] = [];
  const seen = new Set<string>();
  const add = (s: SourceSpec) => {
    const key = path.resolve(s.path);
    if (seen.has(key)) return;
    seen.add(key);
    specs.push({ ...s, path: key });
  };
  if (input.includeBundled) add({ origin: 'bundled', path: input.bundledPath ?? defaultBundledPath() });
  if (input.trusted) {
    for (const { folder, paths } of input.paths) {
      for (const given of paths) {
        if (!given.trim()) continue;
        const expanded = given.startsWith('~/') ? path.join(process.env.HOME ?? '', given.slice(2)) : given;
        const p = path.isAbsolute(expanded) ? expanded : folder ? path.join(folder, expanded) : undefined;
        if (p) add({ origin: 'user', path: p, within: [path.resolve(p)] });
      }
    }
    for (const f of input.folders) add({ origin: 'workspace', path: path.join(f, WORKSPACE_RECORDS_DIR), optional: true, within: [path.resolve(f)] });
  }
  return specs;
}

/** Records that come from elsewhere than a path (the ErrLookup dataset cache), merged after bundled. */
export interface ExtraSource {
  origin: RecordOrigin;
  path: string;
  load: () => Promise<ErrorRecord[]>;
}

/** A catalog that matches next to the user's records (the ErrLookup dataset, built in the background). */
export interface DatasetSource {
  catalog: ExtraCatalog;
  path: string;
  /** Rows selected. */
  records: number;
}

export async function loadSources(
  specs: SourceSpec[],
  trusted: boolean,
  log: Logger,
  extra: ExtraSource[] = [],
  dataset?: DatasetSource,
  cache?: IndexCacheConfig,
): Promise<LoadedRecords> {
  const t0 = performance.now();
  if (cache && extra.length === 0) return await loadCached(specs, trusted, log, cache, t0, dataset);
  const { sets, sources } = await readSources(specs, log, extra);
  return await assembleLoaded(sets, sources, specs, trusted, t0, dataset);
}

/** Every source's records, in source order (extra ones after bundled); `digests`: see LoadOptions.
 * `failed`: a source's load threw (logged), so what was read is not the whole of it. */
async function readSources(
  specs: readonly SourceSpec[],
  log: Logger,
  extra: ExtraSource[],
  digests?: Map<string, FileDigest>,
): Promise<{ sets: { origin: RecordOrigin; result: LoadResult }[]; sources: SourceStatus[]; failed: boolean }> {
  const sets: { origin: RecordOrigin; result: LoadResult }[] = [];
  const sources: SourceStatus[] = [];
  let failed = false;
  const addExtra = async () => {
    for (const x of extra) {
      let records: ErrorRecord[] = [];
      try {
        records = await x.load();
      } catch (e) {
        log.error(`loading ${x.origin} records failed: ${errorText(e)}`);
      }
      if (records.length === 0) continue;
      sets.push({ origin: x.origin, result: { records, problems: [], files: [] } });
      sources.push({ origin: x.origin, path: x.path, records: records.length });
    }
  };
  let extraDone = false;
  for (const spec of specs) {
    if (!extraDone && spec.origin !== 'bundled') {
      extraDone = true;
      await addExtra();
    }
    if (spec.optional && !fs.existsSync(spec.path)) continue;
    let result: LoadResult;
    try {
      result = await loadRecordsFromPath(spec.path, { strict: spec.origin === 'bundled', ...(spec.within ? { within: spec.within } : {}), ...(digests ? { digests } : {}) });
    } catch (e) {
      log.error(`loading records from ${spec.path} failed: ${errorText(e)}`);
      result = { records: [], problems: [], files: [] };
      failed = true;
    }
    sets.push({ origin: spec.origin, result });
    sources.push({ origin: spec.origin, path: spec.path, records: result.records.length });
  }
  if (!extraDone) await addExtra();
  return { sets, sources, failed };
}

/** loadSources through the index cache: a hit restores the catalog (records and built engine);
 * a miss loads, builds the engine in slices, and returns the save. The records' prose is verified
 * and held at restore time (`full`): hovers never meet a cache file evicted or damaged later. */
async function loadCached(specs: SourceSpec[], trusted: boolean, log: Logger, cache: IndexCacheConfig, t0: number, dataset?: DatasetSource): Promise<LoadedRecords> {
  // the sources a load reads (an absent optional one is skipped by the load as well)
  const present = specs.filter((s) => !(s.optional && !fs.existsSync(s.path)));
  const keySources: CacheSource[] = present.map((s) => ({ origin: s.origin, path: s.path, ...(s.within ? { within: s.within } : {}) }));
  let t1: number | undefined;
  const got = await loadThroughCache(
    keySources,
    !present.some((s) => s.origin === 'bundled'),
    { ...cache, full: true },
    async (digests) => {
      const { sets, sources, failed } = await readSources(present, log, [], digests);
      const merged = mergeRecordSets(sets);
      const problems = dedupeProblems([...sets.flatMap((s) => s.result.problems), ...merged.problems]);
      t1 = performance.now();
      return { load: { catalog: new Catalog(merged.records), problems, sources }, files: failed || sets.length !== present.length ? undefined : sets.map((s) => s.result.files) };
    },
    // in slices: requests are answered meanwhile
    { build: async (entries) => (await MatchEngine.buildAsync(entries, { sliceMs: 10 })) ?? MatchEngine.build(entries) },
  );
  const user = got.load.catalog;
  await user.prepare(); // built or restored already, except when the set is not cached
  const tLoaded = t1 ?? performance.now();
  const loaded = finishLoaded(user, got.load.problems, got.load.sources.map((s) => ({ ...s })), specs, trusted, t0, tLoaded, dataset);
  loaded.status.indexCache = got.cache === 'hit' ? 'hit' : got.cache === 'off' ? 'off' : 'miss';
  if (got.cache !== 'hit' && got.cache !== 'off') loaded.status.indexCacheReason = got.cache;
  if (got.saveAsync) {
    const save = got.saveAsync;
    // (in 4 ms slices behind hovers and other requests a person waits for, as a document scan is:
    // with 10 ms slices and one event-loop turn between them, hovers during a cold start's write at
    // 100k records waited up to 450 ms; now p99 27-30 ms, BENCH_SECTIONS=lsp)
    loaded.saveCache = () => save(4, yieldToInteractive);
  }
  return loaded;
}

/**
 * Record sets in source order (bundled < user < workspace) -> the catalog, index, problems and
 * status the server serves. `sources` lists each set's source; `t0` is when loading started.
 */
export async function assembleLoaded(
  sets: { origin: RecordOrigin; result: LoadResult }[],
  sources: SourceStatus[],
  specs: SourceSpec[],
  trusted: boolean,
  t0: number,
  dataset?: DatasetSource,
): Promise<LoadedRecords> {
  const merged = mergeRecordSets(sets);
  const t1 = performance.now();
  const user = new Catalog(merged.records);
  // build the match index now (in slices: requests are answered meanwhile), not on the first hover
  await user.prepare();
  const problems = dedupeProblems([...sets.flatMap((s) => s.result.problems), ...merged.problems]);
  return finishLoaded(user, problems, sources, specs, trusted, t0, t1, dataset);
}

/** The user's catalog (engine built) -> what the server serves; `t1`: when the records were read. */
function finishLoaded(
  user: Catalog,
  problems: RecordProblem[],
  sources: SourceStatus[],
  specs: SourceSpec[],
  trusted: boolean,
  t0: number,
  t1: number,
  dataset?: DatasetSource,
): LoadedRecords {
  const index = new RecordIndex(user.records);
  const t2 = performance.now();
  // the user's records win on ids both have; the dataset's rows match once its shards are built
  const catalog: RecordCatalog = dataset ? new CompositeCatalog(user, dataset.catalog) : user;
  if (dataset) {
    const c = dataset.catalog;
    // a getter: the status objects are sent as they are (JSON includes it) whenever status is asked
    sources.push({
      origin: 'dataset',
      path: dataset.path,
      records: dataset.records,
      get building() {
        return !c.isReady;
      },
    });
  }
  return {
    catalog,
    index,
    problems,
    specs,
    status: {
      records: user.records.length + (dataset?.records ?? 0),
      sources,
      problems: problems.length,
      workspaceTrusted: trusted,
      timings: { loadMs: round(t1 - t0), indexMs: round(t2 - t1) },
    },
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function dedupeProblems(problems: RecordProblem[]): RecordProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const k = `${p.file}\0${p.line}\0${p.column}\0${p.path}\0${p.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Does a changed file belong to one of the sources (so records must reload)? */
export function affectsSources(file: string, specs: readonly SourceSpec[], folders: readonly string[]): boolean {
  for (const s of specs) if (isInside(file, s.path)) return true;
  for (const f of folders) if (isInside(file, path.join(f, WORKSPACE_RECORDS_DIR))) return true;
  return false;
}
