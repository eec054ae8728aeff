// Code actions.
// - In a log-like document, on our diagnostics (or matches under the cursor when the client sends
//   no diagnostics): "Explain …" (client command openRecord) and "Insert handling snippet…"
//   (client command insertSnippet: it inserts into the last code editor, text from SnippetRequest).
// - In a source file of a record's language, when the line names the record's errorClass, holds its
//   message text in a string literal, or the record was matched recently (logs, output panels,
//   terminals): "Insert validation for …" and "Insert try/catch for …" as WorkspaceEdits, most
//   relevant first, at most MAX_RECORDS records.
import { CancellationToken, CodeAction, CodeActionKind, CodeActionParams, Diagnostic, TextEdit } from 'vscode-languageserver';
import { type RecordMatch, recordMatch } from '../core/catalog';
import { languageForPath } from '../core/languages';
import type { ErrorRecord } from '../core/record';
import { oneLine } from '../core/render';
import { formatSnippet, surroundWithTry } from '../core/snippet';
import { CodeActionFormattingOptions, Commands, InsertSnippetArgs, OpenRecordArgs } from '../protocol';
import type { ServerContext } from './context';
import { captures } from './dto';
import type { TrackedDocument } from './documents';
import { SOURCE } from './diagnostics';
import { lineMatches, matchText } from './matching';
import { errorText, throwIfCancelled } from './runSafe';
import { documentLanguage, ensureEol, snippetTarget } from './snippets';

export const MAX_RECORDS = 5;
const TITLE_MESSAGE_CHARS = 80;

export async function codeActions(
  ctx: ServerContext,
  params: CodeActionParams & CodeActionFormattingOptions,
  token?: CancellationToken,
): Promise<CodeAction[]> {
  const doc = ctx.documents.get(params.textDocument.uri);
  if (!doc) return [];
  const only = params.context.only;
  if (only && !only.some((k) => CodeActionKind.QuickFix.startsWith(k) || k === CodeActionKind.Empty)) return [];
  if (await ctx.isLogDocument(doc)) return logActions(ctx, doc, params);
  throwIfCancelled(token);
  return sourceActions(ctx, doc, params);
}

// ---------------------------------------------------------------------------------------------
// Logs

function logActions(ctx: ServerContext, doc: TrackedDocument, params: CodeActionParams): CodeAction[] {
  const out: CodeAction[] = [];
  const done = new Set<string>();
  const ours = params.context.diagnostics.filter((d) => d.source === SOURCE && idOf(d));
  const targets: { match: RecordMatch; diagnostic?: Diagnostic }[] = [];
  for (const d of ours) {
    const id = idOf(d)!;
    const m = lineMatches(ctx, doc, lineOf(d)).find((x) => x.record.id === id);
    const record = m?.record ?? ctx.catalog().get(id);
    if (!record) continue;
    targets.push({ match: m ?? recordMatch(record, { entry: -1, start: 0, end: 0, text: '', captures: [], literalLength: 0, codeInLine: false }, ''), diagnostic: d });
  }
  if (targets.length === 0) {
    const { start, end } = params.range;
    for (let line = start.line; line <= end.line && line < doc.lineCount; line++) {
      for (const m of lineMatches(ctx, doc, line)) {
        const inRange =
          (line > start.line || m.match.end >= start.character) && (line < end.line || m.match.start <= end.character);
        if (inRange) targets.push({ match: m });
      }
    }
  }
  for (const t of targets) {
    const r = t.match.record;
    if (done.has(r.id)) continue;
    done.add(r.id);
    const diagnostics = t.diagnostic ? [t.diagnostic] : undefined;
    const open: OpenRecordArgs = { id: r.id, captures: captures(t.match), ...(t.match.match.text ? { matchedText: t.match.match.text } : {}) };
    out.push({
      title: `Explain ${label(r)}`,
      kind: CodeActionKind.QuickFix,
      ...(diagnostics ? { diagnostics } : {}),
      command: { title: 'Explain', command: Commands.openRecord, arguments: [open] },
    });
    if (r.tryCatchPattern || r.validationCode || r.typeGuard || r.exampleFix) {
      const args: InsertSnippetArgs = { id: r.id };
      out.push({
        title: 'Insert handling snippet…',
        kind: CodeActionKind.QuickFix,
        ...(diagnostics ? { diagnostics } : {}),
        command: { title: 'Insert handling snippet…', command: Commands.insertSnippet, arguments: [args] },
      });
    }
  }
  return out;
}

function idOf(d: Diagnostic): string | undefined {
  const data = d.data as { id?: unknown } | undefined;
  return data && typeof data.id === 'string' ? data.id : undefined;
}

/** The line of a diagnostic's match: an error block's diagnostic names its exception line. */
function lineOf(d: Diagnostic): number {
  const data = d.data as { line?: unknown } | undefined;
  return data && typeof data.line === 'number' && Number.isInteger(data.line) && data.line >= 0 ? data.line : d.range.start.line;
}

// ---------------------------------------------------------------------------------------------
// Source files

const JS_FAMILY = new Set(['javascript', 'javascriptreact', 'typescript', 'typescriptreact']);

