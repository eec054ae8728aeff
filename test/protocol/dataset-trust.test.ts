// The built server and an untrusted workspace that names another dataset host (issue 14, item 3).
// The user opted in earlier for one dataset (a file: URL of the fixture dataset, synced into the
// server's storage folder); the workspace's settings then point errorExplainer.dataset.url at a
// loopback host. Untrusted: nothing is requested from that host, the status names the URL the user
// chose, and the rows served are that dataset's. Trusted: the workspace's URL applies, but a sync
// confirmed for another URL downloads nothing, and only the user's confirmation of the new URL
// fetches from it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Hover } from 'vscode-languageserver-protocol';
import { DatasetStore } from '../../server/src/core/dataset/store';
import { FixtureServer } from '../shared/datasetServer';
import { copyFixture, positionOf, REPO, TestClient, waitFor } from './client';

const CHOSEN = pathToFileURL(path.join(REPO, 'test', 'fixtures', 'dataset', 'current')).toString();

interface Status {
  url: string;
  optedIn: boolean;
  datasetVersion: string | null;
  cachedUrl: string | null;
}

describe('language server over stdio: an untrusted workspace does not choose the dataset', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });

  it('ignores a workspace dataset.url until trusted, and then fetches from it only once the user agrees to that URL', async () => {
    const hostile = await FixtureServer.start();
    cleanup.push(() => hostile.close());
    const evil = hostile.base('evil', 'next'); // the same records plus one: NEXT_EXTRA (ERR_CANCELED)
    const ws = copyFixture();
    cleanup.push(() => fs.rmSync(ws, { recursive: true, force: true }));
    const settings = { dataset: { url: evil, repos: ['*'], refreshHours: 0 } };
    const c = await TestClient.start({ workspace: ws, settings: () => settings, initializationOptions: { workspaceTrusted: false } });
    cleanup.push(() => c.stop());
    // what the user did before: opted in for CHOSEN and synced it (the server's cache folder)
    const before = new DatasetStore({ cacheDir: path.join(c.storage, 'dataset'), url: CHOSEN });
    assert.equal((await before.sync({ optIn: true })).status, 'updated');
    await c.request('errorExplainer/reload');

    const text = ['12:00:01 ERROR http: Request failed with status code 502', '12:00:02 ERROR http: canceled by the caller of GET', ''].join('\n');
    fs.writeFileSync(path.join(ws, 'logs', 'dataset.log'), text);
    const uri = await c.open('logs/dataset.log', 'log', text);
    const hoverAt = (needle: string) => c.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: positionOf(text, needle, 3) });

    // untrusted: the URL the user opted in for; the workspace's host is not asked anything
    let st = await c.request<Status>('errorExplainer/datasetStatus');
    assert.equal(st.url, CHOSEN);
    assert.equal(st.optedIn, true);
    const sync = await c.request<{ status: string }>('errorExplainer/datasetSync', { force: true });
    assert.notEqual(sync.status, 'failed');
    // the user's own repository selection still applies: the chosen dataset's rows match
    await waitFor('a hover from the chosen dataset', async () => {
      const h = await hoverAt('Request failed');
      return h && JSON.stringify(h).includes('Request failed with status code') ? h : undefined;
    });
    assert.equal(await hoverAt('canceled by'), null, "the workspace host's extra record is not served");
    assert.deepEqual(hostile.requests, [], 'nothing was requested from the host the workspace named');
    assert.equal(DatasetStore.cachedUrl(path.join(c.storage, 'dataset')), CHOSEN, 'state.json keeps the URL the user chose');

    // trusted: the workspace's URL applies, but it has no opt-in yet
    await c.conn.sendNotification('errorExplainer/trust', { workspaceTrusted: true });
    st = await waitFor('the status names the workspace URL', async () => {
      const s = await c.request<Status>('errorExplainer/datasetStatus');
      return s.url === evil ? s : undefined;
    });
    assert.equal(st.optedIn, false);
    assert.deepEqual(hostile.requests, [], 'no automatic sync for a URL without an opt-in');
    // a sync the user confirmed for the URL they were shown (CHOSEN) downloads nothing from another
    const stale = await c.request<{ status: string; reason?: string }>('errorExplainer/datasetSync', { force: true, url: CHOSEN });
    assert.equal(stale.status, 'skipped');
    assert.match(stale.reason ?? '', /nothing was downloaded/);
    assert.deepEqual(hostile.requests, []);
    // the user agrees to the new URL: now it is fetched
    const agreed = await c.request<{ status: string; reason?: string }>('errorExplainer/datasetSync', { force: true, url: evil });
    assert.equal(agreed.status, 'updated', agreed.reason);
    assert.ok(hostile.count('/evil/data/manifest.json') >= 1);
    await waitFor('a hover from the new dataset', async () => {
      const h = await hoverAt('canceled by');
      return h && JSON.stringify(h).includes('canceled by the caller') ? h : undefined;
    });
    assert.equal(c.stderr.includes('Error'), false, c.stderr);
  });
});
