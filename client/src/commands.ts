// Commands that are thin wrappers over server requests: explain selection / clipboard / text,
// errors in this file, open / copy a record, go to its raise site, reload, output.
import * as vscode from 'vscode';
import {
  Commands,
  ExplainTextParams,
  ExplainTextRequest,
  MatchDto,
  OpenRecordArgs,
  RecordParams,
  RecordRequest,
  RecordResult,
  ReloadRequest,
  StatusResult,
} from '../../server/src/protocol';
import { pickOne } from './picker';
import { activeRecordArgs, openRecordView } from './recordView';
import { hitDetail, searchRecords } from './search';
import type { Services } from './services';

/** Text larger than this is cut before it is sent (a selection or clipboard of a huge log). */
export const MAX_EXPLAIN_CHARS = 4 * 1024 * 1024;

export function explainText(s: Services, text: string, token?: vscode.CancellationToken): Promise<MatchDto[]> {
  const cut = text.length > MAX_EXPLAIN_CHARS ? text.slice(0, MAX_EXPLAIN_CHARS) : text;
  return s.server.request<ExplainTextParams, MatchDto[]>(ExplainTextRequest.type, { text: cut }, token);
}

/** Best match per record, in the server's order. */
export function distinctRecords(matches: readonly MatchDto[]): MatchDto[] {
  const seen = new Map<string, MatchDto>();
  for (const m of matches) if (!seen.has(m.record.id)) seen.set(m.record.id, m);
  return [...seen.values()];
}

function openArgs(m: MatchDto): OpenRecordArgs {
  return { id: m.record.id, captures: m.captures, matchedText: m.text };
}

/** Opens the best record of `text`, or lets the user pick when several match. Resolves to the id opened. */
export async function explainAndOpen(s: Services, text: string, what: string): Promise<string | undefined> {
  if (!text.trim()) {
    void s.notifier.show('explain-empty', 'info', `Error Explainer: the ${what} is empty.`);
    return undefined;
  }
  const matches = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'Explaining…' },
    () => explainText(s, text),
  );
  const records = distinctRecords(matches);
  let chosen: MatchDto | undefined;
  if (records.length === 0) {
    void s.notifier.show('explain-none', 'info', `Error Explainer: no known error in the ${what}.`);
    return undefined;
  } else if (records.length === 1) {
    chosen = records[0];
  } else {
    const pick = await pickOne(
      s,
      'explain',
      records.map((m) => ({
        label: m.record.errorMessage,
        description: m.record.repo,
        detail: `line ${m.line + 1}: ${m.text}${hitDetail(m.record) ? ` — ${hitDetail(m.record)}` : ''}`,
        match: m,
      })),
      { title: `${records.length} known errors in the ${what}`, placeholder: 'Choose the error to explain' },
    );
    chosen = pick?.match;
  }
  if (!chosen) return undefined;
  await openRecordView(openArgs(chosen), s.output, chosen.record);
  return chosen.record.id;
}

/** Matches in a document, grouped by record; choosing one jumps to it. Resolves to the ranges shown. */
async function showErrorsInFile(s: Services): Promise<number> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void s.notifier.show('no-editor', 'info', 'Error Explainer: open a file first.');
    return 0;
  }
  const doc = editor.document;
  const matches = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'Finding known errors…' },
    () => explainText(s, doc.getText()),
  );
  if (!matches.length) {
    void s.notifier.show('file-none', 'info', 'Error Explainer: no known errors in this file.');
    return 0;
  }
  const groups = new Map<string, MatchDto[]>();
  for (const m of matches) {
    const g = groups.get(m.record.id);
    if (g) g.push(m);
    else groups.set(m.record.id, [m]);
  }
  const ordered = [...groups.values()].sort((a, b) => b.length - a.length);
  const group = await pickOne(
    s,
    'fileErrors',
    ordered.map((g) => {
      const first = g[0] as MatchDto;
      return {
        label: `${g.length}× ${first.record.errorMessage}`,
        description: first.record.repo,
        detail: `first at line ${first.line + 1}${hitDetail(first.record) ? ` — ${hitDetail(first.record)}` : ''}`,
        group: g,
      };
    }),
    { title: `${matches.length} known errors in ${vscode.workspace.asRelativePath(doc.uri)}`, placeholder: 'Choose an error to jump to it' },
  );
  if (!group) return matches.length;
  let target: MatchDto | undefined = group.group[0];
  if (group.group.length > 1) {
    const occ = await pickOne(
      s,
      'fileErrorOccurrences',
      group.group.map((m) => ({ label: `line ${m.line + 1}`, description: m.text, match: m })),
      { title: group.label, placeholder: 'Choose an occurrence' },
    );
    target = occ?.match;
  }
  if (target) {
    const range = new vscode.Range(target.line, target.start, target.line, target.end);
    await vscode.window.showTextDocument(doc, { selection: range, preserveFocus: false, viewColumn: editor.viewColumn });
  }
  return matches.length;
}

