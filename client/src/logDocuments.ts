// Which documents are logs: language "log" or a path matching errorExplainer.logFiles (the same
// rule the server applies). Record files start the server too, but are no logs.
import * as vscode from 'vscode';

function matchesAny(doc: vscode.TextDocument, patterns: string[]): boolean {
  return patterns.some((pattern) => {
    try {
      return vscode.languages.match({ pattern }, doc) > 0;
    } catch {
      return false;
    }
  });
}

/** A document of the workspace's file systems: file, untitled, or a workspace folder's scheme
 * (vscode-vfs on github.dev, vscode-remote in a web-worker host). */
export function isFileLike(uri: vscode.Uri): boolean {
  if (uri.scheme === 'file' || uri.scheme === 'untitled') return true;
  return (vscode.workspace.workspaceFolders ?? []).some((f) => f.uri.scheme === uri.scheme);
}

/** A log file or untitled log (not an output panel: VS Code renders those itself). */
export function isLogDocument(doc: vscode.TextDocument): boolean {
  if (!isFileLike(doc.uri)) return false;
  if (doc.languageId === 'log') return true;
  return matchesAny(doc, vscode.workspace.getConfiguration('errorExplainer', doc.uri).get<string[]>('logFiles', []));
}

/** Documents whose presence starts the server: logs, output panels, record files. */
export function needsServer(doc: vscode.TextDocument): boolean {
  if (doc.uri.scheme === 'output') return !decodeURIComponent(doc.uri.path).includes('Error Explainer');
  if (!isFileLike(doc.uri)) return false;
  return isLogDocument(doc) || matchesAny(doc, ['**/.error-records/**', '**/*.errors.json']);
}
