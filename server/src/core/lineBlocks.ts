// Bytes in, blocks of whole lines out: the reader side of MatchEngine.scanBytes. Chunks of any
// size (a file read, a stream's data) are appended to one buffer that is 4-byte aligned and keeps
// 32 spare bytes after the data, as scanBytes wants; each block handed out ends right after a line
// end: '\n', or a CR not followed by '\n' (a lone CR ends a line for editors; a CR at the very end
// of what arrived waits for the next byte). The final block may end without one.
// Memory stays bounded: a line longer than `maxLine` bytes is either handed to a LongLineSink in
// segments as it arrives (the file scan matches such a line to its end, see engine/longLine.ts),
// or, without a sink, cut there (the block gets the first maxLine bytes and a '\n', the rest of
// that line is skipped, and `truncatedLines` counts such lines).
// With `keep` k, a block's bytes stay as they are until k more blocks have been handed out and
// their onBlock calls have returned (k + 1 buffers take turns): a scan can walk blocks behind the
// reader (core/lineScan.ts BlocksAhead). With `readAhead`, fill() starts the next read (into the
// next buffer: one more takes turns) before it hands a block out, so the read runs while the block
// is worked on. The buffers may be given (`buffers`: the scanner's memory, where a staged block is
// scanned as it is, with no copy).

export const PAD = 32;

const EMPTY = new Uint8Array(0);

/** Receives one line too long for a block: its bytes in order, then its end. */
export interface LongLineSink {
  /** Bytes of the line (no line end among them); valid during the call only. */
  segment(bytes: Uint8Array): void;
  /** The line ended (at a line end, or at the end of the input). */
  end(): void;
}

/** Index just past the last line end in b[from, to): '\n', or a CR followed by a byte that is not
 * '\n' (a CR at to - 1 is undecided); -1 when there is none. */
function lastLineEnd(b: Uint8Array, from: number, to: number): number {
  const nl = b.subarray(from, to).lastIndexOf(10);
  // only a CR after the last '\n' can end a later line, and every byte after that '\n' is not one:
  // such a CR before to - 1 is a line end (searching the whole block for a CR cost a tenth of a
  // file scan on logs without any)
  const lo = nl < 0 ? from : from + nl + 1;
  const cr = to - 1 > lo ? b.subarray(lo, to - 1).lastIndexOf(13) : -1;
  if (cr >= 0) return lo + cr + 1;
  return nl < 0 ? -1 : from + nl + 1;
}

/** Index of the first line end in b[from, to) ('\n', the CR of a CRLF, or a lone CR), -1 when
 * none; `pendingCr`: a CR at to - 1 whose next byte is not known yet. */
function firstLineEnd(b: Uint8Array, from: number, to: number): { at: number; pendingCr: boolean } {
  for (let i = from; i < to; i++) {
    const c = b[i];
    if (c === 10) return { at: i, pendingCr: false };
    if (c === 13) {
      if (i + 1 >= to) return { at: -1, pendingCr: true };
      // (a CRLF's CR: the line's text ends before it, not before the '\n')
      return { at: i, pendingCr: false };
    }
  }
  return { at: -1, pendingCr: false };
}

export class LineBlocks {
  private buf: Uint8Array;
  private have = 0;
  /** Skipping the rest of a line that was cut. */
  private skipping = false;
  /** Handing a long line to the sink. */
  private inLong = false;
  /** A CR that ended the last segment of a long line: the line's end if the next byte is not '\n'. */
  private longCr = false;
  truncatedLines = 0;

  /** With `keep`: the other buffers, the oldest block handed out first (the next one filled). */
  private readonly spares: Uint8Array[] = [];

  constructor(
    private readonly maxLine = 16 * 1024 * 1024,
    initial = 1 << 20,
    private readonly long?: LongLineSink,
    opts: { keep?: number; readAhead?: boolean; buffers?: readonly Uint8Array[] } = {},
  ) {
    // (the buffers given, where they are large enough: e.g. in a scanner's memory, MatchEngine.leaseBlockBuffers)
    const size = Math.min(initial, maxLine + 1) + PAD;
    const given = (opts.buffers ?? []).filter((b) => b.length >= size);
    this.size = given.length ? Math.min(...given.map((b) => b.length)) : size;
    const make = (): Uint8Array => given.shift() ?? new Uint8Array(this.size);
    this.buf = make();
    this.readAhead = opts.readAhead === true;
    for (let k = 0; k < LineBlocks.buffersFor(opts) - 1; k++) this.spares.push(make());
  }

  /** The buffers a LineBlocks with these options takes turns with. */
  static buffersFor(opts: { keep?: number; readAhead?: boolean }): number {
    return (opts.keep ?? 0) + 1 + (opts.readAhead ? 1 : 0);
  }

