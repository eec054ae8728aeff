// The compiled index cache (issue 11, item 5), one for `scan` and the language server: the records
// a load read (validated and merged) and its built match engine (patterns, byte index, WebAssembly
// chain table), stored once under the user's cache folder, so the next scan or server start with
// the same record files starts without parsing, validating, classifying or indexing anything.
// (index.ts: when a load goes through the cache; this file: the key and the file format.)
//
// Key: sha256 of the cache format, the running program's own code (the bundle's bytes: a new build
// never reads an old build's index; dist/cli.js and dist/server.js have entries of their own),
// whether bundled records are included, and every record source: its origin, path, the folders it
// may read from (a server source's bounds), and each of its files' path, size and sha256 of its
// content. A changed,
// added or removed record file is a different key; the old file is evicted later (the newest
// MAX_ENTRIES stay).
//
// File: "EEIDX\x01\n", u32 header length, header JSON {format, key, sections: [{name, length,
// sha256}]}, then the sections in order. Every section's sha256 is verified before anything of it
// is used; a file that is truncated, has a flipped byte, another format or another key is not used
// (the scan loads and builds as if there were no cache, and writes a good one). Writes go to a
// temporary file renamed into place, so a reader sees the old file or the new one, never half.
//
// What the engine needs of every record (id, pattern, capture names, error code), and its error
// class, is one text (entryTable.ts): it is decoded at start, each entry's strings on their first
// read. Records come back lazily: the fields matching, ranking, confidence and the json/count
// output use ("lite") are parsed from the record's own row the first time the record is read; the
// rest (documentation, solutions, source code…: the "heavy" fields) from the records file, the
// first time one of them is read (text and sarif output, once per record shown).
//
// Writing streams: each record's rows are encoded into one reused buffer that is hashed and written
// as it fills, so a cold scan neither holds a second copy of the records as bytes nor concatenates
// them. The one writer is a generator that pauses between groups of records: `writeCache` runs it
// to the end (the CLI, after its scan), `writeCacheAsync` in time slices with event-loop turns
// between them (the language server answers requests meanwhile).
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, promises as fsp, readFileSync, readdirSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import { Catalog, engineEntry } from '../catalog';
import { type EngineEntry, type EngineSnapshot, MatchEngine } from '../engine';
import type { FileDigest } from '../load';
import { type ErrorRecord, LITE_FIELDS, PROSE_FIELDS, type RecordOrigin, type RecordProblem } from '../record';
import { listRecordFiles } from '../load/walk';
import { indexCacheDir } from '../cacheDirs';

export { indexCacheDir };
import { runInSlices, runSteps } from '../slices';
import { type ScanColumns, type ScanExtra, emptyExtra, setExtra, validColumns } from '../scanColumns';
import { type EntrySections, decodeEntries, encodeEntrySteps } from './entryTable';

const MAGIC = Buffer.from('EEIDX\x01\n', 'latin1');
/** Bump when the file layout or what a section holds changes. */
const FORMAT = 10;
/** Cache files kept (newest first by modification time); older ones are removed after a write. */
const MAX_ENTRIES = 4;
/** Record sources smaller than this load faster than a cache file is read: not cached. */
export const DEFAULT_MIN_BYTES = 2 << 20;

// A record's lite row (decoded with the index: what matching, ranking, confidence and json/count
// output read) holds its LITE_FIELDS, its heavy row (parsed on first use) its PROSE_FIELDS.

export interface CacheSource {
  origin: RecordOrigin;
  path: string;
  /** Folders the source may read from, symlinks resolved (loader LoadOptions.within); a link out
   * of them means no cache (the loader reports it). */
  within?: readonly string[];
}

/** What a cached load gives back (as cli/records.ts loadCatalog returns it). */
export interface CachedLoad {
  catalog: Catalog;
  problems: RecordProblem[];
  sources: { origin: RecordOrigin; path: string; records: number }[];
  /** What a scan reads of a matched record (core/scanColumns), restored from the cache: then the
   * scan scores and counts matches without reading records. */
  scanColumns?: ScanColumns;
  /** Restored from the cache: which prefilters its engine snapshot held (refreshEngine adds one a
   * later run built). */
  stored?: { bytes: boolean; strings: boolean };
}

/** One record file as the key names it. */
interface KeyFile {
  file: string;
  size: number;
  sha256: string;
}

/** The key: the one definition (a first load's digests and a later run's hashes give the same). */
function keyOf(noBundled: boolean, sources: readonly { origin: RecordOrigin; path: string; within?: readonly string[] | undefined; files: readonly KeyFile[] }[]): string {
  const h = createHash('sha256');
  h.update(`format ${FORMAT}\0`);
  h.update(codeHash());
  h.update(`\0bundled ${noBundled ? 0 : 1}\0`);
  for (const s of sources) {
    h.update(`source\0${s.origin}\0${path.resolve(s.path)}\0`);
    if (s.within) for (const w of s.within) h.update(`within\0${path.resolve(w)}\0`);
    for (const f of s.files) h.update(`file\0${f.file}\0${f.size}\0${f.sha256}\0`);
  }
  return h.digest('hex');
}

export type CacheKey =
  | { key: string; bytes: number; rememberHashes: () => void }
  /** A file no run has hashed yet (no cache can hold it): load it with `digests` and take the key
   * from the bytes the load read (keyFromDigests), instead of reading every file once more here. */
  | { deferred: true; bytes: number };

