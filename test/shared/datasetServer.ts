// A loopback HTTP server (127.0.0.1, port 0) serving the fixture dataset of
// test/fixtures/dataset in ErrLookup's layout. `/<alias>/data/...` maps to a fixture folder
// (aliases are switchable, so one base URL can move to a new datasetVersion); per-path overrides
// simulate failures (status, body, HTML, cut connections, a body trickled byte by byte, redirects).
// Fixture files carry an ETag and answer a matching If-None-Match with 304. It counts requests per
// path (and which of them were conditional).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { FIXTURES, tempDir } from './paths';

export const FIXTURE_DATASET = path.join(FIXTURES, 'dataset');

export interface Override {
  status?: number;
  body?: Buffer | string;
  contentType?: string;
  /** Send this many bytes of the body (Content-Length announces the whole), then cut the connection. */
  cutAfter?: number;
  /** Send the body one byte every this many ms (never idle long enough for a socket timeout). */
  trickleMs?: number;
  /** Extra response headers (e.g. location for a redirect). */
  headers?: Record<string, string>;
}

export class FixtureServer {
  readonly requests: string[] = [];
  /** Paths requested with If-None-Match. */
  readonly conditional: string[] = [];
  private readonly open = new Set<NodeJS.Timeout>();
  readonly overrides = new Map<string, Override>();
  private readonly aliases = new Map<string, string>();
  private constructor(
    private readonly server: http.Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<FixtureServer> {
    let self: FixtureServer | undefined;
    const server = http.createServer((req, res) => self!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    self = new FixtureServer(server, `http://127.0.0.1:${port}`);
    return self;
  }

  /** Base URL for `alias`, serving fixture folder `variant` (current, next, legacy). */
  base(alias: string, variant?: string): string {
    if (variant) this.aliases.set(alias, variant);
    return `${this.origin}/${alias}`;
  }
  setVariant(alias: string, variant: string): void {
    this.aliases.set(alias, variant);
  }
  /** Bytes of a fixture file, e.g. file('next', '/data/index.json.gz'). */
  file(variant: string, p: string): Buffer {
    return fs.readFileSync(path.join(FIXTURE_DATASET, variant, p));
  }
  count(urlPath: string): number {
    return this.requests.filter((r) => r === urlPath).length;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const urlPath = decodeURIComponent(new URL(req.url ?? '/', this.origin).pathname);
    this.requests.push(urlPath);
    if (req.headers['if-none-match']) this.conditional.push(urlPath);
    const o = this.overrides.get(urlPath);
    if (o) {
      const body = typeof o.body === 'string' ? Buffer.from(o.body) : (o.body ?? Buffer.alloc(0));
      res.writeHead(o.status ?? 200, { 'content-type': o.contentType ?? 'application/octet-stream', 'content-length': body.length, ...o.headers });
      if (o.cutAfter !== undefined) {
        res.write(body.subarray(0, o.cutAfter), () => res.destroy());
        return;
      }
      if (o.trickleMs !== undefined) {
        let i = 0;
        const t = setInterval(() => {
          if (i >= body.length || res.destroyed) {
            clearInterval(t);
            this.open.delete(t);
            res.end();
            return;
          }
          res.write(body.subarray(i, ++i));
        }, o.trickleMs);
        this.open.add(t);
        return;
      }
      res.end(body);
      return;
    }
    const m = /^\/([^/]+)(\/data\/.*)$/.exec(urlPath);
    const variant = m ? this.aliases.get(m[1]!) ?? m[1]! : undefined;
    const file = m && variant && !m[2]!.includes('..') ? path.join(FIXTURE_DATASET, variant, m[2]!) : undefined;
    if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    const body = fs.readFileSync(file);
    const type = file.endsWith('.gz') ? 'application/gzip' : 'application/json';
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': type, 'content-length': body.length, etag });
    res.end(body);
  }

  close(): Promise<void> {
    for (const t of this.open) clearInterval(t);
    this.open.clear();
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

/** Every file below `dir` (relative paths, sorted). */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string): void => {
    let names: string[] = [];
    try {
      names = fs.readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = path.join(d, n);
      const r = rel ? `${rel}/${n}` : n;
      if (fs.statSync(p).isDirectory()) walk(p, r);
      else out.push(r);
    }
  };
  walk(dir, '');
  return out.sort();
}

/** Mocha hooks of a suite that talks to the fixture server: one server for the suite (a test may
 * replace it; the last one is closed); per test a fresh temp folder (removed after it) and an
 * empty request log. Read its fields inside tests. */
export function fixtureSuite(tempPrefix: string): { server: FixtureServer; readonly tmp: string } {
  const s = {} as { server: FixtureServer; tmp: string };
  before(async () => {
    s.server = await FixtureServer.start();
  });
  after(async () => {
    await s.server.close();
  });
  beforeEach(() => {
    s.tmp = tempDir(tempPrefix);
    s.server.requests.length = 0;
  });
  afterEach(() => fs.rmSync(s.tmp, { recursive: true, force: true }));
  return s;
}