  private readonly readAhead: boolean;
  /** fill()'s read started ahead into buf[have, ...) (readAhead), and what it resolved to. */
  private reading: Promise<number> | undefined;

  /** Resolves once no read fill() started is in flight (its result, or failure, is dropped): the
   * buffers may be reused then, and the source closed. */
  async idle(): Promise<void> {
    const r = this.reading;
    this.reading = undefined;
    if (r) await r.then(
      () => undefined,
      () => undefined,
    );
  }

  /** Hand out buf[0, n), then keep what follows it (have - n bytes) for the next block: moved to
   * the front, or with `keep` to the buffer of the oldest block handed out, which becomes the one
   * filled next. */
  private handOut(n: number, onBlock: (buf: Uint8Array, n: number) => void, beforeBlock?: () => void): void {
    const rest = this.have - n;
    const used = this.buf;
    // (the next buffer is free before onBlock only with readAhead's extra one: else its block is
    // one the `keep` blocks after it are handed out over, this one the last)
    if (!this.readAhead) onBlock(used, n);
    // a long line's larger buffer (grow) is left once what follows its block fits one of the first
    // size with room to spare: the buffers that take turns are of that size (a reader's may be in
    // a scanner's memory, core/lineScan.ts)
    const back = used.length > this.size && rest + (this.size >> 1) <= this.size - PAD;
    let next = this.spares.shift();
    if (!next) {
      if (back) {
        const b = this.standard();
        b.set(used.subarray(n, this.have), 0);
        this.buf = b;
      } else used.copyWithin(0, n, this.have);
      this.have = rest;
      return;
    }
    // (what follows the block goes to the next buffer first: with readAhead a read into it starts
    // before onBlock, which may zero the bytes right after the block while it runs)
    if (next.length < used.length && !back) next = new Uint8Array(used.length);
    next.set(used.subarray(n, this.have), 0);
    this.spares.push(used.length > this.size ? this.standard() : used);
    this.buf = next;
    this.have = rest;
    if (this.readAhead) {
      beforeBlock?.();
      onBlock(used, n);
    }
  }

  /** A free buffer of the first size: one a long line's buffer replaced (grow), else a new one. */
  private standard(): Uint8Array {
    return this.shelved.pop() ?? new Uint8Array(this.size);
  }

  /** Append chunk; onBlock(buf, n) is called for each run of whole lines buf[0, n). The buffer is
   * reused after onBlock returns (with `keep` k: after k more blocks' onBlock calls return). */
  push(chunk: Uint8Array, onBlock: (buf: Uint8Array, n: number) => void): void {
    let c = chunk;
    if (this.inLong) {
      c = this.continueLong(c);
      if (this.inLong) return;
    }
    if (this.skipping) {
      const nl = c.indexOf(10);
      if (nl < 0) return;
      this.skipping = false;
      c = c.subarray(nl + 1);
    }
    while (c.length > 0) {
      const room = this.buf.length - PAD - this.have;
      if (room <= 0) this.grow(c.length);
      const take = Math.min(c.length, this.buf.length - PAD - this.have);
      this.buf.set(c.subarray(0, take), this.have);
      const from = this.have;
      this.have += take;
      const rest = this.settle(from, c.subarray(take), onBlock);
      if (!rest) return;
      c = rest;
    }
  }

  /**
   * push() of what `read` puts right into this buffer, at most `max` bytes at a time (no chunk
   * is copied in: a file's reads); resolves to false once read gives 0 (the input's end: call
   * end() then). `read(buf, at, n)` fills buf[at, at + n) from its start and resolves to the
   * bytes it put there.
   */
  async fill(read: (buf: Uint8Array, at: number, n: number) => Promise<number>, max: number, onBlock: (buf: Uint8Array, n: number) => void): Promise<boolean> {
    if (this.reading) {
      // (started by the fill before, into this buffer at `have`: readAhead)
      const p = this.reading;
      this.reading = undefined;
      return this.took(await p, read, max, onBlock);
    }
    if (this.inLong || this.skipping) {
      // (the rest of a long or cut line goes through push: it is not kept in this buffer)
      const chunk = new Uint8Array(max);
      const got = await read(chunk, 0, max);
      if (got > 0) this.push(chunk.subarray(0, got), onBlock);
      return got > 0;
    }
    if (this.buf.length - PAD - this.have <= 0) this.grow(max);
    const buf = this.buf;
    return this.took(await read(buf, this.have, Math.min(max, buf.length - PAD - this.have)), read, max, onBlock);
  }

