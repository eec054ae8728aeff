// Field rules of ErrLookup's ErrorEntry, schemaVersion 2.
//
// Two modes:
// - strict (records from ErrLookup: bundled, dataset): every field of ErrorRecord must be present
//   and valid; any violation is an error and the record is skipped.
// - lenient (a user's own records, the default): only `messagePattern` or `errorMessage` is
//   needed; everything else gets a default. A present but wrong optional field is a warning and
//   falls back to its default; a record without a usable pattern/message is an error (skipped).
// In both modes:
// - an unusable pattern (pattern.ts patternProblem: too long, too few literal characters, syntax,
//   or what the linear-time engine cannot run) is an error at the messagePattern value and the
//   record is skipped;
// - unknown fields are reported as `info` (with a "did you mean" hint for near misses) and dropped;
//   `$schema` is allowed silently so user files can point VS Code at records/schema.json;
// - strings containing lone UTF-16 surrogates are repaired (U+FFFD) with a warning;
//   U+0000 is accepted as ordinary data (it is valid JSON and can appear in logs).
//
// This module only sees values; issues carry paths relative to the record object and the loader
// turns them into line/column positions.

import { createHash } from 'node:crypto';
import { describe, has, isObject } from './jsonValue';
import { derivePattern, patternProblem } from '../pattern';
import { ERROR_TYPES, HANDLING_STRATEGIES, SCHEMA_VERSION, SEVERITIES, type ErrorRecord, type ErrorType } from '../record';

export type IssuePath = (string | number)[];

export interface FieldIssue {
  /** Path relative to the record object; [] is the record object itself. */
  path: IssuePath;
  /** What to point at: the value at `path`, its property name, or the record object (missing field). */
  at: 'value' | 'key' | 'object';
  severity: 'error' | 'warning' | 'info';
  message: string;
}

export interface Validation {
  /** The record with defaults filled in; undefined when it is skipped (an error issue). */
  record: ErrorRecord | undefined;
  issues: FieldIssue[];
}

export interface ValidateOptions {
  /** ErrLookup records: all fields required and checked. Default false (user records). */
  strict?: boolean;
}

/** Repository of user records that do not name one. */
export const DEFAULT_REPO = 'local/records';
export const MAX_SOURCE_LINES = 40;
export const MAX_SLUG_LENGTH = 48;
/** Unknown fields reported one by one per record (the rest are counted). */
export const MAX_UNKNOWN_REPORTED = 20;

/** Every field of ErrorRecord, in ErrLookup's order. */
export const RECORD_FIELDS = [
  'id', 'repo', 'slug', 'errorCode', 'errorMessage', 'messagePattern', 'errorType', 'errorClass', 'httpStatus',
  'severity', 'filePath', 'lineNumber', 'sourceCode', 'sourceCodeStart', 'sourceCodeEnd', 'githubUrl',
  'documentation', 'triggerScenarios', 'commonSituations', 'solutions', 'exampleFix', 'handlingStrategy',
  'validationCode', 'typeGuard', 'tryCatchPattern', 'preventionTips', 'tags', 'backgroundTag', 'analyzedSha',
  'analyzedAt', 'schemaVersion',
] as const satisfies readonly (keyof ErrorRecord)[];
type Field = (typeof RECORD_FIELDS)[number];
// Compile-time check that RECORD_FIELDS lists every key of ErrorRecord.
type MissingField = Exclude<keyof ErrorRecord, Field>;
const _allFields: MissingField extends never ? true : MissingField = true;
void _allFields;

const FIELD_SET: ReadonlySet<string> = new Set(RECORD_FIELDS);

export const ID_RE = /^[0-9a-f]{16}$/;
export const REPO_RE = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
export const KEBAB_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SHA_RE = /^[0-9a-f]{40}$/;
export const ISO_UTC_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;

// -------------------------------------------------------------------------------------------------
// Defaults

/** Default id of a user record: the first 16 hex digits of sha256 over
 * `${repo}\n${errorMessage}\n${filePath}` (filePath '' when null). Stable across reloads, and
 * shaped like ErrLookup ids (16 lowercase hex). */
export function defaultId(repo: string, errorMessage: string, filePath: string | null): string {
  return createHash('sha256').update(`${repo}\n${errorMessage}\n${filePath ?? ''}`).digest('hex').slice(0, 16);
}

/** Slug from a message, by ErrLookup's rule (kebab-case of the message's first 50 characters),
 * capped at 48 characters. Empty when the message has no ASCII letters or digits. */
export function slugFromMessage(message: string): string {
  const kebab = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return kebab(kebab(message.slice(0, 50)).slice(0, MAX_SLUG_LENGTH));
}

/** Why a messagePattern cannot be used, or undefined. */
export function messagePatternProblem(pattern: string): string | undefined {
  // no limit on holes: simple patterns are matched by a chain of indexOf searches and the others
  // on a linear-time engine, so a near-miss line costs linear time whatever their number
  return patternProblem(pattern);
}

