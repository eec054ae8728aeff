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
import { derivePattern, patternProblem } from './pattern';
import { ERROR_TYPES, HANDLING_STRATEGIES, SCHEMA_VERSION, SEVERITIES, type ErrorRecord, type ErrorType } from './record';

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

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') {
    const s = JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v);
    return `the string ${s}`;
  }
  return `${typeof v} ${String(v)}`;
}

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

const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

function defaultErrorType(errorCode: string | null, httpStatus: number | null): ErrorType {
  if (errorCode !== null) return 'error_code';
  if (httpStatus !== null) return 'http';
  return 'exception';
}

/** Validate one record object (the value inside an envelope, if any). */
export function validateRecord(raw: unknown, opts: ValidateOptions = {}): Validation {
  const strict = opts.strict === true;
  const issues: FieldIssue[] = [];
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    issues.push({ path: [], at: 'value', severity: 'error', message: `a record must be a JSON object, got ${describe(raw)}` });
    return { record: undefined, issues };
  }
  const obj = raw as Record<string, unknown>;

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

  // Read every present field, repairing lone surrogates in strings.
  const val = new Map<Field, unknown>();
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

  const out: Partial<Record<Field, unknown>> = {};
  let failed = false;
  const fail = (f: Field, e: Fail, severity: 'error' | 'warning', suffix = ''): void => {
    issues.push({ path: [f, ...(e.sub ?? [])], at: 'value', severity, message: `${f}${e.sub ? formatSub(e.sub) : ''} ${e.message}${suffix}` });
    if (severity === 'error') failed = true;
  };

  if (strict) {
    for (const f of RECORD_FIELDS) {
      if (!val.has(f)) {
        issues.push({ path: [f], at: 'object', severity: 'error', message: `missing required field "${f}"` });
        failed = true;
        continue;
      }
      const v = val.get(f);
      const e = RULES[f](v);
      if (e) fail(f, e, 'error');
      else out[f] = v;
    }
    if (!failed) crossChecks(out, issues, true);
    if (issues.some((i) => i.severity === 'error')) return { record: undefined, issues };
    const record = {} as Record<Field, unknown>;
    for (const f of RECORD_FIELDS) record[f] = ARRAY_FIELDS.has(f) ? [...(out[f] as string[])] : out[f];
    return { record: record as unknown as ErrorRecord, issues };
  }

  // Lenient: plain fields first (wrong ones fall back to defaults with a warning).
  const DERIVED: ReadonlySet<Field> = new Set(['id', 'slug', 'errorMessage', 'messagePattern', 'errorType', 'repo', 'schemaVersion']);
  for (const f of RECORD_FIELDS) {
    if (DERIVED.has(f)) continue;
    if (val.has(f)) {
      const v = val.get(f);
      const e = RULES[f](v);
      if (!e) {
        out[f] = ARRAY_FIELDS.has(f) ? [...(v as string[])] : v;
        continue;
      }
      fail(f, e, 'warning', '; using the default');
    }
    out[f] = ARRAY_FIELDS.has(f) ? [] : f === 'severity' ? 'error' : null;
  }

  // Message and pattern: one of them is required.
  const rawMessage = val.get('errorMessage');
  const rawPattern = val.get('messagePattern');
  let message: string | undefined;
  if (val.has('errorMessage')) {
    if (typeof rawMessage === 'string' && rawMessage.trim() !== '') message = rawMessage;
    else if (rawMessage !== null || !val.has('messagePattern'))
      issues.push({ path: ['errorMessage'], at: 'value', severity: val.has('messagePattern') ? 'warning' : 'error', message: `errorMessage must be a non-empty string, got ${describe(rawMessage)}` });
  }
  let pattern: string | undefined;
  if (val.has('messagePattern') && rawPattern !== null) {
    if (typeof rawPattern === 'string' && rawPattern !== '') {
      const p = messagePatternProblem(rawPattern);
      if (p) {
        issues.push({ path: ['messagePattern'], at: 'value', severity: 'error', message: `messagePattern cannot be used: ${p}` });
        return { record: undefined, issues };
      }
      pattern = rawPattern;
      if (isAnchored(rawPattern))
        issues.push({ path: ['messagePattern'], at: 'value', severity: 'warning', message: `messagePattern is anchored; it only matches where the anchor allows (ErrLookup patterns are unanchored)` });
    } else
      issues.push({
        path: ['messagePattern'],
        at: 'value',
        severity: message !== undefined ? 'warning' : 'error',
        message: `messagePattern must be a non-empty string (a JavaScript regex source), got ${describe(rawPattern)}${message !== undefined ? '; deriving it from errorMessage' : ''}`,
      });
  }
  if (pattern === undefined) {
    if (message === undefined) {
      if (!issues.some((i) => i.severity === 'error'))
        issues.push({ path: [], at: 'object', severity: 'error', message: 'a record needs "messagePattern" or "errorMessage"' });
      return { record: undefined, issues };
    }
    const derived = derivePattern(message);
    const p = messagePatternProblem(derived);
    if (p) {
      issues.push({ path: ['errorMessage'], at: 'value', severity: 'error', message: `the pattern derived from errorMessage cannot be used: ${p}; add a more specific messagePattern` });
      return { record: undefined, issues };
    }
    pattern = derived;
  }
  if (issues.some((i) => i.severity === 'error')) return { record: undefined, issues };
  out.messagePattern = pattern;
  out.errorMessage = message ?? pattern;

  const derivedField = (f: 'repo' | 'id' | 'slug' | 'errorType', make: () => unknown): void => {
    if (val.has(f)) {
      const v = val.get(f);
      const e = RULES[f](v);
      if (!e) {
        out[f] = v;
        return;
      }
      if (v !== null) fail(f, e, 'warning', '; using the default');
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
  const record = {} as Record<Field, unknown>;
  for (const f of RECORD_FIELDS) record[f] = out[f];
  return { record: record as unknown as ErrorRecord, issues };
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
