import * as assert from 'node:assert/strict';
import { recordTitle } from '../../client/src/recordTitle';

describe('record view titles', () => {
  it('reads "Class: message", not the hex id', () => {
    assert.equal(recordTitle({ id: '12c38bb1afed0ec1', errorClass: 'MMError', errorMessage: 'encode metadata not ready' }), 'MMError: encode metadata not ready');
    assert.equal(recordTitle({ id: 'x', errorClass: null, errorMessage: 'payment {payment_id} declined' }), 'payment {payment_id} declined');
    assert.equal(recordTitle({ id: 'x', errorClass: 'ValueError', errorMessage: 'ValueError: bad' }), 'ValueError: bad', 'no doubled class');
  });

  it('is one short line without path separators or control characters', () => {
    const t = recordTitle({ id: 'x', errorClass: 'OSError', errorMessage: 'cannot open /var/log/app.log:\n  permission denied while reading the rotated file set in C:\\logs\\old' });
    assert.ok(t.length <= 72, t);
    assert.ok(t.endsWith('…'));
    assert.doesNotMatch(t, /[/\\\n]/);
    assert.equal(recordTitle({ id: 'abc', errorClass: '', errorMessage: '  ' }), 'abc');
    assert.equal(recordTitle({ id: 'abc', errorMessage: '\x1b[31m...' }), '[31m', 'no control characters, no trailing dots');
  });
});
