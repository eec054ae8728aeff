// Error blocks for the CLI scan, which decodes only the lines where a record may match
// (engine.matchBytes). A matched line's role needs its neighbours: a window of lines around it is
// decoded from the block's bytes and fed to core/blocks' BlockStream, which hands the matched
// lines back, in order, with their block and role. A matched line that is a frame by its own text
// is dropped at once; one with no block shape within NEAR lines (most of them) is handed back
// plain without a window. Windows run across the scan's byte blocks (the last lines of the previous
// block are kept; a window's lookahead continues in the next block).
//
// The windows are BEFORE lines before and AFTER lines after a matched line: a block is seen within
// them only (its raising frame, next to the exception line, always is), which is what the scan
// reports; the language server parses whole documents.
import type { BlockLineRole, ErrorBlock } from '../core/blocks';
import { BlockStream, hasBlockShape, isFrameLine } from '../core/blocks';
import { exceptionHeader } from '../core/blocks/shapes';
import type { BlockHooks } from './lines';

export const BEFORE = 40;
export const AFTER = 48;
/** A matched line with no block shape within this many lines (and no exception header of its own)
 * is outside any block. */
export const NEAR = 4;

export type Emit<T> = (lineNumber: number, line: string, payload: T, block: ErrorBlock | undefined, role: BlockLineRole | undefined) => void;

export class BlockContext<T> implements BlockHooks {
  private readonly stream: BlockStream<T>;
  /** Last line number fed to the stream, and the last one a window wants fed. */
  private fed = -Infinity;
  private want = -Infinity;
  // the current byte block
  private buf: Buffer | undefined;
  private n = 0;
  private first = 1;
  private text = false;
  private textLines: string[] | undefined;
  /** Byte offsets of line starts known in this block (line number -> offset). */
  private starts = new Map<number, number>();
  private cache = new Map<number, string>();
  /** The last line of this block, once known. */
  private last = Infinity;
  /** The last matched line (its start is known). */
  private anchor = 0;
  /** The last lines of the previous byte block: line number of tail[0]. */
  private tail: string[] = [];
  private tailFirst = 0;

  constructor(private readonly emit: Emit<T>) {
    this.stream = new BlockStream<T>((l) => {
      if (l.payload !== undefined) this.emit(l.lineNumber, l.line, l.payload, l.block, l.role);
    });
  }

  begin(buf: Uint8Array, n: number, firstLine: number, text: boolean): void {
    this.buf = Buffer.from(buf.buffer, buf.byteOffset, n);
    this.n = n;
    this.first = firstLine;
    this.text = text;
    this.textLines = undefined;
    this.starts = new Map([[firstLine, 0]]);
    this.cache = new Map();
    this.last = Infinity;
  }

  end(lastLine: number): void {
    this.last = lastLine;
    this.feedTo(Math.min(this.want, lastLine));
    // the bytes are reused for the next block: keep its last lines for windows that reach back
    const from = Math.max(this.first, lastLine - BEFORE + 1);
    const kept: string[] = [];
    for (let k = from; k <= lastLine; k++) kept.push(this.lineAt(k) ?? '');
    this.tail = kept;
    this.tailFirst = from;
    this.buf = undefined;
  }

  /** A matched line (lineNumber 1-based; byteStart: its offset in the block's bytes, when known). */
  match(lineNumber: number, line: string, byteStart: number | undefined, payload: T): void {
    if (byteStart !== undefined) this.starts.set(lineNumber, byteStart);
    this.cache.set(lineNumber, line);
    this.anchor = lineNumber;
    if (isFrameLine(line)) return; // context, never an error of its own (fed plain when a window wants it)
    let from = this.fed + 1;
    if (lineNumber > this.want) {
      // no window wants this line: decide what is pending, and look around it first
      this.feedTo(this.want);
      this.stream.flush();
      if (!this.nearBlock(lineNumber, line)) {
        this.emit(lineNumber, line, payload, undefined, undefined);
        return;
      }
      from = Math.max(this.fed + 1, lineNumber - BEFORE, 1);
    }
    for (let k = from; k < lineNumber; k++) {
      const l = this.lineAt(k);
      if (l === undefined) this.stream.flush();
      else this.feed(k, l, undefined);
    }
    this.feed(lineNumber, line, payload);
    this.want = Math.max(this.want, lineNumber + AFTER);
  }

