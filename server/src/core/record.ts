// Core rule: plain TypeScript only. Nothing under server/src/core may import `vscode`,
// `vscode-languageserver*` or anything editor-specific: strings in, plain objects out.
//
// The error record: ErrLookup's `ErrorEntry`, schemaVersion 2.

export const SCHEMA_VERSION = 2;

export const ERROR_TYPES = ['exception', 'error_code', 'console', 'http', 'validation', 'panic'] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

export const SEVERITIES = ['critical', 'error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const HANDLING_STRATEGIES = ['try-catch', 'type-guard', 'validation', 'retry', 'fallback'] as const;
export type HandlingStrategy = (typeof HANDLING_STRATEGIES)[number];

/** A complete, validated record (user records get defaults filled in by the loader). */
export interface ErrorRecord {
  id: string; // 16 lowercase hex
  repo: string; // owner/name
  slug: string;
  errorCode: string | null;
  errorMessage: string;
  messagePattern: string;
  errorType: ErrorType;
  errorClass: string | null;
  httpStatus: number | null;
  severity: Severity;
  filePath: string | null;
  lineNumber: number | null;
  sourceCode: string | null;
  sourceCodeStart: number | null;
  sourceCodeEnd: number | null;
  githubUrl: string | null;
  documentation: string | null;
  triggerScenarios: string | null;
  commonSituations: string | null;
  solutions: string[];
  exampleFix: string | null;
  handlingStrategy: HandlingStrategy | null;
  validationCode: string | null;
  typeGuard: string | null;
  tryCatchPattern: string | null;
  preventionTips: string[];
  tags: string[];
  backgroundTag: string | null;
  analyzedSha: string | null;
  analyzedAt: string | null;
  schemaVersion: number;
}

/** ErrorRecord keys in schema order (JSON output). */
export const RECORD_KEYS: readonly (keyof ErrorRecord)[] = [
  'id', 'repo', 'slug', 'errorCode', 'errorMessage', 'messagePattern', 'errorType', 'errorClass', 'httpStatus',
  'severity', 'filePath', 'lineNumber', 'sourceCode', 'sourceCodeStart', 'sourceCodeEnd', 'githubUrl',
  'documentation', 'triggerScenarios', 'commonSituations', 'solutions', 'exampleFix', 'handlingStrategy',
  'validationCode', 'typeGuard', 'tryCatchPattern', 'preventionTips', 'tags', 'backgroundTag', 'analyzedSha',
  'analyzedAt', 'schemaVersion',
];

/** What a file scan reads of a record (matching, scoring, counts, reports without explanations):
 * the index cache's lite row. */
export const LITE_FIELDS = ['id', 'repo', 'slug', 'errorCode', 'errorMessage', 'messagePattern', 'errorType', 'errorClass', 'httpStatus', 'severity', 'filePath', 'lineNumber', 'githubUrl', 'tags', 'analyzedSha', 'schemaVersion'] as const satisfies readonly (keyof ErrorRecord)[];
/** The rest, read only for explanations and SARIF rules: the record's prose and source (the index
 * cache's heavy row). */
export const PROSE_FIELDS = ['sourceCode', 'sourceCodeStart', 'sourceCodeEnd', 'documentation', 'triggerScenarios', 'commonSituations', 'solutions', 'exampleFix', 'handlingStrategy', 'validationCode', 'typeGuard', 'tryCatchPattern', 'preventionTips', 'backgroundTag', 'analyzedAt'] as const satisfies readonly (keyof ErrorRecord)[];

const PROSELESS: object = (() => {
  const proto: Record<string, unknown> = {};
  const fail = (r: { id?: unknown }, k: string): never => {
    throw new Error(`record ${String(r.id)}: its ${k} was not loaded, as this run reads no record's prose (a bug: please report it)`);
  };
  for (const k of PROSE_FIELDS) {
    Object.defineProperty(proto, k, {
      get(this: { id?: unknown }) {
        return fail(this, k);
      },
      set(this: object, v: unknown) {
        Object.defineProperty(this, k, { value: v, writable: true, enumerable: true, configurable: true });
      },
      enumerable: false,
      configurable: true,
    });
  }
  Object.defineProperty(proto, 'toJSON', {
    value(this: { id?: unknown }) {
      return fail(this, 'prose');
    },
    enumerable: false,
  });
  return proto;
})();

/** The record without its prose (PROSE_FIELDS), for a run that reads none (a scan that counts or
 * prints no explanations): 100k loaded records take ~140 MB less, and the young generation's
 * collections do not copy the prose they would keep. Reading a prose field throws, saying so. */
export function withoutProse(r: ErrorRecord): ErrorRecord {
  const o = Object.create(PROSELESS) as Record<string, unknown>;
  const from = r as unknown as Record<string, unknown>;
  for (const k of LITE_FIELDS) o[k] = from[k];
  return o as unknown as ErrorRecord;
}

const NONE: string[] = Object.freeze([] as string[]) as string[];

/** What a skeleton record (a dataset row, a site `extract` found, a generated diagnostic) leaves
 * empty: no site, no prose, no snippets. Its lists are shared and frozen. */
export const SKELETON_DEFAULTS = {
  httpStatus: null,
  filePath: null,
  lineNumber: null,
  sourceCode: null,
  sourceCodeStart: null,
  sourceCodeEnd: null,
  githubUrl: null,
  documentation: null,
  triggerScenarios: null,
  commonSituations: null,
  solutions: NONE,
  exampleFix: null,
  handlingStrategy: null,
  validationCode: null,
  typeGuard: null,
  tryCatchPattern: null,
  preventionTips: NONE,
  backgroundTag: null,
  analyzedSha: null,
  analyzedAt: null,
  schemaVersion: SCHEMA_VERSION,
} satisfies Partial<ErrorRecord>;

export type SkeletonFields = Omit<ErrorRecord, keyof typeof SKELETON_DEFAULTS> & Partial<ErrorRecord>;

/** A whole record from what is known of it (the rest from SKELETON_DEFAULTS), keys in schema order. */
export function skeletonRecord(fields: SkeletonFields): ErrorRecord {
  const out = {} as Record<string, unknown>;
  const given = fields as Partial<Record<keyof ErrorRecord, unknown>>;
  const defaults = SKELETON_DEFAULTS as Partial<Record<keyof ErrorRecord, unknown>>;
  for (const k of RECORD_KEYS) out[k] = given[k] !== undefined ? given[k] : defaults[k];
  return out as unknown as ErrorRecord;
}

/** Where a record came from. Later origins override earlier ones on duplicate ids. */
export type RecordOrigin = 'bundled' | 'dataset' | 'user' | 'workspace';

/** A located problem in a record file. line/column are 1-based; column counts UTF-16 units. */
export interface RecordProblem {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /** JSON path of the offending value, e.g. `[2].httpStatus` or `(file)` for whole-file problems. */
  path: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
}

/** Ranking order of severities, most severe first. */
export function severityRank(s: Severity): number {
  return SEVERITIES.indexOf(s);
}
