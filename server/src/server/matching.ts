// Matching of log documents, line by line, through the per-line cache of TrackedDocument.
// A full scan runs in time slices and yields to the event loop between them, so cancellation and
// edits arriving meanwhile are seen; after an edit only lines without a cached result are matched.
import type { CancellationToken } from 'vscode-languageserver';
import type { ErrorRecord } from '../core/record';
import type { ServerContext } from './context';
import { LineMatches, NO_MATCHES, TrackedDocument } from './documents';
import { findFileRefs } from './fileRefs';
import { framePathsNear, type RaiseSite } from './raiseSite';
import { errorText, throwIfCancelled, yieldToInteractive } from './runSafe';

/** A slice of background matching: an interactive request waits for at most one. */
const SLICE_MS = 4;
let lastFailure = 0;

/** Matches of one line (cached). Records that match are noted as "seen". */
export function lineMatches(ctx: ServerContext, doc: TrackedDocument, i: number): LineMatches {
  let m = doc.matches[i];
  if (m === undefined) {
    if (i < 0 || i >= doc.lines.length) return NO_MATCHES;
    m = matchText(ctx, doc.lines[i] ?? '');
    doc.matches[i] = m;
    if (m.length) {
      doc.generation++;
      const source = seenSource(doc.uri);
      for (const x of m) ctx.seen.note(x.record.id, source);
    }
  }
  return m;
}

/** Where a document's matches were seen, for people: its file name ("app.log"), or "an output panel". */
export function seenSource(uri: string): string {
  if (uri.startsWith('output:')) return 'an output panel';
  const path = uri.replace(/[?#].*$/, '');
  const name = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(name) || uri;
  } catch {
    return name || uri;
  }
}

/** Matches of a line of text, never throwing (a failing matcher is logged at most once a minute). */
export function matchText(ctx: ServerContext, line: string): LineMatches {
  try {
    const r = ctx.catalog().matchLine(line);
    return r.length ? r : NO_MATCHES;
  } catch (e) {
    const now = Date.now();
    if (now - lastFailure > 60_000) {
      lastFailure = now;
      ctx.log.error(`matching a line failed: ${errorText(e)}`);
    }
    return NO_MATCHES;
  }
}

/** Matches every line that has no cached result yet. Throws Cancelled when the token fires. */
export async function scanDocument(ctx: ServerContext, doc: TrackedDocument, token?: CancellationToken): Promise<void> {
  let version = doc.version;
  let i = doc.firstUnscanned;
  for (;;) {
    const n = doc.lines.length;
    const deadline = performance.now() + SLICE_MS;
    let count = 0;
    while (i < n) {
      if (doc.matches[i] === undefined) lineMatches(ctx, doc, i);
      i++;
      if ((++count & 255) === 0 && performance.now() > deadline) break;
    }
    if (i >= n) {
      doc.firstUnscanned = n;
      return;
    }
    await yieldToInteractive();
    throwIfCancelled(token);
    if (doc.version !== version) {
      version = doc.version;
      i = Math.min(i, doc.firstUnscanned);
    }
  }
}

/** The matches on a line that contain `character` (hover, definition), in rank order. */
export function matchesAt(ctx: ServerContext, doc: TrackedDocument, line: number, character: number): LineMatches {
  const all = lineMatches(ctx, doc, line);
  if (!all.length) return NO_MATCHES;
  return all.filter((m) => m.match.start <= character && character <= m.match.end);
}

/** The raise site of a record matched on `line` of a log: stack frames around the line count too. */
export function raiseSiteNear(ctx: ServerContext, doc: TrackedDocument, line: number, record: ErrorRecord): RaiseSite | undefined {
  const base = ctx.raiseSites.resolve(record);
  if (base?.kind === 'local' || !record.filePath) return base;
  const refsOf = (i: number) => {
    let r = doc.refs[i];
    if (r === undefined) r = doc.refs[i] = findFileRefs(doc.line(i));
    return r;
  };
  return ctx.raiseSites.resolveNear(record, framePathsNear(refsOf, doc.lineCount, line));
}
