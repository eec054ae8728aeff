// The sync pipeline's heavy half: download one dataset version (the index, or its parts, or each
// repository's full records), verify every file against the manifest (size, sha256, gzip,
// decompressed size), stream the rows into a prepared index, and make it a version folder
// v/<dir> of the cache. DatasetStore (store.ts) decides when to sync, keeps state.json and serves
// the reads; this module only writes the new folder (a failure leaves nothing behind).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createGunzip } from 'node:zlib';
import type { ErrorRecord } from '../record';
import { DatasetError, datasetUrl, download, isGzip, looksLikeHtml } from './download';
import { errCode, rmQuiet, tempName } from './fsutil';
import { parseRepoRecords } from './fullRecords';
import { PreparedWriter } from './prepared';
import { RowScanner } from './rowScanner';
import { indexSource, parseRepos, toIndexRow, type Manifest, type ManifestFile, type RepoEntry } from './types';

export interface DatasetLimits {
  manifest: number;
  /** Bytes of the index as served (each part, and all parts together). */
  index: number;
  /** Bytes the index decompresses to, at most (all parts together). */
  indexDecoded: number;
  /** Without rawBytes in the manifest: decompressed bytes per served byte, at most. */
  ratio: number;
  /** One row of the index, in bytes. */
  row: number;
  repos: number;
  repoFile: number;
}
/** The overall deadline of a sync (ms since epoch) and how a timeout names it. */
export interface Deadline {
  deadline: number;
  deadlineLabel: string;
}

function sha256(b: Buffer | string): string {
  return createHash('sha256').update(b).digest('hex');
}

/** Where a version folder keeps a repository's full records. */
export function repoFile(dir: string, repo: string): string {
  const [owner, name] = repo.split('/') as [string, string];
  return path.join(dir, 'repos', owner, `${name}.json`);
}

export interface VersionBuilderOptions {
  cacheDir: string;
  url: string;
  limits: DatasetLimits;
  timeoutMs: number | undefined;
  now: () => number;
}

/** Builds one version folder of the cache from the dataset at `url`. */
export class VersionBuilder {
  private readonly cacheDir: string;
  private readonly url: string;
  private readonly limits: DatasetLimits;
  private readonly timeoutMs: number | undefined;
  private readonly now: () => number;

  constructor(opts: VersionBuilderOptions) {
    this.cacheDir = opts.cacheDir;
    this.url = opts.url;
    this.limits = opts.limits;
    this.timeoutMs = opts.timeoutMs;
    this.now = opts.now;
  }

  /** Download + verify + prepare a version into v/<dir>; returns <dir>. */
  async build(manifest: Manifest, manifestText: string, fetched: string[], limit: Deadline): Promise<string> {
    const vRoot = path.join(this.cacheDir, 'v');
    const dirName = `${sha256(`${this.url}\n${manifest.datasetVersion}`).slice(0, 12)}-${this.now().toString(36)}`;
    const tmp = tempName(path.join(vRoot, dirName));
    let writer: PreparedWriter | undefined;
    try {
      try {
        fs.mkdirSync(tmp, { recursive: true });
        writer = new PreparedWriter(tmp);
      } catch (e) {
        throw new DatasetError('write', `cannot write the cache folder ${this.cacheDir} (${errCode(e)})`);
      }
      const source = indexSource(manifest);
      const budget = { served: 0, decoded: 0 };
      let reposText: Buffer | undefined;
      let schemaVersion = manifest.schemaVersion;
      if (source.kind === 'single') {
        const root = await this.fetchIndexFile(source.file, 'the index', manifest, tmp, writer, fetched, limit, budget);
        if (typeof root.schemaVersion === 'number') schemaVersion = root.schemaVersion;
      } else if (source.kind === 'parts') {
        const n = source.parts.length;
        for (const { n: k, file } of source.parts) {
          const what = `index part ${k} of ${n}`;
          const root = await this.fetchIndexFile(file, what, manifest, tmp, writer, fetched, limit, budget);
          if (root.part !== k || root.parts !== n) throw new DatasetError('json', `${what} (${file.path}) says it is part ${String(root.part)} of ${String(root.parts)}`);
          if (root.datasetVersion !== manifest.datasetVersion) throw new DatasetError('json', `${what} is of datasetVersion ${String(root.datasetVersion)}, the manifest's is ${manifest.datasetVersion}`);
          if (typeof root.schemaVersion === 'number') schemaVersion = root.schemaVersion;
        }
      } else {
        // no index listed: the rows come from each repository's full records
        reposText = await this.fetchVerifiedSmall(manifest.files.repos, this.limits.repos, 'repos.json', limit);
        fetched.push(manifest.files.repos.path);
        await this.rowsFromRepoFiles(reposText, tmp, writer, fetched, limit);
      }
      if (writer.rows === 0 && writer.skipped > 0) throw new DatasetError('json', 'the index is not valid: no row has id, repo, msg and pattern');
      try {
        await writer.finish(manifest.datasetVersion, schemaVersion);
      } catch (e) {
        throw new DatasetError('write', `cannot write the cache folder ${this.cacheDir} (${errCode(e)})`);
      }
      writer = undefined;
      if (!reposText) {
        reposText = await this.fetchVerifiedSmall(manifest.files.repos, this.limits.repos, 'repos.json', limit);
        fetched.push(manifest.files.repos.path);
      }
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
      writer?.abort();
      rmQuiet(tmp);
    }
  }