/** The key of a set of record sources, and their total size; undefined when a source cannot be
 * listed or read. `deferUnknown`: see CacheKey. */
export async function cacheKey(sources: readonly CacheSource[], noBundled: boolean, dir?: string, opts: { deferUnknown?: boolean } = {}): Promise<CacheKey | undefined> {
  const known = knownHashes(dir);
  let bytes = 0;
  let deferred = false;
  const listed: { origin: RecordOrigin; path: string; within?: readonly string[] | undefined; files: KeyFile[] }[] = [];
  for (const s of sources) {
    // a source that is not there (a records.paths entry that names no file) loads nothing but
    // its problem: listed with no files, so the others stay cached and its file, once it is
    // there, makes another key
    if (!existsSync(s.path)) {
      listed.push({ origin: s.origin, path: s.path, within: s.within, files: [] });
      continue;
    }
    const walked = await listRecordFiles(s.path, s.within ? { within: s.within } : {});
    if (walked.problems.length) return undefined; // links refused etc.: the loader reports them; no cache
    const files: KeyFile[] = [];
    for (const f of walked.files) {
      if (opts.deferUnknown && !deferred && unknownFile(f, known)) deferred = true;
      if (deferred) {
        try {
          bytes += statSync(f).size;
        } catch {
          return undefined;
        }
        continue;
      }
      const got = fileHash(f, known);
      if (!got) return undefined;
      bytes += got.size;
      files.push({ file: f, ...got });
    }
    listed.push({ origin: s.origin, path: s.path, within: s.within, files });
  }
  if (deferred) return { deferred: true, bytes };
  // (saved only by a caller that caches this set: small sets leave no file behind)
  return { key: keyOf(noBundled, listed), bytes, rememberHashes: () => dir && known.changed && saveKnownHashes(dir, known) };
}

/** The key of what a load read: `files` per source as the load listed them, each with its digest
 * (loader LoadOptions.digests), and the remembered hashes updated; undefined when a file has none
 * (not a regular file, not read). */
export function keyFromDigests(
  sources: readonly { origin: RecordOrigin; path: string; within?: readonly string[] | undefined; files: readonly string[] }[],
  noBundled: boolean,
  digests: ReadonlyMap<string, FileDigest>,
  dir: string,
): { key: string; rememberHashes: () => void } | undefined {
  const listed: { origin: RecordOrigin; path: string; within?: readonly string[] | undefined; files: KeyFile[] }[] = [];
  const known = knownHashes(dir);
  for (const s of sources) {
    const files: KeyFile[] = [];
    for (const f of s.files) {
      const d = digests.get(f);
      if (!d) return undefined;
      files.push({ file: f, size: d.size, sha256: d.sha256 });
      if (d.unchanged) {
        try {
          known.files[realpathSync(f)] = { size: d.size, mtimeMs: d.mtimeMs, ino: d.ino, sha256: d.sha256, hashedAt: d.hashedAt };
          known.changed = true;
        } catch {
          // gone: not remembered
        }
      }
    }
    listed.push({ origin: s.origin, path: s.path, within: s.within, files });
  }
  return { key: keyOf(noBundled, listed), rememberHashes: () => known.changed && saveKnownHashes(dir, known) };
}

/** Content hashes of record files seen before, by real path: reused while the file's size,
 * modification time and inode are those it had when it was hashed, and that time was more than
 * RACY_MS before the hash was taken (a file written again within the same clock tick as its last
 * hash is hashed again: git's racy-timestamp rule). */
interface KnownHashes {
  files: Record<string, { size: number; mtimeMs: number; ino: number; sha256: string; hashedAt: number }>;
  changed: boolean;
}

const RACY_MS = 2000;

function knownHashes(dir: string | undefined): KnownHashes {
  if (!dir) return { files: {}, changed: false };
  try {
    const v = JSON.parse(readFileSync(path.join(dir, 'hashes.json'), 'utf8')) as { format?: number; files?: KnownHashes['files'] };
    if (v && v.format === FORMAT && v.files && typeof v.files === 'object') return { files: v.files, changed: false };
  } catch {
    // none yet, or unreadable: hash every file
  }
  return { files: {}, changed: false };
}

