// Code actions.
// - In a log-like document, on our diagnostics (or matches under the cursor when the client sends
//   no diagnostics), per record: "Explain …" (client command openRecord), "Insert handling
//   snippet…" (insertSnippet: a code editor chosen by the client, text from SnippetRequest) and what
//   Error Lens users expect on a problem: copy the message, search it on the web, show the record's
//   problems one severity lower (diagnostics.severityOverrides), ignore the record (records.exclude).
// - In a source file of a record's language, quick fixes only where the code relates to a record:
//   the line holds its message text in a string literal (the raise), names its errorClass, or calls
//   the function it is raised in. "Insert validation for …" and "Insert try/catch for …" (a
//   try/catch surrounds the selection, or the statement at the cursor). Records matched recently
//   elsewhere (logs, output panels, terminals) are offered on demand only: as refactor actions
//   (kind refactor.errorExplainer) when the user asks for actions (Ctrl+.) or for refactorings,
//   never for the light bulb. Edits are plain text; `data.snippet` carries the same edit with tab
//   stops on names the document does not know, which the VS Code client turns into a snippet edit.
import { CancellationToken, CodeAction, CodeActionKind, CodeActionParams, CodeActionTriggerKind, Diagnostic, TextEdit } from 'vscode-languageserver';
import { type RecordMatch, recordMatch } from '../../core/catalog';
import { documentLanguage, languageForPath } from '../../core/languages';
import { problemCode, problemMessage } from '../../core/problem';
import type { ErrorRecord } from '../../core/record';
import { oneLine } from '../../core/render';
import {
  CodeActionFormattingOptions,
  CodeActionSnippetData,
  Commands,
  CopyMessageArgs,
  DIAGNOSTIC_SOURCE,
  ErrorExplainerSettings,
  IgnoreRecordArgs,
  InsertSnippetArgs,
  OpenRecordArgs,
  SearchOnlineArgs,
  SetRecordSeverityArgs,
  SeverityOverride,
} from '../../protocol';
import type { ServerContext } from '../context';
import { captures } from './dto';
import type { TrackedDocument } from '../state/documents';
import { effectiveSeverity } from './diagnostics';
import { lineMatchesNow, matchText } from './matching';
import { errorText, throwIfCancelled } from '../runSafe';
import { isExcluded } from '../state/settings';
import { uriToPath } from '../uri';
import { planFor, type SnippetKind } from './snippets';

export const MAX_RECORDS = 5;
const TITLE_MESSAGE_CHARS = 80;
/** Kind of the snippet actions offered on demand (records seen elsewhere, not related to the line). */
export const ON_DEMAND_KIND = `${CodeActionKind.Refactor}.errorExplainer`;

/** Whether the client asked for actions of `kind` (context.only). */
function wanted(only: readonly string[] | undefined, kind: string): boolean {
  return !only || only.some((k) => k === CodeActionKind.Empty || kind === k || kind.startsWith(k + '.'));
}

export async function codeActions(
  ctx: ServerContext,
  params: CodeActionParams & CodeActionFormattingOptions,
  token?: CancellationToken,
): Promise<CodeAction[]> {
  const doc = ctx.documents.get(params.textDocument.uri);
  if (!doc) return [];
  const only = params.context.only;
  if (!wanted(only, CodeActionKind.QuickFix) && !wanted(only, ON_DEMAND_KIND)) return [];
  const settings = await ctx.settingsFor(doc.uri);
  if (await ctx.isLogDocument(doc)) return wanted(only, CodeActionKind.QuickFix) ? logActions(ctx, doc, params, settings) : [];
  throwIfCancelled(token);
  return sourceActions(ctx, doc, params, settings);
}

// ---------------------------------------------------------------------------------------------
// Logs

