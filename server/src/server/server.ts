// LSP wiring: the ONLY module that touches the connection. Features live in their own modules
// and take a ServerContext + plain params. startServer() works with any Connection (stdio, node
// IPC, or an in-memory stream pair in tests) and assumes no particular editor.
import {
  type ClientCapabilities,
  CodeActionKind,
  Connection,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  Disposable,
  DocumentDiagnosticReportKind,
  FileSystemWatcher,
  InitializeParams,
  InitializeResult,
  TextDocumentSyncKind,
  WatchKind,
} from 'vscode-languageserver';
import * as path from 'node:path';
import { Catalog } from '../core/catalog';
import type { DatasetService } from '../core/dataset';
import {
  AgentExplainRequest,
  LogLinesRequest,
  ScanLogRequest,
  ScanLogStopRequest,
  ScanLogUpdateNotification,
  CodeActionFormattingOptions,
  DatasetStatusRequest,
  DatasetSuggestionNotification,
  DatasetSuggestRequest,
  DatasetSyncRequest,
  ExplainTextRequest,
  InitializationOptions,
  RecordFileDto,
  RecordFilesNotification,
  RecordRequest,
  ReloadRequest,
  SearchRequest,
  SeenNotification,
  SnippetRequest,
  StatusNotification,
  StatusRequest,
  StatusResult,
  TrustNotification,
} from '../protocol';
import { codeActions, ON_DEMAND_KIND } from './features/codeActions';
import { createDatasetService, DatasetCatalogs, datasetStatus, datasetSuggest, datasetSync } from './features/dataset';
import { DatasetSuggester } from './features/datasetSuggestion';
import type { ServerContext } from './context';
import * as custom from './features/customRequests';
import { definition } from './features/definition';
import { DiagnosticsPusher, problemDiagnostics, pullDiagnostics } from './features/diagnostics';
import { DocumentStore, TrackedDocument } from './state/documents';
import { FileRefResolver } from './state/fileRefResolver';
import { hover } from './features/hover';
import { documentLinks } from './features/links';
import { isLogLike } from './state/logKind';
import { agentExplain, LogScans, logLines, scanCatalogOf } from './features/logScan';
import { RaiseSiteResolver } from './state/raiseSiteResolver';
import { loadRecordFiles } from './state/recordFiles';
import { RecordIndex } from '../core/recordIndex';
import { affectsSources, LoadedRecords, loadSources, SourceSpec, sourceSpecs, WORKSPACE_RECORDS_DIR } from './state/recordSources';
import { errorText, Logger, runSafe, runSafeNotification, interactive } from './runSafe';
import { SeenRecords } from './state/seen';
import { SECTION, SettingsStore } from './state/settings';
import { snippetRequest } from './features/snippets';
import { pathToUri, uriToPath } from './uri';

export interface ServerOptions {
  /** Overrides initializationOptions.bundledRecordsPath (tests, CLI). */
  bundledRecordsPath?: string;
  /** Keep console.* as is (in-memory tests); by default it goes to connection.console. */
  keepConsole?: boolean;
  /**
   * The web build (server/src/web/main.ts, a Web Worker): no ErrLookup dataset (it needs a cache
   * folder and Node's network stack); records come from the client (initializationOptions.recordFiles).
   */
  web?: boolean;
}

/** What the server uses of the client's capabilities. */
export interface ClientCaps {
  /** Pull diagnostics (else the server pushes them). */
  pull: boolean;
  /** workspace/diagnostic/refresh. */
  refresh: boolean;
  dynamicConfig: boolean;
  dynamicWatch: boolean;
  relativePatterns: boolean;
  workDoneProgress: boolean;
  workspaceFolders: boolean;
}

