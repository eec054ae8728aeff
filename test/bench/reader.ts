// The one line reader used for both the raw read+split baseline and the engine scan, so their
// ratio compares like with like: fixed-size reads, streaming UTF-8 decode, split on \n.
import * as fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { LineBlocks } from '../../server/src/core/lineBlocks';
import { BLOCK_BYTES, BlocksAhead } from '../../server/src/core/lineScan';
import { STAGED_AHEAD, type StagedBlock } from '../../server/src/core/engine/bytes';
import type { MatchEngine } from '../../server/src/core/engine';

export const CHUNK = 1 << 20;

/** Calls onLine(line, lineNo) for every line of the file (without the \n). Returns lines read. */
export function forEachLine(file: string, onLine: (line: string, lineNo: number) => void): number {
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.allocUnsafe(CHUNK);
  const dec = new StringDecoder('utf8');
  let carry = '';
  let lineNo = 0;
  try {
    for (;;) {
      const n = fs.readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      const text = carry + dec.write(n === CHUNK ? buf : buf.subarray(0, n));
      let a = 0;
      let b = text.indexOf('\n');
      while (b >= 0) {
        onLine(text.slice(a, b), lineNo++);
        a = b + 1;
        b = text.indexOf('\n', a);
      }
      carry = text.slice(a);
    }
    const rest = carry + dec.end();
    if (rest) onLine(rest, lineNo++);
  } finally {
    fs.closeSync(fd);
  }
  return lineNo;
}

/** Same reads and decoding as forEachLine, but hands over blocks of whole lines (each block ends
 * after its last \n; the final block may end without one). Returns the number of blocks. */
export function forEachBlock(file: string, onBlock: (text: string) => void): number {
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.allocUnsafe(CHUNK);
  const dec = new StringDecoder('utf8');
  let carry = '';
  let blocks = 0;
  try {
    for (;;) {
      const n = fs.readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      const text = carry + dec.write(n === CHUNK ? buf : buf.subarray(0, n));
      const cut = text.lastIndexOf('\n') + 1;
      if (cut > 0) {
        onBlock(cut === text.length ? text : text.slice(0, cut));
        blocks++;
      }
      carry = text.slice(cut);
    }
    const rest = carry + dec.end();
    if (rest) {
      onBlock(rest);
      blocks++;
    }
  } finally {
    fs.closeSync(fd);
  }
  return blocks;
}

/** Same reads as forEachLine (1 MiB), no decoding: blocks of whole lines as raw UTF-8 bytes in an
 * aligned, padded buffer (core/lineBlocks.ts), for MatchEngine.matchBytes. With `ahead` (an engine
 * with a scan thread): read as the CLI scan reads (core/lineScan.ts: its block size, each block
 * handed to the thread ahead of its walk, BlocksAhead), onBlock gets each block's `staged` for
 * scanBytes / matchBytes. Returns the number of blocks. */
export function forEachByteBlock(file: string, onBlock: (buf: Uint8Array, n: number, staged: StagedBlock | undefined) => void, ahead?: MatchEngine): number {
  const fd = fs.openSync(file, 'r');
  const chunk = Buffer.allocUnsafe(CHUNK);
  const blocks = ahead ? new LineBlocks(undefined, BLOCK_BYTES, undefined, { keep: STAGED_AHEAD }) : new LineBlocks();
  let count = 0;
  const walker = ahead ? new BlocksAhead(ahead, STAGED_AHEAD, onBlock) : undefined;
  const take = (buf: Uint8Array, n: number): void => {
    count++;
    if (walker) walker.push(buf, n);
    else onBlock(buf, n, undefined);
  };
  try {
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, CHUNK, null);
      if (n === 0) break;
      blocks.push(n === CHUNK ? chunk : chunk.subarray(0, n), take);
    }
    blocks.end(take);
    walker?.flush();
  } finally {
    walker?.drop();
    fs.closeSync(fd);
  }
  return count;
}
