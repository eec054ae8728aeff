// The one-time dataset suggestion: after the first record load, ask the DatasetService whether it
// has something to offer for this workspace (download the dataset, or use the repositories of the
// workspace's dependencies) and send it to the client as DatasetSuggestionNotification. The
// service remembers per workspace that it offered (across restarts); this module adds the
// conditions: a trusted workspace with folders, errorExplainer.dataset.suggest on, at most one
// offer per server session. Asking reads the workspace's manifests and the cache only: nothing is
// fetched until the user accepts (the client then sends DatasetSyncRequest or sets dataset.repos).
import type { DatasetService } from '../../core/dataset';
import type { DatasetSuggestionParams, ErrorExplainerSettings } from '../../protocol';
import { errorText, Logger } from '../runSafe';

export interface DatasetSuggesterDeps {
  dataset: () => Pick<DatasetService, 'pendingSuggestion' | 'configure'> | undefined;
  trusted: () => boolean;
  folders: () => readonly string[];
  /** Window-scope settings (errorExplainer section). */
  settings: () => Promise<ErrorExplainerSettings>;
  send: (params: DatasetSuggestionParams) => void;
  log: Logger;
}

export type SuggestionOutcome =
  | { sent: DatasetSuggestionParams }
  | { skipped: 'already asked' | 'untrusted' | 'no folders' | 'disabled' | 'no dataset' | 'nothing to suggest' | 'failed' };

export class DatasetSuggester {
  private asked = false;
  private running: Promise<SuggestionOutcome> | undefined;

  constructor(private readonly deps: DatasetSuggesterDeps) {}

  /**
   * Offers the suggestion when the conditions hold. Conditions that may change later (trust,
   * the setting) leave it unasked, so a later call (trust granted) can still offer it.
   */
  offer(): Promise<SuggestionOutcome> {
    if (!this.running) {
      this.running = this.run()
        .then((o) => {
          // One line per decision (not for repeated calls): says why no suggestion came.
          if ('skipped' in o && o.skipped !== 'already asked') this.deps.log.info(`dataset suggestion: none (${o.skipped})`);
          return o;
        })
        .finally(() => (this.running = undefined));
    }
    return this.running;
  }

  private async run(): Promise<SuggestionOutcome> {
    if (this.asked) return { skipped: 'already asked' };
    const d = this.deps;
    if (!d.trusted()) return { skipped: 'untrusted' };
    const folders = d.folders();
    if (folders.length === 0) return { skipped: 'no folders' };
    const ds = d.dataset();
    if (!ds) return { skipped: 'no dataset' };
    let settings: ErrorExplainerSettings;
    try {
      settings = await d.settings();
    } catch (e) {
      d.log.warn(`dataset suggestion: settings unavailable: ${errorText(e)}`);
      return { skipped: 'failed' };
    }
    if (!settings.dataset.suggest) return { skipped: 'disabled' };
    // Reading manifests is synchronous: let queued requests (hovers) run first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.asked) return { skipped: 'already asked' };
    if (!d.trusted()) return { skipped: 'untrusted' };
    this.asked = true;
    try {
      ds.configure(settings.dataset);
      const p = ds.pendingSuggestion(folders);
      if (!p) return { skipped: 'nothing to suggest' };
      const params: DatasetSuggestionParams = { kind: p.kind, message: p.message, repos: [...p.repos], ...(p.kind === 'optIn' ? { url: p.url } : {}) };
      d.send(params);
      d.log.info(`dataset suggestion (${params.kind}): ${params.message}`);
      return { sent: params };
    } catch (e) {
      d.log.warn(`dataset suggestion failed: ${errorText(e)}`);
      return { skipped: 'failed' };
    }
  }
}