  /** fill() after `got` bytes were read in at `have`: hand out the whole lines (the next read
   * started first where readAhead allows it). */
  private took(got: number, read: (buf: Uint8Array, at: number, n: number) => Promise<number>, max: number, onBlock: (buf: Uint8Array, n: number) => void): boolean {
    if (got <= 0) return false;
    const from = this.have;
    this.have += got;
    const ahead = this.readAhead
      ? () => {
          // (a buffer with no room left, a line that fills it, is read into by the next fill)
          const room = this.buf.length - PAD - this.have;
          if (room <= 0) return;
          const p = read(this.buf, this.have, Math.min(max, room));
          p.catch(() => undefined); // (its failure is the next fill's, or idle's)
          this.reading = p;
        }
      : undefined;
    this.settle(from, EMPTY, onBlock, ahead);
    return true;
  }

  /** After bytes were appended at `from` (c: what follows them, not appended yet): hand out the
   * whole lines, or deal with a line over maxLine. Returns what of c is still to be appended
   * (undefined: nothing, c was taken). */
  private settle(from: number, c: Uint8Array, onBlock: (buf: Uint8Array, n: number) => void, beforeBlock?: () => void): Uint8Array | undefined {
    // whole lines so far? (before `from` there is no line end, but a CR at from - 1 may be one now)
    const n = lastLineEnd(this.buf, Math.max(0, from - 1), this.have);
    if (n >= 0) this.handOut(n, onBlock, beforeBlock);
    else if (this.have > this.maxLine) {
      if (this.long) {
        // one line longer than maxLine: to the sink, segment by segment, until it ends
        const keepCr = this.buf[this.have - 1] === 13; // undecided: it may start a CRLF
        this.long.segment(this.buf.subarray(0, keepCr ? this.have - 1 : this.have));
        this.have = 0;
        this.inLong = true;
        this.longCr = keepCr;
        const rest = this.continueLong(c);
        return this.inLong ? undefined : rest;
      }
      // without a sink: cut it at a UTF-8 character boundary
      let cut = this.maxLine;
      while (cut > 0 && (this.buf[cut]! & 0xc0) === 0x80) cut--;
      this.buf[cut] = 10;
      this.have = cut + 1;
      this.handOut(cut + 1, onBlock);
      this.truncatedLines++;
      const nl = c.indexOf(10);
      if (nl < 0) {
        this.skipping = true;
        return undefined;
      }
      return c.subarray(nl + 1);
    }
    return c;
  }

  /** Feed c to the long line until it ends; returns what follows its end (the long line is done
   * then), or an empty array. */
  private continueLong(c: Uint8Array): Uint8Array {
    const sink = this.long!;
    if (this.longCr) {
      if (c.length === 0) return c;
      this.longCr = false;
      if (c[0] !== 10) {
        // the CR was a lone CR: the line ended at it
        sink.end();
        this.inLong = false;
        return c;
      }
      // a CRLF: the line ends at the CR, the '\n' is its end
      sink.end();
      this.inLong = false;
      return c.subarray(1);
    }
    const e = firstLineEnd(c, 0, c.length);
    if (e.at >= 0) {
      if (e.at > 0) sink.segment(c.subarray(0, e.at));
      sink.end();
      this.inLong = false;
      const crlf = c[e.at] === 13 && c[e.at + 1] === 10;
      return c.subarray(e.at + (crlf ? 2 : 1));
    }
    if (e.pendingCr) {
      if (c.length > 1) sink.segment(c.subarray(0, c.length - 1));
      this.longCr = true;
    } else if (c.length > 0) sink.segment(c);
    return new Uint8Array(0);
  }

  /** The input ended: hand out the last line (without a line end), if any. */
  end(onBlock: (buf: Uint8Array, n: number) => void): void {
    if (this.inLong) {
      // (a CR held back at the end of the input ended the line)
      this.long!.end();
      this.inLong = false;
      this.longCr = false;
    }
    if (this.have > 0) this.handOut(this.have, onBlock);
    this.have = 0;
    this.skipping = false;
  }

  private grow(incoming: number): void {
    const want = Math.min(Math.max(this.buf.length * 2, this.have + incoming + PAD), this.maxLine + (1 << 20) + PAD);
    if (want <= this.buf.length) return;
    const b = new Uint8Array(want);
    b.set(this.buf.subarray(0, this.have));
    // (a buffer of the first size is taken up again once the long line is handed out: handOut)
    if (this.buf.length === this.size) this.shelved.push(this.buf);
    this.buf = b;
  }

  /** The size of the buffers made (or given) at first, and those of them a long line's larger
   * buffer replaced (grow), free. */
  private readonly size: number;
  private readonly shelved: Uint8Array[] = [];
}
