// A window of lines around line N of a file of any size (what the editor shows for an occurrence in
// a log VS Code will not load: files over 50 MB are never handed to extensions). Lines are counted
// as the scan counts them (\n, \r\n, lone \r). Reading to line N streams from the start once;
// checkpoints (byte offset, line) every 4 MiB are kept per file, so later windows seek.
import * as fs from 'node:fs';

export interface LineWindow {
  /** 1-based number of the first line returned. */
  firstLine: number;
  lines: string[];
  /** The file ended before the window did. */
  atEnd: boolean;
}

/** Characters kept per line in a window (a 100 MB single line would be no use in an editor). */
export const MAX_WINDOW_LINE = 10_000;
const CHECKPOINT_EVERY = 4 << 20;
const READ = 1 << 20;

interface Checkpoints {
  key: string;
  /** [offset, line (1-based) starting at offset] pairs, ascending. */
  points: [number, number][];
}
const cache = new Map<string, Checkpoints>();

/** Reads lines [line - before, line + after] of `file` (1-based). Throws on read errors. */
export function readLineWindow(file: string, line: number, before: number, after: number): LineWindow {
  const first = Math.max(1, Math.floor(line) - Math.max(0, before));
  const last = Math.max(first, Math.floor(line) + Math.max(0, after));
  const fd = fs.openSync(file, 'r');
  try {
    const st = fs.fstatSync(fd);
    const key = `${st.ino}:${st.dev}:${st.mtimeMs}:${st.size}`;
    let cp = cache.get(file);
    if (!cp || cp.key !== key) {
      cp = { key, points: [[0, 1]] };
      cache.set(file, cp);
      if (cache.size > 16) cache.delete(cache.keys().next().value!);
    }
    // the last checkpoint at or before the first wanted line
    let start: [number, number] = cp.points[0]!;
    for (const p of cp.points) if (p[1] <= first) start = p;
    let pos = start[0];
    let lineNo = start[1];
    const out: string[] = [];
    let cur: Buffer[] = [];
    let curLen = 0;
    let lastCR = false;
    let nextCheckpoint = (Math.floor(pos / CHECKPOINT_EVERY) + 1) * CHECKPOINT_EVERY;
    const buf = Buffer.allocUnsafe(READ);
    const endLine = (): void => {
      if (lineNo >= first && lineNo <= last) out.push(Buffer.concat(cur).toString('utf8').slice(0, MAX_WINDOW_LINE));
      cur = [];
      curLen = 0;
      lineNo++;
    };
    while (lineNo <= last) {
      const n = fs.readSync(fd, buf, 0, READ, pos);
      if (n <= 0) break;
      let s = 0;
      for (let i = 0; i < n; i++) {
        const c = buf[i]!;
        if (c !== 10 && c !== 13) {
          lastCR = false; // (a lone CR ended the line before this byte)
          continue;
        }
        // keep the bytes of a wanted line
        if (lineNo >= first && lineNo <= last && curLen < MAX_WINDOW_LINE * 4) {
          cur.push(Buffer.from(buf.subarray(s, i)));
          curLen += i - s;
        }
        if (c === 10 && lastCR) {
          // the LF of a CRLF whose CR already ended the line
          lastCR = false;
        } else {
          lastCR = c === 13;
          endLine();
          if (pos + i + 1 >= nextCheckpoint && !lastCR) {
            cp.points.push([pos + i + 1, lineNo]);
            nextCheckpoint = (Math.floor((pos + i + 1) / CHECKPOINT_EVERY) + 1) * CHECKPOINT_EVERY;
          }
        }
        s = i + 1;
        if (lineNo > last) break;
      }
      if (lineNo <= last && s < n && lineNo >= first && curLen < MAX_WINDOW_LINE * 4) {
        cur.push(Buffer.from(buf.subarray(s, n)));
        curLen += n - s;
      }
      pos += n;
    }
    const atEnd = lineNo <= last;
    // an unterminated last line
    if (atEnd && curLen > 0) {
      out.push(Buffer.concat(cur).toString('utf8').slice(0, MAX_WINDOW_LINE));
    }
    return { firstLine: first, lines: out, atEnd };
  } finally {
    fs.closeSync(fd);
  }
}
