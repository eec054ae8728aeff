// The stdio frame checker (server/src/server/frames.ts): well-formed LSP frames pass in any
// chunking; a broken one is named at once (issue 14.9; the protocol test spawns the server).
import * as assert from 'node:assert/strict';
import { FrameChecker, MAX_HEADER_BYTES } from '../../server/src/server/frames';

const frame = (body: string, extra = '') => `Content-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

function feed(text: string | Buffer, chunk: number): string | undefined {
  const c = new FrameChecker();
  const b = Buffer.isBuffer(text) ? text : Buffer.from(text);
  for (let i = 0; i < b.length; i += chunk) {
    const r = c.push(b.subarray(i, i + chunk));
    if (r) return r;
  }
  return undefined;
}

describe('stdio frames', () => {
  it('accepts well-formed frames split anywhere (Content-Type, empty and non-ASCII bodies, several per chunk)', () => {
    const text = frame('{"jsonrpc":"2.0","id":1,"method":"x","params":{"t":"é 😀 \\r\\n\\r\\n"}}') + frame('', 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n') + frame('{}');
    for (const chunk of [1, 2, 3, 7, 64, 100000]) assert.equal(feed(text, chunk), undefined, `chunk ${chunk}`);
    const c = new FrameChecker();
    c.push(Buffer.from(text));
    assert.equal(c.frames, 3);
  });

  it('names the broken frame: bad Content-Length, no header, no Content-Length, bare LF, endless header', () => {
    const cases: [string, RegExp][] = [
      ['Content-Length: abc\r\n\r\n{}', /frame 1: Content-Length is not a byte count: "abc"/],
      ['Content-Length: -5\r\n\r\n{}', /not a byte count: "-5"/],
      ['Content-Length: 1e3\r\n\r\n{}', /not a byte count/],
      ['Content-Length: 99999999999\r\n\r\n', /not a byte count/],
      ['{"jsonrpc":"2.0"}', /frame 1: expected a header .*"\{"/],
      ['Content-Type: x\r\n\r\n{}', /no Content-Length/],
      ['Content-Length: 2\n\n{}', /not ended by CRLF/],
      [frame('{}') + 'garbage\r\n\r\n', /frame 2: a header line without a name/],
      ['X-Long: ' + 'a'.repeat(MAX_HEADER_BYTES), /no end of the header section/],
    ];
    for (const [text, re] of cases) for (const chunk of [1, 5, 1 << 20]) assert.match(feed(text, chunk) ?? 'passed', re, `${JSON.stringify(text.slice(0, 40))} in chunks of ${chunk}`);
  });
});
