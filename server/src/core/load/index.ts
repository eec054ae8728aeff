// Record files in every form, with located problems. Never throws.
//
// Forms: one record object; the API envelope {"record": {...}, "datasetVersion": "..."}; a JSON
// array of records or envelopes (ErrLookup's per-repository export); JSON Lines (one object,
// envelope or array per line, blank lines ignored); any of these gzip-compressed (detected by the
// magic bytes); a folder, recursively (walk.ts).
//
// Speed and memory: a file is read in chunks (gzip decompressed as it streams) and split into its
// top-level entries (split.ts); each entry is JSON.parse'd and validated on its own, so a
// 200 MB file never exists as one string or one object graph. Positions come from the splitter's
// skeleton of each entry (where its id is, how many members it has); an entry is outlined
// (locate.ts) only when one of its values has a problem. Whatever the splitter cannot
// vouch for (a syntax error, invalid UTF-8, UTF-16, an odd shape) is read again whole and loaded
// the exact, slow way: JSON.parse of the text, and for text JSON.parse rejects, jsonc-parser,
// which recovers the records around the syntax errors (its input is depth-limited first so it
// cannot overflow the stack). Both ways give the same records and problems (a unit test compares
// them).
//
// What is read is capped at MAX_RECORD_FILE_BYTES of bytes actually read and of decompressed
// bytes, whatever stat() says: pipes and devices (size 0) are read once, as a stream, and a file
// that grows while it is read is stopped at the cap. Either way the cap is a located problem.
//
// Paths in problems: `[3].record.httpStatus` for the 4th entry of an array; for JSON Lines the
// index is the 0-based line number (`[9]` is line 10); a single-object file has paths like
// `httpStatus`; `(root)` is the top-level value and `(file)` the file as a whole.

