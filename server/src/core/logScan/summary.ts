// The result of scanning a log: matches grouped by record, in bounded memory whatever the log's
// size. Every match is counted (count, first and last line, best confidence), but only a few
// occurrences per record are kept: the first ones and the most recent ones (a ring), so a 1 GB log
// with a million matches of one record keeps a few dozen. Pure: matches in, plain objects out.
import type { RecordMatch } from '../catalog';
import type { ErrorRecord } from '../record';

/** Occurrences kept per record by default (half the first ones, half the most recent ones). */
export const DEFAULT_KEEP_PER_RECORD = 40;
/** Characters of a matched line kept with an occurrence (the rest is cut, with an ellipsis). */
export const MAX_LINE_TEXT = 240;
/** Characters of a matched span / capture value kept. */
const MAX_SPAN_TEXT = 500;

export interface Occurrence {
  /** 1-based line number in the scanned file. */
  line: number;
  /** UTF-16 offsets of the match in the line, end exclusive. */
  start: number;
  end: number;
  /** The matched span (cut at 500 characters). */
  text: string;
  /** The line (cut at MAX_LINE_TEXT characters). */
  lineText: string;
  captures: { name: string; value: string }[];
  confidence: number;
}

export interface RecordGroup {
  record: ErrorRecord;
  count: number;
  firstLine: number;
  lastLine: number;
  /** The best confidence of its matches. */
  confidence: number;
  /** Kept occurrences in line order (at most keepPerRecord). */
  occurrences: Occurrence[];
  /** Matches counted but not kept. */
  omitted: number;
}

export interface SummaryOptions {
  /** Matches below this confidence are counted in `belowThreshold` only (default 0: keep all). */
  minConfidence?: number;
  /** Occurrences kept per record (default DEFAULT_KEEP_PER_RECORD, at least 2). */
  keepPerRecord?: number;
}

interface Group {
  record: ErrorRecord;
  count: number;
  firstLine: number;
  lastLine: number;
  confidence: number;
  first: Occurrence[];
  /** Ring of the most recent occurrences after `first` is full. */
  recent: Occurrence[];
  recentNext: number;
  order: number;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export class ScanSummary {
  private readonly groups = new Map<string, Group>();
  private readonly keepFirst: number;
  private readonly keepRecent: number;
  readonly minConfidence: number;
  /** Lines with at least one kept match. */
  matchedLines = 0;
  /** Matches kept (at or above minConfidence). */
  matches = 0;
  /** Matches below minConfidence (not grouped). */
  belowThreshold = 0;

  constructor(opts: SummaryOptions = {}) {
    const keep = Math.max(2, Math.floor(opts.keepPerRecord ?? DEFAULT_KEEP_PER_RECORD));
    this.keepFirst = Math.ceil(keep / 2);
    this.keepRecent = keep - this.keepFirst;
    this.minConfidence = opts.minConfidence ?? 0;
  }

  /** The matches of one line (1-based number); `line` is the line's text. */
  add(lineNumber: number, matches: readonly RecordMatch[], line: string): void {
    let kept = false;
    for (const m of matches) {
      if (m.confidence.score < this.minConfidence) {
        this.belowThreshold++;
        continue;
      }
      kept = true;
      this.matches++;
      let g = this.groups.get(m.record.id);
      if (!g) {
        g = { record: m.record, count: 0, firstLine: lineNumber, lastLine: lineNumber, confidence: 0, first: [], recent: [], recentNext: 0, order: this.groups.size };
        this.groups.set(m.record.id, g);
      }
      g.count++;
      g.lastLine = lineNumber;
      if (m.confidence.score > g.confidence) g.confidence = m.confidence.score;
      const occ = (): Occurrence => ({
        line: lineNumber,
        start: m.match.start,
        end: m.match.end,
        text: cut(m.match.text, MAX_SPAN_TEXT),
        lineText: cut(line, MAX_LINE_TEXT),
        captures: m.match.captures.map((c) => ({ name: c.name, value: cut(c.value, MAX_SPAN_TEXT) })),
        confidence: m.confidence.score,
      });
      if (g.first.length < this.keepFirst) g.first.push(occ());
      else if (this.keepRecent > 0) {
        if (g.recent.length < this.keepRecent) g.recent.push(occ());
        else {
          g.recent[g.recentNext] = occ();
          g.recentNext = (g.recentNext + 1) % this.keepRecent;
        }
      }
    }
    if (kept) this.matchedLines++;
  }

  /** Distinct records matched. */
  get size(): number {
    return this.groups.size;
  }

  /** Occurrences kept over all records (bounded by size * keepPerRecord). */
  get keptOccurrences(): number {
    let n = 0;
    for (const g of this.groups.values()) n += g.first.length + g.recent.length;
    return n;
  }

  /** Groups in order of first appearance (the first error of a log is often the cause). */
  result(): RecordGroup[] {
    return [...this.groups.values()]
      .sort((a, b) => a.firstLine - b.firstLine || a.order - b.order)
      .map((g) => {
        const recent = g.recent.length < this.keepRecent ? g.recent : [...g.recent.slice(g.recentNext), ...g.recent.slice(0, g.recentNext)];
        const occurrences = [...g.first, ...recent];
        return {
          record: g.record,
          count: g.count,
          firstLine: g.firstLine,
          lastLine: g.lastLine,
          confidence: g.confidence,
          occurrences,
          omitted: g.count - occurrences.length,
        };
      });
  }

  /** Forget everything (the file was truncated or replaced). */
  clear(): void {
    this.groups.clear();
    this.matchedLines = 0;
    this.matches = 0;
    this.belowThreshold = 0;
  }
}
