// "Insert Handling Snippet": pick validation / try-catch / type guard / example fix of a record and
// insert it, formatted by the server (language comment header, indentation of the target line),
// at the cursor line of the last code editor. Inserting is a text edit only: nothing is executed.
import * as vscode from 'vscode';
import { Commands, InsertSnippetArgs, RecordParams, RecordRequest, RecordResult, SnippetParams, SnippetRequest, SnippetResult } from '../../server/src/protocol';
import { isFileLike } from './logDocuments';
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

/** A code editor: a real file or untitled document that is not a log, output panel or record view. */
export function isCodeEditor(e: vscode.TextEditor | undefined): e is vscode.TextEditor {
  if (!e) return false;
  const d = e.document;
  return isFileLike(d.uri) && d.languageId !== 'log' && !/\.(log|out|err)(\.\d+)?$/i.test(d.fileName);
}

function isInsertArgs(v: unknown): v is InsertSnippetArgs {
  return typeof v === 'object' && v !== null && typeof (v as { id?: unknown }).id === 'string';
}

export function registerSnippets(s: Services): void {
  let lastCodeEditor: vscode.TextEditor | undefined = isCodeEditor(vscode.window.activeTextEditor) ? vscode.window.activeTextEditor : undefined;
  s.context.subscriptions.push(
    vscode.window.onDidChangeActiveTextEditor((e) => {
      if (isCodeEditor(e)) lastCodeEditor = e;
    }),
  );

  const targetEditor = async (uri?: string): Promise<vscode.TextEditor | undefined> => {
    if (uri) return vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri);
    const active = vscode.window.activeTextEditor;
    if (isCodeEditor(active)) return active;
    if (lastCodeEditor && vscode.window.visibleTextEditors.includes(lastCodeEditor)) return lastCodeEditor;
    const visible = vscode.window.visibleTextEditors.find((e) => isCodeEditor(e) && e.document.uri.scheme !== RECORD_SCHEME);
    if (visible) return visible;
    // The last code editor was hidden (e.g. the log took its place): bring it back at its cursor.
    if (lastCodeEditor && !lastCodeEditor.document.isClosed) {
      return vscode.window.showTextDocument(lastCodeEditor.document, { selection: lastCodeEditor.selection, preview: false });
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
        const editor = await targetEditor(args.uri);
        if (!editor) {
          void s.notifier.show('snippet-no-editor', 'info', 'Error Explainer: open the code file where the snippet should go, then try again.');
          return undefined;
        }
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
        const line = typeof args.line === 'number' ? args.line : editor.selection.active.line;
        const params: SnippetParams = {
          id: args.id,
          kind,
          uri: editor.document.uri.toString(),
          line,
          languageId: editor.document.languageId,
          insertSpaces: editor.options.insertSpaces === true,
          tabSize: typeof editor.options.tabSize === 'number' ? editor.options.tabSize : 4,
        };
        const result = await s.server.request<SnippetParams, SnippetResult | null>(SnippetRequest.type, params);
        if (!result) {
          void s.notifier.show('snippet-none', 'info', 'Error Explainer: this record has no such snippet.');
          return undefined;
        }
        const at = new vscode.Position(Math.min(result.line, editor.document.lineCount), 0);
        const ok = await editor.edit((b) => b.insert(at, result.text));
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
  return typeof v === 'string' ? (v.split('\n').find((l) => l.trim()) ?? '').trim() : '';
}
