// DatasetService: what the language server calls (opt-in, selection from settings, lazy full
// records, one-time suggestions), against the loopback fixture server.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { DatasetService, sourceLabel } from '../../server/src/core/dataset/service';
import { isLiteRecord } from '../../server/src/core/dataset/lite';
import { FIXTURE_DATASET, FixtureServer, fixtureSuite } from '../shared/datasetServer';

const WS = path.join(FIXTURE_DATASET, 'workspace');

describe('dataset: DatasetService (server side)', () => {
  const fx = fixtureSuite('dataset-svc');

  it('names the dataset source in the opt-in offer: the public host, a mirror, a local folder', () => {
    assert.equal(sourceLabel('https://errors.standardbeagle.com'), 'errors.standardbeagle.com');
    assert.equal(sourceLabel('https://mirror.example.test:8443/errlookup/'), 'mirror.example.test:8443');
    assert.equal(sourceLabel('file:///srv/err%20lookup'), 'the folder /srv/err lookup');
  });

  it('does nothing before opt-in except offer it once', async () => {
    const ds = new DatasetService(path.join(fx.tmp, 'dataset'));
    ds.configure({ url: fx.server.base('s', 'current'), repos: ['*'], refreshHours: 24 });
    assert.deepEqual(await ds.records(), []);
    assert.equal(await ds.syncIfDue(), undefined);
    const offer = ds.pendingSuggestion([WS]);
    assert.equal(offer?.kind, 'optIn');
    assert.match(offer!.message, /^Your workspace uses left-pad, axios, express and \d+ more\. Download ErrLookup's explanations/);
    assert.ok(offer!.message.endsWith(`(${new URL(fx.server.base('s', 'current')).host})?`), `the configured source is named: ${offer!.message}`);
    assert.equal(ds.pendingSuggestion([WS]), undefined, 'offered once');
    assert.equal(new DatasetService(path.join(fx.tmp, 'dataset')).pendingSuggestion([WS]), undefined, 'also after a restart');
    assert.equal(ds.suggest([WS]).needsSync, true);
    assert.deepEqual(fx.server.requests, [], 'no request before opt-in');
  });

  it('after opt-in: selection from settings, lazy full records, suggestions for the rest', async () => {
    const ds = new DatasetService(path.join(fx.tmp, 'dataset'));
    ds.configure({ url: fx.server.base('s', 'current'), repos: [], refreshHours: 24 });
    assert.equal((await ds.sync()).status, 'updated');
    assert.deepEqual(await ds.records(), [], 'no repository chosen yet');
    ds.configure({ url: fx.server.base('s', 'current'), repos: ['axios/axios'], refreshHours: 24 });
    const recs = await ds.records();
    assert.equal(recs.length, 2);
    assert.ok(recs.every(isLiteRecord));
    const full = await ds.complete(recs[0]!);
    assert.ok(!isLiteRecord(full));
    assert.equal(full.id, recs[0]!.id);
    assert.equal(fx.server.count('/s/data/repos/axios/axios.json'), 1);
    assert.equal((await ds.syncIfDue())?.status, 'skipped', 'refreshHours not passed');

    const sug = ds.suggest([WS]);
    assert.equal(sug.needsSync, false);
    assert.ok(sug.suggestions.some((x) => x.repo === 'axios/axios'));
    assert.match(sug.message!, /^express, pg, github\.com\/spf13\/cobra and 4 more have 7 explained errors — use them\?$/, 'axios is already selected');
    const offer = ds.pendingSuggestion([WS]);
    assert.equal(offer?.kind, 'useRepos');
    assert.ok(offer!.repos.includes('brianc/node-postgres') && !offer!.repos.includes('axios/axios'));
    assert.equal(ds.pendingSuggestion([WS]), undefined);

    const st = ds.status(recs.length);
    assert.equal(st.loaded, 2);
    assert.equal(st.rows, 10);
    assert.deepEqual(st.cachedRepos, ['axios/axios']);
  });

  it('complete() falls back to the index record when the repository cannot be fetched', async () => {
    const other = await FixtureServer.start();
    const ds = new DatasetService(path.join(fx.tmp, 'dataset'));
    ds.configure({ url: other.base('o', 'current'), repos: ['psf/requests'], refreshHours: 24 });
    await ds.sync();
    const [lite] = await ds.records();
    await other.close();
    assert.equal(await ds.complete(lite!), lite);
  });
});