export function clientCaps(c: ClientCapabilities): ClientCaps {
  return {
    pull: !!c.textDocument?.diagnostic,
    refresh: !!c.workspace?.diagnostics?.refreshSupport,
    dynamicConfig: !!c.workspace?.didChangeConfiguration?.dynamicRegistration,
    dynamicWatch: !!c.workspace?.didChangeWatchedFiles?.dynamicRegistration,
    relativePatterns: !!c.workspace?.didChangeWatchedFiles?.relativePatternSupport,
    workDoneProgress: !!c.window?.workDoneProgress,
    workspaceFolders: !!c.workspace?.workspaceFolders,
  };
}

/** The server's answer to initialize, for what the client can do. */
export function initializeResult(caps: ClientCaps): InitializeResult {
  return {
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
      hoverProvider: true,
      definitionProvider: true,
      documentLinkProvider: { resolveProvider: false },
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, ON_DEMAND_KIND] },
      ...(caps.pull ? { diagnosticProvider: { interFileDependencies: false, workspaceDiagnostics: false } } : {}),
      ...(caps.workspaceFolders ? { workspace: { workspaceFolders: { supported: true, changeNotifications: true } } } : {}),
    },
    serverInfo: { name: 'Error Explainer' },
  };
}

export function startServer(connection: Connection, options: ServerOptions = {}): void {
  const log: Logger = connection.console;
  if (!options.keepConsole) {
    console.log = (...a: unknown[]) => connection.console.log(a.map(String).join(' '));
    console.info = (...a: unknown[]) => connection.console.info(a.map(String).join(' '));
    console.warn = (...a: unknown[]) => connection.console.warn(a.map(String).join(' '));
    console.error = (...a: unknown[]) => connection.console.error(a.map(String).join(' '));
    console.debug = console.log;
  }

  const documents = new DocumentStore();
  const seen = new SeenRecords();
  let folders: string[] = [];
  let trusted = false;
  let bundledPath: string | undefined = options.bundledRecordsPath;
  let epoch = 0;
  let loaded: LoadedRecords = emptyLoaded();
  let settings = new SettingsStore(undefined);
  let dataset: DatasetService | undefined;
  /** Records the client read and sent (web build); when set, paths are not read. */
  let recordFiles: RecordFileDto[] | undefined;
  let recordFilesVersion = 0;
  let loadedKey = '';
  let caps: ClientCaps = clientCaps({});

  const openText = (file: string): string[] | undefined => documents.get(pathToUri(file))?.lines;
  const raiseSites = new RaiseSiteResolver(() => folders, openText);
  const fileRefs = new FileRefResolver(() => folders);

  const ctx: ServerContext = {
    log,
    documents,
    seen,
    raiseSites,
    fileRefs,
    catalog: () => loaded.catalog,
    index: () => loaded.index,
    epoch: () => epoch,
    folders: () => folders,
    settingsFor: (uri) => settings.get(uri),
    isLogDocument: async (doc: TrackedDocument) => {
      if (doc.logLike === undefined) {
        // In an untrusted workspace the globs are the defaults (normalizeSettings): a workspace cannot
        // choose which files get matched (VS Code also drops workspace values there: restrictedConfigurations)
        doc.logLike = isLogLike(doc.uri, doc.languageId, (await settings.get(doc.uri)).logFiles, folders);
      }
      return doc.logLike;
    },
  };
  // One-time dataset suggestion (after the first load; trusted workspaces; errorExplainer.dataset.suggest).
  const suggester = new DatasetSuggester({
    dataset: () => dataset,
    trusted: () => trusted,
    folders: () => folders,
    settings: () => settings.get(undefined),
    send: (p) => void connection.sendNotification(DatasetSuggestionNotification.type, p),
    log,
  });
  const pusher = new DiagnosticsPusher(ctx, (uri, diagnostics, version) => {
    void connection.sendDiagnostics({ uri, diagnostics, ...(version !== undefined ? { version } : {}) });
  });

  // The dataset's rows build in the background (user records answer at once); when all match,
  // open documents are matched again.
  const datasetCatalogs = new DatasetCatalogs(log, () => {
    epoch++;
    for (const d of documents.all()) d.clearMatches();
    void connection.sendNotification(StatusNotification.type, loaded.status);
    refreshDiagnostics();
  });

  // ------------------------------------------------------------------------------------------
  // Records: first load after `initialized`; every handler waits for it.
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  let problemUris = new Set<string>();
  let watcherRegistration: Disposable | undefined;
  let watchedKey = '';
  let reloadChain: Promise<StatusResult> = Promise.resolve(loaded.status);
  let reloadQueued: Promise<StatusResult> | undefined;
  let queuedForce = false;

  async function currentSpecs(): Promise<SourceSpec[]> {
    const global = await settings.get(undefined);
    dataset?.configure(global.dataset);
    const paths: { folder: string | undefined; paths: string[] }[] = [];
    if (folders.length === 0) paths.push({ folder: undefined, paths: global.records.paths });
    for (const f of folders) paths.push({ folder: f, paths: (await settings.get(pathToUri(f))).records.paths });
    return sourceSpecs({ bundledPath, includeBundled: global.records.includeBundled, paths, folders, trusted });
  }

  /** Reload records (coalesced: at most one reload waits behind the running one). */
  function reload(force: boolean): Promise<StatusResult> {
    queuedForce ||= force;
    if (reloadQueued) return reloadQueued;
    const queued = reloadChain.then(async () => {
      reloadQueued = undefined;
      const f = queuedForce;
      queuedForce = false;
      try {
        return await doReload(f);
      } catch (e) {
        log.error(`reloading records failed: ${errorText(e)}`);
        return loaded.status;
      }
    });
    reloadQueued = queued;
    reloadChain = queued;
    return queued;
  }

  async function doReload(force: boolean): Promise<StatusResult> {
    const specs = await currentSpecs();
    const global = await settings.get(undefined);
    const key = JSON.stringify({ specs, trusted, dataset: global.dataset, recordFilesVersion });
    if (force || key !== loadedKey) {
      loaded = recordFiles ? await loadRecordFiles(recordFiles, trusted) : await loadSources(specs, trusted, log, [], datasetCatalogs.update(dataset, global));
      loadedKey = key;
      log.info(
        `Error Explainer: ${loaded.status.records} records from ${loaded.status.sources.length} sources, ` +
          `${loaded.status.problems} problems (load ${loaded.status.timings.loadMs} ms, index ${loaded.status.timings.indexMs} ms)`,
      );
      publishProblems();
      await registerWatchers();
      raiseSites.clear();
      fileRefs.clear();
      for (const d of documents.all()) d.clearMatches(); // matches depend on the records only
    }
    epoch++;
    for (const d of documents.all()) d.logLike = undefined;
    void connection.sendNotification(StatusNotification.type, loaded.status);
    refreshDiagnostics();
    return loaded.status;
  }

  function publishProblems(): void {
    const byUri = problemDiagnostics(loaded.problems);
    for (const uri of problemUris) if (!byUri.has(uri)) void connection.sendDiagnostics({ uri, diagnostics: [] });
    for (const [uri, diagnostics] of byUri) void connection.sendDiagnostics({ uri, diagnostics });
    problemUris = new Set(byUri.keys());
  }

  function refreshDiagnostics(): void {
    if (caps.pull) {
      if (caps.refresh) connection.languages.diagnostics.refresh();
    } else pusher.scheduleAll();
  }

  async function registerWatchers(): Promise<void> {
    if (!caps.dynamicWatch) return;
    const watchers: FileSystemWatcher[] = [{ globPattern: `**/${WORKSPACE_RECORDS_DIR}/**` }];
    for (const s of loaded.specs) {
      if (s.origin !== 'user') continue; // bundled records never change; workspace ones are covered above
      if (caps.relativePatterns) {
        const baseUri = pathToUri(path.dirname(s.path));
        const name = path.basename(s.path);
        watchers.push({ globPattern: { baseUri, pattern: name } }, { globPattern: { baseUri, pattern: `${name}/**` } });
      } else {
        const p = s.path.split(path.sep).join('/');
        watchers.push({ globPattern: p }, { globPattern: `${p}/**` });
      }
    }
    const key = JSON.stringify(watchers);
    if (key === watchedKey) return;
    watchedKey = key;
    const old = watcherRegistration;
    watcherRegistration = undefined;
    old?.dispose();
    try {
      watcherRegistration = await connection.client.register(DidChangeWatchedFilesNotification.type, {
        watchers: watchers.map((w) => ({ ...w, kind: WatchKind.Create | WatchKind.Change | WatchKind.Delete })),
      });
    } catch (e) {
      log.warn(`could not register file watchers: ${errorText(e)}`);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Lifecycle

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    const c = params.capabilities;
    const init = (params.initializationOptions ?? {}) as InitializationOptions;
    bundledPath = options.bundledRecordsPath ?? (typeof init.bundledRecordsPath === 'string' ? init.bundledRecordsPath : undefined);
    trusted = init.workspaceTrusted === true;
    if (Array.isArray(init.recordFiles)) recordFiles = init.recordFiles;
    if (!options.web) {
      try {
        dataset = createDatasetService(typeof init.storagePath === 'string' ? init.storagePath : undefined);
      } catch (e) {
        log.warn(`the ErrLookup dataset is unavailable: ${errorText(e)}`);
      }
    }
    caps = clientCaps(c);
    settings = new SettingsStore(
      c.workspace?.configuration
        ? (scopeUri) => connection.workspace.getConfiguration(scopeUri ? { scopeUri, section: SECTION } : { section: SECTION })
        : undefined,
      () => trusted,
    );
    folders = (params.workspaceFolders ?? [])
      .map((f) => uriToPath(f.uri))
      .filter((p): p is string => !!p);
    if (folders.length === 0 && params.rootUri) {
      const p = uriToPath(params.rootUri);
      if (p) folders = [p];
    }
    return initializeResult(caps);
  });

  connection.onInitialized(() => {
    if (caps.dynamicConfig) {
      void connection.client.register(DidChangeConfigurationNotification.type, { section: SECTION }).catch(() => undefined);
    }
    try {
      connection.workspace.onDidChangeWorkspaceFolders((e) => {
        const removed = new Set(e.removed.map((f) => uriToPath(f.uri)));
        folders = folders.filter((f) => !removed.has(f));
        for (const f of e.added) {
          const p = uriToPath(f.uri);
          if (p && !folders.includes(p)) folders.push(p);
        }
        void reload(true);
      });
    } catch {
      // the client does not support workspace folder notifications
    }
    reload(true).finally(markReady);
    void ready.then(() => suggester.offer());
    if (!dataset) return;
    // After opt-in only: check the dataset now and then hourly (refreshHours decides whether a sync is due).
    const firstCheck = setTimeout(() => void checkDataset(), 10_000);
    const hourly = setInterval(() => void checkDataset(), 60 * 60 * 1000);
    firstCheck.unref();
    hourly.unref();
    timers.push(firstCheck, hourly);
  });

  const timers: NodeJS.Timeout[] = [];
  async function checkDataset(): Promise<void> {
    try {
      const r = await dataset?.syncIfDue();
      if (r?.notify) log.warn(r.notify);
      if (r?.status === 'updated') await reload(true);
    } catch (e) {
      log.error(`dataset check failed: ${errorText(e)}`);
    }
  }

  connection.onShutdown(() => {
    logScans.dispose();
    watcherRegistration?.dispose();
    datasetCatalogs.dispose();
    for (const t of timers) clearTimeout(t);
  });

  // ------------------------------------------------------------------------------------------
  // Documents (incremental sync)

  connection.onDidOpenTextDocument((p) =>
    runSafeNotification(log, 'didOpen', () => {
      const d = p.textDocument;
      documents.open(d.uri, d.languageId, d.version, d.text);
      if (!caps.pull) pusher.schedule(d.uri);
    }),
  );
  connection.onDidChangeTextDocument((p) =>
    runSafeNotification(log, 'didChange', () => {
      const doc = documents.get(p.textDocument.uri);
      if (!doc) return;
      doc.apply(p.contentChanges, p.textDocument.version);
      if (doc.logLike === false) {
        const file = uriToPath(doc.uri);
        if (file && loaded.index.raisedIn.recordsRaisedIn(file).length) raiseSites.clear();
      }
      if (!caps.pull) pusher.schedule(doc.uri);
    }),
  );
  connection.onDidCloseTextDocument((p) =>
    runSafeNotification(log, 'didClose', () => {
      documents.close(p.textDocument.uri);
      pusher.closed(p.textDocument.uri);
    }),
  );
  connection.onDidSaveTextDocument((p) =>
    runSafeNotification(log, 'didSave', () => {
      const file = uriToPath(p.textDocument.uri);
      if (file && affectsSources(file, loaded.specs, folders)) void reload(true);
    }),
  );

  // ------------------------------------------------------------------------------------------
  // Configuration, watched files, trust

  connection.onDidChangeConfiguration((p) =>
    runSafeNotification(log, 'didChangeConfiguration', async () => {
      settings.changed(p.settings);
      epoch++; // requests from now on use the new settings (reload bumps it again)
      for (const d of documents.all()) d.logLike = undefined;
      await ready;
      await reload(false);
    }),
  );

  connection.onDidChangeWatchedFiles((p) =>
    runSafeNotification(log, 'didChangeWatchedFiles', async () => {
      raiseSites.clear();
      fileRefs.clear();
      const files = p.changes.map((c) => uriToPath(c.uri)).filter((f): f is string => !!f);
      if (files.some((f) => affectsSources(f, loaded.specs, folders))) {
        await ready;
        await reload(true);
      }
    }),
  );

  connection.onNotification(TrustNotification.type, (p) =>
    runSafeNotification(log, 'trust', async () => {
      const next = p?.workspaceTrusted === true;
      if (next === trusted) return;
      trusted = next;
      await ready;
      await reload(true);
      void suggester.offer();
    }),
  );

  connection.onNotification(RecordFilesNotification.type, (p) =>
    runSafeNotification(log, 'recordFiles', async () => {
      if (!Array.isArray(p?.files)) return;
      recordFiles = p.files;
      recordFilesVersion++;
      await ready;
      await reload(true);
    }),
  );

  connection.onNotification(SeenNotification.type, (p) =>
    runSafeNotification(log, 'seen', async () => {
      // Matches can arrive before the first record load finishes (a terminal scan right after
      // start-up): wait for it instead of dropping ids the catalog does not know yet.
      await ready;
      for (const m of Array.isArray(p?.matches) ? p.matches : []) {
        if (m && typeof m.id === 'string' && loaded.catalog.get(m.id)) seen.note(loaded.catalog.get(m.id)!.id, typeof p.source === 'string' ? p.source.slice(0, 200) : undefined);
      }
    }),
  );

  // ------------------------------------------------------------------------------------------
  // Features

  connection.onHover((p, token) => interactive(() => runSafe(log, 'hover', token, null, async () => (await ready, hover(ctx, p, token)))));
  connection.onDefinition((p, token) =>
    interactive(() => runSafe(log, 'definition', token, null, async () => (await ready, definition(ctx, fileRefs, p)))),
  );
  connection.onDocumentLinks((p, token) =>
    // (not interactive: links of a whole document wait for its scan)
    runSafe(log, 'documentLinks', token, [], async () => (await ready, documentLinks(ctx, fileRefs, p, token))),
  );
  connection.onCodeAction((p, token) =>
    interactive(() => runSafe(log, 'codeAction', token, [], async () => (await ready, codeActions(ctx, p as typeof p & CodeActionFormattingOptions, token)))),
  );
  connection.languages.diagnostics.on((p, token) =>
    runSafe(log, 'diagnostics', token, { kind: DocumentDiagnosticReportKind.Full, items: [] }, async () => {
      await ready;
      return pullDiagnostics(ctx, p.textDocument.uri, p.previousResultId, token);
    }),
  );

  connection.onRequest(SearchRequest.type, (p, token) => interactive(() => runSafe(log, 'search', token, [], async () => (await ready, custom.search(ctx, p)))));
  connection.onRequest(RecordRequest.type, (p, token) =>
    runSafe(log, 'record', token, null, async () => {
      await ready;
      const ds = dataset;
      return custom.record(ctx, p, ds ? (r) => ds.complete(r) : undefined);
    }),
  );
  connection.onRequest(DatasetStatusRequest.type, (_p, token) =>
    runSafe(log, 'datasetStatus', token, null, async () => {
      await ready;
      const loadedFromDataset = loaded.status.sources.find((x) => x.origin === 'dataset')?.records ?? 0;
      return dataset ? datasetStatus(dataset, loadedFromDataset) : null;
    }),
  );
  connection.onRequest(DatasetSyncRequest.type, (p, token) =>
    runSafe(log, 'datasetSync', token, null, async () => {
      await ready;
      if (!dataset) return { status: 'failed' as const, datasetVersion: null, reason: 'no dataset cache folder' };
      const r = await datasetSync(dataset, p?.force !== false, typeof p?.url === 'string' ? p.url : undefined);
      if (r.status !== 'failed') await reload(true);
      return r;
    }),
  );
  connection.onRequest(DatasetSuggestRequest.type, (_p, token) =>
    runSafe(log, 'datasetSuggest', token, null, async () => {
      await ready;
      return dataset ? datasetSuggest(dataset, folders) : null;
    }),
  );
  connection.onRequest(ExplainTextRequest.type, (p, token) =>
    runSafe(log, 'explainText', token, [], async () => (await ready, custom.explainText(ctx, p, token))),
  );
  connection.onRequest(SnippetRequest.type, (p, token) => runSafe(log, 'snippet', token, null, async () => (await ready, snippetRequest(ctx, p))));
  connection.onRequest(StatusRequest.type, (_p, token) => runSafe(log, 'status', token, loaded.status, async () => (await ready, loaded.status)));
  connection.onRequest(ReloadRequest.type, (_p, token) => runSafe(log, 'reload', token, loaded.status, async () => (await ready, reload(true))));

  // ------------------------------------------------------------------------------------------
  // Log files on disk and the language-model tool (logScan.ts)

  const logScans = new LogScans(() => loaded.catalog, (r) => void connection.sendNotification(ScanLogUpdateNotification.type, r), log);
  connection.onRequest(ScanLogRequest.type, (p, token) =>
    runSafe(log, 'scanLog', token, null, async () => {
      await ready;
      // progress on the client's token, else on one we create (the client can cancel either)
      const reporter = p?.workDoneToken !== undefined ? connection.window.attachWorkDoneProgress(p.workDoneToken) : caps.workDoneProgress ? await connection.window.createWorkDoneProgress() : undefined;
      const progressToken = reporter && 'token' in reporter ? (reporter.token as typeof token) : undefined;
      return logScans.scan(p, reporter, () => token.isCancellationRequested || progressToken?.isCancellationRequested === true);
    }),
  );
  connection.onRequest(ScanLogStopRequest.type, (p, token) => runSafe(log, 'scanLogStop', token, null, () => logScans.stop(Number(p?.scanId))));
  connection.onRequest(LogLinesRequest.type, (p, token) => runSafe(log, 'logLines', token, null, () => logLines(p)));
  connection.onRequest(AgentExplainRequest.type, (p, token) =>
    runSafe(log, 'agentExplain', token, null, async () => {
      await ready;
      const ds = dataset;
      return agentExplain(
        {
          cwd: folders[0] ?? process.cwd(),
          catalog: () => loaded.catalog,
          scanCatalog: () => scanCatalogOf(loaded.catalog),
          records: () => scanCatalogOf(loaded.catalog).records,
          sources: () => loaded.status.sources,
          ...(ds ? { complete: (r) => ds.complete(r) } : {}),
        },
        p,
        () => token.isCancellationRequested,
      );
    }),
  );

  connection.listen();
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

