// Streaming reader of the index JSON: `{schemaVersion, datasetVersion, errors: [ {...}, ... ]}`
// (or a bare array of rows). It hands out each row's JSON text as soon as the row is complete, so
// a 500k-row index (hundreds of MB decoded) never exists as one string or one object graph.
// Works on bytes: every structural character is ASCII and never occurs inside a UTF-8 sequence.

const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACK = 0x5b;
const RBRACK = 0x5d;
const QUOTE = 0x22;
const BSLASH = 0x5c;

export class RowScanner {
  private depth = 0;
  private inString = false;
  private escape = false;
  private rootIsArray: boolean | undefined;
  /** Depth at which rows open (their `{` takes depth from rowDepth-1 to rowDepth). */
  private rowDepth = 0;
  private inRows = false;
  private inRow = false;
  private rowParts: Buffer[] = [];
  private rowStart = 0;
  /** The root without the rows' contents: `{"schemaVersion":2,"datasetVersion":"…","errors":[]}`. */
  private skeleton: Buffer[] = [];
  private skeletonLen = 0;
  private lastKeyStart = -1; // offset in the skeleton of the last string opened at depth 1
  private lastKey = '';

  private rowLen = 0; // bytes of the current row in rowParts

  constructor(
    private readonly onRow: (json: string) => void,
    private readonly opts: { maxRow?: number; onTooLarge?: () => Error } = {},
  ) {}

  private tooLarge(): Error {
    return this.opts.onTooLarge?.() ?? new Error(`a row is larger than ${this.opts.maxRow} bytes`);
  }

  push(chunk: Buffer): void {
    let skelFrom = this.inRows ? -1 : 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (c === BSLASH) this.escape = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.depth === 1 && !this.inRows && this.lastKeyStart >= 0 && skelFrom >= 0) {
            this.captureKey(chunk, skelFrom, i + 1);
          }
        }
        continue;
      }
      if (c === QUOTE) {
        this.inString = true;
        if (this.depth === 1 && !this.inRows && skelFrom >= 0) this.lastKeyStart = this.skeletonLen + (i - skelFrom);
        continue;
      }
      if (c === LBRACE || c === LBRACK) {
        if (this.rootIsArray === undefined) {
          this.rootIsArray = c === LBRACK;
          if (this.rootIsArray) {
            this.rowDepth = 2;
            this.inRows = true;
            this.depth = 1;
            // keep "[" in the skeleton, then stop copying
            this.appendSkeleton(chunk.subarray(skelFrom, i + 1));
            skelFrom = -1;
            continue;
          }
        }
        this.depth++;
        if (!this.inRows && this.depth === 2 && c === LBRACK && this.lastKey === 'errors') {
          this.inRows = true;
          this.rowDepth = 3;
          this.appendSkeleton(chunk.subarray(skelFrom, i + 1));
          skelFrom = -1;
        } else if (this.inRows && this.depth === this.rowDepth && c === LBRACE) {
          this.inRow = true;
          this.rowStart = i;
        }
        continue;
      }
      if (c === RBRACE || c === RBRACK) {
        if (this.inRow && this.depth === this.rowDepth && c === RBRACE) {
          const part = chunk.subarray(this.rowStart, i + 1);
          if (this.opts.maxRow !== undefined && this.rowLen + part.length > this.opts.maxRow) throw this.tooLarge();
          const text = this.rowParts.length ? Buffer.concat([...this.rowParts, part]).toString('utf8') : part.toString('utf8');
          this.rowParts = [];
          this.rowLen = 0;
          this.inRow = false;
          this.onRow(text);
        }
        this.depth--;
        if (this.inRows && this.depth === this.rowDepth - 2) {
          // the rows array closed
          this.inRows = false;
          skelFrom = i;
        }
      }
    }
    if (this.inRow) {
      // a row that goes on: bounded before it is kept (one row with a 1 GiB string stops here)
      this.rowLen += chunk.length - this.rowStart;
      if (this.opts.maxRow !== undefined && this.rowLen > this.opts.maxRow) throw this.tooLarge();
      this.rowParts.push(Buffer.from(chunk.subarray(this.rowStart)));
      this.rowStart = 0; // the row goes on at the start of the next chunk
    }
    if (skelFrom >= 0) this.appendSkeleton(chunk.subarray(skelFrom));
  }

  /** The root object without its rows (throws when the JSON was incomplete). */
  end(): Record<string, unknown> {
    if (this.rootIsArray === undefined) throw new Error('the index is empty');
    if (this.depth !== 0 || this.inString || this.inRows) throw new Error('the index ends in the middle of its JSON');
    if (this.rootIsArray) return {};
    const v: unknown = JSON.parse(Buffer.concat(this.skeleton).toString('utf8'));
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  }

  private appendSkeleton(b: Buffer): void {
    if (b.length === 0) return;
    this.skeleton.push(Buffer.from(b));
    this.skeletonLen += b.length;
    if (this.skeletonLen > 1 << 20) throw new Error('the index has an unexpected shape (no "errors" array)');
  }

  private captureKey(chunk: Buffer, skelFrom: number, endInChunk: number): void {
    const all = Buffer.concat([...this.skeleton, chunk.subarray(skelFrom, endInChunk)]);
    const raw = all.subarray(this.lastKeyStart).toString('utf8');
    try {
      this.lastKey = JSON.parse(raw) as string;
    } catch {
      this.lastKey = '';
    }
    this.lastKeyStart = -1;
  }
}
