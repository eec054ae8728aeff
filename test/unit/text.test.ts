import * as assert from 'node:assert/strict';
import { stripEscapeBytes } from '../../server/src/core/blocks/quiet';
import { baseView, copyBytes, lineViews, needsViews, splitLines, stripAnsi } from '../../server/src/core/text';

/** Every view offset maps to the original offset of the same character. */
function assertMapsBack(line: string): void {
  for (const v of lineViews(line)) {
    if (v.kind !== 'line') continue;
    for (let i = 0; i < v.text.length; i++) assert.equal(line[v.toOriginal(i)], v.text[i], `offset ${i} of ${JSON.stringify(v.text)}`);
  }
}

describe('text: stripAnsi', () => {
  it('removes CSI colour sequences', () => {
    assert.equal(stripAnsi('\x1b[1;31mERROR\x1b[0m: boom \x1b[38;5;208mx\x1b[m'), 'ERROR: boom x');
  });

  it('removes OSC 633 shell-integration marks ended by BEL or ESC \\', () => {
    const line = '\x1b]633;A\x07\x1b]633;B\x07$ make\x1b]633;E;make;nonce\x1b\\ done\x1b]633;D;1\x07';
    assert.equal(stripAnsi(line), '$ make done');
  });

  it('removes hyperlinks (OSC 8), charset selection and two-character escapes', () => {
    assert.equal(stripAnsi('see \x1b]8;;https://x.y\x1b\\link\x1b]8;;\x1b\\ now'), 'see link now');
    assert.equal(stripAnsi('\x1b(Babc\x1b7def\x1b8'), 'abcdef');
  });

  it('drops an unterminated OSC to the end and leaves plain text alone', () => {
    assert.equal(stripAnsi('text \x1b]633;P;Cwd=/x'), 'text ');
    const plain = 'no escapes here';
    assert.equal(stripAnsi(plain), plain);
  });
});

describe('blockContext: stripEscapeBytes (coloured lines read in bytes)', () => {
  /** What a reader of the decoded lines sees: each line stripped (baseView), joined by '\n'. */
  const byText = (bytes: Buffer): Buffer => Buffer.from(splitLines(bytes.toString('utf8')).map((l) => baseView(l).text).join('\n'), 'utf8');
  const pieces = ['\x1b[1;31m', '\x1b[0m', '\x1b[38;5;208m', '\x1b]633;A\x07', '\x1b]8;;http://x\x1b\\', '\x1b(B', '\x1bM', '\x1b', '\x1b]0;unterminated', 'File "a.py", line 3', '  at f (x.js:1:2)', 'Traceback', 'é', '€', '😀', ' ', 'a', 'E', '\r\n', '\n', '\r', '\t', '[', ']', ';', '7'];

  it('gives the bytes of the decoded lines stripped one by one and joined (random coloured text)', () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
    const out = Buffer.alloc(8);
    for (let t = 0; t < 3000; t++) {
      let text = '';
      for (let k = rnd(30); k > 0; k--) text += pieces[rnd(pieces.length)];
      const bytes = Buffer.from(text, 'utf8');
      // with a prefix and suffix around the range, a scratch buffer too small and one reused
      const framed = Buffer.concat([Buffer.from('x\x1b['), bytes, Buffer.from('\x1b]9')]);
      const want = byText(bytes);
      assert.deepEqual(Buffer.from(stripEscapeBytes(framed, 3, 3 + bytes.length)), want, JSON.stringify(text));
      assert.deepEqual(Buffer.from(stripEscapeBytes(framed, 3, 3 + bytes.length, out)), want, JSON.stringify(text));
    }
  });

  it('keeps the ASCII bytes around an invalid UTF-8 sequence where decoding leaves them', () => {
    const bytes = Buffer.from([0x41, 0xc3, 0x1b, 0x5b, 0x31, 0x6d, 0x42, 0xff, 0x0d, 0x0a, 0x43]);
    const got = Buffer.from(stripEscapeBytes(bytes, 0, bytes.length));
    assert.deepEqual([...got], [0x41, 0xc3, 0x42, 0xff, 0x0a, 0x43]);
    // (the decoded text's ASCII characters, in order)
    assert.equal(got.toString('latin1').replace(/[^\x00-\x7f]/g, ''), byText(bytes).toString('utf8').replace(/[^\x00-\x7f]/g, ''));
  });
});

