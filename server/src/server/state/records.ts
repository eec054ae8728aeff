// The loaded records of one server instance and how they are reloaded: the sources to read (the
// bundle, records.paths, .error-records/, or the files the web client sent; recordSources.ts and
// recordFiles.ts), the ErrLookup dataset's catalog beside them, the epoch that request results
// are tagged with, the reload chain (coalesced: at most one reload waits behind the running one),
// the readiness every handler waits for (the first load), the file watchers registered for the
// sources, and the dataset's hourly check. What a reload means for the client (status,
// diagnostics, record-file problems) goes through RecordsHost: only server.ts talks to it.
import * as path from 'node:path';
import type { Disposable, FileSystemWatcher } from 'vscode-languageserver';
import { WatchKind } from 'vscode-languageserver';
import { Catalog } from '../../core/catalog';
import type { DatasetService } from '../../core/dataset';
import type { RecordProblem } from '../../core/record';
import { RecordIndex } from '../../core/recordIndex';
import type { RecordFileDto, StatusResult } from '../../protocol';
import { DatasetCatalogs } from './datasetCatalogs';
import { errorText, type Logger, yieldToInteractive } from '../runSafe';
import { pathToUri } from '../uri';
import type { DocumentStore } from './documents';
import { loadRecordFiles } from './recordFiles';
import { affectsSources, type IndexCacheConfig, type LoadedRecords, loadSources, type SourceSpec, sourceSpecs, WORKSPACE_RECORDS_DIR } from './recordSources';
import type { Workspace } from './workspace';
import { runInSlices } from '../../core/slices';

/** What the records need of the server around them. */
export interface RecordsHost {
  readonly log: Logger;
  readonly documents: DocumentStore;
  readonly workspace: Workspace;
  /** The client's dynamic file watching, or undefined when it has none. */
  watching(): FileWatching | undefined;
  /** Record-file problems of newly loaded records (diagnostics on the record files). */
  problems(problems: readonly RecordProblem[]): void;
  /** The records were replaced: what is cached from the old ones (raise sites, file refs) is stale. */
  replaced(): void;
  /** After every reload, and when the dataset's rows start to match: status to the client, diagnostics refreshed. */
  changed(status: StatusResult): void;
}

export interface FileWatching {
  relativePatterns: boolean;
  register(watchers: FileSystemWatcher[]): Promise<Disposable>;
}

export interface RecordsOptions {
  /** Where the bundled records are (undefined: next to the server, recordSources.defaultBundledPath). */
  bundledPath?: string | undefined;
  /** Records the client read and sent (web build); when set, paths are not read. */
  recordFiles?: RecordFileDto[] | undefined;
  dataset?: DatasetService | undefined;
  /** The compiled index cache (undefined: none, the web build). */
  indexCache?: IndexCacheConfig | undefined;
}

