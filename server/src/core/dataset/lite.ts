// Lightweight records made from index rows. A LiteRecord owns only what matching and lists need
// (id, repo, slug, errorCode, errorMessage, messagePattern, errorType, errorClass, severity, tags);
// every other ErrorRecord field is a default on the prototype, so 500k of them stay small.
// The full record is fetched lazily per repository (DatasetStore.fullRecord) when one is shown.
//
// Caveats: object spread (`{...r}`) copies own fields only; JSON.stringify uses toJSON() and gives
// the complete record. Assigning a field creates an own property as usual.
import type { ErrorRecord, ErrorType, Severity } from '../record';
import { ERROR_TYPES, RECORD_KEYS, SEVERITIES, SKELETON_DEFAULTS } from '../record';
import type { IndexRow } from './types';

const EMPTY: string[] = Object.freeze([] as string[]) as string[];

const DEFAULTS = SKELETON_DEFAULTS;

type Defaulted = keyof typeof DEFAULTS;

export interface LiteRecord extends Pick<ErrorRecord, Defaulted> {}
export class LiteRecord implements ErrorRecord {
  constructor(
    public id: string,
    public repo: string,
    public slug: string,
    public errorCode: string | null,
    public errorMessage: string,
    public messagePattern: string,
    public errorType: ErrorType,
    public errorClass: string | null,
    public severity: Severity,
    public tags: string[],
  ) {}

  /** The complete record (defaults included) for JSON. */
  toJSON(): ErrorRecord {
    const out = {} as Record<string, unknown>;
    for (const k of RECORD_KEYS) out[k] = (this as unknown as Record<string, unknown>)[k];
    return out as unknown as ErrorRecord;
  }
}
Object.assign(LiteRecord.prototype, DEFAULTS);

export { RECORD_KEYS };

export function isLiteRecord(r: ErrorRecord): r is LiteRecord {
  return r instanceof LiteRecord;
}

/** Shares equal small values (classes, codes, tag lists) between rows. */
export class Interner {
  private readonly strings = new Map<string, string>();
  private readonly lists = new Map<string, string[]>();
  str(s: string): string;
  str(s: string | null): string | null;
  str(s: string | null): string | null {
    if (s === null) return null;
    const hit = this.strings.get(s);
    if (hit !== undefined) return hit;
    this.strings.set(s, s);
    return s;
  }
  list(l: string[]): string[] {
    if (l.length === 0) return EMPTY;
    const key = l.join('\u0000');
    const hit = this.lists.get(key);
    if (hit) return hit;
    const frozen = Object.freeze(l.map((t) => this.str(t))) as string[];
    this.lists.set(key, frozen);
    return frozen;
  }
}

export function toErrorType(t: string): ErrorType {
  return (ERROR_TYPES as readonly string[]).includes(t) ? (t as ErrorType) : 'exception';
}
export function toSeverity(s: string): Severity {
  return (SEVERITIES as readonly string[]).includes(s) ? (s as Severity) : 'error';
}

export function liteFromRow(row: IndexRow, intern: Interner): LiteRecord {
  return new LiteRecord(
    row.id,
    intern.str(row.repo),
    row.slug,
    intern.str(row.code),
    row.msg,
    row.pattern,
    toErrorType(row.type),
    intern.str(row.cls),
    toSeverity(row.sev),
    intern.list(row.tags),
  );
}
