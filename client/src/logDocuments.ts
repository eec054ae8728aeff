// Which documents are logs: the server's rule (core/logKind.ts: language "log" or a path matching
// errorExplainer.logFiles), given the document's paths here. Record files start the server too,
// but are no logs.
import * as vscode from 'vscode';
import { isLogDocument as isLogByRule } from '../../server/src/core/logKind';

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

/** Paths of a URI as the log rule reads them: its path, then relative to each workspace folder
 * that contains it (a file path with forward slashes, like the server's). */
function logPaths(uri: vscode.Uri): string[] {
  const own = uri.scheme === 'file' ? uri.fsPath.split('\\').join('/') : uri.path;
  const paths = [own];
  for (const f of vscode.workspace.workspaceFolders ?? []) {
    if (f.uri.scheme !== uri.scheme || f.uri.authority !== uri.authority) continue;
    const root = f.uri.path.endsWith('/') ? f.uri.path : `${f.uri.path}/`;
    if (uri.path.startsWith(root)) paths.push(uri.path.slice(root.length));
  }
  return paths;
}

const WINDOWS = typeof process === 'object' && process.platform === 'win32';

/** A log file or untitled log (not an output panel: VS Code renders those itself). `languageId`:
 * the open document's; without a document, only the path decides. */
export function isLogUri(uri: vscode.Uri, languageId = ''): boolean {
  if (!isFileLike(uri)) return false;
  const logFiles = vscode.workspace.getConfiguration('errorExplainer', uri).get<string[]>('logFiles', []);
  return isLogByRule({ languageId, scheme: uri.scheme, paths: logPaths(uri) }, logFiles, { nocase: WINDOWS && uri.scheme === 'file' });
}

/** A log file or untitled log (not an output panel: VS Code renders those itself). */
export function isLogDocument(doc: vscode.TextDocument): boolean {
  return isLogUri(doc.uri, doc.languageId);
}

/** Documents whose presence starts the server: logs, output panels, record files. */
export function needsServer(doc: vscode.TextDocument): boolean {
  if (doc.uri.scheme === 'output') return !decodeURIComponent(doc.uri.path).includes('Error Explainer');
  if (!isFileLike(doc.uri)) return false;
  return isLogDocument(doc) || matchesAny(doc, ['**/.error-records/**', '**/*.errors.json']);
}
