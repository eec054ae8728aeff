// Compact, columnar rows of the dataset index for 500k-row selections. What stays in memory per
// row is what matching and lookups need: the id (bytes in one Buffer), the error code (interned),
// the repository (an index), the severity, and where the row's JSON lies in the prepared rows file
// (index.rows). Everything else (message, slug, class, tags, ...) is read back from that file
// when a record is shown: record(row) reads one row (a few hundred bytes) and makes a LiteRecord,
// cached in a small LRU so the records of a busy log are made once.
//
// Lookups: id -> row and lowercased slug -> rows go through hash chains (two Int32Arrays each);
// lowercased error code -> rows through a Map (codes repeat, few rows have one).
import * as fs from 'node:fs';
import { captureNames } from '../pattern';
import type { Severity } from '../record';
import { SEVERITIES } from '../record';
import { Interner, liteFromRow, LiteRecord, toSeverity } from './lite';

const HEX16 = /^[0-9a-f]{16}$/;

/** A row of the prepared form: [id, slug, code, msg, pattern, type, cls, tags, sev]. */
export type PackedRow = [string, string, string | null, string, string, string, string | null, string[], string];

/** FNV-1a over UTF-16 units. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Rows by a 32-bit hash: head[bucket] -> row, next[row] -> row (-1 ends a chain). */
class HashChains {
  private readonly head: Int32Array;
  private readonly next: Int32Array;
  private readonly mask: number;
  constructor(rows: number) {
    let size = 16;
    while (size < rows) size *= 2;
    this.head = new Int32Array(size).fill(-1);
    this.next = new Int32Array(Math.max(1, rows));
    this.mask = size - 1;
  }
  add(hash: number, row: number): void {
    const b = hash & this.mask;
    this.next[row] = this.head[b]!;
    this.head[b] = row;
  }
  /** Rows in the bucket of `hash` (callers verify), newest first. */
  bucket(hash: number, out: number[] = []): number[] {
    for (let r = this.head[hash & this.mask]!; r >= 0; r = this.next[r]!) out.push(r);
    return out;
  }
  get bytes(): number {
    return this.head.byteLength + this.next.byteLength;
  }
}

interface Cached {
  record: LiteRecord;
  names: string[] | undefined;
}

const RECORD_CACHE = 4096;

export class DatasetRows {
  /** Rows added so far. */
  count = 0;
  readonly capacity: number;
  private readonly repos: string[] = [];
  private readonly repoIndex = new Map<string, number>();
  private readonly repoOf: Uint16Array | Uint32Array;
  private readonly offset: Uint32Array | Float64Array;
  private readonly length: Uint16Array;
  /** Lengths of rows of 64 KiB or more. */
  private readonly longRows = new Map<number, number>();
  /** Ids of 16 lowercase hex digits (ErrLookup's), as two 32-bit halves per row ... */
  private readonly hexIds: Uint32Array;
  /** ... and every other id as it is. */
  private readonly otherIds = new Map<number, string>();
  private codeOf: Uint16Array | Uint32Array;
  private readonly codes: (string | null)[] = [null];
  private readonly codeIndex = new Map<string, number>();
  private readonly sev: Uint8Array;
  private readonly byId: HashChains;
  private readonly bySlug: HashChains;
  private readonly byCode = new Map<string, number[]>();
  private readonly cache = new Map<number, Cached>();
  private readonly intern = new Interner();
  private fd: number | undefined;
  private readBuf = Buffer.alloc(4096);
  /** Patterns of rows being built into an engine shard (read by its entries during the build). */
  private pending: { start: number; patterns: string[] } | undefined;

  constructor(
    readonly file: string,
    capacity: number,
    repoCount = 0xffff,
  ) {
    this.capacity = capacity;
    this.fd = fs.openSync(file, 'r');
    const size = fs.fstatSync(this.fd).size;
    this.repoOf = repoCount < 0xffff ? new Uint16Array(capacity) : new Uint32Array(capacity);
    this.offset = size < 2 ** 32 ? new Uint32Array(capacity) : new Float64Array(capacity);
    this.length = new Uint16Array(capacity);
    this.hexIds = new Uint32Array(capacity * 2);
    this.codeOf = new Uint16Array(capacity);
    this.sev = new Uint8Array(capacity);
    this.byId = new HashChains(capacity);
    this.bySlug = new HashChains(capacity);
  }

