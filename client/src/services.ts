// The objects every feature file gets: the server connection, the log, user messages, and the
// observable state the extension API exposes to tests.
import type * as vscode from 'vscode';
import type { Notifier } from './notify';
import type { ServerHandle } from './server';
import type { ClientState } from './state';

export interface Services {
  context: vscode.ExtensionContext;
  server: ServerHandle;
  output: vscode.LogOutputChannel;
  notifier: Notifier;
  state: ClientState;
}
