// The code-action middleware of the connection (server.ts): the server's snippet code actions
// carry their edit as a snippet (CodeActionSnippetData); here it becomes a snippet edit with tab
// stops. Inserting is a text edit only: nothing is executed.
import * as vscode from 'vscode';
import type { CodeActionSnippetData } from '../../server/src/protocol';

/**
 * A code action whose `data` carries the server's snippet edit (CodeActionSnippetData) gets that
 * edit as a snippet edit with tab stops instead of its plain-text edit. Anything else is returned as is.
 */
export function withSnippetEdit<T extends vscode.Command | vscode.CodeAction>(document: vscode.TextDocument, action: T): T {
  if (!(action instanceof vscode.CodeAction)) return action;
  const data = (action as { data?: unknown }).data as Partial<CodeActionSnippetData> | undefined;
  const sn = data?.snippet;
  if (!sn || typeof sn.snippet !== 'string' || sn.uri !== document.uri.toString() || !sn.range) return action;
  const { start, end } = sn.range;
  const edit = new vscode.WorkspaceEdit();
  const snippetEdit = new vscode.SnippetTextEdit(new vscode.Range(start.line, start.character, end.line, end.character), new vscode.SnippetString(sn.snippet));
  snippetEdit.keepWhitespace = true; // the server already indented every line
  edit.set(document.uri, [snippetEdit]);
  action.edit = edit;
  return action;
}
