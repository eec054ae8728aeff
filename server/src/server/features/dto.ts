// Plain shapes sent to the client (protocol.ts DTOs) from core objects. The client shows these
// strings (QuickPick items, terminal link tooltips, notifications, the Known Errors view): control
// and invisible characters are removed here, with the core's one rule (render.ts stripControls).
import type { RecordMatch } from '../../core/catalog';
import type { ErrorRecord } from '../../core/record';
import { stripControls as clean } from '../../core/render';
import type { Occurrence } from '../../core/logScan/summary';
import type { CaptureDto, MatchDto, RecordSummaryDto, ScanOccurrenceDto } from '../../protocol';

export function summary(r: ErrorRecord): RecordSummaryDto {
  return {
    id: r.id,
    slug: clean(r.slug),
    repo: clean(r.repo),
    errorCode: r.errorCode === null ? null : clean(r.errorCode),
    errorMessage: clean(r.errorMessage),
    errorClass: r.errorClass === null ? null : clean(r.errorClass),
    httpStatus: r.httpStatus,
    severity: r.severity,
    tags: r.tags.map(clean),
  };
}

export function captures(m: RecordMatch): CaptureDto[] {
  return m.match.captures.map((c) => ({ name: clean(c.name), value: clean(c.value) }));
}

export function matchDto(m: RecordMatch, line: number): MatchDto {
  return {
    record: summary(m.record),
    line,
    start: m.match.start,
    end: m.match.end,
    text: clean(m.match.text),
    captures: captures(m),
  };
}

/** A scanned log's occurrence: the shown text cleaned; line and offsets still address the file. */
export function occurrenceDto(o: Occurrence): ScanOccurrenceDto {
  return {
    line: o.line,
    start: o.start,
    end: o.end,
    text: clean(o.text),
    lineText: clean(o.lineText),
    captures: o.captures.map((c) => ({ name: clean(c.name), value: clean(c.value) })),
    confidence: o.confidence,
  };
}