function logActions(ctx: ServerContext, doc: TrackedDocument, params: CodeActionParams, settings: ErrorExplainerSettings): CodeAction[] {
  const out: CodeAction[] = [];
  const done = new Set<string>();
  const ours = params.context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE && idOf(d));
  const targets: { match: RecordMatch; diagnostic?: Diagnostic }[] = [];
  for (const d of ours) {
    const id = idOf(d)!;
    const m = lineMatchesNow(ctx, doc, lineOf(d)).find((x) => x.record.id === id);
    const record = m?.record ?? ctx.catalog().get(id);
    if (!record) continue;
    targets.push({ match: m ?? recordMatch(record, { entry: -1, start: 0, end: 0, text: '', captures: [], literalLength: 0, codeInLine: false }, ''), diagnostic: d });
  }
  if (targets.length === 0) {
    const { start, end } = params.range;
    for (let line = start.line; line <= end.line && line < doc.lineCount; line++) {
      for (const m of lineMatchesNow(ctx, doc, line)) {
        const inRange =
          (line > start.line || m.match.end >= start.character) && (line < end.line || m.match.start <= end.character);
        if (inRange) targets.push({ match: m });
      }
    }
  }
  for (const t of targets) {
    const r = t.match.record;
    if (done.has(r.id) || isExcluded(settings, r)) continue;
    done.add(r.id);
    const diagnostics = t.diagnostic ? [t.diagnostic] : undefined;
    const fix = (title: string, command: string, args: unknown): CodeAction => ({
      title,
      kind: CodeActionKind.QuickFix,
      ...(diagnostics ? { diagnostics } : {}),
      command: { title, command, arguments: [args] },
    });
    const open: OpenRecordArgs = { id: r.id, captures: captures(t.match), ...(t.match.match.text ? { matchedText: t.match.match.text } : {}) };
    out.push(fix(`Explain ${label(r)}`, Commands.openRecord, open));
    if (r.tryCatchPattern || r.validationCode || r.typeGuard || r.exampleFix) {
      out.push(fix('Insert handling snippet…', Commands.insertSnippet, { id: r.id } satisfies InsertSnippetArgs));
    }
    const message = t.diagnostic?.message ?? problemMessage(r, t.match.match.text);
    out.push(fix('Copy error message', Commands.copyMessage, { text: message } satisfies CopyMessageArgs));
    out.push(fix('Search the web for this error', Commands.searchOnline, { query: message } satisfies SearchOnlineArgs));
    const lower = lowerSeverity(settings, r);
    if (lower) {
      out.push(
        fix(`Show ${problemCode(r)} problems as ${lower === 'info' ? 'information' : lower === 'hint' ? 'hints' : `${lower}s`}`, Commands.setRecordSeverity, {
          id: r.id,
          slug: r.slug,
          severity: lower,
        } satisfies SetRecordSeverityArgs),
      );
    }
    out.push(fix(`Ignore ${label(r)}`, Commands.ignoreRecord, { id: r.id, slug: r.slug, label: label(r) } satisfies IgnoreRecordArgs));
  }
  return out;
}

