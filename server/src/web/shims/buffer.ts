// node:buffer for the web-worker bundles: the `buffer` package, plus isUtf8 on a fatal TextDecoder.
export { Buffer } from 'buffer';

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function isUtf8(input: Uint8Array | ArrayBuffer): boolean {
  try {
    strict.decode(input);
    return true;
  } catch {
    return false;
  }
}