// -------------------------------------------------------------------------------------------------
// Field rules

interface Fail {
  message: string;
  /** Sub-path below the field (e.g. [2] for tags[2]). */
  sub?: (string | number)[];
}
type Check = (v: unknown) => Fail | undefined;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

function str(opts: { nullable?: boolean; nonEmpty?: boolean; re?: RegExp; reDesc?: string; extra?: (s: string) => string | undefined } = {}): Check {
  const want = `a ${opts.nonEmpty ? 'non-empty ' : ''}string${opts.nullable ? ' or null' : ''}`;
  return (v) => {
    if (v === null && opts.nullable) return undefined;
    if (typeof v !== 'string') return { message: `must be ${want}, got ${describe(v)}` };
    if (opts.nonEmpty && v.trim() === '') return { message: `must be ${want}, got an empty string` };
    if (opts.re && !opts.re.test(v)) return { message: `must be ${opts.reDesc}, got ${describe(v)}` };
    const extra = opts.extra?.(v);
    return extra ? { message: extra } : undefined;
  };
}

function int(opts: { nullable?: boolean; min: number; max?: number; desc: string }): Check {
  return (v) => {
    if (v === null && opts.nullable) return undefined;
    if (!isInt(v) || v < opts.min || (opts.max !== undefined && v > opts.max))
      return { message: `must be ${opts.desc}${opts.nullable ? ' or null' : ''}, got ${describe(v)}` };
    return undefined;
  };
}

function oneOf(values: readonly string[], nullable = false): Check {
  const list = values.map((x) => `"${x}"`).join(', ') + (nullable ? ' or null' : '');
  return (v) => {
    if (v === null && nullable) return undefined;
    if (typeof v === 'string' && values.includes(v)) return undefined;
    return { message: `must be one of ${list}, got ${describe(v)}` };
  };
}

function strArray(item?: { re: RegExp; desc: string }): Check {
  return (v) => {
    if (!Array.isArray(v)) return { message: `must be an array of strings, got ${describe(v)}` };
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x !== 'string') return { message: `items must be strings, got ${describe(x)}`, sub: [i] };
      if (item && !item.re.test(x)) return { message: `items must be ${item.desc}, got ${describe(x)}`, sub: [i] };
    }
    return undefined;
  };
}

function lineCount(s: string): number {
  if (s === '') return 0;
  let n = 1;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return s.endsWith('\n') ? n - 1 : n;
}

function githubUrlProblem(s: string): string | undefined {
  if (!s.startsWith('https://github.com/')) return `must be an https://github.com/… URL, got ${describe(s)}`;
  try {
    const u = new URL(s);
    if (u.hostname !== 'github.com') return `must be an https://github.com/… URL, got ${describe(s)}`;
  } catch {
    return `is not a valid URL: ${describe(s)}`;
  }
  return undefined;
}

/** Whether a pattern is anchored at the start (^) or end (unescaped $). ErrLookup patterns are
 * unanchored: they are searched for anywhere in a line (or in a JSON string value of it). */
export function isAnchored(pattern: string): boolean {
  if (pattern.startsWith('^')) return true;
  if (!pattern.endsWith('$')) return false;
  let bs = 0;
  for (let i = pattern.length - 2; i >= 0 && pattern[i] === '\\'; i--) bs++;
  return bs % 2 === 0;
}

const ANCHORED = 'must be unanchored (no leading ^ or trailing $): patterns are searched for anywhere in a line';

const patternCheck: Check = (v) => {
  if (typeof v !== 'string' || v === '') return { message: `must be a non-empty string (a JavaScript regex source), got ${describe(v)}` };
  const p = messagePatternProblem(v);
  if (p) return { message: p };
  return isAnchored(v) ? { message: ANCHORED } : undefined;
};

