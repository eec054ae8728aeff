// LSP wiring: the ONLY module that touches the connection. Features live in features/ and take a
// ServerContext + plain params; what the server keeps between requests lives in state/ (the
// records and their reloads: state/records.ts). startServer() works with any Connection (stdio,
// node IPC, a Web Worker's port, or an in-memory stream pair in tests) and assumes no particular
// editor. wire() builds the state and feature helpers once; bindLifecycle, bindNotifications and
// bindRequests bind every handler through one helper (binder: answer / notified): failures are
// contained (runSafe), and what needs the records waits for their first load.
import {
  type CancellationToken,
  Connection,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  DocumentDiagnosticReportKind,
  InitializeParams,
  InitializeResult,
} from 'vscode-languageserver';
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
  RecordFilesNotification,
  RecordRequest,
  ReloadRequest,
  SearchRequest,
  SeenNotification,
  SnippetRequest,
  StatusNotification,
  StatusRequest,
  TrustNotification,
} from '../protocol';
import { type ClientCaps, clientCaps, initializeResult } from './capabilities';
import type { ServerContext } from './context';
import { codeActions } from './features/codeActions';
import * as custom from './features/customRequests';
import { datasetStatus, datasetSuggest, datasetSync } from './features/dataset';
import { DatasetSuggester } from './features/datasetSuggestion';
import { definition } from './features/definition';
import { DiagnosticsPusher, problemDiagnostics, pullDiagnostics } from './features/diagnostics';
import { hover } from './features/hover';
import { documentLinks } from './features/links';
import { agentExplain, LogScans, logLines, scanCatalogOf } from './features/logScan';
import { snippetRequest } from './features/snippets';
import { errorText, interactive, Logger, runSafe, runSafeNotification } from './runSafe';
import { createDatasetService } from './state/datasetCatalogs';
import { cacheMinBytes, indexCacheDir } from '../core/indexCache';
import { DocumentStore, TrackedDocument } from './state/documents';
import { FileRefResolver } from './state/fileRefResolver';
import { isLogLike } from './state/logKind';
import { RaiseSiteResolver } from './state/raiseSiteResolver';
import { RecordsState } from './state/records';
import type { LoadedRecords } from './state/recordSources';
import { SeenRecords } from './state/seen';
import { SECTION, SettingsStore } from './state/settings';
import { Workspace } from './state/workspace';
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

/** How a request is answered besides its fallback: `interactive` (a person waits: background
 * scans step aside), `anyTime` (needs no records: answered before the first load finishes). */
interface How {
  interactive?: boolean;
  anyTime?: boolean;
}
const INTERACTIVE: How = { interactive: true };
const ANY_TIME: How = { anyTime: true };

/**
 * The one way handlers are bound. `answer(name, fallback, run)` makes a request handler: it waits
 * for the records' first load (unless anyTime), runs `run` contained by runSafe (a failure is
 * logged and answers `fallback`, given as a value or made when the request comes; cancellation
 * answers RequestCancelled). `notified(name, run)`: the same containment for notifications (they
 * wait for the records where their body says so).
 */
function binder(log: Logger, ready: Promise<void>) {
  return {
    answer<P, R>(name: string, fallback: R | (() => R), run: (p: P, token: CancellationToken) => R | Promise<R>, how: How = {}) {
      return (p: P, token: CancellationToken) => {
        const fail = typeof fallback === 'function' ? (fallback as () => R)() : fallback;
        const go = () =>
          runSafe(log, name, token, fail, async () => {
            if (!how.anyTime) await ready;
            return run(p, token);
          });
        return how.interactive ? interactive(go) : go();
      };
    },
    notified<P>(name: string, run: (p: P) => void | Promise<void>) {
      return (p: P) => runSafeNotification(log, name, () => run(p));
    },
  };
}

/** What the bindings share: the connection, the state, the feature helpers, the binder. */
interface Wiring {
  readonly connection: Connection;
  readonly log: Logger;
  readonly ctx: ServerContext;
  readonly documents: DocumentStore;
  readonly seen: SeenRecords;
  readonly workspace: Workspace;
  readonly records: RecordsState;
  readonly raiseSites: RaiseSiteResolver;
  readonly fileRefs: FileRefResolver;
  readonly pusher: DiagnosticsPusher;
  readonly logScans: LogScans;
  readonly suggester: DatasetSuggester;
  readonly answer: ReturnType<typeof binder>['answer'];
  readonly notified: ReturnType<typeof binder>['notified'];
  readonly loaded: () => LoadedRecords;
  /** What the client can do (set at initialize). */
  readonly client: { caps: ClientCaps };
}

