// Blocks of a stream of lines seen once, in order (the CLI scan): each line is handed back with its
// role and block as soon as that is decided, at most LOOKAHEAD lines (or one block plus LOOKAHEAD
// lines) later. Memory is bounded: a block is at most MAX_BLOCK_LINES long. Line numbers are the
// caller's; a gap in them (a line number that does not follow the previous one) ends everything
// pending, as if the input had ended there: the CLI feeds windows of lines around matches.
import { type BlockLineRole, type ErrorBlock, type LineInfo, LOOKAHEAD, MAX_BLOCK_LINES, lineInfo, parseBlockAt } from './parse';

export interface StreamLine<T> {
  lineNumber: number;
  /** The line as pushed. */
  line: string;
  payload: T | undefined;
  /** The block the line belongs to, and its role there; undefined for lines outside blocks. */
  block?: ErrorBlock;
  role?: BlockLineRole;
}

interface Pending<T> {
  line: string;
  payload: T | undefined;
  info?: LineInfo;
}

export class BlockStream<T = undefined> {
  private buf: Pending<T>[] = [];
  /** Line number of buf[0]. */
  private base = 0;
  /** Next line to decide. */
  private pos = 0;
  /** Do not retry a block that ran past the buffered lines before this many lines are buffered. */
  private waitFor = 0;
  private starved = false;
  private ended = false;
  /** Lines pushed with a payload and not handed back yet. */
  pendingPayloads = 0;

  constructor(private readonly emit: (line: StreamLine<T>) => void) {}

  /** Is a block being parsed that may run on past the lines pushed so far (the stream waits for
   * more lines to decide it)? */
  get open(): boolean {
    return this.waitFor > 0 && this.pos < this.next;
  }

  private get next(): number {
    return this.base + this.buf.length;
  }

  push(lineNumber: number, line: string, payload?: T): void {
    if (this.buf.length > 0 && lineNumber !== this.next) this.flush();
    if (this.buf.length === 0) {
      this.base = lineNumber;
      this.pos = lineNumber;
      this.waitFor = 0;
    }
    this.buf.push({ line, payload });
    if (payload !== undefined) this.pendingPayloads++;
    this.pump();
  }

  /** The input ended (or has a gap here): decide and emit every pending line. */
  flush(): void {
    this.ended = true;
    try {
      this.pump();
    } finally {
      this.ended = false;
    }
    this.buf = [];
    this.base = this.pos;
  }

  end(): void {
    this.flush();
  }

  private readonly src = {
    get: (i: number): LineInfo | undefined => {
      if (i < this.base) return undefined;
      if (i >= this.next) {
        if (!this.ended) this.starved = true;
        return undefined;
      }
      const p = this.buf[i - this.base]!;
      return (p.info ??= lineInfo(p.line));
    },
  };

  private pump(): void {
    while (this.pos < this.next) {
      const buffered = this.next - this.pos;
      if (!this.ended && (buffered <= LOOKAHEAD || this.next < this.waitFor)) return;
      this.starved = false;
      const b = parseBlockAt(this.src, this.pos);
      if (this.starved && !this.ended && buffered <= MAX_BLOCK_LINES + LOOKAHEAD) {
        // a block that may go on past what is buffered: wait for (geometrically) more lines
        this.waitFor = this.next + Math.max(LOOKAHEAD, buffered);
        return;
      }
      if (b) {
        for (let i = b.first; i <= b.last; i++) this.out(i, b, b.roles[i - b.first]);
        this.pos = b.last + 1;
      } else {
        this.out(this.pos, undefined, undefined);
        this.pos++;
      }
      this.waitFor = 0;
      this.compact();
    }
  }

  private out(n: number, block: ErrorBlock | undefined, role: BlockLineRole | undefined): void {
    const p = this.buf[n - this.base]!;
    const l: StreamLine<T> = { lineNumber: n, line: p.line, payload: p.payload };
    if (p.payload !== undefined) this.pendingPayloads--;
    if (block) {
      l.block = block;
      l.role = role;
    }
    this.emit(l);
  }

  /** Drop emitted lines that no decision can read again (decisions read forward only). */
  private compact(): void {
    const drop = this.pos - this.base;
    if (drop > 1024 && drop * 2 > this.buf.length) {
      this.buf = this.buf.slice(drop);
      this.base = this.pos;
    }
  }
}
