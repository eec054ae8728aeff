// The language server connection: created once, started lazily (first log document, first
// command, first terminal output), restarted a bounded number of times when it crashes, with the
// client-side state (trust, terminal matches) re-sent after every (re)start. Where the server
// runs (a Node process or a Web Worker) is the platform's business (ServerPlatform, below; the
// platforms are node.ts and web.ts).
import * as vscode from 'vscode';
import { type BaseLanguageClient, CloseAction, ErrorAction, type LanguageClientOptions, type NotificationType, State } from 'vscode-languageclient';
import { Commands, InitializationOptions, SeenNotification, SeenParams, StatusNotification, StatusResult } from '../../server/src/protocol';
import { Notifier } from './notify';
import { withSnippetEdit } from './snippetEdit';

export const CLIENT_ID = 'errorExplainer';
const CLIENT_NAME = 'Error Explainer';
/** Restarts allowed within RESTART_WINDOW_MS before the client gives up. */
export const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

/** Commands the server may put into hovers and code actions: the only live `command:` links. */
const TRUSTED_COMMANDS: string[] = Object.values(Commands);

/** Where and how the server process runs: the part of the platform (platform.ts) the connection needs. */
export interface ServerPlatform {
  readonly kind: 'node' | 'web';
  /** Document schemes the server reads besides file, untitled and output (web: the workspace's file systems). */
  readonly documentSchemes: () => string[];
  /** Runs once before the server first starts (web: reads the record files). */
  prepare(): Promise<void>;
  /** The platform's part of the initialization options (node: paths; web: the record files). */
  initializationOptions(): InitializationOptions;
  createClient(id: string, name: string, options: LanguageClientOptions): BaseLanguageClient;
}

export class ServerHandle implements vscode.Disposable {
  private client: BaseLanguageClient | undefined;
  private starting: Promise<BaseLanguageClient> | undefined;
  private readonly crashes: number[] = [];
  private readonly seen: SeenParams[] = [];
  private readonly statusEmitter = new vscode.EventEmitter<StatusResult>();
  private readonly runningEmitter = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly handlers: ((client: BaseLanguageClient) => vscode.Disposable)[] = [];
  /** Times the server was (re)started after a crash; exposed to tests. */
  restarts = 0;
  /** True once the client gave up restarting. */
  gaveUp = false;
  lastStatus: StatusResult | undefined;
  /** After a (re)start, terminal matches are re-sent once the server reports loaded records. */
  private resendSeen = false;

