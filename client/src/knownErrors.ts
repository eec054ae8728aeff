// The Known Errors view (Explorer) and Scan Log File…: the language server scans a file on disk
// with the byte engine (any size: VS Code hands files over 50 MB to no extension) with cancellable
// progress in percent, then follows it; the view shows each scanned file, the terminal's and the
// open documents' matches, grouped by record with counts, each kept occurrence under its record.
// Clicking an occurrence opens the file at that line; a file over 50 MB opens as a read-only window
// of lines around it (errorexplainer-log: documents, read by the server).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WorkDoneProgress } from 'vscode-languageclient/node';
import {
  Commands,
  DIAGNOSTIC_SOURCE,
  LogLinesParams,
  LogLinesRequest,
  LogLinesResult,
  OpenRecordArgs,
  ScanGroupDto,
  ScanLogParams,
  ScanLogRequest,
  ScanLogResult,
  ScanLogStopRequest,
  ScanLogUpdateNotification,
  ScanOccurrenceDto,
} from '../../server/src/protocol';
import type { Services } from './services';
import type { KnownErrorsNode } from './state';

export const VIEW_ID = 'errorExplainer.knownErrors';
export const LOG_WINDOW_SCHEME = 'errorexplainer-log';
/** VS Code does not hand text files larger than this to extensions (openTextDocument fails). */
export const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;
/** Lines shown before and after an occurrence in a log window. */
const WINDOW_BEFORE = 200;
const WINDOW_AFTER = 300;

export const KnownErrorsCommands = {
  scanLogFile: 'errorExplainer.scanLogFile',
  stop: 'errorExplainer.knownErrors.stop',
  rescan: 'errorExplainer.knownErrors.rescan',
  remove: 'errorExplainer.knownErrors.remove',
  openOccurrence: 'errorExplainer.knownErrors.openOccurrence',
} as const;


interface OccurrenceArgs {
  path: string;
  line: number;
  start: number;
  end: number;
  size: number;
}

type Node =
  | { kind: 'scan'; scan: ScanLogResult }
  | { kind: 'section'; id: 'terminal' | 'documents' }
  | { kind: 'group'; parent: string; group: ScanGroupDto; scan?: ScanLogResult }
  | { kind: 'occurrence'; label: string; description: string; tooltip: string; command: vscode.Command }
  | { kind: 'more'; label: string };

function recordLabel(g: ScanGroupDto): string {
  const r = g.record;
  return `${r.errorClass || r.errorCode || 'error'}: ${r.errorMessage}`;
}

function plural(n: number, w: string): string {
  return `${n.toLocaleString('en-US')} ${w}${n === 1 ? '' : 's'}`;
}

/** Groups for the view from the terminal's scans and the open documents' diagnostics. */
function terminalGroups(s: Services): { group: ScanGroupDto; commands: string[] }[] {
  const by = new Map<string, { group: ScanGroupDto; commands: string[] }>();
  for (const scan of s.state.terminalScans) {
    for (const m of scan.matches) {
      let e = by.get(m.record.id);
      if (!e) {
        e = { group: { record: m.record, count: 0, firstLine: m.line + 1, lastLine: m.line + 1, confidence: 0, occurrences: [], omitted: 0 }, commands: [] };
        by.set(m.record.id, e);
      }
      e.group.count++;
      if (e.group.occurrences.length < 40) {
        e.group.occurrences.push({ line: m.line + 1, start: m.start, end: m.end, text: m.text, lineText: m.text, captures: m.captures, confidence: 0 });
        e.commands.push(scan.commandLine);
      } else e.group.omitted++;
    }
  }
  return [...by.values()];
}

interface DocGroup {
  key: string;
  label: string;
  items: { uri: vscode.Uri; d: vscode.Diagnostic }[];
}

