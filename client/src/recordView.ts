// The record view: a read-only virtual Markdown document (`error-explainer-record:`) whose text is
// the server's rendering of the whole record (record text escaped by the core renderer, so it is
// data, never markup), opened in VS Code's Markdown preview. Nothing here executes record content:
// the preview runs with its default strict security and no `command:` links are produced here.
import * as vscode from 'vscode';
import { escapeMarkdown, stripControls } from '../../server/src/core/render';
import { CaptureDto, OpenRecordArgs, RecordRequest, RecordResult } from '../../server/src/protocol';
import type { ServerHandle } from './server';

export const RECORD_SCHEME = 'error-explainer-record';

interface RecordQuery {
  captures?: CaptureDto[];
  matchedText?: string;
}

export function recordUri(args: OpenRecordArgs): vscode.Uri {
  const query: RecordQuery = {};
  if (args.captures?.length) query.captures = args.captures;
  if (args.matchedText) query.matchedText = args.matchedText;
  const q = Object.keys(query).length ? JSON.stringify(query) : '';
  return vscode.Uri.from({ scheme: RECORD_SCHEME, path: `/${encodeURIComponent(args.id)}.md`, query: q });
}

export function recordIdOf(uri: vscode.Uri): string | undefined {
  if (uri.scheme !== RECORD_SCHEME) return undefined;
  const m = /^\/(.+)\.md$/.exec(uri.path);
  return m?.[1] ? decodeURIComponent(m[1]) : undefined;
}

function parseQuery(uri: vscode.Uri): RecordQuery {
  if (!uri.query) return {};
  try {
    const q = JSON.parse(uri.query) as RecordQuery;
    const out: RecordQuery = {};
    if (Array.isArray(q.captures)) {
      out.captures = q.captures
        .filter((c) => c && typeof c.name === 'string' && typeof c.value === 'string')
        .map((c) => ({ name: c.name, value: c.value }));
    }
    if (typeof q.matchedText === 'string') out.matchedText = q.matchedText;
    return out;
  } catch {
    return {};
  }
}

/**
 * The record's source window as a fenced block with line numbers and the raise line marked (→).
 * Inside a fence longer than any backtick run of the code, record text stays literal.
 */
export function numberedSource(record: unknown): string | undefined {
  const r = (record ?? {}) as { sourceCode?: unknown; sourceCodeStart?: unknown; lineNumber?: unknown; filePath?: unknown };
  if (typeof r.sourceCode !== 'string' || !r.sourceCode.trim()) return undefined;
  const start = typeof r.sourceCodeStart === 'number' && Number.isInteger(r.sourceCodeStart) && r.sourceCodeStart > 0 ? r.sourceCodeStart : 1;
  const raise = typeof r.lineNumber === 'number' ? r.lineNumber : undefined;
  const code = r.sourceCode.replace(/\r\n?/g, '\n').replace(/\n+$/, '');
  const lines = stripControls(code).split('\n'); // the core's one rule for control and invisible characters
  const width = String(start + lines.length - 1).length;
  const body = lines.map((l, i) => `${start + i === raise ? '→' : ' '} ${String(start + i).padStart(width)} │ ${l}`).join('\n');
  let longest = 0;
  for (const m of body.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}\n${body}\n${fence}`;
}

/** Replaces the renderer's plain "Source" block with the numbered one (when both exist). */
export function withNumberedSource(markdown: string, record: unknown): string {
  const numbered = numberedSource(record);
  if (!numbered) return markdown;
  const re = /(^#{2,4} Source[^\n]*\n\n)(`{3,})[^\n]*\n[\s\S]*?\n\2[ \t]*(?=\n|$)/m;
  return re.test(markdown) ? markdown.replace(re, (_m, head: string) => `${head}${numbered}`) : markdown;
}

/** Markdown for a link target we built ourselves (file URI or https URL). */
function linkTarget(u: string): string {
  return `<${u.replace(/[<>\s]/g, encodeURIComponent)}>`;
}

export class RecordViewProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly server: ServerHandle) {}

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const id = recordIdOf(uri);
    if (!id) return '# Error record\n\nNot a record address.\n';
    const q = parseQuery(uri);
    let result: RecordResult | null;
    try {
      result = await this.server.request<typeof q & { id: string }, RecordResult | null>(RecordRequest.type, { id, ...q }, token);
    } catch (e) {
      return `# Error record\n\nThe record could not be loaded: ${escapeMarkdown(String(e instanceof Error ? e.message : e))}\n`;
    }
    if (!result) return `# Error record\n\nNo loaded record has the id \`${id.replace(/`/g, '')}\`.\n`;
    let md = withNumberedSource(result.markdown, result.record).trimEnd() + '\n';
    const site = result.raiseSite;
    if (site && 'uri' in site && /^file:/i.test(site.uri)) {
      md += `\n---\n\n[Open the raise site in this workspace](${linkTarget(`${site.uri}#L${site.line + 1}`)})\n`;
    }
    return md;
  }

  /** Records were reloaded: open record views re-render. */
  refreshAll(): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme === RECORD_SCHEME) this.changed.fire(doc.uri);
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** Opens the record view (Markdown preview of the virtual document); resolves to its document. */
export async function openRecordView(args: OpenRecordArgs, output: vscode.LogOutputChannel): Promise<vscode.TextDocument> {
  const uri = recordUri(args);
  const doc = await vscode.workspace.openTextDocument(uri);
  try {
    await vscode.commands.executeCommand('markdown.showPreview', uri);
  } catch (e) {
    // Markdown preview unavailable (disabled built-in): show the Markdown source instead.
    output.warn(`markdown preview unavailable (${String(e)}); showing the record as text`);
    await vscode.window.showTextDocument(await vscode.languages.setTextDocumentLanguage(doc, 'markdown'), { preview: true });
  }
  return doc;
}

export function registerRecordView(context: vscode.ExtensionContext, server: ServerHandle): RecordViewProvider {
  const provider = new RecordViewProvider(server);
  context.subscriptions.push(
    provider,
    vscode.workspace.registerTextDocumentContentProvider(RECORD_SCHEME, provider),
    server.onStatus(() => provider.refreshAll()),
  );
  return provider;
}
