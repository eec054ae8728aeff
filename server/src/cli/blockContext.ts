// Error blocks for the CLI scan, which decodes only the lines where a pattern's key occurs
// (engine.scanBytes through core/lineScan). A matched line's role needs its neighbours: a window of
// lines around it is decoded from the block of bytes and fed to core/blocks' BlockStream, which
// hands the matched lines back, in order, with their block and role. A matched line that is a frame
// by its own text is dropped at once; one with no block shape within NEAR lines (most of them) is
// handed back plain without a window. Windows run across the scan's byte blocks (the last lines of
// the previous block are kept; a window's lookahead continues in the next block). Lines end where
// the byte scan ends them: at \n, \r\n or a lone \r. A line longer than a byte block (4 MiB, matched
// between blocks: core/lineScan) is read by its first 64 KiB when it matches; one that matches
// nothing is unknown, and a block ends at it.
//
// The windows are BEFORE lines before and AFTER lines after a matched line: a block is seen within
// them only (its raising frame, next to the exception line, always is), which is what the scan
// reports; the language server parses whole documents.
import type { BlockLineRole, ErrorBlock } from '../core/blocks';
import { BlockStream, hasBlockShape, isFrameLine } from '../core/blocks';
import { exceptionHeader } from '../core/blocks/shapes';
import { HEADER_FREE, QUIET, quietness } from '../core/blocks/quiet';
import type { BlockHooks } from '../core/lineScan';

export const BEFORE = 40;
export const AFTER = 48;
/** A matched line with no block shape within this many lines (and no exception header of its own)
 * is outside any block. */
export const NEAR = 4;
/** Lines whose start and text are remembered (more than a window). */
const RING = 1024;
/** Bytes a quiet run grows by at once when matched lines follow each other (quietAround), and
 * where such a chunk was not quiet. */