function documentGroups(): DocGroup[] {
  const by = new Map<string, DocGroup>();
  for (const [uri, diags] of vscode.languages.getDiagnostics()) {
    for (const d of diags) {
      if (d.source !== DIAGNOSTIC_SOURCE) continue;
      const id = (d as vscode.Diagnostic & { data?: { id?: unknown } }).data?.id;
      const key = typeof id === 'string' ? id : String(typeof d.code === 'object' ? d.code.value : d.code ?? d.message);
      let g = by.get(key);
      if (!g) {
        g = { key, label: d.message, items: [] };
        by.set(key, g);
      }
      g.items.push({ uri, d });
    }
  }
  return [...by.values()];
}

export class KnownErrorsProvider implements vscode.TreeDataProvider<Node> {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  /** Scans by path, newest last. */
  readonly scans = new Map<string, ScanLogResult>();
  /** The server's restart count when each scan started (a restarted server forgot its scans). */
  private readonly startedAt = new Map<string, number>();

  constructor(private readonly s: Services) {}

  refresh(): void {
    this.emitter.fire(undefined);
  }

  setScan(r: ScanLogResult): void {
    if (this.scans.get(r.path)?.scanId !== r.scanId) this.startedAt.set(r.path, this.s.server.restarts);
    this.scans.delete(r.path);
    this.scans.set(r.path, r);
    this.refresh();
  }

  /** After a server restart: its followed scans are gone (Rescan starts one again). */
  serverRestarted(): void {
    for (const r of this.scans.values()) if (r.state === 'following' && (this.startedAt.get(r.path) ?? 0) < this.s.server.restarts) r.state = 'stopped';
    this.refresh();
  }

  delete(file: string): void {
    this.scans.delete(file);
    this.startedAt.delete(file);
    this.refresh();
  }

  update(r: ScanLogResult): void {
    const cur = this.scans.get(r.path);
    if (cur && cur.scanId === r.scanId) this.setScan(r);
  }