  private checkSize(f: ManifestFile, limit: number, what: string): void {
    if (f.bytes > limit) throw new DatasetError('size', `${what} is ${f.bytes} bytes by the manifest, larger than the limit of ${limit}`);
  }

  private async fetchVerifiedSmall(f: ManifestFile, limit: number, what: string, deadline: Deadline): Promise<Buffer> {
    this.checkSize(f, limit, what);
    const dl = await download(datasetUrl(this.url, f.path), { maxBytes: Math.min(limit, f.bytes), timeoutMs: this.timeoutMs, ...deadline });
    if (looksLikeHtml(dl.head, dl.contentType)) throw new DatasetError('html', `${what} is an HTML page, not dataset JSON`);
    if (dl.size !== f.bytes) throw new DatasetError('size', `${what} is ${dl.size} bytes, the manifest says ${f.bytes}`);
    if (dl.sha256 !== f.sha256) throw new DatasetError('sha', `${what} does not match the manifest's sha256 (got ${dl.sha256.slice(0, 12)}…, expected ${f.sha256.slice(0, 12)}…)`);
    return dl.body!;
  }

  /** One index file (the single index or a part): download, verify by size and sha256, stream its
   * rows into `writer`. Returns its root without the rows ({schemaVersion, datasetVersion, part, parts}). */
  private async fetchIndexFile(
    f: ManifestFile,
    what: string,
    manifest: Manifest,
    tmp: string,
    writer: PreparedWriter,
    fetched: string[],
    limit: Deadline,
    budget: { served: number; decoded: number },
  ): Promise<Record<string, unknown>> {
    this.checkSize(f, this.limits.index - budget.served, what);
    if (f.rawBytes !== undefined && f.rawBytes > this.limits.indexDecoded - budget.decoded)
      throw new DatasetError('size', `${what} decompresses to ${f.rawBytes} bytes by the manifest, more than the limit of ${this.limits.indexDecoded}`);
    const dlPath = path.join(tmp, 'index.download');
    // a proxy may have decoded the gzip: then the raw size/sha apply
    const maxBytes = Math.min(this.limits.index - budget.served, Math.max(f.bytes, f.rawSha256 ? (f.rawBytes ?? 0) : 0));
    const dl = await download(datasetUrl(this.url, f.path), { maxBytes, timeoutMs: this.timeoutMs, dest: dlPath, ...limit });
    fetched.push(f.path);
    budget.served += dl.size;
    if (looksLikeHtml(dl.head, dl.contentType)) throw new DatasetError('html', `${what} is an HTML page, not dataset JSON`);
    const gz = isGzip(dl.head);
    const asServed = dl.size === f.bytes && dl.sha256 === f.sha256;
    const asDecoded = !gz && f.rawSha256 !== undefined && dl.sha256 === f.rawSha256 && (f.rawBytes === undefined || dl.size === f.rawBytes);
    if (!asServed && !asDecoded) {
      if (dl.size !== f.bytes) throw new DatasetError('size', `${what} is ${dl.size} bytes, the manifest says ${f.bytes} (truncated or replaced download)`);
      throw new DatasetError('sha', `${what} does not match the manifest's sha256 (got ${dl.sha256.slice(0, 12)}…, expected ${f.sha256.slice(0, 12)}…)`);
    }
    if (f.encoding === 'gzip' && !gz && !asDecoded) throw new DatasetError('gzip', `the manifest says ${what} is gzip, but it is not`);
    // what it may decompress to: exactly rawBytes when the manifest gives it, else a ratio of its size
    const decodedLimit = Math.min(this.limits.indexDecoded - budget.decoded, f.rawBytes ?? (gz ? dl.size * this.limits.ratio : dl.size));
    const root = await this.prepareIndex(dlPath, gz, manifest, writer, what, decodedLimit, f.rawBytes !== undefined, budget);
    rmQuiet(dlPath);
    return root;
  }

