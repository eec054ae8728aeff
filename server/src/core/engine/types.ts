// What the engine takes and gives (entries, matches, captures) and the token rule, in a module of
// their own so the engine's parts (blocks.ts, longLine.ts) and the core use them without importing
// engine.ts (no import circle).
import type { RawMatch } from './matchers';
import type { LineView } from '../text';

export interface EngineEntry {
  id: string;
  pattern: string;
  captureNames: string[];
  errorCode: string | null;
}
/** Offsets in the ORIGINAL line (UTF-16 units, end exclusive). */
export interface Capture {
  name: string;
  value: string;
  start: number;
  end: number;
}
export interface LineMatch {
  entry: number; // index into the entries given to MatchEngine.build
  start: number;
  end: number; // UTF-16 offsets in the original line, end exclusive
  text: string; // original-line text of the span
  captures: Capture[];
  literalLength: number; // literal characters of the pattern (ranking)
  codeInLine: boolean; // errorCode appears as a token in the line (ranking)
}

/** The best match of one pattern slot on a line: its raw match in the view it came from, before
 * its records' LineMatches are made. */
export interface SlotResult {
  slot: number;
  raw: RawMatch;
  /** Start in the original line (the leftmost wins). */
  start: number;
  view: LineView | undefined;
  json: boolean;
}

/** A line's slot results and the text its error codes are looked for in (its first view). */
export interface SlotResults {
  results: SlotResult[];
  base: string;
}

/** Where result r ends in the original line. */
export function resultEnd(r: SlotResult): number {
  return r.view ? r.view.toOriginal(r.raw.end, true) : r.raw.end;
}


/** [A-Za-z0-9_] for one UTF-16 unit (NaN, i.e. outside the text, is not a word character). */
export function isWordUnit(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;
}

/** True when `code` occurs in `text` with no word character directly before or after it. */
export function hasToken(text: string, code: string): boolean {
  if (!code) return false;
  let i = text.indexOf(code);
  while (i >= 0) {
    if (!(i > 0 && isWordUnit(text.charCodeAt(i - 1))) && !isWordUnit(text.charCodeAt(i + code.length))) return true;
    i = text.indexOf(code, i + 1);
  }
  return false;
}

