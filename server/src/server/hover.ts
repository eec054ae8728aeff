// Hover: in a log-like document, every record matching the span under the cursor (rank order),
// rendered compact with the captures of this line and a footer of the extension's own command
// links; on the exception line of an error block, first where it was raised (the block's raising
// frame, linked to the workspace file when there is one). In a source file, the records whose
// raise site is under the cursor.
import * as path from 'node:path';
import type { CancellationToken, Hover, HoverParams } from 'vscode-languageserver';
import type { RecordMatch } from '../core/catalog';
import type { ErrorRecord } from '../core/record';
import { escapeMarkdown, renderRecord } from '../core/render';
import { hoverFooter } from './commands';
import type { ServerContext } from './context';
import type { TrackedDocument } from './documents';
import { captures } from './dto';
import { fileTarget } from './links';
import { matchesAt } from './matching';
import type { RaiseSite } from './raiseSite';
import { errorText, throwIfCancelled } from './runSafe';
import { uriToPath } from './uri';

const SEPARATOR = '\n\n---\n\n';
/** Hovers show at most this many records (the rest are in search / the record view). */
const MAX_RECORDS = 5;

export async function hover(ctx: ServerContext, params: HoverParams, token?: CancellationToken): Promise<Hover | null> {
  const doc = ctx.documents.get(params.textDocument.uri);
  if (!doc) return null;
  const { line, character } = params.position;
  if (line < 0 || line >= doc.lineCount) return null;
  if (await ctx.isLogDocument(doc)) {
    throwIfCancelled(token);
    const ms = matchesAt(ctx, doc, line, character);
    const top = ms[0];
    if (!top) return null;
    const parts = ms.slice(0, MAX_RECORDS).map((m) => renderMatch(ctx, m));
    const raised = raisedAt(ctx, doc, line, top);
    if (raised) parts.unshift(raised);
    return {
      contents: { kind: 'markdown', value: parts.filter(Boolean).join(SEPARATOR) },
      range: { start: { line, character: top.match.start }, end: { line, character: top.match.end } },
    };
  }
  return sourceHover(ctx, params.textDocument.uri, line);
}

/**
 * On an exception line of an error block: "Raised at <file:line> in <function>", the raising frame
 * (a link to the workspace file when the printed path resolves to one; log text is escaped).
 */
export function raisedAt(ctx: ServerContext, doc: TrackedDocument, line: number, top: RecordMatch | undefined): string | undefined {
  const block = doc.blocks.blockAt(line);
  if (!block || block.roles[line - block.first] !== 'exception') return undefined;
  const f = block.frames[block.raising];
  if (!f) return undefined;
  const file = ctx.fileRefs.resolve(f.file);
  const label = escapeMarkdown(`${file ? relativeLabel(ctx, file) : f.file}:${f.line}`);
  let md = `**Raised at** ${file ? `[${label}](${fileTarget(file, f.line, f.column)})` : label}`;
  if (f.function) md += ` in ${escapeMarkdown(f.function)}`;
  if (top?.frame && top.frame.index === block.raising && top.frame.line) md += ' — where the first record below is raised';
  return md;
}

export function renderMatch(ctx: ServerContext, m: RecordMatch): string {
  const caps = captures(m);
  return safeRender(ctx, m.record, {
    match: { text: m.match.text, captures: caps },
    footer: hoverFooter(m.record, caps, m.match.text),
  });
}

function safeRender(
  ctx: ServerContext,
  record: ErrorRecord,
  opts: { match?: { text: string; captures: { name: string; value: string }[] }; footer: string },
): string {
  try {
    const raiseSite = raiseSiteOption(ctx, ctx.raiseSites.resolve(record));
    return renderRecord(record, { ...opts, compact: true, ...(raiseSite ? { raiseSite } : {}) });
  } catch (e) {
    ctx.log.error(`rendering record ${record.id} failed: ${errorText(e)}`);
    return '';
  }
}

/** RenderOptions.raiseSite for a resolved local site (githubUrl is the renderer's default). */
export function raiseSiteOption(ctx: ServerContext, site: RaiseSite | undefined): { label: string; href: string } | undefined {
  if (!site || site.kind !== 'local') return undefined;
  return { label: `${relativeLabel(ctx, site.path)}:${site.line + 1}`, href: `${site.uri}#L${site.line + 1}` };
}

export function relativeLabel(ctx: ServerContext, file: string): string {
  for (const f of ctx.folders()) {
    const rel = path.relative(f, file);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
  }
  return file;
}

/** Records raised on this line of a source file (their local raise site resolves here). */
export function recordsRaisedAt(ctx: ServerContext, uri: string, line: number): { record: ErrorRecord; start: number; end: number }[] {
  const file = uriToPath(uri);
  if (!file) return [];
  const out: { record: ErrorRecord; start: number; end: number }[] = [];
  for (const record of ctx.index().raisedIn.recordsRaisedIn(file)) {
    const site = ctx.raiseSites.resolve(record);
    if (!site || site.kind !== 'local' || path.resolve(site.path) !== path.resolve(file)) continue;
    const end = Math.max(site.line, Math.min(site.textLine, site.line + 5));
    if (line >= site.line && line <= end) out.push({ record, start: site.line, end });
  }
  return out;
}

function sourceHover(ctx: ServerContext, uri: string, line: number): Hover | null {
  const hits = recordsRaisedAt(ctx, uri, line);
  const first = hits[0];
  if (!first) return null;
  const doc = ctx.documents.get(uri);
  const parts = hits.slice(0, MAX_RECORDS).map((h) => safeRender(ctx, h.record, { footer: hoverFooter(h.record, [], undefined) }));
  return {
    contents: { kind: 'markdown', value: parts.filter(Boolean).join(SEPARATOR) },
    range: {
      start: { line: first.start, character: 0 },
      end: { line: first.end, character: doc?.line(first.end).length ?? 0 },
    },
  };
}
