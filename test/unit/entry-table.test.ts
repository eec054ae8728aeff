// core/indexCache/entryTable.ts: the engine's entries (and each record's error class) as the index
// cache stores them (one text, the offsets of each field), decoded entry by entry on first read.
import * as assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import { decodeEntries, encodeEntries, type EntrySections } from '../../server/src/core/indexCache/entryTable';
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
  const classes: (string | null)[] = ['OSError', null, '', 'Über.Error', 'Lone\udc00'];
  const encode = (n: number) =>
    encodeEntries(
      n,
      (i) => entries[i]!,
      (i) => classes[i]!,
    );

  it('gives back every field as it was (other scripts, emoji, quotes, line breaks, NUL, empty and null codes and classes), through v8 serialization', () => {
    const n = entries.length - 1;
    const t = encode(n);
    assert.equal(t.encoding, 'utf8');
    const back = v8.deserialize(v8.serialize({ at: t.at, nulls: t.nulls })) as { at: Int32Array; nulls: Uint8Array };
    const got = decodeEntries({ text: Buffer.from(t.text), at: back.at, nulls: back.nulls, encoding: t.encoding }, n);
    assert.deepEqual(got.entries.map(plain), entries.slice(0, n));
    assert.deepEqual(
      got.entries.map((_, i) => got.errorClass(i)),
      classes.slice(0, n),
    );
    assert.equal(got.entries[0]!.errorCode, null);
    assert.equal(got.entries[2]!.errorCode, '');
    // read twice: the same values
    assert.equal(got.entries[1]!.pattern, entries[1]!.pattern);
    assert.equal(got.entries[3]!.captureNames, got.entries[3]!.captureNames);
  });

  it('an all-ASCII table gives back its ids as they were too (read from its bytes)', () => {
    const ascii: EngineEntry[] = [entries[0]!, entries[3]!, { id: 'x'.repeat(40), pattern: 'p', captureNames: [], errorCode: null }];
    const t = encodeEntries(
      ascii.length,
      (i) => ascii[i]!,
      () => null,
    );
    assert.equal(t.text.length, t.text.toString('utf8').length, 'the text is ASCII');
    assert.deepEqual(decodeEntries(t, ascii.length).entries.map(plain), ascii);
  });

  it('a table of many steps (10,000 entries, encoded 4,096 at a time) comes back whole, UTF-8 and, with one lone surrogate near its end, UTF-16', () => {
    const many = (i: number): EngineEntry => entries[i % 4]!; // (the well-formed ones)
    const manyClass = (i: number) => classes[i % 4]!;
    const n = 10_000;
    for (const lone of [-1, 9_000]) {
      const t = encodeEntries(n, (i) => (i === lone ? entries[4]! : many(i)), (i) => (i === lone ? classes[4]! : manyClass(i)));
      assert.equal(t.encoding, lone < 0 ? 'utf8' : 'utf16le');
      const got = decodeEntries(t, n);
      for (const i of [0, 4095, 4096, 8191, 8192, 8999, 9000, 9001, n - 1]) {
        assert.deepEqual(plain(got.entries[i]!), i === lone ? entries[4] : many(i), `entry ${i}`);
        assert.equal(got.errorClass(i), i === lone ? classes[4] : manyClass(i), `class ${i}`);
      }
    }
  });

  it('a lone surrogate in an id, pattern or class (which UTF-8 cannot hold) comes back exactly: the table is UTF-16 then', () => {
    const t = encode(entries.length);
    assert.equal(t.encoding, 'utf16le');
    const got = decodeEntries(t, entries.length);
    assert.deepEqual(got.entries.map(plain), entries);
    assert.equal(got.errorClass(4), classes[4]);
  });

  it('a table that is not one of n entries is refused (count, offsets backwards or past the text, a shorter text, an unknown encoding)', () => {
    const t = encode(entries.length - 1);
    const n = entries.length - 1;
    const refused = (s: Partial<EntrySections>, count = n) => () => decodeEntries({ ...t, ...s } as EntrySections, count);
    assert.throws(refused({}, n + 1), /entry count/);
    const back = new Int32Array(t.at);
    back[3] = back[2]! - 1;
    assert.throws(refused({ at: back }), /entry offsets/);
    const past = new Int32Array(t.at);
    past[past.length - 1] = past[past.length - 1]! + 5;
    assert.throws(refused({ at: past }), /entry text/);
    assert.throws(refused({ text: t.text.subarray(0, t.text.length - 3) }), /entry text/);
    assert.throws(refused({ nulls: new Uint8Array(2) }), /entry count/);
    assert.throws(refused({ at: undefined }), /entry count/);
    assert.throws(refused({ encoding: 'latin1' as 'utf8' }), /entry encoding/);
  });

  it('an error code or class that is undefined comes back null', () => {
    const t = encodeEntries(
      1,
      () => ({ id: 'u', pattern: 'p', captureNames: [], errorCode: undefined as unknown as null }),
      () => undefined as unknown as null,
    );
    const got = decodeEntries(t, 1);
    assert.equal(got.entries[0]!.errorCode, null);
    assert.equal(got.errorClass(0), null);
  });

  it('no entries: an empty table', () => {
    assert.deepEqual(decodeEntries(encode(0), 0).entries, []);
  });
});
