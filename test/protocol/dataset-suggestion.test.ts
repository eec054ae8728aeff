// The one-time dataset suggestion over stdio (errorExplainer/datasetSuggestion): a workspace whose
// package.json depends on axios, express and pg; the dataset cache in the server's storage folder
// is empty (offer the download) or synced from the loopback fixture server (offer the three
// repositories). The notification comes once per workspace, also across restarts, never in an
// untrusted workspace (until trust is granted) or with errorExplainer.dataset.suggest false, and
// the suggestion itself fetches nothing. The server logs why no suggestion came, which is the
// point after which a missing notification is known to be missing.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DatasetService } from '../../server/src/core/dataset/service';
import { FixtureServer } from '../shared/datasetServer';
import { TestClient, waitFor } from './client';
import { tempDir } from '../shared/paths';

const METHOD = 'errorExplainer/datasetSuggestion';
const PACKAGE_JSON = JSON.stringify({ name: 'shop', dependencies: { axios: '^1.6.0', express: '^4.18.0', pg: '^8.11.0' } }, null, 2);

interface Suggestion {
  kind: string;
  message: string;
  repos: string[];
}

describe('language server over stdio: one-time dataset suggestion', function () {
  let fixture: FixtureServer;
  let tmp: string;
  let ws: string;
  let storage: string;
  const clients: TestClient[] = [];

  before(async () => {
    fixture = await FixtureServer.start();
  });
  after(async () => {
    await fixture.close();
  });
  beforeEach(() => {
    tmp = tempDir('suggest-proto');
    ws = path.join(tmp, 'shop');
    storage = path.join(tmp, 'storage');
    fs.mkdirSync(ws);
    fs.mkdirSync(storage);
    fs.writeFileSync(path.join(ws, 'package.json'), PACKAGE_JSON);
    fixture.requests.length = 0;
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const url = (): string => fixture.base('p', 'current');

  async function start(opts: { trusted?: boolean; dataset?: Record<string, unknown> } = {}): Promise<TestClient> {
    const c = await TestClient.start({
      workspace: ws,
      initializationOptions: { storagePath: storage, workspaceTrusted: opts.trusted ?? true },
      settings: { dataset: { url: url(), ...opts.dataset } },
    });
    clients.push(c);
    return c;
  }
  const suggestions = (c: TestClient): Suggestion[] => c.notificationsOf(METHOD) as Suggestion[];
  const logged = (c: TestClient, text: string): boolean =>
    c.notificationsOf('window/logMessage').some((p) => String((p as { message?: string }).message).includes(text));

  it('before any download: offers the download once, fetching nothing; not again after a restart', async () => {
    const c = await start();
    const [s] = await waitFor('the suggestion', () => (suggestions(c).length ? suggestions(c) : undefined));
    assert.equal(s!.kind, 'optIn');
    assert.match(s!.message, /^Your workspace uses axios, express, pg\. Download ErrLookup's explanations of their errors/);
    assert.deepEqual(s!.repos, []);
    // a round trip after it: still one
    await c.request('errorExplainer/status');
    assert.equal(suggestions(c).length, 1);
    await c.stop();

    const again = await start();
    await waitFor('the decision of the restarted server', () => logged(again, 'dataset suggestion: none (nothing to suggest)'));
    assert.deepEqual(suggestions(again), [], 'offered once per workspace, remembered across restarts');
    assert.deepEqual(fixture.requests, [], 'the suggestion fetched nothing');
  });

  it('after a sync: offers the repositories of axios, express and pg with their error count', async () => {
    const ds = new DatasetService(path.join(storage, 'dataset'));
    ds.configure({ url: url(), repos: [], refreshHours: 24 });
    assert.equal((await ds.sync()).status, 'updated');
    fixture.requests.length = 0;

    const c = await start({ dataset: { repos: [] } });
    await waitFor('the suggestion', () => logged(c, 'dataset suggestion (useRepos)'));
    assert.deepEqual(suggestions(c), [
      {
        kind: 'useRepos',
        message: 'axios, express and pg have 4 explained errors — use them?',
        repos: ['axios/axios', 'expressjs/express', 'brianc/node-postgres'],
      },
    ]);
    // trust toggled (a reload and a second offer() call): still one
    const lastTrusted = (): boolean | undefined =>
      (c.notificationsOf('errorExplainer/statusChanged').at(-1) as { workspaceTrusted?: boolean } | undefined)?.workspaceTrusted;
    await c.conn.sendNotification('errorExplainer/trust', { workspaceTrusted: false });
    await waitFor('the untrusted reload', () => lastTrusted() === false);
    await c.conn.sendNotification('errorExplainer/trust', { workspaceTrusted: true });
    await waitFor('the trusted reload', () => lastTrusted() === true);
    await c.request('errorExplainer/status');
    assert.equal(suggestions(c).length, 1);
    assert.deepEqual(fixture.requests, [], 'the suggestion fetched nothing');
  });

  it('untrusted workspace: no suggestion until trust is granted', async () => {
    const c = await start({ trusted: false });
    await waitFor('the decision', () => logged(c, 'dataset suggestion: none (untrusted)'));
    assert.deepEqual(suggestions(c), []);
    assert.equal(fs.existsSync(path.join(storage, 'dataset', 'suggested.json')), false, 'not used up while untrusted');

    await c.conn.sendNotification('errorExplainer/trust', { workspaceTrusted: true });
    const [s] = await waitFor('the suggestion after trust', () => (suggestions(c).length ? suggestions(c) : undefined));
    assert.equal(s!.kind, 'optIn');
    assert.deepEqual(fixture.requests, []);
  });

  it('errorExplainer.dataset.suggest false: no suggestion', async () => {
    const c = await start({ dataset: { suggest: false } });
    await waitFor('the decision', () => logged(c, 'dataset suggestion: none (disabled)'));
    await c.request('errorExplainer/status');
    assert.deepEqual(suggestions(c), []);
    assert.equal(fs.existsSync(path.join(storage, 'dataset', 'suggested.json')), false);
    assert.deepEqual(fixture.requests, []);
  });
});
