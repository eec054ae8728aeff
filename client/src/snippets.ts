// "Insert Handling Snippet": pick validation / try-catch / type guard / example fix of a record and
// insert it, planned by the server (SnippetRequest: a try/catch surrounds the selection or the
// statement at the cursor; the rest goes above it), as a snippet whose tab stops are the names the
// document does not know. The target is the active code editor; from a log (a hover link, a quick
// fix) it is chosen among the open code editors (a picker when there are several), else the
// record's raise-site file (the middleware that turns the server's snippet code actions into snippet
// edits is snippetEdit.ts). Inserting is a text edit only: nothing is executed.
import * as vscode from 'vscode';
import { stripControls } from '../../server/src/core/render';
import {
  Commands,
  InsertSnippetArgs,
  RecordParams,
  RecordRequest,
  RecordResult,
  SnippetParams,
  SnippetRequest,
  SnippetResult,
} from '../../server/src/protocol';
import { isFileLike, isLogDocument, isLogUri } from './logDocuments';
import { pickOne } from './picker';
import { RECORD_SCHEME } from './recordView';
import { searchRecords } from './search';
import type { Services } from './services';

type Kind = SnippetParams['kind'];

const KINDS: { snippetKind: Kind; field: string; label: string }[] = [
  { snippetKind: 'validation', field: 'validationCode', label: 'Validation' },
  { snippetKind: 'tryCatch', field: 'tryCatchPattern', label: 'Try / catch' },
  { snippetKind: 'typeGuard', field: 'typeGuard', label: 'Type guard' },
  { snippetKind: 'exampleFix', field: 'exampleFix', label: 'Example fix' },
];

/** A code document: a real file or untitled document that is not a log, output panel or record view. */
function isCodeDocument(d: vscode.TextDocument | undefined): d is vscode.TextDocument {
  return !!d && isFileLike(d.uri) && !isLogDocument(d);
}

/** A code editor: see isCodeDocument. */
export function isCodeEditor(e: vscode.TextEditor | undefined): e is vscode.TextEditor {
  return !!e && isCodeDocument(e.document);
}

function isInsertArgs(v: unknown): v is InsertSnippetArgs {
  return typeof v === 'object' && v !== null && typeof (v as { id?: unknown }).id === 'string';
}

interface Target {
  editor: vscode.TextEditor;
  /** Use the editor's selection (false: a file just opened at the raise site: its line). */
  line?: number;
}

