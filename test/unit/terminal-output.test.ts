// readFromNow / OutputCollector (client/src/terminalOutput.ts) against a model of VS Code 1.100's
// shell-integration stream (extHostTerminalShellIntegration.ts ShellExecutionDataStream + the
// AsyncIterableObject of base/common/async.ts): the emitter is registered in a microtask, data
// emitted before that is dropped.
import * as assert from 'node:assert/strict';
import { OutputCollector, readFromNow } from '../../client/src/terminalOutput';

type Emitter = { emitOne(v: string): void };

/** AsyncIterableObject's contract, reduced: the executor runs in queueMicrotask; results buffer. */
class ModelIterable implements AsyncIterable<string> {
  private readonly results: string[] = [];
  private ended = false;
  private wake: (() => void) | undefined;
  constructor(executor: (e: Emitter) => Promise<void>) {
    queueMicrotask(async () => {
      await executor({ emitOne: (v) => (this.results.push(v), this.wake?.()) });
      this.ended = true;
      this.wake?.();
    });
  }
  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    let i = 0;
    for (;;) {
      if (i < this.results.length) yield this.results[i++]!;
      else if (this.ended) return;
      else await new Promise<void>((r) => (this.wake = r));
    }
  }
}

/** ShellExecutionDataStream: emits to the emitters registered so far; end opens the barrier. */
class ModelStream {
  private readonly emitters: Emitter[] = [];
  private open!: () => void;
  private readonly barrier = new Promise<void>((r) => (this.open = r));
  read(): AsyncIterable<string> {
    return new ModelIterable(async (e) => {
      this.emitters.push(e);
      await this.barrier;
    });
  }
  emitData(d: string): void {
    for (const e of this.emitters) e.emitOne(d);
  }
  end(): void {
    this.open();
  }
}

const OUTPUT = '\x1b]633;C\x07ERROR encode metadata not ready\r\n';

/** A fast command: start (read in the start listener), data and end in one synchronous batch. */
async function fastCommand(read: (s: ModelStream) => AsyncIterable<string>): Promise<OutputCollector> {
  const stream = new ModelStream();
  const c = new OutputCollector(read(stream), (e) => assert.fail(String(e)));
  stream.emitData(OUTPUT);
  stream.emitData('');
  stream.end();
  await c.text(1000);
  return c;
}

describe('terminal output: reading a shell execution', () => {
  it('the model reproduces VS Code losing a fast command\'s output with a plain read()', async () => {
    const c = await fastCommand((s) => s.read());
    assert.equal(await c.text(0), '');
    assert.equal(c.chunks, 0, 'no chunk: the output was not delivered');
  });

  it('readFromNow registers before the batch\'s data event: the whole output arrives', async () => {
    const c = await fastCommand((s) => readFromNow(s));
    assert.equal(await c.text(0), OUTPUT);
    assert.equal(c.chunks, 2);
  });

  it('readFromNow restores queueMicrotask, also when read() throws', () => {
    const before = globalThis.queueMicrotask;
    assert.throws(() => readFromNow({ read: () => { throw new Error('gone'); } }), /gone/);
    assert.equal(globalThis.queueMicrotask, before);
    readFromNow(new ModelStream());
    assert.equal(globalThis.queueMicrotask, before);
  });

  it('a slow command (data in later tasks) arrives either way', async () => {
    const stream = new ModelStream();
    const c = new OutputCollector(readFromNow(stream), (e) => assert.fail(String(e)));
    await new Promise((r) => setTimeout(r, 5));
    stream.emitData(OUTPUT);
    await new Promise((r) => setTimeout(r, 5));
    stream.end();
    assert.equal(await c.text(1000), OUTPUT);
  });
});
