// What a Node-only function does in the web worker: fail like a missing file (ENOENT), so callers
// that look for optional files (raise sites, .error-records/) find nothing, and say why.
export function unavailable(name: string): never {
  const e = new Error(`${name} is not available in the web worker: there is no local file system or network module there`) as Error & { code: string };
  e.code = 'ENOENT';
  throw e;
}

/** A function export that always fails with `unavailable(name)`. */
export function stub(name: string): (...args: unknown[]) => never {
  return () => unavailable(name);
}
