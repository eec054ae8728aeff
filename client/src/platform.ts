// Where the language server runs. 'node' (client/src/node.ts): dist/server.js in a Node process
// over IPC, reading records, the dataset cache and log files from disk (desktop, Remote,
// Codespaces, code-server). 'web' (client/src/web.ts): dist/web/server.js in a Web Worker, with
// records read by the client through workspace.fs (vscode.dev, github.dev, web-worker hosts).
// Everything else in the client is the same code on both.
import type * as vscode from 'vscode';
import type { BaseLanguageClient, LanguageClientOptions } from 'vscode-languageclient';
import type { InitializationOptions } from '../../server/src/protocol';
import type { Services } from './services';

export interface ClientPlatform {
  readonly kind: 'node' | 'web';
  /** Document schemes the server reads besides file, untitled and output (web: the workspace's file systems). */
  readonly documentSchemes: () => string[];
  /** Runs once before the server first starts (web: reads the record files). */
  prepare(): Promise<void>;
  /** The platform's part of the initialization options (node: paths; web: the record files). */
  initializationOptions(): InitializationOptions;
  createClient(id: string, name: string, options: LanguageClientOptions): BaseLanguageClient;
  /** Features only this platform has, registered once the shared ones are (node: Known Errors view, LM tool, MCP). */
  register?(s: Services, hooks: PlatformHooks): PlatformFeatures;
}

export interface PlatformHooks {
  /** Subscribe to terminal scans (the status item changed). */
  onTerminalChanged(listener: () => void): void;
}

/** What platform features expose to the extension API (tests). */
export interface PlatformFeatures extends vscode.Disposable {
  knownErrors?: () => import('./knownErrors').KnownErrorsNode[];
  agents?: () => import('./agents').AgentsState;
  mcpCommand?: () => { command: string; args: string[]; cwd: string | undefined; env: Record<string, string> };
}