export class RecordsState {
  private current: LoadedRecords = emptyLoaded();
  private epochValue = 0;
  private options: RecordsOptions = {};
  private recordFilesVersion = 0;
  private loadedKey = '';
  private reloadChain: Promise<StatusResult>;
  private reloadQueued: Promise<StatusResult> | undefined;
  private queuedForce = false;
  private watcherRegistration: Disposable | undefined;
  private watchedKey = '';
  private readonly timers: NodeJS.Timeout[] = [];
  /** Index cache writes, one after the other (never two of the same file at once). */
  private cacheWrites: Promise<void> = Promise.resolve();
  private readonly datasetCatalogs: DatasetCatalogs;
  private markReady: () => void = () => undefined;
  /** Resolved when the first load has finished (or failed): every handler waits for it. */
  readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));

  constructor(private readonly host: RecordsHost) {
    this.reloadChain = Promise.resolve(this.current.status);
    // The dataset's rows build in the background (user records answer at once); when all match,
    // open documents are matched again.
    this.datasetCatalogs = new DatasetCatalogs(host.log, () => {
      this.epochValue++;
      for (const d of host.documents.all()) d.clearMatches();
      host.changed(this.current.status);
    });
  }

  get loaded(): LoadedRecords {
    return this.current;
  }

  /** Bumped on every reload and configuration change (part of diagnostic result ids). */
  get epoch(): number {
    return this.epochValue;
  }

  get dataset(): DatasetService | undefined {
    return this.options.dataset;
  }

  /** initialize: where the records come from. */
  configure(options: RecordsOptions): void {
    this.options = { ...options };
  }

  /** The settings changed: requests from now on use the new ones (the reload bumps the epoch again). */
  settingsChanged(): void {
    this.epochValue++;
    for (const d of this.host.documents.all()) d.logLike = undefined;
  }

  /** The web client sent the record files again. */
  setRecordFiles(files: RecordFileDto[]): void {
    this.options.recordFiles = files;
    this.recordFilesVersion++;
  }

  /** Does a changed file belong to one of the sources (so records must reload)? */
  affects(file: string): boolean {
    return affectsSources(file, this.current.specs, this.host.workspace.folders);
  }

  /** initialized: the first load (then `ready`), and with a dataset its checks (10 s, then hourly). */
  start(): void {
    void this.reload(true).finally(this.markReady);
    if (!this.options.dataset) return;
    // After opt-in only: check the dataset now and then hourly (refreshHours decides whether a sync is due).
    const firstCheck = setTimeout(() => void this.checkDataset(), 10_000);
    const hourly = setInterval(() => void this.checkDataset(), 60 * 60 * 1000);
    firstCheck.unref();
    hourly.unref();
    this.timers.push(firstCheck, hourly);
  }

  /** Reload records (coalesced: at most one reload waits behind the running one). */
  reload(force: boolean): Promise<StatusResult> {
    this.queuedForce ||= force;
    if (this.reloadQueued) return this.reloadQueued;
    const queued = this.reloadChain.then(async () => {
      this.reloadQueued = undefined;
      const f = this.queuedForce;
      this.queuedForce = false;
      try {
        return await this.doReload(f);
      } catch (e) {
        this.host.log.error(`reloading records failed: ${errorText(e)}`);
        return this.current.status;
      }
    });
    this.reloadQueued = queued;
    this.reloadChain = queued;
    return queued;
  }

  dispose(): void {
    this.watcherRegistration?.dispose();
    this.datasetCatalogs.dispose();
    for (const t of this.timers) clearTimeout(t);
  }

  private async currentSpecs(): Promise<SourceSpec[]> {
    const { settings, folders, trusted } = this.host.workspace;
    const global = await settings.get(undefined);
    this.options.dataset?.configure(global.dataset);
    const paths: { folder: string | undefined; paths: string[] }[] = [];
    if (folders.length === 0) paths.push({ folder: undefined, paths: global.records.paths });
    for (const f of folders) paths.push({ folder: f, paths: (await settings.get(pathToUri(f))).records.paths });
    return sourceSpecs({ bundledPath: this.options.bundledPath, includeBundled: global.records.includeBundled, paths, folders, trusted });
  }

  private async doReload(force: boolean): Promise<StatusResult> {
    const { host } = this;
    const specs = await this.currentSpecs();
    const { settings, trusted } = host.workspace;
    const global = await settings.get(undefined);
    const key = JSON.stringify({ specs, trusted, dataset: global.dataset, recordFilesVersion: this.recordFilesVersion });
    if (force || key !== this.loadedKey) {
      const { recordFiles, dataset } = this.options;
      const loaded = recordFiles
        ? await loadRecordFiles(recordFiles, trusted)
        : await loadSources(specs, trusted, host.log, [], this.datasetCatalogs.update(dataset, global), this.options.indexCache);
      this.current = loaded;
      this.loadedKey = key;
      this.prepareIndex(loaded);
      host.log.info(
        `Error Explainer: ${loaded.status.records} records from ${loaded.status.sources.length} sources, ` +
          `${loaded.status.problems} problems (load ${loaded.status.timings.loadMs} ms, index ${loaded.status.timings.indexMs} ms` +
          `${loaded.status.indexCache ? `, index cache ${loaded.status.indexCache}${loaded.status.indexCacheReason ? ` (${loaded.status.indexCacheReason})` : ''}` : ''})`,
      );
      if (loaded.saveCache) this.saveCache(loaded.saveCache);
      host.problems(loaded.problems);
      await this.registerWatchers();
      host.replaced();
      for (const d of host.documents.all()) d.clearMatches(); // matches depend on the records only
    }
    this.epochValue++;
    for (const d of host.documents.all()) d.logLike = undefined;
    host.changed(this.current.status);
    return this.current.status;
  }

  /** Builds a load's record lookups (RecordIndex: by class, by raising file) ahead of their first
   * use, in slices of about 4 ms that step aside for requests (yieldToInteractive; a log hover
   * needs none of them, a source file's hover or a code action that comes first finishes the build
   * itself); stops when the records are replaced. */
  private prepareIndex(loaded: LoadedRecords): void {
    const stop = (): boolean => this.current !== loaded;
    setImmediate(() => {
      if (!stop()) void runInSlices(loaded.index.buildSteps(), 4, { stop, pause: yieldToInteractive });
    });
  }

  /** Writes the index cache file of a load (after it is served, in slices, behind earlier writes);
   * a failure (read-only folder, disk full) is logged, the records stay as they are. */
  private saveCache(save: () => Promise<string | undefined>): void {
    const log = this.host.log;
    this.cacheWrites = this.cacheWrites.then(async () => {
      const t0 = performance.now();
      try {
        const error = await save();
        if (error) log.warn(`Error Explainer: index cache not written: ${error}`);
        else log.info(`Error Explainer: index cache written (${Math.round(performance.now() - t0)} ms)`);
      } catch (e) {
        log.warn(`Error Explainer: index cache not written: ${errorText(e)}`);
      }
    });
  }

  private async registerWatchers(): Promise<void> {
    const watching = this.host.watching();
    if (!watching) return;
    const watchers = sourceWatchers(this.current.specs, watching.relativePatterns);
    const key = JSON.stringify(watchers);
    if (key === this.watchedKey) return;
    this.watchedKey = key;
    const old = this.watcherRegistration;
    this.watcherRegistration = undefined;
    old?.dispose();
    try {
      this.watcherRegistration = await watching.register(watchers);
    } catch (e) {
      this.host.log.warn(`could not register file watchers: ${errorText(e)}`);
    }
  }

  private async checkDataset(): Promise<void> {
    try {
      const r = await this.options.dataset?.syncIfDue();
      if (r?.notify) this.host.log.warn(r.notify);
      if (r?.status === 'updated') await this.reload(true);
    } catch (e) {
      this.host.log.error(`dataset check failed: ${errorText(e)}`);
    }
  }
}

