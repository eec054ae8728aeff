// Which documents are log-like: language `log`, `output:` panels (other extensions' output
// channels), and files matching the errorExplainer.logFiles globs. Everything else is source.
// Globs are matched in linear time (core/glob.ts: an RE2 automaton, not a backtracking RegExp).
import * as path from 'node:path';
import { compileGlobs, type PathMatcher } from '../core/glob';
import { isInside, schemeOf, uriToPath } from './uri';

const matchers = new Map<string, PathMatcher>();

function matcherFor(globs: readonly string[]): PathMatcher {
  const key = JSON.stringify(globs);
  let m = matchers.get(key);
  if (!m) {
    m = compileGlobs(globs, { nocase: process.platform === 'win32' });
    if (matchers.size > 50) matchers.clear();
    matchers.set(key, m);
  }
  return m;
}

export function isLogLike(uri: string, languageId: string, logFiles: readonly string[], folders: readonly string[]): boolean {
  if (languageId === 'log') return true;
  const scheme = schemeOf(uri);
  if (scheme === 'output') return true;
  const file = uriToPath(uri);
  const name = file ?? safeDecode(uri.slice(scheme.length + 1));
  const m = matcherFor(logFiles);
  const candidates = [name.split(path.sep).join('/')];
  for (const f of folders) {
    if (file && isInside(file, f)) candidates.push(path.relative(f, file).split(path.sep).join('/'));
  }
  return candidates.some((c) => m(c));
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
