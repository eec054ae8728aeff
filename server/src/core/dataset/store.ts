// The dataset cache in a storage folder (the extension's global storage, or --cache DIR):
//   <cacheDir>/state.json                         which version is live, when it was checked, last failure, opt-in
//   <cacheDir>/v/<version-dir>/manifest.json      the manifest of that version
//   <cacheDir>/v/<version-dir>/index.rows, index.head.json   prepared index (see prepared.ts)
//   <cacheDir>/v/<version-dir>/repos.json
//   <cacheDir>/v/<version-dir>/repos/<owner>/<name>.json     full records, fetched lazily
// A new version is built in a temporary folder and made live by renaming it and then rewriting
// state.json atomically; any failure leaves the live version untouched. Nothing is fetched from a
// base URL before the user opted in for that URL (optIn(), or sync({ optIn: true }), which the
// CLI's explicit `dataset sync` and the editor's confirmed command use): a new host asks again.
//
// Bounds: every request has a byte cap, an idle timeout and an overall deadline, and the whole sync
// one deadline (a server that trickles bytes cannot keep it running, nor the syncs that share it);
// the index decompresses to at most the manifest's rawBytes (else a ratio of its size, and an
// absolute cap), and one row to at most `row` bytes.
//
// Building a version folder (download, verify, prepare the rows) is versionBuilder.ts; this module
// decides when to sync, keeps state.json and makes a built version live, and reads the cache.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ErrorRecord } from '../record';
import { DatasetError, datasetUrl, download, looksLikeHtml } from './download';
import { errCode, readJsonFile, rmQuiet, writeFileAtomic } from './fsutil';
import { parseRepoRecords } from './fullRecords';
import type { LiteRecord } from './lite';
import { loadPrepared, readHead, type LoadRowsOptions, type PreparedHead } from './prepared';
import { parseSelection } from './select';
import { parseManifest, parseRepos, REPO_RE, type Manifest, type RepoEntry } from './types';
import { repoFile, VersionBuilder, type DatasetLimits } from './versionBuilder';

export type { DatasetLimits } from './versionBuilder';

export const DEFAULT_LIMITS: DatasetLimits = {
  manifest: 1 << 20,
  index: 512 << 20,
  indexDecoded: 1 << 30,
  ratio: 32,
  row: 1 << 20,
  repos: 64 << 20,
  repoFile: 128 << 20,
};

export const DEFAULT_DATASET_URL = 'https://errors.standardbeagle.com';
/** The whole sync (manifest, index parts, repos.json, per-repository files) ends by then. */
export const DEFAULT_SYNC_TIMEOUT_MS = 15 * 60 * 1000;
/** One request (the manifest: a small file) ends by then. */
export const MANIFEST_TIMEOUT_MS = 60 * 1000;

function normalUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

export interface DatasetOptions {
  cacheDir: string;
  /** Base URL: https://errors.standardbeagle.com, a mirror, or file:///folder (holding data/). */
  url: string;
  /** Poll the manifest at most this often (default 24). 0 = whenever sync() is called. */
  refreshHours?: number;
  limits?: Partial<DatasetLimits>;
  /** Idle timeout of a request (nothing arrives). */
  timeoutMs?: number;
  /** Overall deadline of one sync (default 15 minutes). */
  syncTimeoutMs?: number;
  /** Overall deadline of the manifest request (default 60 s). */
  manifestTimeoutMs?: number;
  /** Clock of the refresh schedule (tests); deadlines use the real clock. */
  now?: () => number;
}

export interface DatasetFailure {
  kind: string;
  /** The base URL that failed. */
  url: string;
  message: string;
  at: number;
}

interface State {
  /** The base URL the live version came from (always one the user opted in for). */
  url: string | null;
  current: string | null;
  datasetVersion: string | null;
  /** ETag of the live version's manifest (a conditional request costs one small round trip). */
  etag: string | null;
  checkedAt: number | null;
  attemptedAt: number | null;
  failure: DatasetFailure | null;
  /** Base URLs the user agreed to download from, the latest last. */
  optIns: string[];
  /** Repository selection saved by the CLI (`dataset sync --repos`); the extension uses its setting. */
  repos: string[] | null;
}

const EMPTY_STATE: State = { url: null, current: null, datasetVersion: null, etag: null, checkedAt: null, attemptedAt: null, failure: null, optIns: [], repos: null };