const RULES: Record<Field, Check> = {
  id: str({ re: ID_RE, reDesc: '16 lowercase hex digits' }),
  repo: str({ re: REPO_RE, reDesc: 'a GitHub repository as "owner/name"' }),
  slug: str({ re: KEBAB_RE, reDesc: 'lowercase kebab-case (a-z, 0-9 and single hyphens)' }),
  errorCode: str({ nullable: true }),
  errorMessage: str({ nonEmpty: true }),
  messagePattern: patternCheck,
  errorType: oneOf(ERROR_TYPES),
  errorClass: str({ nullable: true }),
  httpStatus: int({ nullable: true, min: 100, max: 599, desc: 'an integer HTTP status from 100 to 599' }),
  severity: oneOf(SEVERITIES),
  filePath: str({ nullable: true }),
  lineNumber: int({ nullable: true, min: 1, desc: 'a positive integer' }),
  sourceCode: str({
    nullable: true,
    extra: (s) => {
      const n = lineCount(s);
      return n > MAX_SOURCE_LINES ? `must have at most ${MAX_SOURCE_LINES} lines, has ${n}` : undefined;
    },
  }),
  sourceCodeStart: int({ nullable: true, min: 1, desc: 'a positive integer' }),
  sourceCodeEnd: int({ nullable: true, min: 1, desc: 'a positive integer' }),
  githubUrl: str({ nullable: true, extra: githubUrlProblem }),
  documentation: str({ nullable: true }),
  triggerScenarios: str({ nullable: true }),
  commonSituations: str({ nullable: true }),
  solutions: strArray(),
  exampleFix: str({ nullable: true }),
  handlingStrategy: oneOf(HANDLING_STRATEGIES, true),
  validationCode: str({ nullable: true }),
  typeGuard: str({ nullable: true }),
  tryCatchPattern: str({ nullable: true }),
  preventionTips: strArray(),
  tags: strArray({ re: KEBAB_RE, desc: 'kebab-case (a-z, 0-9 and single hyphens)' }),
  backgroundTag: str({ nullable: true }),
  analyzedSha: str({ nullable: true, re: SHA_RE, reDesc: 'a 40-digit lowercase hex commit SHA' }),
  analyzedAt: str({
    nullable: true,
    re: ISO_UTC_RE,
    reDesc: 'an ISO 8601 UTC timestamp like 2026-08-28T05:10:05.995Z',
    extra: (s) => (Number.isNaN(Date.parse(s)) ? `is not a real date: ${describe(s)}` : undefined),
  }),
  schemaVersion: (v) => (v === SCHEMA_VERSION ? undefined : { message: `must be ${SCHEMA_VERSION}, got ${describe(v)}` }),
};

const ARRAY_FIELDS: ReadonlySet<Field> = new Set(['solutions', 'preventionTips', 'tags']);

/** Fields whose string value the rules above check for its type, well-formedness and line count
 * only (never its words), and FREE_TEXT_LISTS: arrays whose string items are checked so. A load
 * that keeps no prose reads these values shortened (load/reduce.ts): the shortened string keeps
 * every line end and its last character, so it passes exactly the checks the whole one passes (a
 * property test holds validation of both to the same result). A rule that reads more of one of
 * these values must take its field off this list. */
export const FREE_TEXT_FIELDS = ['documentation', 'triggerScenarios', 'commonSituations', 'exampleFix', 'validationCode', 'typeGuard', 'tryCatchPattern', 'backgroundTag', 'sourceCode'] as const satisfies readonly Field[];
export const FREE_TEXT_LISTS = ['solutions', 'preventionTips'] as const satisfies readonly Field[];

// -------------------------------------------------------------------------------------------------
// Strings: lone surrogates

const SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The string with lone surrogates replaced by U+FFFD, or undefined when it is well-formed. */
export function repairSurrogates(s: string): string | undefined {
  if (!SURROGATE.test(s)) return undefined;
  LONE_SURROGATE.lastIndex = 0;
  if (!LONE_SURROGATE.test(s)) return undefined;
  return s.replace(LONE_SURROGATE, '\uFFFD');
}

// -------------------------------------------------------------------------------------------------
// Unknown fields

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

export function suggestField(key: string): string | undefined {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestD = 3;
  for (const f of RECORD_FIELDS) {
    const d = f.toLowerCase() === lower ? 0 : editDistance(lower, f.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = f;
    }
  }
  return bestD <= 2 ? best : undefined;
}

// -------------------------------------------------------------------------------------------------
// Validation

function defaultErrorType(errorCode: string | null, httpStatus: number | null): ErrorType {
  if (errorCode !== null) return 'error_code';
  if (httpStatus !== null) return 'http';
  return 'exception';
}

/** Validate one record object (the value inside an envelope, if any). */
export function validateRecord(raw: unknown, opts: ValidateOptions = {}): Validation {
  const strict = opts.strict === true;
  if (isObject(raw)) {
    const record = cleanRecord(raw, strict);
    if (record) return { record, issues: [] };
  }
  return validateWithIssues(raw, strict);
}

/** validateRecord without the shortcut for records that have no issue (the tests compare the two). */
export function validateRecordExact(raw: unknown, opts: ValidateOptions = {}): Validation {
  return validateWithIssues(raw, opts.strict === true);
}

/** The rules one by one, with every issue (the answer for any record cleanRecord does not accept). */
function validateWithIssues(raw: unknown, strict: boolean): Validation {
  const issues: FieldIssue[] = [];
  if (!isObject(raw)) {
    issues.push({ path: [], at: 'value', severity: 'error', message: `a record must be a JSON object, got ${describe(raw)}` });
    return { record: undefined, issues };
  }
  unknownFieldIssues(raw, issues);
  const val = readFields(raw, issues);
  return strict ? strictRecord(val, issues) : lenientRecord(val, issues);
}

type Values = Map<Field, unknown>;
type Fields = Partial<Record<Field, unknown>>;

/** `info` issues for fields ErrorRecord does not have (`$schema` aside), the first
 * MAX_UNKNOWN_REPORTED one by one with a "did you mean", the rest counted. */
