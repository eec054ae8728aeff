// Timing in tests that compare costs: the best of a few runs, so a busy neighbour on a shared
// machine does not fail a test.

/** Time of fn in ms, best of `runs`. */
export function bestMs(fn: () => void, runs = 2): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}
