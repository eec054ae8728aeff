// Plain shapes sent to the client (protocol.ts DTOs) from core objects.
import type { RecordMatch } from '../core/catalog';
import type { ErrorRecord } from '../core/record';
import type { CaptureDto, MatchDto, RecordSummaryDto } from '../protocol';

export function summary(r: ErrorRecord): RecordSummaryDto {
  return {
    id: r.id,
    slug: r.slug,
    repo: r.repo,
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    errorClass: r.errorClass,
    httpStatus: r.httpStatus,
    severity: r.severity,
    tags: r.tags,
  };
}

export function captures(m: RecordMatch): CaptureDto[] {
  return m.match.captures.map((c) => ({ name: c.name, value: c.value }));
}

export function matchDto(m: RecordMatch, line: number): MatchDto {
  return {
    record: summary(m.record),
    line,
    start: m.match.start,
    end: m.match.end,
    text: m.match.text,
    captures: captures(m),
  };
}
