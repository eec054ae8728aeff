// Downloads with limits: http(s) through node:http/https (no transparent decompression, so the
// sha256 is taken over the bytes exactly as served), `file:` URLs from a local folder.
// Every failure is a DatasetError with a kind the caller can report.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export type DatasetErrorKind = 'network' | 'http' | 'html' | 'size' | 'sha' | 'gzip' | 'json' | 'write' | 'format';

/** Why writing `dest` failed, the same text every time it fails the same way (dest lies in a fresh
 * temporary folder per attempt), so that a repeated failure is recognised and reported once. */
function writeFailure(dest: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return `cannot write ${path.basename(dest)}: ${code ?? (e as Error).message}`;
}

export class DatasetError extends Error {
  constructor(
    readonly kind: DatasetErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'DatasetError';
  }
}

export interface DownloadOptions {
  /** Abort (kind `size`) once more bytes than this arrive, or when Content-Length says so. */
  maxBytes: number;
  /** Socket inactivity timeout. */
  timeoutMs?: number;
  /** Stream the body to this file instead of keeping it in memory. */
  dest?: string;
}

export interface Downloaded {
  /** The body, unless `dest` was given. */
  body?: Buffer;
  size: number;
  sha256: string;
  /** First bytes (for HTML / gzip sniffing). */
  head: Buffer;
  contentType: string;
}

const HEAD_BYTES = 512;

/** Join a base URL (`https://host`, `https://host/mirror/`, `file:///dir`) and an absolute dataset path. */
export function datasetUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
}

/** Does this look like an HTML page (a proxy's or host's error page served with 200)? */
export function looksLikeHtml(head: Buffer, contentType = ''): boolean {
  if (/\btext\/html\b/i.test(contentType)) return true;
  const s = head.subarray(0, 256).toString('utf8').replace(/^\uFEFF/, '').trimStart().slice(0, 64).toLowerCase();
  return s.startsWith('<!doctype html') || s.startsWith('<html') || s.startsWith('<head') || s.startsWith('<body') || s.startsWith('<?xml');
}

export function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

class Sink {
  private readonly hash = createHash('sha256');
  private readonly chunks: Buffer[] = [];
  private fd: number | undefined;
  size = 0;
  head = Buffer.alloc(0);
  constructor(
    private readonly url: string,
    private readonly opts: DownloadOptions,
  ) {
    if (opts.dest) {
      try {
        this.fd = fs.openSync(opts.dest, 'w');
      } catch (e) {
        throw new DatasetError('write', writeFailure(opts.dest, e));
      }
    }
  }
  push(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.opts.maxBytes) {
      throw new DatasetError('size', `${this.url} is larger than the limit of ${this.opts.maxBytes} bytes`);
    }
    if (this.head.length < HEAD_BYTES) this.head = Buffer.concat([this.head, chunk.subarray(0, HEAD_BYTES - this.head.length)]);
    this.hash.update(chunk);
    if (this.fd !== undefined) {
      try {
        fs.writeSync(this.fd, chunk);
      } catch (e) {
        throw new DatasetError('write', writeFailure(this.opts.dest!, e));
      }
    } else this.chunks.push(chunk);
  }
  close(): void {
    if (this.fd !== undefined) {
      fs.closeSync(this.fd);
      this.fd = undefined;
    }
  }
  result(contentType: string): Downloaded {
    this.close();
    const d: Downloaded = { size: this.size, sha256: this.hash.digest('hex'), head: this.head, contentType };
    if (!this.opts.dest) d.body = Buffer.concat(this.chunks);
    return d;
  }
}

/** A local file, streamed (a 40 MB index read in one go would stall the event loop). */
function readLocal(url: string, opts: DownloadOptions): Promise<Downloaded> {
  let file: string;
  try {
    file = fileURLToPath(url);
  } catch (e) {
    return Promise.reject(new DatasetError('network', `bad file URL ${url}: ${(e as Error).message}`));
  }
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (e) {
    return Promise.reject(new DatasetError('network', `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`));
  }
  if (size > opts.maxBytes) return Promise.reject(new DatasetError('size', `${file} is larger than the limit of ${opts.maxBytes} bytes`));
  return new Promise<Downloaded>((resolve, reject) => {
    let sink: Sink;
    try {
      sink = new Sink(url, opts);
    } catch (e) {
      reject(e);
      return;
    }
    const input = fs.createReadStream(file, { highWaterMark: 1 << 16 });
    input.on('data', (chunk) => {
      try {
        sink.push(chunk as Buffer);
      } catch (e) {
        input.destroy();
        sink.close();
        reject(e);
      }
    });
    input.on('error', (e) => {
      sink.close();
      reject(new DatasetError('network', `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? e.message}`));
    });
    input.on('end', () => resolve(sink.result(file.endsWith('.json') ? 'application/json' : '')));
  });
}

function getOnce(url: string, opts: DownloadOptions, redirects: number): Promise<Downloaded> {
  return new Promise<Downloaded>((resolve, reject) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      reject(new DatasetError('network', `bad URL ${url}`));
      return;
    }
    const mod = u.protocol === 'https:' ? https : u.protocol === 'http:' ? http : undefined;
    if (!mod) {
      reject(new DatasetError('network', `unsupported URL scheme ${u.protocol} (use https:, http: or file:)`));
      return;
    }
    let settled = false;
    const fail = (e: unknown): void => {
      if (settled) return;
      settled = true;
      req.destroy();
      reject(e instanceof DatasetError ? e : new DatasetError('network', `${url}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`));
    };
    const req = mod.get(u, { headers: { 'accept-encoding': 'identity', 'user-agent': 'error-explainer' } }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        if (redirects >= 5) return fail(new DatasetError('http', `${url}: too many redirects`));
        settled = true;
        getOnce(new URL(res.headers.location, u).toString(), opts, redirects + 1).then(resolve, reject);
        return;
      }
      if (status !== 200) {
        res.resume();
        return fail(new DatasetError('http', `${url}: HTTP ${status}`));
      }
      const len = Number(res.headers['content-length']);
      if (Number.isFinite(len) && len > opts.maxBytes) {
        res.resume();
        return fail(new DatasetError('size', `${url} is ${len} bytes, larger than the limit of ${opts.maxBytes}`));
      }
      let sink: Sink;
      try {
        sink = new Sink(url, opts);
      } catch (e) {
        res.resume();
        return fail(e);
      }
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        try {
          sink.push(chunk);
        } catch (e) {
          sink.close();
          fail(e);
        }
      });
      res.on('error', (e) => {
        sink.close();
        fail(e);
      });
      res.on('aborted', () => {
        sink.close();
        fail(new DatasetError('network', `${url}: connection closed before the end of the body`));
      });
      res.on('end', () => {
        if (settled) return;
        if (!res.complete) {
          sink.close();
          return fail(new DatasetError('network', `${url}: connection closed before the end of the body`));
        }
        settled = true;
        resolve(sink.result(String(res.headers['content-type'] ?? '')));
      });
    });
    req.setTimeout(opts.timeoutMs ?? 30_000, () => fail(new DatasetError('network', `${url}: timed out`)));
    req.on('error', fail);
  });
}

/** GET a URL within limits. Rejects with a DatasetError. */
export async function download(url: string, opts: DownloadOptions): Promise<Downloaded> {
  if (url.startsWith('file:')) return readLocal(url, opts);
  return getOnce(url, opts, 0);
}
