// Full records of one repository (`/data/repos/<owner>/<name>.json`), normalised leniently: a
// field with the wrong type gets its default rather than dropping the record (the index row of
// the same id is already shown; this only adds detail).
import type { ErrorRecord, HandlingStrategy } from '../record';
import { HANDLING_STRATEGIES, SCHEMA_VERSION } from '../record';
import { toErrorType, toSeverity } from './lite';

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}
function int(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) ? v : null;
}
function strs(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
/** ErrLookup's exporter writes "" for missing prose; treat it as absent. */
function prose(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v : null;
}

export function normalizeFullRecord(v: unknown, repo: string): ErrorRecord | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.id !== 'string' || typeof o.errorMessage !== 'string' || typeof o.messagePattern !== 'string') return undefined;
  if (o.repo !== undefined && o.repo !== repo) return undefined;
  const hs = str(o.handlingStrategy);
  return {
    id: o.id,
    repo,
    slug: str(o.slug) ?? o.id,
    errorCode: str(o.errorCode),
    errorMessage: o.errorMessage,
    messagePattern: o.messagePattern,
    errorType: toErrorType(str(o.errorType) ?? ''),
    errorClass: str(o.errorClass),
    httpStatus: int(o.httpStatus),
    severity: toSeverity(str(o.severity) ?? ''),
    filePath: str(o.filePath),
    lineNumber: int(o.lineNumber),
    sourceCode: str(o.sourceCode),
    sourceCodeStart: int(o.sourceCodeStart),
    sourceCodeEnd: int(o.sourceCodeEnd),
    githubUrl: str(o.githubUrl),
    documentation: prose(o.documentation),
    triggerScenarios: prose(o.triggerScenarios),
    commonSituations: prose(o.commonSituations),
    solutions: strs(o.solutions),
    exampleFix: prose(o.exampleFix),
    handlingStrategy: hs && (HANDLING_STRATEGIES as readonly string[]).includes(hs) ? (hs as HandlingStrategy) : null,
    validationCode: prose(o.validationCode),
    typeGuard: prose(o.typeGuard),
    tryCatchPattern: prose(o.tryCatchPattern),
    preventionTips: strs(o.preventionTips),
    tags: strs(o.tags),
    backgroundTag: str(o.backgroundTag),
    analyzedSha: str(o.analyzedSha),
    analyzedAt: str(o.analyzedAt),
    schemaVersion: int(o.schemaVersion) ?? SCHEMA_VERSION,
  };
}

export function parseRepoRecords(text: string, repo: string): ErrorRecord[] {
  const v: unknown = JSON.parse(text);
  if (!Array.isArray(v)) throw new Error(`records of ${repo} are not a JSON array`);
  const out: ErrorRecord[] = [];
  for (const item of v) {
    const r = normalizeFullRecord(item, repo);
    if (r) out.push(r);
  }
  return out;
}
