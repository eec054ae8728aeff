// Reading a terminal command's output from VS Code's shell-integration stream (no `vscode`
// import: unit-tested against a model of VS Code's stream in test/unit/terminal-output.test.ts).

/** Output kept per command: the last this many characters (errors are usually at the end). */
export const MAX_OUTPUT_CHARS = 2 * 1024 * 1024;

/**
 * `execution.read()`, registered before the current task ends.
 *
 * VS Code (1.100; the same code is on its main branch) registers the stream's listener in a
 * microtask: `ShellExecutionDataStream.createIterable()` builds an `AsyncIterableObject`, whose
 * constructor runs the executor that adds the emitter with `queueMicrotask`. A fast command's
 * start, output and end reach the extension host in one message batch that is handled
 * synchronously (`$shellExecutionStart`, `$shellExecutionData`, `$shellExecutionEnd`), so its
 * output is emitted before anyone listens and lost: measured in code-server 4.100.3, `grep ERROR
 * app.log` 4 of 10 delivered, `tail` 2/10, `cat` 3/10, `printf` 0/10 (`python3 -c print` and
 * `sleep 0.3; cat` 10/10). Running the microtasks that read() queues right away adds the emitter
 * before the batch's data event. Only read()'s own queueMicrotask calls are affected (the swap is
 * undone before anything else runs: JS is single-threaded), and if VS Code stops queueing there
 * the swap does nothing.
 */
export function readFromNow(execution: { read(): AsyncIterable<string> }): AsyncIterable<string> {
  const g = globalThis as { queueMicrotask: (cb: () => void) => void };
  const queue = g.queueMicrotask;
  g.queueMicrotask = (cb) => cb();
  try {
    return execution.read();
  } finally {
    g.queueMicrotask = queue;
  }
}

/**
 * An execution's output, read from its start event into a bounded buffer (keeps the tail).
 * A delivered stream always begins with the shell's C (executed) mark itself (VS Code attaches
 * its data listener while that mark is parsed), so "no chunk at all" means "not delivered", never
 * "printed nothing" (see readFromNow for when that happened).
 */
export class OutputCollector {
  private buf = '';
  /** Chunks received; 0 after the end: VS Code delivered none of the output. */
  chunks = 0;
  readonly done: Promise<void>;

  constructor(stream: AsyncIterable<string>, onError: (e: unknown) => void) {
    this.done = (async () => {
      try {
        for await (const chunk of stream) {
          this.chunks++;
          this.buf += chunk;
          if (this.buf.length > MAX_OUTPUT_CHARS * 1.5) this.buf = this.buf.slice(this.buf.length - MAX_OUTPUT_CHARS);
        }
      } catch (e) {
        onError(e);
      }
    })();
  }

  /** The output so far; waits (briefly) for the stream to end first. */
  async text(waitMs: number): Promise<string> {
    await Promise.race([this.done, new Promise((r) => setTimeout(r, waitMs))]);
    return this.buf.length > MAX_OUTPUT_CHARS ? this.buf.slice(this.buf.length - MAX_OUTPUT_CHARS) : this.buf;
  }
}