function saveKnownHashes(dir: string, known: KnownHashes): void {
  try {
    mkdirSync(dir, { recursive: true });
    const target = path.join(dir, 'hashes.json');
    const tmp = `${target}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ format: FORMAT, files: known.files }));
    renameSync(tmp, target);
  } catch {
    // the next run hashes again
  }
}

function fileHash(file: string, known: KnownHashes): { size: number; sha256: string } | undefined {
  try {
    const real = realpathSync(file);
    const st = statSync(real);
    const k = known.files[real];
    if (k && k.size === st.size && k.mtimeMs === st.mtimeMs && k.ino === st.ino && k.hashedAt - st.mtimeMs > RACY_MS && /^[0-9a-f]{64}$/.test(k.sha256)) {
      return { size: k.size, sha256: k.sha256 };
    }
    const hashedAt = Date.now();
    const data = readFileSync(real);
    const sha256 = createHash('sha256').update(data).digest('hex');
    known.files[real] = { size: data.length, mtimeMs: st.mtimeMs, ino: st.ino, sha256, hashedAt };
    known.changed = true;
    return { size: data.length, sha256 };
  } catch {
    return undefined;
  }
}

/** No hash is remembered for this file at all (a file seen before but changed since is hashed:
 * its content may still be that of a cache entry). */
function unknownFile(file: string, known: KnownHashes): boolean {
  try {
    return known.files[realpathSync(file)] === undefined;
  } catch {
    return false; // fileHash says why it cannot be read
  }
}

let codeHashCache: string | undefined;
/** sha256 of this program's code (the bundle, dist/cli.js, when bundled). */
function codeHash(): string {
  if (codeHashCache === undefined) {
    let code: Buffer;
    try {
      code = readFileSync(__filename);
    } catch {
      code = Buffer.from('unknown');
    }
    codeHashCache = createHash('sha256').update(code).digest('hex');
  }
  return codeHashCache;
}

function fileOf(dir: string, key: string): string {
  return path.join(dir, `${key}.eeidx`);
}

/** The full records of a cache entry: a file of their own, read only when full records are needed. */
function recordsFileOf(dir: string, key: string): string {
  return path.join(dir, `${key}.eerec`);
}

interface Header {
  format: number;
  key: string;
  sections: { name: string; length: number; sha256: string }[];
  /** The .eerec file: the records' JSON, one after the other; null: an entry without it (written
   * by a scan that reads no record's prose: a run that does is a miss, 'lite-only', and writes a
   * full entry). */
  records: { length: number; sha256: string } | null;
}

/** Why a cache file was not used (for --verbose style messages and tests); undefined: used. */
export type CacheMiss = 'absent' | 'unreadable' | 'magic' | 'header' | 'format' | 'key' | 'truncated' | 'checksum' | 'content' | 'lite-only';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A cache file's header and where its sections start, or why it is not usable. */
function headerOf(buf: Buffer, key: string): { header: Header; at: number } | { miss: CacheMiss } {
  if (buf.length < MAGIC.length + 4 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return { miss: 'magic' };
  const headerLength = buf.readUInt32LE(MAGIC.length);
  const at = MAGIC.length + 4;
  if (at + headerLength > buf.length) return { miss: 'truncated' };
  let header: Header;
  try {
    header = JSON.parse(buf.toString('utf8', at, at + headerLength)) as Header;
  } catch {
    return { miss: 'header' };
  }
  if (!header || typeof header !== 'object' || !Array.isArray(header.sections) || header.records === undefined || (header.records !== null && typeof header.records.length !== 'number')) return { miss: 'header' };
  // (each section named, with a length and a sha256: a section checked later has its checksum)
  if (!header.sections.every((x) => x && typeof x.name === 'string' && typeof x.length === 'number' && typeof x.sha256 === 'string' && SHA256_HEX.test(x.sha256))) return { miss: 'header' };
  if (header.format !== FORMAT) return { miss: 'format' };
  if (header.key !== key) return { miss: 'key' };
  return { header, at: at + headerLength };
}

/** Byte ranges [start, end) whose sha256 a reader worked out as it read them (readHashed), by
 * `${start}:${end}`. */
export type RangeDigests = Map<string, string>;
const rangeOf = (start: number, end: number): string => `${start}:${end}`;

/** The sha256 of buf[start, end): as the reader worked it out, else now. */
function digestOf(buf: Buffer, start: number, end: number, digests: RangeDigests | undefined): string {
  return digests?.get(rangeOf(start, end)) ?? createHash('sha256').update(buf.subarray(start, end)).digest('hex');
}

/** The section whose check waits for its first read when a scan that reads no prose asks
 * (ReadOptions.lazyCheck): the records' lite rows (two thirds of the file at 100k records; a count
 * or json scan reads a few rows, often none), so that its start-up does not hash 43 MB it may
 * never read. The language server checks all at load (off its requests' path). */
const DEFERRED = 'lite';

/** A parsed file: its header, its sections, and `unchecked`: the check of DEFERRED when it was
 * left to the first read (true: its sha256 holds). */
interface ParsedFile {
  header: Header;
  sections: Map<string, Buffer>;
  unchecked?: () => boolean;
}

/** A cache file's header and sections (each verified against its sha256), or why it is not
 * usable. `digests`: the sections' digests worked out while the file was read. `defer`: DEFERRED
 * is checked at its first read (ParsedFile.unchecked), not now. */
function parseFile(buf: Buffer, key: string, digests?: RangeDigests, defer = false): ParsedFile | { miss: CacheMiss } {
  const head = headerOf(buf, key);
  if ('miss' in head) return head;
  const { header } = head;
  let at = head.at;
  const sections = new Map<string, Buffer>();
  let unchecked: (() => boolean) | undefined;
  for (const s of header.sections) {
    if (typeof s.length !== 'number' || s.length < 0 || at + s.length > buf.length) return { miss: 'truncated' };
    if (defer && s.name === DEFERRED && !unchecked) {
      const [from, to, sha] = [at, at + s.length, s.sha256];
      unchecked = () => digestOf(buf, from, to, digests) === sha;
    } else if (digestOf(buf, at, at + s.length, digests) !== s.sha256) return { miss: 'checksum' };
    sections.set(s.name, buf.subarray(at, at + s.length));
    at += s.length;
  }
  if (at !== buf.length) return { miss: 'truncated' };
  return unchecked ? { header, sections, unchecked } : { header, sections };
}

/** Bytes read per call of readHashed. */
const READ_CHUNK = 8 << 20;

/**
 * A file's bytes read in chunks, the read of each (in the thread pool) overlapping the hashing of
 * the bytes before it: the digests of the ranges `ranges(head, size)` names (from the first chunk:
 * a cache file's header, or the whole file), as digestOf would work them out after a whole read.
 * 400 MB (a 500k-record entry): read then hashed 516-569 ms, overlapped 359-437 ms. Rejects as
 * readFileSync throws; a file that shrinks meanwhile gives the bytes there were. (Exported for
 * its test, with a small `chunk`.)
 */
export async function readHashed(file: string, ranges: (head: Buffer, size: number) => [number, number][], chunk = READ_CHUNK): Promise<{ buf: Buffer; digests: RangeDigests }> {
  const fh = await fsp.open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const buf = Buffer.allocUnsafe(size);
    const digests: RangeDigests = new Map();
    let todo: [number, number][] | undefined;
    let k = 0;
    let hash = createHash('sha256');
    let hashed = 0; // bytes of range k hashed so far
    let have = 0;
    let next = size > 0 ? fh.read(buf, 0, Math.min(chunk, size), 0) : undefined;
    while (next) {
      const { bytesRead } = await next;
      if (bytesRead <= 0) return { buf: buf.subarray(0, have), digests };
      have += bytesRead;
      next = have < size ? fh.read(buf, have, Math.min(chunk, size - have), have) : undefined;
      todo ??= ranges(buf.subarray(0, have), size);
      // (each range's bytes hashed as they come; its digest once all of them are there)
      while (k < todo.length) {
        const [start, end] = todo[k]!;
        const upTo = Math.min(end, have);
        if (upTo > start + hashed) {
          hash.update(buf.subarray(start + hashed, upTo));
          hashed = upTo - start;
        }
        if (start + hashed < end) break;
        digests.set(rangeOf(start, end), hash.digest('hex'));
        k++;
        hash = createHash('sha256');
        hashed = 0;
      }
    }
    return { buf, digests };
  } finally {
    await fh.close();
  }
}

/** How a cache file is read. full: the records file is read and verified now (else at the first
 * read of a heavy field). lazyCheck (not full): DEFERRED is checked at its first read. */
export interface ReadOptions {
  full?: boolean;
  lazyCheck?: boolean;
}

const deferred = (opts: ReadOptions): boolean => !opts.full && opts.lazyCheck === true;

/** The ranges of a cache file's sections, from its first bytes (none when its header does not
 * read: parseFile then says why). */
function sectionRanges(head: Buffer, key: string, defer: boolean): [number, number][] {
  const h = headerOf(head, key);
  if ('miss' in h) return [];
  const out: [number, number][] = [];
  let at = h.at;
  for (const s of h.header.sections) {
    if (typeof s.length !== 'number' || s.length < 0) break;
    // (a deferred section is hashed at its first read, if any)
    if (!(defer && s.name === DEFERRED)) out.push([at, at + s.length]);
    at += s.length;
  }
  return out;
}

/** The cached load of `key` from `dir`, or why there is none. Never throws. `full`: the caller
 * reads records' prose (text, sarif): the records file is read and verified now; otherwise the
 * first read of a heavy field does it (and throws a clear error when it fails). The file read
 * whole, then hashed: the reference readCacheAsync (what loads restore through) is tested
 * against; both share every check. */
export function readCache(dir: string, key: string, opts: ReadOptions = {}): { load: CachedLoad } | { miss: CacheMiss } {
  let buf: Buffer;
  try {
    buf = readFileSync(fileOf(dir, key));
  } catch (e) {
    return { miss: unreadable(e) };
  }
  const file = parseFile(buf, key, undefined, deferred(opts));
  if ('miss' in file) return file;
  const blob = blobOf(dir, key, file.header);
  const why = blob && opts.full ? blob.load() : undefined;
  return why ? { miss: why } : restored(fileOf(dir, key), file, blob, opts);
}

/** readCache with the reads overlapping the hashing (readHashed): what the CLI and the language
 * server restore through. The same checks, the same answers. */
export async function readCacheAsync(dir: string, key: string, opts: ReadOptions = {}): Promise<{ load: CachedLoad } | { miss: CacheMiss }> {
  let got: { buf: Buffer; digests: RangeDigests };
  try {
    got = await readHashed(fileOf(dir, key), (head) => sectionRanges(head, key, deferred(opts)));
  } catch (e) {
    return { miss: unreadable(e) };
  }
  const file = parseFile(got.buf, key, got.digests, deferred(opts));
  if ('miss' in file) return file;
  const blob = blobOf(dir, key, file.header);
  const why = blob && opts.full ? await blob.loadAsync() : undefined;
  return why ? { miss: why } : restored(fileOf(dir, key), file, blob, opts);
}

const unreadable = (e: unknown): CacheMiss => ((e as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : 'unreadable');

/** The records file an entry's header names (undefined: a lite-only entry). */
function blobOf(dir: string, key: string, header: Header): RecordsBlob | undefined {
  return header.records ? new RecordsBlob(recordsFileOf(dir, key), header.records.length, header.records.sha256) : undefined;
}

/** A parsed, verified file (its deferred section, if any, checked at its first read) of
 * `indexFile` as the load it holds (`full`: its records file was loaded and verified already), or
 * why not. */
function restored(indexFile: string, file: ParsedFile, blob: RecordsBlob | undefined, opts: { full?: boolean }): { load: CachedLoad } | { miss: CacheMiss } {
  if (!blob) {
    if (opts.full) return { miss: 'lite-only' };
  } else if (!opts.full) {
    const size = blob.size();
    if (size === undefined) return { miss: 'absent' };
    if (size !== file.header.records!.length) return { miss: 'truncated' };
  }
  try {
    return { load: decode(file.sections, blob, file.unchecked && deferredCheck(indexFile, file.unchecked)) };
  } catch {
    return { miss: 'content' };
  }
}

/** The records file of a cache entry, read and verified once, when first needed. */
class RecordsBlob {
  private data: Buffer | undefined;
  constructor(
    private readonly file: string,
    private readonly length: number,
    private readonly sha256: string,
  ) {}

  /** Reads and verifies the file; the reason it is not usable, or undefined. */
  load(): CacheMiss | undefined {
    if (this.data) return undefined;
    let data: Buffer;
    try {
      data = readFileSync(this.file);
    } catch (e) {
      return unreadable(e);
    }
    return this.take(data);
  }

  /** load(), the read overlapping the hashing (readHashed). */
  async loadAsync(): Promise<CacheMiss | undefined> {
    if (this.data) return undefined;
    let got: { buf: Buffer; digests: RangeDigests };
    try {
      got = await readHashed(this.file, (_head, size) => [[0, size]]);
    } catch (e) {
      return unreadable(e);
    }
    return this.take(got.buf, got.digests);
  }

  /** Keep the file's bytes when they are what the header says. */
  private take(data: Buffer, digests?: RangeDigests): CacheMiss | undefined {
    if (data.length !== this.length) return 'truncated';
    if (digestOf(data, 0, data.length, digests) !== this.sha256) return 'checksum';
    this.data = data;
    return undefined;
  }

  /** The file's size now (undefined: it is gone). */
  size(): number | undefined {
    try {
      return statSync(this.file).size;
    } catch {
      return undefined;
    }
  }

  /** The verified bytes; throws (naming the file and what to do) when they cannot be had. */
  bytes(): Buffer {
    const why = this.load();
    if (why) {
      try {
        unlinkSync(this.file); // the next run writes a good one
      } catch {
        // already gone
      }
      throw new Error(`the index cache's record file ${this.file} is ${why === 'absent' ? 'missing' : why === 'checksum' ? 'corrupted' : why}: it was removed; run again (or use --no-cache)`);
    }
    return this.data!;
  }
}

