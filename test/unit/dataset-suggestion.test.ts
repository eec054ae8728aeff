// The one-time dataset suggestion: the server's conditions (DatasetSuggester over a real
// DatasetService and cache) and the client's buttons/actions (client/src/datasetPrompt.ts, no vscode).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CHOOSE, DOWNLOAD, mergeRepos, NOT_NOW, suggestionAction, suggestionButtons } from '../../client/src/datasetPrompt';
import { DatasetService } from '../../server/src/core/dataset/service';
import { DEFAULT_SETTINGS, DatasetSuggestionParams, ErrorExplainerSettings } from '../../server/src/protocol';
import { DatasetSuggester, DatasetSuggesterDeps } from '../../server/src/server/features/datasetSuggestion';
import { FixtureServer } from '../shared/datasetServer';
import { tempDir } from '../shared/paths';

const PACKAGE_JSON = JSON.stringify({ name: 'shop', dependencies: { axios: '^1.6.0', express: '^4.18.0', pg: '^8.11.0' } });

describe('dataset suggestion: DatasetSuggester (server)', () => {
  let tmp: string;
  let ws: string;
  let server: FixtureServer;
  before(async () => {
    server = await FixtureServer.start();
  });
  after(async () => {
    await server.close();
  });
  beforeEach(() => {
    tmp = tempDir('suggest');
    ws = path.join(tmp, 'ws');
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, 'package.json'), PACKAGE_JSON);
    server.requests.length = 0;
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  function settings(dataset: Partial<ErrorExplainerSettings['dataset']> = {}): ErrorExplainerSettings {
    const s = structuredClone(DEFAULT_SETTINGS);
    s.dataset = { ...s.dataset, url: server.base('g', 'current'), ...dataset };
    return s;
  }

  function harness(opts: { trusted?: boolean; folders?: string[]; settings?: ErrorExplainerSettings; ds?: DatasetService | undefined } = {}) {
    const sent: DatasetSuggestionParams[] = [];
    const logs: string[] = [];
    const state = {
      trusted: opts.trusted ?? true,
      folders: opts.folders ?? [ws],
      settings: opts.settings ?? settings(),
      ds: 'ds' in opts ? opts.ds : new DatasetService(path.join(tmp, 'dataset')),
    };
    const deps: DatasetSuggesterDeps = {
      dataset: () => state.ds,
      trusted: () => state.trusted,
      folders: () => state.folders,
      settings: async () => state.settings,
      send: (p) => sent.push(p),
      log: { error: (m) => logs.push(m), warn: (m) => logs.push(m), info: (m) => logs.push(m), log: (m) => logs.push(m) },
    };
    return { suggester: new DatasetSuggester(deps), sent, logs, state };
  }

  it('before opt-in: offers the download once, fetching nothing; not again after a restart', async () => {
    const h = harness();
    const out = await h.suggester.offer();
    assert.ok('sent' in out);
    assert.equal(h.sent.length, 1);
    assert.equal(h.sent[0]!.kind, 'optIn');
    assert.match(h.sent[0]!.message, /^Your workspace uses axios, express, pg\. Download ErrLookup's explanations/);
    assert.deepEqual(h.sent[0]!.repos, []);
    assert.deepEqual(await h.suggester.offer(), { skipped: 'already asked' });
    assert.equal(h.sent.length, 1);
    const restarted = harness();
    assert.deepEqual(await restarted.suggester.offer(), { skipped: 'nothing to suggest' });
    assert.equal(restarted.sent.length, 0);
    assert.ok(restarted.logs.includes('dataset suggestion: none (nothing to suggest)'), restarted.logs.join('\n'));
    assert.deepEqual(server.requests, [], 'no request to the dataset');
  });

  it('after a sync: offers the cached repositories of the dependencies not selected yet', async () => {
    const ds = new DatasetService(path.join(tmp, 'dataset'));
    ds.configure(settings().dataset);
    assert.equal((await ds.sync()).status, 'updated');
    server.requests.length = 0;
    const h = harness({ settings: settings({ repos: [] }) });
    await h.suggester.offer();
    assert.deepEqual(h.sent, [
      {
        kind: 'useRepos',
        message: 'axios, express and pg have 4 explained errors — use them?',
        repos: ['axios/axios', 'expressjs/express', 'brianc/node-postgres'],
      },
    ]);
    assert.deepEqual(server.requests, [], 'no request to the dataset');
  });

  it('respects the selection in settings (already chosen repositories are not offered)', async () => {
    const ds = new DatasetService(path.join(tmp, 'dataset'));
    ds.configure(settings().dataset);
    await ds.sync();
    const h = harness({ settings: settings({ repos: ['axios/axios', 'expressjs/*'] }) });
    await h.suggester.offer();
    assert.equal(h.sent.length, 1);
    assert.deepEqual(h.sent[0]!.repos, ['brianc/node-postgres']);
    assert.equal(h.sent[0]!.message, 'pg has 1 explained error — use it?');
  });

  it('untrusted workspace: no suggestion, and it stays available for when trust is granted', async () => {
    const h = harness({ trusted: false });
    assert.deepEqual(await h.suggester.offer(), { skipped: 'untrusted' });
    assert.deepEqual(h.sent, []);
    assert.ok(h.logs.includes('dataset suggestion: none (untrusted)'));
    assert.equal(fs.existsSync(path.join(tmp, 'dataset', 'suggested.json')), false, 'not marked as offered');
    h.state.trusted = true;
    const out = await h.suggester.offer();
    assert.ok('sent' in out && out.sent.kind === 'optIn');
  });

  it('errorExplainer.dataset.suggest false: no suggestion, not marked as offered', async () => {
    const h = harness({ settings: settings({ suggest: false }) });
    assert.deepEqual(await h.suggester.offer(), { skipped: 'disabled' });
    assert.deepEqual(h.sent, []);
    assert.equal(fs.existsSync(path.join(tmp, 'dataset', 'suggested.json')), false);
    assert.ok('sent' in (await harness().suggester.offer()), 'offered once the setting is back on');
  });

  it('no folders, no dataset service, or a workspace without dependencies: nothing', async () => {
    assert.deepEqual(await harness({ folders: [] }).suggester.offer(), { skipped: 'no folders' });
    assert.deepEqual(await harness({ ds: undefined }).suggester.offer(), { skipped: 'no dataset' });
    fs.rmSync(path.join(ws, 'package.json'));
    const h = harness();
    assert.deepEqual(await h.suggester.offer(), { skipped: 'nothing to suggest' });
    assert.deepEqual(h.sent, []);
  });

  it('concurrent calls (start-up and a trust grant at once) send one suggestion', async () => {
    const h = harness();
    const outs = await Promise.all([h.suggester.offer(), h.suggester.offer(), h.suggester.offer()]);
    assert.equal(h.sent.length, 1);
    assert.equal(outs.filter((o) => 'sent' in o).length, 3, 'the same pending run answers every caller');
    assert.deepEqual(await h.suggester.offer(), { skipped: 'already asked' });
  });

  it('a failing service or settings fetch is logged, never thrown', async () => {
    const broken = new DatasetService(path.join(tmp, 'dataset'));
    broken.pendingSuggestion = () => {
      throw new Error('disk on fire');
    };
    const h = harness({ ds: broken });
    assert.deepEqual(await h.suggester.offer(), { skipped: 'failed' });
    assert.ok(h.logs.some((l) => l.includes('disk on fire')));
    const h2 = harness();
    (h2.suggester as unknown as { deps: DatasetSuggesterDeps }).deps.settings = () => Promise.reject(new Error('no configuration'));
    assert.deepEqual(await h2.suggester.offer(), { skipped: 'failed' });
    assert.equal(h2.sent.length, 0);
  });
});

describe('dataset suggestion: the message buttons (client/src/datasetPrompt.ts)', () => {
  const optIn = { kind: 'optIn' as const, repos: [] };
  const many = { kind: 'useRepos' as const, repos: ['axios/axios', 'expressjs/express'] };
  const one = { kind: 'useRepos' as const, repos: ['brianc/node-postgres'] };

  it('buttons per kind', () => {
    assert.deepEqual(suggestionButtons(optIn), [DOWNLOAD, NOT_NOW]);
    assert.deepEqual(suggestionButtons(many), ['Use them', CHOOSE, NOT_NOW]);
    assert.deepEqual(suggestionButtons(one), ['Use it', CHOOSE, NOT_NOW]);
    assert.deepEqual(suggestionButtons({ kind: 'useRepos', repos: [] }), [CHOOSE, NOT_NOW]);
  });

  it('each button maps to its action; "Not now", closing, and foreign labels do nothing', () => {
    assert.equal(suggestionAction(optIn, DOWNLOAD), 'download');
    assert.equal(suggestionAction(optIn, NOT_NOW), 'none');
    assert.equal(suggestionAction(optIn, undefined), 'none');
    assert.equal(suggestionAction(optIn, 'Use them'), 'none');
    assert.equal(suggestionAction(many, 'Use them'), 'useRepos');
    assert.equal(suggestionAction(one, 'Use it'), 'useRepos');
    assert.equal(suggestionAction(one, 'Use them'), 'none', 'not a button of this message');
    assert.equal(suggestionAction(many, CHOOSE), 'choose');
    assert.equal(suggestionAction(many, NOT_NOW), 'none');
    assert.equal(suggestionAction(many, DOWNLOAD), 'none');
    assert.equal(suggestionAction(many, undefined), 'none');
  });

  it('mergeRepos: union, case-insensitive, sorted; "*" and owner/* already cover', () => {
    assert.deepEqual(mergeRepos([], ['expressjs/express', 'axios/axios']), ['axios/axios', 'expressjs/express']);
    assert.deepEqual(mergeRepos(['Axios/Axios'], ['axios/axios', 'brianc/node-postgres']), ['Axios/Axios', 'brianc/node-postgres']);
    assert.deepEqual(mergeRepos(['*'], ['axios/axios']), ['*']);
    assert.deepEqual(mergeRepos(['all'], ['axios/axios']), ['all']);
    assert.deepEqual(mergeRepos(['expressjs/*'], ['expressjs/express', 'pg/pg']), ['expressjs/*', 'pg/pg']);
    assert.deepEqual(mergeRepos([' psf/requests ', ''], ['psf/requests', ' ']), ['psf/requests']);
  });
});
