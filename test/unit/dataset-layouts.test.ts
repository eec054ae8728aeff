// Today's ErrLookup layouts (issue 13, item 4): the index split into index-<n>.json.gz parts, a
// manifest that lists no index (the per-repository files), and the conditional manifest request —
// against the loopback fixture server (test/fixtures/dataset/{split,perrepo}).
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { DatasetStore, type DatasetOptions } from '../../server/src/core/dataset/store';
import { parseManifest } from '../../server/src/core/dataset/types';
import { FixtureServer, listFiles } from '../shared/datasetServer';
import { tempDir } from '../shared/paths';

const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

describe('dataset: the split index, the per-repository fallback and conditional polls', () => {
  let server: FixtureServer;
  let tmp: string;
  let clock: number;
  before(async () => {
    server = await FixtureServer.start();
  });
  after(async () => {
    await server.close();
  });
  beforeEach(() => {
    tmp = tempDir('dataset-layouts');
    clock = Date.parse('2026-12-05T12:00:00Z');
    server.overrides.clear();
    server.requests.length = 0;
    server.conditional.length = 0;
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const store = (alias: string, variant: string, extra: Partial<DatasetOptions> = {}): DatasetStore =>
    new DatasetStore({ cacheDir: path.join(tmp, 'cache'), url: server.base(alias, variant), now: () => clock, ...extra });
  const manifestOf = (variant: string): Record<string, any> => JSON.parse(server.file(variant, '/data/manifest.json').toString('utf8'));
  /** A part's bytes rewritten (gzip of new JSON), with the manifest entry made to match. */
  function replacePart(alias: string, n: number, edit: (part: Record<string, unknown>) => void): void {
    const m = manifestOf('split');
    const raw = JSON.parse(require('node:zlib').gunzipSync(server.file('split', `/data/index-${n}.json.gz`)).toString('utf8'));
    edit(raw);
    const text = JSON.stringify(raw);
    const gz = gzipSync(text);
    m.files[`index-${n}`] = { ...m.files[`index-${n}`], bytes: gz.length, sha256: sha256(gz), rawBytes: Buffer.byteLength(text), rawSha256: sha256(text) };
    server.overrides.set(`/${alias}/data/index-${n}.json.gz`, { body: gz });
    server.overrides.set(`/${alias}/data/manifest.json`, { body: JSON.stringify(m), contentType: 'application/json' });
  }

  it('reads the parts of a split index (any files entry ending in index-<n>.json[.gz]), each verified', async () => {
    const m = parseManifest(server.file('split', '/data/manifest.json').toString('utf8'));
    assert.equal(m.files.index, undefined);
    assert.deepEqual(m.parts.map((p) => p.n), [1, 2, 3]);
    const s = store('s', 'split');
    const r = await s.sync({ optIn: true });
    assert.equal(r.status, 'updated', r.reason);
    assert.equal(r.datasetVersion, '2026-12-01T00:00:00.000Z');
    assert.deepEqual(
      server.requests.filter((x) => x.includes('index')),
      ['/s/data/index-1.json.gz', '/s/data/index-2.json.gz', '/s/data/index-3.json.gz'],
    );
    const rows = await s.loadRecords(['*']);
    assert.equal(rows.length, 11, 'every row of every part');
    assert.ok(rows.some((x) => x.errorCode === 'ERR_CANCELED'), 'the last part too');
    assert.equal(s.status().rows, 11);
  });

  it('a part that is missing, of another datasetVersion, mislabelled or tampered with fails the sync; the cache stays', async () => {
    const base = store('t', 'current');
    assert.equal((await base.sync({ optIn: true })).status, 'updated');
    server.setVariant('t', 'split');
    const cases: [string, () => void, RegExp, string][] = [
      [
        'a gap in the parts',
        () => {
          const m = manifestOf('split');
          delete m.files['index-2'];
          server.overrides.set('/t/data/manifest.json', { body: JSON.stringify(m) });
        },
        /parts are not 1\.\.2/,
        'json',
      ],
      ['another datasetVersion', () => replacePart('t', 2, (p) => (p.datasetVersion = '2026-01-01T00:00:00.000Z')), /datasetVersion/, 'json'],
      ['part 2 says it is part 3', () => replacePart('t', 2, (p) => (p.part = 3)), /says it is part 3 of 3/, 'json'],
      ['parts says 2', () => replacePart('t', 3, (p) => (p.parts = 2)), /part 3 of 2/, 'json'],
      [
        'tampered bytes',
        () => {
          const bad = Buffer.from(server.file('split', '/data/index-3.json.gz'));
          bad[bad.length - 10] = (bad[bad.length - 10] ?? 0) ^ 0xff;
          server.overrides.set('/t/data/index-3.json.gz', { body: bad });
        },
        /sha256/,
        'sha',
      ],
    ];
    for (const [what, setup, message, kind] of cases) {
      server.overrides.clear();
      setup();
      const r = await base.sync({ force: true });
      assert.equal(r.status, 'failed', what);
      assert.match(r.reason ?? '', message, what);
      assert.equal(base.status().failure?.kind, kind, what);
      assert.equal(base.status().datasetVersion, '2026-11-20T00:00:00.000Z', `${what}: the previous version is kept`);
      assert.equal((await base.loadRecords(['*'])).length, 10);
    }
    assert.deepEqual(listFiles(path.join(tmp, 'cache')).filter((f) => f.includes('.tmp-')), []);
  });

  it('with no index in the manifest, builds the rows from the per-repository files (and keeps them)', async () => {
    const s = store('p', 'perrepo');
    const r = await s.sync({ optIn: true });
    assert.equal(r.status, 'updated', r.reason);
    assert.ok(server.requests.includes('/p/data/repos.json'));
    assert.equal(server.requests.filter((x) => x.startsWith('/p/data/repos/')).length, 9, 'one file per repository of repos.json');
    const rows = await s.loadRecords(['*']);
    assert.equal(rows.length, 10);
    const axios = rows.find((x) => x.errorCode === 'ERR_BAD_RESPONSE')!;
    assert.equal(axios.messagePattern, 'Request failed with status code (.+?)');
    // the full records came with the sync: shown without another request
    const before = server.requests.length;
    const full = await s.fullRecord(axios.id, 'axios/axios');
    assert.match(full?.documentation ?? '', /validateStatus/);
    assert.equal(server.requests.length, before);
    assert.deepEqual(s.status().cachedRepos.length, 9);
  });

  it('polls the manifest with If-None-Match: an unchanged dataset costs one small round trip (304)', async () => {
    const s = store('c', 'split', { refreshHours: 1 });
    assert.equal((await s.sync({ optIn: true })).status, 'updated');
    assert.deepEqual(server.conditional, [], 'the first request is not conditional');
    server.requests.length = 0;
    clock += 2 * 3600_000;
    const r = await s.sync();
    assert.equal(r.status, 'unchanged', r.reason);
    assert.deepEqual(server.requests, ['/c/data/manifest.json']);
    assert.deepEqual(server.conditional, ['/c/data/manifest.json']);
    // a restart keeps the ETag (state.json)
    const again = store('c', 'split', { refreshHours: 1 });
    clock += 2 * 3600_000;
    assert.equal((await again.sync()).status, 'unchanged');
    assert.equal(server.conditional.length, 2);
    // a changed manifest answers 200 to the same ETag and is synced
    server.setVariant('c', 'next');
    assert.equal((await again.sync({ force: true })).status, 'updated');
    assert.equal((await again.loadRecords(['*'])).length, 11);
  });
});
