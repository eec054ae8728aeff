// V8's code cache for the bundles Node runs (the CLI, dist/cli.js, and the language server,
// dist/server.js, are small launchers that run their bundle through it: cli/launch.ts,
// server/launch.ts). Node compiles a script's functions the first time they run; at ~1.7 MB of
// bundle that was 40-60 ms of every start before its first line of work. The compiled code of a
// run is kept in a folder and handed back to V8 by the next run of the same kind, which then
// skips most of that compiling.
//
// Safe by construction, whatever is in the folder:
// - a cache file is named by the sha256 of the bundle it was made from, Node's version, the
//   platform and the kind of run, so another build's code is never offered (V8 itself checks only
//   the source's length and its own version and flags);
// - its payload carries its own sha256, checked before V8 sees it: a truncated or flipped file is
//   dropped and written anew, never used;
// - V8 may still reject it (cachedDataRejected): the run compiles as without a cache and writes
//   a new one at exit;
// - anything that goes wrong with the folder (missing, read-only, full) only costs the speed-up:
//   the bundle runs the same, its output and exit code are its own.
// Node's builtins only, so a launcher stays small and compiles in no time itself.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import { Script } from 'node:vm';
import { indexCacheDir } from './cacheDirs';

const MAGIC = Buffer.from('EECODE1\n', 'latin1');
const SHA_BYTES = 32;

/** What the cache did for this run (for ERROR_EXPLAINER_DEBUG and the tests). */
export type CodeCacheState = 'off' | 'used' | 'absent' | 'corrupt' | 'rejected' | 'unreadable';

interface NodeModule {
  filename: string;
  paths: string[];
  exports: unknown;
  loaded: boolean;
  require(id: string): unknown;
}
type ModuleStatics = typeof Module & {
  new (id: string, parent?: unknown): NodeModule;
  _nodeModulePaths(from: string): string[];
  _resolveFilename(request: string, parent: NodeModule, isMain?: boolean, options?: unknown): string;
  wrap(source: string): string;
};

/** The cache file of a bundle (sha256 of its source) for a run of kind `name` (a CLI command,
 * the language server) under dir. */
export function codeCacheFile(dir: string, bundleSha: string, name: string): string {
  return path.join(dir, `${bundleSha.slice(0, 32)}-${process.version}-${process.platform}-${process.arch}-${name}.v8`);
}

/** The payload of a cache file when it is whole (its sha256 holds), else undefined. */
function payloadOf(file: Buffer): Buffer | undefined {
  if (file.length <= MAGIC.length + SHA_BYTES || !file.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const sha = file.subarray(MAGIC.length, MAGIC.length + SHA_BYTES);
  const payload = file.subarray(MAGIC.length + SHA_BYTES);
  return createHash('sha256').update(payload).digest().equals(sha) ? payload : undefined;
}

/** Write the cache file (atomically: a reader sees the old file, none, or the whole new one) and
 * drop the files of other builds of the bundle. */
function writeCodeCache(dir: string, file: string, bundleSha: string, payload: Buffer): void {
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.concat([MAGIC, createHash('sha256').update(payload).digest(), payload]), { mode: 0o600 });
  renameSync(tmp, file);
  const mine = bundleSha.slice(0, 32);
  for (const f of readdirSync(dir)) {
    if (f.startsWith(mine) || !/^[0-9a-f]{32}-.*\.v8(\.\d+\.tmp)?$/.test(f)) continue;
    try {
      unlinkSync(path.join(dir, f));
    } catch {
      // another run removed it
    }
  }
}

/**
 * Run the CommonJS bundle `file` as the main module (its `require.main === module` holds), with
 * its compiled code from the cache folder `dir` (undefined: no cache), kept apart for each kind of
 * run `name` (each compiles its own functions). Returns what the cache did.
 */
export function runCached(file: string, dir: string | undefined, name: string, debug?: (message: string) => void): CodeCacheState {
  const M = Module as ModuleStatics;
  const source = readFileSync(file, 'utf8').replace(/^#!.*/, '');
  let state: CodeCacheState = dir === undefined ? 'off' : 'absent';
  let cacheFile: string | undefined;
  let bundleSha = '';
  let cached: Buffer | undefined;
  if (dir !== undefined) {
    bundleSha = createHash('sha256').update(source).digest('hex');
    cacheFile = codeCacheFile(dir, bundleSha, name);
    try {
      cached = payloadOf(readFileSync(cacheFile));
      state = cached ? 'used' : 'corrupt';
    } catch (e) {
      state = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : 'unreadable';
    }
  }
  const script = new Script(M.wrap(source), { filename: file, ...(cached ? { cachedData: cached } : {}) });
  if (cached && script.cachedDataRejected) state = 'rejected';
  debug?.(`code cache ${state}${cacheFile ? ` (${cacheFile})` : ''}`);
  if (cacheFile && state !== 'used' && state !== 'unreadable') {
    const target = cacheFile;
    process.once('exit', () => {
      // the code compiled by the end of the run: the next run of this command compiles little
      try {
        writeCodeCache(dir!, target, bundleSha, script.createCachedData());
        debug?.(`code cache written (${target})`);
      } catch (e) {
        debug?.(`code cache not written: ${(e as Error).message}`);
      }
    });
  }
  const m = new M(file, module);
  m.filename = file;
  m.paths = M._nodeModulePaths(path.dirname(file));
  const req = Object.assign((id: string) => m.require(id), {
    resolve: (request: string, options?: unknown) => M._resolveFilename(request, m, false, options),
    main: m,
    cache: require.cache,
  });
  (process as { mainModule?: unknown }).mainModule = m;
  const fn = script.runInThisContext() as (this: unknown, exports: unknown, require: unknown, module: unknown, filename: string, dirname: string) => void;
  fn.call(m.exports, m.exports, req, m, file, path.dirname(file));
  m.loaded = true;
  return state;
}

/** The code cache's folder: code/ in the index cache's; undefined when
 * ERROR_EXPLAINER_CODE_CACHE turns it off (0, off, false, no). */
export function codeCacheDir(env: Record<string, string | undefined>): string | undefined {
  if (/^(0|off|false|no)$/i.test(env['ERROR_EXPLAINER_CODE_CACHE'] ?? '')) return undefined;
  return path.join(indexCacheDir(env), 'code');
}
