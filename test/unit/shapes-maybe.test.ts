// core/blocks/shapes: the quick tests "could this line have a shape at all" (mayHaveShape) and
// "could these raw lines hold a block shape" (mayHoldBlockShape) give exactly what the regular
// expressions they replaced gave (kept here, as they were, as the reference): on every window of
// the real logs, on every character around a frame's `at`, on each token in every context and on
// random texts built of the tokens, their prefixes and near misses, blanks and line ends.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mayHaveShape, mayHoldBlockShape } from '../../server/src/core/blocks/shapes';
import { rng } from '../bench/gen';
import { lineStarts, randomTexts, realLogs } from './realLogs';

// The reference: shapes.ts before the token search, as it was.
const MAYBE = /File "|Traceback|(?:^|\s)at\s|\.\.\. \d|Caused by: |Suppressed: |panic|goroutine |\.go:\d|exit status|During handling|The above exception|thread '|note: |stack backtrace:|Exception in thread|\[Previous line/;
const MAYBE_AT = '(?:^|\\s)at\\s';
const MAYBE_BYTES = new RegExp(`${MAYBE.source.replace(MAYBE_AT, '(?:(?:^|[\\n\\r])[ \\t]*|[ \\t]{2}|\\t)at ')}|(?:^|[\\n\\r])[_>E=\\-]|\\.py:\\d`);

/** A regular expression's top-level alternatives, each as a RegExp of its own. */
function alternatives(re: RegExp): RegExp[] {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let from = 0;
  const s = re.source;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) {
      out.push(s.slice(from, i));
      from = i + 1;
    }
  }
  out.push(s.slice(from));
  return out.map((a) => new RegExp(a));
}

/** Compares one text both ways; counts, per alternative, texts that only it matches. */
class Checker {
  readonly lineAlts = alternatives(MAYBE);
  readonly bytesAlts = alternatives(MAYBE_BYTES);
  readonly lineOnly = new Array<number>(this.lineAlts.length).fill(0);
  readonly bytesOnly = new Array<number>(this.bytesAlts.length).fill(0);
  checked = 0;
  lineTrue = 0;
  bytesTrue = 0;

  check(text: string, where: string): void {
    this.checked++;
    const line = MAYBE.test(text);
    // (the bytes test reads the text as a scan has it: its UTF-8 bytes, one character per byte)
    const raw = Buffer.from(text, 'utf8');
    const asBytes = raw.toString('latin1');
    const bytes = MAYBE_BYTES.test(asBytes);
    if (mayHaveShape(text) !== line) assert.fail(`mayHaveShape(${JSON.stringify(text)}) should be ${line} (${where})`);
    if (mayHoldBlockShape(raw) !== bytes) assert.fail(`mayHoldBlockShape(${JSON.stringify(asBytes)}) should be ${bytes} (${where})`);
    if (line) {
      this.lineTrue++;
      only(this.lineAlts, this.lineOnly, text);
    }
    if (bytes) {
      this.bytesTrue++;
      only(this.bytesAlts, this.bytesOnly, asBytes);
    }
  }
}

function only(alts: RegExp[], counts: number[], text: string): void {
  let hit = -1;
  for (let k = 0; k < alts.length; k++) {
    if (!alts[k]!.test(text)) continue;
    if (hit >= 0) return;
    hit = k;
  }
  if (hit >= 0) counts[hit]!++;
}

/** The literal tokens of the reference's alternatives (a digit after `... `, `.go:`, `.py:`). */
const TOKENS = ['File "', 'Traceback', '... 1', 'Caused by: ', 'Suppressed: ', 'panic', 'goroutine ', '.go:7', 'exit status', 'During handling', 'The above exception', "thread '", 'note: ', 'stack backtrace:', 'Exception in thread', '[Previous line', '.py:0', 'at ', 'at\t'];
/** Near misses: each token with one character changed, cut short, or its `at`/digit not quite. */
const NEAR = [
  ...TOKENS.flatMap((t) => [t.slice(0, -1), t.slice(1), `${t.slice(0, 1)}x${t.slice(2)}`, t.slice(0, -1) + (t.endsWith(' ') ? '_' : ' ')]),
  'file "', 'File \'', '.. 1', '... x', '.go:', '.gox1', '.py:a', 'a t ', 'ta ', 'At ', 'at', 'atat ', 'thread "', 'note:', 'Caused by:', '[previous line',
];
const PIECES = [
  ...TOKENS,
  ...NEAR,
  ' ', ' ', '  ', '\t', '\u00a0', '\u2000', '\u3000', '\ufeff', '\u2028', '\u000b', '\f', '\u0085', '\u200b',
  '\n', '\n', '\r\n', '\r',
  '_', '>', 'E', '=', '-', 'E   ', '> ', '___ test_x ___',
  'a', 't', 'x', 'e', 'n', 'the job failed at startup', 'INFO', 'é', '\u00e9t', '\u0161', '\u0174', '\u2061t', 'Ā', '中',
  '0', '1', '9', '.', ':', '"', "'", '[', 'py', 'go',
];