import { getNodeValue, parseTree, printParseErrorCode, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import { createHash, type Hash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as zlib from 'node:zlib';
import { type ErrorRecord, type RecordOrigin, type RecordProblem, withoutProse } from '../record';
import { has, isObject, kindOf } from './jsonValue';
import { decodeText, gunzipErrorMessage, gunzipLimited, gunzipSyncLimited, isGzip, MAX_RECORD_FILE_BYTES, type DecodedText } from './decode';
import { formatPath, jsoncLocator, limitDepth, outlineLocator, type Locator, type PathSeg, type Span } from './locate';
import { LineIndex, type Position } from './positions';
import { Bail, EntrySplitter, type EntryKind, type Skeleton, type SplitSink } from './split';
import { ProseReducer, REDUCE_PIECE } from './reduce';
import { listRecordFiles } from './walk';
import { validateRecord } from './validate';

/** Where a record is defined: its `id` value, or the record object when the id was defaulted. */
export interface RecordSource {
  file: string;
  path: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export interface LoadResult {
  records: ErrorRecord[];
  problems: RecordProblem[];
  files: string[];
  /** Parallel to `records` (filled by this module; optional for hand-made results). */
  sources?: RecordSource[];
}

export interface LoadOptions {
  /** ErrLookup records (bundled, dataset): every rule, every field required. Default false. */
  strict?: boolean;
  /** Force a format; by default .jsonl/.ndjson names mean JSON Lines, anything else is detected. */
  format?: 'auto' | 'json' | 'jsonl';
  /** Entry by entry (default true). false: the whole text at once (tests compare the two). */
  streaming?: boolean;
  /** Folders the load may read from, symlinks resolved (walk.ts); undefined: anywhere. */
  within?: readonly string[];
  /** Filled with the sha256 of each regular file's bytes as this load read them (the CLI's index
   * cache keys a first load by them instead of reading every file once more). */
  digests?: Map<string, FileDigest>;
  /** Keep the records' prose (default true). False: each valid record is kept without it
   * (record.ts withoutProse), for a scan that prints no explanations; it is still validated. */
  prose?: boolean;
}

/** The content hash of the bytes a load read from a file, and the file's identity then. */
export interface FileDigest {
  size: number;
  sha256: string;
  mtimeMs: number;
  ino: number;
  /** When the read began (ms since the epoch). */
  hashedAt: number;
  /** The file's size, modification time and inode were the same before and after the read. */
  unchanged: boolean;
}

/** Problems reported per file at most (the rest are counted in one summary problem). */
export const MAX_PROBLEMS_PER_FILE = 1000;
/** Syntax errors reported per file at most (recovery after the first few is mostly noise). */
export const MAX_SYNTAX_ERRORS = 20;
/** Deepest nesting handed to jsonc-parser; a valid record file needs 5 levels. */
export const MAX_JSON_DEPTH = 32;

type Severity = RecordProblem['severity'];

// -------------------------------------------------------------------------------------------------
// Per-file state

class FileContext {
  readonly problems: RecordProblem[] = [];
  readonly records: ErrorRecord[] = [];
  readonly sources: RecordSource[] = [];
  private dropped = 0;
  private droppedWorst: Severity = 'info';
  private lines: LineIndex | undefined;

  constructor(
    readonly text: string,
    readonly file: string,
    readonly strict: boolean,
    /** LoadOptions.prose: keep the records' prose. */
    readonly prose: boolean,
    /** Offsets -> positions when the text is not held whole (entry by entry). */
    private readonly positions?: { position(offset: number): Position },
  ) {}

  private position(offset: number): Position {
    if (this.positions) return this.positions.position(offset);
    return (this.lines ??= new LineIndex(this.text)).position(offset);
  }

  range(span: Span | undefined): { line: number; column: number; endLine: number; endColumn: number } {
    if (!span) return { line: 1, column: 1, endLine: 1, endColumn: 1 };
    const a = this.position(span.offset);
    const b = this.position(span.offset + span.length);
    return { line: a.line, column: a.column, endLine: b.line, endColumn: b.column };
  }

  /** No more problems are reported for this file (they are only counted). */
  get full(): boolean {
    return this.problems.length >= MAX_PROBLEMS_PER_FILE;
  }

  countDropped(severity: Severity): void {
    this.dropped++;
    if (severity === 'error' || (severity === 'warning' && this.droppedWorst === 'info')) this.droppedWorst = severity;
  }

  report(span: Span | undefined, path: string, severity: Severity, message: string): void {
    if (this.full) {
      this.countDropped(severity);
      return;
    }
    this.problems.push({ file: this.file, ...this.range(span), path, severity, message });
  }

  result(): LoadResult {
    // In file order (stable: problems of one place keep their order).
    this.problems.sort((a, b) => a.line - b.line || a.column - b.column);
    if (this.dropped > 0)
      this.problems.push({
        file: this.file,
        line: 1,
        column: 1,
        endLine: 1,
        endColumn: 1,
        path: '(file)',
        severity: this.droppedWorst,
        message: `${this.dropped} more problem${this.dropped === 1 ? '' : 's'} in this file not shown (at most ${MAX_PROBLEMS_PER_FILE} are reported)`,
      });
    return dedupe({ records: this.records, problems: this.problems, files: [this.file], sources: this.sources });
  }
}

/** A locator built on first use. */
function lazy(make: () => Locator): Locator {
  let loc: Locator | undefined;
  return {
    value: (p) => (loc ??= make()).value(p),
    key: (p) => (loc ??= make()).key(p),
    duplicateKeys: (p, n) => (loc ??= make()).duplicateKeys(p, n),
  };
}

/** A locator for a sub-document (a JSON Lines line, an array entry) whose paths carry `prefix` in front. */
function withPrefix(prefixLength: number, inner: Locator): Locator {
  return {
    value: (p) => inner.value(p.slice(prefixLength)),
    key: (p) => (p.length > prefixLength ? inner.key(p.slice(prefixLength)) : undefined),
    duplicateKeys: (p, n) => inner.duplicateKeys(p.slice(prefixLength), n),
  };
}

const braceOf = (span: Span | undefined): Span | undefined => span && { offset: span.offset, length: 1 };

// -------------------------------------------------------------------------------------------------
// Values -> records

const ENVELOPE_KEYS: ReadonlySet<string> = new Set(['record', 'datasetVersion', '$schema']);

/** One array entry / line / file value that should be a record or an envelope. */
function processEntry(ctx: FileContext, value: unknown, base: PathSeg[], loc: Locator): void {
  if (!isObject(value)) {
    ctx.report(loc.value(base), formatPath(base), 'error', `expected a record object or a {"record": …, "datasetVersion": …} envelope, got ${kindOf(value)}; skipped`);
    return;
  }
  let raw: unknown = value;
  let recPath = base;
  if (has(value, 'record')) {
    for (const key of Object.keys(value))
      if (!ENVELOPE_KEYS.has(key)) ctx.report(loc.key([...base, key]), formatPath([...base, key]), 'info', `unknown envelope field "${key}" is ignored`);
    if (has(value, 'datasetVersion') && typeof value.datasetVersion !== 'string' && value.datasetVersion !== null)
      ctx.report(loc.value([...base, 'datasetVersion']), formatPath([...base, 'datasetVersion']), 'warning', `datasetVersion should be a string, got ${kindOf(value.datasetVersion)}`);
    raw = value.record;
    recPath = [...base, 'record'];
  }
  if (isObject(raw))
    for (const d of loc.duplicateKeys(recPath, Object.keys(raw).length))
      ctx.report(d.span, formatPath([...recPath, d.key]), 'warning', `duplicate field "${d.key}": this value is ignored, the last one is used`);
  const { record, issues } = validateRecord(raw, { strict: ctx.strict });
  for (const issue of issues) {
    if (ctx.full) {
      ctx.countDropped(issue.severity);
      continue;
    }
    const p = [...recPath, ...issue.path];
    let span: Span | undefined;
    if (issue.at === 'key') span = loc.key(p);
    else if (issue.at === 'object') span = braceOf(loc.value(recPath));
    else span = loc.value(p);
    span ??= braceOf(loc.value(recPath));
    const skipped = !record && issue.severity === 'error' ? ' (record skipped)' : '';
    ctx.report(span, formatPath(p), issue.severity, issue.message + skipped);
  }
  if (!record) return;
  const idPath = [...recPath, 'id'];
  const rawId = isObject(raw) ? raw.id : undefined;
  const span = rawId === record.id ? loc.value(idPath) : braceOf(loc.value(recPath));
  ctx.records.push(ctx.prose ? record : withoutProse(record));
  ctx.sources.push({ file: ctx.file, path: formatPath(rawId === record.id ? idPath : recPath), ...ctx.range(span) });
}

/** A JSON Schema document (e.g. records/schema.json next to the records) is not a record file. */
function isJsonSchema(v: Record<string, unknown>): boolean {
  return (
    typeof v.$schema === 'string' &&
    /json-schema\.org/.test(v.$schema) &&
    !has(v, 'record') &&
    !has(v, 'messagePattern') &&
    !has(v, 'errorMessage') &&
    (has(v, 'properties') || has(v, 'definitions') || has(v, '$defs') || has(v, 'anyOf') || has(v, 'oneOf'))
  );
}

/** The top-level value of a file or of a JSON Lines line. */
function processRoot(ctx: FileContext, value: unknown, base: PathSeg[], loc: Locator): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) processEntry(ctx, value[i], [...base, i], loc);
  } else if (isObject(value)) {
    if (base.length === 0 && isJsonSchema(value)) return;
    processEntry(ctx, value, base, loc);
  } else {
    ctx.report(loc.value(base), formatPath(base), 'error', `expected a record object, an envelope or an array of them, got ${kindOf(value)}`);
  }
}

// -------------------------------------------------------------------------------------------------
// Syntax errors (jsonc-parser)

const SYNTAX_MESSAGES: Record<string, string> = {
  InvalidSymbol: 'unexpected text',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'property name expected',
  ValueExpected: 'value expected',
  ColonExpected: "':' expected",
  CommaExpected: "',' expected",
  CloseBraceExpected: "'}' expected",
  CloseBracketExpected: "']' expected",
  EndOfFileExpected: 'end of file expected (extra text after the JSON value)',
  InvalidCommentToken: 'comments are not allowed in JSON',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid \\u escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'invalid character in a string (control characters must be escaped)',
};