function unknownFieldIssues(obj: Record<string, unknown>, issues: FieldIssue[]): void {
  let unknown = 0;
  for (const key of Object.keys(obj)) {
    if (FIELD_SET.has(key) || key === '$schema') continue;
    if (++unknown > MAX_UNKNOWN_REPORTED) continue;
    const hint = suggestField(key);
    issues.push({
      path: [key],
      at: 'key',
      severity: 'info',
      message: `unknown field "${key}" is ignored${hint ? ` (did you mean "${hint}"?)` : ''}`,
    });
  }

  if (unknown > MAX_UNKNOWN_REPORTED)
    issues.push({ path: [], at: 'object', severity: 'info', message: `${unknown - MAX_UNKNOWN_REPORTED} more unknown fields are ignored` });
}

/** Every present field, lone surrogates in strings (and in string arrays) repaired with a warning. */
function readFields(obj: Record<string, unknown>, issues: FieldIssue[]): Values {
  const val: Values = new Map();
  for (const f of RECORD_FIELDS) {
    if (!has(obj, f)) continue;
    let v = obj[f];
    if (typeof v === 'string') {
      const fixed = repairSurrogates(v);
      if (fixed !== undefined) {
        issues.push({ path: [f], at: 'value', severity: 'warning', message: `contains a lone UTF-16 surrogate; replaced by U+FFFD` });
        v = fixed;
      }
    } else if (Array.isArray(v)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x !== 'string') continue;
        const fixed = repairSurrogates(x);
        if (fixed === undefined) continue;
        issues.push({ path: [f, i], at: 'value', severity: 'warning', message: `contains a lone UTF-16 surrogate; replaced by U+FFFD` });
        copy ??= v.slice();
        copy[i] = fixed;
      }
      if (copy) v = copy;
    }
    val.set(f, v);
  }
  return val;
}

/** The issue of field `f` failing its rule. */
function fieldIssue(f: Field, e: Fail, severity: 'error' | 'warning', suffix = ''): FieldIssue {
  return { path: [f, ...(e.sub ?? [])], at: 'value', severity, message: `${f}${e.sub ? formatSub(e.sub) : ''} ${e.message}${suffix}` };
}

const hasError = (issues: FieldIssue[]): boolean => issues.some((i) => i.severity === 'error');

/** The record in field order (arrays copied when `copyArrays`). */
function inOrder(out: Fields, copyArrays: boolean): ErrorRecord {
  const record = {} as Record<Field, unknown>;
  for (const f of RECORD_FIELDS) record[f] = copyArrays && ARRAY_FIELDS.has(f) ? [...(out[f] as string[])] : out[f];
  return record as unknown as ErrorRecord;
}

/** Strict (ErrLookup records): every field present and valid, else errors and no record. */
function strictRecord(val: Values, issues: FieldIssue[]): Validation {
  const out: Fields = {};
  let failed = false;
  for (const f of RECORD_FIELDS) {
    if (!val.has(f)) {
      issues.push({ path: [f], at: 'object', severity: 'error', message: `missing required field "${f}"` });
      failed = true;
      continue;
    }
    const v = val.get(f);
    const e = RULES[f](v);
    if (e) {
      issues.push(fieldIssue(f, e, 'error'));
      failed = true;
    } else out[f] = v;
  }
  if (!failed) crossChecks(out, issues, true);
  if (hasError(issues)) return { record: undefined, issues };
  return { record: inOrder(out, true), issues };
}

/** Fields lenient validation derives when they are absent or wrong. */
const DERIVED: ReadonlySet<Field> = new Set(['id', 'slug', 'errorMessage', 'messagePattern', 'errorType', 'repo', 'schemaVersion']);

/** Lenient (a user's records): a wrong field falls back to its default with a warning; only a
 * record without a usable pattern or message is an error. */
function lenientRecord(val: Values, issues: FieldIssue[]): Validation {
  const out: Fields = {};
  // plain fields first (wrong ones fall back to defaults with a warning)
  for (const f of RECORD_FIELDS) {
    if (DERIVED.has(f)) continue;
    if (val.has(f)) {
      const v = val.get(f);
      const e = RULES[f](v);
      if (!e) {
        out[f] = ARRAY_FIELDS.has(f) ? [...(v as string[])] : v;
        continue;
      }
      issues.push(fieldIssue(f, e, 'warning', '; using the default'));
    }
    out[f] = ARRAY_FIELDS.has(f) ? [] : f === 'severity' ? 'error' : null;
  }

  const resolved = resolvePattern(val, issues);
  if (!resolved || hasError(issues)) return { record: undefined, issues };
  out.messagePattern = resolved.pattern;
  out.errorMessage = resolved.message ?? resolved.pattern;

  const derivedField = (f: 'repo' | 'id' | 'slug' | 'errorType', make: () => unknown): void => {
    if (val.has(f)) {
      const v = val.get(f);
      const e = RULES[f](v);
      if (!e) {
        out[f] = v;
        return;
      }
      if (v !== null) issues.push(fieldIssue(f, e, 'warning', '; using the default'));
    }
    out[f] = make();
  };
  derivedField('errorType', () => defaultErrorType(out.errorCode as string | null, out.httpStatus as number | null));
  derivedField('repo', () => DEFAULT_REPO);
  derivedField('id', () => defaultId(out.repo as string, out.errorMessage as string, out.filePath as string | null));
  derivedField('slug', () => slugFromMessage(out.errorMessage as string) || `record-${out.id as string}`);
  if (val.has('schemaVersion') && val.get('schemaVersion') !== SCHEMA_VERSION)
    issues.push({ path: ['schemaVersion'], at: 'value', severity: 'warning', message: `schemaVersion ${describe(val.get('schemaVersion'))} is not supported; the record is read as version ${SCHEMA_VERSION}` });
  out.schemaVersion = SCHEMA_VERSION;

  crossChecks(out, issues, false);
  return { record: inOrder(out, false), issues };
}

