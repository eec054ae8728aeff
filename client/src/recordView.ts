// The record view: a read-only virtual Markdown document (`error-explainer-record:`) whose text is
// the server's rendering of the whole record (record text escaped by the core renderer, so it is
// data, never markup), opened in VS Code's Markdown preview. Nothing here executes record content:
// the preview runs with its default strict security and no `command:` links are produced here.
// The tab is titled by the error ("Preview MMError: encode metadata not ready"): the document's
// path is that title and the record id travels in the query. The view's editor title bar offers
// Insert Handling Snippet, Copy Explanation and Go to Raise Site for the record it shows.
import * as vscode from 'vscode';
import { escapeMarkdown, stripControls } from '../../server/src/core/render';
import { CaptureDto, Commands, OpenRecordArgs, RecordRequest, RecordResult } from '../../server/src/protocol';
import { recordTitle } from './recordTitle';
import type { ServerHandle } from './server';

export const RECORD_SCHEME = 'error-explainer-record';
/** Context key: the active editor is a record view (preview or text); its title actions show then. */
const ACTIVE_CONTEXT = 'errorExplainer.recordViewActive';

interface RecordQuery {
  id?: string;
  captures?: CaptureDto[];
  matchedText?: string;
}

/** The record view's address; `title` (from recordTitle) becomes its file name, hence its tab title. */
export function recordUri(args: OpenRecordArgs, title?: string): vscode.Uri {
  const query: RecordQuery = { id: args.id };
  if (args.captures?.length) query.captures = args.captures;
  if (args.matchedText) query.matchedText = args.matchedText;
  return vscode.Uri.from({ scheme: RECORD_SCHEME, path: `/${title ?? args.id}`, query: JSON.stringify(query) });
}

export function recordIdOf(uri: vscode.Uri): string | undefined {
  if (uri.scheme !== RECORD_SCHEME) return undefined;
  const q = parseQuery(uri);
  if (q.id) return q.id;
  const m = /^\/(.+)\.md$/.exec(uri.path); // addresses of earlier versions: /<id>.md
  return m?.[1] ? decodeURIComponent(m[1]) : undefined;
}

/** The record, captures and matched text a record view shows. */
export function recordArgsOf(uri: vscode.Uri): OpenRecordArgs | undefined {
  const id = recordIdOf(uri);
  if (!id) return undefined;
  const q = parseQuery(uri);
  return { id, ...(q.captures ? { captures: q.captures } : {}), ...(q.matchedText !== undefined ? { matchedText: q.matchedText } : {}) };
}

function parseQuery(uri: vscode.Uri): RecordQuery {
  if (!uri.query) return {};
  try {
    const q = JSON.parse(uri.query) as RecordQuery;
    const out: RecordQuery = {};
    if (typeof q.id === 'string' && q.id) out.id = q.id;
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

  constructor(readonly server: ServerHandle) {}

  /** Results fetched by openRecordView to title the tab, used once by the first render. */
  readonly prefetched = new Map<string, RecordResult | null>();

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const args = recordArgsOf(uri);
    if (!args) return '# Error record\n\nNot a record address.\n';
    const id = args.id;
    let result: RecordResult | null;
    try {
      const key = uri.toString();
      if (this.prefetched.has(key)) {
        result = this.prefetched.get(key)!;
        this.prefetched.delete(key);
      } else result = await this.server.request<OpenRecordArgs, RecordResult | null>(RecordRequest.type, args, token);
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

let provider: RecordViewProvider | undefined;
/** Tab labels of the record previews opened in this session -> what they show. */
const previews = new Map<string, OpenRecordArgs>();

/**
 * Opens the record view (Markdown preview of the virtual document); resolves to its document.
 * `summary`: the record's class and message when the caller has them (else they are fetched). The
 * tab reads "Preview <class>: <the matched text, or the message>".
 */
export async function openRecordView(
  args: OpenRecordArgs,
  output: vscode.LogOutputChannel,
  summary?: { errorClass?: string | null; errorMessage?: string | null },
): Promise<vscode.TextDocument> {
  let title: string;
  // the line's own text reads better than the template ("req_id=req-42", not "req_id={req_id}")
  const seen = args.matchedText?.trim() ? { errorMessage: args.matchedText } : {};
  if (summary) title = recordTitle({ id: args.id, ...summary, ...seen });
  else {
    // one request: its result titles the tab and is the view's first render
    let result: RecordResult | null = null;
    try {
      result = provider ? await provider.server.request<OpenRecordArgs, RecordResult | null>(RecordRequest.type, args) : null;
    } catch (e) {
      output.warn(`record ${args.id}: ${String(e)}`);
    }
    const r = (result?.record ?? {}) as { errorClass?: unknown; errorMessage?: unknown };
    title = recordTitle({ id: args.id, errorClass: typeof r.errorClass === 'string' ? r.errorClass : null, errorMessage: typeof r.errorMessage === 'string' ? r.errorMessage : null, ...seen });
    if (provider && result) provider.prefetched.set(recordUri(args, title).toString(), result);
  }
  const uri = recordUri(args, title);
  let doc = await vscode.workspace.openTextDocument(uri);
  provider?.prefetched.delete(uri.toString()); // unused when the document was open already
  if (doc.languageId !== 'markdown') doc = await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
  previews.set(`Preview ${title}`, args);
  try {
    await vscode.commands.executeCommand('markdown.showPreview', uri);
  } catch (e) {
    // Markdown preview unavailable (disabled built-in): show the Markdown source instead.
    output.warn(`markdown preview unavailable (${String(e)}); showing the record as text`);
    await vscode.window.showTextDocument(doc, { preview: true });
  }
  return doc;
}

/** The record the active editor shows: a record preview (by its tab) or the record view as text. */
export function activeRecordArgs(): OpenRecordArgs | undefined {
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
  if (!tab) return undefined;
  if (tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === RECORD_SCHEME) return recordArgsOf(tab.input.uri);
  if (tab.input instanceof vscode.TabInputWebview) return previews.get(tab.label);
  return undefined;
}

export function registerRecordView(context: vscode.ExtensionContext, server: ServerHandle): RecordViewProvider {
  provider = new RecordViewProvider(server);
  const updateContext = (): void => {
    void vscode.commands.executeCommand('setContext', ACTIVE_CONTEXT, activeRecordArgs() !== undefined);
  };
  const forActive = (command: string, withMatch: boolean) => async (): Promise<unknown> => {
    const args = activeRecordArgs();
    if (!args) return undefined;
    return vscode.commands.executeCommand(command, withMatch ? args : { id: args.id });
  };
  context.subscriptions.push(
    provider,
    vscode.workspace.registerTextDocumentContentProvider(RECORD_SCHEME, provider),
    server.onStatus(() => provider?.refreshAll()),
    vscode.window.tabGroups.onDidChangeTabs(updateContext),
    vscode.window.tabGroups.onDidChangeTabGroups(updateContext),
    vscode.commands.registerCommand(RecordViewCommands.insertSnippet, forActive(Commands.insertSnippet, false)),
    vscode.commands.registerCommand(RecordViewCommands.copy, forActive(Commands.copyExplanation, true)),
    vscode.commands.registerCommand(RecordViewCommands.goToRaiseSite, forActive(Commands.goToRaiseSite, false)),
  );
  updateContext();
  return provider;
}

/** Title-bar actions of the record view (package.json menus editor/title). */
export const RecordViewCommands = {
  insertSnippet: 'errorExplainer.recordView.insertSnippet',
  copy: 'errorExplainer.recordView.copyExplanation',
  goToRaiseSite: 'errorExplainer.recordView.goToRaiseSite',
} as const;