/** state.json as written before opt-ins were per URL: `optedIn: true` carries over for the public
 * dataset only (a URL the file names may have come from a workspace setting). */
function migrate(disk: Partial<State> & { optedIn?: unknown }): Partial<State> {
  const out: Partial<State> & { optedIn?: unknown } = { ...disk };
  if (!Array.isArray(out.optIns)) out.optIns = disk.optedIn === true ? [DEFAULT_DATASET_URL] : [];
  out.optIns = out.optIns.filter((u): u is string => typeof u === 'string').map(normalUrl);
  delete out.optedIn;
  return out;
}
/** After a failed sync, try again after this long (or refreshHours when shorter). */
const RETRY_AFTER_FAILURE_MS = 60 * 60 * 1000;

export interface SyncResult {
  status: 'updated' | 'unchanged' | 'skipped' | 'failed';
  datasetVersion: string | null;
  /** Why nothing was done (skipped) or what failed (failed). */
  reason?: string;
  /** Set only the first time a failure happens (show it once; later identical failures are quiet). */
  notify?: string;
  /** Dataset paths downloaded by this sync. */
  fetched: string[];
}

/** The one dataset status shape: DatasetService's status (core/dataset/service.ts) and the status
 * request's answer (protocol.ts DatasetStatusDto) are this, without the cache paths, plus `loaded`. */
export interface DatasetStatus {
  cacheDir: string;
  url: string;
  optedIn: boolean;
  /** The live cached version (null: nothing cached). */
  datasetVersion: string | null;
  cachedUrl: string | null;
  checkedAt: string | null;
  /** Index rows and repositories in the cache. */
  rows: number;
  repos: number;
  /** Repositories whose full records are cached. */
  cachedRepos: string[];
  failure: DatasetFailure | null;
  nextCheckAt: string | null;
}

function formatDuration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000) return `${Math.round(ms / 100) / 10} s`;
  return `${ms} ms`;
}

export class DatasetStore {
  readonly cacheDir: string;
  readonly url: string;
  private readonly limits: DatasetLimits;
  private readonly refreshMs: number;
  private readonly now: () => number;
  private readonly timeoutMs: number | undefined;
  private readonly syncTimeoutMs: number;
  private readonly manifestTimeoutMs: number;
  /** Kept in memory too, so "report once" holds when state.json cannot be written. */
  private memState: State | undefined;
  private inFlight: Promise<SyncResult> | undefined;
  private readonly repoCache = new Map<string, Promise<ErrorRecord[]>>();

  constructor(opts: DatasetOptions) {
    this.cacheDir = path.resolve(opts.cacheDir);
    this.url = normalUrl(opts.url);
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.refreshMs = Math.max(0, opts.refreshHours ?? 24) * 3600 * 1000;
    this.now = opts.now ?? Date.now;
    this.timeoutMs = opts.timeoutMs;
    this.syncTimeoutMs = opts.syncTimeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS;
    this.manifestTimeoutMs = opts.manifestTimeoutMs ?? MANIFEST_TIMEOUT_MS;
  }

  // -- state -----------------------------------------------------------------------------------

  private statePath(): string {
    return path.join(this.cacheDir, 'state.json');
  }
  private readState(): State {
    const disk = readJsonFile<Partial<State>>(this.statePath());
    const s: State = { ...EMPTY_STATE, ...migrate(disk ?? {}) };
    // in-memory values win where the disk copy could not be written
    if (this.memState) {
      if (this.memState.failure && (!s.failure || this.memState.failure.at > s.failure.at)) s.failure = this.memState.failure;
      if ((this.memState.attemptedAt ?? 0) > (s.attemptedAt ?? 0)) s.attemptedAt = this.memState.attemptedAt;
      for (const u of this.memState.optIns) if (!s.optIns.includes(u)) s.optIns.push(u);
      for (const u of this.memOptOuts) s.optIns = s.optIns.filter((x) => x !== u);
    }
    return s;
  }
  private writeState(s: State): void {
    this.memState = s;
    writeFileAtomic(this.statePath(), JSON.stringify(s, null, 1));
  }
  private tryWriteState(s: State): string | undefined {
    try {
      this.writeState(s);
      return undefined;
    } catch (e) {
      return (e as Error).message;
    }
  }

  /** The live version folder, when one is cached and complete. */
  liveDir(): string | undefined {
    const s = this.readState();
    if (!s.current) return undefined;
    const dir = path.join(this.cacheDir, 'v', s.current);
    return fs.existsSync(path.join(dir, 'index.head.json')) ? dir : undefined;
  }