function syntaxMessage(e: ParseError): string {
  const name = printParseErrorCode(e.error);
  return `JSON syntax error: ${SYNTAX_MESSAGES[name] ?? name}`;
}

/** Where a syntax error is. For a control character in a string, jsonc-parser reports the whole
 * string; point at the character itself. `text` is the text that was parsed (its offset 0 is
 * `base` in the file). */
function spanOfError(e: ParseError, base: number, text: string): Span {
  if (printParseErrorCode(e.error) === 'InvalidCharacter') {
    for (let i = e.offset; i < e.offset + e.length && i < text.length; i++) if (text.charCodeAt(i) < 0x20) return { offset: base + i, length: 1 };
  }
  // an empty error span is widened to one character, but never onto a line end (CR or LF; a JSON
  // Lines line ends where its text ends)
  const at = e.offset;
  const c = text.charCodeAt(at);
  return { offset: base + at, length: e.length > 0 ? e.length : at < text.length && c !== 10 && c !== 13 ? 1 : 0 };
}

/** Whole-file recovery for text JSON.parse rejected. */
function recoverJson(ctx: FileContext): void {
  const text = ctx.text;
  const limited = limitDepth(text, MAX_JSON_DEPTH);
  const errors: ParseError[] = [];
  const root = parseTree(limited.text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: true });
  const loc = jsoncLocator(root);
  const isArray = root?.type === 'array';
  const elements: JsonNode[] = root ? (isArray ? (root.children ?? []) : [root]) : [];
  const bad = new Set<number>();
  const inside = (el: JsonNode, offset: number) => offset > el.offset && offset < el.offset + el.length;
  const elementAt = (offset: number): number => {
    let lo = 0;
    let hi = elements.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const el = elements[mid]!;
      if (offset < el.offset) hi = mid - 1;
      else if (offset >= el.offset + el.length) lo = mid + 1;
      else return mid;
    }
    return -1;
  };
  for (const e of errors) {
    const k = elementAt(e.offset);
    if (k >= 0 && inside(elements[k]!, e.offset)) bad.add(k);
  }
  for (const o of limited.tooDeep) {
    const k = elementAt(o);
    if (k >= 0) bad.add(k);
  }
  elements.forEach((el, k) => {
    if (el.type !== 'object' && el.type !== 'array') return;
    const last = limited.text.charCodeAt(el.offset + el.length - 1);
    if (last !== (el.type === 'object' ? 0x7d : 0x5d)) bad.add(k); // not closed (truncated)
    else if (el.length < 2) bad.add(k);
  });

  const pathOf = (k: number): PathSeg[] => (isArray ? [k] : []);
  const skipNote = (k: number) => (k >= 0 && bad.has(k) ? `; the record at ${formatPath(pathOf(k))} is skipped` : '');
  let shown = 0;
  let lastOffset = -1;
  for (const e of errors) {
    if (e.offset === lastOffset) continue; // one report per place (EOF yields '}' and ']' expected)
    lastOffset = e.offset;
    if (shown++ >= MAX_SYNTAX_ERRORS) break;
    let k = elementAt(e.offset);
    if (k < 0 && bad.has(elementAt(e.offset - 1))) k = elementAt(e.offset - 1); // the end of a truncated record
    ctx.report(spanOfError(e, 0, text), k >= 0 ? formatPath(pathOf(k)) : '(file)', 'error', syntaxMessage(e) + skipNote(k));
  }
  if (shown > MAX_SYNTAX_ERRORS) ctx.report(undefined, '(file)', 'error', `more JSON syntax errors not shown (at most ${MAX_SYNTAX_ERRORS} are reported)`);
  for (const o of limited.tooDeep) {
    const k = elementAt(o);
    ctx.report({ offset: o, length: 1 }, k >= 0 ? formatPath(pathOf(k)) : '(file)', 'error', `JSON nested deeper than ${MAX_JSON_DEPTH} levels${skipNote(k)}`);
  }
  if (!root) return;
  if (!isArray && root.type !== 'object') {
    if (errors.length === 0) processRoot(ctx, getNodeValue(root), [], loc);
    return;
  }
  elements.forEach((el, k) => {
    if (bad.has(k)) return;
    const value: unknown = getNodeValue(el);
    if (isArray) processEntry(ctx, value, [k], loc);
    else processRoot(ctx, value, [], loc);
  });
}

// -------------------------------------------------------------------------------------------------
// JSON Lines

/** Most non-blank lines look like complete objects: `{...}` on one line. */
export function looksLikeJsonLines(text: string): boolean {
  let nonBlank = 0;
  let objects = 0;
  let start = 0;
  while (start < text.length && nonBlank < 1000) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trim();
    if (line) {
      nonBlank++;
      if (line.startsWith('{') && line.endsWith('}')) objects++;
    }
    start = end + 1;
  }
  return nonBlank >= 2 && objects * 2 >= nonBlank;
}

function parseJsonLines(ctx: FileContext): void {
  const text = ctx.text;
  let start = 0;
  let lineNo = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    let line = text.slice(start, end);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.trim() !== '') {
      const lineText = line;
      const lineStart = start;
      jsonLine(ctx, line, start, lineNo, () => withPrefix(1, lazy(() => outlineLocator(lineText, lineStart))));
    }
    lineNo++;
    start = end + 1;
  }
}

/** One non-blank JSON Lines line (number `lineNo`, 0-based) that starts at offset `start`;
 * `locator` answers paths that start with [lineNo]. */
function jsonLine(ctx: FileContext, line: string, start: number, lineNo: number, locator: () => Locator, onInvalid?: () => void): void {
  const base: PathSeg[] = [lineNo];
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    onInvalid?.();
    const limited = limitDepth(line, MAX_JSON_DEPTH);
    const errors: ParseError[] = [];
    parseTree(limited.text, errors, { disallowComments: true, allowTrailingComma: false });
    const first = errors[0];
    if (limited.tooDeep.length > 0)
      ctx.report({ offset: start + limited.tooDeep[0]!, length: 1 }, formatPath(base), 'error', `JSON nested deeper than ${MAX_JSON_DEPTH} levels; line skipped`);
    else if (first)
      ctx.report(spanOfError(first, start, line), formatPath(base), 'error', `${syntaxMessage(first)}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}; line skipped`);
    else ctx.report({ offset: start, length: line.length }, formatPath(base), 'error', `JSON syntax error: ${(e as Error).message}; line skipped`);
    return;
  }
  processRoot(ctx, value, base, locator());
}

