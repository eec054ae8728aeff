// Waiting in tests: poll with a timeout, never sleep. One loop for every layer (unit and protocol
// tests under node, the e2e suites bundled by esbuild into the extension host: no node: or vscode
// import here).

export interface PollOptions<T> {
  /** Give up after this long (the error names `what` and the last answer or error). */
  timeoutMs: number;
  /** Time between two checks. */
  intervalMs: number;
  /** When an answer of `check` ends the wait. */
  accept: (v: T) => boolean;
}

/** Calls `check` until its answer is accepted (a throw counts as not yet); fails after the timeout. */
export async function pollUntil<T>(what: string, check: () => T | Promise<T>, opts: PollOptions<T>): Promise<T> {
  const end = Date.now() + opts.timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (opts.accept(v)) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) {
      const detail = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${what} (last: ${detail})`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs));
  }
}

/** Polls `check` (every 20 ms) until it answers something other than undefined or false. */
export function waitFor<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15000): Promise<T> {
  return pollUntil(what, check, { timeoutMs, intervalMs: 20, accept: (v) => v !== undefined && v !== false }) as Promise<T>;
}

/** Polls `fn` until it answers a truthy value (0, '' and null keep it waiting). */
export function poll<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 60000, intervalMs = 100): Promise<NonNullable<T>> {
  return pollUntil(what, fn, { timeoutMs, intervalMs, accept: (v) => Boolean(v) }) as Promise<NonNullable<T>>;
}
