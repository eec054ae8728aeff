// Entry point of dist/extension.js (package.json "main"): desktop VS Code, Remote, Codespaces,
// code-server. The language server is dist/server.js in a Node process (IPC); it reads records,
// the dataset cache and log files from disk. Also registers what needs Node: the Known Errors
// view (Scan Log File…), the language-model tool and the MCP server definition.
import * as vscode from 'vscode';
import { LanguageClient, TransportKind } from 'vscode-languageclient/node';
import { mcpCommand, registerAgents } from './agents';
import type { ErrorExplainerApi } from './api';
import { activateWith, deactivate } from './extension';
import { registerKnownErrors } from './knownErrors';
import type { ClientPlatform } from './platform';

export { deactivate };

export function activate(context: vscode.ExtensionContext): ErrorExplainerApi {
  const platform: ClientPlatform = {
    kind: 'node',
    documentSchemes: () => [],
    prepare: async () => undefined,
    initializationOptions: () => ({
      bundledRecordsPath: context.asAbsolutePath('records'),
      storagePath: context.globalStorageUri.fsPath,
    }),
    createClient: (id, name, options) => {
      const module = context.asAbsolutePath('dist/server.js');
      return new LanguageClient(
        id,
        name,
        {
          run: { module, transport: TransportKind.ipc },
          debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
        },
        options,
      );
    },
    register: (s, hooks) => {
      const knownErrors = registerKnownErrors(s);
      hooks.onTerminalChanged(() => knownErrors.refresh());
      const agents = registerAgents(s);
      return {
        knownErrors: () => knownErrors.snapshot(),
        agents: () => ({ ...agents }),
        mcpCommand: () => mcpCommand(s),
        dispose: () => undefined,
      };
    },
  };
  return activateWith(context, platform);
}
