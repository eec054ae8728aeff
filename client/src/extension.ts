// Error Explainer's VS Code client: starts the language server and adds what only the editor can
// do. Each feature lives in its own registerX file; this file only wires them, the same for both
// entry points: node.ts (desktop, Remote, code-server: dist/extension.js) and web.ts (vscode.dev,
// github.dev: dist/web/extension.js), which differ in where the server runs (platform.ts).
// Activation is cheap: the server starts with the first log-like document, command, or terminal
// output that needs it.
import * as vscode from 'vscode';
import { registerAnsiDecorations } from './ansiDecorations';
import type { ErrorExplainerApi } from './api';
import { registerCommands } from './commands';
import { registerDataset } from './dataset';
import { needsServer } from './logDocuments';
import { Notifier } from './notify';
import type { ClientPlatform } from './platform';
import { registerProblems } from './problems';
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

export function activateWith(context: vscode.ExtensionContext, platform: ClientPlatform): ErrorExplainerApi {
  const output = vscode.window.createOutputChannel('Error Explainer', { log: true });
  const notifier = new Notifier();
  const server = new ServerHandle(output, notifier, platform);
  // 'web' hides what needs Node (the dataset, Scan Log File…, the Known Errors view, the LM tool)
  void vscode.commands.executeCommand('setContext', 'errorExplainer.web', platform.kind === 'web');
  const s: Services = {
    context,
    server,
    output,
    notifier,
    state: { picker: undefined, terminalScans: [], terminalCommands: [], statusText: { records: '', recordsTooltip: '', terminal: '' }, datasetSuggestions: [] },
  };
  services = s;
  context.subscriptions.push(output, server);

  registerRecordView(context, server);
  registerCommands(s);
  registerDataset(s);
  registerSearch(s);
  registerSnippets(s);
  const setTerminalStatus = registerStatusBar(s);
  const terminalListeners: (() => void)[] = [];
  const links = registerTerminal(s, (count, tooltip) => {
    setTerminalStatus(count, tooltip);
    for (const l of terminalListeners) l();
  });
  registerTrust(s);
  const ansi = registerAnsiDecorations(s);
  registerWalkthrough(s);
  const problems = registerProblems(s); // issue 15: Error Lens-like problem actions, end-of-line messages
  // node: the Known Errors view (it also lists the terminal's matches), the LM tool, MCP
  const features = platform.register?.(s, { onTerminalChanged: (l) => terminalListeners.push(l) });
  if (features) context.subscriptions.push(features);

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
    datasetSuggestions: () => s.state.datasetSuggestions.map((x) => ({ ...x, params: { ...x.params, repos: [...x.params.repos] } })),
    ansiDecorations: (uri) => ansi.state(uri),
    platform: () => platform.kind,
    // agents & big logs (node only)
    knownErrors: () => features?.knownErrors?.() ?? [],
    agents: () => features?.agents?.() ?? { toolRegistered: false, mcpProviderRegistered: false },
    mcpCommand: () => {
      if (!features?.mcpCommand) throw new Error('the MCP server needs the Node.js extension host');
      return features.mcpCommand();
    },
    // issue 15
    inlineMessages: (uri) => problems.inlineMessages(uri),
  };
}

export async function deactivate(): Promise<void> {
  await services?.server.stop();
  services = undefined;
}
