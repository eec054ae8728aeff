import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ErrorRecord } from '../../server/src/core/record';
import {
  DEFAULT_REPO,
  defaultId,
  isAnchored,
  messagePatternProblem,
  RECORD_FIELDS,
  repairSurrogates,
  slugFromMessage,
  suggestField,
  validateRecord,
  type FieldIssue,
} from '../../server/src/core/load/validate';

const bundled: ErrorRecord[] = JSON.parse(fs.readFileSync(path.join(__dirname, '../../records/sgl-project/sglang.json'), 'utf8'));
const base = (): Record<string, unknown> => structuredClone(bundled[0]!) as unknown as Record<string, unknown>;
const errors = (issues: FieldIssue[]) => issues.filter((i) => i.severity === 'error');
const at = (issues: FieldIssue[], field: string) => issues.filter((i) => i.path[0] === field);

describe('validate: strict (ErrLookup records)', () => {
  it('accepts every bundled record unchanged, with no issues', () => {
    for (const r of bundled) {
      const v = validateRecord(r, { strict: true });
      assert.deepEqual(v.issues, []);
      assert.deepEqual(v.record, r);
    }
  });

  it('requires every field', () => {
    for (const f of RECORD_FIELDS) {
      const r = base();
      delete r[f];
      const v = validateRecord(r, { strict: true });
      assert.equal(v.record, undefined, f);
      const e = errors(v.issues);
      assert.equal(e.length, 1, f);
      assert.deepEqual(e[0]!.path, [f]);
      assert.equal(e[0]!.at, 'object');
      assert.match(e[0]!.message, new RegExp(`missing required field "${f}"`));
    }
  });

  // One wrong value per rule; each must be an error at that field, and the record skipped.
  const wrong: [string, unknown][] = [
    ['id', 'ABCDEF0123456789'],
    ['id', '0123456789abcde'],
    ['repo', 'sglang'],
    ['slug', 'Not Kebab'],
    ['errorCode', 12],
    ['errorMessage', ''],
    ['messagePattern', 'unclosed (group'],
    ['messagePattern', 7],
    ['messagePattern', '^no staged embedding for /send'],
    ['messagePattern', 'no staged embedding for /send$'],
    ['errorType', 'error'],
    ['errorClass', ['x']],
    ['httpStatus', 99],
    ['httpStatus', 600],
    ['httpStatus', 404.5],
    ['httpStatus', '404'],
    ['severity', 'fatal'],
    ['filePath', false],
    ['lineNumber', 0],
    ['lineNumber', 1.5],
    ['sourceCode', Array.from({ length: 41 }, (_, i) => `line ${i}`).join('\n')],
    ['sourceCodeStart', -3],
    ['sourceCodeEnd', '1313'],
    ['githubUrl', 'http://github.com/sgl-project/sglang'],
    ['githubUrl', 'https://github.com.evil.example/x'],
    ['documentation', 5],
    ['triggerScenarios', {}],
    ['commonSituations', true],
    ['solutions', 'just one'],
    ['solutions', ['ok', 3]],
    ['exampleFix', 1],
    ['handlingStrategy', 'ignore'],
    ['validationCode', 2],
    ['typeGuard', 3],
    ['tryCatchPattern', 4],
    ['preventionTips', [null]],
    ['tags', ['Race Condition']],
    ['tags', 'timeout'],
    ['backgroundTag', 9],
    ['analyzedSha', '0132848'],
    ['analyzedAt', '2026-08-28 05:10:05'],
    ['analyzedAt', '2026-08-28T05:10:05+02:00'],
    ['analyzedAt', '2026-13-45T99:10:05Z'],
    ['schemaVersion', 1],
    ['schemaVersion', '2'],
  ];
  for (const [field, value] of wrong) {
    it(`rejects ${field} = ${JSON.stringify(value).slice(0, 40)}`, () => {
      const r = base();
      r[field] = value;
      const v = validateRecord(r, { strict: true });
      assert.equal(v.record, undefined);
      const e = errors(v.issues);
      assert.equal(e.length, 1, JSON.stringify(v.issues));
      assert.equal(e[0]!.path[0], field);
      assert.equal(e[0]!.at, 'value');
      assert.ok(e[0]!.message.startsWith(field), e[0]!.message);
    });
  }

  it('points at the offending array item', () => {
    const r = base();
    r.tags = ['ok', 'also-ok', 'Bad Tag'];
    const e = errors(validateRecord(r, { strict: true }).issues);
    assert.deepEqual(e[0]!.path, ['tags', 2]);
  });

  it('checks sourceCodeStart <= lineNumber <= sourceCodeEnd', () => {
    const r = base();
    r.lineNumber = 2000;
    const e = errors(validateRecord(r, { strict: true }).issues);
    assert.deepEqual(e[0]!.path, ['lineNumber']);
    assert.match(e[0]!.message, /after sourceCodeEnd 1313/);
    const r2 = base();
    r2.sourceCodeStart = 1400;
    r2.lineNumber = 1450;
    assert.deepEqual(errors(validateRecord(r2, { strict: true }).issues)[0]!.path, ['sourceCodeStart']);
  });

  it('accepts null for the nullable fields', () => {
    const r = base();
    for (const f of ['errorCode', 'errorClass', 'httpStatus', 'filePath', 'lineNumber', 'sourceCode', 'sourceCodeStart', 'sourceCodeEnd', 'githubUrl', 'handlingStrategy', 'analyzedSha', 'analyzedAt'])
      r[f] = null;
    const v = validateRecord(r, { strict: true });
    assert.deepEqual(errors(v.issues), []);
    assert.ok(v.record);
  });

  it('reports unknown fields as info with a suggestion, and drops them', () => {
    const r = base();
    r.sevirity = 'error';
    r.extra = 1;
    const v = validateRecord(r, { strict: true });
    assert.ok(v.record);
    assert.equal((v.record as unknown as Record<string, unknown>).sevirity, undefined);
    const info = v.issues.filter((i) => i.severity === 'info');
    assert.equal(info.length, 2);
    assert.match(info[0]!.message, /unknown field "sevirity".*did you mean "severity"/);
    assert.equal(info[0]!.at, 'key');
    assert.doesNotMatch(info[1]!.message, /did you mean/);
  });

  it('allows "$schema" silently', () => {
    const r = base();
    r.$schema = '../records/schema.json';
    assert.deepEqual(validateRecord(r, { strict: true }).issues, []);
  });
});

