// The engine's entries in the index cache (its `entries` and `entryAt` sections): one text of every
// entry's id, pattern, error code and capture names (JSON), one after another, and where each
// starts. A warm start decodes the text once and makes each entry's strings on their first read: a
// warm scan of 100k records reads a few thousand entries, and parsing all of them (400k strings,
// then collecting them) was the larger part of its serial start.
import type { EngineEntry } from '../engine/types';

/** Strings per entry in the text: id, pattern, error code ('' when null), capture names (JSON). */
const FIELDS = 4;

/** The sections of n entries: the text, and per entry FIELDS start offsets (UTF-16 units of the
 * text) plus the text's length at the end, which entries have no error code, and the text's
 * encoding: UTF-8, or UTF-16 where a string holds a lone surrogate (UTF-8 cannot keep it). */
export interface EntrySections {
  text: Buffer;
  at: Int32Array;
  noCode: Uint8Array;
  encoding: 'utf8' | 'utf16le';
}

/** The entry table of `entries` (field by field, as the entries give them). */
export function encodeEntries(n: number, entry: (i: number) => EngineEntry): EntrySections {
  const parts = new Array<string>(n * FIELDS);
  const at = new Int32Array(n * FIELDS + 1);
  const noCode = new Uint8Array(n);
  let length = 0;
  for (let i = 0; i < n; i++) {
    const e = entry(i);
    const fields = [e.id, e.pattern, e.errorCode ?? '', JSON.stringify(e.captureNames)];
    if (e.errorCode === null) noCode[i] = 1;
    for (let f = 0; f < FIELDS; f++) {
      at[i * FIELDS + f] = length;
      parts[i * FIELDS + f] = fields[f]!;
      length += fields[f]!.length;
    }
  }
  at[n * FIELDS] = length;
  const text = parts.join('');
  const encoding = wellFormed(text) ? 'utf8' : 'utf16le';
  return { text: Buffer.from(text, encoding), at, noCode, encoding };
}

/**
 * The n entries of a table, each made on its first read (its strings sliced from the decoded text
 * then). Throws when the table is not one of n entries (its offsets run backwards or past the
 * text): the cache entry is then not used.
 */
export function decodeEntries(s: EntrySections, n: number): EngineEntry[] {
  const { at, noCode, encoding } = s;
  if (!(at instanceof Int32Array) || !(noCode instanceof Uint8Array) || at.length !== n * FIELDS + 1 || noCode.length !== n) throw new Error('entry count');
  if (encoding !== 'utf8' && encoding !== 'utf16le') throw new Error('entry encoding');
  const text = s.text.toString(encoding);
  if (at[0] !== 0 || at[n * FIELDS] !== text.length) throw new Error('entry text');
  for (let k = 1; k < at.length; k++) if (at[k]! < at[k - 1]!) throw new Error('entry offsets');
  const table: Table = { text, at, noCode };
  const entries = new Array<EngineEntry>(n);
  for (let i = 0; i < n; i++) entries[i] = new CachedEntry(table, i);
  return entries;
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
  noCode: Uint8Array;
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

  private field(f: number): string {
    const k = this.i * FIELDS + f;
    return this.table.text.slice(this.table.at[k]!, this.table.at[k + 1]!);
  }

  get id(): string {
    return (this.idText ??= this.field(0));
  }

  get pattern(): string {
    return (this.patternText ??= this.field(1));
  }

  get errorCode(): string | null {
    if (this.codeText === undefined) this.codeText = this.table.noCode[this.i] ? null : this.field(2);
    return this.codeText;
  }

  get captureNames(): string[] {
    return (this.names ??= JSON.parse(this.field(3)) as string[]);
  }
}