/** One step below the record's current severity (error → warning → info → hint), or undefined at hint. */
function lowerSeverity(settings: ErrorExplainerSettings, r: ErrorRecord): SeverityOverride | undefined {
  const now = effectiveSeverity(settings, r).severity; // LSP: 1 error .. 4 hint
  return now === 1 ? 'warning' : now === 2 ? 'info' : now === 3 ? 'hint' : undefined;
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

/** Why a record is offered on a line: how the code relates to it (or only that it was seen). */
export type Relation = 'message' | 'call' | 'class' | 'seen';

export interface Candidate {
  record: ErrorRecord;
  relation: Relation;
}

/** A function named this generically is called all over: its calls relate only when qualified by the record's module. */
const MAX_RECORDS_PER_FUNCTION = 10;

/** Module name of a record's file (`json/decoder.py` → `decoder`, `src/x.ts` → `x`). */
function moduleOf(filePath: string | null): string | undefined {
  if (!filePath) return undefined;
  const base = filePath.replace(/\\/g, '/').split('/').pop() ?? '';
  const m = /^([^.]+)/.exec(base);
  return m?.[1];
}

/** Candidate records for a line of a source file, most relevant first. */
export function candidateRecords(ctx: ServerContext, doc: TrackedDocument, line: number, settings?: ErrorExplainerSettings): Candidate[] {
  const lang = documentLanguage(doc.languageId, uriToPath(doc.uri) ?? doc.uri)?.id ?? doc.languageId;
  const text = doc.line(line);
  const scored = new Map<string, { record: ErrorRecord; score: number; relation: Relation }>();
  const add = (r: ErrorRecord, base: number, relation: Relation) => {
    if (!sameLanguage(lang, languageForPath(r.filePath)?.id)) return;
    if (settings && isExcluded(settings, r)) return;
    const score = base + ctx.seen.rank(r.id) / 1e9;
    const prev = scored.get(r.id);
    if (!prev || prev.score < score) scored.set(r.id, { record: r, score, relation });
  };
  if (text.length <= 10_000 && text.trim()) {
    // 1. the message text in a string literal (or the line itself) matches the record's pattern: the raise
    for (const lit of stringLiterals(text)) for (const m of matchText(ctx, lit)) add(m.record, 3, 'message');
    for (const m of matchText(ctx, text)) add(m.record, 3, 'message');
    const index = ctx.index();
    // 2. a call of the function the record is raised in
    for (const m of text.matchAll(/(?:([A-Za-z_$][\w$]*)\s*\.\s*)?([A-Za-z_$][\w$]*)\s*\(/g)) {
      const qualifier = m[1];
      const name = m[2]!;
      if (/^(?:def|function|func|fn)$/.test(qualifier ?? '') || /\b(?:def|function|func|fn)\s+$/.test(text.slice(0, m.index))) continue;
      const records = index.raisedInFunction(name);
      if (!records.length) continue;
      for (const r of records) {
        const sameModule = qualifier !== undefined && qualifier === moduleOf(r.filePath);
        if (sameModule) add(r, 2.5, 'call');
        else if (records.length <= MAX_RECORDS_PER_FUNCTION && name.length >= 6) add(r, 1.5, 'call');
      }
    }
    // 3. the line names the record's errorClass
    const names = new Set(text.match(/[A-Za-z_$][\w$]*/g) ?? []);
    for (const name of names) for (const r of index.withClass(name)) add(r, ctx.seen.rank(r.id) ? 2 : 1, 'class');
  }
  // 4. recently matched in a log, output panel or terminal (offered on demand only)
  for (const id of ctx.seen.recent(50)) {
    const r = ctx.catalog().get(id);
    if (r) add(r, 0.5, 'seen');
  }
  return [...scored.values()]
    .sort((a, b) => b.score - a.score)
    .slice(0, MAX_RECORDS)
    .map((x) => ({ record: x.record, relation: x.relation }));
}

function sourceActions(
  ctx: ServerContext,
  doc: TrackedDocument,
  params: CodeActionParams & CodeActionFormattingOptions,
  settings: ErrorExplainerSettings,
): CodeAction[] {
  const range = params.range;
  const line = Math.min(range.start.line, doc.lineCount - 1);
  const only = params.context.only;
  // the light bulb asks automatically: only what relates to the line then
  const onDemand = wanted(only, ON_DEMAND_KIND) && (params.context.triggerKind !== CodeActionTriggerKind.Automatic || (only?.some((k) => k !== CodeActionKind.Empty) ?? false));
  const quickFixes = wanted(only, CodeActionKind.QuickFix);
  const out: CodeAction[] = [];
  const hasSelection = range.start.line !== range.end.line || range.start.character !== range.end.character;
  for (const c of candidateRecords(ctx, doc, line, settings)) {
    const kind = c.relation === 'seen' ? ON_DEMAND_KIND : CodeActionKind.QuickFix;
    if (kind === ON_DEMAND_KIND ? !onDemand : !quickFixes) continue;
    try {
      out.push(...recordActions(doc, c.record, line, range, hasSelection, params.formattingOptions, kind));
    } catch (e) {
      ctx.log.error(`code actions for record ${c.record.id} failed: ${errorText(e)}`);
    }
  }
  return out;
}

function recordActions(
  doc: TrackedDocument,
  record: ErrorRecord,
  line: number,
  range: CodeActionParams['range'],
  hasSelection: boolean,
  fmt: CodeActionFormattingOptions['formattingOptions'],
  kind: string,
): CodeAction[] {
  const out: CodeAction[] = [];
  let selection: { start: number; end: number } | undefined;
  if (hasSelection) {
    const first = range.start.line;
    let last = Math.min(range.end.line, doc.lineCount - 1);
    if (last > first && range.end.character === 0) last--;
    selection = { start: first, end: last };
  }
  const make = (title: string, snippetKind: SnippetKind, code: string): CodeAction => {
    const plan = planFor(record, snippetKind, code, doc, doc.uri, line, {
      ...(snippetKind === 'tryCatch' && selection ? { selection } : {}),
      ...(fmt ? { insertSpaces: fmt.insertSpaces, tabSize: fmt.tabSize } : {}),
    });
    const r = plan.replace
      ? { start: { line: plan.start, character: 0 }, end: { line: plan.end, character: doc.line(plan.end).length } }
      : { start: { line: plan.start, character: 0 }, end: { line: plan.start, character: 0 } };
    const edit: TextEdit = { range: r, newText: plan.text };
    const data: CodeActionSnippetData = { snippet: { uri: doc.uri, range: r, snippet: plan.snippet } };
    return { title, kind, edit: { changes: { [doc.uri]: [edit] } }, data };
  };
  if (record.validationCode) out.push(make(`Insert validation for ${label(record)}`, 'validation', record.validationCode));
  if (record.tryCatchPattern) out.push(make(`Insert try/catch for ${label(record)}`, 'tryCatch', record.tryCatchPattern));
  return out;
}

/** `<class>: <message>` for titles (message shortened, one line). */
export function label(r: ErrorRecord): string {
  const cls = oneLine(r.errorClass || r.errorCode || r.errorType);
  let msg = oneLine(r.errorMessage);
  if (msg.length > TITLE_MESSAGE_CHARS) msg = msg.slice(0, TITLE_MESSAGE_CHARS - 1).trimEnd() + '…';
  return `${cls}: ${msg}`;
}
