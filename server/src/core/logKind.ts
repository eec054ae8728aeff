// The one rule of which documents are logs (the server's diagnostics and hovers, the client's
// ANSI decorations, server start and snippet targets): language `log`, an `output:` panel (other
// extensions' output channels), or a path matching the errorExplainer.logFiles globs. The callers
// only say which paths a document has (the server from its URI, the client from vscode.Uri).
// Globs are matched in linear time (core/glob.ts: an RE2 automaton, not a backtracking RegExp).
import { compileGlobs, type PathMatcher } from './glob';

export interface LogCandidate {
  languageId: string;
  /** The URI's scheme: `file`, `untitled`, `output`, … */
  scheme: string;
  /** The document's path with forward slashes, then its paths relative to each workspace folder
   * that contains it (any of them matching a glob makes it a log). */
  paths: readonly string[];
}

const matchers = new Map<string, PathMatcher>();

function matcherFor(globs: readonly string[], nocase: boolean): PathMatcher {
  const key = `${nocase ? 'i' : 's'}${JSON.stringify(globs)}`;
  let m = matchers.get(key);
  if (!m) {
    m = compileGlobs(globs, { nocase });
    if (matchers.size > 50) matchers.clear();
    matchers.set(key, m);
  }
  return m;
}

/** Whether a document is a log. `nocase`: paths compare without case (Windows file systems). */
export function isLogDocument(doc: LogCandidate, logFiles: readonly string[], opts: { nocase?: boolean } = {}): boolean {
  if (doc.languageId === 'log') return true;
  if (doc.scheme === 'output') return true;
  const m = matcherFor(logFiles, !!opts.nocase);
  return doc.paths.some((p) => m(p));
}
