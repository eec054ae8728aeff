// Long work run in time slices with an event-loop turn between them, so a server answers requests
// meanwhile: the engine's build, the index cache's write, the record lookups' build.

/**
 * Runs `steps` to its end in slices of about `sliceMs` (steps until the slice's time is up), with
 * an event-loop turn after each slice that does not finish. `stop` is asked after each turn: true
 * ends the run (undefined is returned). `onSlice` is told each slice's length. `pause` replaces
 * the turn (a server's waits until the requests a person waits for are answered).
 */
export async function runInSlices<T>(steps: Iterator<unknown, T>, sliceMs: number, opts: { stop?: (() => boolean) | undefined; onSlice?: ((ms: number) => void) | undefined; pause?: (() => Promise<void>) | undefined } = {}): Promise<{ value: T } | undefined> {
  for (;;) {
    const t0 = performance.now();
    let r: IteratorResult<unknown, T>;
    while (!(r = steps.next()).done && performance.now() - t0 < sliceMs);
    opts.onSlice?.(performance.now() - t0);
    if (r.done) return { value: r.value };
    await (opts.pause ? opts.pause() : new Promise<void>((resolve) => setImmediate(resolve)));
    if (opts.stop?.()) return undefined;
  }
}

/** Runs `steps` to its end at once (the synchronous form of runInSlices: a CLI, a test). */
export function runSteps<T>(steps: Iterator<unknown, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
