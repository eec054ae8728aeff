// Record folders read only inside their bounds (core/load/walk.ts `within`, used by the
// server's record sources): a symlink out of the workspace or out of a configured folder is
// reported and not followed; links that stay inside are.
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadRecordsFromPath } from '../../server/src/core/load';
import { listRecordFiles } from '../../server/src/core/load/walk';
import { sourceSpecs } from '../../server/src/server/state/recordSources';
import { tempDir } from '../shared/paths';

describe('record folders stay inside their bounds', () => {
  let root: string;
  let ws: string;
  let outside: string;
  before(() => {
    root = tempDir('walk');
    ws = path.join(root, 'ws');
    outside = path.join(root, 'outside');
    mkdirSync(path.join(ws, '.error-records', 'sub'), { recursive: true });
    mkdirSync(path.join(ws, 'shared'));
    mkdirSync(path.join(outside, 'dir'), { recursive: true });
    const rec = (msg: string) => JSON.stringify([{ errorMessage: msg }]);
    writeFileSync(path.join(ws, '.error-records', 'own.json'), rec('own record message'));
    writeFileSync(path.join(ws, 'shared', 'shared.json'), rec('shared record message'));
    writeFileSync(path.join(outside, 'secret.json'), rec('secret record message'));
    writeFileSync(path.join(outside, 'dir', 'x.json'), rec('secret folder message'));
    symlinkSync(path.join(outside, 'secret.json'), path.join(ws, '.error-records', 'secret.json'));
    symlinkSync(path.join(outside, 'dir'), path.join(ws, '.error-records', 'sub', 'linked'));
    symlinkSync(path.join(ws, 'shared', 'shared.json'), path.join(ws, '.error-records', 'shared.json'));
    // the records folder itself a link out of the workspace
    symlinkSync(outside, path.join(root, 'ws2-records'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('follows links inside the bound, reports and skips links out of it', async () => {
    const w = await listRecordFiles(path.join(ws, '.error-records'), { within: [ws] });
    assert.deepEqual(w.files.map((f) => path.relative(ws, f)).sort(), ['.error-records/own.json', '.error-records/shared.json']);
    assert.deepEqual(w.problems.map((p) => path.relative(ws, p.file)).sort(), ['.error-records/secret.json', '.error-records/sub/linked']);
    for (const p of w.problems) assert.match(p.message, /symbolic link to .*outside.*; not read/);
    // without a bound (the bundle), links are followed as before
    const free = await listRecordFiles(path.join(ws, '.error-records'));
    assert.equal(free.files.length, 4);
  });

  it('a records folder that is itself a link out of its bound is not read', async () => {
    const w = await listRecordFiles(path.join(root, 'ws2-records'), { within: [path.join(root, 'ws2')] });
    assert.deepEqual(w.files, []);
    assert.match(w.problems[0]!.message, /outside/);
  });

  it('loadRecordsFromPath: the refused links are error problems on the links; the rest loads', async () => {
    const r = await loadRecordsFromPath(path.join(ws, '.error-records'), { within: [ws] });
    assert.deepEqual(r.records.map((x) => x.errorMessage).sort(), ['own record message', 'shared record message']);
    assert.equal(r.problems.filter((p) => p.severity === 'error' && /outside/.test(p.message)).length, 2);
  });

  it('the server bounds .error-records/ by its workspace folder and a configured path by itself', () => {
    const specs = sourceSpecs({ bundledPath: '/ext/records', includeBundled: true, paths: [{ folder: '/w', paths: ['recs', '/abs/r.json'] }], folders: ['/w'], trusted: true });
    assert.deepEqual(
      specs.map((s) => [s.origin, s.within]),
      [
        ['bundled', undefined],
        ['user', ['/w/recs']],
        ['user', ['/abs/r.json']],
        ['workspace', ['/w']],
      ],
    );
  });
});
