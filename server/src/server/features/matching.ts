// Matching of log documents, line by line, through the per-line cache of TrackedDocument.
// A full scan runs in time slices and yields to the event loop between them, so cancellation and
// edits arriving meanwhile are seen; after an edit only lines without a cached result are matched.
// Lines are matched in the context of their error block (core/blocks): an exception line with its
// block's frames, frames / quoted code / other block lines not at all. The blocks are re-parsed
// around edits first, and lines whose block changed lose their cached matches.
import type { CancellationToken } from 'vscode-languageserver';
import { type ErrorBlock, arraySource, blockAround } from '../../core/blocks';
import { matchLineInBlock } from '../../core/catalog';
import type { ErrorRecord } from '../../core/record';
import type { ServerContext } from '../context';
import { LineMatches, NO_MATCHES, TrackedDocument } from '../state/documents';
import { findFileRefs } from '../../core/fileRefs';
import { framePathsNear } from '../../core/raiseSite';
import type { RaiseSite } from '../state/raiseSiteResolver';
import { errorText, throwIfCancelled, yieldToInteractive } from '../runSafe';

/** A slice of background matching: an interactive request waits for at most one. */
const SLICE_MS = 4;
/** A scan brings the blocks up to date this many lines ahead of the line it matches (parsing them
 * takes a few µs a line: a refresh stays well inside a slice). */
const BLOCKS_AHEAD = 512;
/** A request's line this far past the parsed blocks gets its block from a parse of this many lines
 * before it (lineMatchesNow): about half a millisecond, where parsing every block before it took
 * 240 ms at line 400,000 of a 50 MB log. */
const LOCAL_WINDOW = 1000;
/** Lines a scan slice matches between two looks at the clock (a line costs up to ~60 µs with 100k
 * records: 256 of them made 15 ms slices). */
const CLOCK_EVERY = 16;
let lastFailure = 0;

/**
 * Re-parses the document's error blocks where edits may have changed them, at least up to line
 * `upTo`. Lines whose block changed lose their cached matches (and are scanned again); returns
 * the first of them (Infinity: none).
 */
export function refreshBlocks(doc: TrackedDocument, upTo: number): number {
  if (doc.blocks.isFresh(upTo)) return Infinity;
  const lines = doc.lines;
  const changes = doc.blocks.refresh(
    arraySource(lines.length, (i) => lines[i] ?? ''),
    upTo,
  );
  let lowest = Infinity;
  for (const c of changes) {
    lowest = Math.min(lowest, c.from);
    const to = Math.min(c.to, doc.matches.length);
    for (let i = c.from; i < to; i++) {
      if (doc.matches[i]?.length) doc.generation++;
      doc.matches[i] = undefined;
    }
    doc.firstUnscanned = Math.min(doc.firstUnscanned, c.from);
    doc.diagnosticsDirtyFrom = Math.min(doc.diagnosticsDirtyFrom, c.from);
  }
  return lowest;
}

/** Matches of one line (cached), in its block's context. Records that match are noted as "seen". */
export function lineMatches(ctx: ServerContext, doc: TrackedDocument, i: number): LineMatches {
  let m = doc.matches[i];
  if (m === undefined) {
    if (i < 0 || i >= doc.lines.length) return NO_MATCHES;
    refreshBlocks(doc, i);
    m = matchInDocument(ctx, doc, i);
    doc.matches[i] = m;
    if (m.length) {
      doc.generation++;
      const source = seenSource(doc.uri);
      for (const x of m) ctx.seen.note(x.record.id, source);
    }
  }
  return m;
}

/**
 * lineMatches for a request (hover, definition, code action): a line more than LOCAL_WINDOW lines
 * past the document's parsed blocks (a big log whose background scan has not got there) is matched
 * in the context of the block a parse of the LOCAL_WINDOW lines before it finds (blockAround), not
 * after parsing every block before it. That answer is not kept: the scan matches the line in the
 * index's context when it gets there (the same block, unless one reaches back past the window).
 */
export function lineMatchesNow(ctx: ServerContext, doc: TrackedDocument, i: number): LineMatches {
  const m = doc.matches[i];
  if (m !== undefined) return m;
  if (i < 0 || i >= doc.lines.length || i - doc.blocks.freshTo <= LOCAL_WINDOW) return lineMatches(ctx, doc, i);
  const lines = doc.lines;
  const block = blockAround(arraySource(lines.length, (k) => lines[k] ?? ''), i - LOCAL_WINDOW, i);
  return matchInBlockOf(ctx, lines[i] ?? '', i, block);
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
  return safely(ctx, () => ctx.catalog().matchLine(line));
}

/** Matches of line i of a document in its block's context (blocks must be fresh up to i). */
function matchInDocument(ctx: ServerContext, doc: TrackedDocument, i: number): LineMatches {
  return matchInBlockOf(ctx, doc.lines[i] ?? '', i, doc.blocks.blockAt(i));
}

/** Matches of line i (text `line`) in the context of `block` (the block containing it, if any). */
export function matchInBlockOf(ctx: ServerContext, line: string, i: number, block: ErrorBlock | undefined): LineMatches {
  return safely(ctx, () => matchLineInBlock(ctx.catalog(), line, i, block));
}

function safely(ctx: ServerContext, f: () => LineMatches): LineMatches {
  try {
    const r = f();
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
    let fresh = -1;
    while (i < n) {
      if (i > fresh) {
        // blocks ahead first; lines before i whose block changed are matched again
        const changed = refreshBlocks(doc, i + BLOCKS_AHEAD);
        fresh = i + BLOCKS_AHEAD;
        i = Math.min(i, changed);
      }
      if (doc.matches[i] === undefined) lineMatches(ctx, doc, i);
      i++;
      if (++count % CLOCK_EVERY === 0 && performance.now() > deadline) break;
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
  const all = lineMatchesNow(ctx, doc, line);
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