  /** The user opted in for this store's base URL. */
  get optedIn(): boolean {
    return this.readState().optIns.includes(this.url);
  }

  /** Base URLs the user opted in for (the latest last). */
  optIns(): string[] {
    return [...this.readState().optIns];
  }

  /** Record the user's consent to download from this store's base URL (a confirmed command, or an
   * accepted suggestion that named it), or withdraw it. */
  optIn(on = true): void {
    const s = this.readState();
    s.optIns = s.optIns.filter((u) => u !== this.url);
    if (on) s.optIns.push(this.url);
    this.memOptOuts = on ? this.memOptOuts.filter((u) => u !== this.url) : [...this.memOptOuts, this.url];
    this.tryWriteState(s);
    if (!this.memState) this.memState = s;
    this.memState.optIns = [...s.optIns];
  }
  private memOptOuts: string[] = [];

  /** The saved repository selection (null: none saved). */
  savedSelection(): string[] | null {
    return this.readState().repos;
  }
  saveSelection(repos: string[]): void {
    const s = this.readState();
    s.repos = repos;
    this.writeState(s);
  }

  /** The base URL of the live cached version (a store opened on an existing cache can use it). */
  static cachedUrl(cacheDir: string): string | null {
    return readJsonFile<Partial<State>>(path.join(path.resolve(cacheDir), 'state.json'))?.url ?? null;
  }

  /** The URL to use when no setting names one: the live version's (if the user opted in for it),
   * else the latest opt-in, else the public dataset. Never a URL the user did not choose. */
  static consentedUrl(cacheDir: string): string {
    const disk = readJsonFile<Partial<State>>(path.join(path.resolve(cacheDir), 'state.json'));
    const s: State = { ...EMPTY_STATE, ...migrate(disk ?? {}) };
    if (s.url && s.optIns.includes(normalUrl(s.url))) return normalUrl(s.url);
    return s.optIns[s.optIns.length - 1] ?? DEFAULT_DATASET_URL;
  }

  /** When the next manifest poll is due (ms since epoch); 0 = now. */
  nextCheckAt(s = this.readState()): number {
    const failedHere = s.failure !== null && s.failure.url === this.url;
    const retry = Math.min(this.refreshMs, RETRY_AFTER_FAILURE_MS);
    if (!this.liveDir() || s.url !== this.url) return failedHere ? s.failure!.at + retry : 0;
    if (failedHere) return s.failure!.at + retry;
    return (s.checkedAt ?? 0) + this.refreshMs;
  }

  // -- sync ------------------------------------------------------------------------------------

  /**
   * Poll the manifest when due (or `force`), and when its datasetVersion differs from the cached
   * one download the index and repos.json, verify them against the manifest and make them live.
   * Never throws; concurrent calls share one run.
   */
  sync(opts: { force?: boolean; optIn?: boolean } = {}): Promise<SyncResult> {
    if (opts.optIn) this.optIn(true);
    if (!this.inFlight) {
      this.inFlight = this.doSync(opts.force ?? false).finally(() => {
        this.inFlight = undefined;
      });
    }
    return this.inFlight;
  }

