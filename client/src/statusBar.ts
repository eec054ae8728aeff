// Two status bar items: the records item ("$(book) 2,506 error records", + record-file problems,
// restricted mode), whose tooltip and menu offer the useful commands; and "N known errors" after
// a terminal command printed some.
import * as vscode from 'vscode';
import { Commands } from '../../server/src/protocol';
import { DatasetCommands } from './dataset';
import { pickOne } from './picker';
import type { Services } from './services';
import { recordsStatusText } from './statusText';

export const STATUS_MENU = 'errorExplainer.statusMenu';
export const OPEN_SETTINGS = 'errorExplainer.openSettings';
export const GET_STARTED = 'errorExplainer.getStarted';
export const WALKTHROUGH_ID = 'error-explainer.error-explainer#errorExplainer.gettingStarted';

/** Markdown text of plain text (paths, record counts) for a trusted tooltip. */
function escapeMd(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&');
}

/** Commands linked from the tooltip (the only ones its Markdown may run). */
const TOOLTIP_LINKS: [string, string][] = [
  ['$(search) Search', Commands.search],
  ['$(file-text) Errors in this file', Commands.showErrorsInFile],
  ['$(refresh) Reload', Commands.reloadRecords],
  ['$(gear) Settings', OPEN_SETTINGS],
];

export function registerStatusBar(s: Services): (count: number, tooltip: string) => void {
  const records = vscode.window.createStatusBarItem('errorExplainer.records', vscode.StatusBarAlignment.Right, 100);
  records.name = 'Error Explainer Records';
  records.command = STATUS_MENU;
  const terminal = vscode.window.createStatusBarItem('errorExplainer.terminalErrors', vscode.StatusBarAlignment.Left, 50);
  terminal.name = 'Error Explainer Terminal Errors';
  terminal.command = 'errorExplainer.showTerminalErrors';
  terminal.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  let title = 'Error Explainer';

  const updateRecords = (): void => {
    const t = recordsStatusText(s.server.lastStatus, vscode.workspace.isTrusted);
    title = t.title;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: TOOLTIP_LINKS.map(([, c]) => c) };
    md.appendMarkdown(`**${escapeMd(t.title)}**\n\n`);
    for (const d of t.details) md.appendMarkdown(`${escapeMd(d)}  \n`);
    md.appendMarkdown(`\n${TOOLTIP_LINKS.map(([label, c]) => `[${label}](command:${c})`).join(' · ')}  \n*Click for all commands*`);
    records.text = t.text;
    records.tooltip = md;
    s.state.statusText.records = t.text;
    s.state.statusText.recordsTooltip = [t.title, ...t.details].join('\n');
    records.show();
  };
  updateRecords();

  s.context.subscriptions.push(
    records,
    terminal,
    s.server.onStatus(updateRecords),
    vscode.workspace.onDidGrantWorkspaceTrust(updateRecords),
    vscode.commands.registerCommand(OPEN_SETTINGS, () => vscode.commands.executeCommand('workbench.action.openSettings', '@ext:error-explainer.error-explainer')),
    vscode.commands.registerCommand(GET_STARTED, () => vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false)),
    vscode.commands.registerCommand(STATUS_MENU, async () => {
      const st = s.server.lastStatus;
      const items: (vscode.QuickPickItem & { command?: string })[] = [
        { label: '$(search) Search Error Records', detail: 'errors seen recently first; type a message, code, class or id', command: Commands.search },
      ];
      if (vscode.window.activeTextEditor) items.push({ label: '$(file-text) Show Errors in This File', description: vscode.workspace.asRelativePath(vscode.window.activeTextEditor.document.uri), command: Commands.showErrorsInFile });
      if (s.state.terminalScans.length) items.push({ label: '$(terminal) Show Known Errors from the Terminal', command: 'errorExplainer.showTerminalErrors' });
      if (st?.problems) items.push({ label: '$(warning) Show Record-File Problems', description: `${st.problems}`, command: 'workbench.actions.view.problems' });
      items.push({ label: '$(refresh) Reload Records', command: Commands.reloadRecords });
      // (the dataset needs a cache folder and Node's network stack: not in the web build)
      if (s.server.platform.kind !== 'web') {
        items.push(
          { label: '', kind: vscode.QuickPickItemKind.Separator },
          { label: '$(cloud-download) Download ErrLookup Dataset…', detail: 'about 500,000 explained errors of open-source projects, cached offline', command: DatasetCommands.sync },
          { label: '$(database) ErrLookup Dataset Status', command: DatasetCommands.status },
        );
      }
      items.push(
        { label: '', kind: vscode.QuickPickItemKind.Separator },
        { label: '$(output) Show Output', command: Commands.showOutput },
        { label: '$(gear) Open Settings', command: OPEN_SETTINGS },
        { label: '$(book) Get Started', description: 'walkthrough', command: GET_STARTED },
      );
      const pick = await pickOne(s, 'status', items, { title });
      if (pick?.command) await vscode.commands.executeCommand(pick.command);
      return pick?.command;
    }),
  );

  return (count: number, tooltip: string) => {
    if (count <= 0) {
      terminal.hide();
      s.state.statusText.terminal = '';
      return;
    }
    terminal.text = `$(error) ${count} known error${count === 1 ? '' : 's'}`;
    terminal.tooltip = tooltip;
    s.state.statusText.terminal = terminal.text;
    terminal.show();
  };
}
