import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  HOLE,
  captureNames,
  derivePattern,
  literalLength,
  parseSimplePattern,
  patternInfo,
  patternProblem,
  placeholderNames,
} from '../../server/src/core/pattern';

interface SeedRecord {
  id: string;
  errorMessage: string;
  messagePattern: string;
}
const seeds: SeedRecord[] = JSON.parse(fs.readFileSync(path.join(__dirname, '../../records/sgl-project/sglang.json'), 'utf8'));

describe('pattern: derivePattern', () => {
  it('derives the seed example exactly', () => {
    assert.equal(
      derivePattern('Inconsistent receive_count for req_id={req_id}: registered {registered_count}, got {expected_destination_count}'),
      'Inconsistent receive_count for req_id=(.+?): registered (.+?), got (.+?)',
    );
  });

  it('reproduces the messagePattern of every bundled seed record', () => {
    assert.ok(seeds.length >= 3);
    for (const r of seeds) assert.equal(derivePattern(r.errorMessage), r.messagePattern, r.id);
  });

  it('escapes exactly . * + ? ^ $ { } ( ) | [ ] \\ and nothing else', () => {
    assert.equal(derivePattern('a.b*c+d?e^f$g(h)i|j[k]l\\m'), 'a\\.b\\*c\\+d\\?e\\^f\\$g\\(h\\)i\\|j\\[k\\]l\\\\m');
    assert.equal(derivePattern('path/to-file: "x" #1 @ ~ & = , ; \' < > !'), 'path/to-file: "x" #1 @ ~ & = , ; \' < > !');
    // an unclosed brace is literal text, escaped
    assert.equal(derivePattern('open { never closed'), 'open \\{ never closed');
    assert.equal(derivePattern('stray } brace'), 'stray \\} brace');
  });

  it('turns every placeholder kind into (.+?), left to right', () => {
    assert.equal(derivePattern('a {x} b ${y} c %s d %d e %r f %(name)s g %5.2f h %-10s i %lu j %v'), `a ${HOLE} b ${HOLE} c ${HOLE} d ${HOLE} e ${HOLE} f ${HOLE} g ${HOLE} h ${HOLE} i ${HOLE} j ${HOLE}`);
    assert.equal(derivePattern('{len(hashes)} hashes, expected {d["k"]}'), `${HOLE} hashes, expected ${HOLE}`);
    assert.equal(derivePattern('nested {a[{b}]} end'), `nested ${HOLE} end`);
    assert.equal(derivePattern('{}{}'), HOLE + HOLE);
  });

  it('treats format escapes as the literal characters they print', () => {
    assert.equal(derivePattern('100%% done in {t}s'), `100% done in ${HOLE}s`);
    assert.equal(derivePattern('dict {{a}} = {a}'), `dict \\{a\\} = ${HOLE}`);
  });

  it('compiled derived patterns match the text the message prints', () => {
    const re = new RegExp(derivePattern('Cannot read file (path={p}) [mode=%s] cost $%d.'));
    assert.ok(re.test('Cannot read file (path=/etc/x) [mode=rw] cost $42.'));
    assert.ok(!re.test('Cannot read file path=/etc/x [mode=rw] cost $42.'));
  });
});

describe('pattern: placeholderNames / captureNames', () => {
  it('names captures after their placeholders', () => {
    assert.deepEqual(placeholderNames('req_id={req_id} got {len(hashes)} via ${host} as %(user)s'), ['req_id', 'len(hashes)', 'host', 'user']);
  });

  it('strips f-string conversions, format specs and the debug =', () => {
    assert.deepEqual(placeholderNames('{value!r} {ratio:.2f} {x=} {a[1:2]}'), ['value', 'ratio', 'x', 'a[1:2]']);
  });

  it('names unnamed placeholders by position', () => {
    assert.deepEqual(placeholderNames('%s failed for %(host)s after {} tries ({0})'), ['1', 'host', '3', '4']);
  });

  it('uses placeholder names when their count equals the groups, positional otherwise', () => {
    const seed = seeds.find((r) => r.messagePattern.includes('registered'))!;
    assert.deepEqual(captureNames(seed.errorMessage, seed.messagePattern), ['req_id', 'registered_count', 'expected_destination_count']);
    assert.deepEqual(captureNames('a {x} b {y}', 'a (.+?) b'), ['1']);
    assert.deepEqual(captureNames('no placeholders', 'x (\\d+) y (\\w+)'), ['1', '2']);
    assert.deepEqual(captureNames('whatever', 'took (?<ms>\\d+)ms in (.+?)$'), ['ms', '2']);
    assert.deepEqual(captureNames('encode metadata not ready', 'encode metadata not ready'), []);
  });
});

