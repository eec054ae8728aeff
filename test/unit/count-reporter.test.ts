// The count reporter (scan --format count): byRecord most matched first, then by id, whatever the
// ids look like and however the matches were counted (tally by catalog index, or match events).
import * as assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { Output } from '../../server/src/cli/output';
import { createReporter, type MatchEvent } from '../../server/src/cli/reporters';

async function countOf(ids: string[], tallies: number[], events: string[] = []): Promise<string> {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  const out = new Output(sink);
  const r = createReporter('count', out, { version: '0', explain: false, idOf: (e) => ids[e]! });
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

  it('no matches: an empty byRecord', async () => {
    assert.equal(await countOf([], []), '{"lines":10,"matches":0,"belowConfidence":3,"byRecord":{}}\n');
  });
});
