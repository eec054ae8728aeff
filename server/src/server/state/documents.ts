// Open documents as arrays of lines, edited in place by incremental didChange events, each with a
// per-line cache of record matches. An edit re-matches nothing by itself: it splices the changed
// lines out of the cache (their entries become `undefined`, i.e. "not matched yet") and the
// unchanged lines keep their results; line numbers shift with the array. `generation` counts
// changes that alter the diagnostics of the document, so an append of a line without a match
// leaves pull diagnostics "unchanged". The document's error blocks (tracebacks, stack traces:
// core/blocks) are kept the same way: an edit marks its lines, and the next scan re-parses only
// around them (matching.ts), clearing the matches of the lines whose block changed.
import { BlockIndex } from '../../core/blocks';
import type { RecordMatch } from '../../core/catalog';
import { splitLines } from '../../core/text';
import type { FileRef } from '../../core/fileRefs';

export interface Position {
  line: number;
  character: number;
}
export interface ContentChange {
  range?: { start: Position; end: Position };
  text: string;
}

/** Splicing more lines than this with `splice(...items)` risks the argument limit. */
const SPLICE_LIMIT = 20000;

export type LineMatches = readonly RecordMatch[];
export const NO_MATCHES: LineMatches = Object.freeze([]) as LineMatches;

export class TrackedDocument {
  lines: string[];
  /** Per line: matches, or undefined when the line was not matched since it last changed. */
  matches: (LineMatches | undefined)[];
  /** Per line: `file:line` references (document links), or undefined when not computed yet. */
  refs: (readonly FileRef[] | undefined)[];
  eol: '\n' | '\r\n';
  /** Bumped whenever the diagnostics of this document may have changed. */
  generation = 0;
  /** Cached "is this a log-like document" decision (cleared on configuration change). */
  logLike: boolean | undefined;
  /** Every line before this index has a match result (scans start here). */
  firstUnscanned = 0;
  /** First line edited since the last diagnostics report (the report resets it to Infinity). */
  diagnosticsDirtyFrom = 0;
  /** The error blocks (re-parsed around edits by matching.ts before lines are matched). */
  readonly blocks: BlockIndex;

  constructor(
    readonly uri: string,
    public languageId: string,
    public version: number,
    text: string,
  ) {
    this.lines = splitLines(text);
    this.matches = unknowns(this.lines.length);
    this.refs = unknowns(this.lines.length);
    this.eol = detectEol(text);
    this.blocks = new BlockIndex(this.lines.length);
  }

  get lineCount(): number {
    return this.lines.length;
  }

  line(i: number): string {
    return this.lines[i] ?? '';
  }

  getText(): string {
    return this.lines.join(this.eol);
  }

  /** Forget every match (records reloaded). */
  clearMatches(): void {
    this.matches = unknowns(this.lines.length);
    this.firstUnscanned = 0;
    this.diagnosticsDirtyFrom = 0;
    this.generation++;
  }

  apply(changes: readonly ContentChange[], version: number): void {
    for (const c of changes) this.applyOne(c);
    this.version = version;
  }

  private applyOne(change: ContentChange): void {
    if (!change.range) {
      this.lines = splitLines(change.text);
      this.matches = unknowns(this.lines.length);
      this.refs = unknowns(this.lines.length);
      this.eol = detectEol(change.text);
      this.blocks.reset(this.lines.length);
      this.firstUnscanned = 0;
      this.diagnosticsDirtyFrom = 0;
      this.generation++;
      return;
    }
    const last = this.lines.length - 1;
    const s = this.clamp(change.range.start);
    const e = this.clamp(change.range.end);
    const [start, end] = s.line < e.line || (s.line === e.line && s.character <= e.character) ? [s, e] : [e, s];
    const prefix = this.line(start.line).slice(0, start.character);
    const suffix = this.line(end.line).slice(end.character);
    const replacement = splitLines(prefix + change.text + suffix);
    const removed = end.line - start.line + 1;
    const delta = replacement.length - removed;

    let affectsDiagnostics = false;
    for (let i = start.line; i <= end.line && !affectsDiagnostics; i++) {
      if (this.matches[i]?.length) affectsDiagnostics = true;
    }
    if (!affectsDiagnostics && delta !== 0) {
      for (let i = end.line + 1; i <= last; i++) {
        if (this.matches[i]?.length) {
          affectsDiagnostics = true;
          break;
        }
      }
    }

    if (replacement.length <= SPLICE_LIMIT) {
      this.lines.splice(start.line, removed, ...replacement);
      this.matches.splice(start.line, removed, ...unknowns(replacement.length));
      this.refs.splice(start.line, removed, ...unknowns(replacement.length));
    } else {
      this.lines = this.lines.slice(0, start.line).concat(replacement, this.lines.slice(end.line + 1));
      this.matches = this.matches
        .slice(0, start.line)
        .concat(unknowns(replacement.length), this.matches.slice(end.line + 1));
      this.refs = this.refs
        .slice(0, start.line)
        .concat(unknowns(replacement.length), this.refs.slice(end.line + 1));
    }
    this.blocks.edit(start.line, removed, replacement.length);
    this.firstUnscanned = Math.min(this.firstUnscanned, start.line);
    this.diagnosticsDirtyFrom = Math.min(this.diagnosticsDirtyFrom, start.line);
    if (affectsDiagnostics) this.generation++;
  }

  private clamp(p: Position): Position {
    const line = Math.max(0, Math.min(p.line, this.lines.length - 1));
    if (p.line > this.lines.length - 1) return { line, character: this.line(line).length };
    return { line, character: Math.max(0, Math.min(p.character, this.line(line).length)) };
  }
}

/**
 * `n` undefined entries in a packed array. (`new Array(n)` for large n gives a dictionary-mode
 * array in V8: every index access of a 500k-line cache would be a hash lookup.)
 */
export function unknowns(n: number): undefined[] {
  const a: undefined[] = [];
  for (let i = 0; i < n; i++) a.push(undefined);
  return a;
}

function detectEol(text: string): '\n' | '\r\n' {
  const i = text.indexOf('\n');
  return i > 0 && text.charCodeAt(i - 1) === 13 ? '\r\n' : '\n';
}

export class DocumentStore {
  private readonly docs = new Map<string, TrackedDocument>();

  open(uri: string, languageId: string, version: number, text: string): TrackedDocument {
    const doc = new TrackedDocument(uri, languageId, version, text);
    this.docs.set(uri, doc);
    return doc;
  }
  get(uri: string): TrackedDocument | undefined {
    return this.docs.get(uri);
  }
  close(uri: string): void {
    this.docs.delete(uri);
  }
  all(): TrackedDocument[] {
    return [...this.docs.values()];
  }
}
