// Record files under a folder, recursively: *.json, *.jsonl, *.ndjson, optionally .gz. Skips
// node_modules and .git, follows symlinks but never the same directory twice (no symlink loops),
// lists each real file once, in a stable (sorted) order. Never throws.
//
// `within`: folders the walk may read from. A symlink (or the root itself) whose real path lies
// outside all of them is not followed and is reported: a workspace's .error-records/ holding
// `x.json -> ~/.ssh/config` or `keys -> /etc` must not make the server read outside the
// workspace, nor a configured folder outside itself.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

export const RECORD_FILE_RE = /\.(?:json|jsonl|ndjson)(?:\.gz)?$/i;
export const SKIP_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git', '.hg', '.svn']);
export const MAX_DIR_DEPTH = 64;

export interface WalkResult {
  files: string[];
  problems: { file: string; message: string }[];
}

export interface WalkOptions {
  /** Real folders the walk may read from (undefined: anywhere). */
  within?: readonly string[];
}

function inside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Real paths of the allowed folders (a folder that does not exist keeps its resolved path). */
async function realRoots(within: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const w of within) {
    try {
      out.push(await fsp.realpath(w));
    } catch {
      out.push(path.resolve(w));
    }
  }
  return out;
}

export async function listRecordFiles(root: string, opts: WalkOptions = {}): Promise<WalkResult> {
  const files: string[] = [];
  const problems: WalkResult['problems'] = [];
  const seenDirs = new Set<string>();
  const seenFiles = new Set<string>();
  const roots = opts.within ? await realRoots(opts.within) : undefined;
  /** May the walk read `real`? Reports the link `shown` when not. */
  const allowed = (real: string, shown: string): boolean => {
    if (!roots || roots.some((r) => inside(real, r))) return true;
    problems.push({ file: shown, message: `symbolic link to ${real}, outside ${roots.length === 1 ? roots[0] : 'the allowed folders'}; not read` });
    return false;
  };

  const addFile = async (file: string): Promise<void> => {
    let real = file;
    try {
      real = await fsp.realpath(file);
    } catch {
      /* keep the given path */
    }
    if (!allowed(real, file)) return;
    if (seenFiles.has(real)) return;
    seenFiles.add(real);
    files.push(file);
  };

  const visit = async (dir: string, depth: number): Promise<void> => {
    let real: string;
    try {
      real = await fsp.realpath(dir);
    } catch (e) {
      problems.push({ file: dir, message: `cannot read folder: ${(e as Error).message}` });
      return;
    }
    if (seenDirs.has(real)) return; // a symlink loop or a second link to the same folder
    seenDirs.add(real);
    if (!allowed(real, dir)) return;
    if (depth > MAX_DIR_DEPTH) {
      problems.push({ file: dir, message: `folder nesting deeper than ${MAX_DIR_DEPTH} levels; not searched further` });
      return;
    }
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch (e) {
      problems.push({ file: dir, message: `cannot read folder: ${(e as Error).message}` });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const st = await fsp.stat(full);
          isDir = st.isDirectory();
          isFile = st.isFile();
        } catch {
          if (RECORD_FILE_RE.test(entry.name)) problems.push({ file: full, message: 'broken symbolic link; skipped' });
          continue;
        }
      }
      if (isDir) {
        if (!SKIP_DIRS.has(entry.name)) await visit(full, depth + 1);
      } else if (isFile && RECORD_FILE_RE.test(entry.name)) await addFile(full);
    }
  };

  try {
    const st = await fsp.stat(root);
    if (st.isDirectory()) await visit(root, 0);
    else await addFile(root);
  } catch (e) {
    problems.push({ file: root, message: `cannot read: ${(e as Error).message}` });
  }
  return { files, problems };
}
