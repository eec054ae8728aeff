// Workspace trust: the server starts with `workspaceTrusted` in its initialization options (and
// VS Code itself withholds workspace values of errorExplainer.records.paths in Restricted Mode via
// capabilities.untrustedWorkspaces.restrictedConfigurations). When the user grants trust, the
// server is told so and loads the workspace records.
import * as vscode from 'vscode';
import { TrustNotification, TrustParams } from '../../server/src/protocol';
import type { Services } from './services';

export function registerTrust(s: Services): void {
  if (vscode.workspace.isTrusted) return;
  s.output.info('Restricted mode: workspace records and workspace record paths are ignored until the folder is trusted.');
  s.context.subscriptions.push(
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      s.output.info('Workspace trusted: loading workspace records.');
      void s.server.notify<TrustParams>(TrustNotification.method, { workspaceTrusted: true });
    }),
  );
}
