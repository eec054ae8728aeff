// Failure containment for LSP handlers: a handler that throws logs the error and answers an
// empty result; a cancelled request answers RequestCancelled. Long loops yield with
// `yieldToEventLoop()` between chunks so a cancellation notification can arrive at all.
import { CancellationToken, LSPErrorCodes, ResponseError } from 'vscode-languageserver';

export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  log(message: string): void;
}

export function errorText(e: unknown): string {
  if (e instanceof Error) return e.stack ?? `${e.name}: ${e.message}`;
  return String(e);
}

export function cancelled(): ResponseError<never> {
  return new ResponseError(LSPErrorCodes.RequestCancelled, 'Request cancelled');
}

export class Cancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

/** Throws `Cancelled` when the token is cancelled (caught by runSafe). */
export function throwIfCancelled(token: CancellationToken | undefined): void {
  if (token?.isCancellationRequested) throw new Cancelled();
}

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Requests a person waits for (hover, links, code actions, search) in progress. */
let interactivePending = 0;

/** Run an interactive request: background work (a document scan) steps aside until it is answered,
 * and for one more event-loop turn (the connection writes the answer on a turn of its own). */
export function interactive<T>(run: () => Promise<T>): Promise<T> {
  interactivePending++;
  return run().finally(() => setImmediate(() => interactivePending--));
}

/** When input last arrived on the connection (main.ts notes stdin's chunks). */
let inputAt = -Infinity;
/** Event-loop turns since that input, counted by a ticker that runs only for the first few. */
let turnsSinceInput = Infinity;
let ticking = false;
/** A yield goes on yielding after input: vscode-jsonrpc reads a message and hands it to its handler
 * a few event-loop turns later (measured: status requests during a 50 MB scan took 17-22 ms with no
 * such turns, ~1 ms with them). It waits at least MIN_INPUT_TURNS whole turns after the input,
 * counted (a turn that took long, on a loaded machine or in a GC pause, does not shorten the wait),
 * and as long as input came in the last INPUT_QUIET_MS; input that came during a slice is noted in
 * the yield's first turn. At most MAX_INPUT_TURNS per yield (a stream of input does not stop the
 * work). The wait is the same for every yield: each background runner (a document scan, the index
 * cache's write, the record lookups' build) waits in it. (When the input was the first yield's to
 * see alone, the other runners' slices ran in the turns it gave: hovers on a cold start with 100k
 * records waited 50-130 ms.) */
const MIN_INPUT_TURNS = 4;
const INPUT_QUIET_MS = 2;
const MAX_INPUT_TURNS = 64;

function countTurn(): void {
  turnsSinceInput++;
  if (turnsSinceInput <= MIN_INPUT_TURNS) setImmediate(countTurn);
  else ticking = false;
}

/** A chunk of input arrived (a request may be on its way to its handler). */
export function noteInput(): void {
  inputAt = performance.now();
  turnsSinceInput = 0;
  if (!ticking) {
    ticking = true;
    setImmediate(countTurn);
  }
}

function inputIsRecent(): boolean {
  return turnsSinceInput <= MIN_INPUT_TURNS || performance.now() - inputAt < INPUT_QUIET_MS;
}

/** Yield to the event loop, and keep yielding while interactive requests are in progress or input
 * has just come: long background work calls this between its slices, so a hover waits for one
 * slice at most. */
export async function yieldToInteractive(): Promise<void> {
  for (let turn = 0; ; turn++) {
    await yieldToEventLoop();
    if (interactivePending > 0) continue;
    if (turn < MAX_INPUT_TURNS && inputIsRecent()) continue;
    return;
  }
}

/**
 * Runs `fn` on a later tick (so a cancellation sent right after the request is seen), returns
 * `errorValue` if it throws, and RequestCancelled when the token fires.
 */
export function runSafe<T>(
  log: Logger,
  what: string,
  token: CancellationToken | undefined,
  errorValue: T,
  fn: () => T | Promise<T>,
): Promise<T | ResponseError<never>> {
  return new Promise((resolve) => {
    setImmediate(() => {
      if (token?.isCancellationRequested) return resolve(cancelled());
      let result: T | Promise<T>;
      try {
        result = fn();
      } catch (e) {
        return resolve(fail(e));
      }
      Promise.resolve(result).then(
        (value) => resolve(token?.isCancellationRequested ? cancelled() : value),
        (e) => resolve(fail(e)),
      );
    });
  });
  function fail(e: unknown): T | ResponseError<never> {
    if (e instanceof Cancelled || token?.isCancellationRequested) return cancelled();
    log.error(`${what} failed: ${errorText(e)}`);
    return errorValue;
  }
}

/** The same for notifications: log and swallow. */
export function runSafeNotification(log: Logger, what: string, fn: () => void | Promise<void>): void {
  try {
    const r = fn();
    if (r) r.catch((e) => log.error(`${what} failed: ${errorText(e)}`));
  } catch (e) {
    log.error(`${what} failed: ${errorText(e)}`);
  }
}