interface Meta {
  problems: RecordProblem[];
  sources: CachedLoad['sources'];
  count: number;
}

/** The check of a section left to its first read (ParsedFile.unchecked), run once: when the
 * bytes are not what the header says, the file is removed (the next run writes a good one) and
 * the read fails with a clear error, as a corrupted records file does (RecordsBlob.bytes). */
function deferredCheck(file: string, holds: () => boolean): () => void {
  let state: boolean | undefined;
  const why = `the index cache file ${file} is corrupted: it was removed; run again (or use --no-cache)`;
  return () => {
    if (state === undefined) {
      state = holds();
      if (!state) {
        try {
          unlinkSync(file); // the next run writes a good one
        } catch {
          // already gone
        }
      }
    }
    if (!state) throw new Error(why);
  };
}

/** `checkLite`: the lite rows' deferred check, before the first row is parsed. */
function decode(sections: Map<string, Buffer>, blob: RecordsBlob | undefined, checkLite?: () => void): CachedLoad {
  const need = (name: string): Buffer => {
    const s = sections.get(name);
    if (!s) throw new Error(`no ${name} section`);
    return s;
  };
  const meta = JSON.parse(need('meta').toString('utf8')) as Meta;
  const n = meta.count;
  // lite rows: one JSON array per record (its LITE_FIELDS), parsed when the record is first read
  const liteText = need('lite');
  const liteAt = v8.deserialize(need('liteOffsets')) as Float64Array;
  const offsets = v8.deserialize(need('recordOffsets')) as Float64Array;
  const snapshot = v8.deserialize(need('engine')) as EngineSnapshot;
  const stored = { bytes: snapshot.bytes !== undefined, strings: snapshot.strings !== undefined };
  if (!(liteAt instanceof Float64Array) || !(offsets instanceof Float64Array) || liteAt.length !== n + 1 || offsets.length !== n + 1 || liteAt[n] !== liteText.length) throw new Error('record count');
  // (each entry's strings made on its first read)
  const at = v8.deserialize(need('entryAt')) as Partial<EntrySections> | null;
  const table = decodeEntries({ text: need('entries'), at: at?.at as Int32Array, nulls: at?.nulls as Uint8Array, encoding: at?.encoding as EntrySections['encoding'] }, n);
  const entries = table.entries;
  const store: Store = { blob, offsets };
  const records = lazyList<ErrorRecord>(n, (i) => {
    checkLite?.();
    return lazyRecord(JSON.parse(liteText.toString('utf8', liteAt[i]!, liteAt[i + 1]!)) as unknown[], store, i);
  });
  const engine = MatchEngine.restore(entries, snapshot);
  const scan = v8.deserialize(need('scan')) as ScanExtra;
  const scanColumns = { entries, errorClass: table.errorClass, specificity: scan?.specificity, flags: scan?.flags };
  if (!validColumns(scanColumns, n)) throw new Error('scan columns');
  return { catalog: new Catalog(records, engine), problems: meta.problems, sources: meta.sources, scanColumns, stored };
}

