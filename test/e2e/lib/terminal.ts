// A bash terminal with shell integration, and a command run through it.
import * as vscode from 'vscode';
import { poll } from './util';

export async function bashTerminal(name: string): Promise<vscode.Terminal> {
  const term = vscode.window.createTerminal({ name, shellPath: '/bin/bash' });
  term.show();
  await poll('shell integration in the bash terminal', () => term.shellIntegration, 120000, 200);
  return term;
}

/**
 * Types a command into the terminal as a user would (sendText) and resolves when VS Code reports
 * the end of its execution. (Executions created with shellIntegration.executeCommand() route
 * their first output to the creator's own stream; a user's command is what the extension sees.)
 */
export async function runInTerminal(term: vscode.Terminal, command: string): Promise<void> {
  if (!term.shellIntegration) throw new Error('no shell integration');
  const ended = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`"${command}" did not end within 60 s`));
    }, 60000);
    const sub = vscode.window.onDidEndTerminalShellExecution((e) => {
      if (e.terminal === term && e.execution.commandLine.value.trim() === command) {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      }
    });
  });
  term.sendText(command, true);
  await ended;
}
