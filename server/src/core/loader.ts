// Record files in every form, with located problems. Never throws.
//
// Forms: one record object; the API envelope {"record": {...}, "datasetVersion": "..."}; a JSON
// array of records or envelopes (ErrLookup's per-repository export); JSON Lines (one object,
// envelope or array per line, blank lines ignored); any of these gzip-compressed (detected by the
// magic bytes); a folder, recursively (records/walk.ts).
//
// Speed: JSON.parse first. Positions are needed for problems and for each record's `id` (duplicate
// reports), so valid text is then outlined by a non-recursive scanner (records/locate.ts). Only
// text that JSON.parse rejects goes through jsonc-parser, which recovers the records around the
// syntax errors; its input is depth-limited first so it cannot overflow the stack.
//
// Paths in problems: `[3].record.httpStatus` for the 4th entry of an array; for JSON Lines the
// index is the 0-based line number (`[9]` is line 10); a single-object file has paths like
// `httpStatus`; `(root)` is the top-level value and `(file)` the file as a whole.

import { getNodeValue, parseTree, printParseErrorCode, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import { promises as fsp } from 'node:fs';
import type { ErrorRecord, RecordOrigin, RecordProblem } from './record';
import { decodeText, gunzipErrorMessage, gunzipLimited, gunzipSyncLimited, isGzip, MAX_RECORD_FILE_BYTES, type DecodedText } from './records/decode';
import { formatPath, jsoncLocator, limitDepth, outlineLocator, type Locator, type PathSeg, type Span } from './records/locate';
import { LineIndex } from './records/positions';
import { listRecordFiles } from './records/walk';
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
  /** Folders the load may read from, symlinks resolved (records/walk.ts); undefined: anywhere. */
  within?: readonly string[];
}

/** Problems reported per file at most (the rest are counted in one summary problem). */
export const MAX_PROBLEMS_PER_FILE = 1000;
/** Syntax errors reported per file at most (recovery after the first few is mostly noise). */
export const MAX_SYNTAX_ERRORS = 20;
/** Deepest nesting handed to jsonc-parser; a valid record file needs 5 levels. */
export const MAX_JSON_DEPTH = 32;

type Severity = RecordProblem['severity'];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

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
  ) {}

  private index(): LineIndex {
    return (this.lines ??= new LineIndex(this.text));
  }

  range(span: Span | undefined): { line: number; column: number; endLine: number; endColumn: number } {
    if (!span) return { line: 1, column: 1, endLine: 1, endColumn: 1 };
    const a = this.index().position(span.offset);
    const b = this.index().position(span.offset + span.length);
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
    duplicateKeys: (p) => (loc ??= make()).duplicateKeys(p),
  };
}

/** A locator for a sub-document (a JSON Lines line) whose paths carry `prefix` in front. */
function withPrefix(prefixLength: number, inner: Locator): Locator {
  return {
    value: (p) => inner.value(p.slice(prefixLength)),
    key: (p) => (p.length > prefixLength ? inner.key(p.slice(prefixLength)) : undefined),
    duplicateKeys: (p) => inner.duplicateKeys(p.slice(prefixLength)),
  };
}

const braceOf = (span: Span | undefined): Span | undefined => span && { offset: span.offset, length: 1 };

// -------------------------------------------------------------------------------------------------
// Values -> records

const ENVELOPE_KEYS: ReadonlySet<string> = new Set(['record', 'datasetVersion', '$schema']);

