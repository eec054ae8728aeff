// Terminal integration:
// - a terminal link provider turns the matched span of a terminal line into a link (tooltip: the
//   record's class and first sentence; activating it opens the record view with the captures);
// - with shell integration, each command's whole output is read (execution.read() from the start
//   event), escape sequences stripped (core/ansi.ts terminalText), and matched; known errors give
//   the status item "N known errors", one notification (if enabled) and a SeenNotification to the
//   server. The status item always speaks of the last command: hidden when it printed no known
//   error, or when VS Code passed none of its output to extensions (terminalOutput.ts).
import * as vscode from 'vscode';
import { firstSentence, shorten } from '../../server/src/core/render';
import { MatchDto, RecordParams, RecordRequest, RecordResult } from '../../server/src/protocol';
import { terminalText } from '../../server/src/core/ansi';
import { distinctRecords, explainText } from './commands';
import { pickOne } from './picker';
import { openRecordView } from './recordView';
import { OutputCollector, readFromNow } from './terminalOutput';
import type { Services } from './services';
import type { TerminalCommand } from './state';

/** Terminal lines longer than this are cut before matching (link provider). */
const MAX_LINE_CHARS = 8192;
const NOTIFY_INTERVAL_MS = 10_000;
const SHOW_TERMINAL_ERRORS = 'errorExplainer.showTerminalErrors';

interface ErrorLink extends vscode.TerminalLink {
  match: MatchDto;
}

function settings(): { enabled: boolean; notifications: boolean } {
  const c = vscode.workspace.getConfiguration('errorExplainer');
  return { enabled: c.get<boolean>('terminal.enabled', true), notifications: c.get<boolean>('terminal.notifications', true) };
}

/** A link tooltip's longest first sentence. */
const TOOLTIP_SENTENCE_CHARS = 300;