describe('text: copyBytes', () => {
  it('copies a run of any length (byte by byte when short, natively when long) and only it', () => {
    const src = Uint8Array.from({ length: 300 }, (_, i) => (i * 7 + 3) & 0xff);
    for (const [from, to, at] of [[0, 0, 0], [5, 6, 2], [10, 57, 1], [3, 50, 0], [0, 300, 0], [100, 147, 9], [100, 148, 9]] as const) {
      const dst = new Uint8Array(310).fill(0xee);
      assert.equal(copyBytes(src, from, to, dst, at), to - from);
      const want = new Uint8Array(310).fill(0xee);
      want.set(src.subarray(from, to), at);
      assert.deepEqual(dst, want, `[${from}, ${to}) at ${at}`);
    }
  });
});

describe('text: lineViews', () => {
  it('gives one identity view for a plain line', () => {
    const line = 'plain line: nothing to do';
    assert.equal(needsViews(line), false);
    const views = lineViews(line);
    assert.equal(views.length, 1);
    assert.equal(views[0]!.text, line);
    assert.equal(views[0]!.toOriginal(5), 5);
  });

  it('removes a trailing CR (CRLF files)', () => {
    const views = lineViews('error: disk full\r');
    assert.equal(views.length, 1);
    assert.equal(views[0]!.text, 'error: disk full');
  });

  it('maps offsets of an ANSI-stripped line back to the original', () => {
    const line = '\x1b[31mERROR\x1b[0m \x1b]633;E;x\x07disk \x1b[1mfull\x1b[0m\r';
    const v = lineViews(line)[0]!;
    assert.equal(v.text, 'ERROR disk full');
    assertMapsBack(line);
    // an end offset right before removed text stays before it
    const endOfError = v.text.indexOf(' ');
    assert.equal(v.toOriginal(endOfError, true), line.indexOf('\x1b[0m'));
    assert.equal(v.toOriginal(endOfError), line.indexOf(' '));
  });

  it('decodes JSON string values (not keys) with escaped quotes and \\uXXXX', () => {
    const line = '{"level":"error","msg":"bad \\"value\\" caf\\u00e9 \\ud83d\\ude00 end","n":1}';
    const views = lineViews(line);
    assert.equal(views[0]!.kind, 'line');
    const texts = views.filter((v) => v.kind === 'json').map((v) => v.text);
    assert.deepEqual(texts, ['error', 'bad "value" café 😀 end']);
    const msg = views.find((v) => v.text.startsWith('bad'))!;
    // each decoded character maps to the start of its source (escape) in the line
    assert.equal(msg.toOriginal(msg.text.indexOf('"')), line.indexOf('\\"value'));
    assert.equal(msg.toOriginal(msg.text.indexOf('é')), line.indexOf('\\u00e9'));
    assert.equal(msg.toOriginal(msg.text.indexOf('😀')), line.indexOf('\\ud83d'));
    assert.equal(msg.toOriginal(msg.text.indexOf('😀') + 1), line.indexOf('\\ude00'));
    // the end of the value maps to the closing quote
    assert.equal(msg.toOriginal(msg.text.length, true), line.indexOf('","n"'));
  });

  it('finds JSON after a prefix and through ANSI colour', () => {
    const line = '\x1b[2m12:00:01\x1b[0m app | {"msg": "worker \\"w1\\" crashed"}  ';
    const views = lineViews(line);
    const msg = views.find((v) => v.kind === 'json')!;
    assert.equal(msg.text, 'worker "w1" crashed');
    assert.equal(msg.toOriginal(0), line.indexOf('worker'));
    assert.equal(msg.toOriginal(msg.text.indexOf('crashed')), line.indexOf('crashed'));
  });

  it('skips invalid escapes and unterminated strings without throwing', () => {
    const views = lineViews('{"a": "bad \\q escape", "b": "ok"}');
    assert.deepEqual(
      views.filter((v) => v.kind === 'json').map((v) => v.text),
      ['ok'],
    );
    assert.doesNotThrow(() => lineViews('{"a": "never closed}'));
  });

  it('maps astral characters before the text in UTF-16 units', () => {
    const line = '😀😀 \x1b[31merror\x1b[0m here';
    const v = lineViews(line)[0]!;
    assert.equal(v.text, '😀😀 error here');
    assert.equal(v.toOriginal(v.text.indexOf('error')), line.indexOf('error'));
    assertMapsBack(line);
  });
});
