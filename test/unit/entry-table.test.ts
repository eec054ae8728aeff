// core/indexCache/entryTable.ts: the engine's entries as the index cache stores them (one text, the
// offsets of each field), decoded entry by entry on first read.
import * as assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import { decodeEntries, encodeEntries } from '../../server/src/core/indexCache/entryTable';
import type { EngineEntry } from '../../server/src/core/engine/types';

const plain = (e: EngineEntry): EngineEntry => ({ id: e.id, pattern: e.pattern, captureNames: e.captureNames, errorCode: e.errorCode });

describe('index cache: the entry table', () => {
  const entries: EngineEntry[] = [
    { id: 'a1', pattern: 'disk (.+?) is full', captureNames: ['device'], errorCode: null },
    { id: 'b2', pattern: 'ошибка (.+?) 💥 \\(x\\)', captureNames: ['имя'], errorCode: 'E42' },
    { id: '', pattern: 'x', captureNames: [], errorCode: '' },
    { id: 'c3', pattern: '"quoted" (.+?)\\n(.+?)', captureNames: ['a "b"', 'line\nbreak', 'nul\u0000', '{}'], errorCode: 'ERR_X' },
    { id: 'surrogate \ud83d', pattern: '\ud800 lone', captureNames: ['\udfff'], errorCode: null },
  ];

  it('gives back every field as it was (other scripts, emoji, quotes, line breaks, NUL, an empty and a null error code), through v8 serialization', () => {
    const t = encodeEntries(entries.length - 1, (i) => entries[i]!);
    assert.equal(t.encoding, 'utf8');
    const back = v8.deserialize(v8.serialize({ at: t.at, noCode: t.noCode })) as { at: Int32Array; noCode: Uint8Array };
    const got = decodeEntries({ text: Buffer.from(t.text), at: back.at, noCode: back.noCode, encoding: t.encoding }, entries.length - 1);
    assert.deepEqual(got.map(plain), entries.slice(0, -1));
    assert.equal(got[0]!.errorCode, null);
    assert.equal(got[2]!.errorCode, '');
    // read twice: the same values
    assert.equal(got[1]!.pattern, entries[1]!.pattern);
    assert.equal(got[3]!.captureNames, got[3]!.captureNames);
  });

  it('a lone surrogate in an id or pattern (which UTF-8 cannot hold) comes back exactly: the table is UTF-16 then', () => {
    const t = encodeEntries(entries.length, (i) => entries[i]!);
    assert.equal(t.encoding, 'utf16le');
    assert.deepEqual(decodeEntries(t, entries.length).map(plain), entries);
  });

  it('a table that is not one of n entries is refused (count, offsets backwards or past the text, a shorter text)', () => {
    const t = encodeEntries(entries.length, (i) => entries[i]!);
    assert.throws(() => decodeEntries(t, entries.length + 1), /entry count/);
    const back = new Int32Array(t.at);
    back[3] = back[2]! - 1;
    assert.throws(() => decodeEntries({ ...t, at: back }, entries.length), /entry offsets/);
    const past = new Int32Array(t.at);
    past[past.length - 1] = past[past.length - 1]! + 5;
    assert.throws(() => decodeEntries({ ...t, at: past }, entries.length), /entry text/);
    assert.throws(() => decodeEntries({ ...t, text: t.text.subarray(0, t.text.length - 3) }, entries.length), /entry text/);
    assert.throws(() => decodeEntries({ ...t, noCode: new Uint8Array(2) }, entries.length), /entry count/);
    assert.throws(() => decodeEntries({ ...t, at: undefined as unknown as Int32Array }, entries.length), /entry count/);
    assert.throws(() => decodeEntries({ ...t, encoding: 'latin1' as 'utf8' }, entries.length), /entry encoding/);
  });

  it('no entries: an empty table', () => {
    const t = encodeEntries(0, () => entries[0]!);
    assert.deepEqual(decodeEntries(t, 0), []);
  });
});