describe('validate: lenient (user records)', () => {
  it('needs only errorMessage, and fills the defaults', () => {
    const v = validateRecord({ errorMessage: 'Connection refused by {host}:{port}' });
    assert.deepEqual(v.issues, []);
    const r = v.record!;
    assert.equal(r.messagePattern, 'Connection refused by (.+?):(.+?)');
    assert.equal(r.repo, DEFAULT_REPO);
    // id = first 16 hex of sha256("<repo>\n<errorMessage>\n<filePath or ''>")
    const expected = createHash('sha256').update('local/records\nConnection refused by {host}:{port}\n').digest('hex').slice(0, 16);
    assert.equal(r.id, expected);
    assert.equal(r.slug, 'connection-refused-by-host-port');
    assert.equal(r.errorType, 'exception');
    assert.equal(r.severity, 'error');
    assert.deepEqual([r.solutions, r.preventionTips, r.tags], [[], [], []]);
    assert.equal(r.schemaVersion, 2);
    for (const f of ['errorCode', 'errorClass', 'httpStatus', 'filePath', 'lineNumber', 'sourceCode', 'githubUrl', 'documentation', 'handlingStrategy', 'analyzedSha', 'analyzedAt'] as const)
      assert.equal(r[f], null, f);
    assert.deepEqual(Object.keys(r), [...RECORD_FIELDS]);
  });

  it('needs only messagePattern (errorMessage falls back to it)', () => {
    const r = validateRecord({ messagePattern: 'rate limit of (.+?) exceeded' }).record!;
    assert.equal(r.messagePattern, 'rate limit of (.+?) exceeded');
    assert.equal(r.errorMessage, 'rate limit of (.+?) exceeded');
    assert.match(r.id, /^[0-9a-f]{16}$/);
  });

  it('keeps valid given fields, and derives errorType from errorCode / httpStatus', () => {
    assert.equal(validateRecord({ errorMessage: 'Disk quota exceeded', errorCode: 'EDQUOT' }).record!.errorType, 'error_code');
    assert.equal(validateRecord({ errorMessage: 'Service unavailable now', httpStatus: 503 }).record!.errorType, 'http');
    assert.equal(validateRecord({ errorMessage: 'Service unavailable now', errorType: 'panic' }).record!.errorType, 'panic');
    const id = validateRecord({ errorMessage: 'x is broken here', repo: 'me/app', filePath: 'a.py' }).record!.id;
    assert.equal(id, defaultId('me/app', 'x is broken here', 'a.py'));
  });

  it('skips a record without a usable pattern or message, with an error', () => {
    for (const raw of [{}, { severity: 'error' }, { errorMessage: '' }, { errorMessage: 42 }, { messagePattern: null, errorMessage: null }]) {
      const v = validateRecord(raw);
      assert.equal(v.record, undefined, JSON.stringify(raw));
      assert.ok(errors(v.issues).length >= 1, JSON.stringify(raw));
    }
  });

  it('derives from errorMessage when messagePattern has the wrong type (warning)', () => {
    const v = validateRecord({ messagePattern: 5, errorMessage: 'Checkpoint {path} is corrupted' });
    assert.equal(v.record!.messagePattern, 'Checkpoint (.+?) is corrupted');
    assert.equal(at(v.issues, 'messagePattern')[0]!.severity, 'warning');
  });

  it('turns every wrong-typed optional field into a warning and its default', () => {
    const defaults: Record<string, unknown> = {
      id: undefined, // derived
      repo: DEFAULT_REPO,
      slug: 'worker-lost-heartbeat',
      errorCode: null,
      errorType: 'exception',
      errorClass: null,
      httpStatus: null,
      severity: 'error',
      filePath: null,
      lineNumber: null,
      sourceCode: null,
      sourceCodeStart: null,
      sourceCodeEnd: null,
      githubUrl: null,
      documentation: null,
      triggerScenarios: null,
      commonSituations: null,
      solutions: [],
      exampleFix: null,
      handlingStrategy: null,
      validationCode: null,
      typeGuard: null,
      tryCatchPattern: null,
      preventionTips: [],
      tags: [],
      backgroundTag: null,
      analyzedSha: null,
      analyzedAt: null,
      schemaVersion: 2,
    };
    for (const [field, def] of Object.entries(defaults)) {
      const raw: Record<string, unknown> = { errorMessage: 'Worker lost heartbeat', [field]: { wrong: true } };
      const v = validateRecord(raw);
      assert.ok(v.record, field);
      const issues = at(v.issues, field);
      assert.equal(issues.length, 1, `${field}: ${JSON.stringify(v.issues)}`);
      assert.equal(issues[0]!.severity, 'warning');
      assert.equal(issues[0]!.at, 'value');
      const got = (v.record as unknown as Record<string, unknown>)[field];
      if (field === 'id') assert.match(got as string, /^[0-9a-f]{16}$/);
      else assert.deepEqual(got, def, field);
    }
  });

  it('drops an inconsistent snippet range with a warning', () => {
    const v = validateRecord({ errorMessage: 'bad things happened', lineNumber: 50, sourceCodeStart: 1, sourceCodeEnd: 10, sourceCode: 'x' });
    assert.equal(v.record!.sourceCodeStart, null);
    assert.equal(v.record!.lineNumber, 50);
    assert.equal(at(v.issues, 'lineNumber')[0]!.severity, 'warning');
  });

  it('rejects unsafe patterns with an error at messagePattern, even with a message', () => {
    for (const p of ['(a+)+$', '(.*a){20}', 'ERRXYZ(?<=a)', 'ERRXYZ a{5000}', '(.+?)', '(.+?) (.+?)', 'ab(c', 'back (ref)\\1 here', 'y'.repeat(501)]) {
      const v = validateRecord({ messagePattern: p, errorMessage: 'some message text' });
      assert.equal(v.record, undefined, p);
      const e = errors(v.issues);
      assert.equal(e.length, 1, p);
      assert.deepEqual(e[0]!.path, ['messagePattern']);
    }
  });

  it('rejects a message whose derived pattern is unsafe, at errorMessage', () => {
    const v = validateRecord({ errorMessage: '{a} {b}' });
    assert.equal(v.record, undefined);
    assert.deepEqual(errors(v.issues)[0]!.path, ['errorMessage']);
  });

  it('repairs lone surrogates with a warning, accepts NUL', () => {
    const v = validateRecord({ errorMessage: 'bad \uD800 surrogate here', documentation: 'nul \u0000 inside', solutions: ['ok', 'lone \uDC00'] });
    assert.equal(v.record!.errorMessage, 'bad \uFFFD surrogate here');
    assert.equal(v.record!.documentation, 'nul \u0000 inside');
    assert.deepEqual(v.record!.solutions, ['ok', 'lone \uFFFD']);
    assert.deepEqual(
      v.issues.map((i) => i.path),
      [['errorMessage'], ['solutions', 1]],
    );
    assert.ok(v.issues.every((i) => i.severity === 'warning'));
    // A valid pair is left alone.
    assert.equal(repairSurrogates('ok \uD83D\uDE00'), undefined);
  });

  it('warns about an unsupported schemaVersion and reads the record as version 2', () => {
    const v = validateRecord({ errorMessage: 'some message text', schemaVersion: 1 });
    assert.equal(v.record!.schemaVersion, 2);
    assert.equal(at(v.issues, 'schemaVersion')[0]!.severity, 'warning');
  });

  it('rejects non-objects', () => {
    for (const raw of [null, 1, 'x', [], [{}]]) assert.equal(validateRecord(raw).record, undefined);
  });
});