export function startServer(connection: Connection, options: ServerOptions = {}): void {
  if (!options.keepConsole) {
    console.log = (...a: unknown[]) => connection.console.log(a.map(String).join(' '));
    console.info = (...a: unknown[]) => connection.console.info(a.map(String).join(' '));
    console.warn = (...a: unknown[]) => connection.console.warn(a.map(String).join(' '));
    console.error = (...a: unknown[]) => connection.console.error(a.map(String).join(' '));
    console.debug = console.log;
  }
  const w = wire(connection, connection.console);
  bindLifecycle(w, options);
  bindNotifications(w);
  bindRequests(w);
  connection.listen();
}

/** The server's state and feature helpers, built once per connection. */
function wire(connection: Connection, log: Logger): Wiring {
  const documents = new DocumentStore();
  const seen = new SeenRecords();
  const workspace = new Workspace();
  const folders = () => workspace.folders;

  const openText = (file: string): string[] | undefined => documents.get(pathToUri(file))?.lines;
  const raiseSites = new RaiseSiteResolver(folders, openText);
  const fileRefs = new FileRefResolver(folders);

  // Record-file problems as diagnostics on the record files (the files of the last load).
  let problemUris = new Set<string>();
  const client = { caps: clientCaps({}) };
  const records: RecordsState = new RecordsState({
    log,
    documents,
    workspace,
    watching: () =>
      client.caps.dynamicWatch
        ? { relativePatterns: client.caps.relativePatterns, register: (watchers) => connection.client.register(DidChangeWatchedFilesNotification.type, { watchers }) }
        : undefined,
    problems: (problems) => {
      const byUri = problemDiagnostics([...problems]);
      for (const uri of problemUris) if (!byUri.has(uri)) void connection.sendDiagnostics({ uri, diagnostics: [] });
      for (const [uri, diagnostics] of byUri) void connection.sendDiagnostics({ uri, diagnostics });
      problemUris = new Set(byUri.keys());
    },
    replaced: () => {
      raiseSites.clear();
      fileRefs.clear();
    },
    changed: (status) => {
      void connection.sendNotification(StatusNotification.type, status);
      refreshDiagnostics();
    },
  });
  const loaded = () => records.loaded;
  const { answer, notified } = binder(log, records.ready);

  const ctx: ServerContext = {
    log,
    documents,
    seen,
    raiseSites,
    fileRefs,
    catalog: () => records.loaded.catalog,
    index: () => records.loaded.index,
    epoch: () => records.epoch,
    folders,
    settingsFor: (uri) => workspace.settings.get(uri),
    isLogDocument: async (doc: TrackedDocument) => {
      if (doc.logLike === undefined) {
        // In an untrusted workspace the globs are the defaults (normalizeSettings): a workspace cannot
        // choose which files get matched (VS Code also drops workspace values there: restrictedConfigurations)
        doc.logLike = isLogLike(doc.uri, doc.languageId, (await workspace.settings.get(doc.uri)).logFiles, workspace.folders);
      }
      return doc.logLike;
    },
  };
  // One-time dataset suggestion (after the first load; trusted workspaces; errorExplainer.dataset.suggest).
  const suggester = new DatasetSuggester({
    dataset: () => records.dataset,
    trusted: () => workspace.trusted,
    folders,
    settings: () => workspace.settings.get(undefined),
    send: (p) => void connection.sendNotification(DatasetSuggestionNotification.type, p),
    log,
  });
  const pusher = new DiagnosticsPusher(ctx, (uri, diagnostics, version) => {
    void connection.sendDiagnostics({ uri, diagnostics, ...(version !== undefined ? { version } : {}) });
  });
  const logScans = new LogScans(() => loaded().catalog, (r) => void connection.sendNotification(ScanLogUpdateNotification.type, r), log);

  function refreshDiagnostics(): void {
    if (client.caps.pull) {
      if (client.caps.refresh) connection.languages.diagnostics.refresh();
    } else pusher.scheduleAll();
  }
  return { connection, log, ctx, documents, seen, workspace, records, raiseSites, fileRefs, pusher, logScans, suggester, answer, notified, loaded, client };
}