  getTreeItem(n: Node): vscode.TreeItem {
    switch (n.kind) {
      case 'scan': {
        const r = n.scan;
        const item = new vscode.TreeItem(path.basename(r.path), r.groups.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
        item.description = `${r.state === 'following' ? 'following · ' : r.state === 'missing' ? 'file gone, waiting · ' : r.state === 'stopped' ? 'stopped · ' : ''}${plural(r.groups.length + r.moreGroups, 'known error')}, ${plural(r.matches, 'match')}`.replace('matchs', 'matches');
        item.tooltip = `${r.path}\n${plural(r.lines, 'line')}, ${(r.scannedBytes / (1 << 20)).toFixed(1)} MiB scanned${r.resets ? `\nscanned again from the start ${plural(r.resets, 'time')} (last: ${r.lastReset})` : ''}${r.belowThreshold ? `\n${plural(r.belowThreshold, 'match')} below confidence ${r.minConfidence} not shown`.replace('matchs', 'matches') : ''}`;
        item.resourceUri = vscode.Uri.file(r.path);
        item.iconPath = new vscode.ThemeIcon(r.state === 'following' ? 'eye' : 'file');
        item.contextValue = r.state === 'following' ? 'scan.following' : 'scan';
        item.id = `scan:${r.path}`;
        return item;
      }
      case 'section': {
        const item = new vscode.TreeItem(n.id === 'terminal' ? 'Terminal' : 'Open documents', vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = new vscode.ThemeIcon(n.id === 'terminal' ? 'terminal' : 'files');
        item.id = `section:${n.id}`;
        const count = n.id === 'terminal' ? terminalGroups(this.s).length : documentGroups().length;
        item.description = plural(count, 'known error');
        return item;
      }
      case 'group': {
        const g = n.group;
        const item = new vscode.TreeItem(recordLabel(g), vscode.TreeItemCollapsibleState.Collapsed);
        item.description = `×${g.count.toLocaleString('en-US')}${g.firstLine !== g.lastLine ? ` · lines ${g.firstLine}–${g.lastLine}` : ` · line ${g.firstLine}`}`;
        item.tooltip = `${g.record.repo} · ${g.record.severity}${g.confidence ? ` · confidence ${g.confidence.toFixed(2)}` : ''}\nClick to open the explanation.`;
        item.iconPath = new vscode.ThemeIcon(g.record.severity === 'warning' ? 'warning' : g.record.severity === 'info' ? 'info' : 'error');
        item.contextValue = 'record';
        item.id = `${n.parent}:${g.record.id}`;
        const args: OpenRecordArgs = { id: g.record.id, ...(g.occurrences[0] ? { captures: g.occurrences[0].captures, matchedText: g.occurrences[0].text } : {}) };
        item.command = { command: Commands.openRecord, title: 'Open Error Record', arguments: [args] };
        return item;
      }
      case 'occurrence': {
        const item = new vscode.TreeItem(n.label, vscode.TreeItemCollapsibleState.None);
        item.description = n.description;
        item.tooltip = n.tooltip;
        item.command = n.command;
        item.contextValue = 'occurrence';
        return item;
      }
      case 'more':
        return new vscode.TreeItem(n.label, vscode.TreeItemCollapsibleState.None);
    }
  }

  getChildren(n?: Node): Node[] {
    if (!n) {
      const out: Node[] = [...this.scans.values()].reverse().map((scan) => ({ kind: 'scan' as const, scan }));
      if (terminalGroups(this.s).length) out.push({ kind: 'section', id: 'terminal' });
      if (documentGroups().length) out.push({ kind: 'section', id: 'documents' });
      return out;
    }
    if (n.kind === 'scan') {
      const out: Node[] = n.scan.groups.map((group) => ({ kind: 'group' as const, parent: `scan:${n.scan.path}`, group, scan: n.scan }));
      if (n.scan.moreGroups) out.push({ kind: 'more', label: `… ${plural(n.scan.moreGroups, 'more record')}` });
      return out;
    }
    if (n.kind === 'section' && n.id === 'terminal') {
      return terminalGroups(this.s).map(({ group }) => ({ kind: 'group' as const, parent: 'terminal', group }));
    }
    if (n.kind === 'section' && n.id === 'documents') {
      return documentGroups().map((g) => ({
        kind: 'group' as const,
        parent: 'documents',
        group: {
          record: { id: g.key, slug: '', repo: '', errorCode: null, errorMessage: g.label, errorClass: null, httpStatus: null, severity: 'error', tags: [] },
          count: g.items.length,
          firstLine: g.items[0]!.d.range.start.line + 1,
          lastLine: g.items[g.items.length - 1]!.d.range.start.line + 1,
          confidence: 0,
          occurrences: [],
          omitted: 0,
        },
      }));
    }
    if (n.kind === 'group') {
      if (n.parent === 'documents') {
        const g = documentGroups().find((x) => x.key === n.group.record.id);
        return (g?.items ?? []).slice(0, 200).map(({ uri, d }) => ({
          kind: 'occurrence' as const,
          label: `${path.basename(uri.path)}:${d.range.start.line + 1}`,
          description: d.message,
          tooltip: uri.scheme === 'file' ? uri.fsPath : uri.toString(),
          command: { command: 'vscode.open', title: 'Open', arguments: [uri, { selection: d.range, preview: true }] },
        }));
      }
      if (n.parent === 'terminal') {
        const t = terminalGroups(this.s).find((x) => x.group.record.id === n.group.record.id);
        return (t?.group.occurrences ?? []).map((o, i) => ({
          kind: 'occurrence' as const,
          label: o.text,
          description: t!.commands[i] ?? '',
          tooltip: `Output of \`${t!.commands[i] ?? ''}\``,
          command: { command: Commands.openRecord, title: 'Open Error Record', arguments: [{ id: n.group.record.id, captures: o.captures, matchedText: o.text } satisfies OpenRecordArgs] },
        }));
      }
      const scan = n.scan!;
      const out: Node[] = n.group.occurrences.map((o) => occurrenceNode(scan, o));
      if (n.group.omitted) out.push({ kind: 'more', label: `… ${plural(n.group.omitted, 'more occurrence')} counted (first and most recent kept)` });
      return out;
    }
    return [];
  }

  /** The tree as plain objects (the e2e tests' view of what VS Code shows). */
  snapshot(): KnownErrorsNode[] {
    const walk = (n: Node): KnownErrorsNode => {
      const it = this.getTreeItem(n);
      const label = typeof it.label === 'string' ? it.label : (it.label?.label ?? '');
      return {
        label,
        description: typeof it.description === 'string' ? it.description : '',
        contextValue: it.contextValue,
        command: it.command ? { command: it.command.command, arguments: it.command.arguments ?? [] } : undefined,
        children: this.getChildren(n).map(walk),
      };
    };
    return this.getChildren().map(walk);
  }
}

function occurrenceNode(scan: ScanLogResult, o: ScanOccurrenceDto): Node {
  const args: OccurrenceArgs = { path: scan.path, line: o.line, start: o.start, end: o.end, size: scan.size };
  return {
    kind: 'occurrence',
    label: `line ${o.line}`,
    description: o.lineText,
    tooltip: `${o.lineText}${o.captures.length ? `\n${o.captures.map((c) => `${c.name} = ${c.value}`).join('\n')}` : ''}`,
    command: { command: KnownErrorsCommands.openOccurrence, title: 'Open', arguments: [args] },
  };
}

/** errorexplainer-log: documents: read-only windows of lines of files too large for the editor. */
class LogWindowProvider implements vscode.TextDocumentContentProvider {
  readonly texts = new Map<string, string>();
  constructor(private readonly s: Services) {}
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const cached = this.texts.get(uri.toString());
    if (cached !== undefined) return cached;
    const q = JSON.parse(uri.query || '{}') as { path?: string; line?: number };
    const r = await this.s.server.request<LogLinesParams, LogLinesResult>(LogLinesRequest.type, { path: String(q.path), line: Number(q.line), before: WINDOW_BEFORE, after: WINDOW_AFTER });
    return r.error ? `(${r.error})` : r.lines.join('\n');
  }
}

async function openOccurrence(s: Services, windows: LogWindowProvider, a: OccurrenceArgs): Promise<vscode.TextEditor | undefined> {
  const line = Math.max(0, a.line - 1);
  if (a.size <= MAX_DOCUMENT_BYTES) {
    try {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(a.path));
      const sel = new vscode.Range(line, a.start, line, a.end);
      return await vscode.window.showTextDocument(doc, { selection: sel, preview: true });
    } catch {
      // grown past the limit, or unreadable as text: the window below
    }
  }
  const r = await s.server.request<LogLinesParams, LogLinesResult>(LogLinesRequest.type, { path: a.path, line: a.line, before: WINDOW_BEFORE, after: WINDOW_AFTER });
  if (r.error) {
    void s.notifier.show('log-window', 'error', `Error Explainer: ${r.error}`);
    return undefined;
  }
  const last = r.firstLine + r.lines.length - 1;
  const uri = vscode.Uri.from({
    scheme: LOG_WINDOW_SCHEME,
    path: `${a.path} · lines ${r.firstLine}–${last}`,
    query: JSON.stringify({ path: a.path, line: a.line }),
  });
  windows.texts.set(uri.toString(), r.lines.join('\n'));
  if (windows.texts.size > 20) windows.texts.delete(windows.texts.keys().next().value!);
  const doc = await vscode.workspace.openTextDocument(uri);
  const at = a.line - r.firstLine;
  const ed = await vscode.window.showTextDocument(doc, { selection: new vscode.Range(at, a.start, at, a.end), preview: true });
  void vscode.languages.setTextDocumentLanguage(doc, 'log').then(undefined, () => undefined);
  return ed;
}

