// `file:line` references that logs print (core/fileRefs.ts finds them) resolved to workspace
// files when they exist. A path that does not exist as given is tried as a suffix under each
// workspace folder (logs from another machine print its absolute paths); at least two path
// components must match.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../uri';

/** Resolves printed paths to existing files in the workspace (cached until `clear()`). */
export class FileRefResolver {
  private readonly cache = new Map<string, string | null>();

  constructor(private readonly folders: () => readonly string[]) {}

  clear(): void {
    this.cache.clear();
  }

  resolve(printed: string): string | undefined {
    const hit = this.cache.get(printed);
    if (hit !== undefined) return hit ?? undefined;
    const found = this.lookup(printed);
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(printed, found ?? null);
    return found;
  }

  private lookup(printed: string): string | undefined {
    const folders = this.folders();
    if (folders.length === 0) return undefined;
    if (path.isAbsolute(printed)) {
      if (folders.some((f) => isInside(printed, f)) && isFile(printed)) return printed;
    } else {
      for (const f of folders) {
        const p = path.resolve(f, printed);
        if (isInside(p, f) && isFile(p)) return p;
      }
    }
    // Suffix under a workspace folder: drop leading components, keep at least two.
    const parts = printed.split(/[\\/]+/).filter((p) => p && p !== '.' && p !== '..');
    for (let i = 1; i <= parts.length - 2; i++) {
      const rel = parts.slice(i);
      for (const f of folders) {
        const p = path.join(f, ...rel);
        if (isFile(p)) return p;
      }
    }
    return undefined;
  }
}

/** Is `p` an existing regular file (symlinks followed)? */
export function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
