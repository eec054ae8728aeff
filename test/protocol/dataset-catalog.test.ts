// The built server with the ErrLookup dataset selected: after an opt-in sync (from a file: URL of
// the fixture dataset), the dataset's rows are built in the background next to the user's
// records; hovers, diagnostics, status and the record view then cover both.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic, Hover } from 'vscode-languageserver-protocol';
import { copyFixture, positionOf, REPO, TestClient, waitFor } from './client';

const DATASET_URL = pathToFileURL(path.join(REPO, 'test', 'fixtures', 'dataset', 'current')).toString();
const AXIOS_ID = 'c7d1ab0586810f17'; // "Request failed with status code {status}" of axios/axios
const BUNDLED_ID = '063d2eac5107dda5'; // "no staged embedding for /send req_id={req_id} (already released)"

describe('language server over stdio: the ErrLookup dataset next to the user records', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const f of cleanup.splice(0).reverse()) await f();
  });

  it('matches dataset rows once built, keeps the user records, and completes records lazily', async () => {
    const ws = copyFixture();
    const settings = { dataset: { url: DATASET_URL, repos: ['*'] } };
    const c = await TestClient.start({ workspace: ws, settings: () => settings });
    cleanup.push(() => c.stop(), () => fs.rmSync(ws, { recursive: true, force: true }));
    const text = [
      '12:00:01 ERROR http: Request failed with status code 502',
      '12:00:02 ERROR worker: no staged embedding for /send req_id=abc-1 (already released)',
      '',
    ].join('\n');
    fs.writeFileSync(path.join(ws, 'logs', 'dataset.log'), text);
    const uri = await c.open('logs/dataset.log', 'log', text);
    const hoverAt = (needle: string) => c.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: positionOf(text, needle, 3) });
    const ids = (items: Diagnostic[] | undefined) => (items ?? []).map((d) => (d.data as { id?: string } | undefined)?.id);

    // before the sync: user (bundled) records only
    assert.ok(JSON.stringify(await hoverAt('no staged')).includes(BUNDLED_ID), 'the glance of the bundled record (its id is in the action links)');
    assert.equal(await hoverAt('Request failed'), null);

    const sync = await c.request<{ status: string }>('errorExplainer/datasetSync', { force: true });
    assert.equal(sync.status, 'updated');
    const status = await c.request<{ records: number; sources: { origin: string; records: number }[] }>('errorExplainer/status');
    assert.equal(status.sources.find((s) => s.origin === 'dataset')?.records, 10);
    // the rows build in the background; the hover shows the dataset record once they match
    const hover = await waitFor('a hover on the dataset line', async () => {
      const h = await hoverAt('Request failed');
      return h && JSON.stringify(h).includes(AXIOS_ID) ? h : undefined;
    });
    const glance = (hover.contents as { value: string }).value;
    assert.ok(glance.includes('axios/axios'), glance);
    assert.ok(glance.includes('`502`'), 'the captured status');
    assert.ok(!glance.includes('skeleton'), 'a dataset row is no skeleton: its full record loads when opened');
    assert.ok(JSON.stringify(await hoverAt('no staged')).includes(BUNDLED_ID), 'the bundled record still matches');
    // the status says the dataset is no longer building (it said so until its rows matched)
    const after = await c.request<{ sources: { origin: string; building?: boolean }[] }>('errorExplainer/status');
    assert.equal(after.sources.find((s) => s.origin === 'dataset')?.building, false);
    const diags = await waitFor('diagnostics of both', async () => {
      const d = ids((await c.pull(uri)).items);
      return d.includes(AXIOS_ID) ? d : undefined;
    });
    assert.ok(diags.includes(BUNDLED_ID));
    // the record view completes the index row from the repository's full records
    const rec = await c.request<{ record: { id: string; documentation: string | null; repo: string } } | null>('errorExplainer/record', { id: AXIOS_ID });
    assert.equal(rec?.record.id, AXIOS_ID);
    assert.equal(rec?.record.repo, 'axios/axios');
    assert.ok(rec?.record.documentation, 'full record from repos/axios/axios.json');
    const search = await c.request<{ id: string; kind: string }[]>('errorExplainer/search', { query: 'ERR_BAD_RESPONSE' });
    assert.equal(search[0]?.id, AXIOS_ID);
    assert.equal(search[0]?.kind, 'code');

    // deselecting the dataset: its rows stop matching, the user records stay
    settings.dataset.repos = [];
    await c.conn.sendNotification('workspace/didChangeConfiguration', { settings: null });
    await waitFor('the dataset row no longer hovers', async () => ((await hoverAt('Request failed')) === null ? true : undefined));
    assert.ok(JSON.stringify(await hoverAt('no staged')).includes(BUNDLED_ID));
    assert.equal(c.stderr.includes('Error'), false, c.stderr);
  });
});
