// ErrLookup dataset commands: opt in and sync, status, and repositories suggested from the
// workspace's dependencies. The logic (download, verification, cache, suggestions) is the
// server's (server/src/core/dataset); this file only asks and shows.
import * as vscode from 'vscode';
import {
  DatasetStatusDto,
  DatasetStatusRequest,
  DatasetSuggestRequest,
  DatasetSuggestResult,
  DatasetSyncParams,
  DatasetSyncRequest,
  DatasetSyncResult,
} from '../../server/src/protocol';
import type { Services } from './services';

export const DatasetCommands = {
  sync: 'errorExplainer.datasetSync',
  status: 'errorExplainer.datasetStatus',
  suggest: 'errorExplainer.datasetSuggest',
} as const;

async function sync(s: Services): Promise<DatasetSyncResult | undefined> {
  const url = vscode.workspace.getConfiguration('errorExplainer').get<string>('dataset.url');
  const ok = await vscode.window.showInformationMessage(
    `Download the ErrLookup error index from ${url}? It is cached for offline use and refreshed at most every errorExplainer.dataset.refreshHours hours.`,
    { modal: true },
    'Download',
  );
  if (ok !== 'Download') return undefined;
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Error Explainer: downloading the ErrLookup index…' },
    () => s.server.request<DatasetSyncParams, DatasetSyncResult>(DatasetSyncRequest.type, { force: true }),
  );
  if (result.status === 'failed') {
    // The server sets `notify` only the first time a failure happens; repeated failures stay quiet.
    if (result.notify) void s.notifier.show('dataset-failed', 'error', `Error Explainer: ${result.notify}`);
    return result;
  }
  void s.notifier.show('dataset-synced', 'info', `Error Explainer: ErrLookup dataset ${result.datasetVersion ?? ''} ${result.status}.`);
  await suggest(s, true);
  return result;
}

async function status(s: Services): Promise<DatasetStatusDto> {
  const st = await s.server.request<undefined, DatasetStatusDto>(DatasetStatusRequest.type);
  const lines = [
    `ErrLookup dataset: ${st.optedIn ? 'enabled' : 'not downloaded (run "Download ErrLookup Dataset")'}`,
    `source: ${st.url}`,
    `version: ${st.datasetVersion ?? 'none'}; ${st.rows} errors of ${st.repos} repositories cached; ${st.loaded} in use`,
    `full records cached for: ${st.cachedRepos.length ? st.cachedRepos.join(', ') : 'none'}`,
  ];
  if (st.failure) lines.push(`last failure: ${st.failure.message}`);
  for (const l of lines) s.output.info(l);
  void s.notifier.show('dataset-status', 'info', lines.slice(0, 3).join(' · '), []);
  return st;
}

/** Workspace dependencies mapped to dataset repositories; the chosen ones go to dataset.repos. */
async function suggest(s: Services, afterSync = false): Promise<string[] | undefined> {
  const res = await s.server.request<undefined, DatasetSuggestResult>(DatasetSuggestRequest.type);
  if (res.needsSync) {
    if (!afterSync) void s.notifier.show('dataset-needs-sync', 'info', 'Error Explainer: download the ErrLookup dataset first (Download ErrLookup Dataset).');
    return undefined;
  }
  if (!res.suggestions.length) {
    if (!afterSync) void s.notifier.show('dataset-no-suggestions', 'info', 'Error Explainer: no dependency of this workspace has records in the dataset.');
    return undefined;
  }
  const items = res.suggestions.map((x) => ({
    label: x.repo,
    description: `${x.dependency} (${x.ecosystem}) · ${x.errorCount} explained errors`,
    detail: `${x.file}: ${x.reason}`,
    picked: true,
    repo: x.repo,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    title: res.message ?? 'Repositories for your dependencies',
    placeHolder: 'Choose the repositories whose errors Error Explainer should explain',
    ignoreFocusOut: true,
  });
  if (!picked || !picked.length) return undefined;
  const config = vscode.workspace.getConfiguration('errorExplainer');
  const current = config.get<string[]>('dataset.repos') ?? [];
  const repos = [...new Set([...current, ...picked.map((p) => p.repo)])].sort();
  await config.update('dataset.repos', repos, vscode.ConfigurationTarget.Global);
  return repos;
}

export function registerDataset(s: Services): void {
  s.context.subscriptions.push(
    vscode.commands.registerCommand(DatasetCommands.sync, () => sync(s)),
    vscode.commands.registerCommand(DatasetCommands.status, () => status(s)),
    vscode.commands.registerCommand(DatasetCommands.suggest, () => suggest(s)),
  );
}
