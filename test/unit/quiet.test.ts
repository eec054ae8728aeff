// core/blocks/quiet: the WebAssembly quiet test (server/wasm/shapes.ts) answers exactly what its JS
// reference (quietnessJs: mayHoldBlockShape of the bytes, stripped of escape sequences when they
// have one; then whether the bytes hold an exception header token) answers: on every 1..9-line window of the real logs, plain and coloured, on each token
// in every context with and without escape sequences around and inside it, on random texts of
// tokens, near misses, escape sequences and line ends, at any offset of a larger buffer, and on
// inputs larger than the module's first memory.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { HEADER_FREE, QUIET, quietRunsNative, quietness, quietnessJs } from '../../server/src/core/blocks/quiet';
import { HEADER_TOKENS } from '../../server/src/core/blocks/shapes';
import { rng } from '../bench/gen';
import { lineStarts, randomTexts, realLogs } from './realLogs';

/** Compares both ways, the bytes at offset 0 and inside a larger buffer; counts the quiet ones
 * and the quiet ones without a header token. */
class Checker {
  checked = 0;
  quiet = 0;
  headerFree = 0;
  check(bytes: Uint8Array, where: string): void {
    this.checked++;
    const want = quietnessJs(bytes, 0, bytes.length);
    if (quietness(bytes, 0, bytes.length) !== want) assert.fail(`quietness(${JSON.stringify(Buffer.from(bytes).toString('latin1'))}) should be ${want} (${where})`);
    // (inside a buffer: the bytes before and after are not read, and are neither quiet nor free of
    // header tokens)
    const framed = Buffer.concat([Buffer.from('\nTraceback\nErr_x'), bytes, Buffer.from('orFile "x\n  at Exit')]);
    if (quietness(framed, 16, 16 + bytes.length) !== want) assert.fail(`quietness(framed ${JSON.stringify(Buffer.from(bytes).toString('latin1'))}) should be ${want} (${where})`);
    if (want & QUIET) this.quiet++;
    if (want & HEADER_FREE) this.headerFree++;
  }
}

const TOKENS = ['File "', 'Traceback', '... 1', 'Caused by: ', 'Suppressed: ', 'panic', 'goroutine ', '.go:7', 'exit status', 'During handling', 'The above exception', "thread '", 'note: ', 'stack backtrace:', 'Exception in thread', '[Previous line', '.py:0', 'at ', '  at ', 'at\t'];
const NEAR = [...TOKENS.flatMap((t) => [t.slice(0, -1), t.slice(1), `${t.slice(0, 1)}x${t.slice(2)}`]), '.py::', '.go::', '... :', '.py:/', '... /'];
/** The exception header tokens, and each cut short, changed and in lower case. */
const HEADERS = HEADER_TOKENS.flatMap((t) => [t, t.slice(0, -1), t.slice(1), `${t.slice(0, 2)}x${t.slice(3)}`, t.toLowerCase(), `Value${t}: bad`]);
/** Escape sequences of every kind escapeLengthOf knows, cut short ones among them. */
const ESCAPES = ['\x1b[1@', '\x1b[~', '\x1b[31m', '\x1b[0m', '\x1b[1;32m', '\x1b[', '\x1b[2', '\x1b[?25h', '\x1b[ q', '\x1b]633;A\x07', '\x1b]0;title\x1b\\', '\x1b]8;;', '\x1bP1$r\x1b\\', '\x1b(B', '\x1b(', '\x1b7', '\x1bM', '\x1b', '\x1b\x1b', '\x1b\n', '\x1b\r'];
const PIECES = [
  ...TOKENS,
  ...NEAR,
  ...HEADERS,
  ...ESCAPES,
  ...ESCAPES,
  ' ', '  ', '\t', '\u00a0', '\u3000', '\n', '\n', '\r\n', '\r', '_', '>', 'E', '=', '-', 'E   ',
  'a', 't', 'x', 'the job failed at startup', 'INFO', 'é', '中', '0', '9', '.', ':', '"', "'", '[', 'py', 'go',
];