/** The record a command is about: its argument, the active record view, or a search pick. */
async function recordArg(s: Services, arg: unknown): Promise<OpenRecordArgs | undefined> {
  if (isOpenRecordArgs(arg)) return arg;
  const fromView = activeRecordArgs();
  if (fromView) return fromView;
  const id = await searchRecords(s, undefined, false);
  return id ? { id } : undefined;
}

export function isOpenRecordArgs(v: unknown): v is OpenRecordArgs {
  return typeof v === 'object' && v !== null && typeof (v as { id?: unknown }).id === 'string';
}

async function fetchRecord(s: Services, args: OpenRecordArgs): Promise<RecordResult | null> {
  const params: RecordParams = { id: args.id };
  if (args.captures) params.captures = args.captures;
  if (args.matchedText) params.matchedText = args.matchedText;
  if (args.near && typeof args.near.uri === 'string' && typeof args.near.line === 'number') params.near = { uri: args.near.uri, line: args.near.line };
  return s.server.request<RecordParams, RecordResult | null>(RecordRequest.type, params);
}

async function goToRaiseSite(s: Services, arg: unknown): Promise<string | undefined> {
  const args = await recordArg(s, arg);
  if (!args) return undefined;
  const result = await fetchRecord(s, args);
  const site = result?.raiseSite;
  if (site && 'uri' in site) {
    const uri = vscode.Uri.parse(site.uri, true);
    const pos = new vscode.Position(Math.max(0, site.line), 0);
    await vscode.window.showTextDocument(uri, { selection: new vscode.Range(pos, pos) });
    return site.uri;
  }
  if (site && 'url' in site && /^https:\/\//i.test(site.url)) {
    await vscode.env.openExternal(vscode.Uri.parse(site.url, true));
    return site.url;
  }
  const rec = (result?.record ?? {}) as { filePath?: unknown; lineNumber?: unknown };
  const where = typeof rec.filePath === 'string' ? `${rec.filePath}${typeof rec.lineNumber === 'number' ? `:${rec.lineNumber}` : ''}` : undefined;
  void s.notifier.show(
    'no-raise-site',
    'info',
    where
      ? `Error Explainer: ${where} is not in this workspace (nor named by a stack frame near the error), and the record has no GitHub link.`
      : 'Error Explainer: this record has no raise site.',
  );
  return undefined;
}

function statusSummary(st: StatusResult): string {
  const problems = st.problems ? `, ${st.problems} record-file problem${st.problems === 1 ? '' : 's'}` : '';
  return `${st.records} error record${st.records === 1 ? '' : 's'} loaded${problems}`;
}

export function registerCommands(s: Services): void {
  const reg = (id: string, fn: (...args: unknown[]) => unknown): void => {
    s.context.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await fn(...args);
        } catch (e) {
          const msg = e instanceof Error ? e.message : String(e);
          s.output.error(`${id} failed: ${msg}`);
          void s.notifier.show(`command-failed:${id}`, 'error', `Error Explainer: ${msg}`);
          return undefined;
        }
      }),
    );
  };

  reg(Commands.explainSelection, async () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return undefined;
    const sel = editor.selection;
    const text = sel.isEmpty ? editor.document.lineAt(sel.active.line).text : editor.document.getText(sel);
    return explainAndOpen(s, text, sel.isEmpty ? 'current line' : 'selection');
  });
  reg(Commands.explainClipboard, async () => explainAndOpen(s, await vscode.env.clipboard.readText(), 'clipboard'));
  reg(Commands.explainText, async (arg) => {
    const text =
      typeof arg === 'string'
        ? arg
        : await vscode.window.showInputBox({
            title: 'Explain Text',
            prompt: 'Paste an error message or log line',
            placeHolder: 'e.g. Inconsistent receive_count for req_id=42: registered 2, got 3',
            ignoreFocusOut: true,
          });
    return text === undefined ? undefined : explainAndOpen(s, text, 'text');
  });
  reg(Commands.showErrorsInFile, () => showErrorsInFile(s));
  reg(Commands.openRecord, async (arg) => {
    const args = await recordArg(s, arg);
    if (!args) return undefined;
    await openRecordView(args, s.output);
    return args.id;
  });
  reg(Commands.copyExplanation, async (arg) => {
    const args = await recordArg(s, arg);
    if (!args) return undefined;
    const result = await fetchRecord(s, args);
    if (!result) {
      void s.notifier.show('no-record', 'warning', `Error Explainer: no loaded record has the id ${args.id}.`);
      return undefined;
    }
    await vscode.env.clipboard.writeText(result.markdown);
    vscode.window.setStatusBarMessage('$(check) Error explanation copied as Markdown', 3000);
    return result.markdown;
  });
  reg(Commands.goToRaiseSite, (arg) => goToRaiseSite(s, arg));
  reg(Commands.reloadRecords, async () => {
    if (s.server.gaveUp) await s.server.restart();
    const st = await s.server.request<undefined, StatusResult>(ReloadRequest.type);
    vscode.window.setStatusBarMessage(`$(check) Error Explainer: ${statusSummary(st)}`, 4000);
    return st;
  });
  reg(Commands.showOutput, () => s.output.show(true));
}

export { statusSummary };
