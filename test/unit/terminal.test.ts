// CLI terminal rendering (server/src/cli/terminal.ts): colour decisions, width, wrapping with SGR
// codes, and core/render's Markdown turned into terminal text.
import * as assert from 'node:assert/strict';
import { inline, markdownToTerminal, paint, terminalWidth, useColor, visibleLength, wrap } from '../../server/src/cli/terminal';
import type { ErrorRecord } from '../../server/src/core/record';
import { renderRecord } from '../../server/src/core/render';
import bundled from '../../records/sgl-project/sglang.json';

const seeds = bundled as unknown as ErrorRecord[];
const plain = { color: false, width: 80 };
const colour = { color: true, width: 80 };
// eslint-disable-next-line no-control-regex
const SGR = /\u001b\[[0-9;]*m/g;

describe('cli terminal rendering', () => {
  it('colour: --color always/never win; auto needs a TTY, no NO_COLOR, TERM not dumb; FORCE_COLOR forces', () => {
    const tty = { isTTY: true };
    const pipe = { isTTY: false };
    assert.equal(useColor('always', pipe, { NO_COLOR: '1' }), true);
    assert.equal(useColor('never', tty, { FORCE_COLOR: '1' }), false);
    assert.equal(useColor('auto', tty, {}), true);
    assert.equal(useColor('auto', pipe, {}), false);
    assert.equal(useColor('auto', tty, { NO_COLOR: '1' }), false);
    assert.equal(useColor('auto', tty, { NO_COLOR: '' }), true, 'an empty NO_COLOR does not count (no-color.org)');
    assert.equal(useColor('auto', tty, { TERM: 'dumb' }), false);
    assert.equal(useColor('auto', pipe, { FORCE_COLOR: '1' }), true);
    assert.equal(useColor('auto', pipe, { FORCE_COLOR: '0' }), false);
    assert.equal(useColor('auto', pipe, { FORCE_COLOR: '1', NO_COLOR: '1' }), false);
  });

  it('width: the terminal columns (40..120), else COLUMNS, else 80', () => {
    assert.equal(terminalWidth({ isTTY: true, columns: 100 }, {}), 100);
    assert.equal(terminalWidth({ isTTY: true, columns: 300 }, {}), 120);
    assert.equal(terminalWidth({ isTTY: true, columns: 10 }, {}), 40);
    assert.equal(terminalWidth({ isTTY: false, columns: 100 }, { COLUMNS: '90' }), 90);
    assert.equal(terminalWidth({}, { COLUMNS: 'wide' }), 80);
    assert.equal(terminalWidth({}, {}), 80);
  });

  it('wraps at spaces to the width, ignoring SGR codes, and keeps styles open across breaks', () => {
    const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa';
    const lines = wrap(words, 20, '- ', '  ');
    assert.deepEqual(lines, ['- alpha beta gamma', '  delta epsilon zeta', '  eta theta iota', '  kappa']);
    const styled = wrap(paint(colour, words, 'bold'), 20, '', '  ');
    assert.deepEqual(styled.map((l) => l.replace(SGR, '')), ['alpha beta gamma', '  delta epsilon zeta', '  eta theta iota', '  kappa']);
    for (const l of styled) assert.ok(visibleLength(l) <= 20);
    assert.ok(styled[1]!.startsWith('  \u001b[1m'), 'bold again after the indentation');
    assert.ok(styled[0]!.endsWith('\u001b[0m'), 'reset at the end of each line');
    assert.deepEqual(wrap('averyveryverylongwordthatdoesnotfit x', 10), ['averyveryverylongwordthatdoesnotfit', 'x']);
  });

  it('inline Markdown: escapes undone, code spans, bold, italic, links', () => {
    assert.equal(inline('a \\_b\\_ \\*c\\* `x_y` **bold** _it_ [t](https://github.com/a)', plain), 'a _b_ *c* x_y bold it t <https://github.com/a>');
    assert.equal(inline('``a ` b``', plain), 'a ` b');
    assert.equal(inline('[`f.py:1`](command:x)', plain), 'f.py:1', 'command links show their text only');
    const c = inline('**B** `code`', colour);
    assert.equal(c, '\u001b[1mB\u001b[0m \u001b[36mcode\u001b[0m');
    const links: string[] = [];
    assert.equal(inline('see [x](https://github.com/a/b) now', plain, links), 'see x now');
    assert.deepEqual(links, ['https://github.com/a/b']);
  });

  it('a full record: headings, quote, captures table, numbered solutions, indented code, raise site and its URL', () => {
    const r = seeds[2]!;
    const md = renderRecord(r, { match: { text: 'x', captures: [{ name: 'req_id', value: 'r-7' }, { name: 'registered_count', value: '1' }] } });
    const out = markdownToTerminal(md, plain);
    const lines = out.split('\n');
    assert.equal(lines[0], 'BadRequestError · HTTP 400 · error · sgl-project/sglang');
    assert.ok(lines.some((l) => l.startsWith('│ Inconsistent receive_count for req_id={req_id}')), 'the message as a quote');
    assert.ok(lines.includes('  req_id           = r-7'), 'captures as name = value, aligned');
    assert.ok(lines.includes('Solutions'));
    assert.ok(lines.some((l) => /^ {2}1\. Make all ranks compute receive_count/.test(l)));
    assert.ok(lines.includes('    try:'), 'code indented by four');
    assert.ok(lines.some((l) => l.startsWith('python/sglang/srt/disaggregation/encoder/server.py:724 at 0132848')));
    assert.ok(lines.includes(`  ${r.githubUrl}`), 'the link URL on its own line');
    for (const l of lines) if (!l.startsWith('    ') && !l.startsWith('  https://')) assert.ok(l.length <= 80, l);
    const prose = lines.filter((l) => !l.startsWith('    ') && !l.startsWith('  https://'));
    assert.ok(!/[*`#\\]/.test(prose.join('\n')), 'no Markdown syntax left in prose');
  });

  it('hostile record text stays text: no escape sequences but ours, no Markdown leaks', () => {
    const payload = '\u001b[31mred\u001b]0;title\u0007 **b** [x](command:evil) `c` <b>h</b> | a | b |\n# H\n> q\n1. one';
    const r: ErrorRecord = { ...seeds[0]!, documentation: payload, solutions: [payload], errorMessage: payload, errorClass: payload, tryCatchPattern: '```\n' + payload };
    for (const opts of [{}, { summary: true }, { compact: true }]) {
      const md = renderRecord(r, opts);
      const noColour = markdownToTerminal(md, plain);
      assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(noColour), 'no control characters without colour');
      const coloured = markdownToTerminal(md, colour);
      const residue = coloured.replace(SGR, '');
      assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(residue), 'only SGR codes with colour');
      assert.ok(noColour.includes('**b**'), 'record asterisks shown as typed');
      assert.ok(!noColour.includes('command:evil') || noColour.includes('[x](command:evil)'), 'a record link is text, never a URL line');
    }
  });
});