const QUIET_CHUNK = 8 * 1024;
const QUIET_CHUNK_SMALL = 1024;

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
  /** Does the block hold a CR (CRLF or lone CR line ends)? Looked up on first need. */
  private hasCr: boolean | undefined;
  /** Lines of this block looked at lately: their start offsets and decoded text (slot k % RING). */
  private readonly ringKey = new Float64Array(RING).fill(-1);
  private readonly ringStart = new Int32Array(RING);
  private readonly ringText: (string | undefined)[] = new Array<string | undefined>(RING);
  /** Where a line's text ends and the next line starts (lineEnd's results). */
  private textEnd = 0;
  private nextStart = 0;
  /** hasBlockShape of lines looked at by nearBlock (line numbers are the input's: kept across blocks). */
  private shapes = new Map<number, boolean>();
  /** A run of lines of this block with no block shape (quietAround): where its first line starts
   * and where the line after its last one does (empty: none). */
  private quietStart = 0;
  private quietEnd = 0;
  /** The number of the run's first line (the one starting at quietStart). */
  private quietFirst = 0;
  /** A run is not grown by a chunk (QUIET_CHUNK) up to here: the last chunk looked at, not quiet;
   * nor by a small one (QUIET_CHUNK_SMALL) up to noisySmallUntil. */
  private noisyUntil = 0;
  private noisySmallUntil = 0;
  /** Bytes of this block the quiet test found without exception header tokens (whole lines,
   * headerFrom .. headerTo; empty: none), and the last matched line quietAround found in them. */
  private headerFrom = 0;
  private headerTo = 0;
  private headerFreeLine = -1;
  /** The last matched line whose neighbourhood's end was worked out (quietAround), and that end. */
  private nearLine = -1;
  private nearEnd = 0;
  /** The last line of this block, once known. */
  private last = Infinity;
  /** The last matched line of this block and its start (-1: none yet). */
  private anchor = 0;
  private anchorStart = -1;
  /** The last lines of the previous byte block: line number of tail[0]. */
  private tail: string[] = [];
  private tailFirst = 0;
  /** The last matched long line (matched between byte blocks) and its text. A long line that
   * matches nothing is not known: a window ends at it. */
  private longK = -1;
  private longText = '';

  /** emit: each matched line handed back, with its block and role. hold: what a payload becomes
   * when its line waits for a window (made while the caller's data is still valid); a line with no
   * block near is emitted at once, during match(), with the payload as given. */
  constructor(
    private readonly emit: Emit<T>,
    private readonly hold: (payload: T) => T = (p) => p,
  ) {
    this.stream = new BlockStream<T>((l) => {
      if (l.payload !== undefined) this.emit(l.lineNumber, l.line, l.payload, l.block, l.role);
    });
  }

  begin(buf: Uint8Array, n: number, firstLine: number): void {
    this.buf = Buffer.from(buf.buffer, buf.byteOffset, n);
    this.n = n;
    this.first = firstLine;
    this.hasCr = undefined;
    this.ringKey.fill(-1);
    this.ringText.fill(undefined);
    this.anchorStart = -1;
    this.quietStart = this.quietEnd = 0;
    this.headerFrom = this.headerTo = 0;
    this.headerFreeLine = -1;
    this.noisyUntil = this.noisySmallUntil = 0;
    this.nearLine = -1;
    this.last = Infinity;
  }

  end(lastLine: number): void {
    this.last = lastLine;
    this.feedTo(Math.min(this.want, lastLine));
    // the bytes are reused for the next block: keep its last lines for windows that reach back,
    // read backwards from the block's end (not walked to from its last matched line)
    if (this.startKnown(lastLine + 1) < 0) this.setStart(lastLine + 1, this.n);
    // (and the previous tail's lines still that near: a byte block may hold a few lines only)
    const from = Math.max(this.first, lastLine - BEFORE + 1);
    const kept: string[] = [];
    for (let k = lastLine; k >= from; k--) kept.push(this.lineAt(k) ?? '');
    for (let k = from - 1; k > lastLine - BEFORE && k >= this.tailFirst; k--) {
      const l = this.lineAt(k);
      if (l === undefined) break;
      kept.push(l);
    }
    this.tail = kept.reverse();
    this.tailFirst = lastLine - this.tail.length + 1;
    this.buf = undefined;
  }

  /** A matched line of the current byte block (lineNumber 1-based; byteStart: its offset in the
   * block's bytes, LineHits.byteStart()), or a long line between blocks. */
  match(lineNumber: number, line: string, byteStart: number, payload: T): void {
    if (!this.buf) {
      // a long line (longer than a byte block, core/lineScan), matched between blocks: its text
      // (the first 64 KiB) is line lineNumber for windows; the lines before it are the previous
      // block's tail, the lines after it come in the next block
      this.longK = lineNumber;
      this.longText = line;
    } else {
      this.setStart(lineNumber, byteStart);
      this.ringText[this.slot(lineNumber)] = line;
      this.anchor = lineNumber;
      this.anchorStart = byteStart;
    }
    // (a line whose neighbourhood's bytes hold no block shape has none itself: it is no frame)
    const quiet = this.quietAround(lineNumber);
    if (!quiet && isFrameLine(line)) return; // context, never an error of its own (fed plain when a window wants it)
    let from = this.fed + 1;
    let near = true;
    if (lineNumber > this.want) {
      // no window wants this line: look around it first
      if (!this.nearBlock(lineNumber, line, quiet)) {
        // outside any block: what is pending is decided first (in order)
        this.feedTo(this.want);
        this.stream.flush();
        this.emit(lineNumber, line, payload, undefined, undefined);
        return;
      }
      // its window: from the lines fed so far when it reaches back to them (no gap: a block that
      // starts in the last window's lines and runs on into this one's is parsed whole), else
      // after a gap that decides what is pending
      if (lineNumber - BEFORE > this.fed + 1) {
        this.feedTo(this.want);
        this.stream.flush();
      }
      from = Math.max(this.fed + 1, lineNumber - BEFORE, 1);
    } else {
      // in a window: the stream decides the line's role; the window grows only while a block is
      // being parsed (a pytest report's quoted code, far from any frame) or from a line with a
      // block shape near it (a line with none gets no window of its own either), so a run of
      // matched lines after a block (a log where most lines match) ends the window AFTER lines
      // after the block's last matched line instead of parsing every line to the run's end
      near = this.stream.open || this.nearBlock(lineNumber, line, quiet);
    }
    for (let k = from; k < lineNumber; k++) {
      const l = this.lineAt(k);
      if (l === undefined) this.stream.flush();
      else this.feed(k, l, undefined);
    }
    this.feed(lineNumber, line, this.hold(payload));
    if (near) this.want = Math.max(this.want, lineNumber + AFTER);
  }

  /** Everything seen: hand back what is pending. */
  finish(): void {
    this.stream.end();
  }

  private feed(k: number, line: string, payload: T | undefined): void {
    this.stream.push(k, line, payload);
    this.fed = k;
  }

  /** Feed the lines after the last fed one up to `to` (within this block), while the stream still
   * holds matched lines it has not handed back (after that, more lines decide nothing). */
  private feedTo(to: number): void {
    if (!this.buf) return;
    const end = Math.min(to, this.last);
    for (let k = Math.max(this.fed + 1, 1); k <= end && this.stream.pendingPayloads > 0; k++) {
      const l = this.lineAt(k);
      if (l === undefined) {
        // (before this block: a long line that matched nothing, between the blocks; the stream
        // ends a block at the gap)
        if (k < this.first) continue;
        break;
      }
      this.feed(k, l, undefined);
    }
  }

  /** Is a block shape within NEAR lines of a matched line? Also when a line after it is not read
   * yet (it is in the next byte block, or a long line between blocks is): the window decides.
   * quiet: quietAround(lineNumber) (its bytes may also have been found without a header token). */
  private nearBlock(lineNumber: number, line: string, quiet: boolean): boolean {
    if (quiet) return this.headerFreeLine !== lineNumber && exceptionHeader(line) !== undefined;
    if (hasBlockShape(line) || exceptionHeader(line)) return true;
    for (let k = lineNumber - NEAR; k <= lineNumber + NEAR; k++) {
      if (k === lineNumber) continue;
      const shape = this.shapeAt(k);
      if (shape || (shape === undefined && k > lineNumber)) return true;
    }
    return false;
  }

  /** Do the NEAR lines before and after line k, all in this byte block, surely have no block
   * shape? One look at their raw bytes (core/blocks/quiet.ts quietness, in WebAssembly)
   * instead of decoding and classifying each: most matched lines of a log are far from any block.
   * False: not sure (a token a shape needs is there, also with the colour sequences of coloured
   * lines stripped; or the lines reach past this block): each line is looked at.
   * The bytes looked at and found quiet are remembered as one run (bytes quietStart .. quietEnd,
   * both line starts): matched lines one after another (a log where most lines match) look
   * at each line's bytes once, not at each of their NEAR neighbours'; such a run grows by
   * QUIET_CHUNK bytes at a time, so the next matched lines are inside it and cost a compare. */
  private quietAround(k: number): boolean {
    const buf = this.buf;
    if (!buf || k - NEAR < this.first) return false;
    const at = this.startKnown(k);
    if (at < 0) return false;
    // (NEAR + 1 '\n' from line k's start: at least lines k .. k + NEAR, also where a lone CR ends
    // some of them; carried on from the last matched line's end when that line is a few before:
    // one '\n' further per line, which reaches at least as far)
    let e = at;
    let need = NEAR + 1;
    if (this.nearLine >= 0 && this.nearLine < k && k - this.nearLine <= NEAR) {
      e = this.nearEnd;
      need = k - this.nearLine;
    }
    for (let j = 0; j < need; j++) {
      e = buf.indexOf(10, e);
      if (e < 0 || e + 1 >= this.n) return false;
      e++;
    }
    this.nearLine = k;
    this.nearEnd = e;
    // lines k - NEAR .. k + NEAR inside the quiet run
    if (this.quietEnd > this.quietStart && k - NEAR >= this.quietFirst && e <= this.quietEnd) return this.quietLine(k, at, e);
    const from = this.startOf(k - NEAR);
    if (from < 0) return false;
    // line k - NEAR starts in the quiet run: only the bytes after the run are new
    const inRun = from >= this.quietStart && from < this.quietEnd;
    if (inRun && e <= this.quietEnd) return this.quietLine(k, at, e);
    const s = inRun ? this.quietEnd : from;
    if (e - s > 16 * 1024) return false;
    // the run goes on (matched lines one after another): its next QUIET_CHUNK bytes looked at at
    // once, so that the next matched lines are inside it; where such a chunk is not quiet (a line
    // of it has a block token), chunks of QUIET_CHUNK_SMALL bytes until the run is past it, and
    // where one of those is not quiet either, line by line until the run is past that one
    const big = this.quietEnd >= this.noisyUntil;
    if (inRun && (big || this.quietEnd >= this.noisySmallUntil)) {
      const nl = buf.indexOf(10, Math.max(e, s + (big ? QUIET_CHUNK : QUIET_CHUNK_SMALL)) - 1);
      if (nl >= 0 && nl + 1 < this.n && nl + 1 > e) {
        const q = quietness(buf, s, nl + 1);
        if (q & QUIET) {
          this.quietEnd = nl + 1;
          this.headerFreeIf(q, s, nl + 1);
          return this.quietLine(k, at, e);
        }
        if (big) this.noisyUntil = nl + 1;
        else this.noisySmallUntil = nl + 1;
      }
    }
    const q = quietness(buf, s, e);
    if (!(q & QUIET)) return false;
    if (!inRun) {
      this.quietStart = from;
      this.quietFirst = k - NEAR;
    }
    this.quietEnd = e;
    this.headerFreeIf(q, s, e);
    return this.quietLine(k, at, e);
  }

  /** The quiet test found bytes s .. e (whole lines) free of exception header tokens (q has
   * HEADER_FREE): they join the run of such bytes when they follow on from it, else start one. */
  private headerFreeIf(q: number, s: number, e: number): void {
    if (!(q & HEADER_FREE)) return;
    if (this.headerTo > this.headerFrom && s >= this.headerFrom && s <= this.headerTo) this.headerTo = Math.max(this.headerTo, e);
    else {
      this.headerFrom = s;
      this.headerTo = e;
    }
  }

  /** quietAround's true for line k (starting at byte `at`; its NEAR lines after it end by e):
   * nearBlock need not look for an exception header in it when its bytes are in the run of bytes
   * without header tokens. */
  private quietLine(k: number, at: number, e: number): true {
    this.headerFreeLine = this.headerTo > this.headerFrom && at >= this.headerFrom && e <= this.headerTo ? k : -1;
    return true;
  }

  /** Has line k a block shape (hasBlockShape)? undefined: line k is not known here. Remembered:
   * matched lines next to each other look at the same neighbours. */
  private shapeAt(k: number): boolean | undefined {
    const known = this.shapes.get(k);
    if (known !== undefined) return known;
    const l = this.lineAt(k);
    if (l === undefined) return undefined;
    const has = hasBlockShape(l);
    if (this.shapes.size > 4096) this.shapes.clear();
    this.shapes.set(k, has);
    return has;
  }

  private slot(k: number): number {
    return k % RING;
  }

  /** Line k's start offset when known, else -1. */
  private startKnown(k: number): number {
    const i = this.slot(k);
    return this.ringKey[i] === k ? this.ringStart[i]! : -1;
  }

  private setStart(k: number, pos: number): void {
    const i = this.slot(k);
    if (this.ringKey[i] !== k) {
      this.ringKey[i] = k;
      this.ringText[i] = undefined;
    }
    this.ringStart[i] = pos;
  }

  /** Line k: from this block's bytes, the previous block's tail (also between blocks), or the
   * last matched long line. */
  private lineAt(k: number): string | undefined {
    if (k === this.longK) return this.longText;
    if (k < this.first || !this.buf) {
      const i = k - this.tailFirst;
      return i >= 0 && i < this.tail.length ? this.tail[i] : undefined;
    }
    if (k > this.last || !this.buf) return undefined;
    const i = this.slot(k);
    if (this.ringKey[i] === k && this.ringText[i] !== undefined) return this.ringText[i];
    const s = this.startOf(k);
    if (s < 0) return undefined;
    this.lineEnd(s);
    const next = this.nextStart;
    const line = this.buf.toString('utf8', s, this.textEnd);
    this.ringText[i] = line; // (startOf set slot i to line k)
    if (next >= this.n) this.last = Math.min(this.last, k);
    else this.setStart(k + 1, next);
    return line;
  }

  /** The line starting at byte s: where its text ends (before \n, \r\n or a lone \r) and where the
   * next line starts, in textEnd and nextStart. */
  private lineEnd(s: number): void {
    const buf = this.buf!;
    let nl = buf.indexOf(10, s);
    if (nl < 0) nl = this.n;
    if ((this.hasCr ??= buf.indexOf(13) >= 0)) {
      const c = crIn(buf, s, nl);
      // a CR before the \n: a CRLF when right before it, else a lone CR ending the line
      if (c >= 0) {
        this.textEnd = c;
        this.nextStart = c + 1 === nl ? nl + 1 : c + 1;
        return;
      }
    }
    this.textEnd = nl;
    this.nextStart = nl + 1;
  }

  /** Where the line before the one starting at byte pos (> 0) starts. */
  private prevStart(pos: number): number {
    const buf = this.buf!;
    // the break that ends the line before: pos - 1 (\n or a lone \r), or a CRLF's \r before it
    let brk = pos - 1;
    if (brk > 0 && buf[brk] === 10 && buf[brk - 1] === 13) brk--;
    if (brk <= 0) return 0;
    const nl = lastNewline(buf, brk - 1);
    if (!this.hasCr) return nl + 1;
    // a lone CR between that \n and the break ends a line too (searched between them only)
    const cr = lastCrIn(buf, nl + 1, brk);
    return cr >= 0 ? cr + 1 : nl + 1;
  }

  /** Byte offset of line k's start (-1: not in this block), walking from a known line start
   * (windows are near one: the line before or after, the last matched line, or the block's start). */
  private startOf(k: number): number {
    const known = this.startKnown(k);
    if (known >= 0) return known;
    this.hasCr ??= this.buf!.indexOf(13) >= 0;
    let j: number;
    let pos: number;
    if ((pos = this.startKnown(k - 1)) >= 0) j = k - 1;
    else if ((pos = this.startKnown(k + 1)) >= 0) j = k + 1;
    else if (this.anchorStart >= 0) [j, pos] = [this.anchor, this.anchorStart];
    else [j, pos] = [this.first, 0];
    if (j > k) {
      for (; j > k; j--) {
        if (pos <= 0) return -1;
        pos = this.prevStart(pos);
      }
    } else {
      for (; j < k; j++) {
        if (pos >= this.n) return -1;
        this.lineEnd(pos);
        pos = this.nextStart;
      }
      if (pos >= this.n) return -1;
    }
    this.setStart(k, pos);
    return pos;
  }
}

