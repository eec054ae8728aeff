// The dataset cache in a storage folder (the extension's global storage, or --cache DIR):
//   <cacheDir>/state.json                         which version is live, when it was checked, last failure, opt-in
//   <cacheDir>/v/<version-dir>/manifest.json      the manifest of that version
//   <cacheDir>/v/<version-dir>/index.rows, index.head.json   prepared index (see prepared.ts)
//   <cacheDir>/v/<version-dir>/repos.json
//   <cacheDir>/v/<version-dir>/repos/<owner>/<name>.json     full records, fetched lazily
// A new version is built in a temporary folder and made live by renaming it and then rewriting
// state.json atomically; any failure leaves the live version untouched. Nothing is fetched before
// optIn() (or sync({ optIn: true }), which the CLI's explicit `dataset sync` uses).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createGunzip } from 'node:zlib';
import type { ErrorRecord } from '../record';
import { DatasetError, datasetUrl, download, isGzip, looksLikeHtml } from './download';
import { readJsonFile, rmQuiet, tempName, writeFileAtomic } from './fsutil';
import { parseRepoRecords } from './fullRecords';
import type { LiteRecord } from './lite';
import { loadPrepared, PreparedWriter, readHead, type LoadRowsOptions, type PreparedHead } from './prepared';
import { RowScanner } from './rowScanner';
import { parseSelection } from './select';
import { parseManifest, parseRepos, REPO_RE, toIndexRow, type Manifest, type ManifestFile, type RepoEntry } from './types';

export interface DatasetLimits {
  manifest: number;
  index: number;
  repos: number;
  repoFile: number;
}
export const DEFAULT_LIMITS: DatasetLimits = {
  manifest: 1 << 20,
  index: 512 << 20,
  repos: 64 << 20,
  repoFile: 128 << 20,
};

export interface DatasetOptions {
  cacheDir: string;
  /** Base URL: https://errors.standardbeagle.com, a mirror, or file:///folder (holding data/). */
  url: string;
  /** Poll the manifest at most this often (default 24). 0 = whenever sync() is called. */
  refreshHours?: number;
  limits?: Partial<DatasetLimits>;
  timeoutMs?: number;
  /** Clock (tests). */
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
  url: string | null;
  current: string | null;
  datasetVersion: string | null;
  checkedAt: number | null;
  attemptedAt: number | null;
  failure: DatasetFailure | null;
  optedIn: boolean;
  /** Repository selection saved by the CLI (`dataset sync --repos`); the extension uses its setting. */
  repos: string[] | null;
}

const EMPTY_STATE: State = { url: null, current: null, datasetVersion: null, checkedAt: null, attemptedAt: null, failure: null, optedIn: false, repos: null };
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

export interface DatasetStatus {
  cacheDir: string;
  url: string;
  optedIn: boolean;
  /** The live cached version (null: nothing cached). */
  datasetVersion: string | null;
  cachedUrl: string | null;
  checkedAt: string | null;
  rows: number;
  repos: number;
  /** Repositories whose full records are cached. */
  cachedRepos: string[];
  failure: DatasetFailure | null;
  nextCheckAt: string | null;
}

function errCode(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
}

function sha256(b: Buffer | string): string {
  return createHash('sha256').update(b).digest('hex');
}

export class DatasetStore {
  readonly cacheDir: string;
  readonly url: string;
  private readonly limits: DatasetLimits;
  private readonly refreshMs: number;
  private readonly now: () => number;
  private readonly timeoutMs: number | undefined;
  /** Kept in memory too, so "report once" holds when state.json cannot be written. */
  private memState: State | undefined;
  private inFlight: Promise<SyncResult> | undefined;
  private readonly repoCache = new Map<string, Promise<ErrorRecord[]>>();

  constructor(opts: DatasetOptions) {
    this.cacheDir = path.resolve(opts.cacheDir);
    this.url = opts.url.replace(/\/+$/, '');
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.refreshMs = Math.max(0, opts.refreshHours ?? 24) * 3600 * 1000;
    this.now = opts.now ?? Date.now;
    this.timeoutMs = opts.timeoutMs;
  }

  // -- state -----------------------------------------------------------------------------------

