// The count reporter (scan --format count): byRecord most matched first, then by id, whatever the
// ids look like and however the matches were counted (tally by catalog index, or match events).
import * as assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { Output } from '../../server/src/cli/output';
import { createReporter, type MatchEvent } from '../../server/src/cli/reporters';
import { rng } from '../bench/gen';

async function countOf(ids: string[], tallies: number[], events: string[] = [], idsUnique = false): Promise<string> {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  const out = new Output(sink);
  const r = createReporter('count', out, { version: '0', explain: false, idOf: (e) => ids[e]!, idsUnique });
  r.begin();
  for (const e of tallies) r.tally!(e);
  for (const id of events) r.match({ m: { record: { id } } } as unknown as MatchEvent);
  r.end({ lines: 10, matches: tallies.length + events.length, below: 3, minConfidence: 0.5 });
  await out.flush();
  return text;
}

describe('scan --format count: byRecord', () => {
  it('most matched first, then by id in UTF-16 order; ids that read as numbers keep that order too', async () => {
    const ids = ['b', '10', 'a', '7', 'é', 'A', '"q"\\'];
    // counts: b 2, 10 1, a 2, 7 3, é 1, A 2, "q"\ 1
    const text = await countOf(ids, [0, 0, 1, 2, 2, 3, 3, 3, 4, 5, 5, 6]);
    assert.ok(text.endsWith('\n'));
    const got = JSON.parse(text) as { lines: number; matches: number; belowConfidence: number; byRecord: Record<string, number> };
    assert.equal(got.lines, 10);
    assert.equal(got.matches, 12);
    assert.equal(got.belowConfidence, 3);
    // (the order as written: JSON.parse would put '7' and '10' first again)
    const order = [...text.matchAll(/"((?:[^"\\]|\\.)*)":(\d+)[,}]/g)].map((m) => [JSON.parse(`"${m[1]}"`) as string, Number(m[2])]).filter(([k]) => ids.includes(k as string));
    assert.deepEqual(order, [
      ['7', 3],
      ['A', 2],
      ['a', 2],
      ['b', 2],
      ['"q"\\', 1],
      ['10', 1],
      ['é', 1],
    ]);
    assert.deepEqual(got.byRecord, { '7': 3, A: 2, a: 2, b: 2, '"q"\\': 1, '10': 1, é: 1 });
  });

  it('two catalog entries with one id, and match events, are counted together', async () => {
    const got = JSON.parse(await countOf(['x', 'y', 'x'], [0, 2, 1], ['x', 'z'])) as { byRecord: Record<string, number> };
    assert.deepEqual(got.byRecord, { x: 3, y: 1, z: 1 });
  });

  it('tallies of unique ids (a catalog) are grouped by count without a map by id: the same text as merged by id, for any ids and counts', async () => {
    const r = rng(77);
    const alphabet = ['a', 'b', 'Z', '0', '9', '-', '_', '"', '\\', 'é', '文', '\ud83d\ude00', '\ud800', ' ', '\u0000', '\uffff'];
    for (let iter = 0; iter < 40; iter++) {
      const seen = new Set<string>();
      const ids: string[] = [];
      const n = 1 + Math.floor(r() * 300);
      while (ids.length < n) {
        // ids that read as numbers too, of any length
        let id = r() < 0.2 ? String(Math.floor(r() * 1000)) : '';
        const len = Math.floor(r() * 6);
        for (let k = 0; k < len; k++) id += alphabet[Math.floor(r() * alphabet.length)]!;
        if (!seen.has(id)) {
          seen.add(id);
          ids.push(id);
        }
      }
      // counts from 1 to thousands, many equal
      const tallies: number[] = [];
      for (let e = 0; e < n; e++) {
        // (a few over 65,535: the key's count takes both of its UTF-16 units)
        const c = r() < 0.3 ? 0 : r() < 0.5 ? 1 + Math.floor(r() * 3) : r() < 0.98 ? Math.floor(r() * 300) : 65530 + Math.floor(r() * 20);
        for (let k = 0; k < c; k++) tallies.push(e);
      }
      const merged = await countOf(ids, tallies);
      assert.equal(await countOf(ids, tallies, [], true), merged);
      // (with a match event, the merge by id again)
      assert.equal(await countOf(ids, tallies, [ids[0]!], true), await countOf(ids, tallies, [ids[0]!]));
    }
  });

  it('no matches: an empty byRecord', async () => {
    assert.equal(await countOf([], []), '{"lines":10,"matches":0,"belowConfidence":3,"byRecord":{}}\n');
  });
});
