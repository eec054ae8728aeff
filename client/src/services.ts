// The objects every feature file gets: the server connection, the log, user messages, and the
// observable state the extension API exposes to tests.
import type * as vscode from 'vscode';
import type { PickerState, TerminalCommand, TerminalScan } from './api';
import type { Notifier } from './notify';
import type { ServerHandle } from './server';

export interface Services {
  context: vscode.ExtensionContext;
  server: ServerHandle;
  output: vscode.LogOutputChannel;
  notifier: Notifier;
  state: {
    picker: PickerState | undefined;
    terminalScans: TerminalScan[];
    terminalCommands: TerminalCommand[];
    statusText: { records: string; recordsTooltip: string; terminal: string };
  };
}
