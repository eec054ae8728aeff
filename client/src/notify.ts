// User-facing messages go through here: each kind of problem is shown once per session (a crash
// loop or a broken record file must not flood the user), and tests can read what was shown.
import * as vscode from 'vscode';

export interface ShownMessage {
  key: string;
  level: 'info' | 'warning' | 'error';
  text: string;
}

export class Notifier {
  private readonly shownKeys = new Set<string>();
  /** Every message shown, oldest first (read by the e2e tests through the extension's API). */
  readonly shown: ShownMessage[] = [];

  /** Shows the message unless one with this key was already shown; resolves to the button picked. */
  once(key: string, level: ShownMessage['level'], text: string, buttons: string[] = []): Thenable<string | undefined> {
    if (this.shownKeys.has(key)) return Promise.resolve(undefined);
    this.shownKeys.add(key);
    return this.show(key, level, text, buttons);
  }

  show(key: string, level: ShownMessage['level'], text: string, buttons: string[] = []): Thenable<string | undefined> {
    this.shown.push({ key, level, text });
    if (this.shown.length > 100) this.shown.shift();
    if (level === 'error') return vscode.window.showErrorMessage(text, ...buttons);
    if (level === 'warning') return vscode.window.showWarningMessage(text, ...buttons);
    return vscode.window.showInformationMessage(text, ...buttons);
  }
}