/** The file watchers for the sources: every workspace's .error-records/, and each user path (itself and below it). */
export function sourceWatchers(specs: readonly SourceSpec[], relativePatterns: boolean): FileSystemWatcher[] {
  const watchers: FileSystemWatcher[] = [{ globPattern: `**/${WORKSPACE_RECORDS_DIR}/**` }];
  for (const s of specs) {
    if (s.origin !== 'user') continue; // bundled records never change; workspace ones are covered above
    if (relativePatterns) {
      const baseUri = pathToUri(path.dirname(s.path));
      const name = path.basename(s.path);
      watchers.push({ globPattern: { baseUri, pattern: name } }, { globPattern: { baseUri, pattern: `${name}/**` } });
    } else {
      const p = s.path.split(path.sep).join('/');
      watchers.push({ globPattern: p }, { globPattern: `${p}/**` });
    }
  }
  return watchers.map((w) => ({ ...w, kind: WatchKind.Create | WatchKind.Change | WatchKind.Delete }));
}

function emptyLoaded(): LoadedRecords {
  return {
    catalog: new Catalog([]),
    index: new RecordIndex([]),
    problems: [],
    specs: [],
    status: { records: 0, sources: [], problems: 0, workspaceTrusted: false, timings: { loadMs: 0, indexMs: 0 } },
  };
}