/** Lines up to this long are searched for a CR by a byte loop: a native search of a view costs
 * more there (the view's making and the call). */
const CR_LOOP_MAX = 512;

/** The first CR in buf[s, e) (its offset in buf), or -1. */
function crIn(buf: Buffer, s: number, e: number): number {
  if (e - s > CR_LOOP_MAX) {
    const c = buf.subarray(s, e).indexOf(13);
    return c < 0 ? -1 : s + c;
  }
  for (let i = s; i < e; i++) if (buf[i] === 13) return i;
  return -1;
}

/** The last CR in buf[s, e) (its offset in buf), or -1. */
function lastCrIn(buf: Buffer, s: number, e: number): number {
  if (e - s > CR_LOOP_MAX) {
    const c = buf.subarray(s, e).lastIndexOf(13);
    return c < 0 ? -1 : s + c;
  }
  for (let i = e - 1; i >= s; i--) if (buf[i] === 13) return i;
  return -1;
}

/** buf.lastIndexOf(10, from), by a byte loop over the first 256 bytes (a log line is shorter: the
 * native call costs more than the loop there; a matched line's window walks back NEAR lines). */
function lastNewline(buf: Buffer, from: number): number {
  const stop = Math.max(-1, from - 256);
  for (let i = from; i > stop; i--) if (buf[i] === 10) return i;
  return stop < 0 ? -1 : buf.lastIndexOf(10, stop);
}
