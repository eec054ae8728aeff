// Catalog = records + match engine + search: the one object the server and the CLI use.
// The engine is built once, on first use (so a CLI `validate` or a lookup by id never pays for it).
import type { ErrorRecord } from './record';
import { type EngineEntry, type LineMatch, MatchEngine } from './engine';
import { captureNames } from './pattern';
import { type SearchHit, SearchIndex } from './search';

export type { SearchHit } from './search';

export interface RecordMatch {
  record: ErrorRecord;
  match: LineMatch;
}

/** Lines of a text: split at \r\n, \n and lone \r (as editors and LSP count lines). */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** How many lines of a query `search` runs through the patterns. */
const SEARCH_PATTERN_LINES = 50;

export class Catalog {
  readonly records: readonly ErrorRecord[];
  private engineCache: MatchEngine | undefined;
  private readonly index: SearchIndex;
  private readonly byKey = new Map<string, ErrorRecord>();

  constructor(records: ErrorRecord[]) {
    this.records = records;
    this.index = new SearchIndex(records);
    // Precedence on collisions: id, then slug, then errorCode; first record wins within a kind.
    for (const r of records) if (!this.byKey.has(r.id)) this.byKey.set(r.id, r);
    for (const r of records) if (r.slug && !this.byKey.has(r.slug)) this.byKey.set(r.slug, r);
    for (const r of records) if (r.errorCode && !this.byKey.has(r.errorCode)) this.byKey.set(r.errorCode, r);
  }

  /** The match engine over every record's messagePattern (built on first call). */
  get engine(): MatchEngine {
    if (!this.engineCache) {
      const entries: EngineEntry[] = this.records.map((r) => ({
        id: r.id,
        pattern: r.messagePattern,
        captureNames: safeCaptureNames(r),
        errorCode: r.errorCode,
      }));
      this.engineCache = MatchEngine.build(entries);
    }
    return this.engineCache;
  }

  /** Records whose pattern could not be used, with the reason. */
  get rejected(): { record: ErrorRecord; reason: string }[] {
    return this.engine.rejected.map((r) => ({ record: this.records[r.entry]!, reason: r.reason }));
  }

  get(idOrSlugOrCode: string): ErrorRecord | undefined {
    return this.byKey.get(idOrSlugOrCode) ?? this.byKey.get(idOrSlugOrCode.trim());
  }

  /** Every record matching the line, ranked (one match per record). */
  matchLine(line: string): RecordMatch[] {
    const engine = this.engine;
    if (!engine.mightMatch(line)) return [];
    return engine.matchLine(line).map((m) => ({ record: this.records[m.entry]!, match: m }));
  }

  /** Matches per line of `text` (lines split at CRLF, LF, CR); only lines with matches; line is 0-based. */
  explainText(text: string): { line: number; matches: RecordMatch[] }[] {
    const out: { line: number; matches: RecordMatch[] }[] = [];
    splitLines(text).forEach((l, i) => {
      const matches = this.matchLine(l);
      if (matches.length) out.push({ line: i, matches });
    });
    return out;
  }

  /** Exact code/id/slug, then pattern matches of the query text, then fuzzy tokens. */
  search(query: string, limit = 20): SearchHit[] {
    return this.index.search(query, limit, (text) => this.patternMatches(text));
  }

  /** Distinct record indices matching the first lines of `text`, best first. */
  private patternMatches(text: string): number[] {
    const order: number[] = [];
    const seen = new Set<number>();
    for (const line of splitLines(text).slice(0, SEARCH_PATTERN_LINES)) {
      for (const m of this.engine.matchLine(line)) {
        if (!seen.has(m.entry)) {
          seen.add(m.entry);
          order.push(m.entry);
        }
      }
    }
    return order;
  }
}

function safeCaptureNames(r: ErrorRecord): string[] {
  try {
    return captureNames(r.errorMessage ?? '', r.messagePattern);
  } catch {
    return [];
  }
}