/** Lenient: the record's pattern — its messagePattern, else derived from its errorMessage — and
 * its message; undefined (with an error issue) when neither gives a usable pattern. */
function resolvePattern(val: Values, issues: FieldIssue[]): { pattern: string; message: string | undefined } | undefined {
  const rawMessage = val.get('errorMessage');
  const rawPattern = val.get('messagePattern');
  let message: string | undefined;
  if (val.has('errorMessage')) {
    if (typeof rawMessage === 'string' && rawMessage.trim() !== '') message = rawMessage;
    else if (rawMessage !== null || !val.has('messagePattern'))
      issues.push({ path: ['errorMessage'], at: 'value', severity: val.has('messagePattern') ? 'warning' : 'error', message: `errorMessage must be a non-empty string, got ${describe(rawMessage)}` });
  }
  if (val.has('messagePattern') && rawPattern !== null) {
    if (typeof rawPattern === 'string' && rawPattern !== '') {
      const p = messagePatternProblem(rawPattern);
      if (p) {
        issues.push({ path: ['messagePattern'], at: 'value', severity: 'error', message: `messagePattern cannot be used: ${p}` });
        return undefined;
      }
      if (isAnchored(rawPattern))
        issues.push({ path: ['messagePattern'], at: 'value', severity: 'warning', message: `messagePattern is anchored; it only matches where the anchor allows (ErrLookup patterns are unanchored)` });
      return { pattern: rawPattern, message };
    }
    issues.push({
      path: ['messagePattern'],
      at: 'value',
      severity: message !== undefined ? 'warning' : 'error',
      message: `messagePattern must be a non-empty string (a JavaScript regex source), got ${describe(rawPattern)}${message !== undefined ? '; deriving it from errorMessage' : ''}`,
    });
  }
  if (message === undefined) {
    if (!hasError(issues)) issues.push({ path: [], at: 'object', severity: 'error', message: 'a record needs "messagePattern" or "errorMessage"' });
    return undefined;
  }
  const derived = derivePattern(message);
  const p = messagePatternProblem(derived);
  if (p) {
    issues.push({ path: ['errorMessage'], at: 'value', severity: 'error', message: `the pattern derived from errorMessage cannot be used: ${p}; add a more specific messagePattern` });
    return undefined;
  }
  return { pattern: derived, message };
}

function formatSub(sub: (string | number)[]): string {
  return sub.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('');
}

/** sourceCodeStart <= lineNumber <= sourceCodeEnd. Strict: error. Lenient: warning, and the
 * snippet range falls back to null. */
function crossChecks(out: Partial<Record<Field, unknown>>, issues: FieldIssue[], strict: boolean): void {
  const start = out.sourceCodeStart;
  const end = out.sourceCodeEnd;
  const line = out.lineNumber;
  let problem: { path: Field; message: string } | undefined;
  if (typeof start === 'number' && typeof end === 'number' && start > end)
    problem = { path: 'sourceCodeStart', message: `sourceCodeStart ${start} is after sourceCodeEnd ${end}` };
  else if (typeof line === 'number' && typeof start === 'number' && line < start)
    problem = { path: 'lineNumber', message: `lineNumber ${line} is before sourceCodeStart ${start}` };
  else if (typeof line === 'number' && typeof end === 'number' && line > end)
    problem = { path: 'lineNumber', message: `lineNumber ${line} is after sourceCodeEnd ${end}` };
  if (!problem) return;
  if (strict) issues.push({ path: [problem.path], at: 'value', severity: 'error', message: problem.message });
  else {
    issues.push({ path: [problem.path], at: 'value', severity: 'warning', message: `${problem.message}; sourceCodeStart/sourceCodeEnd are ignored` });
    out.sourceCodeStart = null;
    out.sourceCodeEnd = null;
  }
}

// -------------------------------------------------------------------------------------------------
// The common case: a record with no issue at all

// Plain checks instead of the regular expressions above, same answers (the unit tests compare
// them on every field rule); a record file of 100k records is validated in a fraction of its
// JSON.parse time.