interface Store {
  /** undefined: a lite-only entry (no record's prose in it). */
  blob: RecordsBlob | undefined;
  offsets: Float64Array;
}

const STORE = Symbol('store');
const INDEX = Symbol('index');

interface Lazy {
  [STORE]: Store;
  [INDEX]: number;
}

/**
 * An array of n items made on first read (`make(i)`, then kept): the cached catalog's records, so
 * a scan pays only for the records it matches. Indexing, length, iteration and the array methods
 * work as on an array (reads only).
 */
function lazyList<T>(n: number, make: (i: number) => T): T[] {
  const made = new Array<T | undefined>(n);
  const index = (k: string | symbol): number => {
    if (typeof k !== 'string') return -1;
    const c = k.charCodeAt(0);
    if (c < 48 || c > 57) return -1;
    const i = Number(k);
    return Number.isInteger(i) && i < n && String(i) === k ? i : -1;
  };
  return new Proxy([] as T[], {
    get(target, k, receiver) {
      const i = index(k);
      if (i >= 0) return (made[i] ??= make(i));
      if (k === 'length') return n;
      return Reflect.get(target, k, receiver);
    },
    has(target, k) {
      return index(k) >= 0 || Reflect.has(target, k);
    },
    getOwnPropertyDescriptor(target, k) {
      const i = index(k);
      if (i >= 0) return { value: (made[i] ??= make(i)), writable: false, enumerable: true, configurable: true };
      if (k === 'length') return { value: n, writable: true, enumerable: false, configurable: false };
      return Reflect.getOwnPropertyDescriptor(target, k);
    },
    ownKeys(target) {
      const keys: (string | symbol)[] = [];
      for (let i = 0; i < n; i++) keys.push(String(i));
      return [...keys, ...Reflect.ownKeys(target)];
    },
    set() {
      return false;
    },
    deleteProperty() {
      return false;
    },
  });
}