  private codeIndexOf(code: string): number {
    let ci = this.codeIndex.get(code);
    if (ci === undefined) {
      ci = this.codes.length;
      this.codes.push(code);
      this.codeIndex.set(code, ci);
      if (ci > 0xffff && this.codeOf instanceof Uint16Array) this.codeOf = Uint32Array.from(this.codeOf);
    }
    return ci;
  }

  /** Add a row whose JSON is `length` bytes at `offset` of the rows file; returns its index. */
  add(p: PackedRow, repo: string, offset: number, length: number): number {
    const row = this.count;
    if (row >= this.capacity) throw new Error('more rows than the head announced');
    let ri = this.repoIndex.get(repo);
    if (ri === undefined) {
      ri = this.repos.length;
      this.repos.push(repo);
      this.repoIndex.set(repo, ri);
    }
    this.repoOf[row] = ri;
    this.offset[row] = offset;
    if (length < 0xffff) this.length[row] = length;
    else {
      this.length[row] = 0xffff;
      this.longRows.set(row, length);
    }
    const id = p[0];
    if (HEX16.test(id)) {
      this.hexIds[2 * row] = parseInt(id.slice(0, 8), 16);
      this.hexIds[2 * row + 1] = parseInt(id.slice(8), 16);
    } else this.otherIds.set(row, id);
    const code = p[2];
    if (code !== null) {
      const ci = this.codeIndexOf(code); // (may widen codeOf: index after the call) '' stays distinct from null
      this.codeOf[row] = ci;
      if (code !== '') {
        const key = code.toLowerCase();
        const list = this.byCode.get(key);
        if (list) list.push(row);
        else this.byCode.set(key, [row]);
      }
    }
    this.sev[row] = SEVERITIES.indexOf(toSeverity(p[8]));
    this.byId.add(hashString(id), row);
    if (p[1]) this.bySlug.add(hashString(p[1].toLowerCase()), row);
    this.count = row + 1;
    return row;
  }

  id(row: number): string {
    if (this.otherIds.size > 0) {
      const other = this.otherIds.get(row);
      if (other !== undefined) return other;
    }
    return this.hexIds[2 * row]!.toString(16).padStart(8, '0') + this.hexIds[2 * row + 1]!.toString(16).padStart(8, '0');
  }

  errorCode(row: number): string | null {
    return this.codes[this.codeOf[row]!] ?? null;
  }

  repo(row: number): string {
    return this.repos[this.repoOf[row]!]!;
  }

  /** Index of the row's severity in SEVERITIES (most severe first). */
  severityRank(row: number): number {
    return this.sev[row]!;
  }

  severity(row: number): Severity {
    return SEVERITIES[this.sev[row]!] ?? 'error';
  }

  /** Rows whose id is `id` (at most one unless the index repeats an id). */
  rowsWithId(id: string): number[] {
    const out: number[] = [];
    for (const r of this.byId.bucket(hashString(id))) if (r < this.count && this.id(r) === id) out.push(r);
    return out.reverse();
  }

  /** Rows whose slug equals `slug` case-insensitively (verified against the rows file). */
  rowsWithSlug(slug: string): number[] {
    const key = slug.toLowerCase();
    const out: number[] = [];
    for (const r of this.bySlug.bucket(hashString(key))) if (r < this.count && this.record(r).slug.toLowerCase() === key) out.push(r);
    return out.reverse();
  }

  /** Rows whose error code equals `code` case-insensitively. */
  rowsWithCode(code: string): readonly number[] {
    return this.byCode.get(code.toLowerCase()) ?? [];
  }