/** initialize, initialized (the first record load), shutdown. */
function bindLifecycle(w: Wiring, options: ServerOptions): void {
  const { connection, client, log, workspace, records, logScans, suggester } = w;

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    const c = params.capabilities;
    const init = (params.initializationOptions ?? {}) as InitializationOptions;
    workspace.trusted = init.workspaceTrusted === true;
    let dataset;
    if (!options.web) {
      try {
        dataset = createDatasetService(typeof init.storagePath === 'string' ? init.storagePath : undefined);
      } catch (e) {
        log.warn(`the ErrLookup dataset is unavailable: ${errorText(e)}`);
      }
    }
    records.configure({
      bundledPath: options.bundledRecordsPath ?? (typeof init.bundledRecordsPath === 'string' ? init.bundledRecordsPath : undefined),
      recordFiles: Array.isArray(init.recordFiles) ? init.recordFiles : undefined,
      dataset,
      // the CLI's cache folder and threshold, from the environment only (no setting or
      // initialization option of a workspace can move it)
      indexCache: options.web ? undefined : { dir: indexCacheDir(process.env), minBytes: cacheMinBytes(process.env) },
    });
    client.caps = clientCaps(c);
    workspace.settings = new SettingsStore(
      c.workspace?.configuration
        ? (scopeUri) => connection.workspace.getConfiguration(scopeUri ? { scopeUri, section: SECTION } : { section: SECTION })
        : undefined,
      () => workspace.trusted,
    );
    workspace.setFolders(params);
    return initializeResult(client.caps);
  });

  connection.onInitialized(() => {
    if (client.caps.dynamicConfig) {
      void connection.client.register(DidChangeConfigurationNotification.type, { section: SECTION }).catch(() => undefined);
    }
    try {
      connection.workspace.onDidChangeWorkspaceFolders((e) => {
        workspace.changeFolders(e);
        void records.reload(true);
      });
    } catch {
      // the client does not support workspace folder notifications
    }
    records.start();
    void records.ready.then(() => suggester.offer());
  });

  connection.onShutdown(() => {
    logScans.dispose();
    records.dispose();
  });
}

/** Documents (incremental sync); configuration, watched files, trust, the web client's record files, seen records. */
function bindNotifications(w: Wiring): void {
  const { connection, client, documents, seen, workspace, records, raiseSites, fileRefs, pusher, suggester, notified, loaded } = w;

  connection.onDidOpenTextDocument(
    notified('didOpen', (p) => {
      const d = p.textDocument;
      documents.open(d.uri, d.languageId, d.version, d.text);
      if (!client.caps.pull) pusher.schedule(d.uri);
    }),
  );
  connection.onDidChangeTextDocument(
    notified('didChange', (p) => {
      const doc = documents.get(p.textDocument.uri);
      if (!doc) return;
      doc.apply(p.contentChanges, p.textDocument.version);
      if (doc.logLike === false) {
        const file = uriToPath(doc.uri);
        if (file && loaded().index.raisedIn.recordsRaisedIn(file).length) raiseSites.clear();
      }
      if (!client.caps.pull) pusher.schedule(doc.uri);
    }),
  );
  connection.onDidCloseTextDocument(
    notified('didClose', (p) => {
      documents.close(p.textDocument.uri);
      pusher.closed(p.textDocument.uri);
    }),
  );
  connection.onDidSaveTextDocument(
    notified('didSave', (p) => {
      const file = uriToPath(p.textDocument.uri);
      if (file && records.affects(file)) void records.reload(true);
    }),
  );

  // ------------------------------------------------------------------------------------------
  // Configuration, watched files, trust, the web client's record files, seen records

  connection.onDidChangeConfiguration(
    notified('didChangeConfiguration', async (p) => {
      workspace.settings.changed(p.settings);
      records.settingsChanged();
      await records.ready;
      await records.reload(false);
    }),
  );
  connection.onDidChangeWatchedFiles(
    notified('didChangeWatchedFiles', async (p) => {
      raiseSites.clear();
      fileRefs.clear();
      const files = p.changes.map((c) => uriToPath(c.uri)).filter((f): f is string => !!f);
      if (files.some((f) => records.affects(f))) {
        await records.ready;
        await records.reload(true);
      }
    }),
  );
  connection.onNotification(
    TrustNotification.type,
    notified('trust', async (p) => {
      const next = p?.workspaceTrusted === true;
      if (next === workspace.trusted) return;
      workspace.trusted = next;
      await records.ready;
      await records.reload(true);
      void suggester.offer();
    }),
  );
  connection.onNotification(
    RecordFilesNotification.type,
    notified('recordFiles', async (p) => {
      if (!Array.isArray(p?.files)) return;
      records.setRecordFiles(p.files);
      await records.ready;
      await records.reload(true);
    }),
  );
  connection.onNotification(
    SeenNotification.type,
    notified('seen', async (p) => {
      // Matches can arrive before the first record load finishes (a terminal scan right after
      // start-up): wait for it instead of dropping ids the catalog does not know yet.
      await records.ready;
      const catalog = loaded().catalog;
      for (const m of Array.isArray(p?.matches) ? p.matches : []) {
        if (m && typeof m.id === 'string' && catalog.get(m.id)) seen.note(catalog.get(m.id)!.id, typeof p.source === 'string' ? p.source.slice(0, 200) : undefined);
      }
    }),
  );
}

