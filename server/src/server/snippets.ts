// Snippet text for a target document: the SnippetTarget (language, indentation of the target line,
// tabs/spaces from the client or detected) and the record's snippet for a kind, via core/snippet.
import type { ErrorRecord } from '../core/record';
import { languageById, languageForPath } from '../core/languages';
import { formatSnippet, SnippetTarget } from '../core/snippet';
import type { SnippetParams, SnippetResult } from '../protocol';
import type { ServerContext } from './context';
import type { TrackedDocument } from './documents';
import { detectIndentation, leadingWhitespace } from './indentation';
import { uriToPath } from './uri';

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

/** Language id of a document: its languageId when known to the core, else from its path. */
export function documentLanguage(uri: string, languageId: string | undefined): string | undefined {
  if (languageId && languageById(languageId)) return languageById(languageId)!.id;
  const p = uriToPath(uri) ?? uri;
  return languageForPath(p)?.id ?? languageId;
}

export function snippetTarget(
  doc: TrackedDocument | undefined,
  uri: string,
  line: number,
  opts: { languageId?: string; insertSpaces?: boolean; tabSize?: number; record: ErrorRecord },
): SnippetTarget {
  const detected = doc ? detectIndentation(doc.lines) : { insertSpaces: true, tabSize: 4 };
  const languageId =
    documentLanguage(uri, opts.languageId ?? doc?.languageId) ?? languageForPath(opts.record.filePath)?.id ?? 'plaintext';
  return {
    languageId,
    indent: doc ? leadingWhitespace(doc.line(line)) : '',
    insertSpaces: opts.insertSpaces ?? detected.insertSpaces,
    tabSize: opts.tabSize && opts.tabSize > 0 ? opts.tabSize : detected.tabSize,
    eol: doc?.eol ?? '\n',
  };
}

export function ensureEol(text: string, eol: string): string {
  return /\r?\n$/.test(text) ? text : text + eol;
}

/** errorExplainer/snippet */
export function snippetRequest(ctx: ServerContext, params: SnippetParams): SnippetResult | null {
  const record = ctx.catalog().get(params.id);
  if (!record) return null;
  const code = snippetCode(record, params.kind);
  if (!code) return null;
  const doc = ctx.documents.get(params.uri);
  const line = Math.max(0, Math.min(params.line, doc ? doc.lineCount - 1 : params.line));
  const target = snippetTarget(doc, params.uri, line, {
    record,
    ...(params.languageId !== undefined ? { languageId: params.languageId } : {}),
    ...(params.insertSpaces !== undefined ? { insertSpaces: params.insertSpaces } : {}),
    ...(params.tabSize !== undefined ? { tabSize: params.tabSize } : {}),
  });
  return { text: ensureEol(formatSnippet(code, record, target), target.eol), line };
}
