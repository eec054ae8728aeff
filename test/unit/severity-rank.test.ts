import * as assert from 'node:assert/strict';
import { severityRank } from '../../server/src/core/record';
describe('record: severityRank', () => {
  it('ranks severities, critical first', () => {
    assert.equal(severityRank('critical'), 0);
    assert.ok(severityRank('info') > severityRank('warning'));
  });
});
