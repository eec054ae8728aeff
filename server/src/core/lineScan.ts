// Streaming line splitter: constant memory whatever the file size. Lines end at \n, \r\n or a
// lone \r (as editors and LSP count lines), so `file:line` points where an editor shows it.
// forEachLine (text) cuts a line longer than MAX_LINE characters there (the rest of that line is
// skipped; `truncatedLines` counts them); forEachMatchingLine (bytes) matches a line of any length
// to its end in constant memory (engine/longLine.ts).
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { LineHits, type MatchEngine } from './engine';
import { STAGED_AHEAD, type StagedBlock } from './engine/bytes';
import type { LongLine } from './engine/longLine';
import { LineBlocks, type LongLineSink, PAD } from './lineBlocks';

/** Lines longer than this are matched as long lines (the WebAssembly scanner's largest block). */
const LONG_LINE = 4 << 20;
const EMPTY = Buffer.alloc(0);
/** The reader's blocks: a 1 MiB read with the partial line before it (up to 64 KiB) is one block,
 * not a block and a few lines after it (the engine stages blocks up to 1 MiB + 128 KiB ahead). */
export const BLOCK_BYTES = (1 << 20) + (64 << 10);
/** A block not handed to the scan thread waits its turn behind the ones that are when it is at most
 * this large (scanned in this thread, beside them: see BlocksAhead). */
const HELD_UNSTAGED_MAX = 64 << 10;

export const MAX_LINE = 16 * 1024 * 1024;

export interface LineStats {
  lines: number;
  truncatedLines: number;
}

/**
 * Calls onLine(line, lineNumber) for every line (1-based numbers, terminators removed), and
 * awaits afterChunk() between input chunks (the place to flush output with backpressure).
 * Rejects with the stream's error.
 */
export async function forEachLine(
  input: Readable,
  onLine: (line: string, lineNumber: number) => void,
  afterChunk: () => Promise<boolean | void> = async () => undefined,
): Promise<LineStats> {
  const decoder = new StringDecoder('utf8');
  let pending: string[] = [];
  let pendingLen = 0;
  let cut = false;
  const stats: LineStats = { lines: 0, truncatedLines: 0 };

  const emit = (segment: string) => {
    // segment: the text between two \n (CR still inside). Split lone CRs, drop a CRLF's CR.
    let s = segment;
    if (s.length && s.charCodeAt(s.length - 1) === 13) s = s.slice(0, -1);
    if (s.indexOf('\r') < 0) onLine(s, ++stats.lines);
    else for (const part of s.split('\r')) onLine(part, ++stats.lines);
  };

  const take = (text: string): void => {
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      if (pendingLen === 0) emit(text.slice(start, nl));
      else {
        if (!cut) addPending(text.slice(start, nl));
        emit(pending.join(''));
        if (cut) stats.truncatedLines++;
        pending = [];
        pendingLen = 0;
        cut = false;
      }
      start = nl + 1;
    }
    if (start < text.length && !cut) addPending(text.slice(start));
  };

  const addPending = (piece: string) => {
    const room = MAX_LINE - pendingLen;
    if (piece.length > room) {
      piece = piece.slice(0, room);
      cut = true;
    }
    if (piece.length) {
      pending.push(piece);
      pendingLen += piece.length;
    }
  };

  for await (const chunk of input) {
    take(typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer));
    if ((await afterChunk()) === false) {
      input.destroy();
      return stats;
    }
  }
  take(decoder.end());
  if (pendingLen > 0) {
    emit(pending.join('')); // a final CR ends the last line, as at any other line end
    if (cut) stats.truncatedLines++;
  }
  return stats;
}

/** Told about each block of bytes around its scan, so that lines near a matched one can be read
 * from the block's bytes (error blocks need a matched line's neighbours: cli/blockContext.ts).
 * `buf[0, n)` holds whole lines, the first of them line `firstLine`; it is valid until end(). A
 * line longer than a block (a long line) is matched outside begin/end, with no bytes. */
export interface BlockHooks {
  begin(buf: Uint8Array, n: number, firstLine: number): void;
  end(lastLine: number): void;
}

/**
 * The same lines as forEachLine, matched with the engine's byte-level scan (MatchEngine.scanBytes)
 * from the first byte: blocks of raw bytes go through the byte index and only lines where a
 * pattern's key occurs are decoded. Calls onLine(lineNumber, hits) for each line with matches
 * (1-based numbers, as forEachLine; `hits` is valid during the call only), between
 * opts.blocks.begin and .end of the block of bytes the line is in (a long line: outside them).
 */
/** Bytes read from a file right into the scan's buffers (LineBlocks.fill): `readInto(buf, at, n)`
 * puts up to n bytes at buf[at] and resolves to how many (0: the end). The caller closes what it
 * reads. */
export interface ByteSource {
  readInto(buf: Uint8Array, at: number, n: number): Promise<number>;
}

/** Bytes a ByteSource is asked for at a time (as a file stream's chunks). */
const READ_BYTES = 1 << 20;