describe('shapes: quick tests (mayHaveShape, mayHoldBlockShape) give what their regular expressions gave', () => {
  it('every 1..9-line window of the real logs, and each of their lines', () => {
    const c = new Checker();
    const logs = realLogs();
    assert.ok(logs.length > 10);
    for (const { name: f, file } of logs) {
      const bytes = readFileSync(file);
      // lines as the scan cuts them (\n, \r\n, a lone \r), each with its line end
      const starts = lineStarts(bytes);
      for (let i = 0; i + 1 < starts.length; i++) {
        c.check(bytes.toString('utf8', starts[i], starts[i + 1]).replace(/\r?\n$|\r$/, ''), `${f} line ${i + 1}`);
        for (let n = 1; n <= 9 && i + n < starts.length; n++) c.check(bytes.toString('latin1', starts[i], starts[i + n]), `${f} lines ${i + 1}..${i + n}`);
      }
    }
    assert.ok(c.checked > 100_000, `${c.checked} texts`);
    assert.ok(c.lineTrue > 1000 && c.lineTrue < c.checked / 2, `${c.lineTrue} of ${c.checked} may have a shape`);
  });

  it("every character before and after a frame's `at`", () => {
    const c = new Checker();
    for (let code = 0; code <= 0xffff; code++) {
      const ch = String.fromCharCode(code);
      for (const t of [`at${ch}`, `${ch}at `, `x${ch}at${ch}x`, `${ch}${ch}at `, `\n${ch}at `, `x ${ch}at `]) c.check(t, `U+${code.toString(16)}`);
    }
    // (each of a RegExp's \s makes each of the six a maybe line; blanks and line ends make some bytes maybes)
    let spaces = 0;
    for (let code = 0; code <= 0xffff; code++) if (/\s/.test(String.fromCharCode(code))) spaces++;
    assert.equal(c.lineTrue, 6 * spaces);
    assert.ok(c.bytesTrue >= 20, `${c.bytesTrue}`);
  });

  it('each token and near miss in every context: at the start and end, after blanks and line ends', () => {
    const c = new Checker();
    const before = ['', ' ', '  ', '   ', '\t', ' \t', '\t ', '\n', '\r\n', '\r', '\n ', '\r\t', 'x', 'x ', 'x  ', 'x\t', '\u00a0', '\u2000', 'ab\n', 'ab\r'];
    const after = ['', ' ', '\t', '\n', '\r', 'x', '1', ' x', '\n_'];
    for (const t of [...TOKENS, ...NEAR, '_', '>', 'E', '=', '-', 'x']) for (const b of before) for (const a of after) c.check(b + t + a, 'context');
    assert.ok(c.lineTrue > 1000 && c.bytesTrue > 1000);
  });

  it('random texts of tokens, near misses, blanks, line ends, letters and digits, and each alternative counts alone', () => {
    const c = new Checker();
    const next = rng(20261203);
    for (const [t, k] of randomTexts(next, PIECES, 200_000, 14)) c.check(t, `random text ${k}`);
    assert.ok(c.lineTrue > 0.1 * c.checked && c.lineTrue < 0.9 * c.checked, `${c.lineTrue} of ${c.checked} may have a shape`);
    assert.ok(c.bytesTrue > 0.1 * c.checked && c.bytesTrue < 0.9 * c.checked, `${c.bytesTrue} of ${c.checked} may hold a block shape`);
    // (so that a mistake in any one alternative shows: texts where it alone decides)
    c.lineAlts.forEach((re, k) => assert.ok(c.lineOnly[k]! > 50, `only ${c.lineOnly[k]} texts where /${re.source}/ alone matches`));
    c.bytesAlts.forEach((re, k) => assert.ok(c.bytesOnly[k]! > 50, `only ${c.bytesOnly[k]} texts where /${re.source}/ alone matches`));
  });
});
