// First run: the "Get Started with Error Explainer" walkthrough (package.json
// contributes.walkthroughs, media in media/walkthrough/) and its "Open Sample Log" step, which
// opens the log shipped with the extension (read-only for the user: nothing is written).
import * as vscode from 'vscode';
import type { Services } from './services';

export const OPEN_SAMPLE_LOG = 'errorExplainer.openSampleLog';

export function registerWalkthrough(s: Services): void {
  s.context.subscriptions.push(
    vscode.commands.registerCommand(OPEN_SAMPLE_LOG, async () => {
      const uri = vscode.Uri.joinPath(s.context.extensionUri, 'media', 'walkthrough', 'sample.log');
      const editor = await vscode.window.showTextDocument(uri, { preview: false });
      return editor.document.uri.toString();
    }),
  );
}