export function registerSnippets(s: Services): void {
  let lastCodeEditor: vscode.TextEditor | undefined = isCodeEditor(vscode.window.activeTextEditor) ? vscode.window.activeTextEditor : undefined;
  s.context.subscriptions.push(
    vscode.window.onDidChangeActiveTextEditor((e) => {
      if (isCodeEditor(e)) lastCodeEditor = e;
    }),
  );

  /** Code documents open in editor tabs: the last code editor's first, then visible ones, then the rest. */
  const openCodeDocuments = (): vscode.Uri[] => {
    const out = new Map<string, vscode.Uri>();
    const add = (u: vscode.Uri | undefined) => {
      if (u && !out.has(u.toString())) out.set(u.toString(), u);
    };
    if (lastCodeEditor && !lastCodeEditor.document.isClosed) add(lastCodeEditor.document.uri);
    for (const e of vscode.window.visibleTextEditors) if (isCodeEditor(e)) add(e.document.uri);
    for (const tab of vscode.window.tabGroups.all.flatMap((g) => g.tabs)) {
      if (!(tab.input instanceof vscode.TabInputText)) continue;
      const uri = tab.input.uri;
      if (uri.scheme === RECORD_SCHEME) continue;
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      if (doc ? isCodeDocument(doc) : isFileLike(uri) && !isLogUri(uri)) add(uri);
    }
    return [...out.values()];
  };

  const showAt = async (uri: vscode.Uri, line?: number): Promise<vscode.TextEditor> => {
    const visible = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
    if (visible && line === undefined) return vscode.window.showTextDocument(visible.document, { viewColumn: visible.viewColumn, preview: false });
    const opts: vscode.TextDocumentShowOptions = { preview: false };
    if (line !== undefined) opts.selection = new vscode.Range(line, 0, line, 0);
    else if (lastCodeEditor && lastCodeEditor.document.uri.toString() === uri.toString()) opts.selection = lastCodeEditor.selection;
    return vscode.window.showTextDocument(uri, opts);
  };

  const chooseTarget = async (args: InsertSnippetArgs & { uri?: string }): Promise<Target | undefined> => {
    if (args.uri) {
      const uri = vscode.Uri.parse(args.uri, true);
      return { editor: await showAt(uri) };
    }
    const active = vscode.window.activeTextEditor;
    if (isCodeEditor(active)) return { editor: active };
    const open = openCodeDocuments();
    if (open.length === 1) return { editor: await showAt(open[0]!) };
    if (open.length > 1) {
      const pick = await pickOne(
        s,
        'snippetTarget',
        open.map((uri) => ({ label: vscode.workspace.asRelativePath(uri), description: uri === open[0] ? 'last used' : '', uri })),
        { title: 'Insert the snippet into…', placeholder: 'Choose the code file (the snippet goes at its cursor)' },
      );
      return pick ? { editor: await showAt(pick.uri) } : undefined;
    }
    // No code file is open: the file where the error is raised, when the workspace has it.
    const result = await s.server.request<RecordParams, RecordResult | null>(RecordRequest.type, { id: args.id });
    const site = result?.raiseSite;
    if (site && 'uri' in site) {
      const editor = await showAt(vscode.Uri.parse(site.uri, true), Math.max(0, site.line));
      return { editor, line: Math.max(0, site.line) };
    }
    return undefined;
  };

  s.context.subscriptions.push(
    vscode.commands.registerCommand(Commands.insertSnippet, async (arg?: unknown): Promise<string | undefined> => {
      try {
        const args: (InsertSnippetArgs & { uri?: string; line?: number }) | undefined = isInsertArgs(arg)
          ? arg
          : await searchRecords(s, undefined, false).then((id) => (id ? { id } : undefined));
        if (!args) return undefined;
        let kind: Kind | undefined = args.kind;
        if (!kind) {
          const result = await s.server.request<RecordParams, RecordResult | null>(RecordRequest.type, { id: args.id });
          const rec = (result?.record ?? {}) as Record<string, unknown>;
          const available = KINDS.filter((k) => typeof rec[k.field] === 'string' && (rec[k.field] as string).trim());
          if (!available.length) {
            void s.notifier.show('snippet-none', 'info', 'Error Explainer: this record has no handling snippet.');
            return undefined;
          }
          const pick =
            available.length === 1
              ? available[0]
              : await pickOne(
                  s,
                  'snippetKind',
                  available.map((k) => ({ ...k, detail: firstLine(rec[k.field]) })),
                  { title: 'Insert Handling Snippet', placeholder: 'Which snippet?' },
                );
          if (!pick) return undefined;
          kind = pick.snippetKind;
        }
        const target = await chooseTarget(args);
        if (!target) {
          void s.notifier.show('snippet-no-editor', 'info', 'Error Explainer: open the code file where the snippet should go, then try again.');
          return undefined;
        }
        const editor = target.editor;
        const sel = editor.selection;
        const line = typeof args.line === 'number' ? args.line : (target.line ?? sel.active.line);
        const params: SnippetParams = {
          id: args.id,
          kind,
          uri: editor.document.uri.toString(),
          line,
          languageId: editor.document.languageId,
          insertSpaces: editor.options.insertSpaces === true,
          tabSize: typeof editor.options.tabSize === 'number' ? editor.options.tabSize : 4,
        };
        if (typeof args.line !== 'number' && target.line === undefined && !sel.isEmpty) {
          const last = sel.end.line > sel.start.line && sel.end.character === 0 ? sel.end.line - 1 : sel.end.line;
          params.selection = { start: sel.start.line, end: last };
        }
        const result = await s.server.request<SnippetParams, SnippetResult | null>(SnippetRequest.type, params);
        if (!result) {
          void s.notifier.show('snippet-none', 'info', 'Error Explainer: this record has no such snippet.');
          return undefined;
        }
        const doc = editor.document;
        const where = result.replace
          ? new vscode.Range(result.replace.start, 0, result.replace.end, doc.lineAt(Math.min(result.replace.end, doc.lineCount - 1)).text.length)
          : new vscode.Position(Math.min(result.line, doc.lineCount), 0);
        const ok = await editor.insertSnippet(new vscode.SnippetString(result.snippet), where, { undoStopBefore: true, undoStopAfter: true, keepWhitespace: true });
        if (!ok) throw new Error('the editor refused the edit');
        return result.text;
      } catch (e) {
        s.output.error(`insert snippet failed: ${String(e)}`);
        void s.notifier.show('snippet-failed', 'error', `Error Explainer: inserting the snippet failed (${e instanceof Error ? e.message : String(e)}).`);
        return undefined;
      }
    }),
  );
}

function firstLine(v: unknown): string {
  return typeof v === 'string' ? (stripControls(v).split('\n').find((l) => l.trim()) ?? '').trim() : '';
}
