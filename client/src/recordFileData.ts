// Pure helpers of the web build's record reading (recordFiles.ts): how a configured record path
// is read there, and a record file's bytes -> what the server gets (gzip inflated, size-bounded,
// base64). No `vscode` import: unit-tested in test/unit/record-files.test.ts.
import { isGzip, MAX_RECORD_FILE_BYTES } from '../../server/src/core/load/decode';

export type RecordPath =
  | { kind: 'relative'; path: string }
  | { kind: 'absolute'; path: string }
  /** `~/…` and Windows drive paths: there is no home folder or drive in the web build. */
  | { kind: 'unsupported'; path: string; reason: string };

/** An `errorExplainer.records.paths` entry as the web build reads it ('' entries are skipped). */
export function classifyRecordPath(given: string): RecordPath | undefined {
  const p = given.trim();
  if (!p) return undefined;
  if (p === '~' || p.startsWith('~/')) return { kind: 'unsupported', path: p, reason: 'a path in the home folder needs the desktop (Node.js) extension host' };
  if (/^[a-z]:[\\/]/i.test(p) || p.startsWith('\\\\')) return { kind: 'unsupported', path: p, reason: 'a Windows drive path needs the desktop (Node.js) extension host' };
  const slashed = p.replace(/\\/g, '/');
  return slashed.startsWith('/') ? { kind: 'absolute', path: slashed } : { kind: 'relative', path: slashed };
}

const MIB = 1024 * 1024;

/** gunzip, stopping once the output passes `limit` bytes (a gzip bomb costs no more than that). */
export async function gunzipBounded(bytes: Uint8Array, limit = MAX_RECORD_FILE_BYTES): Promise<Uint8Array> {
  const Ds = (globalThis as unknown as { DecompressionStream: new (format: string) => { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> } }).DecompressionStream;
  const ds = new Ds('gzip');
  const writer = ds.writable.getWriter();
  void writer.write(bytes).then(() => writer.close()).catch(() => undefined); // errors surface on the reader
  const reader = ds.readable.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`the decompressed file is larger than ${limit / MIB} MiB`);
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A record file's bytes as the server gets them: { base64 } or { error } (in words). */
export async function encodeRecordFile(bytes: Uint8Array, limit = MAX_RECORD_FILE_BYTES): Promise<{ base64: string } | { error: string }> {
  let data = bytes;
  if (isGzip(data)) {
    try {
      data = await gunzipBounded(data, limit);
    } catch (e) {
      const msg = (e as Error)?.message ?? String(e);
      return { error: /larger than/.test(msg) ? msg : `cannot decompress gzip data: ${msg}` };
    }
  }
  if (data.length > limit) return { error: `the file is larger than ${limit / MIB} MiB` };
  return { base64: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64') };
}