describe('validate: helpers', () => {
  it("derives slugs by ErrLookup's rule (matches every bundled record)", () => {
    for (const r of bundled) assert.equal(slugFromMessage(r.errorMessage), r.slug);
    assert.ok(slugFromMessage('a'.repeat(200)).length <= 48);
    assert.equal(slugFromMessage('日本語'), '');
  });

  it('detects anchored patterns (an escaped \\$ is a literal)', () => {
    assert.equal(isAnchored('^abc'), true);
    assert.equal(isAnchored('abc$'), true);
    assert.equal(isAnchored('cost \\$'), false);
    assert.equal(isAnchored('back\\\\$'), true);
    assert.equal(isAnchored('a ^ b'), false);
    const v = validateRecord({ messagePattern: '^Fatal: (.+?) crashed' });
    assert.ok(v.record);
    assert.equal(v.issues[0]!.severity, 'warning');
  });

  it('puts no limit on holes (matching is linear whatever their number); other pattern problems still count', () => {
    assert.equal(messagePatternProblem('x(.+?)'.repeat(40) + 'end'), undefined);
    assert.equal(messagePatternProblem('ERRXYZ ' + '(\\w+) '.repeat(20)), undefined);
    assert.match(messagePatternProblem('ERRXYZ(?=abc)') ?? '', /lookahead/);
    assert.match(messagePatternProblem('abc') ?? '', /literal/);
  });

  it('suggests near field names only', () => {
    assert.equal(suggestField('errormessage'), 'errorMessage');
    assert.equal(suggestField('messagePatern'), 'messagePattern');
    assert.equal(suggestField('completelyDifferent'), undefined);
  });
});
