// Buffered output with backpressure: commands write strings, flush() awaits 'drain' when the
// stream is full. A closed pipe (EPIPE, e.g. `| head`) marks the writer closed instead of throwing.
// Every character of the core's invisible set (controls, bidi, zero-width: render.ts) that reaches
// here is written as a visible \uXXXX escape, so record or log text cannot reorder or hide what a
// terminal shows; inside JSON strings (json, count, sarif) that is the character's own JSON
// escape, so the data is unchanged.
import { Writable } from 'node:stream';
import { showInvisible } from '../core/render';

const FLUSH_AT = 64 * 1024;
// eslint-disable-next-line no-control-regex
const SGR = /\u001b\[[0-9;]*m/g;

export class Output {
  private parts: string[] = [];
  private size = 0;
  closed = false;

  constructor(private readonly stream: Writable) {
    stream.on('error', () => {
      this.closed = true;
    });
  }

  write(raw: string): void {
    if (this.closed) return;
    const text = showInvisible(raw);
    this.parts.push(text);
    this.size += text.length;
  }

  /**
   * `raw` with the colours the CLI painted (cli/terminal.ts paint: SGR sequences `ESC [ n;… m`) kept
   * and every other invisible character escaped as write() does. Only for text whose record and log
   * parts went through stripControls/oneLine or JSON.stringify first (the text reporter's): those
   * leave no ESC of their own, so every ESC here is a colour the CLI chose.
   */
  writeStyled(raw: string): void {
    if (this.closed) return;
    let text = '';
    let at = 0;
    for (const m of raw.matchAll(SGR)) {
      text += showInvisible(raw.slice(at, m.index)) + m[0];
      at = m.index + m[0].length;
    }
    text += showInvisible(raw.slice(at));
    this.parts.push(text);
    this.size += text.length;
  }

  /** True when enough is buffered that the caller should `await flush()`. */
  get full(): boolean {
    return this.size >= FLUSH_AT;
  }

  async flush(): Promise<void> {
    if (this.closed || this.size === 0) return;
    const data = this.parts.join('');
    this.parts = [];
    this.size = 0;
    const s = this.stream;
    if (s.write(data)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        s.off('drain', done);
        s.off('error', done);
        s.off('close', done);
        resolve();
      };
      s.on('drain', done);
      s.on('error', done);
      s.on('close', done);
    });
  }
}

/**
 * A stream that writes into `stream` with Output's rule (every invisible character as a \uXXXX
 * escape), for writers that are not Output: the MCP SDK's stdio transport, whose JSON lines then
 * carry record and log text escaped, the same data once parsed. A chunk is accepted once `stream`
 * has taken it (its write callback), so the writer's backpressure stays `stream`'s.
 */
export function visibleStream(stream: Writable): Writable {
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      stream.write(showInvisible(typeof chunk === 'string' ? chunk : chunk.toString('utf8')), () => done());
    },
  });
}