function isLowerHex(s: string, n: number): boolean {
  if (s.length !== n) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/** REPO_RE: `[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+`. */
export function isRepoName(s: string): boolean {
  let slash = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2f) {
      if (slash >= 0) return false;
      slash = i;
    } else if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2e || c === 0x2d)) return false;
  }
  return slash > 0 && slash < s.length - 1;
}

/** KEBAB_RE: `[a-z0-9]+(-[a-z0-9]+)*`. */
export function isKebab(s: string): boolean {
  if (s.length === 0) return false;
  let prevDash = true; // no leading dash
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2d) {
      if (prevDash) return false;
      prevDash = true;
    } else if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) prevDash = false;
    else return false;
  }
  return !prevDash;
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** ISO_UTC_RE (`YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z`) and a real date (the last answer is kept: the
 * records of one file mostly share their analyzedAt). */
export function isIsoUtc(s: string): boolean {
  if (s === lastIso) return lastIsoOk;
  lastIsoOk = isIsoUtcUncached(s);
  lastIso = s;
  return lastIsoOk;
}
let lastIso = '';
let lastIsoOk = false;

function isIsoUtcUncached(s: string): boolean {
  const n = s.length;
  if (n < 20 || n > 30) return false;
  const shape = 'dddd-dd-ddTdd:dd:dd';
  for (let i = 0; i < 19; i++) {
    const c = s.charCodeAt(i);
    const want = shape.charCodeAt(i);
    if (want === 0x64 ? !isDigit(c) : c !== want) return false;
  }
  if (s.charCodeAt(n - 1) !== 0x5a) return false;
  if (n > 20) {
    if (s.charCodeAt(19) !== 0x2e || n < 22) return false;
    for (let i = 20; i < n - 1; i++) if (!isDigit(s.charCodeAt(i))) return false;
  }
  return !Number.isNaN(Date.parse(s));
}

const hasIsWellFormed = typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function';
/** No lone surrogate (repairSurrogates would change nothing). */
function wellFormed(s: string): boolean {
  return hasIsWellFormed ? (s as string & { isWellFormed(): boolean }).isWellFormed() : repairSurrogates(s) === undefined;
}

function isGithubUrl(s: string): boolean {
  if (!s.startsWith('https://github.com/')) return false;
  // With that prefix the URL parser always succeeds and the host is github.com; unusual
  // characters go through the exact check anyway.
  for (let i = 19; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return githubUrlProblem(s) === undefined;
  }
  return true;
}

const ERROR_TYPE_SET: ReadonlySet<unknown> = new Set(ERROR_TYPES);
const SEVERITY_SET: ReadonlySet<unknown> = new Set(SEVERITIES);
const STRATEGY_SET: ReadonlySet<unknown> = new Set(HANDLING_STRATEGIES);

type Str = string | null;
/** A string (well-formed) or null. */
const optStr = (v: unknown): boolean => v === null || (typeof v === 'string' && wellFormed(v));
const optInt = (v: unknown, min: number, max = Infinity): boolean => v === null || (isInt(v) && v >= min && v <= max);
function strList(v: unknown, kebab: boolean): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (typeof x !== 'string' || !wellFormed(x) || (kebab && !isKebab(x))) return false;
  }
  return true;
}
const optSourceCode = (v: unknown): boolean => v === null || (typeof v === 'string' && wellFormed(v) && lineCount(v) <= MAX_SOURCE_LINES);
const optGithub = (v: unknown): boolean => v === null || (typeof v === 'string' && wellFormed(v) && isGithubUrl(v));
const optSha = (v: unknown): boolean => v === null || (typeof v === 'string' && isLowerHex(v, 40));
const optIso = (v: unknown): boolean => v === null || (typeof v === 'string' && isIsoUtc(v));
const cleanPattern = (v: unknown): boolean => typeof v === 'string' && v !== '' && wellFormed(v) && messagePatternProblem(v) === undefined && !isAnchored(v);
const nonEmpty = (v: string): boolean => {
  const c = v.charCodeAt(0);
  // the first character is not white space: non-empty without trimming
  return v.length > 0 && ((c > 0x20 && c < 0x7f) || v.trim() !== '');
};

const orNull = <T>(v: unknown): T | null => (v === undefined ? null : (v as T));
const list = (v: unknown): string[] => (v === undefined ? [] : (v as string[]).slice());

function inFieldOrder(keys: string[]): boolean {
  for (let i = 0; i < keys.length; i++) if (keys[i] !== RECORD_FIELDS[i]) return false;
  return true;
}

/** Ranges that crossChecks accepts without a word. */
function rangesAgree(start: unknown, end: unknown, line: unknown): boolean {
  if (typeof start === 'number' && typeof end === 'number' && start > end) return false;
  if (typeof line === 'number' && typeof start === 'number' && line < start) return false;
  if (typeof line === 'number' && typeof end === 'number' && line > end) return false;
  return true;
}

/**
 * The record validateWithIssues would return for `o` when it would report no issue at all, else
 * undefined (then validateWithIssues runs and says what is wrong). Direct property reads, one
 * object literal in RECORD_FIELDS order.
 */
