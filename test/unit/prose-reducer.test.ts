// The prose reducer (server/wasm/prose.ts, core/load/reduce.ts): a load that keeps no prose reads
// free-text values shortened. What it shortens must validate as the whole value does, positions
// must map back to the original text, and whatever it cannot vouch for (escapes of \u, control
// bytes, invalid UTF-8, names below a record) stays whole. The loader's own property test
// (loader-stream.test.ts) compares whole loads with and without it.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseRecordBytes, parseRecordChunks } from '../../server/src/core/load';
import { ProseReducer, REDUCE_PIECE } from '../../server/src/core/load/reduce';
import { FREE_TEXT_FIELDS, FREE_TEXT_LISTS, validateRecord } from '../../server/src/core/load/validate';
import { LITE_FIELDS, PROSE_FIELDS } from '../../server/src/core/record';

const SEED = Number(process.env['FUZZ_SEED'] ?? 42);
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 150);

interface Reduced {
  text: string;
  blanks: [number, number][];
}

function reduce(bytes: Buffer, piece = REDUCE_PIECE): Reduced {
  const r = ProseReducer.create();
  assert.ok(r, 'WebAssembly runs here');
  const parts: Buffer[] = [];
  const blanks: [number, number][] = [];
  for (let at = 0; at < bytes.length; at += piece) parts.push(Buffer.from(r.push(bytes.subarray(at, Math.min(bytes.length, at + piece)), (a, n) => blanks.push([a, n]))));
  parts.push(Buffer.from(r.end()));
  return { text: Buffer.concat(parts).toString('utf8'), blanks };
}

const record = (over: Record<string, unknown>): Record<string, unknown> => ({
  id: '0123456789abcdef',
  repo: 'a/b',
  slug: 'a-b',
  errorMessage: 'disk quota exceeded for {user}',
  documentation: 'A long explanation — with “quotes”, \\ backslashes, tabs\tand 😀.',
  sourceCode: 'def f():\n    raise ValueError("x")\n',
  solutions: ['Retry the request', 'Check the disk'],
  ...over,
});

describe('prose reducer', () => {
  it('shortens the free-text values of records and envelopes to their line ends and last character', () => {
    const text = JSON.stringify([record({}), { record: record({ documentation: 'x'.repeat(5000) }), datasetVersion: 'v1' }]);
    const out = reduce(Buffer.from(text));
    assert.ok(out.text.length < text.length / 3, `${out.text.length} of ${text.length}`);
    const [a, b] = JSON.parse(out.text) as [Record<string, unknown>, { record: Record<string, unknown> }];
    assert.equal(a.documentation, '.');
    assert.equal(a.sourceCode, '\n\n');
    assert.deepEqual(a.solutions, ['t', 'k']);
    assert.equal(b.record.documentation, 'x');
    // the lite fields whole
    for (const k of LITE_FIELDS) if (k in a) assert.deepEqual(a[k], (JSON.parse(text) as Record<string, unknown>[])[0]![k], k);
  });

  it('maps every shortening back: the closing quote in the output is the one in the original', () => {
    const text = JSON.stringify([record({}), record({ documentation: 'é'.repeat(300), sourceCode: '😀\n'.repeat(30) }), record({ preventionTips: ['a\nb', 'ccc'] })]);
    const out = reduce(Buffer.from(text), 7);
    assert.ok(out.blanks.length >= 6);
    let removed = 0;
    for (const [at, n] of out.blanks) {
      assert.equal(out.text[at], '"');
      removed += n;
      assert.equal(text[at + removed], '"');
      // what follows it (to the next string) is the original's
      const next = out.text.indexOf('"', at + 1);
      assert.equal(text.slice(at + removed, next + removed + 1), out.text.slice(at, next + 1));
    }
    assert.equal(out.text.length + removed, text.length);
  });

  it('leaves whole what it cannot vouch for: \\u escapes, control bytes, bad escapes, invalid UTF-8, names below a record, other fields', () => {
    const cases = [
      '[{"documentation":"caf\\u00e9 and more"}]',
      '[{"documentation":"a lone \\ud800 surrogate"}]',
      '[{"documentation":"a raw\ttab inside"}]',
      '[{"documentation":"a bad \\q escape"}]',
      '[{"errorClass":{"documentation":"below the record"}}]',
      '[{"errorMessage":"not free text at all"}]',
      '[{"solutions":[["nested list"]]}]',
      '[{"record":{"record":{"documentation":"two levels down"}}}]',
    ];
    for (const c of cases) assert.equal(reduce(Buffer.from(c)).text, c, c);
    const invalid = Buffer.concat([Buffer.from('[{"documentation":"bad '), Buffer.from([0xc3, 0x28]), Buffer.from(' byte"}]')]);
    assert.deepEqual(Buffer.from(reduce(invalid).text, 'utf8'), Buffer.from(invalid.toString('utf8'), 'utf8'));
    const shortened = reduce(Buffer.from('[{"documentation":"is shortened"}]')).text;
    assert.equal(shortened, '[{"documentation":"d"}]');
  });

  it('gives the same output for any cut of its input, and keeps a string longer than it holds whole', () => {
    const long = 'y'.repeat(300 << 10);
    const text = JSON.stringify([record({}), record({ documentation: long }), record({ triggerScenarios: 'é😀'.repeat(2000) })]);
    const bytes = Buffer.from(text);
    const whole = reduce(bytes);
    for (const piece of [1, 2, 3, 5, 16, 31, 1000, 65536]) assert.deepEqual(reduce(bytes, piece), whole, `pieces of ${piece}`);
    const docs = (JSON.parse(whole.text) as Record<string, unknown>[]).map((r) => r.documentation);
    assert.equal(docs[1], long, 'held whole: longer than the reducer keeps across pieces');
    // and the load is still that of the whole text
    assert.deepEqual(parseRecordChunks([bytes], 'f.json', { prose: false }), parseRecordBytes(bytes, 'f.json', { prose: false, streaming: false }));
  });

  it('a shortened record validates as the whole one (property: any text in the free-text fields)', () => {
    const text = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30, unit: 'grapheme' }), fc.constantFrom('', '\n', 'a\n', '\n\n\n', 'x\\', '"', '\\n', 'end\n'), fc.array(fc.constantFrom('line', '\n', '\t', '"', '\\', 'é', '😀', '\r'), { maxLength: 60 }).map((a) => a.join('')));
    const value = fc.oneof(text, fc.constant(null), fc.integer(), fc.array(text, { maxLength: 3 }));
    const fields = fc.dictionary(fc.constantFrom(...FREE_TEXT_FIELDS, ...FREE_TEXT_LISTS), value);
    fc.assert(
      fc.property(fields, fc.boolean(), fc.nat(), (over, strict, cutAt) => {
        const rec = record(over);
        const original = JSON.stringify([rec]);
        const out = reduce(Buffer.from(original), 1 + (cutAt % 40));
        const shortened = (JSON.parse(out.text) as unknown[])[0];
        const a = validateRecord(rec, { strict });
        const b = validateRecord(shortened, { strict });
        assert.deepEqual(b.issues, a.issues);
        assert.equal(!!b.record, !!a.record);
        if (a.record && b.record) for (const k of LITE_FIELDS) assert.deepEqual(b.record[k], a.record[k], k);
      }),
      { seed: SEED, numRuns: RUNS * 4, endOnFailure: true },
    );
  });

  it('shortens only fields a load without prose drops', () => {
    for (const k of [...FREE_TEXT_FIELDS, ...FREE_TEXT_LISTS]) assert.ok((PROSE_FIELDS as readonly string[]).includes(k), k);
  });
});