  private async doSync(force: boolean): Promise<SyncResult> {
    const s = this.readState();
    if (!s.optIns.includes(this.url)) {
      const reason = s.optIns.length
        ? `not opted in for ${this.url}: the dataset is downloaded only from a URL you agreed to (${s.optIns.join(', ')})`
        : 'not opted in: nothing is downloaded until the dataset is enabled';
      return { status: 'skipped', datasetVersion: s.datasetVersion, reason, fetched: [] };
    }
    if (!force && this.now() < this.nextCheckAt(s)) {
      return { status: 'skipped', datasetVersion: s.datasetVersion, reason: 'checked recently', fetched: [] };
    }
    const fetched: string[] = [];
    const started = this.now();
    const deadline = Date.now() + this.syncTimeoutMs;
    const limit = { deadline, deadlineLabel: `the sync's time limit of ${formatDuration(this.syncTimeoutMs)}` };
    try {
      const live = this.liveDir();
      const sameSource = live !== undefined && s.url === this.url;
      const manifestDeadline = Math.min(deadline, Date.now() + this.manifestTimeoutMs);
      const manifestDl = await download(datasetUrl(this.url, '/data/manifest.json'), {
        maxBytes: this.limits.manifest,
        timeoutMs: this.timeoutMs,
        deadline: manifestDeadline,
        deadlineLabel: manifestDeadline === deadline ? limit.deadlineLabel : `${formatDuration(this.manifestTimeoutMs)}`,
        ...(sameSource && s.etag ? { ifNoneMatch: s.etag } : {}),
      });
      fetched.push('/data/manifest.json');
      if (manifestDl.notModified && sameSource) {
        const err = this.tryWriteState({ ...s, checkedAt: started, attemptedAt: started, failure: null });
        return { status: 'unchanged', datasetVersion: s.datasetVersion, fetched, ...(err ? { reason: `cache not writable: ${err}` } : {}) };
      }
      if (manifestDl.notModified) throw new DatasetError('http', 'manifest.json: HTTP 304 to a request that was not conditional');
      if (looksLikeHtml(manifestDl.head, manifestDl.contentType)) throw new DatasetError('html', 'manifest.json is an HTML page, not the dataset manifest (wrong URL, or an error page served with status 200)');
      const manifestText = manifestDl.body!.toString('utf8');
      let manifest: Manifest;
      try {
        manifest = parseManifest(manifestText);
      } catch (e) {
        throw new DatasetError('json', (e as Error).message);
      }
      const etag = manifestDl.etag ?? null;
      if (sameSource && s.datasetVersion === manifest.datasetVersion) {
        const err = this.tryWriteState({ ...s, etag, checkedAt: started, attemptedAt: started, failure: null });
        return { status: 'unchanged', datasetVersion: manifest.datasetVersion, fetched, ...(err ? { reason: `cache not writable: ${err}` } : {}) };
      }
      const dirName = await new VersionBuilder({ cacheDir: this.cacheDir, url: this.url, limits: this.limits, timeoutMs: this.timeoutMs, now: this.now }).build(manifest, manifestText, fetched, limit);
      try {
        this.writeState({ ...s, url: this.url, current: dirName, datasetVersion: manifest.datasetVersion, etag, checkedAt: started, attemptedAt: started, failure: null });
      } catch (e) {
        rmQuiet(path.join(this.cacheDir, 'v', dirName));
        throw new DatasetError('write', `cannot write ${this.statePath()} (${errCode(e)})`);
      }
      this.repoCache.clear();
      this.pruneVersions(dirName);
      return { status: 'updated', datasetVersion: manifest.datasetVersion, fetched };
    } catch (e) {
      const err = e instanceof DatasetError ? e : new DatasetError('format', (e as Error).message);
      const message = `${err.message}${this.liveDir() ? `; keeping the cached dataset ${s.datasetVersion ?? ''}`.trimEnd() : ''}`;
      const repeated = s.failure !== null && s.failure.kind === err.kind && s.failure.message === message && s.failure.url === this.url;
      const failure: DatasetFailure = { kind: err.kind, url: this.url, message, at: started };
      this.tryWriteState({ ...s, attemptedAt: started, failure });
      if (!this.memState) this.memState = { ...s, attemptedAt: started, failure };
      return { status: 'failed', datasetVersion: s.datasetVersion, reason: message, fetched, ...(repeated ? {} : { notify: message }) };
    }
  }

  private pruneVersions(keep: string): void {
    const vRoot = path.join(this.cacheDir, 'v');
    let names: string[] = [];
    try {
      names = fs.readdirSync(vRoot);
    } catch {
      return;
    }
    // older versions and leftovers of interrupted syncs (an open reader keeps its fd on POSIX)
    for (const n of names) if (n !== keep) rmQuiet(path.join(vRoot, n));
  }

  // -- reading the cache -----------------------------------------------------------------------

  head(): PreparedHead | undefined {
    const dir = this.liveDir();
    return dir ? readHead(dir) : undefined;
  }