// -------------------------------------------------------------------------------------------------
// Entry by entry (split.ts)

/** A locator for one entry from its skeleton; anything else from an outline of the entry (made on
 * first need). `base`: offset of the entry in the file; `prefix`: path segments in front of the
 * entry's own paths ([i] of an array entry, [line] of a JSON Lines line); `kidDepth`: as deep as
 * the whole-text outline would record below the entry. */
class EntryLocator implements Locator {
  private outline: Locator | undefined;
  private exact: boolean;

  constructor(
    private readonly text: string,
    private readonly base: number,
    private readonly sk: Skeleton,
    private readonly prefix: number,
    private readonly kidDepth: number,
  ) {
    this.exact = !sk.escaped && sk.start >= 0 && sk.end >= 0;
  }

  private full(): Locator {
    return (this.outline ??= outlineLocator(this.text, this.base, this.kidDepth));
  }
  private span(s: number, e: number): Span {
    return { offset: this.base + s, length: e - s };
  }

  value(p: readonly PathSeg[]): Span | undefined {
    const n = p.length - this.prefix;
    if (this.exact && n >= 0) {
      const sk = this.sk;
      if (n === 0) return this.span(sk.start, sk.end);
      const k = p[this.prefix];
      if (n === 1 && k === 'id' && sk.idStart >= 0) return this.span(sk.idStart, sk.idEnd);
      if (k === 'record' && sk.recStart >= 0) {
        if (n === 1) return this.span(sk.recStart, sk.recEnd);
        if (n === 2 && p[this.prefix + 1] === 'id' && sk.recIdStart >= 0) return this.span(sk.recIdStart, sk.recIdEnd);
      }
    }
    return this.full().value(p.slice(this.prefix));
  }

  key(p: readonly PathSeg[]): Span | undefined {
    return p.length > this.prefix ? this.full().key(p.slice(this.prefix)) : undefined;
  }

  duplicateKeys(p: readonly PathSeg[], keyCount?: number): { key: string; span: Span }[] {
    const n = p.length - this.prefix;
    if (this.exact && keyCount !== undefined) {
      const sk = this.sk;
      if (n === 0 && sk.members === keyCount) return [];
      if (n === 1 && p[this.prefix] === 'record' && sk.recMembers >= 0 && sk.recMembers === keyCount) return [];
    }
    // keys given twice (or not known): every answer from the outline, which points at the last one
    this.exact = false;
    return this.full().duplicateKeys(p.slice(this.prefix));
  }
}

/**
 * Consumes the splitter's gaps and entries: parses and validates each entry, and keeps offsets and
 * line numbers as they would be in the whole decoded text (so problems and sources are the same).
 */
class EntryReader implements SplitSink {
  readonly ctx: FileContext;
  readonly splitter: EntrySplitter;
  /** UTF-16 offset (in the whole text) of the next character. */
  private offset = 0;
  /** Line (1-based, \n, \r\n and a lone \r end one) at `offset`, and the offset where it starts. */
  private line = 1;
  private lineStart = 0;
  /** The last character was \r: a \n right after it ends the same line. */
  private cr = false;
  private cur: { start: number; text: string; index: LineIndex | undefined; breaks: boolean } | undefined;
  /** `lineStart` in the original text (see orig). */
  private lineStartOrig = 0;
  /** A load that keeps no prose reads its bytes through the prose reducer: offsets here are then
   * those of the shortened text, and orig() gives the original's. */
  private readonly reducer: ProseReducer | undefined;
  /** Shortenings not yet passed (offset of the closing quote in the shortened text, units removed),
   * in order from `blankHead`, and the units removed before them. */
  private readonly blankAt: number[] = [];
  private readonly blankRemoved: number[] = [];
  private blankHead = 0;
  private removedBefore = 0;
  private lineNo = 0;
  private elements = 0;
  private nonBlank = 0;
  private objectLines = 0;

  constructor(
    private readonly file: string,
    private readonly opts: LoadOptions,
  ) {
    this.ctx = new FileContext('', file, opts.strict === true, opts.prose !== false, this);
    this.splitter = new EntrySplitter(this, { lines: opts.format === 'jsonl' });
    this.reducer = opts.prose === false ? ProseReducer.create() : undefined;
  }

  /** Offset `x` of the text read in the original text (x itself unless the text is shortened). */
  private orig(x: number): number {
    let o = x + this.removedBefore;
    const at = this.blankAt;
    // (the reducer counts a BOM, which the splitter does not report)
    const y = x + (this.splitter.bom ? 1 : 0);
    for (let k = this.blankHead; k < at.length && at[k]! <= y; k++) o += this.blankRemoved[k]!;
    return o;
  }

  /** Shortenings before `x` are passed: no position before it is asked again. */
  private passBlanks(x: number): void {
    const at = this.blankAt;
    const y = x + (this.splitter.bom ? 1 : 0);
    let k = this.blankHead;
    for (; k < at.length && at[k]! < y; k++) this.removedBefore += this.blankRemoved[k]!;
    if (k === at.length) {
      at.length = 0;
      this.blankRemoved.length = 0;
      k = 0;
    } else if (k > 4096) {
      at.splice(0, k);
      this.blankRemoved.splice(0, k);
      k = 0;
    }
    this.blankHead = k;
  }

  private readonly blank = (at: number, removed: number): void => {
    this.blankAt.push(at);
    this.blankRemoved.push(removed);
  };

  /** Text, as it comes (pieces of the whole). */
  push(piece: string): void {
    this.splitter.push(piece);
  }

