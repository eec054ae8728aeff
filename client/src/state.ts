// The client's shared state types: what feature files keep and the extension API (api.ts) shows
// the end-to-end tests. A leaf: it imports only protocol.ts and pure helpers, so feature files,
// services.ts and api.ts all depend on it and never on each other for a type.
import type { DatasetSuggestionParams, MatchDto } from '../../server/src/protocol';
import type { SuggestionAction } from './datasetPrompt';

export interface PickerState {
  /** Which picker: 'search', 'explain', 'fileErrors', 'snippetKind', 'terminalErrors', 'status'. */
  kind: string;
  value: string;
  busy: boolean;
  /** Labels of the items currently in the list, in order. */
  items: string[];
  /** Bumped whenever the items change. */
  generation: number;
  /** Label of the item the workbench reports active (undefined until the list is rendered). */
  active: string | undefined;
}

export interface TerminalScan {
  /** Source reported to the server, e.g. "terminal:bash". */
  source: string;
  commandLine: string;
  matches: MatchDto[];
}

/** A terminal command that ended (with shell integration), newest last. */
export interface TerminalCommand {
  source: string;
  commandLine: string;
  /** False when VS Code passed none of the command's output to extensions (see client/src/terminal.ts). */
  outputReceived: boolean;
  /** Known errors found in its output. */
  matches: number;
}

/** What was applied to an editor (read by the e2e tests through the extension's API). */
export interface AnsiDecorationState {
  uri: string;
  /** Lines parsed: the whole document, or the windows around the visible ranges. */
  lines: [number, number][];
  /** Hidden escape sequences (adjacent ones count as one), and the first 50 of them as text. */
  hidden: number;
  hiddenTexts: string[];
  /** Decorated text per style key, in document order (at most 50 texts per style). */
  styles: { key: string; texts: string[] }[];
}

export interface AgentsState {
  toolRegistered: boolean;
  mcpProviderRegistered: boolean;
}

/** A one-time suggestion the server sent, and the button the user picked (read by the e2e tests). */
export interface SuggestionShown {
  params: DatasetSuggestionParams;
  /** 'pending' while the message is open; undefined when it was closed without a button. */
  answer: string | undefined | 'pending';
  action: SuggestionAction | 'pending';
}

/** A node of the view as the e2e tests read it (api.knownErrors()). */
export interface KnownErrorsNode {
  label: string;
  description: string;
  contextValue: string | undefined;
  command: { command: string; arguments: unknown[] } | undefined;
  children: KnownErrorsNode[];
}

export interface InlineMessage {
  line: number;
  text: string;
  severity: 'error' | 'warning' | 'info' | 'hint';
}

/** The observable state every feature file shares (Services.state). */
export interface ClientState {
  picker: PickerState | undefined;
  terminalScans: TerminalScan[];
  terminalCommands: TerminalCommand[];
  statusText: { records: string; recordsTooltip: string; terminal: string };
  /** The server's one-time dataset suggestions as shown (at most one per session). */
  datasetSuggestions: SuggestionShown[];
}