describe('pattern: patternProblem', () => {
  it('accepts the seed patterns', () => {
    for (const r of seeds) assert.equal(patternProblem(r.messagePattern), undefined, r.id);
  });

  it('rejects patterns over 500 characters', () => {
    const p = 'x'.repeat(501);
    assert.match(patternProblem(p) ?? '', /longer than 500/);
    assert.equal(patternProblem('x'.repeat(500)), undefined);
  });

  it('rejects what a linear-time engine cannot run, saying what and where', () => {
    assert.match(patternProblem('(abcdef)\\1') ?? '', /backreference \(\\1 at character 9\)/);
    assert.match(patternProblem('(?<w>abcdef) \\k<w>') ?? '', /backreference \(\\k<w> at character 14\)/);
    assert.match(patternProblem('ERRXYZ(?=abc)') ?? '', /lookahead \(\(\?= at character 7\)/);
    assert.match(patternProblem('ERRXYZ(?!abc)') ?? '', /lookahead \(\(\?! at character 7\)/);
    assert.match(patternProblem('x(?<=abc)ERRXYZ') ?? '', /lookbehind \(\(\?<= at character 2\)/);
    assert.match(patternProblem('ERRXYZ(?<!abc)') ?? '', /lookbehind/);
    assert.match(patternProblem('ERRXYZ a{1001}') ?? '', /repeat count.*at most 1000/);
    assert.match(patternProblem('ERRXYZ (?:a{100}){100}') ?? '', /repeat count/); // nested: 10,000 copies
    assert.equal(patternProblem('ERRXYZ a{200}'), undefined);
    // the NFA's threads come from repetitions and carry the captures: their cost is bounded
    assert.match(patternProblem('ERRXYZ(?:.*a){300}zzzz') ?? '', /repeats too much .* 600 characters or classes inside repetitions with 0 capture groups \(cost 600, at most 250\)/);
    assert.match(patternProblem('ERRXYZ' + '(.*)'.repeat(9) + '(?:.*a){90}zzzz') ?? '', /cost 756/);
    assert.equal(patternProblem('ERRXYZ' + '(\\S+) '.repeat(20)), undefined);
    assert.match(patternProblem('ERRXYZ (?:[a-z]{250}x){4}') ?? '', /too large for the linear-time engine \(\d+ instructions, at most 1000\)/);
    assert.match(patternProblem('ERRXYZ [😀] x') ?? '', /halves of surrogate pairs/);
    assert.match(patternProblem('ERRXYZ \\ud83d\\d x') ?? '', /half of a surrogate pair/);
    assert.equal(patternProblem('ERRXYZ \\ud83d x'), undefined); // a simple pattern: matched unit by unit, as RegExp does
    // JavaScript repeats only the low half of 😀+; RE2 sees one character: refused, with the fix
    assert.match(patternProblem('ERRXYZ 😀+ x') ?? '', /second half .* \(\?:😀\)\+/);
    assert.equal(patternProblem('ERRXYZ (?:😀)+ x'), undefined);
  });

  it('accepts the shapes that backtrack in RegExp (the engine is linear; see linear-regex.test.ts for their timing)', () => {
    for (const p of ['ERRXYZ(a|a)*b', '(a+)+ suffix text', '(.*a){20} suffix text', 'prefix ((ab)*c)* text', 'prefix (?:x+y)+ text', 'a (.+?) x (.+?) y (.+?) z\\d', '(.+?) failed: (.+?) code (\\d+)', 'prefix (a+)? text'])
      assert.equal(patternProblem(p), undefined, p);
  });

  it('rejects patterns that do not compile', () => {
    assert.match(patternProblem('unclosed (group text') ?? '', /does not compile/);
    assert.match(patternProblem('bad [class text') ?? '', /does not compile/);
  });

  it('rejects patterns with fewer than 6 literal characters outside holes', () => {
    assert.match(patternProblem('(.+?): (.+?)') ?? '', /only 2 literal characters/);
    assert.match(patternProblem('error') ?? '', /only 5 literal/);
    assert.equal(patternProblem('errors'), undefined);
    assert.match(patternProblem('\\d+\\s+\\w+x') ?? '', /only 1 literal character /);
    assert.match(patternProblem('abcdefgh|xy') ?? '', /only 2 literal/); // every branch must be specific
  });
});

describe('pattern: parseSimplePattern', () => {
  it('splits literals and holes', () => {
    assert.deepEqual(parseSimplePattern('Inconsistent receive_count for req_id=(.+?): registered (.+?), got (.+?)'), {
      literals: ['Inconsistent receive_count for req_id=', ': registered ', ', got '],
      leadingHole: false,
      trailingHole: true,
    });
    assert.deepEqual(parseSimplePattern('(.+?) not found in (.+?) index'), { literals: [' not found in ', ' index'], leadingHole: true, trailingHole: false });
    assert.deepEqual(parseSimplePattern('no staged embedding for /send req_id=(.+?) \\(already released\\)'), {
      literals: ['no staged embedding for /send req_id=', ' (already released)'],
      leadingHole: false,
      trailingHole: false,
    });
    assert.deepEqual(parseSimplePattern('plain text'), { literals: ['plain text'], leadingHole: false, trailingHole: false });
  });

  it('keeps adjacent holes apart with an empty literal', () => {
    assert.deepEqual(parseSimplePattern('a(.+?)(.+?)b'), { literals: ['a', '', 'b'], leadingHole: false, trailingHole: false });
    assert.deepEqual(parseSimplePattern('(.+?)(.+?)abc'), { literals: ['', 'abc'], leadingHole: true, trailingHole: false });
  });

  it('decodes literal escapes', () => {
    assert.deepEqual(parseSimplePattern('tab\\there \\/ \\x41\\u00e9 \\.'), { literals: ['tab\there / A\u00e9 .'], leadingHole: false, trailingHole: false });
  });

  it('returns undefined for anything a real regex is needed for', () => {
    for (const p of ['a\\d+b', 'a.b', 'a(.*?)b', 'a(.+)b', '^abc', 'abc$', 'a|b', 'a[bc]', 'a(?:b)', '\\bword', '(.+?)', 'a\\1'])
      assert.equal(parseSimplePattern(p), undefined, p);
  });
});

describe('pattern: patternInfo / literalLength', () => {
  it('counts literal characters outside holes', () => {
    const seed = seeds.find((r) => r.messagePattern.includes('registered'))!;
    assert.equal(literalLength(seed.messagePattern), 'Inconsistent receive_count for req_id='.length + ': registered '.length + ', got '.length);
    assert.equal(literalLength('took (\\d+)ms in \\w+ total'), 'took '.length + 'ms in '.length + ' total'.length);
  });

  it('lists required literals of a regex in order', () => {
    assert.deepEqual(patternInfo('took (\\d+)ms in \\w+ total')?.requiredLiterals, ['took ', 'ms in ', ' total']);
    assert.deepEqual(patternInfo('error x?yz')?.requiredLiterals, ['error ', 'yz']);
    assert.deepEqual(patternInfo('abcdef|ghijkl')?.requiredLiterals, []);
    assert.equal(patternInfo('(unclosed'), undefined);
  });
});
