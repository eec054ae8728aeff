// What the language server needs from the dataset, behind one object (no LSP imports: the server
// maps these plain results onto protocol.ts's DatasetStatusRequest / DatasetSyncRequest /
// DatasetSuggestRequest one-to-one). Cache: <storagePath>/dataset.
//
// Server wiring (server/src/server, owned by the server):
//   const ds = new DatasetService(path.join(storagePath, 'dataset'));
//   on settings:  ds.configure(settings.dataset)        (url, repos, refreshHours)
//   on (re)load:  catalog = ds.openCatalog() when ds.catalogKey() changed; catalog.build() in the
//                 background; CompositeCatalog(userCatalog, catalog) is what features use
//   hourly timer: if ((await ds.syncIfDue())?.status === 'updated') reload
//   requests:     status(loaded) / sync(force) then reload / suggest(folders)
//   record view:  await ds.complete(record)              full record of a lite one (lazy, cached)
//   one time:     ds.pendingSuggestion(folders)          a message to offer once per workspace
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ErrorRecord } from '../record';
import { DatasetCatalog, type DatasetCatalogOptions } from './datasetCatalog';
import { readJsonFile, writeFileAtomic } from './fsutil';
import { isLiteRecord } from './lite';
import { readHead } from './prepared';
import { parseSelection } from './select';
import { DatasetStore, type DatasetStatus, type SyncResult } from './store';
import { type Dependency, type RepoSuggestion, scanWorkspaceDependencies, suggestionMessage, suggestRepositories } from './workspace';

export interface DatasetSettings {
  /** Base URL; '' = none given (Restricted Mode ignores the setting): the URL the user opted in for. */
  url: string;
  repos: string[];
  refreshHours: number;
}

/** The store's status (DatasetStatus) without its cache paths, plus what the catalog loaded: the
 * one status shape (the status request sends it: protocol.ts DatasetStatusDto). */
export interface DatasetServiceStatus extends Omit<DatasetStatus, 'cacheDir' | 'cachedUrl'> {
  /** Dataset records loaded into the catalog (the selected repositories). */
  loaded: number;
}

export interface DatasetServiceSuggestions {
  suggestions: RepoSuggestion[];
  unmatched: string[];
  message: string | null;
  needsSync: boolean;
}

/** Where the dataset comes from, as the opt-in message names it: a host, or a local folder. */
export function sourceLabel(url: string): string {
  try {
    const u = new URL(url);
    if (u.protocol === 'file:') return `the folder ${decodeURIComponent(u.pathname)}`;
    return u.host || url;
  } catch {
    return url;
  }
}

export class DatasetService {
  private store: DatasetStore | undefined;
  private settings: DatasetSettings = { url: '', repos: [], refreshHours: 24 };

  constructor(
    readonly cacheDir: string,
    private readonly now: () => number = Date.now,
  ) {}

  configure(settings: DatasetSettings): void {
    const url = (settings.url.trim() === '' ? DatasetStore.consentedUrl(this.cacheDir) : settings.url).replace(/\/+$/, '');
    const changedStore = !this.store || url !== this.store.url || settings.refreshHours !== this.settings.refreshHours;
    this.settings = { ...settings, repos: [...settings.repos] };
    if (changedStore) this.store = new DatasetStore({ cacheDir: this.cacheDir, url, refreshHours: settings.refreshHours, now: this.now });
  }

  /** The base URL downloads come from (the setting, or the one the user opted in for). */
  get url(): string {
    return this.s.url;
  }

  private get s(): DatasetStore {
    if (!this.store) this.configure(this.settings);
    return this.store!;
  }

  get optedIn(): boolean {
    return this.s.optedIn;
  }

  /** Lightweight records of the selected repositories from the cache ([] before opt-in or with no selection). */
  async records(opts: { yieldEvery?: number } = {}): Promise<ErrorRecord[]> {
    if (!this.s.optedIn || this.settings.repos.length === 0) return [];
    return this.s.loadRecords(this.settings.repos, opts);
  }

  /**
   * The selected rows as a catalog that builds in the background (call build()): compact rows,
   * records made only when shown. undefined before opt-in, with no selection, or nothing cached.
   */
  openCatalog(opts: Omit<DatasetCatalogOptions, 'select'> = {}): DatasetCatalog | undefined {
    if (!this.s.optedIn || this.settings.repos.length === 0) return undefined;
    const dir = this.s.liveDir();
    const head = dir ? readHead(dir) : undefined;
    if (!dir || !head) return undefined;
    return new DatasetCatalog(dir, head, { ...opts, select: parseSelection(this.settings.repos).has });
  }

