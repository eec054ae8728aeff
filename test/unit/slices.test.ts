import { strict as assert } from 'node:assert';
import { runInSlices } from '../../server/src/core/slices';

/** Steps that each take about `ms` of busy time; counts how many ran. */
function* busy(n: number, ms: number, ran: { n: number }): Generator<void, string, void> {
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    while (performance.now() - t < ms);
    ran.n++;
    yield;
  }
  return 'done';
}

describe('runInSlices', () => {
  it('runs the steps to their end and gives back their value, with event-loop turns between slices', async () => {
    const ran = { n: 0 };
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const slices: number[] = [];
    const got = await runInSlices(busy(40, 1, ran), 5, { onSlice: (ms) => slices.push(ms) });
    clearInterval(ticker);
    assert.deepEqual(got, { value: 'done' });
    assert.equal(ran.n, 40);
    assert.ok(slices.length >= 4, `${slices.length} slices`);
    assert.ok(turns > 0, 'timers ran between slices');
  });

  it('stops between slices when asked, leaving the rest undone', async () => {
    const ran = { n: 0 };
    let slices = 0;
    const got = await runInSlices(busy(1000, 1, ran), 3, { onSlice: () => slices++, stop: () => slices >= 2 });
    assert.equal(got, undefined);
    assert.ok(ran.n > 0 && ran.n < 1000, `${ran.n} steps ran`);
  });

  it('a run with no steps left ends in its first slice, without a turn', async () => {
    let slices = 0;
    const got = await runInSlices([][Symbol.iterator]() as Iterator<unknown, undefined>, 10, { onSlice: () => slices++, stop: () => true });
    assert.deepEqual(got, { value: undefined });
    assert.equal(slices, 1);
  });
});
