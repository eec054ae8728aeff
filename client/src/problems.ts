// What Error Lens users expect on a problem, for the server's log diagnostics: the quick fixes'
// commands (copy the message, search it on the web, show a record's problems one severity lower,
// ignore a record) and, when errorExplainer.diagnostics.inlineMessage is on, the message at the end
// of its line (a decoration on the visible editors, most severe problem of each line).
import * as vscode from 'vscode';
import {
  Commands,
  CopyMessageArgs,
  DEFAULT_SETTINGS,
  DIAGNOSTIC_SOURCE,
  IgnoreRecordArgs,
  SearchOnlineArgs,
  SetRecordSeverityArgs,
  searchPageUrl,
  SEVERITY_OVERRIDES,
  validSearchUrl,
} from '../../server/src/protocol';
import type { Services } from './services';
import type { InlineMessage } from './state';

const SECTION = 'errorExplainer';
const MAX_INLINE_CHARS = 200;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The search URL for the resource: workspace values only in a trusted workspace; invalid ones give the default. */
export function searchUrlFor(resource: vscode.Uri | undefined): string {
  const inspect = vscode.workspace.getConfiguration(SECTION, resource).inspect<string>('diagnostics.searchUrl');
  const value = vscode.workspace.isTrusted
    ? (inspect?.workspaceFolderValue ?? inspect?.workspaceValue ?? inspect?.globalValue)
    : inspect?.globalValue;
  return validSearchUrl(value) ?? DEFAULT_SETTINGS.diagnostics.searchUrl;
}

/** Where to write a setting: the scope that already has a value (workspace or user), else the user settings. */
function targetOf(key: string, resource: vscode.Uri | undefined): vscode.ConfigurationTarget {
  const inspect = vscode.workspace.getConfiguration(SECTION, resource).inspect(key);
  if (inspect?.workspaceFolderValue !== undefined) return vscode.ConfigurationTarget.WorkspaceFolder;
  if (inspect?.workspaceValue !== undefined) return vscode.ConfigurationTarget.Workspace;
  return vscode.ConfigurationTarget.Global;
}

function valueAt<T>(key: string, target: vscode.ConfigurationTarget, resource: vscode.Uri | undefined): T | undefined {
  const inspect = vscode.workspace.getConfiguration(SECTION, resource).inspect<T>(key);
  if (target === vscode.ConfigurationTarget.WorkspaceFolder) return inspect?.workspaceFolderValue;
  if (target === vscode.ConfigurationTarget.Workspace) return inspect?.workspaceValue;
  return inspect?.globalValue;
}

const TARGET_NAMES: Record<number, string> = {
  [vscode.ConfigurationTarget.Global]: 'User settings',
  [vscode.ConfigurationTarget.Workspace]: 'Workspace settings',
  [vscode.ConfigurationTarget.WorkspaceFolder]: 'Folder settings',
};


export interface ProblemsState {
  /** The end-of-line messages currently shown per document URI (for tests). */
  inlineMessages(uri: string): InlineMessage[];
}

