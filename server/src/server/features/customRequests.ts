// errorExplainer/* requests (protocol.ts): search, record, explainText, snippet. (status and
// reload live in server.ts, which owns the record sources.)
import type { ErrorRecord } from '../../core/record';
import { renderRecord } from '../../core/render';
import type {
  ExplainTextParams,
  MatchDto,
  RecordParams,
  RecordResult,
  SearchHitDto,
  SearchParams,
} from '../../protocol';
import type { ServerContext } from '../context';
import { matchDto, summary } from './dto';
import { raiseSiteOption } from './hover';
import { splitLines } from '../../core/text';
import { findBlocks } from '../../core/blocks';
import { matchInBlockOf, raiseSiteNear } from './matching';
import { Cancelled } from '../runSafe';
import type { CancellationToken } from 'vscode-languageserver';

export const MAX_SEARCH_LIMIT = 200;
export const MAX_EXPLAIN_MATCHES = 10_000;

export function search(ctx: ServerContext, params: SearchParams): SearchHitDto[] {
  // A missing or non-string query is a malformed request (nothing); an empty string asks for the recent list.
  if (typeof params?.query !== 'string') return [];
  const query = params.query;
  const limit = Math.max(1, Math.min(MAX_SEARCH_LIMIT, Math.floor(Number(params?.limit) || 20)));
  if (!query.trim()) return recent(ctx, limit);
  return ctx
    .catalog()
    .search(query, limit)
    .map((h) => ({ ...summary(h.record), score: h.score, kind: h.kind }));
}

/** An empty query: the records seen in logs, output panels and terminals, most recent first. */
function recent(ctx: ServerContext, limit: number): SearchHitDto[] {
  const out: SearchHitDto[] = [];
  const catalog = ctx.catalog();
  for (const id of ctx.seen.recent()) {
    const r = catalog.get(id);
    if (!r || r.id !== id) continue; // reloaded away
    const where = ctx.seen.source(id);
    out.push({ ...summary(r), score: 0, kind: 'recent', ...(where ? { seenIn: where } : {}) });
    if (out.length >= limit) break;
  }
  return out;
}

/** `complete`: the full record for a lightweight dataset one (fetched once, then cached). */
export async function record(
  ctx: ServerContext,
  params: RecordParams,
  complete?: (r: ErrorRecord) => Promise<ErrorRecord>,
): Promise<RecordResult | null> {
  if (!params || typeof params.id !== 'string') return null;
  const found = ctx.catalog().get(params.id);
  if (!found) return null;
  const r = complete ? await complete(found) : found;
  const near = params.near && typeof params.near.uri === 'string' && Number.isInteger(params.near.line) ? params.near : undefined;
  const nearDoc = near ? ctx.documents.get(near.uri) : undefined;
  const site = nearDoc && near!.line >= 0 && near!.line < nearDoc.lineCount ? raiseSiteNear(ctx, nearDoc, near!.line, r) : ctx.raiseSites.resolve(r);
  const raiseSite = raiseSiteOption(ctx, site);
  const captures = Array.isArray(params.captures)
    ? params.captures.filter((c) => c && typeof c.name === 'string' && typeof c.value === 'string')
    : [];
  const markdown = renderRecord(r, {
    ...(params.matchedText !== undefined || captures.length
      ? { match: { text: String(params.matchedText ?? ''), captures } }
      : {}),
    ...(raiseSite ? { raiseSite } : {}),
  });
  return {
    record: r,
    markdown,
    ...(site ? { raiseSite: site.kind === 'local' ? { uri: site.uri, line: site.line } : { url: site.url } } : {}),
  };
}

export async function explainText(ctx: ServerContext, params: ExplainTextParams, token?: CancellationToken): Promise<MatchDto[]> {
  const text = typeof params?.text === 'string' ? params.text : '';
  const out: MatchDto[] = [];
  const lines = splitLines(text);
  // in the context of error blocks: exception lines ranked by their frames, no frames or quoted code
  const blocks = findBlocks(lines);
  let k = 0;
  for (let i = 0; i < lines.length && out.length < MAX_EXPLAIN_MATCHES; i++) {
    if ((i & 1023) === 1023) {
      await new Promise((r) => setImmediate(r));
      if (token?.isCancellationRequested) throw new Cancelled();
    }
    while (k < blocks.length && blocks[k]!.last < i) k++;
    for (const m of matchInBlockOf(ctx, lines[i]!, i, blocks[k])) {
      out.push(matchDto(m, i));
      ctx.seen.note(m.record.id);
    }
  }
  return out;
}
