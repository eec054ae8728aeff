// What `scan` reads of a record it matched on a plain line, column by column: the confidence's
// inputs (specificity, error class, error code, class-only) and what `--format count` and
// `--fail-on` read (id, severity). The index cache stores the columns, so a warm scan scores and
// counts its matches without reading a record: the first read of a cached record parses its row,
// and a scan of 100k records on a 200 MB log read ~50k of them, one per matched record. A cold
// scan reads the records as they are. A pattern's specificity is stored where the process that
// writes the cache had worked it out (the records its scan scored: working it out for every record
// took 0.25-0.5 s of a cold scan of 100k, 0.86 s of a server's cache write); the others are worked
// out on their first match.
import { type ScoredRecord, knownPatternBits } from './confidence';
import { type ErrorRecord, type Severity, SEVERITIES, severityRank } from './record';
import type { EngineEntry } from './engine/types';

/** The columns the engine's entries and the index cache's entry table do not hold (its `scan`
 * section). */
export interface ScanExtra {
  /** patternBits of each pattern (core/confidence), NaN where it was not worked out. */
  specificity: Float64Array;
  /** Bit 0: tagged class-only; bits 1-2: severity rank (record.ts SEVERITIES). */
  flags: Uint8Array;
}

/** The engine's entries (id, pattern, error code), each record's error class, and the extra
 * columns. */
export interface ScanColumns extends ScanExtra {
  entries: readonly EngineEntry[];
  errorClass(entry: number): string | null;
}

const CLASS_ONLY = 1;
const CLASS_ONLY_TAGS: readonly string[] = ['class-only'];

/** Extra columns of n rows, to be filled by setExtra. */
export function emptyExtra(n: number): ScanExtra {
  return { specificity: new Float64Array(n), flags: new Uint8Array(n) };
}

/** Row i of the extra columns from `record`. */
export function setExtra(cols: ScanExtra, i: number, record: ErrorRecord): void {
  cols.specificity[i] = knownPatternBits(record.messagePattern) ?? NaN;
  cols.flags[i] = (record.tags?.includes('class-only') ? CLASS_ONLY : 0) | (Math.max(0, severityRank(record.severity)) << 1);
}

/** Are the columns whole and of n rows? (A cache section read back is checked before use.) */
export function validColumns(c: unknown, n: number): c is ScanColumns {
  const x = c as Partial<ScanColumns> | null;
  return (
    !!x &&
    Array.isArray(x.entries) &&
    x.entries.length === n &&
    typeof x.errorClass === 'function' &&
    x.specificity instanceof Float64Array &&
    x.specificity.length === n &&
    x.flags instanceof Uint8Array &&
    x.flags.length === n
  );
}

/** What a scan reads of the record of entry i: what PlainScorer scores, and the id and severity
 * the count reporter and --fail-on read. */
export interface ScanView {
  scoredRecord(entry: number): ScoredRecord;
  id(entry: number): string;
  severity(entry: number): Severity;
}

/** The view of records as they are (a scan without cached columns). */
export function recordsView(records: readonly ErrorRecord[]): ScanView {
  return {
    scoredRecord: (entry) => records[entry]!,
    id: (entry) => records[entry]!.id,
    severity: (entry) => records[entry]!.severity,
  };
}

/** A scan's view of the records through their columns (made once per record, on its first match). */
export class ScanRecords implements ScanView {
  private readonly scored: (ScoredRecord | undefined)[];
  constructor(private readonly cols: ScanColumns) {
    this.scored = new Array<ScoredRecord | undefined>(cols.entries.length);
  }

  scoredRecord(entry: number): ScoredRecord {
    let r = this.scored[entry];
    if (!r) {
      const c = this.cols;
      const spec = c.specificity[entry]!;
      const e = c.entries[entry]!;
      // (one shape for every record, no spread: the first match of each of tens of thousands of
      // records makes one)
      r = {
        messagePattern: e.pattern,
        errorClass: c.errorClass(entry),
        errorCode: e.errorCode,
        specificity: Number.isNaN(spec) ? undefined : spec,
        tags: (c.flags[entry]! & CLASS_ONLY) !== 0 ? CLASS_ONLY_TAGS : undefined,
      };
      this.scored[entry] = r;
    }
    return r;
  }

  id(entry: number): string {
    return this.cols.entries[entry]!.id;
  }

  severity(entry: number): Severity {
    return SEVERITIES[this.cols.flags[entry]! >> 1]!;
  }
}