/** Requests: the table. */
function bindRequests(w: Wiring): void {
  const { connection, client, ctx, workspace, records, fileRefs, logScans, answer, loaded } = w;

  connection.onHover(answer('hover', null, (p, token) => hover(ctx, p, token), INTERACTIVE));
  connection.onDefinition(answer('definition', null, (p) => definition(ctx, fileRefs, p), INTERACTIVE));
  // (not interactive: links of a whole document wait for its scan)
  connection.onDocumentLinks(answer('documentLinks', [], (p, token) => documentLinks(ctx, fileRefs, p, token)));
  connection.onCodeAction(answer('codeAction', [], (p, token) => codeActions(ctx, p as typeof p & CodeActionFormattingOptions, token), INTERACTIVE));
  connection.languages.diagnostics.on(
    answer('diagnostics', { kind: DocumentDiagnosticReportKind.Full, items: [] }, (p, token) => pullDiagnostics(ctx, p.textDocument.uri, p.previousResultId, token)),
  );

  connection.onRequest(SearchRequest.type, answer('search', [], (p) => custom.search(ctx, p), INTERACTIVE));
  connection.onRequest(RecordRequest.type, answer('record', null, (p) => custom.record(ctx, p, completer())));
  connection.onRequest(ExplainTextRequest.type, answer('explainText', [], (p, token) => custom.explainText(ctx, p, token)));
  connection.onRequest(SnippetRequest.type, answer('snippet', null, (p) => snippetRequest(ctx, p)));
  connection.onRequest(StatusRequest.type, answer('status', () => loaded().status, () => loaded().status));
  connection.onRequest(ReloadRequest.type, answer('reload', () => loaded().status, () => records.reload(true)));

  connection.onRequest(
    DatasetStatusRequest.type,
    answer('datasetStatus', null, () => {
      const ds = records.dataset;
      const loadedFromDataset = loaded().status.sources.find((x) => x.origin === 'dataset')?.records ?? 0;
      return ds ? datasetStatus(ds, loadedFromDataset) : null;
    }),
  );
  connection.onRequest(
    DatasetSyncRequest.type,
    answer('datasetSync', null, async (p) => {
      const ds = records.dataset;
      if (!ds) return { status: 'failed' as const, datasetVersion: null, reason: 'no dataset cache folder' };
      const r = await datasetSync(ds, p?.force !== false, typeof p?.url === 'string' ? p.url : undefined);
      if (r.status !== 'failed') await records.reload(true);
      return r;
    }),
  );
  connection.onRequest(
    DatasetSuggestRequest.type,
    answer('datasetSuggest', null, () => {
      const ds = records.dataset;
      return ds ? datasetSuggest(ds, workspace.folders) : null;
    }),
  );

  // Log files on disk and the language-model tool (features/logScan.ts)
  connection.onRequest(
    ScanLogRequest.type,
    answer('scanLog', null, async (p, token) => {
      // progress on the client's token, else on one we create (the client can cancel either)
      const reporter = p?.workDoneToken !== undefined ? connection.window.attachWorkDoneProgress(p.workDoneToken) : client.caps.workDoneProgress ? await connection.window.createWorkDoneProgress() : undefined;
      const progressToken = reporter && 'token' in reporter ? (reporter.token as typeof token) : undefined;
      return logScans.scan(p, reporter, () => token.isCancellationRequested || progressToken?.isCancellationRequested === true);
    }),
  );
  connection.onRequest(ScanLogStopRequest.type, answer('scanLogStop', null, (p) => logScans.stop(Number(p?.scanId)), ANY_TIME));
  connection.onRequest(LogLinesRequest.type, answer('logLines', null, (p) => logLines(p), ANY_TIME));
  connection.onRequest(
    AgentExplainRequest.type,
    answer('agentExplain', null, (p, token) => {
      const complete = completer();
      return agentExplain(
        {
          cwd: workspace.folders[0] ?? process.cwd(),
          catalog: () => loaded().catalog,
          scanCatalog: () => scanCatalogOf(loaded().catalog),
          records: () => scanCatalogOf(loaded().catalog).records,
          sources: () => loaded().status.sources,
          ...(complete ? { complete } : {}),
        },
        p,
        () => token.isCancellationRequested,
      );
    }),
  );

  /** The dataset's full record for a lite row (when there is a dataset). */
  function completer() {
    const ds = records.dataset;
    return ds ? (r: Parameters<typeof ds.complete>[0]) => ds.complete(r) : undefined;
  }
}
