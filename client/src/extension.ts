// Error Explainer's VS Code client: starts the language server (node IPC, dist/server.js) and adds
// what only the editor can do. Each feature lives in its own registerX file; this file only wires
// them. Activation is cheap: the server starts with the first log-like document, command, or
// terminal output that needs it.
import * as vscode from 'vscode';
import { mcpCommand, registerAgents } from './agents';
import { registerAnsiDecorations } from './ansiDecorations';
import type { ErrorExplainerApi } from './api';
import { registerCommands } from './commands';
import { registerDataset } from './dataset';
import { registerKnownErrors } from './knownErrors';
import { needsServer } from './logDocuments';
import { Notifier } from './notify';
import { registerRecordView } from './recordView';
import { registerSearch } from './search';
import { ServerHandle } from './server';
import type { Services } from './services';
import { registerSnippets } from './snippets';
import { registerStatusBar } from './statusBar';
import { registerTerminal } from './terminal';
import { registerTrust } from './trust';
import { registerWalkthrough } from './walkthrough';

let services: Services | undefined;

export function activate(context: vscode.ExtensionContext): ErrorExplainerApi {
  const output = vscode.window.createOutputChannel('Error Explainer', { log: true });
  const notifier = new Notifier();
  const server = new ServerHandle(context, output, notifier);
  const s: Services = {
    context,
    server,
    output,
    notifier,
    state: { picker: undefined, terminalScans: [], terminalCommands: [], statusText: { records: '', recordsTooltip: '', terminal: '' } },
  };
  services = s;
  context.subscriptions.push(output, server);

  registerRecordView(context, server);
  registerCommands(s);
  const dataset = registerDataset(s);
  registerSearch(s);
  registerSnippets(s);
  const setTerminalStatus = registerStatusBar(s);
  // (agents & big logs: the Known Errors view also lists the terminal's matches)
  const knownErrors = registerKnownErrors(s);
  const agents = registerAgents(s);
  const links = registerTerminal(s, (count, tooltip) => {
    setTerminalStatus(count, tooltip);
    knownErrors.refresh();
  });
  registerTrust(s);
  const ansi = registerAnsiDecorations(s);
  registerWalkthrough(s);

  const startIfNeeded = (doc: vscode.TextDocument): void => {
    if (!server.isStarted && needsServer(doc)) server.start().catch(() => undefined /* reported by ServerHandle */);
  };
  vscode.workspace.textDocuments.forEach(startIfNeeded);
  context.subscriptions.push(vscode.workspace.onDidOpenTextDocument(startIfNeeded));

  return {
    ready: async () => {
      await server.start();
    },
    serverRunning: () => server.isStarted,
    restarts: () => ({ count: server.restarts, gaveUp: server.gaveUp }),
    statusText: () => ({ ...s.state.statusText }),
    lastStatus: () => server.lastStatus,
    picker: () => (s.state.picker ? { ...s.state.picker, items: [...s.state.picker.items] } : undefined),
    terminalScans: () => s.state.terminalScans.slice(),
    terminalCommands: () => s.state.terminalCommands.map((c) => ({ ...c })),
    seenReported: () => server.seenReported(),
    terminalLinks: async (line) => {
      const cts = new vscode.CancellationTokenSource();
      const found = (await links.provideTerminalLinks({ line, terminal: vscode.window.activeTerminal as vscode.Terminal }, cts.token)) ?? [];
      cts.dispose();
      return found.map((l) => ({ startIndex: l.startIndex, length: l.length, tooltip: l.tooltip }));
    },
    messages: () => notifier.shown.slice(),
    datasetSuggestions: () => dataset.suggestions(),
    ansiDecorations: (uri) => ansi.state(uri),
    // agents & big logs
    knownErrors: () => knownErrors.snapshot(),
    agents: () => ({ ...agents }),
    mcpCommand: () => mcpCommand(s),
  };
}

export async function deactivate(): Promise<void> {
  await services?.server.stop();
  services = undefined;
}