function sameLanguage(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  return a === b || (JS_FAMILY.has(a) && JS_FAMILY.has(b));
}

/** String literal contents on a line ('…', "…", `…`, with backslash escapes). */
export function stringLiterals(line: string): string[] {
  const out: string[] = [];
  const re = /(["'`])((?:\\.|(?!\1)[^\\])*)\1/g;
  for (let m = re.exec(line); m; m = re.exec(line)) if (m[2]) out.push(m[2]);
  return out;
}

/** Candidate records for a line of a source file, most relevant first. */
export function candidateRecords(ctx: ServerContext, doc: TrackedDocument, line: number): ErrorRecord[] {
  const lang = documentLanguage(doc.uri, doc.languageId);
  const text = doc.line(line);
  const scored = new Map<string, { record: ErrorRecord; score: number }>();
  const add = (r: ErrorRecord, base: number) => {
    if (!sameLanguage(lang, languageForPath(r.filePath)?.id)) return;
    const score = base + ctx.seen.rank(r.id) / 1e9;
    const prev = scored.get(r.id);
    if (!prev || prev.score < score) scored.set(r.id, { record: r, score });
  };
  // 1. the message text in a string literal (or the line itself) matches the record's pattern
  if (text.length <= 10_000) {
    for (const lit of stringLiterals(text)) for (const m of matchText(ctx, lit)) add(m.record, 3);
    for (const m of matchText(ctx, text)) add(m.record, 3);
    // 2. the line names the record's errorClass
    const index = ctx.index();
    const names = new Set(text.match(/[A-Za-z_$][\w$]*/g) ?? []);
    for (const name of names) for (const r of index.withClass(name)) add(r, ctx.seen.rank(r.id) ? 2 : 1);
  }
  // 3. recently matched in a log, output panel or terminal
  for (const id of ctx.seen.recent(50)) {
    const r = ctx.catalog().get(id);
    if (r) add(r, 0.5);
  }
  return [...scored.values()].sort((a, b) => b.score - a.score).map((x) => x.record).slice(0, MAX_RECORDS);
}

function sourceActions(ctx: ServerContext, doc: TrackedDocument, params: CodeActionParams & CodeActionFormattingOptions): CodeAction[] {
  const range = params.range;
  const line = Math.min(range.start.line, doc.lineCount - 1);
  const fmt = params.formattingOptions;
  const out: CodeAction[] = [];
  const hasSelection = range.start.line !== range.end.line || range.start.character !== range.end.character;
  for (const record of candidateRecords(ctx, doc, line)) {
    try {
      out.push(...recordActions(ctx, doc, record, line, range, hasSelection, fmt));
    } catch (e) {
      ctx.log.error(`code actions for record ${record.id} failed: ${errorText(e)}`);
    }
  }
  return out;
}

function recordActions(
  ctx: ServerContext,
  doc: TrackedDocument,
  record: ErrorRecord,
  line: number,
  range: CodeActionParams['range'],
  hasSelection: boolean,
  fmt: CodeActionFormattingOptions['formattingOptions'],
): CodeAction[] {
  const uri = doc.uri;
  const out: CodeAction[] = [];
  const target = snippetTarget(doc, uri, line, {
    record,
    ...(fmt ? { insertSpaces: fmt.insertSpaces, tabSize: fmt.tabSize } : {}),
  });
  const above = (code: string): TextEdit => ({
    range: { start: { line, character: 0 }, end: { line, character: 0 } },
    newText: ensureEol(formatSnippet(code, record, target), target.eol),
  });
  if (record.validationCode) {
    out.push(editAction(`Insert validation for ${label(record)}`, uri, [above(record.validationCode)]));
  }
  if (record.tryCatchPattern) {
    let edit: TextEdit | undefined;
    if (hasSelection) {
      const first = range.start.line;
      let last = Math.min(range.end.line, doc.lineCount - 1);
      if (last > first && range.end.character === 0) last--;
      const selected = doc.lines.slice(first, last + 1).join(target.eol);
      const t = { ...target, indent: /^[ \t]*/.exec(doc.line(first))![0] };
      const text = surroundWithTry(record.tryCatchPattern, selected, record, t);
      if (text !== undefined) {
        edit = {
          range: { start: { line: first, character: 0 }, end: { line: last, character: doc.line(last).length } },
          newText: text.replace(/\r?\n$/, ''),
        };
      }
    }
    out.push(editAction(`Insert try/catch for ${label(record)}`, uri, [edit ?? above(record.tryCatchPattern)]));
  }
  return out;
}

function editAction(title: string, uri: string, edits: TextEdit[]): CodeAction {
  return { title, kind: CodeActionKind.QuickFix, edit: { changes: { [uri]: edits } } };
}

/** `<class>: <message>` for titles (message shortened, one line). */
export function label(r: ErrorRecord): string {
  const cls = oneLine(r.errorClass || r.errorCode || r.errorType);
  let msg = oneLine(r.errorMessage);
  if (msg.length > TITLE_MESSAGE_CHARS) msg = msg.slice(0, TITLE_MESSAGE_CHARS - 1).trimEnd() + '…';
  return `${cls}: ${msg}`;
}
