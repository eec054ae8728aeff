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

/** A log file or untitled log (not an output panel: VS Code renders those itself). */
export function isLogDocument(doc: vscode.TextDocument): boolean {
  if (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled') return false;
  if (doc.languageId === 'log') return true;
  return matchesAny(doc, vscode.workspace.getConfiguration('errorExplainer', doc.uri).get<string[]>('logFiles', []));
}

/** Documents whose presence starts the server: logs, output panels, record files. */
export function needsServer(doc: vscode.TextDocument): boolean {
  if (doc.uri.scheme === 'output') return !decodeURIComponent(doc.uri.path).includes('Error Explainer');
  if (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled') return false;
  return isLogDocument(doc) || matchesAny(doc, ['**/.error-records/**', '**/*.errors.json']);
}
