// Hover: in a log-like document, the best record matching the span under the cursor as a glance
// that fits a hover box (core/render compact: one-line title, the action links right under it,
// the first sentences, the first fix, the captures, the confidence and the raise site), then one
// line naming the other records matching there. In a source file, the records whose raise site is
// under the cursor. Records in errorExplainer.records.exclude are left out. On the exception line of
// an error block, first where it was raised (the block's raising frame, linked to the workspace
// file when there is one).
import * as path from 'node:path';
import type { CancellationToken, Hover, HoverParams } from 'vscode-languageserver';
import type { RecordMatch } from '../../core/catalog';
import type { ErrorRecord } from '../../core/record';
import { escapeInline, escapeMarkdown, linkText, renderRecord, type RenderOptions } from '../../core/render';
import { problemCode } from '../../core/problem';
import { hoverActions, otherMatches } from './commandLinks';
import type { ServerContext } from '../context';
import type { TrackedDocument } from '../state/documents';
import { captures } from './dto';
import { fileTarget } from './links';
import { matchesAt, raiseSiteNear } from './matching';
import type { RaiseSite } from '../state/raiseSiteResolver';
import { errorText, throwIfCancelled } from '../runSafe';
import { isExcluded } from '../state/settings';
import { uriToPath } from '../uri';

const SEPARATOR = '\n\n---\n\n';
/** The other records matching the span are named on one line, at most this many. */
const MAX_OTHERS = 4;
/** Source hovers show at most this many records. */
const MAX_RECORDS = 3;

export async function hover(ctx: ServerContext, params: HoverParams, token?: CancellationToken): Promise<Hover | null> {
  const doc = ctx.documents.get(params.textDocument.uri);
  if (!doc) return null;
  const { line, character } = params.position;
  if (line < 0 || line >= doc.lineCount) return null;
  const settings = await ctx.settingsFor(doc.uri);
  if (await ctx.isLogDocument(doc)) {
    throwIfCancelled(token);
    const ms = matchesAt(ctx, doc, line, character).filter((m) => !isExcluded(settings, m.record));
    const top = ms[0];
    if (!top) return null;
    const parts = [renderMatch(ctx, top, doc, line)];
    const others = ms.slice(1, 1 + MAX_OTHERS);
    if (others.length) {
      parts.push(otherMatches(others.map((m) => ({ record: m.record, label: `${problemCode(m.record)} (${m.confidence.label})` })), escapeInline));
    }
    const raised = raisedAt(ctx, doc, line, top);
    if (raised) parts.unshift(raised);
    return {
      contents: { kind: 'markdown', value: parts.map((p) => p.trimEnd()).filter(Boolean).join('\n\n') + '\n' },
      range: { start: { line, character: top.match.start }, end: { line, character: top.match.end } },
    };
  }
  return sourceHover(ctx, params.textDocument.uri, line, (r) => !isExcluded(settings, r));
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
  // the record is raised at this very frame: the glance's title says it (raisingFrameSite), once
  if (top?.frame && top.frame.index === block.raising) return undefined;
  const file = ctx.fileRefs.resolve(f.file);
  const label = `${file ? relativeLabel(ctx, file) : f.file}:${f.line}`;
  let md = `**Raised at** ${file ? `[${linkText(label)}](${fileTarget(file, f.line, f.column)})` : escapeMarkdown(label)}`;
  if (f.function) md += ` in ${escapeMarkdown(f.function)}`;
  return md;
}

/**
 * The raise site the glance's title names when `m` is the record of a block's raising frame and that
 * frame is a workspace file: the frame (the line this run raised it at), linked there. One rule for
 * "raised at" in the hover: the record's raise site — this frame when the trace shows it and the
 * workspace has it, else the record's own site (local file or pinned GitHub permalink) — and a
 * separate "Raised at" line only when the trace's raising frame is somewhere else (raisedAt).
 */
function raisingFrameSite(ctx: ServerContext, doc: TrackedDocument, line: number, m: RecordMatch): { label: string; href: string } | undefined {
  const block = doc.blocks.blockAt(line);
  if (!block || block.roles[line - block.first] !== 'exception' || !m.frame || m.frame.index !== block.raising) return undefined;
  const f = block.frames[block.raising];
  const file = f && ctx.fileRefs.resolve(f.file);
  if (!f || !file) return undefined;
  return { label: `${relativeLabel(ctx, file)}:${f.line}`, href: fileTarget(file, f.line, f.column) };
}

/** The glance of one match on `line` of a log document. */
export function renderMatch(ctx: ServerContext, m: RecordMatch, doc: TrackedDocument, line: number): string {
  const caps = captures(m);
  const frameSite = raisingFrameSite(ctx, doc, line, m);
  const site = raiseSiteNear(ctx, doc, line, m.record);
  return safeRender(ctx, m.record, site, {
    ...(frameSite ? { raiseSite: frameSite } : {}),
    match: { text: m.match.text, captures: caps },
    confidence: m.confidence,
    actions: hoverActions(m.record, caps, m.match.text, { raiseSite: site !== undefined, near: { uri: doc.uri, line } }),
  });
}

function safeRender(ctx: ServerContext, record: ErrorRecord, site: RaiseSite | undefined, opts: RenderOptions): string {
  try {
    const raiseSite = opts.raiseSite ?? raiseSiteOption(ctx, site);
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

function sourceHover(ctx: ServerContext, uri: string, line: number, keep: (r: ErrorRecord) => boolean): Hover | null {
  const hits = recordsRaisedAt(ctx, uri, line).filter((h) => keep(h.record));
  const first = hits[0];
  if (!first) return null;
  const doc = ctx.documents.get(uri);
  const parts = hits.slice(0, MAX_RECORDS).map((h) => {
    const site = ctx.raiseSites.resolve(h.record);
    return safeRender(ctx, h.record, site, { actions: hoverActions(h.record, [], undefined, { raiseSite: false }) });
  });
  return {
    contents: { kind: 'markdown', value: parts.filter(Boolean).join(SEPARATOR) },
    range: {
      start: { line: first.start, character: 0 },
      end: { line: first.end, character: doc?.line(first.end).length ?? 0 },
    },
  };
}
