import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { applySgr, parseAnsiLine, SgrStyle, styleKey, terminalText, xterm256Hex } from '../../server/src/core/ansi';
import { stripAnsi } from '../../server/src/core/text';

/** [visible text, style key] of each span, for readable assertions. */
function spans(line: string, state?: SgrStyle): [string, SgrStyle][] {
  return parseAnsiLine(line, state).spans.map((s) => [line.slice(s.start, s.end), s.style]);
}

const red = { kind: 'palette', index: 1 } as const;

describe('ansi: SGR parsing', () => {
  it('gives the styled spans of a coloured log line and the escapes to hide', () => {
    const line = '\x1b[32m[2026-08-28 05:10:36]\x1b[0m \x1b[1;31mERROR\x1b[0m wait_metadata failed: \x1b[31mMMError: encode metadata not ready\x1b[0m (HTTP 504)';
    assert.deepEqual(spans(line), [
      ['[2026-08-28 05:10:36]', { fg: { kind: 'palette', index: 2 } }],
      ['ERROR', { bold: true, fg: red }],
      ['MMError: encode metadata not ready', { fg: red }],
    ]);
    const { escapes, state } = parseAnsiLine(line);
    assert.deepEqual(
      escapes.map((e) => line.slice(e.start, e.end)),
      ['\x1b[32m', '\x1b[0m', '\x1b[1;31m', '\x1b[0m', '\x1b[31m', '\x1b[0m'],
    );
    assert.deepEqual(state, {});
  });

  it('removing the escapes leaves exactly what the matcher sees (text.ts stripAnsi)', () => {
    const cases = [
      '\x1b]633;A\x07\x1b]633;B\x07$ make\x1b]633;E;make;nonce\x1b\\ done\x1b]633;D;1\x07',
      'see \x1b]8;;https://x.y\x1b\\link\x1b]8;;\x1b\\ now \x1b(B\x1b[m\x1b[K',
      'text \x1b]633;P;Cwd=/x',
      '\x1b[38;2;255;100;0mrgb\x1b[39m \x1b[48;5;236mgrey bg\x1b[49m',
    ];
    for (const line of cases) {
      const { escapes } = parseAnsiLine(line);
      let visible = '';
      let at = 0;
      for (const e of escapes) {
        visible += line.slice(at, e.start);
        at = e.end;
      }
      visible += line.slice(at);
      assert.equal(visible, stripAnsi(line), JSON.stringify(line));
    }
  });

  it('carries the style over line ends and merges adjacent escapes', () => {
    const first = parseAnsiLine('\x1b[33mwarning: starts here');
    assert.deepEqual(first.state, { fg: { kind: 'palette', index: 3 } });
    assert.deepEqual(spans('  and goes on\x1b[0m plain', first.state), [['  and goes on', { fg: { kind: 'palette', index: 3 } }]]);
    const { escapes } = parseAnsiLine('a\x1b[1m\x1b[31mb');
    assert.deepEqual(escapes, [{ start: 1, end: 10 }]);
  });

  it('parses 256-colour, truecolor (semicolon and colon forms), bright colours and attribute resets', () => {
    assert.deepEqual(applySgr('38;5;208', {}), { fg: { kind: 'palette', index: 208 } });
    assert.deepEqual(applySgr('38;2;255;100;0', {}), { fg: { kind: 'rgb', hex: '#ff6400' } });
    assert.deepEqual(applySgr('38:2::255:100:0', {}), { fg: { kind: 'rgb', hex: '#ff6400' } });
    assert.deepEqual(applySgr('38:2:255:100:0', {}), { fg: { kind: 'rgb', hex: '#ff6400' } });
    assert.deepEqual(applySgr('48;5;17', {}), { bg: { kind: 'palette', index: 17 } });
    assert.deepEqual(applySgr('91;102', {}), { fg: { kind: 'palette', index: 9 }, bg: { kind: 'palette', index: 10 } });
    assert.deepEqual(applySgr('1;2;3;4;7;9', {}), { bold: true, dim: true, italic: true, underline: true, inverse: true, strikethrough: true });
    assert.deepEqual(applySgr('22;23;24;27;29;39;49', { bold: true, dim: true, italic: true, underline: true, inverse: true, strikethrough: true, fg: red, bg: red }), {});
    assert.deepEqual(applySgr('4:0', { underline: true }), {});
    assert.deepEqual(applySgr('', { bold: true }), {}, 'ESC[m is a reset');
  });

  it('ignores malformed and unknown parameters without losing the rest', () => {
    assert.deepEqual(applySgr('38;5', {}), {});
    assert.deepEqual(applySgr('38;2;300;0;0;1', {}), { bold: true });
    assert.deepEqual(applySgr('58;5;196;31', {}), { fg: red }, 'underline colour is skipped');
    assert.deepEqual(applySgr('5;6;8;53;31', {}), { fg: red }, 'blink, hidden, overline: not drawn');
    // a CSI that is not SGR (cursor, erase) changes nothing but is hidden
    const { spans: s, escapes } = parseAnsiLine('\x1b[31mred\x1b[2Kstill red');
    assert.deepEqual(s.map((x) => [x.start, x.end]), [[5, 8], [12, 21]]);
    assert.equal(escapes.length, 2);
  });

  it('gives equal keys to equal styles only', () => {
    assert.equal(styleKey({ bold: true, fg: red }), styleKey({ fg: { kind: 'palette', index: 1 }, bold: true }));
    assert.notEqual(styleKey({ fg: red }), styleKey({ bg: red }));
    assert.notEqual(styleKey({ fg: { kind: 'palette', index: 196 } }), styleKey({ fg: { kind: 'rgb', hex: '#ff0000' } }));
  });

  it('computes the xterm 256-colour cube and grey ramp', () => {
    assert.equal(xterm256Hex(16), '#000000');
    assert.equal(xterm256Hex(196), '#ff0000');
    assert.equal(xterm256Hex(208), '#ff8700');
    assert.equal(xterm256Hex(231), '#ffffff');
    assert.equal(xterm256Hex(232), '#080808');
    assert.equal(xterm256Hex(255), '#eeeeee');
    assert.throws(() => xterm256Hex(15), RangeError);
  });

  it('spans and escapes tile the line in order on any input (property)', () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('\x1b[31m', '\x1b[0m', '\x1b[1;4m', '\x1b[38;5;99m', '\x1b[38:2::1:2:3m', '\x1b]633;C\x07', '\x1b[K', '\x1b', '\x1b[', '\x1b]8;;x'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const line = parts.join('');
        const { spans: ss, escapes } = parseAnsiLine(line);
        const all = [...ss.map((s) => ({ ...s, k: 's' })), ...escapes.map((e) => ({ ...e, k: 'e' }))].sort((a, b) => a.start - b.start);
        let at = 0;
        for (const r of all) {
          assert.ok(r.start >= at && r.end > r.start && r.end <= line.length, JSON.stringify({ line, r }));
          at = r.end;
        }
      }),
      { seed: 42, numRuns: 2000 },
    );
  });
});

describe('ansi: terminalText', () => {
  it('strips colours, shell-integration marks and C1 forms, resolves CR overprints', () => {
    const raw = '\x1b]633;C\x07\x1b[31mERROR\x1b[0m encode metadata not ready\r\n50%\r100%\r\nok\x9b1mbold\x9b0m \x9d0;title\x07done\x07\n';
    assert.equal(terminalText(raw), 'ERROR encode metadata not ready\n100%\nokbold done\n');
  });

  it('keeps tabs and newlines, drops other controls', () => {
    assert.equal(terminalText('a\tb\x00\x08c\n\x1b7d\x1b8'), 'a\tbc\nd');
  });
});