export function registerTerminal(s: Services, setTerminalStatus: (count: number, tooltip: string) => void): vscode.TerminalLinkProvider<ErrorLink> {
  const tooltips = new Map<string, Promise<string>>();
  const tooltipFor = (m: MatchDto): Promise<string> => {
    let t = tooltips.get(m.record.id);
    if (!t) {
      t = s.server
        .request<RecordParams, RecordResult | null>(RecordRequest.type, { id: m.record.id })
        .then((r) => {
          const rec = (r?.record ?? {}) as { documentation?: unknown };
          const first = typeof rec.documentation === 'string' ? shorten(firstSentence(rec.documentation), TOOLTIP_SENTENCE_CHARS) : '';
          return [m.record.errorClass, first].filter(Boolean).join(': ') || m.record.errorMessage;
        })
        .catch(() => m.record.errorMessage);
      if (tooltips.size > 500) tooltips.clear();
      tooltips.set(m.record.id, t);
    }
    return t;
  };

  const linkProvider: vscode.TerminalLinkProvider<ErrorLink> = {
    async provideTerminalLinks(context, token) {
      if (!settings().enabled || !context.line.trim()) return [];
      const line = context.line.length > MAX_LINE_CHARS ? context.line.slice(0, MAX_LINE_CHARS) : context.line;
      let matches: MatchDto[];
      try {
        matches = await explainText(s, line, token);
      } catch {
        return [];
      }
      const links: ErrorLink[] = [];
      for (const m of matches) {
        if (m.line !== 0 || m.end <= m.start) continue;
        links.push({ startIndex: m.start, length: m.end - m.start, tooltip: await tooltipFor(m), match: m });
      }
      return links;
    },
    handleTerminalLink(link) {
      void openRecordView({ id: link.match.record.id, captures: link.match.captures, matchedText: link.match.text }, s.output, link.match.record);
    },
  };

  const pending = new Map<vscode.TerminalShellExecution, OutputCollector>();
  let lastNotified = 0;

  const onEnd = async (e: vscode.TerminalShellExecutionEndEvent): Promise<void> => {
    const reading = pending.get(e.execution);
    pending.delete(e.execution);
    if (!reading) return;
    // The stream ends with the command; do not wait long for one that does not.
    const raw = await reading.text(2000);
    const source = `terminal:${e.terminal.name}`;
    const commandLine = e.execution.commandLine.value;
    const command: TerminalCommand = { source, commandLine, outputReceived: reading.chunks > 0, matches: 0 };
    s.state.terminalCommands.push(command);
    if (s.state.terminalCommands.length > 50) s.state.terminalCommands.shift();
    if (!command.outputReceived) {
      // The status item must not keep an earlier command's count for this one.
      setTerminalStatus(0, '');
      s.output.info(
        `terminal: VS Code passed none of the output of \`${commandLine}\` to extensions (a known VS Code limitation for commands that finish within milliseconds); hover a line in the terminal to explain it`,
      );
      return;
    }
    const text = terminalText(raw);
    const matches = text.trim() ? await explainText(s, text) : [];
    command.matches = matches.length;
    if (!matches.length) {
      setTerminalStatus(0, '');
      return;
    }
    s.state.terminalScans.push({ source, commandLine, matches });
    if (s.state.terminalScans.length > 20) s.state.terminalScans.shift();
    const first = matches[0] as MatchDto;
    const n = matches.length;
    setTerminalStatus(n, `${n} known error${n === 1 ? '' : 's'} in the output of \`${commandLine}\` (${e.terminal.name}); first: ${first.record.errorClass ? `${first.record.errorClass}: ` : ''}${first.record.errorMessage}`);
    const seen = distinctRecords(matches).map((m) => ({ id: m.record.id, captures: m.captures }));
    await s.server.reportSeen({ source, matches: seen });
    if (settings().notifications && Date.now() - lastNotified > NOTIFY_INTERVAL_MS) {
      lastNotified = Date.now();
      const more = n > 1 ? ` (+${n - 1} more)` : '';
      const pick = await s.notifier.show(
        'terminal-errors',
        'info',
        `Known error in the terminal: ${first.record.errorClass ? `${first.record.errorClass}: ` : ''}${first.text}${more}`,
        ['Explain', 'Show All'],
      );
      if (pick === 'Explain') await openRecordView({ id: first.record.id, captures: first.captures, matchedText: first.text }, s.output, first.record);
      else if (pick === 'Show All') await vscode.commands.executeCommand(SHOW_TERMINAL_ERRORS);
    }
  };

  s.context.subscriptions.push(
    vscode.window.registerTerminalLinkProvider(linkProvider),
    vscode.window.onDidStartTerminalShellExecution((e) => {
      if (!settings().enabled) return;
      const reading = new OutputCollector(readFromNow(e.execution), (err) => s.output.warn(`reading terminal output failed: ${String(err)}`));
      pending.set(e.execution, reading);
    }),
    vscode.window.onDidEndTerminalShellExecution((e) => {
      onEnd(e).catch((err: unknown) => s.output.warn(`scanning terminal output failed: ${String(err)}`));
    }),
    vscode.commands.registerCommand(SHOW_TERMINAL_ERRORS, async () => {
      const items = s.state.terminalScans
        .slice()
        .reverse()
        .flatMap((scan) =>
          distinctRecords(scan.matches).map((m) => ({
            label: m.record.errorMessage,
            description: scan.commandLine,
            detail: m.text,
            match: m,
          })),
        );
      if (!items.length) {
        void s.notifier.show('terminal-none', 'info', 'Error Explainer: no known errors seen in terminals yet.');
        return undefined;
      }
      const pick = await pickOne(s, 'terminalErrors', items, { title: 'Known errors seen in terminals', matchOnDetail: true });
      if (!pick) return undefined;
      await openRecordView({ id: pick.match.record.id, captures: pick.match.captures, matchedText: pick.match.text }, s.output, pick.match.record);
      return pick.match.record.id;
    }),
  );
  return linkProvider;
}
