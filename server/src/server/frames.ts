// The LSP base protocol on stdio, checked as it arrives: `Name: value\r\n` header lines, a blank
// line, then exactly Content-Length bytes of body. vscode-jsonrpc's reader, given a frame with
// `Content-Length: abc` or `-5`, or a body without any header, reports an error once and then
// waits forever (the rest of the stream is read as headers that never end): the server stays
// alive but deaf, and the client never restarts it. This checker sees the same bytes first; on the
// first broken frame main.ts logs it and exits, so the client's restart policy applies.

/** Largest header section accepted (real ones are ~30-60 bytes). */
export const MAX_HEADER_BYTES = 64 * 1024;
/** Largest body accepted (a didOpen of a 100 MB log is ~100 MB of JSON). */
export const MAX_BODY_BYTES = 1024 * 1024 * 1024;

const CR = 13;
const LF = 10;

/** RFC 7230 token characters (header names). */
function isToken(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || '!#$%&\'*+-.^_`|~'.includes(String.fromCharCode(c));
}

export class FrameChecker {
  /** Bytes of the body still to come; -1 while reading headers. */
  private remaining = -1;
  private header: number[] = [];
  private sawColon = false;
  private contentLength: number | undefined;
  private headerBytes = 0;
  /** Frames seen complete (for the log line). */
  frames = 0;

  /** Feeds a chunk; returns why the stream is broken, or undefined while it is well-formed. */
  push(chunk: Uint8Array): string | undefined {
    let i = 0;
    while (i < chunk.length) {
      if (this.remaining >= 0) {
        const take = Math.min(this.remaining, chunk.length - i);
        this.remaining -= take;
        i += take;
        if (this.remaining === 0) {
          this.remaining = -1;
          this.frames++;
        }
        continue;
      }
      const c = chunk[i++]!;
      if (++this.headerBytes > MAX_HEADER_BYTES) return `frame ${this.frames + 1}: no end of the header section in ${MAX_HEADER_BYTES} bytes`;
      if (c === LF) {
        const line = this.header;
        this.header = [];
        this.sawColon = false;
        if (line[line.length - 1] !== CR) return `frame ${this.frames + 1}: a header line not ended by CRLF`;
        line.pop();
        if (line.length === 0) {
          // end of the header section
          if (this.contentLength === undefined) return `frame ${this.frames + 1}: no Content-Length header`;
          this.remaining = this.contentLength;
          this.contentLength = undefined;
          this.headerBytes = 0;
          if (this.remaining === 0) {
            this.remaining = -1;
            this.frames++;
          }
          continue;
        }
        const text = String.fromCharCode(...line);
        const colon = text.indexOf(':');
        if (colon <= 0) return `frame ${this.frames + 1}: a header line without a name: ${JSON.stringify(text.slice(0, 80))}`;
        if (text.slice(0, colon).toLowerCase() === 'content-length') {
          const v = text.slice(colon + 1).trim();
          if (!/^\d{1,10}$/.test(v)) return `frame ${this.frames + 1}: Content-Length is not a byte count: ${JSON.stringify(v.slice(0, 40))}`;
          const n = Number(v);
          if (n > MAX_BODY_BYTES) return `frame ${this.frames + 1}: Content-Length ${n} is over ${MAX_BODY_BYTES}`;
          this.contentLength = n;
        }
        continue;
      }
      // a header name must be a token up to its ':' (a body without headers starts with '{')
      if (c === 0x3a) this.sawColon = true;
      else if (!this.sawColon && c !== CR && !isToken(c))
        return `frame ${this.frames + 1}: expected a header (Content-Length: n), got ${JSON.stringify(String.fromCharCode(...this.header.slice(0, 40), c))}`;
      this.header.push(c);
    }
    return undefined;
  }
}
