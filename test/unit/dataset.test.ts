// The dataset cache against a loopback server serving the fixture dataset (no internet).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DatasetStore, type DatasetOptions } from '../../server/src/core/dataset/store';
import { isLiteRecord } from '../../server/src/core/dataset/lite';
import { FIXTURE_DATASET, FixtureServer, listFiles } from '../shared/datasetServer';
import { tempDir } from '../shared/paths';

const INDEX = '/data/index.json.gz';
const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

describe('dataset: sync, cache and offline use against a loopback server', function () {
  let server: FixtureServer;
  let tmp: string;
  let clock: number;
  const stores: DatasetStore[] = [];

  before(async () => {
    server = await FixtureServer.start();
  });
  after(async () => {
    await server.close();
  });
  beforeEach(() => {
    tmp = tempDir('dataset');
    clock = Date.parse('2026-11-29T12:00:00Z');
    server.overrides.clear();
    server.requests.length = 0;
  });
  afterEach(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
    stores.length = 0;
  });

  function store(alias: string, variant: string, extra: Partial<DatasetOptions> = {}): DatasetStore {
    const s = new DatasetStore({ cacheDir: path.join(tmp, 'cache'), url: server.base(alias, variant), now: () => clock, ...extra });
    stores.push(s);
    return s;
  }
  /** A store with `current` synced, then the alias moved to `next` (a new datasetVersion). */
  async function syncedThenNext(alias: string, extra: Partial<DatasetOptions> = {}): Promise<DatasetStore> {
    const s = store(alias, 'current', extra);
    const r = await s.sync({ optIn: true });
    assert.equal(r.status, 'updated', r.reason);
    server.setVariant(alias, 'next');
    server.requests.length = 0;
    return s;
  }
  function noLeftovers(): void {
    const left = listFiles(path.join(tmp, 'cache')).filter((f) => f.includes('.tmp-') || f.endsWith('index.download'));
    assert.deepEqual(left, [], 'no temporary or half-written files remain');
  }
  async function stillServesCurrent(s: DatasetStore): Promise<void> {
    assert.equal(s.status().datasetVersion, '2026-11-20T00:00:00.000Z');
    assert.equal((await s.loadRecords(['*'])).length, 10);
    noLeftovers();
  }
  function nextManifestWithIndex(body: Buffer): string {
    const m = JSON.parse(server.file('next', '/data/manifest.json').toString('utf8'));
    m.files.index.bytes = body.length;
    m.files.index.sha256 = sha256(body);
    return JSON.stringify(m);
  }

  it('fetches nothing before opt-in', async () => {
    const s = store('a', 'current');
    const r = await s.sync({ force: true });
    assert.equal(r.status, 'skipped');
    assert.match(r.reason ?? '', /opted in/);
    assert.deepEqual(server.requests, []);
    assert.deepEqual(await s.loadRecords(['*']), []);
    assert.equal(s.status().datasetVersion, null);
  });

  it('opt-in sync downloads, verifies and caches the manifest, gzip index and repos.json', async () => {
    const s = store('a', 'current');
    const r = await s.sync({ optIn: true });
    assert.equal(r.status, 'updated', r.reason);
    assert.equal(r.datasetVersion, '2026-11-20T00:00:00.000Z');
    assert.deepEqual(server.requests, ['/a/data/manifest.json', `/a${INDEX}`, '/a/data/repos.json']);
    const st = s.status();
    assert.equal(st.rows, 10);
    assert.equal(st.repos, 9);
    assert.equal(st.optedIn, true);
    assert.equal(st.failure, null);
    const files = listFiles(path.join(tmp, 'cache'));
    assert.ok(files.includes('state.json'));
    assert.equal(files.filter((f) => /^v\/[^/]+\/(manifest\.json|index\.rows|index\.head\.json|repos\.json)$/.test(f)).length, 4, files.join(', '));
    noLeftovers();
    assert.equal(s.repos().length, 9);
    assert.equal(s.repos().find((x) => x.repo === 'psf/requests')?.language, 'Python');

    const all = await s.loadRecords(['*']);
    assert.equal(all.length, 10);
    const axios = all.find((x) => x.errorCode === 'ERR_BAD_RESPONSE')!;
    assert.ok(isLiteRecord(axios));
    assert.equal(axios.repo, 'axios/axios');
    assert.equal(axios.errorMessage, 'Request failed with status code {status}');
    assert.equal(axios.messagePattern, 'Request failed with status code (.+?)');
    assert.equal(axios.errorClass, 'AxiosError');
    assert.equal(axios.errorType, 'http');
    assert.deepEqual(axios.tags, ['http', 'network']);
    assert.equal(axios.documentation, null, 'index rows carry no explanation');
    const json = JSON.parse(JSON.stringify(axios));
    assert.equal(Object.keys(json).length, 31, 'JSON of a lite record is a complete ErrorRecord');
    assert.equal(json.schemaVersion, 2);
  });

  it('loads only the selected repositories', async () => {
    const s = store('a', 'current');
    await s.sync({ optIn: true });
    assert.deepEqual((await s.loadRecords(['axios/axios'])).map((r) => r.repo), ['axios/axios', 'axios/axios']);
    assert.deepEqual((await s.loadRecords(['PSF/*'])).map((r) => r.repo), ['psf/requests']);
    assert.deepEqual(await s.loadRecords([]), []);
    assert.equal((await s.loadRecords((repo) => repo.startsWith('b'))).length, 1);
  });

  it('an unchanged datasetVersion does not refetch the index; the refresh interval is respected', async () => {
    const s = store('a', 'current', { refreshHours: 24 });
    await s.sync({ optIn: true });
    server.requests.length = 0;
    // within the interval: nothing at all
    clock += 3 * 3600_000;
    const r1 = await s.sync();
    assert.equal(r1.status, 'skipped');
    assert.deepEqual(server.requests, []);
    // after the interval: the manifest only
    clock += 22 * 3600_000;
    const r2 = await s.sync();
    assert.equal(r2.status, 'unchanged');
    assert.deepEqual(server.requests, ['/a/data/manifest.json']);
    // forced: the manifest only again
    const r3 = await s.sync({ force: true });
    assert.equal(r3.status, 'unchanged');
    assert.equal(server.count(`/a${INDEX}`), 0);
    assert.equal(server.count('/a/data/manifest.json'), 2);
    // a new store on the same cache (a restart) sees the same state
    const again = new DatasetStore({ cacheDir: path.join(tmp, 'cache'), url: server.base('a'), now: () => clock, refreshHours: 24 });
    assert.equal((await again.sync()).status, 'skipped');
    assert.equal(server.count('/a/data/manifest.json'), 2);
  });

  it('a new datasetVersion replaces the cache and removes the old version', async () => {
    const s = await syncedThenNext('a');
    const before = listFiles(path.join(tmp, 'cache')).filter((f) => f.startsWith('v/'));
    const r = await s.sync({ force: true });
    assert.equal(r.status, 'updated', r.reason);
    assert.equal(r.datasetVersion, '2026-11-27T00:00:00.000Z');
    assert.equal((await s.loadRecords(['*'])).length, 11);
    const after = listFiles(path.join(tmp, 'cache')).filter((f) => f.startsWith('v/'));
    assert.equal(after.filter((f) => before.includes(f)).length, 0, 'old version folder removed');
  });

  it('reads the older layout (/data/index.json, no gzip)', async () => {
    const s = store('old', 'legacy');
    const r = await s.sync({ optIn: true });
    assert.equal(r.status, 'updated', r.reason);
    assert.ok(server.requests.includes('/old/data/index.json'));
    assert.equal((await s.loadRecords(['*'])).length, 10);
  });

  it('accepts an index a proxy served decoded (verified against rawSha256)', async () => {
    const raw = JSON.parse(server.file('current', '/data/manifest.json').toString('utf8'));
    const decoded = execFileSync('gzip', ['-dc', path.join(FIXTURE_DATASET, 'current', 'data', 'index.json.gz')]);
    assert.equal(sha256(decoded), raw.files.index.rawSha256);
    server.overrides.set(`/p${INDEX}`, { body: decoded, contentType: 'application/json' });
    const s = store('p', 'current');
    const r = await s.sync({ optIn: true });
    assert.equal(r.status, 'updated', r.reason);
    assert.equal((await s.loadRecords(['*'])).length, 10);
  });

  it('works from a file: URL (a local folder)', async () => {
    const s = new DatasetStore({ cacheDir: path.join(tmp, 'cache'), url: pathToFileURL(path.join(FIXTURE_DATASET, 'current')).toString() });
    const r = await s.sync({ optIn: true });
    assert.equal(r.status, 'updated', r.reason);
    assert.equal((await s.loadRecords(['*'])).length, 10);
    const full = await s.fullRecords('axios/axios');
    assert.equal(full.length, 2);
  });

  describe('failures keep the previous cache, leave no partial file and are reported once', () => {
    it('bad sha256', async () => {
      const s = await syncedThenNext('a');
      const bad = Buffer.from(server.file('next', INDEX));
      bad[bad.length - 12] = (bad[bad.length - 12] ?? 0) ^ 0xff;
      server.overrides.set(`/a${INDEX}`, { body: bad });
      const r = await s.sync({ force: true });
      assert.equal(r.status, 'failed');
      assert.match(r.reason!, /sha256/);
      assert.match(r.notify!, /keeping the cached dataset 2026-11-20/);
      assert.equal(s.status().failure?.kind, 'sha');
      await stillServesCurrent(s);
      const again = await s.sync({ force: true });
      assert.equal(again.status, 'failed');
      assert.equal(again.notify, undefined, 'the same failure is not reported twice');
      // a different failure is reported
      server.overrides.set('/a/data/manifest.json', { status: 500, body: 'oops' });
      const third = await s.sync({ force: true });
      assert.match(third.notify ?? '', /HTTP 500/);
      // success clears the failure; the next failure is new again
      server.overrides.clear();
      assert.equal((await s.sync({ force: true })).status, 'updated');
      assert.equal(s.status().failure, null);
    });

    it('truncated gzip (sha matches the truncated bytes)', async () => {
      const s = await syncedThenNext('a');
      const gz = server.file('next', INDEX);
      const cut = gz.subarray(0, Math.floor(gz.length / 2));
      server.overrides.set('/a/data/manifest.json', { body: nextManifestWithIndex(cut) });
      server.overrides.set(`/a${INDEX}`, { body: cut });
      const r = await s.sync({ force: true });
      assert.equal(r.status, 'failed');
      assert.equal(s.status().failure?.kind, 'gzip', r.reason);
      await stillServesCurrent(s);
    });

    it('a connection cut in the middle of the index', async () => {
      const s = await syncedThenNext('a');
      const gz = server.file('next', INDEX);
      server.overrides.set(`/a${INDEX}`, { body: gz, cutAfter: 100 });
      const r = await s.sync({ force: true });
      assert.equal(r.status, 'failed');
      assert.equal(s.status().failure?.kind, 'network', r.reason);
      await stillServesCurrent(s);
    });

    it('gzip index that is not gzip', async () => {
      const s = await syncedThenNext('a');
      const notGz = Buffer.from(JSON.stringify({ schemaVersion: 2, datasetVersion: '2026-11-27T00:00:00.000Z', errors: [] }));
      server.overrides.set('/a/data/manifest.json', { body: nextManifestWithIndex(notGz) });
      server.overrides.set(`/a${INDEX}`, { body: notGz });
      const r = await s.sync({ force: true });
      assert.equal(s.status().failure?.kind, 'gzip', r.reason);
      await stillServesCurrent(s);
    });

    it('HTML error page served with 200 (index and manifest)', async () => {
      const s = await syncedThenNext('a');
      const html = '<!DOCTYPE html><html><body>Service temporarily unavailable</body></html>';
      server.overrides.set(`/a${INDEX}`, { body: html, contentType: 'text/html' });
      const r = await s.sync({ force: true });
      assert.equal(r.status, 'failed');
      assert.equal(s.status().failure?.kind, 'html', r.reason);
      await stillServesCurrent(s);
      server.overrides.clear();
      server.overrides.set('/a/data/manifest.json', { body: `\n  ${html}`, contentType: 'application/json' });
      const r2 = await s.sync({ force: true });
      assert.equal(s.status().failure?.kind, 'html', r2.reason);
      assert.ok(r2.notify, 'a different failure is reported');
      await stillServesCurrent(s);
    });

    it('oversized: over the configured limit, or more bytes than the manifest says', async () => {
      await syncedThenNext('a');
      const s = store('a', 'next', { limits: { index: 500 } });
      const r = await s.sync({ force: true });
      assert.equal(r.status, 'failed');
      assert.equal(s.status().failure?.kind, 'size', r.reason);
      assert.equal(server.count(`/a${INDEX}`), 0, 'not even requested');
      await stillServesCurrent(s);

      const s2 = await syncedThenNext('b');
      const gz = server.file('next', INDEX);
      server.overrides.set(`/b${INDEX}`, { body: Buffer.concat([gz, Buffer.alloc(4096, 0x20)]) });
      const r2 = await s2.sync({ force: true });
      assert.equal(r2.status, 'failed');
      assert.equal(s2.status().failure?.kind, 'size', r2.reason);
    });

    it('HTTP 500 for the manifest and for the index', async () => {
      const s = await syncedThenNext('a');
      server.overrides.set('/a/data/manifest.json', { status: 500, body: 'internal error' });
      const r = await s.sync({ force: true });
      assert.equal(s.status().failure?.kind, 'http', r.reason);
      await stillServesCurrent(s);
      server.overrides.clear();
      server.overrides.set(`/a${INDEX}`, { status: 503, body: 'busy' });
      const r2 = await s.sync({ force: true });
      assert.match(r2.reason!, /HTTP 503/);
      await stillServesCurrent(s);
    });

    it('the network gone (connection refused): cached data and cached full records keep working', async () => {
      const other = await FixtureServer.start();
      const url = other.base('z', 'current');
      const s = new DatasetStore({ cacheDir: path.join(tmp, 'cache'), url, now: () => clock });
      assert.equal((await s.sync({ optIn: true })).status, 'updated');
      assert.equal((await s.fullRecords('axios/axios')).length, 2);
      await other.close();
      const r = await s.sync({ force: true });
      assert.equal(r.status, 'failed');
      assert.equal(s.status().failure?.kind, 'network', r.reason);
      assert.match(r.reason!, /ECONN(REFUSED|RESET)/);
      await stillServesCurrent(s);
      // a fresh store (restart while offline) still answers from the cache
      const offline = new DatasetStore({ cacheDir: path.join(tmp, 'cache'), url, now: () => clock });
      assert.equal((await offline.loadRecords(['*'])).length, 10);
      const full = await offline.fullRecord((await offline.loadRecords(['axios/axios']))[0]!.id, 'axios/axios');
      assert.ok(full?.documentation);
      await assert.rejects(offline.fullRecords('psf/requests'), /ECONNREFUSED/, 'nothing listens any more');
      // after a failure the next automatic poll waits (an hour), not every call
      const r2 = await offline.sync();
      assert.equal(r2.status, 'skipped');
    });

    it('a read-only cache folder', async function () {
      const s = await syncedThenNext('a');
      const cache = path.join(tmp, 'cache');
      const locked = lockReadOnly(cache);
      if (!locked) this.skip();
      try {
        const r = await s.sync({ force: true });
        assert.equal(r.status, 'failed');
        assert.equal(s.status().failure?.kind, 'write', r.reason);
        assert.ok(r.notify);
        const again = await s.sync({ force: true });
        assert.equal(again.notify, undefined, 'reported once even though state.json cannot be written');
        await stillServesCurrent(s);
        // full records still come (from the network, kept in memory)
        assert.equal((await s.fullRecords('psf/requests')).length, 1);
      } finally {
        unlock(cache);
      }
    });
  });

  it('fetches a repository\'s full records lazily, once, and caches them', async () => {
    const s = store('a', 'current');
    await s.sync({ optIn: true });
    assert.equal(server.count('/a/data/repos/axios/axios.json'), 0, 'not fetched by sync');
    const lite = (await s.loadRecords(['axios/axios'])).find((r) => r.errorCode === 'ERR_BAD_RESPONSE')!;
    const full = await s.fullRecord(lite.id, lite.repo);
    assert.ok(full);
    assert.equal(full.errorMessage, lite.errorMessage);
    assert.match(full.documentation ?? '', /validateStatus/);
    assert.equal(full.solutions.length, 2);
    assert.equal(full.triggerScenarios, null, 'exporter "" means absent');
    await s.fullRecord(lite.id, lite.repo);
    assert.equal(server.count('/a/data/repos/axios/axios.json'), 1);
    assert.deepEqual(s.status().cachedRepos, ['axios/axios']);
    const fresh = new DatasetStore({ cacheDir: path.join(tmp, 'cache'), url: server.base('a') });
    assert.equal((await fresh.fullRecords('axios/axios')).length, 2);
    assert.equal(server.count('/a/data/repos/axios/axios.json'), 1, 'second store reads the cache');
    // an HTML page instead of records is refused and not cached
    server.overrides.set('/a/data/repos/psf/requests.json', { body: '<html><body>404</body></html>' });
    await assert.rejects(s.fullRecords('psf/requests'), /HTML/);
    assert.deepEqual(s.status().cachedRepos, ['axios/axios']);
  });

  it('concurrent syncs share one run', async () => {
    const s = store('a', 'current');
    s.optIn();
    const [a, b] = await Promise.all([s.sync(), s.sync()]);
    assert.equal(a, b);
    assert.equal(server.count('/a/data/manifest.json'), 1);
  });
});

/** Make a folder tree unwritable: chmod for ordinary users, the immutable attribute for root. */
function lockReadOnly(dir: string): boolean {
  const probe = path.join(dir, 'probe');
  const writable = (): boolean => {
    try {
      fs.writeFileSync(probe, 'x');
      fs.rmSync(probe);
      return true;
    } catch {
      return false;
    }
  };
  for (const f of walk(dir)) fs.chmodSync(f, fs.statSync(f).isDirectory() ? 0o555 : 0o444);
  if (!writable()) return true;
  try {
    execFileSync('chattr', ['-R', '+i', dir], { stdio: 'ignore' });
  } catch {
    return false;
  }
  return !writable();
}
function unlock(dir: string): void {
  try {
    execFileSync('chattr', ['-R', '-i', dir], { stdio: 'ignore' });
  } catch {
    // not locked that way
  }
  for (const f of walk(dir)) fs.chmodSync(f, fs.statSync(f).isDirectory() ? 0o755 : 0o644);
}
function walk(dir: string): string[] {
  const out = [dir];
  for (const n of fs.readdirSync(dir)) {
    const p = path.join(dir, n);
    if (fs.statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}