export async function forEachMatchingLine(
  input: Readable | ByteSource,
  engine: MatchEngine,
  onLine: (lineNumber: number, hits: LineHits) => void,
  afterChunk: () => Promise<boolean | void> = async () => undefined,
  opts: { blocks?: BlockHooks; ahead?: boolean } = {},
): Promise<LineStats> {
  const stats: LineStats = { lines: 0, truncatedLines: 0 };
  let long: LongLine | undefined;
  const hits = new LineHits(undefined);
  // a line longer than a block is matched to its end in bytes (engine/longLine.ts), after the
  // blocks before it (those held back are walked first)
  const sink: LongLineSink = {
    segment: (bytes) => {
      ahead.flush();
      (long ??= engine.longLine((ms, prefix) => {
        stats.lines++;
        if (ms.length) {
          hits.setJs(EMPTY, 0, 0, prefix, ms);
          onLine(stats.lines, hits);
        }
      })).segment(bytes);
    },
    end: () => {
      ahead.flush();
      const l = long ?? engine.longLine(() => stats.lines++);
      long = undefined;
      l.end();
    },
  };
  const hooks = opts.blocks;
  // each block is handed to the engine's scan thread while the ones before it are walked (an
  // input that is all there, a file: a live stream's lines are matched as they come)
  const depth = opts.ahead ? STAGED_AHEAD : 0;
  const ahead = new BlocksAhead(engine, depth, (buf, n, staged) => {
    const base = stats.lines;
    hooks?.begin(buf, n, base + 1);
    stats.lines += engine.scanBytes(buf, n, (i, h) => onLine(base + i + 1, h), staged);
    hooks?.end(stats.lines);
  });
  // a file is read right into the blocks' buffers, each read started before the block before it is
  // worked on (readAhead); with a scan thread, into the scanner's memory, where the parts of each
  // staged block are scanned as they are (no copy)
  const file = 'readInto' in input;
  const layout = { keep: depth, readAhead: file };
  const lease = depth > 0 && file ? engine.leaseBlockBuffers(LineBlocks.buffersFor(layout), Math.min(BLOCK_BYTES, LONG_LINE + 1) + PAD) : undefined;
  const blocks = new LineBlocks(LONG_LINE, BLOCK_BYTES, sink, { ...layout, ...(lease ? { buffers: lease.buffers } : {}) });
  const onBlock = (buf: Uint8Array, n: number): void => ahead.push(buf, n);
  try {
    if ('readInto' in input) {
      // a file: read into the blocks' own buffers
      const read = (buf: Uint8Array, at: number, n: number) => input.readInto(buf, at, n);
      while (await blocks.fill(read, READ_BYTES, onBlock)) {
        if ((await afterChunk()) === false) {
          stats.truncatedLines = blocks.truncatedLines;
          return stats;
        }
      }
    } else {
      for await (const chunk of input) {
        blocks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Uint8Array), onBlock);
        if ((await afterChunk()) === false) {
          input.destroy();
          stats.truncatedLines = blocks.truncatedLines;
          return stats;
        }
      }
    }
    blocks.end(onBlock);
    ahead.flush();
  } finally {
    // (stopped early, or the input failed: the blocks held back are not walked, and a read started
    // ahead is waited for: it writes into the buffers, and the caller closes the source)
    ahead.drop();
    await blocks.idle();
    lease?.release();
  }
  stats.truncatedLines = blocks.truncatedLines;
  return stats;
}

/**
 * The blocks of a file scan walked behind the reader (MatchEngine.stageBytes): each block pushed is
 * handed to the engine's scan thread, and the oldest block held back is walked once more than
 * STAGED_AHEAD are (`walk` scans it with MatchEngine.scanBytes, given its `staged`), so the thread
 * scans the next blocks while this thread walks (neither waits while one block is slow for one of
 * them). A block that is not handed over waits its turn as well when it is small (a few lines
 * between two reads: scanned in this thread when its turn comes); a large one (a line over a
 * block's size) is walked after the ones before, at once, with the thread's help. `depth` blocks
 * at most are held back (STAGED_AHEAD; 0: each block walked as it comes, nothing staged: a live
 * stream, whose next block may be long in coming). The bytes of a pushed block must stay as they
 * are until `depth` more pushes (or a flush) return: LineBlocks with `keep: depth`. Call flush()
 * at the end, and before anything that must come after the blocks pushed so far (a long line).
 */
export class BlocksAhead {
  private readonly held: { buf: Uint8Array; n: number; staged: StagedBlock | undefined }[] = [];

  constructor(
    private readonly engine: MatchEngine,
    private readonly depth: number,
    private readonly walk: (buf: Uint8Array, n: number, staged: StagedBlock | undefined) => void,
  ) {
    if (depth > STAGED_AHEAD) throw new RangeError(`BlocksAhead: at most ${STAGED_AHEAD} blocks ahead`);
  }

  push(buf: Uint8Array, n: number): void {
    if (this.depth === 0) {
      this.walk(buf, n, undefined);
      return;
    }
    const staged = this.engine.stageBytes(buf, n);
    if (!staged && n > HELD_UNSTAGED_MAX) {
      this.flush();
      this.walk(buf, n, undefined);
      return;
    }
    this.held.push({ buf, n, staged });
    if (this.held.length > this.depth) this.walkOldest();
  }

  /** Walk the blocks held back, in order. */
  flush(): void {
    while (this.held.length > 0) this.walkOldest();
  }

  /** The scan stops here: the blocks held back are not walked (their work areas are freed). */
  drop(): void {
    for (const h of this.held.splice(0)) h.staged?.release();
  }

  private walkOldest(): void {
    const h = this.held.shift()!;
    this.walk(h.buf, h.n, h.staged);
  }
}
