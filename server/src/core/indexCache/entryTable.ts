// The engine's entries in the index cache (its `entries` and `entryAt` sections), and each record's
// error class: one text of every entry's id, pattern, error code, capture names (JSON) and class,
// one after another, and where each starts. A warm start decodes the text once and makes each
// entry's strings on their first read: a warm scan of 100k records reads a few thousand entries,
// and parsing all of them (500k strings, then collecting them) was the larger part of its serial
// start.
import type { EngineEntry } from '../engine/types';
import { runSteps } from '../slices';

/** Strings per entry in the text: id, pattern, error code ('' when null), capture names (JSON),
 * error class ('' when null). */
const FIELDS = 5;
/** `nulls` bits: the entry has no error code, no error class. */
const NO_CODE = 1;
const NO_CLASS = 2;

/** The sections of n entries: the text, and per entry FIELDS start offsets (UTF-16 units of the
 * text) plus the text's length at the end, which entries have no error code or class (NO_CODE,
 * NO_CLASS), and the text's encoding: UTF-8, or UTF-16 where a string holds a lone surrogate
 * (UTF-8 cannot keep it). */
export interface EntrySections {
  text: Buffer;
  at: Int32Array;
  nulls: Uint8Array;
  encoding: 'utf8' | 'utf16le';
}

/** The entries as decoded: the engine's, and each record's error class. */
export interface EntryTable {
  entries: EngineEntry[];
  errorClass(i: number): string | null;
}

/** The entry table of `entries` (field by field, as the entries give them) and their records'
 * error classes. */
export function encodeEntries(n: number, entry: (i: number) => EngineEntry, errorClass: (i: number) => string | null): EntrySections {
  const t = runSteps(encodeEntrySteps(n, entry, errorClass));
  return { ...t, text: Buffer.concat(t.text) };
}

/** Entries encoded between two pauses of encodeEntrySteps. */
const ENCODE_STEP = 4096;

/** encodeEntries with a pause (a yield) every ENCODE_STEP entries, its text as the bytes of each
 * step's entries, one after another (a server writing its index cache answers requests between
 * them: at 100k records encoding the text at once took ~200 ms). A step's text is encoded as it is
 * made; in the rare table whose text is UTF-16 (a lone surrogate), the steps before are decoded
 * and encoded again when it comes. */
export function* encodeEntrySteps(n: number, entry: (i: number) => EngineEntry, errorClass: (i: number) => string | null): Generator<void, Omit<EntrySections, 'text'> & { text: Buffer[] }> {
  const at = new Int32Array(n * FIELDS + 1);
  const nulls = new Uint8Array(n);
  const bytes: Buffer[] = [];
  let utf8 = true;
  let length = 0;
  // (one step at least: no entries make one empty text)
  for (let s0 = 0; s0 === 0 || s0 < n; s0 += ENCODE_STEP) {
    const parts: string[] = [];
    for (let i = s0; i < Math.min(n, s0 + ENCODE_STEP); i++) {
      const e = entry(i);
      const cls = errorClass(i);
      const fields = [e.id, e.pattern, e.errorCode ?? '', JSON.stringify(e.captureNames), cls ?? ''];
      // (undefined comes back null, as the JSON section this replaced gave it)
      nulls[i] = (e.errorCode == null ? NO_CODE : 0) | (cls == null ? NO_CLASS : 0);
      for (let f = 0; f < FIELDS; f++) {
        at[i * FIELDS + f] = length;
        parts.push(fields[f]!);
        length += fields[f]!.length;
      }
    }
    // (a field is a whole string: a surrogate pair never spans two steps' texts)
    const text = parts.join('');
    if (utf8 && !wellFormed(text)) {
      utf8 = false;
      for (let k = 0; k < bytes.length; k++) bytes[k] = Buffer.from(bytes[k]!.toString('utf8'), 'utf16le');
    }
    bytes.push(Buffer.from(text, utf8 ? 'utf8' : 'utf16le'));
    yield;
  }
  at[n * FIELDS] = length;
  return { text: bytes, at, nulls, encoding: utf8 ? 'utf8' : 'utf16le' };
}

/**
 * The n entries of a table, each made on its first read (its strings sliced from the decoded text
 * then). Throws when the table is not one of n entries (its offsets run backwards or past the
 * text): the cache entry is then not used.
 */
export function decodeEntries(s: EntrySections, n: number): EntryTable {
  const { at, nulls, encoding } = s;
  if (!(at instanceof Int32Array) || !(nulls instanceof Uint8Array) || at.length !== n * FIELDS + 1 || nulls.length !== n) throw new Error('entry count');
  if (encoding !== 'utf8' && encoding !== 'utf16le') throw new Error('entry encoding');
  const text = s.text.toString(encoding);
  if (at[0] !== 0 || at[n * FIELDS] !== text.length) throw new Error('entry text');
  for (let k = 1; k < at.length; k++) if (at[k]! < at[k - 1]!) throw new Error('entry offsets');
  // (an all-ASCII UTF-8 text: a field's bytes are its characters)
  const table: Table = { text, at, nulls, ascii: encoding === 'utf8' && s.text.length === text.length ? s.text : undefined };
  const entries = new Array<EngineEntry>(n);
  for (let i = 0; i < n; i++) entries[i] = new CachedEntry(table, i);
  return { entries, errorClass: (i) => (nulls[i]! & NO_CLASS ? null : fieldOf(table, i, 4)) };
}

/** Field f of entry i. */
function fieldOf(t: Table, i: number, f: number): string {
  const k = i * FIELDS + f;
  return t.text.slice(t.at[k]!, t.at[k + 1]!);
}

/** Has the string no lone surrogate? */
function wellFormed(s: string): boolean {
  const f = (s as { isWellFormed?: () => boolean }).isWellFormed;
  if (f) return f.call(s);
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

interface Table {
  text: string;
  at: Int32Array;
  nulls: Uint8Array;
  /** The text's bytes when they are ASCII (see idOf). */
  ascii: Buffer | undefined;
}

/** Entry i's id: decoded from the bytes where they are ASCII, so it is a string of its own, not a
 * slice of the text (a scan's summary sorts and keys a map by ids: slices of one big string took
 * about twice as long). */
function idOf(t: Table, i: number): string {
  const k = i * FIELDS;
  return t.ascii ? t.ascii.toString('latin1', t.at[k]!, t.at[k + 1]!) : fieldOf(t, i, 0);
}

/** An entry of the table; each field read from the text once. */
class CachedEntry implements EngineEntry {
  private idText: string | undefined = undefined;
  private patternText: string | undefined = undefined;
  private codeText: string | null | undefined = undefined;
  private names: string[] | undefined = undefined;

  constructor(
    private readonly table: Table,
    private readonly i: number,
  ) {}

  get id(): string {
    return (this.idText ??= idOf(this.table, this.i));
  }

  get pattern(): string {
    return (this.patternText ??= fieldOf(this.table, this.i, 1));
  }

  get errorCode(): string | null {
    if (this.codeText === undefined) this.codeText = this.table.nulls[this.i]! & NO_CODE ? null : fieldOf(this.table, this.i, 2);
    return this.codeText;
  }

  get captureNames(): string[] {
    return (this.names ??= JSON.parse(fieldOf(this.table, this.i, 3)) as string[]);
  }
}
