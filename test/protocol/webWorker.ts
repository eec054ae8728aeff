// The web build's server (dist/web/server.js, built for a Web Worker) run in a Node vm context
// shaped like a worker's global scope: postMessage / onmessage and the web platform's globals
// (URL, TextEncoder, MessageChannel, WebAssembly, timers). There is no require, process, Buffer,
// setImmediate or module system in it, so the bundle must bring everything else itself (the
// shims in server/src/web/shims): what runs here is what runs in vscode.dev's worker.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { MessageChannel as NodeMessageChannel } from 'node:worker_threads';
import { AbstractMessageReader, AbstractMessageWriter, type DataCallback, type Disposable, type Message, type MessageReader, type MessageWriter } from 'vscode-languageserver-protocol/node';

export const WEB_SERVER = path.resolve(__dirname, '..', '..', 'dist', 'web', 'server.js');

/** Node's MessageChannel; its ports are closed when the worker is terminated. */
const channels: NodeMessageChannel[] = [];
class TrackedMessageChannel extends NodeMessageChannel {
  constructor() {
    super();
    channels.push(this);
  }
}

export interface WebWorkerServer {
  reader: MessageReader;
  writer: MessageWriter;
  /** What the worker wrote to its console. */
  console: string[];
  /** The worker's global scope (tests check which globals it needed). */
  scope: Record<string, unknown>;
  terminate(): void;
}

export function startWebWorker(file = WEB_SERVER): WebWorkerServer {
  const out: string[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const intervals = new Set<ReturnType<typeof setInterval>>();
  let toClient: DataCallback | undefined;
  let terminated = false;
  const log = (...a: unknown[]): void => void out.push(a.map(String).join(' '));
  const scope: Record<string, unknown> = {
    console: { log, info: log, warn: log, error: log, debug: log, trace: log },
    setTimeout: (fn: () => void, ms?: number, ...args: unknown[]) => {
      const t = setTimeout(() => {
        timers.delete(t);
        if (!terminated) (fn as (...x: unknown[]) => void)(...args);
      }, ms);
      timers.add(t);
      return t;
    },
    clearTimeout: (t: ReturnType<typeof setTimeout>) => {
      timers.delete(t);
      clearTimeout(t);
    },
    setInterval: (fn: () => void, ms?: number) => {
      const t = setInterval(fn, ms);
      intervals.add(t);
      return t;
    },
    clearInterval: (t: ReturnType<typeof setInterval>) => {
      intervals.delete(t);
      clearInterval(t);
    },
    queueMicrotask,
    TextEncoder,
    TextDecoder,
    URL,
    URLSearchParams,
    MessageChannel: TrackedMessageChannel,
    WebAssembly: (globalThis as Record<string, unknown>).WebAssembly,
    performance,
    atob,
    btoa,
    structuredClone,
    // the worker's own port: postMessage goes to the client
    postMessage: (msg: Message) => {
      if (!terminated) toClient?.(structuredClone(msg));
    },
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
  };
  scope.self = scope;
  const context = vm.createContext(scope);
  vm.runInContext(fs.readFileSync(file, 'utf8'), context, { filename: file });

  class Reader extends AbstractMessageReader {
    listen(callback: DataCallback): Disposable {
      toClient = callback;
      return { dispose: () => (toClient = undefined) };
    }
  }
  class Writer extends AbstractMessageWriter {
    async write(msg: Message): Promise<void> {
      // what the worker's onmessage gets (a structured clone in a browser)
      const onmessage = scope.onmessage as ((e: { data: unknown }) => void) | undefined;
      if (!onmessage) throw new Error('the web server set no onmessage handler');
      if (!terminated) onmessage({ data: structuredClone(msg) });
    }
    end(): void {}
  }
  return {
    reader: new Reader(),
    writer: new Writer(),
    console: out,
    scope,
    terminate: () => {
      terminated = true;
      for (const t of timers) clearTimeout(t);
      for (const t of intervals) clearInterval(t);
      for (const ch of channels.splice(0)) {
        ch.port1.close();
        ch.port2.close();
      }
    },
  };
}