/** One array entry / line / file value that should be a record or an envelope. */
function processEntry(ctx: FileContext, value: unknown, base: PathSeg[], loc: Locator): void {
  if (!isObject(value)) {
    ctx.report(loc.value(base), formatPath(base), 'error', `expected a record object or a {"record": …, "datasetVersion": …} envelope, got ${describe(value)}; skipped`);
    return;
  }
  let raw: unknown = value;
  let recPath = base;
  if (has(value, 'record')) {
    for (const key of Object.keys(value))
      if (!ENVELOPE_KEYS.has(key)) ctx.report(loc.key([...base, key]), formatPath([...base, key]), 'info', `unknown envelope field "${key}" is ignored`);
    if (has(value, 'datasetVersion') && typeof value.datasetVersion !== 'string' && value.datasetVersion !== null)
      ctx.report(loc.value([...base, 'datasetVersion']), formatPath([...base, 'datasetVersion']), 'warning', `datasetVersion should be a string, got ${describe(value.datasetVersion)}`);
    raw = value.record;
    recPath = [...base, 'record'];
  }
  if (isObject(raw))
    for (const d of loc.duplicateKeys(recPath))
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
  ctx.records.push(record);
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
    ctx.report(loc.value(base), formatPath(base), 'error', `expected a record object, an envelope or an array of them, got ${describe(value)}`);
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
 * string; point at the character itself. `text` is the text the offsets refer to (after `base`). */
function spanOfError(e: ParseError, base: number, text: string): Span {
  if (printParseErrorCode(e.error) === 'InvalidCharacter') {
    for (let i = base + e.offset; i < base + e.offset + e.length && i < text.length; i++)
      if (text.charCodeAt(i) < 0x20) return { offset: i, length: 1 };
  }
  // an empty error span is widened to one character, but never onto a line end (CR or LF)
  const at = base + e.offset;
  const c = text.charCodeAt(at);
  return { offset: at, length: e.length > 0 ? e.length : at < text.length && c !== 10 && c !== 13 ? 1 : 0 };
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
      const base: PathSeg[] = [lineNo];
      let value: unknown;
      let ok = true;
      try {
        value = JSON.parse(line);
      } catch (e) {
        ok = false;
        const limited = limitDepth(line, MAX_JSON_DEPTH);
        const errors: ParseError[] = [];
        parseTree(limited.text, errors, { disallowComments: true, allowTrailingComma: false });
        const first = errors[0];
        if (limited.tooDeep.length > 0)
          ctx.report({ offset: start + limited.tooDeep[0]!, length: 1 }, formatPath(base), 'error', `JSON nested deeper than ${MAX_JSON_DEPTH} levels; line skipped`);
        else if (first)
          ctx.report(spanOfError(first, start, text), formatPath(base), 'error', `${syntaxMessage(first)}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}; line skipped`);
        else ctx.report({ offset: start, length: line.length }, formatPath(base), 'error', `JSON syntax error: ${(e as Error).message}; line skipped`);
      }
      if (ok) {
        const lineText = line;
        const lineStart = start;
        processRoot(ctx, value, base, withPrefix(1, lazy(() => outlineLocator(lineText, lineStart))));
      }
    }
    lineNo++;
    start = end + 1;
  }
}

// -------------------------------------------------------------------------------------------------
// Public API

function jsonLinesByName(file: string): boolean {
  return /\.(?:jsonl|ndjson)(?:\.gz)?$/i.test(file);
}

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
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const ctx = new FileContext(text, file, opts.strict === true);
  try {
    parseInto(ctx, opts.format ?? 'auto');
  } catch (e) {
    ctx.report(undefined, '(file)', 'error', `internal error while loading records: ${(e as Error)?.message ?? String(e)}`);
  }
  return ctx.result();
}

function fileProblem(file: string, severity: Severity, message: string): RecordProblem {
  return { file, line: 1, column: 1, endLine: 1, endColumn: 1, path: '(file)', severity, message };
}

function parseDecoded(decoded: DecodedText, file: string, opts: LoadOptions): LoadResult {
  const result = parseRecordText(decoded.text, file, opts);
  if (decoded.warning) {
    const text = decoded.text.charCodeAt(0) === 0xfeff ? decoded.text.slice(1) : decoded.text;
    const at = new LineIndex(text).position(Math.max(0, (decoded.warningOffset ?? 0) - (text === decoded.text ? 0 : 1)));
    result.problems.unshift({ file, line: at.line, column: at.column, endLine: at.line, endColumn: at.column + 1, path: '(file)', severity: 'warning', message: decoded.warning });
  }
  return result;
}

/** Records in one file's bytes (gzip detected by magic bytes). Never throws. */
export function parseRecordBytes(bytes: Uint8Array, file: string, opts: LoadOptions = {}): LoadResult {
  try {
    let data = bytes;
    if (isGzip(data)) {
      try {
        data = gunzipSyncLimited(data);
      } catch (e) {
        return { records: [], problems: [fileProblem(file, 'error', gunzipErrorMessage(e))], files: [file], sources: [] };
      }
    }
    if (data.byteLength > MAX_RECORD_FILE_BYTES) return { records: [], problems: [fileProblem(file, 'error', tooLarge(data.byteLength))], files: [file], sources: [] };
    return parseDecoded(decodeText(data), file, opts);
  } catch (e) {
    return { records: [], problems: [fileProblem(file, 'error', `cannot load records: ${(e as Error)?.message ?? String(e)}`)], files: [file], sources: [] };
  }
}

function tooLarge(bytes: number): string {
  return `the file is too large (${(bytes / 1048576).toFixed(0)} MiB; at most ${MAX_RECORD_FILE_BYTES / 1048576} MiB)`;
}

/** A file saved in place (truncate, then write) can be read half-written. A read that overlapped a
 * change, or a broken or empty result from a file modified less than FRESH_MS ago (a writer may be
 * stalled mid-save), is read again every SETTLE_MS for up to FRESH_MS in all, so a load gives the
 * old or the new content whole; a file that is really broken is reported at most ~FRESH_MS later. */
