// The client's capabilities the server uses, and the server's answer to initialize for them.
import { type ClientCapabilities, CodeActionKind, type InitializeResult, TextDocumentSyncKind } from 'vscode-languageserver';
import { ON_DEMAND_KIND } from './features/codeActions';

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
