// DatasetRows: the compact columns of dataset rows, and records read back from the rows file.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DatasetRows, type PackedRow } from '../../server/src/core/dataset/rows';
import { tempDir } from '../shared/paths';

describe('dataset: compact rows', () => {
  let tmp: string;
  beforeEach(() => (tmp = tempDir('rows')));
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('keeps ids, codes and repositories compactly and reads whole records back, wide cases included', () => {
    const n = 70_000; // more distinct error codes than 16 bits hold
    const long = 'x'.repeat(70_000); // a row longer than 64 KiB
    const rows: PackedRow[] = [];
    for (let i = 0; i < n; i++) {
      const id = i === 5 ? 'Custom-Id' : i.toString(16).padStart(16, '0');
      const msg = i === 7 ? `Long message ${long} {v}` : `Message number ${i} failed with {value}`;
      rows.push([id, `slug-${i}`, i % 2 ? `C${i}` : i === 4 ? '' : null, msg, `Message number ${i} failed with (.+?)`, 'exception', i % 3 ? 'E' : null, i % 5 ? ['t'] : [], i % 7 ? 'error' : 'warning']);
    }
    const file = path.join(tmp, 'index.rows');
    const parts: string[] = [];
    const at: [number, number][] = [];
    let off = 0;
    for (const r of rows) {
      const s = JSON.stringify(r);
      at.push([off, Buffer.byteLength(s)]);
      parts.push(s, '\n');
      off += Buffer.byteLength(s) + 1;
    }
    fs.writeFileSync(file, parts.join(''));
    const repos = ['a/one', 'b/two'];
    const store = new DatasetRows(file, n, repos.length);
    rows.forEach((r, i) => store.add(r, repos[i % 2]!, at[i]![0], at[i]![1]));
    assert.equal(store.count, n);
    for (const i of [0, 1, 4, 5, 7, 65_535, 65_536, 69_999]) {
      const rec = store.record(i);
      assert.equal(store.id(i), rows[i]![0], `id ${i}`);
      assert.equal(store.errorCode(i), rows[i]![2], `code ${i}`);
      assert.equal(store.repo(i), repos[i % 2]);
      assert.equal(store.severity(i), rows[i]![8]);
      assert.deepEqual([rec.id, rec.slug, rec.errorCode, rec.errorMessage, rec.messagePattern, rec.errorClass, rec.tags, rec.repo], [...rows[i]!.slice(0, 5), rows[i]![6], rows[i]![7], repos[i % 2]]);
    }
    assert.equal(store.record(7).errorMessage.length, rows[7]![3].length, 'the long row is read whole');
    assert.deepEqual(store.rowsWithId('Custom-Id'), [5]);
    assert.deepEqual(store.rowsWithId('000000000000ffff'), [65_535]);
    assert.deepEqual(store.rowsWithSlug('SLUG-69999'), [69_999]);
    assert.deepEqual([...store.rowsWithCode('c69999')], [69_999]);
    assert.deepEqual([...store.rowsWithCode('')], [], 'an empty code is not looked up');
    assert.deepEqual(store.captureNames(1), ['value']);
    store.close();
    // closed: records are still read (the file is opened for the read)
    assert.equal(store.record(69_998).errorMessage, rows[69_998]![3]);
  });
});
