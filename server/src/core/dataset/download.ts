// Downloads with limits: http(s) through node:http/https (no transparent decompression, so the
// sha256 is taken over the bytes exactly as served), `file:` URLs from a local folder.
// Every failure is a DatasetError with a kind the caller can report.
//
// Limits: a byte cap (Content-Length and bytes actually received), an idle timeout (nothing
// arrives), and an overall deadline per request (a body trickled byte by byte still ends).
// Redirects are followed only within the same origin (scheme, host and port): never to another
// host, never from https to http.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export type DatasetErrorKind = 'network' | 'timeout' | 'http' | 'html' | 'size' | 'sha' | 'gzip' | 'json' | 'write' | 'format';

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
  /** The whole request (connect, redirects, body) must end by this time (Date.now() ms). */
  deadline?: number;
  /** What the deadline is called in the error ("the sync's limit of 15 minutes"). */
  deadlineLabel?: string;
  /** Stream the body to this file instead of keeping it in memory. */
  dest?: string;
  /** Conditional request: answer 304 (notModified) when the entity still has this ETag. */
  ifNoneMatch?: string;
}

export interface Downloaded {
  /** The body, unless `dest` was given. */
  body?: Buffer;
  size: number;
  sha256: string;
  /** First bytes (for HTML / gzip sniffing). */
  head: Buffer;
  contentType: string;
  /** The response's ETag, when it has one. */
  etag?: string;
  /** 304 to a conditional request: no body. */
  notModified?: boolean;
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

/** Same scheme, host and port: where a redirect may lead. */
function sameOrigin(a: URL, b: URL): boolean {
  return a.protocol === b.protocol && a.host === b.host;
}

function getOnce(url: string, opts: DownloadOptions, redirects: number, origin?: URL): Promise<Downloaded> {
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
    const first = origin ?? u;
    let settled = false;
    let overall: NodeJS.Timeout | undefined;
    const fail = (e: unknown): void => {
      if (settled) return;
      settled = true;
      if (overall) clearTimeout(overall);
      req.destroy();
      reject(e instanceof DatasetError ? e : new DatasetError('network', `${url}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`));
    };
    const done = (d: Downloaded): void => {
      if (settled) return;
      settled = true;
      if (overall) clearTimeout(overall);
      resolve(d);
    };
    const headers: Record<string, string> = { 'accept-encoding': 'identity', 'user-agent': 'error-explainer' };
    if (opts.ifNoneMatch) headers['if-none-match'] = opts.ifNoneMatch;
    const req = mod.get(u, { headers }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && status !== 304 && res.headers.location) {
        res.resume();
        if (redirects >= 5) return fail(new DatasetError('http', `${url}: too many redirects`));
        let next: URL;
        try {
          next = new URL(res.headers.location, u);
        } catch {
          return fail(new DatasetError('http', `${url}: a redirect to a bad URL`));
        }
        // never to another host, never from https to http: the dataset's origin is the one the user chose
        if (!sameOrigin(first, next)) return fail(new DatasetError('http', `${url}: redirect to ${next.protocol}//${next.host} refused (only redirects within ${first.protocol}//${first.host} are followed)`));
        settled = true;
        if (overall) clearTimeout(overall);
        getOnce(next.toString(), opts, redirects + 1, first).then(resolve, reject);
        return;
      }
      const etag = typeof res.headers.etag === 'string' ? res.headers.etag : undefined;
      if (status === 304 && opts.ifNoneMatch) {
        res.resume();
        return done({ size: 0, sha256: '', head: Buffer.alloc(0), contentType: '', notModified: true, ...(etag ? { etag } : {}) });
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
        const d = sink.result(String(res.headers['content-type'] ?? ''));
        if (etag) d.etag = etag;
        done(d);
      });
      // a failure after the sink exists closes its file
      req.once('close', () => sink.close());
    });
    if (opts.deadline !== undefined) {
      const left = opts.deadline - Date.now();
      const label = opts.deadlineLabel ?? 'its time limit';
      if (left <= 0) fail(new DatasetError('timeout', `${url}: not done within ${label}`));
      else overall = setTimeout(() => fail(new DatasetError('timeout', `${url}: not done within ${label}`)), left);
    }
    req.setTimeout(opts.timeoutMs ?? 30_000, () => fail(new DatasetError('timeout', `${url}: timed out (no data for ${Math.round((opts.timeoutMs ?? 30_000) / 1000)} s)`)));
    req.on('error', fail);
  });
}

/** GET a URL within limits. Rejects with a DatasetError. */
export async function download(url: string, opts: DownloadOptions): Promise<Downloaded> {
  if (url.startsWith('file:')) return readLocal(url, opts);
  return getOnce(url, opts, 0);
}