  /** Everything seen: hand back what is pending. */
  finish(): void {
    this.stream.end();
  }

  private feed(k: number, line: string, payload: T | undefined): void {
    this.stream.push(k, line, payload);
    this.fed = k;
  }

  /** Feed the lines after the last fed one up to `to` (within this block). */
  private feedTo(to: number): void {
    if (!this.buf) return;
    const end = Math.min(to, this.last);
    for (let k = Math.max(this.fed + 1, this.first); k <= end; k++) {
      const l = this.lineAt(k);
      if (l === undefined) break;
      this.feed(k, l, undefined);
    }
  }

  private nearBlock(lineNumber: number, line: string): boolean {
    if (hasBlockShape(line) || exceptionHeader(line)) return true;
    for (let k = lineNumber - NEAR; k <= lineNumber + NEAR; k++) {
      if (k === lineNumber) continue;
      const l = this.lineAt(k);
      if (l !== undefined && hasBlockShape(l)) return true;
    }
    return false;
  }

  /** Line k: from this block's bytes (or decoded text), or the previous block's tail. */
  private lineAt(k: number): string | undefined {
    if (k < this.first) {
      const i = k - this.tailFirst;
      return i >= 0 && i < this.tail.length ? this.tail[i] : undefined;
    }
    if (k > this.last || !this.buf) return undefined;
    const hit = this.cache.get(k);
    if (hit !== undefined) return hit;
    let line: string | undefined;
    if (this.text) {
      // a block matched as text (the start of the input, or lone CRs): lines as lines.ts splits them
      this.textLines ??= splitBlock(this.buf.toString('utf8'));
      line = this.textLines[k - this.first];
    } else {
      const s = this.startOf(k);
      if (s === undefined) return undefined;
      let e = this.buf.indexOf(10, s);
      if (e < 0 || e > this.n) e = this.n;
      this.starts.set(k + 1, e + 1);
      if (e + 1 > this.n) this.last = Math.min(this.last, k);
      line = this.buf.toString('utf8', s, e > s && this.buf[e - 1] === 13 ? e - 1 : e);
    }
    if (line !== undefined) {
      if (this.cache.size > 4096) this.cache.clear();
      this.cache.set(k, line);
    }
    return line;
  }

  /** Byte offset of line k's start, walking from a known line start (windows are near one: the
   * line before, the last matched line, or the block's start). */
  private startOf(k: number): number | undefined {
    const known = this.starts.get(k);
    if (known !== undefined) return known;
    const buf = this.buf!;
    let j = this.starts.has(k - 1) ? k - 1 : this.starts.has(this.anchor) ? this.anchor : this.first;
    let pos = this.starts.get(j)!;
    if (j > k) {
      // back from line j: the line before starts after the newline before its own
      for (; j > k; j--) {
        if (pos <= 0) return undefined;
        pos = pos - 2 < 0 ? 0 : buf.lastIndexOf(10, pos - 2) + 1;
      }
    } else {
      for (; j < k; j++) {
        const e = buf.indexOf(10, pos);
        if (e < 0 || e >= this.n) return undefined;
        pos = e + 1;
      }
      if (pos >= this.n) return undefined;
    }
    this.starts.set(k, pos);
    return pos;
  }
}

/** A block of text as lines, as lines.ts counts them: \n, \r\n and a lone \r end a line. */
function splitBlock(text: string): string[] {
  const segs = text.split('\n');
  if (text.endsWith('\n')) segs.pop();
  const out: string[] = [];
  for (let s of segs) {
    if (s.length && s.charCodeAt(s.length - 1) === 13) s = s.slice(0, -1);
    if (s.indexOf('\r') < 0) out.push(s);
    else for (const p of s.split('\r')) out.push(p);
  }
  return out;
}
