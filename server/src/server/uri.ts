// URI <-> path helpers (file: URIs only; other schemes such as output: or untitled: have no path).
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export function uriToPath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

export function pathToUri(p: string): string {
  return pathToFileURL(p).href;
}

/** Canonical form of a file URI for map keys (clients differ in percent-encoding). */
export function normalizeUri(uri: string): string {
  const p = uriToPath(uri);
  return p ? pathToUri(p) : uri;
}

export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Scheme of a URI, e.g. `file`, `output`, `untitled`. */
export function schemeOf(uri: string): string {
  const i = uri.indexOf(':');
  return i > 0 ? uri.slice(0, i) : '';
}