function cleanRecord(o: Record<string, unknown>, strict: boolean): ErrorRecord | undefined {
  const id = o.id, repo = o.repo, slug = o.slug, errorCode = o.errorCode, errorMessage = o.errorMessage;
  const messagePattern = o.messagePattern, errorType = o.errorType, errorClass = o.errorClass, httpStatus = o.httpStatus;
  const severity = o.severity, filePath = o.filePath, lineNumber = o.lineNumber, sourceCode = o.sourceCode;
  const sourceCodeStart = o.sourceCodeStart, sourceCodeEnd = o.sourceCodeEnd, githubUrl = o.githubUrl;
  const documentation = o.documentation, triggerScenarios = o.triggerScenarios, commonSituations = o.commonSituations;
  const solutions = o.solutions, exampleFix = o.exampleFix, handlingStrategy = o.handlingStrategy;
  const validationCode = o.validationCode, typeGuard = o.typeGuard, tryCatchPattern = o.tryCatchPattern;
  const preventionTips = o.preventionTips, tags = o.tags, backgroundTag = o.backgroundTag;
  const analyzedSha = o.analyzedSha, analyzedAt = o.analyzedAt, schemaVersion = o.schemaVersion;
  // Absent fields read as undefined (JSON has no undefined value); unknown fields make the key count differ.
  const keyList = Object.keys(o);
  const keys = keyList.length;
  let present = 0;
  if (keys >= RECORD_FIELDS.length) {
    // the common case: every field (ErrLookup records); undefined = absent = not every field (the
    // values read above: named loads, not a keyed loop over RECORD_FIELDS)
    present =
      id === undefined || repo === undefined || slug === undefined || errorCode === undefined || errorMessage === undefined ||
      messagePattern === undefined || errorType === undefined || errorClass === undefined || httpStatus === undefined ||
      severity === undefined || filePath === undefined || lineNumber === undefined || sourceCode === undefined ||
      sourceCodeStart === undefined || sourceCodeEnd === undefined || githubUrl === undefined || documentation === undefined ||
      triggerScenarios === undefined || commonSituations === undefined || solutions === undefined || exampleFix === undefined ||
      handlingStrategy === undefined || validationCode === undefined || typeGuard === undefined || tryCatchPattern === undefined ||
      preventionTips === undefined || tags === undefined || backgroundTag === undefined || analyzedSha === undefined ||
      analyzedAt === undefined || schemaVersion === undefined
        ? -1
        : keys;
  }
  if (present !== RECORD_FIELDS.length || keys !== present) {
    present = 0;
    for (const f of RECORD_FIELDS) {
      if (o[f] !== undefined) present++;
      else if (has(o, f)) return undefined;
    }
    if (keys !== present && !(keys === present + 1 && has(o, '$schema'))) return undefined;
  }

  if (strict) {
    if (present !== RECORD_FIELDS.length) return undefined;
    if (!(typeof id === 'string' && isLowerHex(id, 16))) return undefined;
    if (!(typeof repo === 'string' && isRepoName(repo))) return undefined;
    if (!(typeof slug === 'string' && isKebab(slug))) return undefined;
    if (!optStr(errorCode)) return undefined;
    if (!(typeof errorMessage === 'string' && wellFormed(errorMessage) && nonEmpty(errorMessage))) return undefined;
    if (!cleanPattern(messagePattern)) return undefined;
    if (!ERROR_TYPE_SET.has(errorType)) return undefined;
  } else {
    // the fields validateWithIssues derives: present and valid, or absent/null (defaulted)
    if (!(id === undefined || id === null || (typeof id === 'string' && isLowerHex(id, 16)))) return undefined;
    if (!(repo === undefined || repo === null || (typeof repo === 'string' && isRepoName(repo)))) return undefined;
    if (!(slug === undefined || slug === null || (typeof slug === 'string' && isKebab(slug)))) return undefined;
    if (!(errorType === undefined || errorType === null || ERROR_TYPE_SET.has(errorType))) return undefined;
    if (!(schemaVersion === undefined || schemaVersion === SCHEMA_VERSION)) return undefined;
  }
  // plain fields: valid, or (lenient) absent
  const a = !strict;
  if (!((a && errorCode === undefined) || optStr(errorCode))) return undefined;
  if (!((a && errorClass === undefined) || optStr(errorClass))) return undefined;
  if (!((a && httpStatus === undefined) || optInt(httpStatus, 100, 599))) return undefined;
  if (!((a && severity === undefined) || SEVERITY_SET.has(severity))) return undefined;
  if (!((a && filePath === undefined) || optStr(filePath))) return undefined;
  if (!((a && lineNumber === undefined) || optInt(lineNumber, 1))) return undefined;
  if (!((a && sourceCode === undefined) || optSourceCode(sourceCode))) return undefined;
  if (!((a && sourceCodeStart === undefined) || optInt(sourceCodeStart, 1))) return undefined;
  if (!((a && sourceCodeEnd === undefined) || optInt(sourceCodeEnd, 1))) return undefined;
  if (!((a && githubUrl === undefined) || optGithub(githubUrl))) return undefined;
  if (!((a && documentation === undefined) || optStr(documentation))) return undefined;
  if (!((a && triggerScenarios === undefined) || optStr(triggerScenarios))) return undefined;
  if (!((a && commonSituations === undefined) || optStr(commonSituations))) return undefined;
  if (!((a && solutions === undefined) || strList(solutions, false))) return undefined;
  if (!((a && exampleFix === undefined) || optStr(exampleFix))) return undefined;
  if (!((a && handlingStrategy === undefined) || handlingStrategy === null || STRATEGY_SET.has(handlingStrategy))) return undefined;
  if (!((a && validationCode === undefined) || optStr(validationCode))) return undefined;
  if (!((a && typeGuard === undefined) || optStr(typeGuard))) return undefined;
  if (!((a && tryCatchPattern === undefined) || optStr(tryCatchPattern))) return undefined;
  if (!((a && preventionTips === undefined) || strList(preventionTips, false))) return undefined;
  if (!((a && tags === undefined) || strList(tags, true))) return undefined;
  if (!((a && backgroundTag === undefined) || optStr(backgroundTag))) return undefined;
  if (!((a && analyzedSha === undefined) || optSha(analyzedSha))) return undefined;
  if (!((a && analyzedAt === undefined) || optIso(analyzedAt))) return undefined;
  if (strict && schemaVersion !== SCHEMA_VERSION) return undefined;
  if (!rangesAgree(sourceCodeStart, sourceCodeEnd, lineNumber)) return undefined;

  let message = errorMessage as string | undefined;
  let pattern = messagePattern as string | undefined;
  if (!strict) {
    // errorMessage / messagePattern: one of them is needed (validateWithIssues' rules, silent cases only)
    if (errorMessage === undefined) message = undefined;
    else if (typeof errorMessage === 'string' && wellFormed(errorMessage) && nonEmpty(errorMessage)) message = errorMessage;
    else if (errorMessage === null && messagePattern !== undefined) message = undefined;
    else return undefined;
    if (messagePattern === undefined || messagePattern === null) pattern = undefined;
    else if (cleanPattern(messagePattern)) pattern = messagePattern as string;
    else return undefined;
    if (pattern === undefined) {
      if (message === undefined) return undefined;
      pattern = derivePattern(message);
      if (messagePatternProblem(pattern) !== undefined) return undefined;
    }
  }
  if (
    keys === RECORD_FIELDS.length &&
    message === errorMessage &&
    pattern === messagePattern &&
    typeof id === 'string' &&
    typeof repo === 'string' &&
    typeof slug === 'string' &&
    typeof errorType === 'string' &&
    inFieldOrder(keyList)
  ) {
    // every field given, valid, in ErrLookup's order: the parsed object is the record (no copy)
    return o as unknown as ErrorRecord;
  }
  const code = orNull<string>(errorCode);
  const status = orNull<number>(httpStatus);
  const file = orNull<string>(filePath);
  const msg = message ?? pattern!;
  const recRepo = typeof repo === 'string' ? repo : DEFAULT_REPO;
  const recId = typeof id === 'string' ? id : defaultId(recRepo, msg, file);
  return {
    id: recId,
    repo: recRepo,
    slug: typeof slug === 'string' ? slug : slugFromMessage(msg) || `record-${recId}`,
    errorCode: code,
    errorMessage: msg,
    messagePattern: pattern!,
    errorType: typeof errorType === 'string' ? (errorType as ErrorType) : defaultErrorType(code, status),
    errorClass: orNull<string>(errorClass),
    httpStatus: status,
    severity: severity === undefined ? 'error' : (severity as ErrorRecord['severity']),
    filePath: file,
    lineNumber: orNull<number>(lineNumber),
    sourceCode: orNull<string>(sourceCode),
    sourceCodeStart: orNull<number>(sourceCodeStart),
    sourceCodeEnd: orNull<number>(sourceCodeEnd),
    githubUrl: orNull<string>(githubUrl),
    documentation: orNull<Str>(documentation),
    triggerScenarios: orNull<Str>(triggerScenarios),
    commonSituations: orNull<Str>(commonSituations),
    solutions: list(solutions),
    exampleFix: orNull<Str>(exampleFix),
    handlingStrategy: orNull<ErrorRecord['handlingStrategy']>(handlingStrategy),
    validationCode: orNull<Str>(validationCode),
    typeGuard: orNull<Str>(typeGuard),
    tryCatchPattern: orNull<Str>(tryCatchPattern),
    preventionTips: list(preventionTips),
    tags: list(tags),
    backgroundTag: orNull<Str>(backgroundTag),
    analyzedSha: orNull<Str>(analyzedSha),
    analyzedAt: orNull<Str>(analyzedAt),
    schemaVersion: SCHEMA_VERSION,
  };
}
