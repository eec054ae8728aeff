// Entry point of dist/web/extension.js (package.json "browser"): vscode.dev, github.dev and any
// web-worker extension host. The language server is dist/web/server.js in a Web Worker; its
// records are read here through workspace.fs (recordFiles.ts). What needs Node is not offered:
// the ErrLookup dataset, Scan Log File… / the Known Errors view, the language-model tool and MCP
// (package.json hides them with `errorExplainer.web`).
import * as vscode from 'vscode';
import { BaseLanguageClient, BrowserMessageReader, BrowserMessageWriter, type LanguageClientOptions, type MessageTransports } from 'vscode-languageclient/browser';
import { RecordFilesNotification, type RecordFilesParams } from '../../server/src/protocol';
import type { ErrorExplainerApi } from './api';
import { activateWith, deactivate } from './extension';
import type { ClientPlatform } from './platform';
import { RecordFileCollector } from './recordFiles';

export { deactivate };

interface WorkerLike {
  terminate(): void;
  onerror: ((e: { message?: string }) => void) | null;
}
type WorkerCtor = new (url: string, options?: { name?: string }) => WorkerLike;

/**
 * The server's Web Worker, from a blob: URL of dist/web/server.js read through workspace.fs. VS
 * Code refuses `new Worker(uri)` for an extension it loads from a remote (code-server, Remote), and
 * a blob: worker is allowed wherever web extensions run (the extension host's CSP has blob:).
 */
async function serverWorker(extensionUri: vscode.Uri): Promise<WorkerLike> {
  const code = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(extensionUri, 'dist', 'web', 'server.js'));
  const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
  const Worker = (globalThis as unknown as { Worker: WorkerCtor }).Worker;
  return new Worker(url, { name: 'Error Explainer language server' });
}

/** A language client whose every (re)start runs the server in a new worker. */
class WorkerLanguageClient extends BaseLanguageClient {
  private worker: WorkerLike | undefined;
  constructor(
    id: string,
    name: string,
    options: LanguageClientOptions,
    private readonly newWorker: () => Promise<WorkerLike>,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super(id, name, options);
  }

  protected async createMessageTransports(): Promise<MessageTransports> {
    this.worker?.terminate();
    const worker = await this.newWorker();
    worker.onerror = (e) => this.log.error(`language server worker: ${e?.message ?? 'error'}`);
    this.worker = worker;
    const port = worker as unknown as ConstructorParameters<typeof BrowserMessageReader>[0];
    return { reader: new BrowserMessageReader(port), writer: new BrowserMessageWriter(port) };
  }

  override async dispose(timeout?: number): Promise<void> {
    await super.dispose(timeout);
    this.worker?.terminate();
    this.worker = undefined;
  }
}

export function activate(context: vscode.ExtensionContext): ErrorExplainerApi {
  let output: vscode.LogOutputChannel | undefined;
  const records = new RecordFileCollector(context.extensionUri, (m) => output?.info(m));
  context.subscriptions.push(records);
  const platform: ClientPlatform = {
    kind: 'web',
    // documents of the workspace's file systems (vscode-vfs, vscode-remote, …)
    documentSchemes: () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.scheme),
    prepare: async () => {
      await records.collect();
    },
    initializationOptions: () => ({ recordFiles: records.files }),
    createClient: (id, name, options) => new WorkerLanguageClient(id, name, options, () => serverWorker(context.extensionUri), options.outputChannel as vscode.LogOutputChannel),
    register: (s) => {
      output = s.output;
      records.watch(() => void s.server.notify<RecordFilesParams>(RecordFilesNotification.method, { files: records.files }));
      return { dispose: () => undefined };
    },
  };
  return activateWith(context, platform);
}
