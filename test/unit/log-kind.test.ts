// The one rule of which documents are logs (core/logKind.ts), as the server (isLogLike, from a URI)
// and the client (from vscode.Uri paths) apply it.
import * as assert from 'node:assert/strict';
import { isLogDocument } from '../../server/src/core/logKind';
import { DEFAULT_SETTINGS } from '../../server/src/protocol';
import { isLogLike } from '../../server/src/server/state/logKind';

describe('log documents (core/logKind)', () => {
  const globs = DEFAULT_SETTINGS.logFiles;

  it('language log and output panels are logs whatever their path', () => {
    assert.equal(isLogDocument({ languageId: 'log', scheme: 'file', paths: ['/w/src/main.py'] }, globs), true);
    assert.equal(isLogDocument({ languageId: 'plaintext', scheme: 'output', paths: ['extension-output-x'] }, []), true);
    assert.equal(isLogDocument({ languageId: 'python', scheme: 'file', paths: ['/w/src/main.py', 'src/main.py'] }, globs), false);
  });

  it('a path or a folder-relative path matching a glob makes a log; case only with nocase', () => {
    assert.equal(isLogDocument({ languageId: 'plaintext', scheme: 'file', paths: ['/w/app.log.1'] }, globs), true);
    assert.equal(isLogDocument({ languageId: 'plaintext', scheme: 'file', paths: ['/w/logs/run.txt', 'logs/run.txt'] }, ['logs/*.txt']), true);
    assert.equal(isLogDocument({ languageId: 'plaintext', scheme: 'file', paths: ['/w/logs/run.txt'] }, ['logs/*.txt']), false);
    assert.equal(isLogDocument({ languageId: 'plaintext', scheme: 'file', paths: ['/w/APP.LOG'] }, globs), false);
    assert.equal(isLogDocument({ languageId: 'plaintext', scheme: 'file', paths: ['/w/APP.LOG'] }, globs, { nocase: true }), true);
  });

  it('the server derives the same paths from URIs', () => {
    assert.equal(isLogLike('file:///w/logs/run.txt', 'plaintext', ['logs/*.txt'], ['/w']), true);
    assert.equal(isLogLike('file:///w/logs/run.txt', 'plaintext', ['logs/*.txt'], []), false);
    assert.equal(isLogLike('untitled:Untitled-1', 'log', [], []), true);
    assert.equal(isLogLike('output:extension-output-x', 'plaintext', [], []), true);
  });
});
