// Which documents are log-like (the rule: core/logKind.ts); here only the paths of a document's
// URI: the file path, or the rest of another scheme's URI, and the path relative to each workspace
// folder that contains the file.
import * as path from 'node:path';
import { isLogDocument } from '../../core/logKind';
import { isInside, schemeOf, uriToPath } from '../uri';

export function isLogLike(uri: string, languageId: string, logFiles: readonly string[], folders: readonly string[]): boolean {
  const scheme = schemeOf(uri);
  const file = uriToPath(uri);
  const name = file ?? safeDecode(uri.slice(scheme.length + 1));
  const paths = [name.split(path.sep).join('/')];
  for (const f of folders) {
    if (file && isInside(file, f)) paths.push(path.relative(f, file).split(path.sep).join('/'));
  }
  return isLogDocument({ languageId, scheme, paths }, logFiles, { nocase: process.platform === 'win32' });
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
