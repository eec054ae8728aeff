// node:crypto for the web-worker bundles: createHash('sha256') on @noble/hashes (synchronous,
// as Node's is; WebCrypto's digest is async only). Record ids of partial records are derived
// with it, so the web build gives a record the same id as the desktop one.
import { sha256 } from '@noble/hashes/sha2.js';
import { Buffer } from 'buffer';

type Input = string | Uint8Array;

class Sha256 {
  private readonly h = sha256.create();
  update(data: Input): this {
    this.h.update(typeof data === 'string' ? new TextEncoder().encode(data) : data);
    return this;
  }
  digest(): Buffer;
  digest(encoding: 'hex' | 'base64'): string;
  digest(encoding?: 'hex' | 'base64'): string | Buffer {
    const out = Buffer.from(this.h.digest());
    return encoding ? out.toString(encoding) : out;
  }
}

export function createHash(algorithm: string): Sha256 {
  if (algorithm.toLowerCase() !== 'sha256') throw new Error(`createHash: only sha256 in the web worker (got ${algorithm})`);
  return new Sha256();
}