  /** Bytes, as they come: decoded here up to the last whole UTF-8 sequence (the rest waits for the
   * next chunk); invalid UTF-8 (U+FFFD) is left to the exact way, which reports it. */
  pushBytes(chunk: Buffer): void {
    const reducer = this.reducer;
    if (reducer) {
      for (let at = 0; at < chunk.length; at += REDUCE_PIECE) {
        const out = reducer.push(chunk.subarray(at, Math.min(chunk.length, at + REDUCE_PIECE)), this.blank);
        // (the output, at most as long as the input, is a view the next call overwrites: decoded now)
        for (let k = 0; k < out.length; k += DECODE_PIECE) this.pushPiece(out.subarray(k, Math.min(out.length, k + DECODE_PIECE)));
      }
      return;
    }
    for (let at = 0; at < chunk.length; at += DECODE_PIECE) this.pushPiece(at === 0 && chunk.length <= DECODE_PIECE ? chunk : chunk.subarray(at, Math.min(chunk.length, at + DECODE_PIECE)));
  }

  private pushPiece(chunk: Buffer): void {
    let buf = chunk;
    if (this.carry) {
      buf = Buffer.concat([this.carry, chunk]);
      this.carry = undefined;
    }
    const cut = utf8Boundary(buf);
    if (cut < buf.length) this.carry = Buffer.from(buf.subarray(cut));
    this.pushDecoded(buf.toString('utf8', 0, cut));
  }
  private carry: Buffer | undefined;

  private pushDecoded(piece: string): void {
    if (piece.indexOf('\uFFFD') >= 0) throw new Bail('invalid UTF-8 (or U+FFFD)');
    this.splitter.push(piece);
  }

  endBytes(): LoadResult {
    const held = this.reducer?.end();
    if (held?.length) this.pushPiece(held);
    if (this.carry) this.pushDecoded(this.carry.toString('utf8'));
    this.carry = undefined;
    return this.finish();
  }

  finish(): LoadResult {
    this.splitter.end();
    if (this.splitter.guessedLines && !(this.opts.format === 'jsonl' || jsonLinesByName(this.file))) {
      // read as JSON Lines only because the content looks like it (as looksLikeJsonLines decides)
      if (this.opts.format === 'json' || !(this.nonBlank >= 2 && this.objectLines * 2 >= this.nonBlank)) throw new Bail('not JSON Lines');
    }
    if (this.lineNo > 0 && this.nonBlank === 0 && this.elements === 0) throw new Bail('only blank lines');
    return this.ctx.result();
  }

  position(offset: number): Position {
    const cur = this.cur;
    if (cur && cur.breaks && offset > cur.start) {
      const idx = (cur.index ??= new LineIndex(cur.text));
      const p = idx.position(offset - cur.start);
      if (p.line > 1) return { line: this.line + p.line - 1, column: this.orig(offset) - this.orig(cur.start + idx.lineStart(p.line)) + 1 };
    }
    return { line: this.line, column: this.orig(offset) - this.lineStartOrig + 1 };
  }

  gap(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x0a) {
        if (!this.cr) this.line++;
        this.lineStart = this.offset + 1;
        this.lineStartOrig = this.orig(this.lineStart);
        this.cr = false;
      } else if (c === 0x0d) {
        this.line++;
        this.lineStart = this.offset + 1;
        this.lineStartOrig = this.orig(this.lineStart);
        this.cr = true;
      } else this.cr = false;
      this.offset++;
    }
  }

  entry(text: string, kind: EntryKind, sk: Skeleton): void {
    const start = this.offset;
    // Line ends in the text: the scan saw every one of a valid value (an element or the root value
    // is the value alone; a line's text may go on after it, and holds no \n). Text that is not
    // valid JSON is searched (below: a line; an element or root value is not valid: Bail).
    const breaks = kind === 'line' ? sk.breaks || text.indexOf('\r', sk.end >= 0 ? sk.end : 0) >= 0 : sk.breaks;
    const cur = (this.cur = { start, text, index: undefined as LineIndex | undefined, breaks });
    if (kind === 'line') {
      const lineNo = this.lineNo++;
      if (text.trim() !== '') {
        if (this.nonBlank < 1000) {
          const t = text.trim();
          if (t.startsWith('{') && t.endsWith('}')) this.objectLines++;
        }
        this.nonBlank++;
        jsonLine(
          this.ctx,
          text,
          start,
          lineNo,
          () => new EntryLocator(text, start, sk, 1, 4),
          () => {
            // (a syntax error's place and words come from the line as it is: the exact way)
            if (this.reducer) throw new Bail('a JSON Lines line is not valid JSON');
            cur.breaks = text.indexOf('\r') >= 0;
          },
        );
      }
    } else {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw new Bail('an entry is not valid JSON');
      }
      if (kind === 'element') {
        processEntry(this.ctx, value, [this.elements++], new EntryLocator(text, start, sk, 1, 3));
      } else processRoot(this.ctx, value, [], new EntryLocator(text, start, sk, 0, 4));
    }
    // move past the entry
    if (breaks) {
      const idx = (cur.index ??= new LineIndex(text));
      if (idx.lineCount > 1) {
        this.line += idx.lineCount - 1;
        this.lineStart = start + idx.lineStart(idx.lineCount);
        this.lineStartOrig = this.orig(this.lineStart);
      }
      this.cr = text.charCodeAt(text.length - 1) === 0x0d;
    } else if (text.length > 0) this.cr = false;
    this.offset = start + text.length;
    if (this.reducer) this.passBlanks(this.offset);
    this.cur = undefined;
  }
}

/** Bytes decoded into one string at most: the string (up to 120 KiB as UTF-16) is an ordinary
 * young object that dies young, where a 1 MiB read would be a 2 MiB large object that lives until
 * a full collection (the load bench, 100k records: peak RSS 364-372 MB -> 342-343 MB, CPU time
 * unchanged within noise; 32 KiB pieces cost more scavenges). */
const DECODE_PIECE = 60 << 10;

/** Where the last UTF-8 sequence of `b` that may be incomplete starts (b.length: it ends whole). */
function utf8Boundary(b: Buffer): number {
  const n = b.length;
  for (let k = 1; k <= 3 && k <= n; k++) {
    const c = b[n - k]!;
    if (c < 0x80) return n; // ASCII: whole
    if (c >= 0xc0) {
      // a lead byte k bytes from the end: whole if its sequence has k bytes
      const len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      return len <= k ? n : n - k;
    }
  }
  return n; // continuation bytes only: let the decoder judge
}