  /** Stream one downloaded index file's rows into `writer` (decompressed bytes bounded). */
  private prepareIndex(
    file: string,
    gz: boolean,
    manifest: Manifest,
    writer: PreparedWriter,
    what: string,
    decodedLimit: number,
    exact: boolean,
    budget: { served: number; decoded: number },
  ): Promise<Record<string, unknown>> {
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const scanner = new RowScanner(
        (json) => {
          let row;
          try {
            row = toIndexRow(JSON.parse(json));
          } catch {
            row = undefined;
          }
          if (row) writer.add(row);
          else writer.skipped++;
        },
        {
          maxRow: this.limits.row,
          onTooLarge: () => new DatasetError('size', `a row of ${what} is larger than the limit of ${this.limits.row} bytes`),
        },
      );
      const input = fs.createReadStream(file, { highWaterMark: 1 << 16 });
      const stream = gz ? input.pipe(createGunzip()) : input;
      let failed = false;
      let decoded = 0;
      const fail = (e: DatasetError): void => {
        if (failed) return;
        failed = true;
        input.destroy();
        if (stream !== input) stream.destroy();
        reject(e);
      };
      input.on('error', (e) => fail(new DatasetError('write', `cannot read the downloaded index: ${e.message}`)));
      stream.on('error', (e: Error) => fail(new DatasetError('gzip', `${what} is not valid gzip (${e.message})`)));
      stream.on('data', (chunk: Buffer) => {
        if (failed) return;
        decoded += chunk.length;
        budget.decoded += chunk.length;
        if (decoded > decodedLimit) {
          fail(
            new DatasetError(
              'size',
              exact
                ? `${what} decompresses to more than the ${decodedLimit} bytes the manifest says`
                : `${what} decompresses to more than ${decodedLimit} bytes (at most ${this.limits.ratio}x its size, and ${this.limits.indexDecoded} bytes in all)`,
            ),
          );
          return;
        }
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
        } catch (e) {
          fail(this.indexError(e));
          return;
        }
        resolve(root);
      });
    });
  }

  /** The layout without an index: repos.json lists the repositories, each file holds their full
   * records; rows are made from those, and the files are kept (full records need no download). */
  private async rowsFromRepoFiles(reposText: Buffer, tmp: string, writer: PreparedWriter, fetched: string[], limit: Deadline): Promise<void> {
    let repos: RepoEntry[];
    try {
      repos = parseRepos(reposText.toString('utf8'));
    } catch (e) {
      throw new DatasetError('json', `repos.json: ${(e as Error).message}`);
    }
    let served = 0;
    const results = new Map<string, ErrorRecord[]>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < repos.length) {
        const repo = repos[next++]!.repo;
        const [owner, name] = repo.split('/') as [string, string];
        const rel = `/data/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}.json`;
        const dl = await download(datasetUrl(this.url, rel), { maxBytes: Math.min(this.limits.repoFile, this.limits.index - served), timeoutMs: this.timeoutMs, ...limit });
        served += dl.size;
        fetched.push(rel);
        if (looksLikeHtml(dl.head, dl.contentType)) throw new DatasetError('html', `records of ${repo}: got an HTML page, not JSON`);
        try {
          results.set(repo, parseRepoRecords(dl.body!.toString('utf8'), repo));
        } catch (e) {
          throw new DatasetError('json', `records of ${repo}: ${(e as Error).message}`);
        }
        try {
          const file = repoFile(tmp, repo);
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.writeFileSync(file, dl.body!);
        } catch (e) {
          throw new DatasetError('write', `cannot write the cache folder ${this.cacheDir} (${errCode(e)})`);
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    // rows in repos.json order (the writer keeps one repository's rows together)
    for (const { repo } of repos) {
      for (const r of results.get(repo) ?? []) {
        const row = toIndexRow({ id: r.id, repo: r.repo, slug: r.slug, code: r.errorCode, msg: r.errorMessage, pattern: r.messagePattern, type: r.errorType, cls: r.errorClass, tags: r.tags, sev: r.severity });
        if (row) writer.add(row);
        else writer.skipped++;
      }
    }
  }

  /** A failure while preparing the index: a file system error (the disk is full) is a write
   * failure of the cache, anything else an invalid index. */
  private indexError(e: unknown): DatasetError {
    if (e instanceof DatasetError) return e;
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return new DatasetError('write', `cannot write the cache folder ${this.cacheDir} (${code})`);
    return new DatasetError('json', `the index is not valid: ${(e as Error).message}`);
  }
}
