// A minimal LSP client for protocol tests: spawns the BUILT server (`node dist/server.js --stdio`),
// speaks JSON-RPC over its stdio (a MessageConnection: it takes catch-all handlers), answers the server's requests (workspace/configuration,
// client/registerCapability, workspace/diagnostic/refresh) and records its notifications.
// Tests poll with `waitFor`, never sleep.
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ClientCapabilities,
  createMessageConnection,
  Diagnostic,
  InitializeParams,
  InitializeResult,
  MessageConnection,
  PublishDiagnosticsParams,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import { BUNDLED_RECORDS as BUNDLED, SERVER, WORKSPACE_FIXTURE as FIXTURE, tempDir } from '../shared/paths';
import type { Pos } from '../shared/positions';
import { startWebWorker, type WebWorkerServer } from './webWorker';

// the shared test helpers, where the protocol tests have always imported them from
export { BUNDLED_RECORDS as BUNDLED, REPO, SERVER, WORKSPACE_FIXTURE as FIXTURE } from '../shared/paths';
export { waitFor } from '../shared/poll';
export { lineOf, positionOf, type Pos } from '../shared/positions';

export function uriOf(p: string): string {
  return pathToFileURL(p).href;
}

/** A fresh copy of the fixture workspace (tests edit record files in it). */
export function copyFixture(): string {
  const dir = tempDir('ws');
  fs.cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

export const FULL_CAPABILITIES: ClientCapabilities = {
  workspace: {
    configuration: true,
    workspaceFolders: true,
    didChangeConfiguration: { dynamicRegistration: true },
    didChangeWatchedFiles: { dynamicRegistration: true, relativePatternSupport: true },
    diagnostics: { refreshSupport: true },
  },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: true },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
    publishDiagnostics: { relatedInformation: true, versionSupport: true },
    codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'quickfix', 'refactor'] } } },
    documentLink: { tooltipSupport: true },
    definition: { linkSupport: false },
  },
};

/** Capabilities of an older plain client: no pull diagnostics, no configuration, no watchers. */
export const PUSH_ONLY_CAPABILITIES: ClientCapabilities = {
  textDocument: {
    synchronization: { didSave: true },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    publishDiagnostics: { relatedInformation: true },
  },
};

export interface StartOptions {
  workspace: string;
  /** Defaults to <repo>/dist/server.js. */
  serverPath?: string;
  /** Extra node flags for the server process (bench: heap size). */
  nodeArgs?: string[];
  capabilities?: ClientCapabilities;
  initializationOptions?: Record<string, unknown>;
  /** The errorExplainer section answered for workspace/configuration (per scopeUri if a function). */
  settings?: Record<string, unknown> | ((scopeUri: string | undefined) => Record<string, unknown>);
  /** Run the web build (dist/web/server.js) in a worker-like vm context instead of a process. */
  web?: boolean;
  /** Environment of the server process, over this one's. ERROR_EXPLAINER_INDEX_CACHE defaults to a
   * private folder (removed by stop): no test writes index cache files into the user's cache. */
  env?: Record<string, string>;
}

export class TestClient {
  readonly notifications: { method: string; params: unknown }[] = [];
  readonly published = new Map<string, PublishDiagnosticsParams>();
  readonly registrations: { id: string; method: string; registerOptions?: unknown }[] = [];
  readonly configurationRequests: unknown[] = [];
  /** Every request the server sent (method, params), in order. */
  readonly serverRequests: { method: string; params: unknown }[] = [];
  refreshRequests = 0;
  stderr = '';
  settings: StartOptions['settings'];
  readonly storage = tempDir('storage');
  initializeResult!: InitializeResult;
  private versions = new Map<string, number>();
  /** The private index cache folder made for this client (not one given in opts.env). */
  private ownIndexCache: string | undefined;

  private constructor(
    private readonly process_: ChildProcess | undefined,
    readonly conn: MessageConnection,
    readonly workspace: string,
    /** The web build's worker (opts.web). */
    readonly worker?: WebWorkerServer,
  ) {}

  /** The server process (not for opts.web: that server runs in this process). */
  get proc(): ChildProcess {
    if (!this.process_) throw new Error('the web server has no process (it runs in a vm context)');
    return this.process_;
  }

