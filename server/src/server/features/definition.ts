// Go to Definition in a log-like document: on a matched span -> the record's local raise site
// (the workspace, the folder the record was extracted from, or a file named by a stack frame near
// the line);
// on a `file:line` reference -> that workspace file. (A remote githubUrl is no Location; the
// document link and the hover carry it.)
import type { DefinitionParams, Location } from 'vscode-languageserver';
import type { ServerContext } from '../context';
import type { FileRefResolver } from '../state/fileRefResolver';
import { findFileRefs } from '../../core/fileRefs';
import { matchesAt, raiseSiteNear } from './matching';
import { isExcluded } from '../state/settings';
import { pathToUri } from '../uri';

export async function definition(ctx: ServerContext, refs: FileRefResolver, params: DefinitionParams): Promise<Location[] | null> {
  const doc = ctx.documents.get(params.textDocument.uri);
  if (!doc || !(await ctx.isLogDocument(doc))) return null;
  const { line, character } = params.position;
  const out: Location[] = [];
  const settings = await ctx.settingsFor(doc.uri);
  for (const m of matchesAt(ctx, doc, line, character)) {
    if (isExcluded(settings, m.record)) continue;
    const site = raiseSiteNear(ctx, doc, line, m.record);
    if (site?.kind === 'local') {
      out.push({ uri: site.uri, range: { start: { line: site.line, character: 0 }, end: { line: site.line, character: 0 } } });
    }
  }
  if (out.length) return dedupe(out);
  for (const r of findFileRefs(doc.line(line))) {
    if (character < r.start || character > r.end) continue;
    const file = refs.resolve(r.file);
    if (!file) continue;
    const l = Math.max(0, r.line - 1);
    const c = Math.max(0, (r.column ?? 1) - 1);
    out.push({ uri: pathToUri(file), range: { start: { line: l, character: c }, end: { line: l, character: c } } });
  }
  return out.length ? out : null;
}

function dedupe(locs: Location[]): Location[] {
  const seen = new Set<string>();
  return locs.filter((l) => {
    const k = `${l.uri}:${l.range.start.line}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
