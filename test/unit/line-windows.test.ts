import * as assert from 'node:assert/strict';
import { decorationWindows, FULL_MAX_CHARS, FULL_MAX_LINES, MARGIN_LINES } from '../../client/src/lineWindows';

describe('ANSI decorations: which lines are decorated', () => {
  it('decorates a small document whole, whatever is visible', () => {
    assert.deepEqual(decorationWindows(120, 9000, [{ start: 10, end: 40 }]), [[0, 119]]);
    assert.deepEqual(decorationWindows(0, 0, []), []);
  });

  it('decorates a large document around its visible ranges only, clamped and merged', () => {
    const n = FULL_MAX_LINES + 1;
    assert.deepEqual(decorationWindows(n, 1000, [{ start: 5000, end: 5040 }]), [[5000 - MARGIN_LINES, 5040 + MARGIN_LINES]]);
    assert.deepEqual(decorationWindows(n, 1000, [{ start: 3, end: 30 }, { start: n - 10, end: n - 1 }]), [[0, 30 + MARGIN_LINES], [n - 10 - MARGIN_LINES, n - 1]]);
    // two folded ranges close together become one window
    assert.deepEqual(decorationWindows(n, 1000, [{ start: 900, end: 950 }, { start: 700, end: 720 }]), [[700 - MARGIN_LINES, 950 + MARGIN_LINES]]);
  });

  it('treats a document with few but huge lines as large', () => {
    assert.deepEqual(decorationWindows(1000, FULL_MAX_CHARS + 1, [{ start: 400, end: 420 }]), [[400 - MARGIN_LINES, 420 + MARGIN_LINES]]);
  });
});
