// How one match reads as a problem, wherever problems are listed (the Problems panel, `scan`'s
// text lines, SARIF): the message is the error as it appears in the log (the matched text, its
// captured values included), the code a short name of the record (its errorCode, else its class,
// else a short id), never the record's template or a cut-off slug.
import type { ErrorRecord } from './record';
import { shorten, stripControls } from './render';
import { stripAnsi } from './text';

/** Longest message of a problem (characters); longer matched text is cut at a word with "…". */
export const MAX_PROBLEM_MESSAGE = 300;
const MAX_CODE = 40;

/** The problem message of a match: its text on one line (ANSI colours removed); the record's message when the text is empty. */
export function problemMessage(record: Pick<ErrorRecord, 'errorMessage'>, matchedText: string): string {
  const text = oneLine(stripAnsi(matchedText));
  return shorten(text || oneLine(record.errorMessage), MAX_PROBLEM_MESSAGE);
}

/** A short code for a record: errorCode, else errorClass (its last dotted part when long), else the id's first 8 digits. */
export function problemCode(record: Pick<ErrorRecord, 'errorCode' | 'errorClass' | 'id'>): string {
  const code = record.errorCode ? oneLine(record.errorCode) : '';
  if (code) return code.length <= MAX_CODE ? code : shorten(code, MAX_CODE);
  const cls = record.errorClass ? oneLine(record.errorClass) : '';
  if (cls) {
    if (cls.length <= MAX_CODE) return cls;
    const last = cls.split(/[.:]+/).filter(Boolean).pop() ?? cls;
    return last.length <= MAX_CODE ? last : shorten(last, MAX_CODE);
  }
  return record.id.slice(0, 8);
}

function oneLine(s: string): string {
  return stripControls(s).replace(/\s+/g, ' ').trim();
}
