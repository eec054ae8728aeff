// The MCP server: the agent tools (core/agent/tools.ts) over the Model Context Protocol, with the
// official TypeScript SDK. Only wiring lives here: tools/list answers TOOLS' names, descriptions
// and JSON schemas; tools/call runs callTool, whose results (also the error ones) become
// CallToolResult (Markdown text + the same facts as structuredContent; isError for bad arguments
// and unreadable files). Cancellation (notifications/cancelled) stops a running scan_log.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type AgentEnv, callTool, TOOLS } from '../core/agent/tools';

export const INSTRUCTIONS =
  'Error Explainer explains error messages and logs with error records (what the error means, why it happens, how to fix it, where it is raised), offline. ' +
  'Call search_error or explain_text with error output you see, scan_log on log files instead of reading them, get_error for a record\'s fixes and snippets.';

/** `ready`: awaited before every tool call (the records are still loading). */
export function createMcpServer(env: AgentEnv, version: string, ready: () => Promise<void> = async () => undefined): Server {
  const server = new Server({ name: 'error-explainer', title: 'Error Explainer', version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: { readOnlyHint: t.name !== 'refresh_dataset', openWorldHint: t.name === 'refresh_dataset' } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    try {
      await ready();
    } catch (e) {
      return { content: [{ type: 'text' as const, text: `the records could not be loaded: ${(e as Error).message}` }], isError: true };
    }
    const r = await callTool(env, req.params.name, req.params.arguments ?? {}, { cancelled: () => extra.signal.aborted });
    return {
      content: [{ type: 'text' as const, text: r.text }],
      ...(r.data ? { structuredContent: r.data } : {}),
      ...(r.isError ? { isError: true } : {}),
    };
  });
  return server;
}

/** Serves until the transport closes (stdin ends). */
export async function serveMcp(env: AgentEnv, version: string, transport: Transport, ready?: () => Promise<void>): Promise<void> {
  const server = createMcpServer(env, version, ready);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
}
