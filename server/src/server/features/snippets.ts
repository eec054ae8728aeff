// Snippet text for a target document: the SnippetTarget (language, indentation of the target line,
// tabs/spaces from the client or detected) and the record's snippet for a kind, via core/snippet.
import type { ErrorRecord } from '../../core/record';
import { planSnippet, type PlannedSnippet, SnippetTarget, snippetLanguage } from '../../core/snippet';
import type { SnippetParams, SnippetResult } from '../../protocol';
import type { ServerContext } from '../context';
import type { TrackedDocument } from '../state/documents';
import { detectIndentation, leadingWhitespace } from '../../core/indentation';
import { uriToPath } from '../uri';

export type SnippetKind = SnippetParams['kind'];

export function snippetCode(record: ErrorRecord, kind: SnippetKind): string | null {
  switch (kind) {
    case 'validation':
      return record.validationCode;
    case 'tryCatch':
      return record.tryCatchPattern;
    case 'typeGuard':
      return record.typeGuard;
    case 'exampleFix':
      return record.exampleFix;
    default:
      return null;
  }
}

export function snippetTarget(
  doc: TrackedDocument | undefined,
  uri: string,
  line: number,
  opts: { languageId?: string; insertSpaces?: boolean; tabSize?: number; record: ErrorRecord },
): SnippetTarget {
  const detected = doc ? detectIndentation(doc.lines) : { insertSpaces: true, tabSize: 4 };
  return {
    languageId: snippetLanguage(opts.record, opts.languageId ?? doc?.languageId, uriToPath(uri) ?? uri).id,
    indent: doc ? leadingWhitespace(doc.line(line)) : '',
    insertSpaces: opts.insertSpaces ?? detected.insertSpaces,
    tabSize: opts.tabSize && opts.tabSize > 0 ? opts.tabSize : detected.tabSize,
    eol: doc?.eol ?? '\n',
  };
}

export function ensureEol(text: string, eol: string): string {
  return /\r?\n$/.test(text) ? text : text + eol;
}

/** A record's snippet planned for a line (and selected lines) of a document; see core planSnippet. */
export function planFor(
  record: ErrorRecord,
  kind: SnippetKind,
  code: string,
  doc: TrackedDocument | undefined,
  uri: string,
  line: number,
  opts: { selection?: { start: number; end: number }; languageId?: string; insertSpaces?: boolean; tabSize?: number },
): PlannedSnippet {
  const target = snippetTarget(doc, uri, line, {
    record,
    ...(opts.languageId !== undefined ? { languageId: opts.languageId } : {}),
    ...(opts.insertSpaces !== undefined ? { insertSpaces: opts.insertSpaces } : {}),
    ...(opts.tabSize !== undefined ? { tabSize: opts.tabSize } : {}),
  });
  // (a document the server does not have: blank lines up to `line`, so the snippet goes there)
  const lines = doc?.lines ?? new Array<string>(Math.min(line, 1_000_000) + 1).fill('');
  const last = Math.max(0, lines.length - 1);
  const sel = opts.selection && Number.isInteger(opts.selection.start) && Number.isInteger(opts.selection.end)
    ? { start: Math.max(0, Math.min(opts.selection.start, last)), end: Math.max(0, Math.min(opts.selection.end, last)) }
    : undefined;
  return planSnippet(kind, code, record, { lines, languageId: target.languageId }, { line, ...(sel ? { selection: sel } : {}) }, {
    insertSpaces: target.insertSpaces,
    tabSize: target.tabSize,
    eol: target.eol,
  });
}

/** errorExplainer/snippet */
export function snippetRequest(ctx: ServerContext, params: SnippetParams): SnippetResult | null {
  const record = ctx.catalog().get(params.id);
  if (!record) return null;
  const code = snippetCode(record, params.kind);
  if (!code) return null;
  const doc = ctx.documents.get(params.uri);
  const line = Math.max(0, Math.min(Math.floor(Number(params.line) || 0), doc ? doc.lineCount - 1 : Math.floor(Number(params.line) || 0)));
  const plan = planFor(record, params.kind, code, doc, params.uri, line, {
    ...(params.selection ? { selection: params.selection } : {}),
    ...(params.languageId !== undefined ? { languageId: params.languageId } : {}),
    ...(params.insertSpaces !== undefined ? { insertSpaces: params.insertSpaces } : {}),
    ...(params.tabSize !== undefined ? { tabSize: params.tabSize } : {}),
  });
  return {
    text: plan.text,
    line: plan.start,
    ...(plan.replace ? { replace: { start: plan.start, end: plan.end } } : {}),
    snippet: plan.snippet,
  };
}
