import * as fs from 'node:fs';
import * as path from 'node:path';

let counter = 0;
/** A name for a temporary sibling of `p` that no other writer uses. */
export function tempName(p: string): string {
  return `${p}.tmp-${process.pid}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
}

/**
 * Write a file atomically: temp file in the same folder, then rename. Never leaves a half-written
 * `p` when the process dies. No fsync: on ext4 an fsync right after a large write can block the
 * event loop for a second; the big prepared index is fsynced off the loop before it goes live.
 */
export function writeFileAtomic(p: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  const tmp = tempName(p);
  try {
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, p);
  } catch (e) {
    rmQuiet(tmp);
    throw e;
  }
}

export function rmQuiet(p: string): void {
  try {
    fs.rmSync(p, { recursive: true, force: true });
  } catch {
    // best effort
  }
}

export function readJsonFile<T>(p: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(p, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** A file system error's code (ENOENT, ENOSPC, …), else its message. */
export function errCode(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
}
