// Two status bar items: records loaded (+ record-file problems, restricted mode), which opens a
// small menu (search, reload, output); and "N known errors" after a terminal command printed some.
import * as vscode from 'vscode';
import { Commands, StatusResult } from '../../server/src/protocol';
import { pickOne } from './picker';
import type { Services } from './services';

const STATUS_MENU = 'errorExplainer.statusMenu';

export function recordsText(st: StatusResult | undefined, trusted: boolean): { text: string; tooltip: string } {
  const restricted = trusted ? '' : ' (restricted)';
  if (!st) {
    return {
      text: `$(book) Error Explainer${restricted}`,
      tooltip: 'Error Explainer: records load with the first log file, terminal error or command.',
    };
  }
  const problems = st.problems ? ` $(warning) ${st.problems}` : '';
  const building = st.sources.some((src) => src.building === true);
  const lines = [`${st.records} error records loaded`];
  for (const src of st.sources) lines.push(`- ${src.origin}: ${src.records} from ${src.path}${src.building ? ' (indexing in the background: these match once it is done)' : ''}`);
  if (st.problems) lines.push(`${st.problems} problem(s) in record files (see the Problems panel / output)`);
  if (!trusted || !st.workspaceTrusted) lines.push('Restricted mode: workspace records and workspace record paths are ignored until the folder is trusted.');
  lines.push(`load ${Math.round(st.timings.loadMs)} ms, index ${Math.round(st.timings.indexMs)} ms`);
  return { text: `$(book) ${st.records}${building ? ' $(sync~spin)' : ''}${problems}${restricted}`, tooltip: lines.join('\n') };
}

export function registerStatusBar(s: Services): (count: number, tooltip: string) => void {
  const records = vscode.window.createStatusBarItem('errorExplainer.records', vscode.StatusBarAlignment.Right, 100);
  records.name = 'Error Explainer Records';
  records.command = STATUS_MENU;
  const terminal = vscode.window.createStatusBarItem('errorExplainer.terminalErrors', vscode.StatusBarAlignment.Left, 50);
  terminal.name = 'Error Explainer Terminal Errors';
  terminal.command = 'errorExplainer.showTerminalErrors';
  terminal.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');

  const updateRecords = (): void => {
    const { text, tooltip } = recordsText(s.server.lastStatus, vscode.workspace.isTrusted);
    records.text = text;
    records.tooltip = tooltip;
    s.state.statusText.records = text;
    records.show();
  };
  updateRecords();

  s.context.subscriptions.push(
    records,
    terminal,
    s.server.onStatus(updateRecords),
    vscode.workspace.onDidGrantWorkspaceTrust(updateRecords),
    vscode.commands.registerCommand(STATUS_MENU, async () => {
      const items: { label: string; command: string }[] = [
        { label: '$(search) Search Error Records', command: Commands.search },
        { label: '$(refresh) Reload Records', command: Commands.reloadRecords },
        { label: '$(output) Show Output', command: Commands.showOutput },
      ];
      if (s.server.lastStatus?.problems) items.push({ label: '$(warning) Show Record-File Problems', command: 'workbench.actions.view.problems' });
      const pick = await pickOne(s, 'status', items, { title: records.tooltip?.toString().split('\n')[0] ?? 'Error Explainer' });
      if (pick) await vscode.commands.executeCommand(pick.command);
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