const SETTLE_MS = 25;
const FRESH_MS = 1000;
const RELOADS = FRESH_MS / SETTLE_MS;

async function loadFile(file: string, opts: LoadOptions): Promise<LoadResult> {
  try {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      const before = await fsp.stat(file);
      if (before.size > MAX_RECORD_FILE_BYTES) return { records: [], problems: [fileProblem(file, 'error', tooLarge(before.size))], files: [file], sources: [] };
      const raw: Uint8Array = await fsp.readFile(file);
      const after = await fsp.stat(file);
      const changed = before.size !== after.size || before.mtimeMs !== after.mtimeMs || before.ino !== after.ino || raw.byteLength !== after.size;
      const mayRetry = attempt < RELOADS && Date.now() - started < FRESH_MS;
      if (!(changed && mayRetry)) {
        const result = await parseFileBytes(raw, file, opts);
        const fresh = Math.abs(Date.now() - after.mtimeMs) < FRESH_MS;
        const broken = raw.byteLength === 0 || result.problems.some((p) => p.severity === 'error');
        if (!(mayRetry && fresh && broken)) return result;
      }
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    }
  } catch (e) {
    return { records: [], problems: [fileProblem(file, 'error', `cannot read: ${(e as Error)?.message ?? String(e)}`)], files: [file], sources: [] };
  }
}

async function parseFileBytes(raw: Uint8Array, file: string, opts: LoadOptions): Promise<LoadResult> {
  let data = raw;
  if (isGzip(data)) {
    try {
      data = await gunzipLimited(data);
    } catch (e) {
      return { records: [], problems: [fileProblem(file, 'error', gunzipErrorMessage(e))], files: [file], sources: [] };
    }
  }
  return parseDecoded(decodeText(data), file, opts);
}

/** Records from a file (.json, .jsonl, .ndjson, any of them .gz) or a folder (recursive). Never throws. */
export async function loadRecordsFromPath(p: string, opts: LoadOptions = {}): Promise<LoadResult> {
  try {
    const walked = await listRecordFiles(p, opts.within ? { within: opts.within } : {});
    const parts: LoadResult[] = [{ records: [], problems: walked.problems.map((w) => fileProblem(w.file, 'error', w.message)), files: [], sources: [] }];
    if (walked.files.length === 0 && walked.problems.length === 0)
      parts[0]!.problems.push(fileProblem(p, 'info', 'no record files (*.json, *.jsonl, *.ndjson, optionally .gz) in this folder'));
    for (const file of walked.files) parts.push(await loadFile(file, opts));
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
  return { records: merged.records, problems: merged.problems, files: result.files, sources: merged.records.map((r) => merged.sources.get(r.id)!) };
}

/**
 * Merge record sets in order: on a duplicate id the later set (or later record) wins, reported
 * as an `info` problem at the later record's id, naming the earlier source.
 */
export function mergeRecordSets(sets: { origin: RecordOrigin; result: LoadResult }[]): MergedRecords {
  return merge(sets, true);
}

export interface MergedRecords {
  records: ErrorRecord[];
  problems: RecordProblem[];
  origins: Map<string, RecordOrigin>;
  /** Where each winning record is defined (its id), for "go to record" features. */
  sources: Map<string, RecordSource>;
}

function merge(sets: { origin: RecordOrigin; result: LoadResult }[], nameOrigins: boolean): MergedRecords {
  const byId = new Map<string, { record: ErrorRecord; origin: RecordOrigin; source: RecordSource }>();
  const problems: RecordProblem[] = [];
  for (const { origin, result } of sets) {
    for (const pr of result.problems) problems.push(pr);
    result.records.forEach((record, i) => {
      const source = result.sources?.[i] ?? unknownSource(result.files[0] ?? '(unknown)');
      const prev = byId.get(record.id);
      if (prev) {
        problems.push({
          file: source.file,
          line: source.line,
          column: source.column,
          endLine: source.endLine,
          endColumn: source.endColumn,
          path: source.path,
          severity: 'info',
          message: `duplicate id ${record.id}: this record replaces ${describeSource(prev.source, nameOrigins ? prev.origin : undefined)}`,
        });
      }
      byId.set(record.id, { record, origin, source });
    });
  }
  const records: ErrorRecord[] = [];
  const origins = new Map<string, RecordOrigin>();
  const sources = new Map<string, RecordSource>();
  for (const [id, v] of byId) {
    records.push(v.record);
    origins.set(id, v.origin);
    sources.set(id, v.source);
  }
  return { records, problems, origins, sources };
}