/** Replaces the heavy accessors of a lazy record by the parsed values (own, enumerable: then it is
 * an ordinary record, JSON.stringify and spreading included). */
function materialize(o: Lazy): void {
  const s = o[STORE];
  const i = o[INDEX];
  // (a lite-only entry is read by scans that print no prose: a read here is a bug, said clearly)
  if (!s.blob) throw new Error(`index cache: record ${i}'s prose was read from an entry written without it (a bug: please report it; --no-cache works around it)`);
  const heavy = JSON.parse(s.blob.bytes().toString('utf8', s.offsets[i]!, s.offsets[i + 1]!)) as unknown[];
  if (!Array.isArray(heavy) || heavy.length !== PROSE_FIELDS.length) throw new Error(`index cache: record ${i} has no heavy row`);
  for (let k = 0; k < PROSE_FIELDS.length; k++) Object.defineProperty(o, PROSE_FIELDS[k]!, { value: heavy[k] ?? null, writable: true, enumerable: true, configurable: true });
}

const LAZY_PROTO: object = (() => {
  const proto: Record<string, unknown> = {};
  for (const k of PROSE_FIELDS) {
    Object.defineProperty(proto, k, {
      get(this: Lazy) {
        materialize(this);
        return (this as unknown as Record<string, unknown>)[k];
      },
      set(this: Lazy, v: unknown) {
        materialize(this);
        (this as unknown as Record<string, unknown>)[k] = v;
      },
      enumerable: false,
      configurable: true,
    });
  }
  Object.defineProperty(proto, 'toJSON', {
    value(this: Lazy) {
      if (Object.getOwnPropertyDescriptor(this, PROSE_FIELDS[0]) === undefined) materialize(this);
      return { ...(this as unknown as Record<string, unknown>) };
    },
    enumerable: false,
  });
  return proto;
})();

function lazyRecord(row: unknown[], store: Store, i: number): ErrorRecord {
  if (!Array.isArray(row) || row.length !== LITE_FIELDS.length) throw new Error(`index cache: record ${i} is not a lite row`);
  const o = Object.create(LAZY_PROTO) as Record<string | symbol, unknown>;
  for (let k = 0; k < LITE_FIELDS.length; k++) o[LITE_FIELDS[k]!] = row[k];
  Object.defineProperty(o, STORE, { value: store });
  Object.defineProperty(o, INDEX, { value: i });
  return o as unknown as ErrorRecord;
}

/** Strings encoded into one reused buffer, handed to `sink` (which must consume the bytes at once)
 * each time it fills; `size`: bytes so far. */
class ByteWriter {
  private readonly buf: Buffer;
  private at = 0;
  size = 0;
  constructor(
    private readonly sink: (bytes: Buffer) => void,
    chunk = 8 << 20,
  ) {
    this.buf = Buffer.allocUnsafe(chunk);
  }

