// Bytes of a record file -> text: gzip (detected by its magic bytes, not the file name), BOMs
// (UTF-8, UTF-16 LE/BE), and invalid UTF-8 (replaced by U+FFFD and reported, never thrown).

import { isUtf8 } from 'node:buffer';
import * as zlib from 'node:zlib';

/** Largest record file (after decompression) the loader accepts. V8 strings top out near 512 MiB,
 * and JSON.parse of a file needs several times its size in memory. */
export const MAX_RECORD_FILE_BYTES = 256 * 1024 * 1024;

export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

export function gunzipSyncLimited(bytes: Uint8Array): Buffer {
  return zlib.gunzipSync(bytes, { maxOutputLength: MAX_RECORD_FILE_BYTES });
}

export function gunzipLimited(bytes: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    zlib.gunzip(bytes, { maxOutputLength: MAX_RECORD_FILE_BYTES }, (err, out) => (err ? reject(err) : resolve(out))),
  );
}

/** Why a gunzip failed, in words. */
export function gunzipErrorMessage(e: unknown): string {
  const err = e as { code?: string; message?: string };
  if (err.code === 'ERR_BUFFER_TOO_LARGE' || /larger than|too large/i.test(err.message ?? ''))
    return `the decompressed file is larger than ${MAX_RECORD_FILE_BYTES / (1024 * 1024)} MiB`;
  return `cannot decompress gzip data: ${err.message ?? String(e)}`;
}

export interface DecodedText {
  text: string;
  /** Set when the bytes were not valid in their encoding (invalid sequences became U+FFFD). */
  warning?: string;
  /** Offset in `text` of the first replacement character, when `warning` is set. */
  warningOffset?: number;
}

/** Decode record-file bytes (already decompressed). The BOM is dropped, so offsets match an
 * editor's view of the file. */
export function decodeText(bytes: Uint8Array): DecodedText {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(buf.subarray(2)) };
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(buf.subarray(2)) };
  const body = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? buf.subarray(3) : buf;
  const text = body.toString('utf8');
  if (isUtf8(body)) return { text };
  const at = text.indexOf('\uFFFD');
  return {
    text,
    warning: 'the file is not valid UTF-8; invalid bytes were replaced by U+FFFD',
    warningOffset: at < 0 ? 0 : at,
  };
}