/** Records entry by entry from bytes that come in these chunks (any split, even inside a UTF-8
 * sequence), or undefined when the exact way must decide. For tests: what a streamed read does. */
export function parseRecordChunks(chunks: readonly Uint8Array[], file: string, opts: LoadOptions = {}): LoadResult | undefined {
  const reader = new EntryReader(file, opts);
  try {
    for (const c of chunks) reader.pushBytes(Buffer.from(c.buffer, c.byteOffset, c.byteLength));
    return reader.endBytes();
  } catch (e) {
    if (e instanceof Bail) return undefined;
    throw e;
  }
}

/** Records entry by entry from text or bytes, or undefined when the exact way must decide. */
function parseEntries(data: string | Uint8Array, file: string, opts: LoadOptions): LoadResult | undefined {
  const reader = new EntryReader(file, opts);
  try {
    if (typeof data === 'string') {
      reader.push(data);
      return reader.finish();
    }
    reader.pushBytes(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    return reader.endBytes();
  } catch (e) {
    if (e instanceof Bail) return undefined;
    throw e;
  }
}

// -------------------------------------------------------------------------------------------------
// Public API

function jsonLinesByName(file: string): boolean {
  return /\.(?:jsonl|ndjson)(?:\.gz)?$/i.test(file);
}

/** The whole text at once: JSON.parse, else JSON Lines or jsonc-parser's recovery. */
function parseInto(ctx: FileContext, format: LoadOptions['format']): void {
  const text = ctx.text;
  if (text.trim() === '') {
    ctx.report(undefined, '(file)', 'warning', 'the file is empty; no records');
    return;
  }
  if (format !== 'jsonl') {
    let value: unknown;
    let ok = true;
    try {
      value = JSON.parse(text);
    } catch {
      ok = false;
    }
    if (ok) {
      processRoot(ctx, value, [], lazy(() => outlineLocator(text)));
      return;
    }
  }
  if (format === 'jsonl' || (format !== 'json' && (jsonLinesByName(ctx.file) || looksLikeJsonLines(text)))) parseJsonLines(ctx);
  else recoverJson(ctx);
}

/** Records in one file's text. Never throws; every failure is a RecordProblem. */
export function parseRecordText(text: string, file: string, opts: LoadOptions = {}): LoadResult {
  try {
    if (opts.streaming !== false) {
      const r = parseEntries(text, file, opts);
      if (r) return r;
    }
  } catch (e) {
    return internalError(file, e);
  }
  return parseWholeText(text, file, opts);
}

/** The whole text at once (the exact, slow way). */
function parseWholeText(text: string, file: string, opts: LoadOptions): LoadResult {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const ctx = new FileContext(text, file, opts.strict === true, opts.prose !== false);
  try {
    parseInto(ctx, opts.format ?? 'auto');
  } catch (e) {
    ctx.report(undefined, '(file)', 'error', `internal error while loading records: ${(e as Error)?.message ?? String(e)}`);
  }
  return ctx.result();
}

function internalError(file: string, e: unknown): LoadResult {
  return { records: [], problems: [fileProblem(file, 'error', `internal error while loading records: ${(e as Error)?.message ?? String(e)}`)], files: [file], sources: [] };
}

function fileProblem(file: string, severity: Severity, message: string): RecordProblem {
  return { file, line: 1, column: 1, endLine: 1, endColumn: 1, path: '(file)', severity, message };
}

function problemResult(file: string, message: string): LoadResult {
  return { records: [], problems: [fileProblem(file, 'error', message)], files: [file], sources: [] };
}

function parseDecoded(decoded: DecodedText, file: string, opts: LoadOptions): LoadResult {
  const result = parseWholeText(decoded.text, file, opts);
  if (decoded.warning) {
    const text = decoded.text.charCodeAt(0) === 0xfeff ? decoded.text.slice(1) : decoded.text;
    const at = new LineIndex(text).position(Math.max(0, (decoded.warningOffset ?? 0) - (text === decoded.text ? 0 : 1)));
    result.problems.unshift({ file, line: at.line, column: at.column, endLine: at.line, endColumn: at.column + 1, path: '(file)', severity: 'warning', message: decoded.warning });
  }
  return result;
}

/** Decompressed bytes: entry by entry when the splitter can vouch for them, else decoded whole. */
function parseData(data: Uint8Array, file: string, opts: LoadOptions): LoadResult {
  if (opts.streaming !== false) {
    const r = parseEntries(data, file, opts);
    if (r) return r;
  }
  return parseDecoded(decodeText(data), file, opts);
}

/** Records in one file's bytes (gzip detected by magic bytes). Never throws. */
export function parseRecordBytes(bytes: Uint8Array, file: string, opts: LoadOptions = {}): LoadResult {
  try {
    let data = bytes;
    if (isGzip(data)) {
      try {
        data = gunzipSyncLimited(data);
      } catch (e) {
        return problemResult(file, gunzipErrorMessage(e));
      }
    }
    if (data.byteLength > MAX_RECORD_FILE_BYTES) return problemResult(file, tooLarge(data.byteLength));
    return parseData(data, file, opts);
  } catch (e) {
    return problemResult(file, `cannot load records: ${(e as Error)?.message ?? String(e)}`);
  }
}

function tooLarge(bytes: number): string {
  return `the file is too large (${(bytes / 1048576).toFixed(0)} MiB; at most ${MAX_RECORD_FILE_BYTES / 1048576} MiB)`;
}

/** More than the cap was read (a pipe or device, or a file that grew while it was read). */
class TooLarge extends Error {
  constructor(readonly decompressed: boolean) {
    super(
      decompressed
        ? gunzipErrorMessage({ code: 'ERR_BUFFER_TOO_LARGE' })
        : `the input is larger than ${MAX_RECORD_FILE_BYTES / 1048576} MiB (reading stopped there; at most ${MAX_RECORD_FILE_BYTES / 1048576} MiB are loaded)`,
    );
  }
}

const READ_CHUNK = 1 << 20;

/** The bytes of `file` as they are read; throws TooLarge once more than the cap has been read. */
/** Bytes read so far, and their hash when the caller wants one. */
interface ReadCounter {
  bytes: number;
  hash?: Hash | undefined;
}

async function* readChunks(file: string, counter: ReadCounter): AsyncGenerator<Buffer> {
  const fh = await fsp.open(file, 'r');
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(READ_CHUNK);
      const { bytesRead } = await fh.read(buf, 0, READ_CHUNK, null);
      if (bytesRead === 0) return;
      counter.bytes += bytesRead;
      if (counter.bytes > MAX_RECORD_FILE_BYTES) throw new TooLarge(false);
      counter.hash?.update(buf.subarray(0, bytesRead));
      yield bytesRead === READ_CHUNK ? buf : buf.subarray(0, bytesRead);
    }
  } finally {
    await fh.close();
  }
}

