// What activate() returns: a small, read-only view of the client's state for the end-to-end
// tests (and for other extensions that want to know whether the server runs). Nothing in it can
// change the client's behaviour.
import type { SeenParams, StatusResult } from '../../server/src/protocol';
import type { ShownMessage } from './notify';
import type {
  AgentsState, AnsiDecorationState, InlineMessage, KnownErrorsNode, PickerState, SuggestionShown, TerminalCommand, TerminalScan,
} from './state';

export type { AgentsState, AnsiDecorationState, InlineMessage, KnownErrorsNode, PickerState, SuggestionShown, TerminalCommand, TerminalScan };




export interface ErrorExplainerApi {
  /** Starts the server when needed and resolves once it answers. */
  ready(): Promise<void>;
  serverRunning(): boolean;
  /** Crash restarts so far, and whether the client gave up. */
  restarts(): { count: number; gaveUp: boolean };
  /** Text of the status bar items (records item and its tooltip as plain text, terminal item; '' when hidden). */
  statusText(): { records: string; recordsTooltip: string; terminal: string };
  lastStatus(): StatusResult | undefined;
  /** The open picker (QuickPick), if any. */
  picker(): PickerState | undefined;
  /** Terminal command outputs that contained known errors, oldest first. */
  terminalScans(): readonly TerminalScan[];
  /** Every terminal command that ended (last 50), oldest first, whether its output arrived. */
  terminalCommands(): readonly TerminalCommand[];
  /** Seen notifications sent to the server (re-sent after every restart), oldest first. */
  seenReported(): readonly SeenParams[];
  /** What the terminal link provider returns for a terminal line (the same provider VS Code calls). */
  terminalLinks(line: string): Promise<{ startIndex: number; length: number; tooltip: string | undefined }[]>;
  /** Messages shown to the user (notifications), oldest first. */
  messages(): readonly ShownMessage[];
  /** The server's one-time dataset suggestion as shown (at most one per session) and the user's answer. */
  datasetSuggestions(): readonly SuggestionShown[];
  /** Where the server runs: 'node' (dist/server.js) or 'web' (dist/web/server.js in a Web Worker). */
  platform(): 'node' | 'web';
  /** ANSI decorations applied to the visible editor of this document (URI string), if any. */
  ansiDecorations(uri: string): AnsiDecorationState | undefined;
  // -- agents & big logs
  /** The Known Errors view as shown: scanned files, Terminal, Open documents; records; occurrences. */
  knownErrors(): KnownErrorsNode[];
  /** Whether the language-model tool and (VS Code >= 1.101) the MCP server provider are registered. */
  agents(): AgentsState;
  /** The command the MCP server definition runs (node dist/cli.js mcp …). */
  mcpCommand(): { command: string; args: string[]; cwd: string | undefined; env: Record<string, string> };
  // -- issue 15
  /** End-of-line problem messages shown in a document (errorExplainer.diagnostics.inlineMessage). */
  inlineMessages(uri: string): readonly InlineMessage[];
}