  string(s: string): void {
    // at most 3 bytes per UTF-16 unit
    if (this.at + s.length * 3 > this.buf.length) {
      this.flush();
      if (s.length * 3 > this.buf.length) {
        const b = Buffer.from(s, 'utf8');
        this.sink(b);
        this.size += b.length;
        return;
      }
    }
    const n = this.buf.write(s, this.at, 'utf8');
    this.at += n;
    this.size += n;
  }

  flush(): void {
    if (this.at > 0) this.sink(this.buf.subarray(0, this.at));
    this.at = 0;
  }
}

/** What a cache entry holds besides the index and the records' lite fields. */
export interface WriteOptions {
  /** The records' prose too (the records file; default true). False: a lite-only entry, for a scan
   * that prints no prose (count, json, text without explanations): it skips encoding and writing
   * most of the records' bytes; a later run that reads prose finds it a miss and writes a full one. */
  prose?: boolean;
  /** Between two slices of writeCacheAsync (default: one event-loop turn; the server waits there
   * while a request a person waits for is answered). */
  pause?: () => Promise<void>;
}

/** Writes the cache file of `key` (atomically), then keeps the newest MAX_ENTRIES. `entries`: the
 * engine's entries of the records, when the caller has them (else made again). Errors are
 * returned, never thrown. */
export function writeCache(dir: string, key: string, load: CachedLoad, entries?: readonly EngineEntry[], opts: WriteOptions = {}): string | undefined {
  return runSteps(writeSteps(dir, key, load, entries, opts.prose !== false));
}

/**
 * After a run restored from the cache file of `key` built a prefilter its engine snapshot lacked
 * (`stored`: what it held; a scan builds the byte index, explain and the per-line path the string
 * prefilter), writes the file again with the engine's snapshot now (the other sections as they
 * are, verified first), so the next run of either kind restores both. Nothing to add: nothing
 * written. Errors are returned, never thrown.
 */