/** Gunzip as the bytes come; throws TooLarge once the output passes the cap. */
async function* gunzipChunks(first: Buffer, rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  const gz = zlib.createGunzip();
  let failed: unknown;
  const feed = (async () => {
    try {
      if (!gz.write(first)) await new Promise((r) => gz.once('drain', r));
      for (;;) {
        const n = await rest.next();
        if (n.done) break;
        if (!gz.write(n.value)) await new Promise((r) => gz.once('drain', r));
      }
      gz.end();
    } catch (e) {
      failed = e;
      gz.destroy(e as Error);
    }
  })();
  let out = 0;
  try {
    for await (const chunk of gz) {
      out += (chunk as Buffer).length;
      if (out > MAX_RECORD_FILE_BYTES) throw new TooLarge(true);
      yield chunk as Buffer;
    }
    if (failed) throw failed;
  } catch (e) {
    throw failed ?? e;
  } finally {
    gz.destroy();
    await rest.return?.();
    await feed.catch(() => undefined);
  }
}

/** A zlib or file system error: the whole, slow read reports it in its own words. */
function readFailure(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException)?.code;
  return typeof code === 'string' && (code.startsWith('Z_') || (e as NodeJS.ErrnoException).syscall !== undefined);
}

/** A regular file entry by entry as it is read (gzip too); undefined when the slow way must decide. */
async function streamFile(file: string, counter: ReadCounter, opts: LoadOptions): Promise<LoadResult | undefined> {
  const it = readChunks(file, counter);
  try {
    const first = await it.next();
    if (first.done) return undefined; // empty: the slow way says so
    const reader = new EntryReader(file, opts);
    if (isGzip(first.value)) {
      for await (const c of gunzipChunks(first.value, it)) reader.pushBytes(c);
    } else {
      reader.pushBytes(first.value);
      for (;;) {
        const n = await it.next();
        if (n.done) break;
        reader.pushBytes(n.value);
      }
    }
    return reader.endBytes();
  } catch (e) {
    if (e instanceof TooLarge) return problemResult(file, e.message);
    if (e instanceof Bail || readFailure(e)) return undefined;
    throw e;
  } finally {
    await it.return(undefined);
  }
}

/** All of a file's bytes, read once (capped: throws TooLarge). */
async function readAll(file: string, counter: ReadCounter): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of readChunks(file, counter)) parts.push(c);
  return Buffer.concat(parts);
}

/** A file saved in place (truncate, then write) can be read half-written. A read that overlapped a
 * change, or a broken or empty result from a file modified less than FRESH_MS ago (a writer may be
 * stalled mid-save), is read again every SETTLE_MS for up to FRESH_MS in all, so a load gives the
 * old or the new content whole; a file that is really broken is reported at most ~FRESH_MS later.
 * Anything that is not a regular file (a pipe, `<(cmd)`, a device) is read exactly once. */
const SETTLE_MS = 25;
const FRESH_MS = 1000;
const RELOADS = FRESH_MS / SETTLE_MS;