  /** Fires with every status the server reports (records loaded, problems). */
  readonly onStatus = this.statusEmitter.event;
  /** Fires whenever the server is (again) running. */
  readonly onRunning = this.runningEmitter.event;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly notifier: Notifier,
    readonly platform: ServerPlatform,
  ) {}

  get isStarted(): boolean {
    return this.client !== undefined && this.client.state === State.Running;
  }

  /** Starts the server on first use; later calls return the same client. */
  start(): Promise<BaseLanguageClient> {
    if (!this.starting) {
      this.starting = this.create().catch((e: unknown) => {
        this.starting = undefined;
        const msg = e instanceof Error ? e.message : String(e);
        this.output.error(`Error Explainer server failed to start: ${msg}`);
        this.notifier.once('start-failed', 'error', `Error Explainer: the language server could not start (${msg}).`, ['Show Output'])
          .then((pick) => pick && this.output.show());
        throw e;
      });
    }
    return this.starting;
  }

  /** A request to the server, starting it when needed. */
  async request<P, R>(type: { method: string }, params?: P, token?: vscode.CancellationToken): Promise<R> {
    const client = await this.start();
    return params === undefined
      ? client.sendRequest<R>(type.method, token)
      : client.sendRequest<R>(type.method, params, token);
  }

  /** Records matches seen outside documents (terminal) and tells the server; re-sent after restarts. */
  async reportSeen(params: SeenParams): Promise<void> {
    this.seen.push(params);
    if (this.seen.length > 50) this.seen.splice(0, this.seen.length - 50);
    const client = await this.start();
    await client.sendNotification(SeenNotification.type, params);
  }

  /** Seen notifications sent so far (kept to rebuild the server's state after a restart). */
  seenReported(): readonly SeenParams[] {
    return this.seen.slice();
  }

  /** A server -> client notification handler: registered on the client before it starts (nothing
   * sent early is lost) and kept across restarts. */
  onNotification<P>(type: NotificationType<P>, handler: (params: P) => void): void {
    const register = (client: BaseLanguageClient): vscode.Disposable => client.onNotification(type, handler);
    this.handlers.push(register);
    if (this.client) this.disposables.push(register(this.client));
  }

  async notify<P>(method: string, params: P): Promise<void> {
    if (!this.client || this.client.state !== State.Running) return; // sent at start via initializationOptions
    await this.client.sendNotification(method, params);
  }

  private async create(): Promise<BaseLanguageClient> {
    await this.platform.prepare();
    const schemes = [...new Set(['file', 'untitled', 'output', ...this.platform.documentSchemes()])];
    const clientOptions: LanguageClientOptions = {
      // Every text document: the server decides what is a log (language `log`, output panels,
      // errorExplainer.logFiles) and what is source code (snippet code actions).
      documentSelector: schemes.map((scheme) => ({ scheme })),
      outputChannel: this.output,
      traceOutputChannel: this.output,
      initializationOptions: (): InitializationOptions => ({
        ...this.platform.initializationOptions(),
        workspaceTrusted: vscode.workspace.isTrusted,
      }),
      synchronize: {
        configurationSection: 'errorExplainer',
        fileEvents: [
          vscode.workspace.createFileSystemWatcher('**/.error-records/**'),
          vscode.workspace.createFileSystemWatcher('**/*.errors.json'),
        ],
      },
      markdown: { isTrusted: { enabledCommands: TRUSTED_COMMANDS }, supportHtml: false },
      middleware: {
        // Never feed our own output channel (which logs the traffic) back to the server.
        didOpen: (doc, next) => (isOwnOutput(doc) ? Promise.resolve() : next(doc)),
        didChange: (e, next) => (isOwnOutput(e.document) ? Promise.resolve() : next(e)),
        didClose: (doc, next) => (isOwnOutput(doc) ? Promise.resolve() : next(doc)),
        // Snippet code actions: the server's plain edit becomes a snippet edit with tab stops.
        provideCodeActions: async (doc, range, context, token, next) => {
          const actions = await next(doc, range, context, token);
          return actions?.map((a) => withSnippetEdit(doc, a));
        },
      },
      errorHandler: {
        // Write/read errors on a dying connection: keep going; `closed` decides about restarts
        // (shutting down here would stop the client without a restart or a message).
        error: (error) => {
          this.output.warn(`connection error: ${error.message}`);
          return { action: ErrorAction.Continue, handled: true };
        },
        closed: () => this.onClosed(),
      },
      initializationFailedHandler: (error) => {
        const msg = error instanceof Error ? error.message : String(error);
        this.output.error(`Error Explainer server initialization failed: ${msg}`);
        return false;
      },
    };
    const client = this.platform.createClient(CLIENT_ID, CLIENT_NAME, clientOptions);
    this.client = client;
    // Handlers registered before start survive restarts (the client re-registers them).
    this.disposables.push(
      client.onNotification(StatusNotification.type, (s) => {
        this.lastStatus = s;
        this.statusEmitter.fire(s);
        if (this.resendSeen) {
          this.resendSeen = false;
          void this.sendSeen(client);
        }
      }),
      client.onDidChangeState((e) => {
        if (e.newState === State.Running) void this.afterRunning(client);
      }),
    );
    for (const register of this.handlers) this.disposables.push(register(client));
    await client.start();
    return client;
  }

  private onClosed(): { action: CloseAction; handled: boolean } {
    const now = Date.now();
    this.crashes.push(now);
    while (this.crashes.length && now - (this.crashes[0] ?? now) > RESTART_WINDOW_MS) this.crashes.shift();
    if (this.crashes.length > MAX_RESTARTS) {
      this.gaveUp = true;
      this.output.error(`The server stopped ${this.crashes.length} times in 3 minutes; not restarting.`);
      void this.notifier
        .once('gave-up', 'error', 'Error Explainer: the language server keeps stopping and was not restarted. Run "Error Explainer: Reload Records" after fixing the cause, or see the output.', ['Show Output'])
        .then((pick) => pick && this.output.show());
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    this.restarts++;
    this.output.warn(`The server stopped unexpectedly; restarting (${this.crashes.length}/${MAX_RESTARTS}).`);
    // One message per session for restarts; further restarts only go to the log.
    void this.notifier
      .once('restarted', 'warning', 'Error Explainer: the language server stopped unexpectedly and was restarted.', ['Show Output'])
      .then((pick) => pick && this.output.show());
    return { action: CloseAction.Restart, handled: true };
  }

  /** Rebuild the state the server cannot know by itself after a (re)start. */
  private async afterRunning(client: BaseLanguageClient): Promise<void> {
    // The server may still be loading its records (a seen id it does not know yet is dropped), so
    // send now and again with its first status report.
    this.resendSeen = this.seen.length > 0;
    await this.sendSeen(client);
    this.runningEmitter.fire();
  }

  private async sendSeen(client: BaseLanguageClient): Promise<void> {
    try {
      for (const s of this.seen) await client.sendNotification(SeenNotification.type, s);
    } catch (e) {
      this.output.warn(`re-sending terminal matches failed: ${String(e)}`);
    }
  }

  /** Restart on user request (e.g. after giving up). */
  async restart(): Promise<void> {
    this.crashes.length = 0;
    this.gaveUp = false;
    // node's LanguageClient has restart(); elsewhere stop + start (the web client makes a new worker)
    const client = this.client as (BaseLanguageClient & { restart?: () => Promise<void> }) | undefined;
    if (client?.restart) await client.restart();
    else if (client) {
      if (client.state === State.Running) await client.stop(2000);
      await client.start();
    } else await this.start();
  }

  async stop(): Promise<void> {
    if (this.client && this.client.state === State.Running) await this.client.stop(2000);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.statusEmitter.dispose();
    this.runningEmitter.dispose();
    void this.stop();
  }
}

function isOwnOutput(doc: vscode.TextDocument): boolean {
  return doc.uri.scheme === 'output' && decodeURIComponent(doc.uri.path).includes(CLIENT_NAME);
}
