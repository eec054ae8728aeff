// Bytes in, blocks of whole lines out: the reader side of MatchEngine.matchBytes. Chunks of any
// size (a file read, a stream's data) are appended to one buffer that is 4-byte aligned and keeps
// 32 spare bytes after the data, as matchBytes wants; each block handed out ends right after a
// '\n' (the final one at the end of the input). Memory stays bounded: a line longer than
// `maxLine` bytes is cut there (the block gets the first maxLine bytes and a '\n'), the rest of
// that line is skipped, and `truncatedLines` counts such lines.

export const PAD = 32;

export class LineBlocks {
  private buf: Uint8Array;
  private have = 0;
  /** Skipping the rest of a line that was cut. */
  private skipping = false;
  truncatedLines = 0;

  constructor(
    private readonly maxLine = 16 * 1024 * 1024,
    initial = 1 << 20,
  ) {
    this.buf = new Uint8Array(initial + PAD);
  }

  /** Append chunk; onBlock(buf, n) is called for each run of whole lines buf[0, n). The buffer is
   * reused after onBlock returns. */
  push(chunk: Uint8Array, onBlock: (buf: Uint8Array, n: number) => void): void {
    let c = chunk;
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
      c = c.subarray(take);
      // whole lines so far? (the bytes before `from` hold no '\n': they were handed out before)
      const inNew = this.buf.subarray(from, this.have).lastIndexOf(10);
      if (inNew >= 0) {
        const n = from + inNew + 1;
        onBlock(this.buf, n);
        this.buf.copyWithin(0, n, this.have);
        this.have -= n;
      } else if (this.have > this.maxLine) {
        // one line longer than maxLine: cut it at a UTF-8 character boundary
        let cut = this.maxLine;
        while (cut > 0 && (this.buf[cut]! & 0xc0) === 0x80) cut--;
        this.buf[cut] = 10;
        onBlock(this.buf, cut + 1);
        this.truncatedLines++;
        this.have = 0;
        const nl = c.indexOf(10);
        if (nl < 0) {
          this.skipping = true;
          return;
        }
        c = c.subarray(nl + 1);
      }
    }
  }

  /** The input ended: hand out the last line (without '\n'), if any. */
  end(onBlock: (buf: Uint8Array, n: number) => void): void {
    if (this.have > 0) onBlock(this.buf, this.have);
    this.have = 0;
    this.skipping = false;
  }

  private grow(incoming: number): void {
    const want = Math.min(Math.max(this.buf.length * 2, this.have + incoming + PAD), this.maxLine + (1 << 20) + PAD);
    if (want <= this.buf.length) return;
    const b = new Uint8Array(want);
    b.set(this.buf.subarray(0, this.have));
    this.buf = b;
  }
}
