// RecordsState (server/src/server/state/records.ts) without a connection: reloads are coalesced
// (at most one waits behind the running one), the first load makes `ready`, every reload bumps the
// epoch and tells the host; and the watchers it registers for the sources.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StatusResult } from '../../server/src/protocol';
import { DocumentStore } from '../../server/src/server/state/documents';
import { RecordsState, sourceWatchers } from '../../server/src/server/state/records';
import { SettingsStore } from '../../server/src/server/state/settings';
import { Workspace } from '../../server/src/server/state/workspace';
import { FIXTURES } from '../shared/paths';

describe('RecordsState', () => {
  it('coalesces reloads: one runs, at most one waits behind it; ready after the first', async () => {
    // the settings fetch of the first reload waits until released: that reload is "running"
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let fetching!: () => void;
    const fetched = new Promise<void>((r) => (fetching = r));
    const workspace = new Workspace();
    workspace.trusted = true; // records.paths count only in a trusted workspace
    workspace.settings = new SettingsStore(async () => {
      fetching();
      await gate;
      return { records: { includeBundled: false, paths: [path.join(FIXTURES, 'records', 'single.json')] } };
    });
    const loads: string[] = [];
    const changed: StatusResult[] = [];
    let replaced = 0;
    const records = new RecordsState({
      log: { error: () => undefined, warn: () => undefined, info: (m) => void loads.push(m), log: () => undefined },
      documents: new DocumentStore(),
      workspace,
      watching: () => undefined,
      problems: () => undefined,
      replaced: () => void replaced++,
      changed: (s) => void changed.push(s),
    });
    let ready = false;
    void records.ready.then(() => (ready = true));

    records.start(); // the first load
    await fetched; // ... is running now
    const second = records.reload(true);
    assert.equal(records.reload(false), second, 'a third reload joins the one already waiting');
    assert.equal(records.reload(true), second);
    assert.equal(ready, false);
    release();
    const status = await second;
    assert.equal(ready, true);
    assert.equal(loads.length, 2, `two loads: ${loads.join(' | ')}`);
    assert.equal(replaced, 2);
    assert.equal(changed.length, 2);
    assert.equal(records.epoch, 2);
    assert.equal(status.records, 1);
    assert.equal(records.loaded.status, status);

    // unchanged sources and no force: no load, but the epoch moves and the host hears of it
    await records.reload(false);
    assert.equal(loads.length, 2);
    assert.equal(changed.length, 3);
    assert.equal(records.epoch, 3);
    records.dispose();
  });

  it('watches every .error-records/ and each user path, as relative patterns when the client has them', () => {
    const file = path.resolve('/data/records/mine.json');
    const specs = [
      { origin: 'bundled' as const, path: path.resolve('/ext/records') },
      { origin: 'user' as const, path: file },
      { origin: 'workspace' as const, path: path.resolve('/ws/.error-records'), optional: true },
    ];
    const baseUri = pathToFileURL(path.dirname(file)).href;
    assert.deepEqual(
      sourceWatchers(specs, true).map((w) => w.globPattern),
      ['**/.error-records/**', { baseUri, pattern: 'mine.json' }, { baseUri, pattern: 'mine.json/**' }],
    );
    const slashed = file.split(path.sep).join('/');
    assert.deepEqual(
      sourceWatchers(specs, false).map((w) => w.globPattern),
      ['**/.error-records/**', slashed, `${slashed}/**`],
    );
    assert.ok(sourceWatchers(specs, false).every((w) => w.kind === 7), 'create, change and delete');
  });
});