  static async start(opts: StartOptions): Promise<TestClient> {
    let client: TestClient;
    if (opts.web) {
      const worker = startWebWorker(opts.serverPath);
      client = new TestClient(undefined, createMessageConnection(worker.reader, worker.writer), opts.workspace, worker);
    } else {
      const server = opts.serverPath ?? SERVER;
      const ownIndexCache = opts.env?.['ERROR_EXPLAINER_INDEX_CACHE'] === undefined ? tempDir('index') : undefined;
      const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), server, '--stdio'], {
        cwd: path.dirname(path.dirname(server)),
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, ...(ownIndexCache ? { ERROR_EXPLAINER_INDEX_CACHE: ownIndexCache } : {}), ...opts.env },
      });
      client = new TestClient(proc, createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!)), opts.workspace);
      client.ownIndexCache = ownIndexCache;
      proc.stderr!.on('data', (d) => (client.stderr += String(d)));
    }
    const conn = client.conn;
    client.settings = opts.settings ?? {};
    conn.onNotification((method, params) => {
      client.notifications.push({ method, params });
      if (method === 'textDocument/publishDiagnostics') {
        const p = params as PublishDiagnosticsParams;
        client.published.set(p.uri, p);
      }
    });
    // $/progress skips the catch-all handler: record it as a notification too
    conn.onUnhandledProgress((p) => client.notifications.push({ method: '$/progress', params: p }));
    conn.onRequest((method, params) => {
      client.serverRequests.push({ method, params });
      switch (method) {
        case 'workspace/configuration': {
          client.configurationRequests.push(params);
          const items = (params as { items: { scopeUri?: string; section?: string }[] }).items;
          return items.map((it) => {
            const s = typeof client.settings === 'function' ? client.settings(it.scopeUri) : client.settings;
            return it.section === 'errorExplainer' ? s : null;
          });
        }
        case 'client/registerCapability':
          for (const r of (params as { registrations: { id: string; method: string; registerOptions?: unknown }[] }).registrations) {
            client.registrations.push(r);
          }
          return null;
        case 'client/unregisterCapability':
          return null;
        case 'workspace/diagnostic/refresh':
          client.refreshRequests++;
          return null;
        default:
          return null;
      }
    });
    conn.listen();
    const init: InitializeParams = {
      processId: process.pid,
      rootUri: uriOf(opts.workspace),
      workspaceFolders: [{ uri: uriOf(opts.workspace), name: 'ws' }],
      capabilities: opts.capabilities ?? FULL_CAPABILITIES,
      // A private storage folder: the dataset cache of the tests never touches the user's.
      initializationOptions: { bundledRecordsPath: BUNDLED, workspaceTrusted: true, storagePath: client.storage, ...opts.initializationOptions },
    };
    client.initializeResult = await conn.sendRequest('initialize', init);
    await conn.sendNotification('initialized', {});
    return client;
  }

  uri(rel: string): string {
    return uriOf(path.join(this.workspace, rel));
  }

  text(rel: string): string {
    return fs.readFileSync(path.join(this.workspace, rel), 'utf8');
  }

  async open(rel: string, languageId: string, text = this.text(rel)): Promise<string> {
    const uri = this.uri(rel);
    this.versions.set(uri, 1);
    await this.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
    return uri;
  }

  async change(uri: string, changes: { range?: { start: Pos; end: Pos }; text: string }[]): Promise<void> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    await this.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: changes });
  }

  request<R>(method: string, params?: unknown): Promise<R> {
    return this.conn.sendRequest(method, params) as Promise<R>;
  }

  async pull(uri: string, previousResultId?: string): Promise<{ kind: string; resultId?: string; items?: Diagnostic[] }> {
    return this.request('textDocument/diagnostic', { textDocument: { uri }, ...(previousResultId ? { previousResultId } : {}) });
  }

  notificationsOf(method: string): unknown[] {
    return this.notifications.filter((n) => n.method === method).map((n) => n.params);
  }

  async stop(): Promise<void> {
    try {
      await Promise.race([this.conn.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 2000))]);
      await this.conn.sendNotification('exit');
    } catch {
      // already gone
    }
    this.conn.dispose();
    this.worker?.terminate();
    if (this.process_ && this.process_.exitCode === null) {
      const exited = new Promise((r) => this.proc.once('exit', r));
      const t = setTimeout(() => this.proc.kill(), 2000);
      await exited;
      clearTimeout(t);
    }
    fs.rmSync(this.storage, { recursive: true, force: true });
    if (this.ownIndexCache) fs.rmSync(this.ownIndexCache, { recursive: true, force: true });
  }
}