  /** Changes exactly when openCatalog() would give other rows (opt-in, selection, live version). */
  catalogKey(): string {
    return JSON.stringify([this.s.optedIn, parseSelection(this.settings.repos).entries, this.s.liveDir() ?? null]);
  }

  /** The automatic poll: only after opt-in, only when refreshHours passed. */
  async syncIfDue(): Promise<SyncResult | undefined> {
    if (!this.s.optedIn) return undefined;
    return this.s.sync();
  }

  /**
   * The user's explicit sync (a command, or an accepted suggestion): opts in for the base URL.
   * `confirmedUrl`: the URL the user was shown and agreed to; when the configured URL is another
   * one now, nothing is fetched and nothing is opted in (the user is asked again).
   */
  async sync(force = true, confirmedUrl?: string): Promise<SyncResult> {
    const url = this.s.url;
    if (confirmedUrl !== undefined && confirmedUrl.replace(/\/+$/, '') !== url) {
      const reason = `the dataset URL is ${url}, not ${confirmedUrl} that you agreed to: nothing was downloaded (run the command again to confirm ${url})`;
      return { status: 'skipped', datasetVersion: this.s.status().datasetVersion, reason, notify: reason, fetched: [] };
    }
    return this.s.sync({ force, optIn: true });
  }

  status(loaded: number): DatasetServiceStatus {
    const st = this.s.status();
    return {
      optedIn: st.optedIn,
      url: st.url,
      datasetVersion: st.datasetVersion,
      checkedAt: st.checkedAt,
      nextCheckAt: st.nextCheckAt,
      rows: st.rows,
      repos: st.repos,
      cachedRepos: st.cachedRepos,
      loaded,
      failure: st.failure,
    };
  }

  /** Dependencies of the workspace folders mapped to cached repos.json entries (no network). */
  suggest(folders: readonly string[]): DatasetServiceSuggestions {
    const deps: Dependency[] = [];
    for (const f of folders) deps.push(...scanWorkspaceDependencies(f));
    const repos = this.s.repos();
    if (repos.length === 0) {
      return { suggestions: [], unmatched: [...new Set(deps.map((d) => d.name))], message: null, needsSync: true };
    }
    const { suggestions, unmatched } = suggestRepositories(deps, repos);
    const selected = parseSelection(this.settings.repos);
    const fresh = suggestions.filter((x) => !selected.has(x.repo));
    return { suggestions, unmatched: unmatched.map((d) => d.name), message: suggestionMessage(fresh) ?? null, needsSync: false };
  }

  /**
   * A message to offer once per workspace (then never again for it): before opt-in, whether to
   * download explanations for the workspace's dependencies; after a sync, which repositories to use.
   */
  pendingSuggestion(folders: readonly string[]): { kind: 'optIn' | 'useRepos'; message: string; repos: string[]; url: string } | undefined {
    const key = [...folders].sort().join('\n');
    const file = path.join(this.cacheDir, 'suggested.json');
    const shown = readJsonFile<Record<string, string[]>>(file) ?? {};
    const kinds = shown[key] ?? [];
    let out: { kind: 'optIn' | 'useRepos'; message: string; repos: string[]; url: string } | undefined;
    if (!this.s.optedIn) {
      if (kinds.includes('optIn')) return undefined;
      const deps = folders.flatMap((f) => scanWorkspaceDependencies(f)).filter((d) => !d.name.startsWith('@types/'));
      if (deps.length === 0) return undefined;
      const names = [...new Set(deps.map((d) => d.name))];
      const listed = names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
      out = { kind: 'optIn', message: `Your workspace uses ${listed}. Download ErrLookup's explanations of their errors (${sourceLabel(this.s.url)})?`, repos: [], url: this.s.url };
    } else {
      if (kinds.includes('useRepos')) return undefined;
      const r = this.suggest(folders);
      if (!r.message) return undefined;
      const selected = parseSelection(this.settings.repos);
      out = { kind: 'useRepos', message: r.message, repos: [...new Set(r.suggestions.filter((x) => !selected.has(x.repo)).map((x) => x.repo))], url: this.s.url };
    }
    shown[key] = [...kinds, out.kind];
    try {
      fs.mkdirSync(this.cacheDir, { recursive: true });
      writeFileAtomic(file, JSON.stringify(shown));
    } catch {
      // read-only storage: the suggestion may come again next session
    }
    return out;
  }

  /** The full record for a lite one (fetched once per repository and cached); the record itself otherwise or on failure. */
  async complete(record: ErrorRecord): Promise<ErrorRecord> {
    if (!isLiteRecord(record)) return record;
    try {
      return (await this.s.fullRecord(record.id, record.repo)) ?? record;
    } catch {
      return record;
    }
  }
}