describe('blocks/quiet: the WebAssembly quiet test gives what its JS reference gives', () => {
  it('runs natively here (Node has WebAssembly)', () => {
    assert.equal(quietRunsNative(), true);
  });

  it('every 1..9-line window of the real logs, plain and coloured', () => {
    const c = new Checker();
    const logs = realLogs();
    assert.ok(logs.length > 10);
    for (const { name: f, file } of logs) {
      const plain = readFileSync(file);
      // coloured: each line's words in colour, as a CI log has them (sequences inside tokens too)
      const coloured = Buffer.from(plain.toString('latin1').replace(/(\w+)/g, (w, _m, at: number) => (at % 3 === 0 ? `\x1b[3${at % 8}m${w}\x1b[0m` : at % 3 === 1 && w.length > 3 ? `${w.slice(0, 2)}\x1b[1m${w.slice(2)}` : w)), 'latin1');
      for (const bytes of [plain, coloured]) {
        const starts = lineStarts(bytes);
        for (let i = 0; i + 1 < starts.length; i++) for (let n = 1; n <= 9 && i + n < starts.length; n++) c.check(bytes.subarray(starts[i], starts[i + n]), `${f} lines ${i + 1}..${i + n}`);
      }
    }
    assert.ok(c.checked > 100_000, `${c.checked} texts`);
    assert.ok(c.quiet > c.checked / 10 && c.quiet < c.checked, `${c.quiet} of ${c.checked} quiet`);
    assert.ok(c.headerFree > c.quiet / 10 && c.headerFree < c.quiet, `${c.headerFree} of ${c.quiet} quiet ones without a header token`);
  });

  it('each token and near miss in every context, with escape sequences around and inside it', () => {
    const c = new Checker();
    const before = ['', ' ', '  ', '\t', '\n', '\r\n', '\r', '\n ', 'x', 'x ', '\u00a0', '\x1b[31m', '\n\x1b[1m', '\x1b]0;t\x07 '];
    const after = ['', ' ', '\t', '\n', '\r', 'x', '1', '\x1b[0m', '\x1b', '\x1b['];
    for (const t of [...TOKENS, ...NEAR, ...HEADERS, '_', '>', 'E', '=', '-', 'x']) {
      const inside = t.length > 1 ? [t, `${t.slice(0, 1)}\x1b[2m${t.slice(1)}`, `${t.slice(0, 1)}\x1b[1@${t.slice(1)}`, `${t.slice(0, -1)}\x1b]8;;\x07${t.slice(-1)}`] : [t];
      for (const u of inside) for (const b of before) for (const a of after) c.check(Buffer.from(b + u + a, 'utf8'), 'context');
    }
    assert.ok(c.quiet > 1000 && c.quiet < c.checked - 1000, `${c.quiet} of ${c.checked} quiet`);
    assert.ok(c.headerFree > 1000 && c.headerFree < c.quiet - 1000, `${c.headerFree} of ${c.quiet} quiet ones without a header token`);
  });

  it('random texts of tokens, near misses, escape sequences, blanks and line ends', () => {
    const c = new Checker();
    const next = rng(20261208);
    for (const [t, k] of randomTexts(next, PIECES, 100_000, 20)) c.check(Buffer.from(t, 'utf8'), `random text ${k}`);
    assert.ok(c.quiet > 0.05 * c.checked && c.quiet < 0.95 * c.checked, `${c.quiet} of ${c.checked} quiet`);
    assert.ok(c.headerFree > 0.05 * c.quiet && c.headerFree < 0.95 * c.quiet, `${c.headerFree} of ${c.quiet} quiet ones without a header token`);
  });

  it('inputs larger than the first memory (the module grows it), quiet or not at their end', () => {
    const line = Buffer.from('2026-12-08 01:02:03 INFO worker 7 handled the request in 12 ms\n');
    for (const kib of [63, 64, 65, 200, 1100]) {
      const big = Buffer.alloc(kib * 1024);
      for (let at = 0; at < big.length; at += line.length) line.copy(big, at);
      big[big.length - 1] = 10;
      const both = (b: Buffer) => [quietness(b, 0, b.length), quietnessJs(b, 0, b.length)];
      assert.deepEqual(both(big), [QUIET | HEADER_FREE, QUIET | HEADER_FREE], `${kib} KiB of plain lines`);
      Buffer.from('Timeout').copy(big, big.length - 20);
      assert.deepEqual(both(big), [QUIET, QUIET], `${kib} KiB with a header token near its end`);
      Buffer.from('Traceback').copy(big, big.length - 40);
      assert.deepEqual(both(big), [0, 0], `${kib} KiB with a block token near its end`);
      const coloured = Buffer.concat([Buffer.from('\x1b[32m'), big.subarray(0, big.length - 60), Buffer.from('Tra\x1b[0mceback\n')]);
      assert.deepEqual(both(coloured), [0, 0], `${kib} KiB coloured, a token cut by a sequence at its end`);
    }
    // (and small inputs after the large ones)
    assert.equal(quietness(line, 0, line.length), QUIET | HEADER_FREE);
  });
});
