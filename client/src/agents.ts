// Error Explainer for agents inside VS Code:
// - the language-model tool `errorExplainer_explain` (contributes.languageModelTools +
//   vscode.lm.registerTool, stable since 1.95): agent mode passes error text or a log file (path or
//   URI, any size) and gets the server's answer (core/agent: explain_text / scan_log);
// - on VS Code >= 1.101, the MCP server (`error-explainer mcp`, dist/cli.js) offered through
//   vscode.lm.registerMcpServerDefinitionProvider. @types/vscode is 1.100, so that API is found by a
//   feature check; on 1.100 nothing is registered.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AgentExplainParams, AgentExplainRequest, AgentExplainResult } from '../../server/src/protocol';
import type { Services } from './services';
import type { AgentsState } from './state';

export const TOOL_NAME = 'errorExplainer_explain';
export const MCP_PROVIDER_ID = 'errorExplainer.mcp';

export interface ExplainToolInput {
  text?: string;
  /** A log file: absolute or workspace-relative path, or a file: URI. */
  path?: string;
}

/** The file a tool input names (undefined for text). Relative paths: against the first workspace folder. */
export function toolFile(input: ExplainToolInput): string | undefined {
  const p = typeof input?.path === 'string' ? input.path.trim() : '';
  if (!p) return undefined;
  if (/^file:/i.test(p)) return vscode.Uri.parse(p).fsPath;
  if (path.isAbsolute(p)) return p;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return folder ? path.join(folder, p) : path.resolve(p);
}

function insideWorkspace(file: string): boolean {
  return (vscode.workspace.workspaceFolders ?? []).some((f) => {
    const rel = path.relative(f.uri.fsPath, file);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  });
}

/** What the MCP server definition runs: `node dist/cli.js mcp` with the user's record sources. */
export function mcpCommand(s: Services): { command: string; args: string[]; cwd: string | undefined; env: Record<string, string> } {
  const c = vscode.workspace.getConfiguration('errorExplainer');
  const args = [s.context.asAbsolutePath(path.join('dist', 'cli.js')), 'mcp'];
  if (!c.get<boolean>('records.includeBundled', true)) args.push('--no-bundled');
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  // (workspace values of records.paths are withheld by VS Code in Restricted Mode)
  for (const p of c.get<string[]>('records.paths', [])) if (typeof p === 'string' && p.trim()) args.push('--records', folder ? path.resolve(folder, p) : p);
  const repos = c.get<string[]>('dataset.repos', []).filter((r) => typeof r === 'string' && r.trim());
  if (repos.length) args.push('--dataset', '--cache', path.join(s.context.globalStorageUri.fsPath, 'dataset'), '--repos', repos.join(','));
  // the extension host's executable is Electron in desktop VS Code: run it as plain Node
  return { command: process.execPath, args, cwd: folder, env: { ELECTRON_RUN_AS_NODE: '1' } };
}

interface McpApi {
  registerMcpServerDefinitionProvider(id: string, provider: { provideMcpServerDefinitions(): unknown[]; onDidChangeMcpServerDefinitions?: vscode.Event<void> }): vscode.Disposable;
}
type McpStdioCtor = new (label: string, command: string, args: string[], env?: Record<string, string>, version?: string) => { cwd?: vscode.Uri };


export function registerAgents(s: Services): AgentsState {
  const state: AgentsState = { toolRegistered: false, mcpProviderRegistered: false };
  if (typeof vscode.lm?.registerTool === 'function') {
    s.context.subscriptions.push(
      vscode.lm.registerTool<ExplainToolInput>(TOOL_NAME, {
        prepareInvocation(options) {
          const file = toolFile(options.input);
          if (!file) return { invocationMessage: 'Explaining the error with Error Explainer' };
          const name = path.basename(file);
          return {
            invocationMessage: `Scanning ${name} for known errors`,
            // a file outside the workspace: its matching lines go to the model, so ask first
            ...(insideWorkspace(file)
              ? {}
              : { confirmationMessages: { title: 'Scan a file outside the workspace?', message: new vscode.MarkdownString(`Error Explainer will scan \`${file.replace(/`/g, "'")}\` and give the model its known errors with the matching lines.`) } }),
          };
        },
        async invoke(options, token) {
          const file = toolFile(options.input);
          const params: AgentExplainParams = file ? { path: file } : { text: typeof options.input?.text === 'string' ? options.input.text : '' };
          const r = await s.server.request<AgentExplainParams, AgentExplainResult>(AgentExplainRequest.type, params, token);
          return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(r.markdown)]);
        },
      }),
    );
    state.toolRegistered = true;
  }

  const lm = vscode.lm as unknown as Partial<McpApi>;
  const Def = (vscode as unknown as { McpStdioServerDefinition?: McpStdioCtor }).McpStdioServerDefinition;
  // 1.100 already has a (proposed) registerMcpServerDefinitionProvider that wants another
  // contribution point and throws: only the final API of 1.101+ is used
  if (mcpApiFinal(vscode.version) && typeof lm.registerMcpServerDefinitionProvider === 'function' && typeof Def === 'function') {
    const changed = new vscode.EventEmitter<void>();
    let provider: vscode.Disposable;
    try {
      provider = lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
        onDidChangeMcpServerDefinitions: changed.event,
        provideMcpServerDefinitions: () => {
          const c = mcpCommand(s);
          const version = String((s.context.extension.packageJSON as { version?: unknown }).version ?? '');
          const def = new Def('Error Explainer', c.command, c.args, c.env, version);
          if (c.cwd) def.cwd = vscode.Uri.file(c.cwd);
          return [def];
        },
      });
    } catch (e) {
      s.output.warn(`the MCP server could not be offered to VS Code: ${e instanceof Error ? e.message : String(e)}`);
      changed.dispose();
      return state;
    }
    s.context.subscriptions.push(
      provider,
      changed,
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('errorExplainer') && changed.fire()),
    );
    state.mcpProviderRegistered = true;
  }
  return state;
}

/** VS Code 1.101 or later (where the MCP server definition API is final). */
export function mcpApiFinal(version: string): boolean {
  const [major, minor] = version.split('.').map((x) => parseInt(x, 10));
  return (major ?? 0) > 1 || ((major ?? 0) === 1 && (minor ?? 0) >= 101);
}
