import * as assert from 'node:assert/strict';
import { datasetFailureMessage, OPEN_SETTINGS, RETRY } from '../../client/src/datasetMessages';

const URL = 'https://errors.standardbeagle.com';

describe('dataset download failures, as the user reads them', () => {
  it('offline: says the host cannot be reached, not a bare ENOTFOUND, with Retry / Open Settings', () => {
    const m = datasetFailureMessage('https://errors.standardbeagle.com/data/manifest.json: ENOTFOUND', URL);
    assert.equal(m.text, 'Error Explainer: could not reach errors.standardbeagle.com: no network connection, or the name does not resolve (ENOTFOUND). Nothing was downloaded; your own and the bundled records keep working.');
    assert.deepEqual(m.buttons, [RETRY, OPEN_SETTINGS]);
    assert.match(datasetFailureMessage('x: EAI_AGAIN; keeping the cached dataset 2026-11-01', URL).text, /could not reach .* The cached dataset stays in use\.$/);
  });

  it('refused, timed out, HTTP errors, HTML pages and other failures', () => {
    assert.match(datasetFailureMessage(`${URL}/data/manifest.json: ECONNREFUSED`, URL).text, /connection to errors\.standardbeagle\.com failed \(ECONNREFUSED\)/);
    assert.match(datasetFailureMessage(`${URL}/data/manifest.json: timed out`, URL).text, /failed \(timed out\)/);
    assert.match(datasetFailureMessage(`${URL}/data/manifest.json: HTTP 404`, 'https://mirror.example/x').text, /mirror\.example answered HTTP 404: is errorExplainer\.dataset\.url right\?/);
    assert.match(datasetFailureMessage('manifest.json is an HTML page, not the dataset manifest', URL).text, /sent a web page/);
    assert.match(datasetFailureMessage('index.json.gz: sha256 mismatch; keeping the cached dataset v3', URL).text, /failed: index\.json\.gz: sha256 mismatch\. The cached dataset stays in use\.$/);
    assert.match(datasetFailureMessage('cannot read /data/manifest.json: ENOENT', 'file:///mnt/mirror').text, /failed: cannot read/);
  });
});
