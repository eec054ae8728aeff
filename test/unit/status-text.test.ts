import * as assert from 'node:assert/strict';
import { recordsStatusText } from '../../client/src/statusText';
import type { StatusResult } from '../../server/src/protocol';

const st = (over: Partial<StatusResult> = {}): StatusResult => ({
  records: 2506,
  sources: [
    { origin: 'bundled', path: '/ext/records', records: 4 },
    { origin: 'user', path: '/home/u/py.json', records: 2502 },
  ],
  problems: 0,
  workspaceTrusted: true,
  timings: { loadMs: 812.4, indexMs: 95.6 },
  ...over,
});

describe('status item text', () => {
  it('says what it counts, readably', () => {
    const t = recordsStatusText(st(), true);
    assert.equal(t.text, '$(book) 2,506 error records');
    assert.equal(t.title, 'Error Explainer: 2,506 error records loaded');
    assert.deepEqual(t.details, ['bundled: 4 records from /ext/records', 'user: 2,502 records from /home/u/py.json', 'loaded in 812 ms, indexed in 96 ms']);
    assert.equal(recordsStatusText(st({ records: 1 }), true).text, '$(book) 1 error record');
  });

  it('shows problems, background indexing and restricted mode', () => {
    const t = recordsStatusText(st({ problems: 3, sources: [{ origin: 'dataset', path: '/c', records: 10, building: true }] }), false);
    assert.equal(t.text, '$(book) 2,506 error records $(sync~spin) $(warning) 3 (restricted)');
    assert.ok(t.details.includes('3 problems in record files (see the Problems panel)'));
    assert.ok(t.details.some((d) => d.startsWith('Restricted mode')));
    assert.match(recordsStatusText(st({ workspaceTrusted: false }), true).text, /\(restricted\)$/);
  });

  it('before the server starts: the name and when records load', () => {
    const t = recordsStatusText(undefined, true);
    assert.equal(t.text, '$(book) Error Explainer');
    assert.match(t.details[0]!, /load with the first log file/);
    assert.equal(recordsStatusText(undefined, false).text, '$(book) Error Explainer (restricted)');
  });
});