  /** The LiteRecord of a row (read from the rows file; recently used ones are cached). */
  record(row: number): LiteRecord {
    return this.cached(row).record;
  }

  /** The record of a row without putting it in the cache (bulk reads). */
  peek(row: number): LiteRecord {
    return this.cache.get(row)?.record ?? this.readRecord(row);
  }

  /** Capture names of a row's pattern (placeholder names of its message, as Catalog computes them). */
  captureNames(row: number): string[] {
    const c = this.cached(row);
    if (c.names === undefined) {
      try {
        c.names = captureNames(c.record.errorMessage ?? '', c.record.messagePattern);
      } catch {
        c.names = [];
      }
    }
    return c.names;
  }

  /** A row's pattern: from the shard being built, else from the rows file. */
  pattern(row: number): string {
    const p = this.pending;
    if (p && row >= p.start && row < p.start + p.patterns.length) return p.patterns[row - p.start]!;
    return this.record(row).messagePattern;
  }

  setPending(start: number, patterns: string[] | undefined): void {
    this.pending = patterns ? { start, patterns } : undefined;
  }

  private cached(row: number): Cached {
    const hit = this.cache.get(row);
    if (hit) {
      this.cache.delete(row);
      this.cache.set(row, hit);
      return hit;
    }
    const c: Cached = { record: this.readRecord(row), names: undefined };
    this.cache.set(row, c);
    if (this.cache.size > RECORD_CACHE) this.cache.delete(this.cache.keys().next().value!);
    return c;
  }

  private readRecord(row: number): LiteRecord {
    const repo = this.repo(row);
    let fd = this.fd;
    try {
      // closed (a replaced catalog still answering a request in flight): open for this read only
      if (fd === undefined) fd = fs.openSync(this.file, 'r');
      const len = this.length[row] === 0xffff ? this.longRows.get(row)! : this.length[row]!;
      if (this.readBuf.length < len) this.readBuf = Buffer.alloc(Math.max(len, this.readBuf.length * 2));
      const got = fs.readSync(fd, this.readBuf, 0, len, this.offset[row]!);
      if (got !== len) throw new Error('short read');
      const p = JSON.parse(this.readBuf.toString('utf8', 0, len)) as PackedRow;
      if (p[0] !== this.id(row)) throw new Error('row moved');
      return liteFromRow({ id: p[0], repo, slug: p[1], code: p[2], msg: p[3], pattern: p[4], type: p[5], cls: p[6], tags: p[7], sev: p[8] }, this.intern);
    } catch {
      // the rows file went away or changed under us (a sync replaced the version): what memory has
      return liteFromRow({ id: this.id(row), repo, slug: this.id(row), code: this.errorCode(row), msg: '', pattern: '', type: 'exception', cls: null, tags: [], sev: this.severity(row) }, this.intern);
    } finally {
      if (fd !== undefined && fd !== this.fd) fs.closeSync(fd);
    }
  }

  /** Bytes held by the columns and lookup tables (not the LRU of records). */
  get bytes(): number {
    return (
      this.repoOf.byteLength + this.offset.byteLength + this.length.byteLength + this.hexIds.byteLength +
      this.codeOf.byteLength + this.sev.byteLength + this.byId.bytes + this.bySlug.bytes
    );
  }

  close(): void {
    if (this.fd !== undefined) {
      try {
        fs.closeSync(this.fd);
      } catch {
        // already closed
      }
      this.fd = undefined;
    }
    this.cache.clear();
  }
}

/**
 * Byte ranges of the rows of a block `[[...],[...],...]` (UTF-8): start and end (exclusive) of
 * each row array, relative to the block. Strings are skipped (escapes honoured).
 */
export function rowRanges(buf: Buffer, from: number, to: number, out: number[] = []): number[] {
  let depth = 0;
  let inString = false;
  let start = 0;
  for (let i = from; i < to; i++) {
    const c = buf[i]!;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth === 2) start = i;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth === 2) out.push(start - from, i + 1 - from);
      depth--;
    }
  }
  return out;
}
