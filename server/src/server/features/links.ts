// Document links in log-like documents: each matched span links to the record's raise site
// (local file when resolved, else the pinned githubUrl), and `file:line` references link to
// workspace files. Long documents are processed in slices that honour cancellation.
import type { CancellationToken, DocumentLink, DocumentLinkParams } from 'vscode-languageserver';
import { oneLine } from '../../core/render';
import type { ServerContext } from '../context';
import type { FileRefResolver } from '../state/fileRefResolver';
import { findFileRefs } from '../../core/fileRefs';
import { lineMatches, raiseSiteNear, scanDocument } from './matching';
import { isExcluded } from '../state/settings';
import { throwIfCancelled, yieldToEventLoop } from '../runSafe';
import { pathToUri } from '../uri';

export const MAX_LINKS = 10_000;
const SLICE_MS = 15;

export function fileTarget(file: string, line: number, column?: number): string {
  return `${pathToUri(file)}#L${line}${column ? `,${column}` : ''}`;
}

export async function documentLinks(
  ctx: ServerContext,
  refs: FileRefResolver,
  params: DocumentLinkParams,
  token?: CancellationToken,
): Promise<DocumentLink[]> {
  const doc = ctx.documents.get(params.textDocument.uri);
  if (!doc || !(await ctx.isLogDocument(doc))) return [];
  await scanDocument(ctx, doc, token);
  const settings = await ctx.settingsFor(doc.uri);
  const out: DocumentLink[] = [];
  let deadline = performance.now() + SLICE_MS;
  for (let i = 0; i < doc.lineCount && out.length < MAX_LINKS; i++) {
    if ((i & 255) === 0 && performance.now() > deadline) {
      await yieldToEventLoop();
      throwIfCancelled(token);
      deadline = performance.now() + SLICE_MS;
    }
    for (const m of lineMatches(ctx, doc, i)) {
      if (isExcluded(settings, m.record)) continue;
      const site = raiseSiteNear(ctx, doc, i, m.record);
      if (!site) continue;
      const target = site.kind === 'local' ? `${site.uri}#L${site.line + 1}` : site.url;
      out.push({
        range: { start: { line: i, character: m.match.start }, end: { line: i, character: m.match.end } },
        target,
        tooltip: oneLine(`Go to where ${m.record.errorClass || m.record.errorType} is raised`),
      });
    }
    let lineRefs = doc.refs[i];
    if (lineRefs === undefined) lineRefs = doc.refs[i] = findFileRefs(doc.line(i));
    for (const r of lineRefs) {
      const file = refs.resolve(r.file);
      if (!file) continue;
      out.push({
        range: { start: { line: i, character: r.start }, end: { line: i, character: r.end } },
        target: fileTarget(file, r.line, r.column),
      });
    }
  }
  return out;
}
