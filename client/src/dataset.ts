// ErrLookup dataset commands: opt in and sync, status, and repositories suggested from the
// workspace's dependencies; and the server's one-time suggestion (DatasetSuggestionNotification)
// shown as a message whose buttons run the same functions. The logic (download, verification,
// cache, suggestions) is the server's (server/src/core/dataset); this file only asks and shows.
import * as vscode from 'vscode';
import {
  DatasetStatusDto,
  DatasetStatusRequest,
  DatasetSuggestionNotification,
  DatasetSuggestionParams,
  DatasetSuggestRequest,
  DatasetSuggestResult,
  DatasetSyncParams,
  DatasetSyncRequest,
  DatasetSyncResult,
} from '../../server/src/protocol';
import { datasetFailureMessage, OPEN_SETTINGS, RETRY } from './datasetMessages';
import { mergeRepos, suggestionAction, suggestionButtons } from './datasetPrompt';
import type { Services } from './services';
import type { SuggestionShown } from './state';

export const DatasetCommands = {
  sync: 'errorExplainer.datasetSync',
  status: 'errorExplainer.datasetStatus',
  suggest: 'errorExplainer.datasetSuggest',
} as const;


/** Opt in and sync. The opt-in is per URL: the user is asked with the URL the server would download
 * from, and that URL goes with the request (the server downloads nothing if its URL is another one
 * by then). `confirmed`: the user already agreed (accepted the suggestion that named `url`). */
async function sync(s: Services, confirmed?: { url: string | undefined }): Promise<DatasetSyncResult | undefined> {
  let url = confirmed?.url;
  if (!confirmed) {
    url = (await s.server.request<undefined, DatasetStatusDto>(DatasetStatusRequest.type))?.url;
    const ok = await vscode.window.showInformationMessage(
      `Download the ErrLookup error index from ${url}? It is cached for offline use and refreshed at most every errorExplainer.dataset.refreshHours hours.`,
      { modal: true },
      'Download',
    );
    if (ok !== 'Download') return undefined;
  }
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Error Explainer: downloading the ErrLookup index…' },
    () => s.server.request<DatasetSyncParams, DatasetSyncResult>(DatasetSyncRequest.type, { force: true, ...(url ? { url } : {}) }),
  );
  if (result.status === 'failed') {
    // The user asked for this download: say why it failed every time (the server's `notify`, set
    // only on a new kind of failure, is for downloads nobody asked for), in words, with a way on.
    // Retry goes to the same URL the user agreed to.
    const shown = url ?? vscode.workspace.getConfiguration('errorExplainer').get<string>('dataset.url') ?? '';
    const m = datasetFailureMessage(result.reason ?? result.notify ?? 'unknown error', shown);
    s.output.warn(`dataset sync failed: ${result.reason ?? result.notify ?? ''}`);
    void s.notifier.show('dataset-failed', 'error', m.text, m.buttons).then((pick) => {
      if (pick === RETRY) void sync(s, { url });
      else if (pick === OPEN_SETTINGS) void vscode.commands.executeCommand('workbench.action.openSettings', 'errorExplainer.dataset');
    });
    return result;
  }
  if (result.status === 'skipped' && result.notify) {
    // The server sets `notify` only the first time a failure happens; repeated failures stay quiet.
    void s.notifier.show('dataset-failed', 'error', `Error Explainer: ${result.notify}`);
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
  return useRepos(s, picked.map((p) => p.repo));
}

/** Adds repositories to errorExplainer.dataset.repos: for this workspace when a folder is open
 * (the suggestions come from its dependencies), else for the user. The server reloads on the change. */
async function useRepos(s: Services, add: readonly string[]): Promise<string[]> {
  const config = vscode.workspace.getConfiguration('errorExplainer');
  const repos = mergeRepos(config.get<string[]>('dataset.repos') ?? [], add);
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config.update('dataset.repos', repos, target);
  s.output.info(`errorExplainer.dataset.repos (${target === vscode.ConfigurationTarget.Workspace ? 'workspace' : 'user'}): ${repos.join(', ')}`);
  return repos;
}

/** The server's one-time suggestion: a message with buttons; accepting runs the commands' logic. */
async function offerSuggestion(s: Services, params: DatasetSuggestionParams, shown: SuggestionShown[]): Promise<void> {
  // Once per session (a restarted server with read-only storage could offer it again).
  if (shown.length) return;
  const entry: SuggestionShown = { params, answer: 'pending', action: 'pending' };
  shown.push(entry);
  const picked = await s.notifier.once('dataset-suggestion', 'info', `Error Explainer: ${params.message}`, suggestionButtons(params));
  entry.answer = picked;
  entry.action = suggestionAction(params, picked);
  switch (entry.action) {
    case 'download':
      await sync(s, { url: params.url });
      return;
    case 'useRepos':
      await useRepos(s, params.repos);
      return;
    case 'choose':
      await suggest(s);
      return;
    case 'none':
      return; // the server remembers that it offered
  }
}

export function registerDataset(s: Services): void {
  const shown = s.state.datasetSuggestions;
  s.context.subscriptions.push(
    vscode.commands.registerCommand(DatasetCommands.sync, () => sync(s)),
    vscode.commands.registerCommand(DatasetCommands.status, () => status(s)),
    vscode.commands.registerCommand(DatasetCommands.suggest, () => suggest(s)),
  );
  s.server.onNotification(DatasetSuggestionNotification.type, (params) => {
    offerSuggestion(s, params, shown).catch((e: unknown) => s.output.error(`dataset suggestion: ${e instanceof Error ? e.message : String(e)}`));
  });
}