  private statePath(): string {
    return path.join(this.cacheDir, 'state.json');
  }
  private readState(): State {
    const disk = readJsonFile<Partial<State>>(this.statePath());
    const s: State = { ...EMPTY_STATE, ...(disk ?? {}) };
    // in-memory values win where the disk copy could not be written
    if (this.memState) {
      if (this.memState.failure && (!s.failure || this.memState.failure.at > s.failure.at)) s.failure = this.memState.failure;
      if ((this.memState.attemptedAt ?? 0) > (s.attemptedAt ?? 0)) s.attemptedAt = this.memState.attemptedAt;
      if (this.memState.optedIn) s.optedIn = true;
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

  get optedIn(): boolean {
    return this.readState().optedIn;
  }

  /** Record the user's consent to download (a command, or an accepted suggestion). */
  optIn(on = true): void {
    const s = this.readState();
    s.optedIn = on;
    this.tryWriteState(s);
    if (!this.memState) this.memState = s;
    this.memState.optedIn = on;
  }

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
    if (!s.optedIn) return { status: 'skipped', datasetVersion: s.datasetVersion, reason: 'not opted in: nothing is downloaded until the dataset is enabled', fetched: [] };
    if (!force && this.now() < this.nextCheckAt(s)) {
      return { status: 'skipped', datasetVersion: s.datasetVersion, reason: 'checked recently', fetched: [] };
    }
    const fetched: string[] = [];
    const started = this.now();
    try {
      const manifestDl = await download(datasetUrl(this.url, '/data/manifest.json'), { maxBytes: this.limits.manifest, timeoutMs: this.timeoutMs });
      fetched.push('/data/manifest.json');
      if (looksLikeHtml(manifestDl.head, manifestDl.contentType)) throw new DatasetError('html', 'manifest.json is an HTML page, not the dataset manifest (wrong URL, or an error page served with status 200)');
      const manifestText = manifestDl.body!.toString('utf8');
      let manifest: Manifest;
      try {
        manifest = parseManifest(manifestText);
      } catch (e) {
        throw new DatasetError('json', (e as Error).message);
      }
      const live = this.liveDir();
      if (live && s.url === this.url && s.datasetVersion === manifest.datasetVersion) {
        const err = this.tryWriteState({ ...s, checkedAt: started, attemptedAt: started, failure: null });
        return { status: 'unchanged', datasetVersion: manifest.datasetVersion, fetched, ...(err ? { reason: `cache not writable: ${err}` } : {}) };
      }
      const dirName = await this.buildVersion(manifest, manifestText, fetched);
      try {
        this.writeState({ ...s, url: this.url, current: dirName, datasetVersion: manifest.datasetVersion, checkedAt: started, attemptedAt: started, failure: null });
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

  /** Download + verify + prepare a version into v/<dir>; returns <dir>. */
  private async buildVersion(manifest: Manifest, manifestText: string, fetched: string[]): Promise<string> {
    const vRoot = path.join(this.cacheDir, 'v');
    const dirName = `${sha256(`${this.url}\n${manifest.datasetVersion}`).slice(0, 12)}-${this.now().toString(36)}`;
    const tmp = tempName(path.join(vRoot, dirName));
    try {
      try {
        fs.mkdirSync(tmp, { recursive: true });
      } catch (e) {
        throw new DatasetError('write', `cannot write the cache folder ${this.cacheDir} (${errCode(e)})`);
      }
      await this.fetchIndex(manifest.files.index, manifest, tmp, fetched);
      const reposText = await this.fetchVerifiedSmall(manifest.files.repos, this.limits.repos, 'repos.json');
      fetched.push(manifest.files.repos.path);
      try {
        parseRepos(reposText.toString('utf8'));
      } catch (e) {
        throw new DatasetError('json', `repos.json: ${(e as Error).message}`);
      }
      try {
        fs.writeFileSync(path.join(tmp, 'repos.json'), reposText);
        fs.writeFileSync(path.join(tmp, 'manifest.json'), manifestText);
        fs.renameSync(tmp, path.join(vRoot, dirName));
      } catch (e) {
        throw new DatasetError('write', `cannot write the cache folder ${this.cacheDir} (${errCode(e)})`);
      }
      return dirName;
    } finally {
      rmQuiet(tmp);
    }
  }

  private checkSize(f: ManifestFile, limit: number, what: string): void {
    if (f.bytes > limit) throw new DatasetError('size', `${what} is ${f.bytes} bytes by the manifest, larger than the limit of ${limit}`);
  }

  private async fetchVerifiedSmall(f: ManifestFile, limit: number, what: string): Promise<Buffer> {
    this.checkSize(f, limit, what);
    const dl = await download(datasetUrl(this.url, f.path), { maxBytes: Math.min(limit, f.bytes), timeoutMs: this.timeoutMs });
    if (looksLikeHtml(dl.head, dl.contentType)) throw new DatasetError('html', `${what} is an HTML page, not dataset JSON`);
    if (dl.size !== f.bytes) throw new DatasetError('size', `${what} is ${dl.size} bytes, the manifest says ${f.bytes}`);
    if (dl.sha256 !== f.sha256) throw new DatasetError('sha', `${what} does not match the manifest's sha256 (got ${dl.sha256.slice(0, 12)}…, expected ${f.sha256.slice(0, 12)}…)`);
    return dl.body!;
  }

  private async fetchIndex(f: ManifestFile, manifest: Manifest, tmp: string, fetched: string[]): Promise<void> {
    this.checkSize(f, this.limits.index, 'the index');
    const dlPath = path.join(tmp, 'index.download');
    // a proxy may have decoded the gzip: then the raw size/sha apply
    const maxBytes = Math.min(this.limits.index, Math.max(f.bytes, f.rawSha256 ? (f.rawBytes ?? 0) : 0));
    const dl = await download(datasetUrl(this.url, f.path), { maxBytes, timeoutMs: this.timeoutMs, dest: dlPath });
    fetched.push(f.path);
    if (looksLikeHtml(dl.head, dl.contentType)) throw new DatasetError('html', 'the index is an HTML page, not dataset JSON');
    const gz = isGzip(dl.head);
    const asServed = dl.size === f.bytes && dl.sha256 === f.sha256;
    const asDecoded = !gz && f.rawSha256 !== undefined && dl.sha256 === f.rawSha256 && (f.rawBytes === undefined || dl.size === f.rawBytes);
    if (!asServed && !asDecoded) {
      if (dl.size !== f.bytes) throw new DatasetError('size', `the index is ${dl.size} bytes, the manifest says ${f.bytes} (truncated or replaced download)`);
      throw new DatasetError('sha', `the index does not match the manifest's sha256 (got ${dl.sha256.slice(0, 12)}…, expected ${f.sha256.slice(0, 12)}…)`);
    }
    if (f.encoding === 'gzip' && !gz && !asDecoded) throw new DatasetError('gzip', 'the manifest says the index is gzip, but it is not');
    await this.prepareIndex(dlPath, gz, manifest, tmp);
    rmQuiet(dlPath);
  }

  private prepareIndex(file: string, gz: boolean, manifest: Manifest, tmp: string): Promise<PreparedHead> {
    return new Promise<PreparedHead>((resolve, reject) => {
      let writer: PreparedWriter;
      try {
        writer = new PreparedWriter(tmp);
      } catch (e) {
        reject(new DatasetError('write', `cannot write the cache folder ${this.cacheDir} (${errCode(e)})`));
        return;
      }
      const scanner = new RowScanner((json) => {
        let row;
        try {
          row = toIndexRow(JSON.parse(json));
        } catch {
          row = undefined;
        }
        if (row) writer.add(row);
        else writer.skipped++;
      });
      const input = fs.createReadStream(file, { highWaterMark: 1 << 16 });
      const stream = gz ? input.pipe(createGunzip()) : input;
      let failed = false;
      const fail = (e: DatasetError): void => {
        if (failed) return;
        failed = true;
        writer.abort();
        input.destroy();
        reject(e);
      };
      input.on('error', (e) => fail(new DatasetError('write', `cannot read the downloaded index: ${e.message}`)));
      stream.on('error', (e: Error) => fail(new DatasetError('gzip', `the index is not valid gzip (${e.message})`)));
      stream.on('data', (chunk: Buffer) => {
        if (failed) return;
        try {
          scanner.push(chunk);
        } catch (e) {
          fail(this.indexError(e));
        }
      });
      stream.on('end', () => {
        if (failed) return;
        let root: Record<string, unknown>;
        try {
          root = scanner.end();
          const dv = root.datasetVersion;
          if (typeof dv === 'string' && dv !== manifest.datasetVersion) {
            throw new Error(`its datasetVersion ${dv} differs from the manifest's ${manifest.datasetVersion}`);
          }
          if (writer.rows === 0 && writer.skipped > 0) throw new Error('no row has id, repo, msg and pattern');
        } catch (e) {
          fail(this.indexError(e));
          return;
        }
        writer.finish(manifest.datasetVersion, typeof root.schemaVersion === 'number' ? root.schemaVersion : manifest.schemaVersion).then(resolve, (e: Error) =>
          fail(new DatasetError('write', `cannot write the cache folder ${this.cacheDir} (${errCode(e)})`)),
        );
      });
    });
  }

  /** A failure while preparing the index: a file system error (the disk is full) is a write
   * failure of the cache, anything else an invalid index. */
  private indexError(e: unknown): DatasetError {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return new DatasetError('write', `cannot write the cache folder ${this.cacheDir} (${code})`);
    return new DatasetError('json', `the index is not valid: ${(e as Error).message}`);
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

  private repoFile(dir: string, repo: string): string {
    const [owner, name] = repo.split('/') as [string, string];
    return path.join(dir, 'repos', owner, `${name}.json`);
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
    const file = this.repoFile(dir, repo);
    try {
      return parseRepoRecords(fs.readFileSync(file, 'utf8'), repo);
    } catch {
      // not cached (or unreadable): fetch
    }
    const readState = this.readState();
    if (!readState.optedIn) throw new DatasetError('format', 'not opted in');
    const [owner, name] = repo.split('/') as [string, string];
    const rel = `/data/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}.json`;
    const dl = await download(datasetUrl(this.url, rel), { maxBytes: this.limits.repoFile, timeoutMs: this.timeoutMs });
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
    const next = s.optedIn ? this.nextCheckAt(s) : null;
    return {
      cacheDir: this.cacheDir,
      url: this.url,
      optedIn: s.optedIn,
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
