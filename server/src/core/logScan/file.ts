// Scanning a log file on disk with the byte engine (MatchEngine.matchBytes through the CLI's
// forEachMatchingLine): a byte range at a time, with progress and cancellation, in constant memory;
// and following a file as it grows (tail -F): only appended bytes are scanned, a truncated or
// replaced (rotated) file is scanned again from its start.
//
// Line numbers are 1-based and count line ends as editors do (\n, \r\n, lone \r), like `scan`.
// A follower scans whole lines only: a last line without its line end is matched once it has one.
import * as fs from 'node:fs';
import { Readable } from 'node:stream';
import { forEachMatchingLine } from '../lineScan';
import { type Catalog, type RecordMatch, recordMatch } from '../catalog';
import { ScanSummary } from './summary';

export interface RangeScanOptions {
  /** First byte (default 0). */
  from?: number;
  /** End byte, exclusive (default: the size when the scan starts). */
  to?: number;
  /** Stop after the last line end before `to` (a follower: the rest is an unfinished line). */
  wholeLines?: boolean;
  /** Called after each chunk with the bytes scanned so far and the range's length. */
  onProgress?(done: number, total: number): void;
  /** Checked after each chunk (about 1 MiB): true stops the scan. */
  cancelled?(): boolean;
}

export interface RangeScanResult {
  /** Byte offset where the scan stopped (exclusive): `to`, or after the last line end with wholeLines. */
  end: number;
  lines: number;
  truncatedLines: number;
  cancelled: boolean;
}

const CHUNK = 1 << 20;

/** Offset just after the last '\n' in [from, to), or `from` when there is none. */
export function lastLineEnd(fd: number, from: number, to: number): number {
  const buf = Buffer.allocUnsafe(64 * 1024);
  let hi = to;
  while (hi > from) {
    const lo = Math.max(from, hi - buf.length);
    const n = fs.readSync(fd, buf, 0, hi - lo, lo);
    const nl = buf.subarray(0, n).lastIndexOf(10);
    if (nl >= 0) return lo + nl + 1;
    hi = lo;
  }
  return from;
}

/**
 * Scans bytes [from, to) of an open file; onMatches gets 1-based line numbers relative to `from`
 * (the caller adds its base). Rejects with the read error.
 */
export async function scanRange(fd: number, catalog: Catalog, onMatches: (line: number, matches: RecordMatch[], text: string) => void, opts: RangeScanOptions = {}): Promise<RangeScanResult> {
  const from = opts.from ?? 0;
  let to = opts.to ?? fs.fstatSync(fd).size;
  if (opts.wholeLines) to = lastLineEnd(fd, from, to);
  const total = Math.max(0, to - from);
  let done = 0;
  let cancelled = false;
  if (total === 0) return { end: from, lines: 0, truncatedLines: 0, cancelled: false };
  const input = Readable.from(
    (function* chunks(): Generator<Buffer> {
      let pos = from;
      while (pos < to) {
        const buf = Buffer.allocUnsafe(Math.min(CHUNK, to - pos));
        const n = fs.readSync(fd, buf, 0, buf.length, pos);
        if (n <= 0) return; // the file shrank meanwhile: the caller's next check sees it
        pos += n;
        done = pos - from;
        yield n === buf.length ? buf : buf.subarray(0, n);
      }
    })(),
    // one chunk read ahead at most: progress is what was matched, and memory stays at a few MiB
    { highWaterMark: 1 },
  );
  const records = catalog.records;
  const stats = await forEachMatchingLine(
    input,
    catalog.engine,
    (n, hits) => {
      const line = hits.text();
      onMatches(
        n,
        hits.matches().map((lm) => recordMatch(records[lm.entry]!, lm, line)),
        line,
      );
    },
    async () => {
      opts.onProgress?.(done, total);
      // let other work (requests, a cancellation) in between chunks
      await new Promise((r) => setImmediate(r));
      if (opts.cancelled?.()) {
        cancelled = true;
        return false;
      }
      return true;
    },
  );
  return { end: from + done, lines: stats.lines, truncatedLines: stats.truncatedLines, cancelled };
}