export function refreshEngine(dir: string, key: string, engine: MatchEngine, stored: { bytes: boolean; strings: boolean }): string | undefined {
  const snapshot = engine.snapshot();
  if (!(snapshot.bytes && !stored.bytes) && !(snapshot.strings && !stored.strings)) return undefined;
  try {
    const file = parseFile(readFileSync(fileOf(dir, key)), key);
    if ('miss' in file) return `the cache file changed (${file.miss})`;
    const engineData = v8.serialize(snapshot);
    const sections = file.header.sections.map((sec) => ({ ...sec, data: sec.name === 'engine' ? engineData : file.sections.get(sec.name)! }));
    runSteps(
      writeEntry(
        fileOf(dir, key),
        { ...file.header, sections: sections.map(({ name, data, sha256 }) => ({ name, length: data.length, sha256: name === 'engine' ? createHash('sha256').update(data).digest('hex') : sha256 })) },
        sections.map((sec) => sec.data),
      ),
    );
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** writeCache in time slices of about `sliceMs`, with an event-loop turn between them. */
export async function writeCacheAsync(dir: string, key: string, load: CachedLoad, entries?: readonly EngineEntry[], sliceMs = 10, opts: WriteOptions = {}): Promise<string | undefined> {
  return (await runInSlices(writeSteps(dir, key, load, entries, opts.prose !== false), sliceMs, { pause: opts.pause }))!.value;
}

/** Records encoded between two pauses of the writer. */
const WRITE_STEP = 256;

function* writeSteps(dir: string, key: string, load: CachedLoad, entries: readonly EngineEntry[] | undefined, prose: boolean): Generator<void, string | undefined> {
  let tmp: string | undefined;
  try {
    const records = load.catalog.records;
    const n = records.length;
    if (entries && entries.length !== n) entries = undefined;
    mkdirSync(dir, { recursive: true });
    // the records file first (streamed): an index file in place always has its records file beside
    // it (a lite-only entry has none: one left by an older entry of this key goes)
    const recordsTarget = recordsFileOf(dir, key);
    if (prose) tmp = `${recordsTarget}.${process.pid}-${++writers}.tmp`;
    else {
      try {
        unlinkSync(recordsTarget);
      } catch {
        // none
      }
    }
    const fd = tmp ? openSync(tmp, 'w', 0o600) : -1;
    const recordsHash = createHash('sha256');
    const offsets = new Float64Array(n + 1);
    const liteParts: Buffer[] = [];
    const liteAt = new Float64Array(n + 1);
    const engineEntries = new Array<EngineEntry>(n);
    const scan = emptyExtra(n);
    try {
      const heavyOut = new ByteWriter((b) => {
        recordsHash.update(b);
        writeSync(fd, b);
      });
      const liteOut = new ByteWriter((b) => liteParts.push(Buffer.from(b)), 1 << 20);
      const heavyRow = new Array<unknown>(PROSE_FIELDS.length);
      const liteRow = new Array<unknown>(LITE_FIELDS.length);
      for (let i = 0; i < n; i++) {
        const r = records[i]! as unknown as Record<string, unknown>;
        for (let k = 0; k < LITE_FIELDS.length; k++) liteRow[k] = r[LITE_FIELDS[k]!] ?? null;
        liteAt[i] = liteOut.size;
        liteOut.string(JSON.stringify(liteRow));
        offsets[i] = heavyOut.size;
        if (prose) {
          for (let k = 0; k < PROSE_FIELDS.length; k++) heavyRow[k] = r[PROSE_FIELDS[k]!] ?? null;
          heavyOut.string(JSON.stringify(heavyRow));
        }
        engineEntries[i] = entries?.[i] ?? engineEntry(records[i]!);
        setExtra(scan, i, records[i]!);
        if (i % WRITE_STEP === WRITE_STEP - 1) yield;
      }
      heavyOut.flush();
      liteOut.flush();
      liteAt[n] = liteOut.size;
      offsets[n] = heavyOut.size;
    } finally {
      if (fd >= 0) closeSync(fd);
    }
    const recordsInfo = prose ? { length: offsets[n]!, sha256: recordsHash.digest('hex') } : null;
    if (tmp) renameSync(tmp, recordsTarget);
    tmp = undefined;
    yield;
    const meta: Meta = { problems: load.problems, sources: load.sources, count: n };
    // (each big step between pauses: at 100k records one step took 1.6 s of a server's time)
    // (a section is one buffer or several written one after another: the lite rows are not
    // concatenated, 43 MB at 100k records)
    const sections: [string, Buffer | Buffer[]][] = [
      ['meta', Buffer.from(JSON.stringify(meta), 'utf8')],
      ['lite', liteParts],
    ];
    yield;
    sections.push(['liteOffsets', v8.serialize(liteAt)], ['recordOffsets', v8.serialize(offsets)]);
    yield;
    const table = yield* encodeEntrySteps(
      n,
      (i) => engineEntries[i]!,
      (i) => records[i]!.errorClass ?? null,
    );
    sections.push(['entries', table.text], ['entryAt', v8.serialize({ at: table.at, nulls: table.nulls, encoding: table.encoding })]);
    sections.push(['scan', v8.serialize(scan satisfies ScanExtra)]);
    yield;
    sections.push(['engine', v8.serialize(load.catalog.engine.snapshot())]);
    yield;
    const shas: string[] = [];
    const lengths: number[] = [];
    for (const [, data] of sections) {
      const h = createHash('sha256');
      let length = 0;
      for (const b of pieces(data)) {
        h.update(b);
        length += b.length;
        yield;
      }
      shas.push(h.digest('hex'));
      lengths.push(length);
    }
    yield* writeEntry(
      fileOf(dir, key),
      { format: FORMAT, key, sections: sections.map(([name], i) => ({ name, length: lengths[i]!, sha256: shas[i]! })), records: recordsInfo },
      sections.map(([, d]) => d),
    );
    evict(dir);
    return undefined;
  } catch (e) {
    if (tmp) {
      try {
        unlinkSync(tmp);
      } catch {
        // not written
      }
    }
    return (e as Error).message;
  }
}

/** Bytes of a section hashed, or of the file written, between two pauses of the writer (a
 * server answers requests between them: one write of a 65 MB file took 200 ms at once). */
const HASH_PIECE = 1 << 20;

/** The bytes of a section (one buffer or several) in pieces of at most HASH_PIECE, in order. */
function* pieces(data: Buffer | readonly Buffer[]): Generator<Buffer> {
  for (const b of Buffer.isBuffer(data) ? [data] : data) for (let at = 0; at < b.length; at += HASH_PIECE) yield b.subarray(at, at + HASH_PIECE);
}

let writers = 0;

/** All of b to fd (a write may take part of it). */
function writeAll(fd: number, b: Buffer): void {
  for (let at = 0; at < b.length; ) at += writeSync(fd, b, at, b.length - at);
}

/** A cache file as the reader reads it (headerOf): the magic, the header's length (u32) and JSON,
 * then the sections' bytes in the header's order; written atomically, a pause between pieces. */
function* writeEntry(target: string, header: Header, sections: (Buffer | readonly Buffer[])[]): Generator<void, void> {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length);
  // (one name per writer: two writers of this process may be paused at once)
  const tmp = `${target}.${process.pid}-${++writers}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    for (const b of [MAGIC, len, json]) writeAll(fd, b);
    for (const data of sections)
      for (const b of pieces(data)) {
        writeAll(fd, b);
        yield;
      }
  } catch (e) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // not there
    }
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, target);
}

function evict(dir: string): void {
  const names = readdirSync(dir);
  // a records file whose index file is gone (a writer that died between the two renames)
  for (const f of names) {
    if (f.endsWith('.eerec') && !names.includes(f.replace(/\.eerec$/, '.eeidx'))) {
      try {
        unlinkSync(path.join(dir, f));
      } catch {
        // another scan removed it
      }
    }
  }
  const files = names
    .filter((f) => f.endsWith('.eeidx') || f.endsWith('.tmp'))
    .map((f) => {
      const p = path.join(dir, f);
      try {
        return { p, t: statSync(p).mtimeMs, tmp: f.endsWith('.tmp') };
      } catch {
        return undefined;
      }
    })
    .filter((x): x is { p: string; t: number; tmp: boolean } => !!x)
    .sort((a, b) => b.t - a.t);
  let kept = 0;
  const now = Date.now();
  for (const f of files) {
    // a temporary file of a writer that died (over an hour old); a live writer's is left alone
    const drop = f.tmp ? now - f.t > 3600_000 : ++kept > MAX_ENTRIES;
    if (!drop) continue;
    for (const p of f.tmp ? [f.p] : [f.p, f.p.replace(/\.eeidx$/, '.eerec')]) {
      try {
        unlinkSync(p);
      } catch {
        // another scan removed it
      }
    }
  }
}
