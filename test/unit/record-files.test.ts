// The web build's record files: the client's reading of a record path and encoding of a file
// (client/src/recordFileData.ts), and the server's loading of what it was sent
// (server/src/server/state/recordFiles.ts): the same order, ids and problems as paths on disk.
import * as assert from 'node:assert/strict';
import * as zlib from 'node:zlib';
import { validateRecord } from '../../server/src/core/load/validate';
import { classifyRecordPath, encodeRecordFile, gunzipBounded } from '../../client/src/recordFileData';
import type { RecordFileDto } from '../../server/src/protocol';
import { loadRecordFiles } from '../../server/src/server/state/recordFiles';

const b64 = (v: unknown): string => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64');
// complete records (every field, defaults filled): bundled files are validated strictly, as on the desktop
const rec = (id: string, errorMessage: string) => validateRecord({ id, errorMessage, errorClass: 'E', documentation: `doc of ${id}` }).record!;

describe('web build: record files', () => {
  it('classifies records.paths entries: relative, absolute on the folder\'s file system, unsupported', () => {
    assert.equal(classifyRecordPath('  '), undefined);
    assert.deepEqual(classifyRecordPath('records/team.json'), { kind: 'relative', path: 'records/team.json' });
    assert.deepEqual(classifyRecordPath('..\\shared\\errors'), { kind: 'relative', path: '../shared/errors' });
    assert.deepEqual(classifyRecordPath('/srv/errors.jsonl'), { kind: 'absolute', path: '/srv/errors.jsonl' });
    for (const p of ['~/errors.json', '~', 'C:\\errors.json', 'd:/x', '\\\\server\\share\\x']) assert.equal(classifyRecordPath(p)?.kind, 'unsupported', p);
    assert.match((classifyRecordPath('~/x.json') as { reason: string }).reason, /home folder needs the desktop/);
  });

  it('encodes a file as base64; a gzip file is inflated first, and bounded while it inflates', async () => {
    const text = JSON.stringify([rec('0000000000000001', 'widget melted')]);
    assert.deepEqual(await encodeRecordFile(Buffer.from(text)), { base64: b64(text) });
    assert.deepEqual(await encodeRecordFile(zlib.gzipSync(text)), { base64: b64(text) });
    // a gzip bomb: 1 KiB compressed, 8 MiB inflated, against a 1 MiB limit
    const bomb = zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024));
    assert.ok(bomb.length < 20_000);
    assert.deepEqual(await encodeRecordFile(bomb, 1024 * 1024), { error: 'the decompressed file is larger than 1 MiB' });
    await assert.rejects(gunzipBounded(bomb, 1024 * 1024), /larger than 1 MiB/);
    const broken = zlib.gzipSync(text).subarray(0, 20);
    const r = await encodeRecordFile(broken);
    assert.ok('error' in r && /^cannot decompress gzip data: /.test(r.error), JSON.stringify(r));
    assert.deepEqual(await encodeRecordFile(Buffer.alloc(2048, 0x20), 1024), { error: 'the file is larger than 0.0009765625 MiB' });
  });

  it('loads files in origin order (bundled < user < workspace; later wins on an id), one source per root', async () => {
    const files: RecordFileDto[] = [
      { origin: 'workspace', root: 'file:///w/.error-records', uri: 'file:///w/.error-records/a.json', base64: b64([rec('00000000000000aa', 'workspace wins')]) },
      { origin: 'bundled', root: 'file:///ext/records', uri: 'file:///ext/records/x.json', base64: b64([rec('00000000000000aa', 'bundled loses'), rec('00000000000000bb', 'bundled only')]) },
      { origin: 'user', root: 'vscode-vfs://github/o/r/errs', uri: 'vscode-vfs://github/o/r/errs/1.json', base64: b64([rec('00000000000000cc', 'user one')]) },
      { origin: 'user', root: 'vscode-vfs://github/o/r/errs', uri: 'vscode-vfs://github/o/r/errs/2.jsonl', base64: b64(`${JSON.stringify(rec('00000000000000dd', 'user two'))}\n`) },
    ];
    const l = await loadRecordFiles(files, true);
    assert.equal(l.catalog.get('00000000000000aa')?.errorMessage, 'workspace wins');
    assert.deepEqual(
      l.status.sources.map((s) => [s.origin, s.path, s.records]),
      [
        ['bundled', 'file:///ext/records', 2],
        ['user', 'vscode-vfs://github/o/r/errs', 2],
        ['workspace', 'file:///w/.error-records', 1],
      ],
    );
    assert.equal(l.status.records, 4);
    const dup = l.problems.find((p) => /duplicate id 00000000000000aa/.test(p.message));
    assert.equal(dup?.file, 'file:///w/.error-records/a.json', 'the duplicate is reported on the later file');
    assert.equal(dup?.severity, 'info');
  });

  it('untrusted: only bundled files count; bad entries and unreadable files become problems, never throw', async () => {
    const files = [
      { origin: 'bundled', root: 'r', uri: 'file:///ext/records/x.json', base64: b64([rec('00000000000000bb', 'bundled only')]) },
      { origin: 'workspace', root: 'w', uri: 'file:///w/.error-records/a.json', base64: b64([rec('00000000000000aa', 'workspace')]) },
      { origin: 'user', root: 'u', uri: 'vscode-vfs://x/u', error: 'not found (EntryNotFound)' },
      null,
      { origin: 'elsewhere', root: 'x', uri: 'x' },
      { origin: 'bundled', root: 'r', uri: 'file:///ext/records/broken.json', base64: b64('[{"errorMessage": ') },
    ];
    const untrusted = await loadRecordFiles(files, false);
    assert.deepEqual(untrusted.status.sources.map((s) => s.origin), ['bundled']);
    assert.equal(untrusted.status.records, 1);
    assert.ok(untrusted.problems.some((p) => p.file === 'file:///ext/records/broken.json' && p.severity === 'error'));
    const trusted = await loadRecordFiles(files, true);
    const missing = trusted.problems.find((p) => p.file === 'vscode-vfs://x/u');
    assert.equal(missing?.message, 'cannot read records: not found (EntryNotFound)');
    assert.equal(trusted.status.records, 2);
  });
});