/** Scans a whole file into a summary (the MCP scan_log tool, the LM tool). */
export async function scanFile(
  file: string,
  catalog: Catalog,
  summary: ScanSummary,
  opts: Omit<RangeScanOptions, 'from' | 'to' | 'wholeLines'> = {},
): Promise<RangeScanResult & { size: number }> {
  const fd = fs.openSync(file, 'r');
  try {
    const st = fs.fstatSync(fd);
    if (st.isDirectory()) throw Object.assign(new Error(`'${file}' is a directory`), { code: 'EISDIR' });
    const r = await scanRange(fd, catalog, (n, ms, line) => summary.add(n, ms, line), { ...opts, to: st.size });
    return { ...r, size: st.size };
  } finally {
    fs.closeSync(fd);
  }
}

// ---------------------------------------------------------------------------------------------
// Following a file

export type ResetKind = 'truncated' | 'replaced' | 'rotated';

export interface FollowState {
  /** Bytes scanned (the next scan starts here). */
  offset: number;
  /** Lines scanned. */
  lines: number;
  /** The file's size at the last check. */
  size: number;
  /** 'missing': the path is gone (deleted or rotated away); it is picked up again when it reappears. */
  state: 'scanning' | 'following' | 'missing' | 'stopped' | 'cancelled';
  resets: number;
  lastReset: ResetKind | undefined;
  truncatedLines: number;
}

export interface FollowerOptions {
  /** Keep watching after the first scan (default true). */
  follow?: boolean;
  /** How often the file is checked (default 1000 ms; fs.watch triggers a check sooner where it works). */
  pollMs?: number;
  /** After every scan that changed something (appended lines, a reset). */
  onUpdate?(): void;
  onProgress?(done: number, total: number): void;
  /** The first scan stops when this returns true (state 'cancelled'). */
  cancelled?(): boolean;
  onError?(e: unknown): void;
}

/** Bytes before the scanned offset that must be unchanged for an append (else: rewritten). */
const FINGERPRINT = 64;

/**
 * tail -F with the byte engine: `start()` scans the file (whole lines), then each check scans only
 * what was appended. A file that got shorter (truncated, copytruncate rotation) or whose last
 * scanned bytes changed (rewritten) is scanned again from the start, and so is a new file at the
 * path (rotation: the path names another inode); the summary is cleared first, so it always
 * describes the file now at the path.
 */