  manifest(): Manifest | undefined {
    const dir = this.liveDir();
    if (!dir) return undefined;
    try {
      return parseManifest(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    } catch {
      return undefined;
    }
  }

  /** repos.json of the live version ([] when nothing is cached). */
  repos(): RepoEntry[] {
    const dir = this.liveDir();
    if (!dir) return [];
    try {
      return parseRepos(fs.readFileSync(path.join(dir, 'repos.json'), 'utf8'));
    } catch {
      return [];
    }
  }

  /**
   * Lightweight records of the selected repositories from the cache (no network). `selection`
   * is the setting value (see select.ts) or a predicate. [] when nothing is cached.
   */
  async loadRecords(selection: readonly string[] | ((repo: string) => boolean), opts: Omit<LoadRowsOptions, 'select'> = {}): Promise<LiteRecord[]> {
    const dir = this.liveDir();
    const head = dir ? readHead(dir) : undefined;
    if (!dir || !head) return [];
    const select = typeof selection === 'function' ? selection : parseSelection(selection).has;
    return loadPrepared(dir, head, { ...opts, select });
  }

  /**
   * Full records of one repository: from the cache, else downloaded once (and cached; a cache
   * that cannot be written still answers from memory). Rejects with a DatasetError when neither
   * works (offline and not cached): callers then keep showing the index row.
   */
  fullRecords(repo: string): Promise<ErrorRecord[]> {
    if (!REPO_RE.test(repo)) return Promise.reject(new DatasetError('format', `not a repository name: ${repo}`));
    const hit = this.repoCache.get(repo);
    if (hit) return hit;
    const p = this.loadFullRecords(repo);
    this.repoCache.set(repo, p);
    p.catch(() => this.repoCache.delete(repo)); // retry next time
    if (this.repoCache.size > 32) this.repoCache.delete(this.repoCache.keys().next().value!);
    return p;
  }

  private async loadFullRecords(repo: string): Promise<ErrorRecord[]> {
    const dir = this.liveDir();
    if (!dir) throw new DatasetError('format', 'no dataset is cached');
    const file = repoFile(dir, repo);
    try {
      return parseRepoRecords(fs.readFileSync(file, 'utf8'), repo);
    } catch {
      // not cached (or unreadable): fetch
    }
    // from where the cached version came (never from a URL a setting named later), if still agreed to
    const st = this.readState();
    const base = st.url ?? this.url;
    if (!st.optIns.includes(base)) throw new DatasetError('format', `not opted in for ${base}`);
    const [owner, name] = repo.split('/') as [string, string];
    const rel = `/data/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}.json`;
    const dl = await download(datasetUrl(base, rel), {
      maxBytes: this.limits.repoFile,
      timeoutMs: this.timeoutMs,
      deadline: Date.now() + this.manifestTimeoutMs * 5,
      deadlineLabel: formatDuration(this.manifestTimeoutMs * 5),
    });
    if (looksLikeHtml(dl.head, dl.contentType)) throw new DatasetError('html', `records of ${repo}: got an HTML page, not JSON`);
    let records: ErrorRecord[];
    try {
      records = parseRepoRecords(dl.body!.toString('utf8'), repo);
    } catch (e) {
      throw new DatasetError('json', `records of ${repo}: ${(e as Error).message}`);
    }
    try {
      writeFileAtomic(file, dl.body!);
    } catch {
      // read-only cache: keep them in memory only
    }
    return records;
  }

  /** The full record for an id of `repo` (undefined when the repository file lacks it). */
  async fullRecord(id: string, repo: string): Promise<ErrorRecord | undefined> {
    return (await this.fullRecords(repo)).find((r) => r.id === id);
  }

  cachedRepos(): string[] {
    const dir = this.liveDir();
    if (!dir) return [];
    const out: string[] = [];
    const root = path.join(dir, 'repos');
    let owners: string[] = [];
    try {
      owners = fs.readdirSync(root);
    } catch {
      return [];
    }
    for (const o of owners) {
      try {
        for (const f of fs.readdirSync(path.join(root, o))) if (f.endsWith('.json') && !f.includes('.tmp-')) out.push(`${o}/${f.slice(0, -5)}`);
      } catch {
        // not a folder
      }
    }
    return out.sort();
  }

  status(): DatasetStatus {
    const s = this.readState();
    const head = this.head();
    const optedIn = s.optIns.includes(this.url);
    const next = optedIn ? this.nextCheckAt(s) : null;
    return {
      cacheDir: this.cacheDir,
      url: this.url,
      optedIn,
      datasetVersion: head ? s.datasetVersion : null,
      cachedUrl: head ? s.url : null,
      checkedAt: s.checkedAt !== null ? new Date(s.checkedAt).toISOString() : null,
      rows: head?.rows ?? 0,
      repos: head ? Object.keys(head.repos).length : 0,
      cachedRepos: this.cachedRepos(),
      failure: s.failure,
      nextCheckAt: next === null ? null : new Date(Math.max(next, 0)).toISOString(),
    };
  }
}
