// Hostile dataset servers and workspaces (issue 14): per-URL opt-in and settings in untrusted
// workspaces (item 3), bounded decompression and rows (5), overall deadlines (7), manifest paths
// and redirects (10) — against the loopback fixture server.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { DatasetService } from '../../server/src/core/dataset/service';
import { DatasetStore, DEFAULT_DATASET_URL, type DatasetOptions } from '../../server/src/core/dataset/store';
import { parseManifest, safeDatasetPath } from '../../server/src/core/dataset/types';
import { DEFAULT_SETTINGS } from '../../server/src/protocol';
import { normalizeSettings, SettingsStore } from '../../server/src/server/state/settings';
import { FixtureServer, listFiles } from '../shared/datasetServer';
import { tempDir } from '../shared/paths';

const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const INDEX = '/data/index.json.gz';

describe('dataset: hostile servers and workspaces', function () {
  this.timeout(30_000);
  let server: FixtureServer;
  let other: FixtureServer;
  let tmp: string;
  before(async () => {
    server = await FixtureServer.start();
    other = await FixtureServer.start();
  });
  after(async () => {
    await server.close();
    await other.close();
  });
  beforeEach(() => {
    tmp = tempDir('dataset-sec');
    for (const s of [server, other]) {
      s.overrides.clear();
      s.requests.length = 0;
    }
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const cache = (): string => path.join(tmp, 'cache');
  const store = (url: string, extra: Partial<DatasetOptions> = {}): DatasetStore => new DatasetStore({ cacheDir: cache(), url, ...extra });
  const manifestWithIndex = (variant: string, body: Buffer, fields: Record<string, unknown> = {}): string => {
    const m = JSON.parse(server.file(variant, '/data/manifest.json').toString('utf8'));
    m.files.index = { ...m.files.index, bytes: body.length, sha256: sha256(body), ...fields };
    for (const k of Object.keys(fields)) if (fields[k] === undefined) delete m.files.index[k];
    return JSON.stringify(m);
  };
  async function syncedThenNext(alias: string, extra: Partial<DatasetOptions> = {}): Promise<DatasetStore> {
    const s = store(server.base(alias, 'current'), extra);
    assert.equal((await s.sync({ optIn: true })).status, 'updated');
    server.setVariant(alias, 'next');
    server.requests.length = 0;
    return s;
  }
  async function keepsCurrent(s: DatasetStore): Promise<void> {
    assert.equal(s.status().datasetVersion, '2026-11-20T00:00:00.000Z');
    assert.equal((await s.loadRecords(['*'])).length, 10);
    assert.deepEqual(listFiles(cache()).filter((f) => f.includes('.tmp-') || f.endsWith('index.download')), []);
  }

  describe('item 3: the opt-in is per URL; untrusted workspaces do not choose the dataset', () => {
    it('opted in for one host, a store for another fetches nothing until the user agrees to it', async () => {
      const a = store(server.base('a', 'current'));
      assert.equal((await a.sync({ optIn: true })).status, 'updated');
      const b = store(other.base('b', 'next'));
      assert.equal(b.optedIn, false);
      const r = await b.sync({ force: true });
      assert.equal(r.status, 'skipped');
      assert.match(r.reason!, /not opted in for http:\/\/127\.0\.0\.1:\d+\/b/);
      assert.deepEqual(other.requests, [], 'nothing is requested from the new host');
      assert.equal(DatasetStore.cachedUrl(cache()), server.base('a'), 'state.json keeps the host the user chose');
      // full records come from where the cached version came from, never from the other host
      const lite = (await a.loadRecords(['axios/axios']))[0]!;
      assert.ok((await b.fullRecord(lite.id, 'axios/axios'))?.documentation);
      assert.deepEqual(other.requests, []);
      assert.equal(server.count('/a/data/repos/axios/axios.json'), 1);
      // agreeing to the new host: then it syncs
      assert.equal((await b.sync({ optIn: true })).status, 'updated');
      assert.ok(other.count('/b/data/manifest.json') >= 1);
      assert.deepEqual(b.optIns(), [server.base('a'), other.base('b')]);
    });

    it('an old state.json with optedIn: true carries the opt-in over for the public dataset only', () => {
      fs.mkdirSync(cache(), { recursive: true });
      fs.writeFileSync(path.join(cache(), 'state.json'), JSON.stringify({ url: 'https://evil.example', optedIn: true, current: null }));
      assert.equal(store('https://evil.example').optedIn, false);
      assert.equal(store(DEFAULT_DATASET_URL).optedIn, true);
      assert.equal(DatasetStore.consentedUrl(cache()), DEFAULT_DATASET_URL);
    });

    it('settings of an untrusted workspace never reach the dataset (the server does not trust the client)', async () => {
      const raw = { dataset: { url: 'https://evil.example', repos: ['*'], refreshHours: 0, suggest: true }, records: { paths: ['/x'] }, logFiles: ['**/*a*a*b'], diagnostics: { searchUrl: 'https://search.example/?q=${query}' } };
      const untrusted = normalizeSettings(raw, { trusted: false });
      // the URL and the schedule are not the workspace's to choose; repos only select among rows
      // already downloaded from a URL the user agreed to
      assert.deepEqual(untrusted.dataset, { url: '', repos: ['*'], refreshHours: 24, suggest: true });
      assert.deepEqual(untrusted.logFiles, DEFAULT_SETTINGS.logFiles, 'the globs of an untrusted workspace are the defaults');
      assert.equal(untrusted.diagnostics.searchUrl, DEFAULT_SETTINGS.diagnostics.searchUrl, 'so is the search page the problems link to');
      assert.equal(normalizeSettings(raw).diagnostics.searchUrl, raw.diagnostics.searchUrl);
      assert.equal(normalizeSettings(raw).dataset.url, 'https://evil.example', 'trusted: taken as given');
      assert.deepEqual(normalizeSettings(raw).logFiles, ['**/*a*a*b']);
      assert.deepEqual(normalizeSettings({ ...raw, logFiles: [] }).logFiles, [], 'an empty list stays empty');
      // the store pulls per trust state: granting trust fetches again
      let trusted = false;
      const settings = new SettingsStore(async () => raw, () => trusted);
      assert.equal((await settings.get()).dataset.url, '');
      trusted = true;
      assert.equal((await settings.get()).dataset.url, 'https://evil.example');
    });

    it('the service, given no URL (Restricted Mode), uses the one the user opted in for, and a sync confirmed for another URL fetches nothing', async () => {
      const good = server.base('g', 'current');
      const ds = new DatasetService(cache());
      ds.configure({ url: good, repos: [], refreshHours: 24 });
      assert.equal((await ds.sync(true, good)).status, 'updated');
      ds.configure({ url: '', repos: [], refreshHours: 24 });
      assert.equal(ds.url, good);
      // the settings changed to another host after the user was asked about the first one
      ds.configure({ url: other.base('h', 'next'), repos: [], refreshHours: 24 });
      const r = await ds.sync(true, good);
      assert.equal(r.status, 'skipped');
      assert.match(r.reason!, /nothing was downloaded/);
      assert.deepEqual(other.requests, []);
      assert.equal(await ds.syncIfDue(), undefined, 'no automatic sync for a URL without an opt-in');
      assert.deepEqual(other.requests, []);
      assert.equal(ds.status(0).optedIn, false);
    });
  });

  describe('item 5: what a download decompresses to is bounded', () => {
    it('more than the manifest\'s rawBytes (valid sha256): refused, the previous version kept', async () => {
      const s = await syncedThenNext('r');
      const raw = JSON.stringify({ schemaVersion: 2, datasetVersion: '2026-11-27T00:00:00.000Z', errors: [] }) + ' '.repeat(2_000_000);
      const gz = gzipSync(raw);
      server.overrides.set('/r/data/manifest.json', { body: manifestWithIndex('next', gz, { rawBytes: 2000 }) });
      server.overrides.set(`/r${INDEX}`, { body: gz });
      const r = await s.sync({ force: true });
      assert.equal(r.status, 'failed');
      assert.equal(s.status().failure?.kind, 'size');
      assert.match(r.reason!, /decompresses to more than the 2000 bytes the manifest says/);
      await keepsCurrent(s);
    });

    it('without rawBytes: at most a ratio of the served size (a 4.5 MB gzip bomb stops early)', async () => {
      const s = await syncedThenNext('z', { limits: { ratio: 32 } });
      // valid rows, repeated: it compresses ~1000:1 and every byte of it is index JSON
      const row = JSON.stringify({ id: 'ffffffffffffffff', repo: 'a/b', slug: 's', msg: 'boom', pattern: 'boom', type: 'exception', cls: null, tags: [], sev: 'error' });
      const raw = `{"schemaVersion":2,"datasetVersion":"2026-11-27T00:00:00.000Z","errors":[${`${row},`.repeat(Math.ceil(50_000_000 / (row.length + 1)))}${row}]}`;
      const gz = gzipSync(raw, { level: 9 });
      assert.ok(gz.length * 32 < raw.length);
      server.overrides.set('/z/data/manifest.json', { body: manifestWithIndex('next', gz, { rawBytes: undefined, rawSha256: undefined }) });
      server.overrides.set(`/z${INDEX}`, { body: gz });
      const before = process.memoryUsage().rss;
      const r = await s.sync({ force: true });
      assert.equal(r.status, 'failed');
      assert.match(r.reason!, /decompresses to more than \d+ bytes \(at most 32x its size/);
      assert.ok(process.memoryUsage().rss - before < 100e6);
      await keepsCurrent(s);
    });

    it('one row larger than the row limit is refused before it is kept whole', async () => {
      const s = await syncedThenNext('w', { limits: { row: 64 << 10 } });
      const row = { id: 'ffffffffffffffff', repo: 'a/b', slug: 's', msg: 'x'.repeat(1 << 20), pattern: 'xxxxxxxx', type: 'exception', cls: null, tags: [], sev: 'error' };
      const raw = JSON.stringify({ schemaVersion: 2, datasetVersion: '2026-11-27T00:00:00.000Z', errors: [row] });
      const gz = gzipSync(raw);
      server.overrides.set('/w/data/manifest.json', { body: manifestWithIndex('next', gz, { rawBytes: Buffer.byteLength(raw), rawSha256: sha256(raw) }) });
      server.overrides.set(`/w${INDEX}`, { body: gz });
      const r = await s.sync({ force: true });
      assert.equal(r.status, 'failed');
      assert.equal(s.status().failure?.kind, 'size');
      assert.match(r.reason!, /a row of the index is larger than the limit of 65536 bytes/);
      await keepsCurrent(s);
    });
  });

  describe('item 7: every request and every sync has an overall deadline', () => {
    it('a manifest trickled one byte at a time fails once at the deadline; a shared sync waits no longer', async () => {
      const s = await syncedThenNext('t', { manifestTimeoutMs: 400, timeoutMs: 10_000 });
      server.overrides.set('/t/data/manifest.json', { body: server.file('next', '/data/manifest.json'), trickleMs: 50, contentType: 'application/json' });
      const t0 = Date.now();
      const [r, shared] = await Promise.all([s.sync({ force: true }), s.sync({ force: true })]);
      assert.ok(Date.now() - t0 < 5000, `ended after ${Date.now() - t0} ms`);
      assert.equal(r, shared, 'the second caller got the same run');
      assert.equal(r.status, 'failed');
      assert.equal(s.status().failure?.kind, 'timeout');
      assert.match(r.notify!, /not done within 400 ms/);
      await keepsCurrent(s);
      const again = await s.sync({ force: true });
      assert.equal(again.status, 'failed');
      assert.equal(again.notify, undefined, 'reported once');
    });

    it('a trickled index runs into the sync\'s deadline', async () => {
      const s = await syncedThenNext('u', { syncTimeoutMs: 600, timeoutMs: 10_000 });
      server.overrides.set(`/u${INDEX}`, { body: server.file('next', INDEX), trickleMs: 40 });
      const t0 = Date.now();
      const r = await s.sync({ force: true });
      assert.ok(Date.now() - t0 < 5000);
      assert.equal(r.status, 'failed');
      assert.match(r.reason!, /not done within the sync's time limit of 600 ms/);
      await keepsCurrent(s);
    });
  });

  describe('item 10: manifest paths and redirects stay at the dataset\'s origin', () => {
    it('paths are checked after percent-decoding', () => {
      for (const p of ['/data/index.json.gz', '/data/repos/a-b/c.d_e.json', '/data/index-12.json.gz']) assert.ok(safeDatasetPath(p), p);
      for (const p of ['/data/../x', '/data/%2e%2e/x', '/data/%2E%2E/%2e%2e/etc/passwd', '/data/.%2e/x', 'data/x', '//evil.example/x', '/data/%252e%252e/x', '/data\\..\\x', '/data/x?y', '/data/%zz', '/data//x', '/data/./x'])
        assert.equal(safeDatasetPath(p), false, p);
      const m = JSON.parse(server.file('current', '/data/manifest.json').toString('utf8'));
      m.files.index.path = '/data/%2e%2e/%2e%2e/secret.json';
      assert.throws(() => parseManifest(JSON.stringify(m)), /must be a path below the base URL/);
    });

    it('a sync with such a manifest fails before any other request', async () => {
      const m = JSON.parse(server.file('next', '/data/manifest.json').toString('utf8'));
      m.files.index.path = '/data/%2e%2e/%2e%2e/x.json';
      const s = await syncedThenNext('p');
      server.overrides.set('/p/data/manifest.json', { body: JSON.stringify(m) });
      const r = await s.sync({ force: true });
      assert.equal(r.status, 'failed');
      assert.equal(s.status().failure?.kind, 'json');
      assert.deepEqual(server.requests, ['/p/data/manifest.json']);
    });

    it('redirects are followed within the origin only (another host or port, or a downgrade, is refused)', async () => {
      const s = await syncedThenNext('d');
      // same origin: followed
      server.overrides.set('/d/data/manifest.json', { status: 302, headers: { location: '/d2/data/manifest.json' } });
      server.setVariant('d2', 'next');
      assert.equal((await s.sync({ force: true })).status, 'updated');
      // to another host (another port of the loopback is another origin): refused, nothing fetched there
      server.setVariant('d', 'current');
      server.overrides.set('/d/data/manifest.json', { status: 302, headers: { location: `${other.base('x', 'next')}/data/manifest.json` } });
      const r = await s.sync({ force: true });
      assert.equal(r.status, 'failed');
      assert.match(r.reason!, /redirect to http:\/\/127\.0\.0\.1:\d+ refused/);
      assert.deepEqual(other.requests, []);
      // from http to https on the same host is another origin too (and https -> http the same rule)
      server.overrides.set('/d/data/manifest.json', { status: 301, headers: { location: server.origin.replace('http:', 'https:') + '/d/data/manifest.json' } });
      assert.match((await s.sync({ force: true })).reason!, /redirect to https:\/\/127\.0\.0\.1:\d+ refused/);
    });
  });
});