export class LogFollower {
  readonly summary: ScanSummary;
  readonly st: FollowState = { offset: 0, lines: 0, size: 0, state: 'scanning', resets: 0, lastReset: undefined, truncatedLines: 0 };
  private fd: number | undefined;
  private ino = -1;
  private dev = -1;
  private fingerprint = Buffer.alloc(0);
  private timer: NodeJS.Timeout | undefined;
  private watcher: fs.FSWatcher | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    readonly file: string,
    private readonly catalog: Catalog,
    summary: ScanSummary,
    private readonly opts: FollowerOptions = {},
  ) {
    this.summary = summary;
  }

  /** Opens the file and scans it; rejects when it cannot be opened (then nothing is watched). */
  async start(): Promise<void> {
    this.open();
    await this.scanNew(this.opts.onProgress, this.opts.cancelled);
    if (this.st.state === 'cancelled') {
      this.close();
      return;
    }
    if (this.opts.follow === false) {
      this.st.state = 'stopped';
      this.close();
      return;
    }
    this.st.state = 'following';
    this.timer = setInterval(() => void this.check(), Math.max(50, this.opts.pollMs ?? 1000));
    this.timer.unref?.();
    this.watch();
  }

  /** Looks at the file now (also run by the timer); overlapping calls coalesce. */
  check(): Promise<void> {
    if (this.st.state === 'stopped' || this.st.state === 'cancelled') return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.checkOnce();
        } while (this.again && this.st.state !== 'stopped');
      } catch (e) {
        this.opts.onError?.(e);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  stop(): void {
    this.st.state = 'stopped';
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.watcher?.close();
    this.watcher = undefined;
    this.close();
  }

  private open(): void {
    const fd = fs.openSync(this.file, 'r');
    let st: fs.Stats;
    try {
      st = fs.fstatSync(fd);
      if (st.isDirectory()) throw Object.assign(new Error(`'${this.file}' is a directory`), { code: 'EISDIR' });
    } catch (e) {
      fs.closeSync(fd);
      throw e;
    }
    this.close();
    this.fd = fd;
    this.ino = st.ino;
    this.dev = st.dev;
    this.st.size = st.size;
  }

  private close(): void {
    if (this.fd !== undefined) {
      try {
        fs.closeSync(this.fd);
      } catch {
        // already closed
      }
    }
    this.fd = undefined;
  }

  private watch(): void {
    try {
      this.watcher = fs.watch(this.file, { persistent: false }, () => void this.check());
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch {
      // no watcher (network file systems, ...): the timer is enough
    }
  }

  private reset(kind: ResetKind): void {
    this.summary.clear();
    this.st.offset = 0;
    this.st.lines = 0;
    this.st.truncatedLines = 0;
    this.st.resets++;
    this.st.lastReset = kind;
    this.fingerprint = Buffer.alloc(0);
  }

  private async checkOnce(): Promise<void> {
    let st: fs.Stats;
    try {
      st = fs.statSync(this.file);
    } catch {
      if (this.st.state === 'following') {
        this.st.state = 'missing';
        this.opts.onUpdate?.();
      }
      return;
    }
    if (this.fd === undefined || st.ino !== this.ino || st.dev !== this.dev) {
      // a new file at the path (rotation), or the path came back
      const wasMissing = this.st.state === 'missing';
      this.open();
      if (this.st.state === 'stopped') return this.close();
      this.reset('rotated');
      this.st.state = 'following';
      if (wasMissing) this.watcher?.close();
      if (wasMissing || !this.watcher) this.watch();
      await this.scanNew();
      this.opts.onUpdate?.();
      return;
    }
    this.st.size = st.size;
    if (st.size < this.st.offset) {
      this.reset('truncated');
    } else if (!this.unchangedBeforeOffset()) {
      this.reset('replaced');
    } else if (st.size === this.st.offset) {
      return;
    }
    const before = this.st.offset;
    const resets = this.st.resets;
    await this.scanNew();
    if (this.st.offset !== before || this.st.resets !== resets) this.opts.onUpdate?.();
  }

  /** The bytes just before the scanned offset are still what was scanned. */
  private unchangedBeforeOffset(): boolean {
    const n = this.fingerprint.length;
    if (n === 0 || this.fd === undefined) return true;
    const buf = Buffer.allocUnsafe(n);
    const got = fs.readSync(this.fd, buf, 0, n, this.st.offset - n);
    return got === n && buf.equals(this.fingerprint);
  }

  private async scanNew(onProgress?: (done: number, total: number) => void, cancelled?: () => boolean): Promise<void> {
    const fd = this.fd;
    if (fd === undefined) return;
    const size = fs.fstatSync(fd).size;
    this.st.size = size;
    const base = this.st.lines;
    const r = await scanRange(fd, this.catalog, (n, ms, line) => this.summary.add(base + n, ms, line), {
      from: this.st.offset,
      to: size,
      wholeLines: true,
      ...(onProgress ? { onProgress } : {}),
      cancelled: () => this.st.state === 'stopped' || (cancelled?.() ?? false),
    });
    if (r.cancelled) {
      if (this.st.state !== 'stopped') this.st.state = 'cancelled';
      return;
    }
    this.st.offset = r.end;
    this.st.lines += r.lines;
    this.st.truncatedLines += r.truncatedLines;
    const n = Math.min(FINGERPRINT, r.end);
    if (this.fd !== undefined && n > 0) {
      const fp = Buffer.allocUnsafe(n);
      this.fingerprint = fp.subarray(0, fs.readSync(this.fd, fp, 0, n, r.end - n));
    }
  }
}
