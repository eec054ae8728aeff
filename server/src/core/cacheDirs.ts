// Where this program keeps its caches: the one definition of each folder (imported by the CLI's
// launcher, which loads nothing else, as well as by the dataset and the index cache).
import path from 'node:path';

/** The user's cache folder for this program: $XDG_CACHE_HOME, %LOCALAPPDATA% or ~/.cache, then error-explainer. */
export function cacheHome(env: Record<string, string | undefined>): string {
  const home = env['HOME'] ?? env['USERPROFILE'] ?? '.';
  const base = env['XDG_CACHE_HOME'] || (env['LOCALAPPDATA'] ?? path.join(home, '.cache'));
  return path.join(base, 'error-explainer');
}

/** The index cache's folder: $ERROR_EXPLAINER_INDEX_CACHE, else index/ in cacheHome. */
export function indexCacheDir(env: Record<string, string | undefined>): string {
  if (env['ERROR_EXPLAINER_INDEX_CACHE']) return env['ERROR_EXPLAINER_INDEX_CACHE'];
  return path.join(cacheHome(env), 'index');
}
