// Where the language server runs. 'node' (client/src/node.ts): dist/server.js in a Node process
// over IPC, reading records, the dataset cache and log files from disk (desktop, Remote,
// Codespaces, code-server). 'web' (client/src/web.ts): dist/web/server.js in a Web Worker, with
// records read by the client through workspace.fs (vscode.dev, github.dev, web-worker hosts).
// Everything else in the client is the same code on both.
import type * as vscode from 'vscode';
import type { ServerPlatform } from './server';
import type { Services } from './services';
import type { AgentsState, KnownErrorsNode } from './state';

/** The server's side of the platform (ServerPlatform, server.ts) plus its own features. */
export interface ClientPlatform extends ServerPlatform {
  /** Features only this platform has, registered once the shared ones are (node: Known Errors view, LM tool, MCP). */
  register?(s: Services, hooks: PlatformHooks): PlatformFeatures;
}

export interface PlatformHooks {
  /** Subscribe to terminal scans (the status item changed). */
  onTerminalChanged(listener: () => void): void;
}

/** What platform features expose to the extension API (tests). */
export interface PlatformFeatures extends vscode.Disposable {
  knownErrors?: () => KnownErrorsNode[];
  agents?: () => AgentsState;
  mcpCommand?: () => { command: string; args: string[]; cwd: string | undefined; env: Record<string, string> };
}
