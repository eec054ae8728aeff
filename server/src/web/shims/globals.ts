// Globals that Node code expects, for the web-worker bundles (esbuild `inject`, see esbuild.mjs):
// `process` (platform, env, cwd), `Buffer` (the `buffer` package) and `setImmediate`. Only these
// names are provided; anything else Node-only fails the web build or says so when called.
import { Buffer } from 'buffer';

export { Buffer };

export const process = {
  platform: 'web' as string,
  env: {} as Record<string, string | undefined>,
  argv: [] as string[],
  versions: {} as Record<string, string>,
  cwd: (): string => '/',
};

// setImmediate on a MessageChannel: runs after pending messages, without setTimeout's 4 ms clamp
// on nested calls (the matcher yields between chunks of a large document).
const queue = new Map<number, () => void>();
let nextHandle = 1;
let channel: InstanceType<typeof MessageChannel> | undefined;

function post(handle: number): void {
  if (!channel) {
    channel = new MessageChannel();
    // (Node's MessagePort types it as an EventEmitter; the worker's port has onmessage)
    (channel.port1 as unknown as { onmessage: (e: { data: number }) => void }).onmessage = (e) => {
      const run = queue.get(e.data);
      queue.delete(e.data);
      run?.();
    };
    // (Node only, where the unit tests run the shim: a pending port must not keep the process
    // alive; a worker's MessagePort has no unref)
    (channel.port1 as unknown as { unref?: () => void }).unref?.();
  }
  channel.port2.postMessage(handle);
}

export function setImmediate<A extends unknown[]>(fn: (...args: A) => void, ...args: A): number {
  const handle = nextHandle++;
  queue.set(handle, () => fn(...args));
  post(handle);
  return handle;
}

export function clearImmediate(handle: number | undefined): void {
  if (handle !== undefined) queue.delete(handle);
}