let progressTokens = 0;

/** Scans a file (and follows it); resolves to the first result, undefined when cancelled or failed. */
export async function scanLogFile(s: Services, view: KnownErrorsProvider, uri: vscode.Uri | undefined): Promise<ScanLogResult | undefined> {
  if (!(uri instanceof vscode.Uri)) {
    const picked = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Scan', title: 'Scan Log File', filters: { Logs: ['log', 'out', 'err', 'txt', 'gz'], 'All files': ['*'] } });
    uri = picked?.[0];
    if (!uri) return undefined;
  }
  if (uri.scheme !== 'file') {
    void s.notifier.show('scan-scheme', 'warning', 'Error Explainer: only files on disk can be scanned.');
    return undefined;
  }
  const file = uri.fsPath;
  const old = view.scans.get(file);
  if (old && old.state === 'following') await s.server.request(ScanLogStopRequest.type, { scanId: old.scanId }).catch(() => undefined);
  const client = await s.server.start();
  const workDoneToken = `errorExplainer-scan-${++progressTokens}`;
  let result: ScanLogResult | undefined;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Scanning ${path.basename(file)}`, cancellable: true },
      async (progress, token) => {
        let reported = 0;
        const sub = client.onProgress(WorkDoneProgress.type, workDoneToken, (v) => {
          if (v.kind !== 'report' || typeof v.percentage !== 'number') return;
          progress.report({ increment: v.percentage - reported, message: `${v.percentage} %` });
          reported = v.percentage;
        });
        try {
          const params: ScanLogParams = { uri: uri!.toString(), follow: true, workDoneToken };
          return await client.sendRequest(ScanLogRequest.type, params, token);
        } finally {
          sub.dispose();
        }
      },
    );
  } catch (e) {
    const cancelled = e instanceof Error && /cancel/i.test(e.message);
    if (!cancelled) void s.notifier.show('scan-failed', 'error', `Error Explainer: scanning ${path.basename(file)} failed: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
  if (!result || result.error) {
    void s.notifier.show('scan-failed', 'error', `Error Explainer: ${result?.error ?? 'the scan failed'}`);
    return undefined;
  }
  view.setScan(result);
  void vscode.commands.executeCommand(`${VIEW_ID}.focus`).then(undefined, () => undefined);
  return result;
}