export function registerProblems(s: Services): ProblemsState {
  const sub = s.context.subscriptions;
  const resource = () => vscode.window.activeTextEditor?.document.uri;

  sub.push(
    vscode.commands.registerCommand(Commands.copyMessage, async (arg?: CopyMessageArgs) => {
      if (!isObject(arg) || typeof arg.text !== 'string') return undefined;
      await vscode.env.clipboard.writeText(arg.text);
      vscode.window.setStatusBarMessage('$(check) Error message copied', 3000);
      return arg.text;
    }),
    vscode.commands.registerCommand(Commands.searchOnline, async (arg?: SearchOnlineArgs) => {
      if (!isObject(arg) || typeof arg.query !== 'string' || !arg.query.trim()) return undefined;
      const url = searchPageUrl(searchUrlFor(resource()), arg.query);
      await vscode.env.openExternal(vscode.Uri.parse(url, true));
      return url;
    }),
    vscode.commands.registerCommand(Commands.ignoreRecord, async (arg?: IgnoreRecordArgs) => {
      if (!isObject(arg) || typeof arg.slug !== 'string' || !arg.slug) return undefined;
      const key = 'records.exclude';
      const target = targetOf(key, resource());
      const current = valueAt<unknown>(key, target, resource());
      const list = Array.isArray(current) ? current.filter((x): x is string => typeof x === 'string') : [];
      if (!list.includes(arg.slug) && !list.includes(arg.id)) list.push(arg.slug);
      await vscode.workspace.getConfiguration(SECTION, resource()).update(key, list, target);
      const label = typeof arg.label === 'string' ? arg.label : arg.slug;
      void s.notifier.show('record-ignored', 'info', `Error Explainer: ${label} is ignored (errorExplainer.records.exclude in ${TARGET_NAMES[target]}).`);
      return list;
    }),
    vscode.commands.registerCommand(Commands.setRecordSeverity, async (arg?: SetRecordSeverityArgs) => {
      if (!isObject(arg) || typeof arg.slug !== 'string' || !arg.slug || !SEVERITY_OVERRIDES.includes(arg.severity)) return undefined;
      const key = 'diagnostics.severityOverrides';
      const target = targetOf(key, resource());
      const current = valueAt<unknown>(key, target, resource());
      const map: Record<string, string> = isObject(current) ? { ...(current as Record<string, string>) } : {};
      delete map[arg.id];
      map[arg.slug] = arg.severity;
      await vscode.workspace.getConfiguration(SECTION, resource()).update(key, map, target);
      return map;
    }),
  );

  // End-of-line messages
  const color = (c: string) => new vscode.ThemeColor(c);
  const types = {
    error: vscode.window.createTextEditorDecorationType({ after: { color: color('editorError.foreground'), margin: '0 0 0 2ch', fontStyle: 'italic' } }),
    warning: vscode.window.createTextEditorDecorationType({ after: { color: color('editorWarning.foreground'), margin: '0 0 0 2ch', fontStyle: 'italic' } }),
    info: vscode.window.createTextEditorDecorationType({ after: { color: color('editorInfo.foreground'), margin: '0 0 0 2ch', fontStyle: 'italic' } }),
    hint: vscode.window.createTextEditorDecorationType({ after: { color: color('editorHint.foreground'), margin: '0 0 0 2ch', fontStyle: 'italic' } }),
  };
  sub.push(...Object.values(types));
  const shown = new Map<string, InlineMessage[]>();
  const SEVERITY_NAMES = ['error', 'warning', 'info', 'hint'] as const;

  const render = (editor: vscode.TextEditor): void => {
    const uri = editor.document.uri;
    const on = vscode.workspace.getConfiguration(SECTION, uri).get<boolean>('diagnostics.inlineMessage', false);
    const perLine = new Map<number, vscode.Diagnostic>();
    if (on) {
      for (const d of vscode.languages.getDiagnostics(uri)) {
        if (d.source !== DIAGNOSTIC_SOURCE) continue;
        const prev = perLine.get(d.range.start.line);
        if (!prev || d.severity < prev.severity) perLine.set(d.range.start.line, d);
      }
    }
    const messages: InlineMessage[] = [];
    const byType: Record<(typeof SEVERITY_NAMES)[number], vscode.DecorationOptions[]> = { error: [], warning: [], info: [], hint: [] };
    for (const [line, d] of [...perLine].sort((a, b) => a[0] - b[0])) {
      if (line >= editor.document.lineCount) continue;
      const severity = SEVERITY_NAMES[d.severity] ?? 'info';
      const text = d.message.length > MAX_INLINE_CHARS ? d.message.slice(0, MAX_INLINE_CHARS - 1) + '…' : d.message;
      const end = editor.document.lineAt(line).range.end;
      byType[severity].push({ range: new vscode.Range(end, end), renderOptions: { after: { contentText: text } } });
      messages.push({ line, text, severity });
    }
    for (const k of SEVERITY_NAMES) editor.setDecorations(types[k], byType[k]);
    if (messages.length) shown.set(uri.toString(), messages);
    else shown.delete(uri.toString());
  };
  const renderAll = (): void => {
    for (const e of vscode.window.visibleTextEditors) render(e);
  };
  sub.push(
    vscode.languages.onDidChangeDiagnostics((e) => {
      const changed = new Set(e.uris.map((u) => u.toString()));
      for (const ed of vscode.window.visibleTextEditors) if (changed.has(ed.document.uri.toString())) render(ed);
    }),
    vscode.window.onDidChangeVisibleTextEditors(renderAll),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`${SECTION}.diagnostics.inlineMessage`)) renderAll();
    }),
  );
  renderAll();
  return { inlineMessages: (uri) => (shown.get(uri) ?? []).slice() };
}
