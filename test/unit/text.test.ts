import * as assert from 'node:assert/strict';
import { lineViews, needsViews, stripAnsi } from '../../server/src/core/text';

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