async function loadFile(file: string, opts: LoadOptions): Promise<LoadResult> {
  try {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      const before = await fsp.stat(file);
      if (!before.isFile()) return await readOnce(file, opts);
      if (before.size > MAX_RECORD_FILE_BYTES) return problemResult(file, tooLarge(before.size));
      const hashedAt = Date.now();
      const counter: ReadCounter = { bytes: 0, hash: opts.digests ? createHash('sha256') : undefined };
      let result = opts.streaming !== false ? await streamFile(file, counter, opts) : undefined;
      if (!result) {
        counter.bytes = 0;
        if (counter.hash) counter.hash = createHash('sha256');
        try {
          result = await parseFileBytes(await readAll(file, counter), file, { ...opts, streaming: false });
        } catch (e) {
          if (!(e instanceof TooLarge)) throw e;
          result = problemResult(file, e.message);
        }
      }
      const after = await fsp.stat(file);
      const changed = before.size !== after.size || before.mtimeMs !== after.mtimeMs || before.ino !== after.ino || counter.bytes !== after.size;
      const mayRetry = attempt < RELOADS && Date.now() - started < FRESH_MS;
      if (!(changed && mayRetry)) {
        const fresh = Math.abs(Date.now() - after.mtimeMs) < FRESH_MS;
        const broken = counter.bytes === 0 || result.problems.some((p) => p.severity === 'error');
        if (!(mayRetry && fresh && broken)) {
          if (counter.hash) opts.digests?.set(file, { size: counter.bytes, sha256: counter.hash.digest('hex'), mtimeMs: after.mtimeMs, ino: after.ino, hashedAt, unchanged: !changed });
          return result;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    }
  } catch (e) {
    return problemResult(file, `cannot read: ${(e as Error)?.message ?? String(e)}`);
  }
}

/** A pipe or device: read once, as a stream, at most the cap; then parsed from memory. */
async function readOnce(file: string, opts: LoadOptions): Promise<LoadResult> {
  let raw: Buffer;
  try {
    raw = await readAll(file, { bytes: 0 });
  } catch (e) {
    if (e instanceof TooLarge) return problemResult(file, e.message);
    throw e;
  }
  return parseFileBytes(raw, file, opts);
}

async function parseFileBytes(raw: Uint8Array, file: string, opts: LoadOptions): Promise<LoadResult> {
  let data = raw;
  if (isGzip(data)) {
    try {
      data = await gunzipLimited(data);
    } catch (e) {
      return problemResult(file, gunzipErrorMessage(e));
    }
  }
  return parseData(data, file, opts);
}

/** Records from a file (.json, .jsonl, .ndjson, any of them .gz) or a folder (recursive). Never throws. */
export async function loadRecordsFromPath(p: string, opts: LoadOptions = {}): Promise<LoadResult> {
  try {
    const walked = await listRecordFiles(p, opts.within ? { within: opts.within } : {});
    const parts: LoadResult[] = [{ records: [], problems: walked.problems.map((w) => fileProblem(w.file, 'error', w.message)), files: [], sources: [] }];
    if (walked.files.length === 0 && walked.problems.length === 0)
      parts[0]!.problems.push(fileProblem(p, 'info', 'no record files (*.json, *.jsonl, *.ndjson, optionally .gz) in this folder'));
    for (const file of walked.files) parts.push(await loadFile(file, opts));
    if (parts.length === 2 && parts[0]!.problems.length === 0) return parts[1]!; // one file: already merged within itself
    const all: LoadResult = { records: [], problems: [], files: [], sources: [] };
    for (const part of parts) {
      // element by element: a file can hold more records than spread arguments allow
      for (const r of part.records) all.records.push(r);
      for (const pr of part.problems) all.problems.push(pr);
      for (const f of part.files) all.files.push(f);
      for (const s of part.sources ?? part.records.map(() => unknownSource(part.files[0] ?? p))) all.sources!.push(s);
    }
    return dedupe(all);
  } catch (e) {
    return { records: [], problems: [fileProblem(p, 'error', `cannot load records: ${(e as Error)?.message ?? String(e)}`)], files: [], sources: [] };
  }
}

// -------------------------------------------------------------------------------------------------
// Duplicates

function unknownSource(file: string): RecordSource {
  return { file, path: '(file)', line: 1, column: 1, endLine: 1, endColumn: 1 };
}

function describeSource(s: RecordSource, origin?: RecordOrigin): string {
  return `${origin ? `the ${origin} record in ` : ''}${s.file}:${s.line}:${s.column}`;
}

/** Within one load result: later duplicates replace earlier ones (reported as info). */
function dedupe(result: LoadResult): LoadResult {
  const merged = merge([{ origin: 'user', result }], false);
  UNIQUE.add(merged.records);
  return { records: merged.records, problems: merged.problems, files: result.files, sources: merged.sources };
}

/** Record arrays made by dedupe (no id twice): a merge of one such set need not look again (a
 * Set of 100k ids took ~80 ms of a cold scan). */
const UNIQUE = new WeakSet<readonly ErrorRecord[]>();

/**
 * Merge record sets in order: on a duplicate id the later set (or later record) wins, reported
 * as an `info` problem at the later record's id, naming the earlier source.
 */
export function mergeRecordSets(sets: { origin: RecordOrigin; result: LoadResult }[]): MergedRecords {
  const m = merge(sets, true);
  // (the maps by id on first read: a scan reads neither, and two maps of 100k ids took ~100 ms)
  let byId: { origins: Map<string, RecordOrigin>; sources: Map<string, RecordSource> } | undefined;
  const maps = () => {
    if (!byId) {
      byId = { origins: new Map(), sources: new Map() };
      for (let i = 0; i < m.records.length; i++) {
        byId.origins.set(m.records[i]!.id, m.origins[i]!);
        byId.sources.set(m.records[i]!.id, m.sources[i]!);
      }
    }
    return byId;
  };
  return {
    records: m.records,
    problems: m.problems,
    get origins() {
      return maps().origins;
    },
    get sources() {
      return maps().sources;
    },
  };
}

export interface MergedRecords {
  records: ErrorRecord[];
  problems: RecordProblem[];
  origins: Map<string, RecordOrigin>;
  /** Where each winning record is defined (its id), for "go to record" features. */
  sources: Map<string, RecordSource>;
}

/** The winners in first-occurrence order (a later duplicate takes the earlier one's place), with
 * their origins and sources as parallel arrays. */
function merge(
  sets: { origin: RecordOrigin; result: LoadResult }[],
  nameOrigins: boolean,
): { records: ErrorRecord[]; origins: RecordOrigin[]; sources: RecordSource[]; problems: RecordProblem[] } {
  if (sets.length === 1) {
    // one set without a duplicate id (the common case: one file): its own arrays, no slot table
    const { origin, result } = sets[0]!;
    const rs = result.records;
    if (result.sources && result.sources.length === rs.length) {
      let dup = false;
      if (!UNIQUE.has(rs)) {
        const seen = new Set<string>();
        for (let i = 0; i < rs.length; i++) {
          const id = rs[i]!.id;
          if (seen.has(id)) {
            dup = true;
            break;
          }
          seen.add(id);
        }
      }
      if (!dup) return { records: rs, origins: new Array<RecordOrigin>(rs.length).fill(origin), sources: result.sources, problems: result.problems.slice() };
    }
  }
  const slot = new Map<string, number>();
  const records: ErrorRecord[] = [];
  const origins: RecordOrigin[] = [];
  const sources: RecordSource[] = [];
  const problems: RecordProblem[] = [];
  for (const { origin, result } of sets) {
    for (const pr of result.problems) problems.push(pr);
    const rs = result.records;
    for (let i = 0; i < rs.length; i++) {
      const record = rs[i]!;
      const source = result.sources?.[i] ?? unknownSource(result.files[0] ?? '(unknown)');
      const k = slot.get(record.id);
      if (k === undefined) {
        slot.set(record.id, records.length);
        records.push(record);
        origins.push(origin);
        sources.push(source);
        continue;
      }
      problems.push({
        file: source.file,
        line: source.line,
        column: source.column,
        endLine: source.endLine,
        endColumn: source.endColumn,
        path: source.path,
        severity: 'info',
        message: `duplicate id ${record.id}: this record replaces ${describeSource(sources[k]!, nameOrigins ? origins[k] : undefined)}`,
      });
      records[k] = record;
      origins[k] = origin;
      sources[k] = source;
    }
  }
  return { records, origins, sources, problems };
}