export function registerKnownErrors(s: Services): KnownErrorsProvider {
  const view = new KnownErrorsProvider(s);
  const windows = new LogWindowProvider(s);
  s.server.onNotification(ScanLogUpdateNotification.type, (r) => view.update(r));
  s.context.subscriptions.push(
    vscode.window.createTreeView(VIEW_ID, { treeDataProvider: view, showCollapseAll: true }),
    vscode.workspace.registerTextDocumentContentProvider(LOG_WINDOW_SCHEME, windows),
    vscode.languages.onDidChangeDiagnostics(() => view.refresh()),
    s.server.onRunning(() => view.serverRestarted()),
    vscode.commands.registerCommand(KnownErrorsCommands.scanLogFile, (uri?: vscode.Uri) => scanLogFile(s, view, uri)),
    vscode.commands.registerCommand(KnownErrorsCommands.openOccurrence, (a: OccurrenceArgs) => openOccurrence(s, windows, a)),
    vscode.commands.registerCommand(KnownErrorsCommands.stop, async (n?: { kind: string; scan?: ScanLogResult }) => {
      const r = n?.scan ? view.scans.get(n.scan.path) : undefined;
      if (!r) return;
      const final = await s.server.request<{ scanId: number }, ScanLogResult | null>(ScanLogStopRequest.type, { scanId: r.scanId });
      view.setScan(final ?? { ...r, state: 'stopped' });
    }),
    vscode.commands.registerCommand(KnownErrorsCommands.rescan, (n?: { scan?: ScanLogResult }) => (n?.scan ? scanLogFile(s, view, vscode.Uri.file(n.scan.path)) : undefined)),
    vscode.commands.registerCommand(KnownErrorsCommands.remove, async (n?: { scan?: ScanLogResult }) => {
      const r = n?.scan ? view.scans.get(n.scan.path) : undefined;
      if (!r) return;
      if (r.state === 'following') await s.server.request(ScanLogStopRequest.type, { scanId: r.scanId }).catch(() => undefined);
      view.delete(r.path);
    }),
  );
  return view;
}
