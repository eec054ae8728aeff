// errorExplainer.logFiles globs (core/glob.ts): picomatch's answers on the globs users write, in
// linear time where picomatch (a backtracking RegExp) takes minutes (issue 14.2).
import * as assert from 'node:assert/strict';
import picomatch from 'picomatch';
import { compileGlobs, globToRe2 } from '../../server/src/core/glob';
import { DEFAULT_SETTINGS } from '../../server/src/protocol';
import { isLogLike } from '../../server/src/server/state/logKind';

describe('globs (errorExplainer.logFiles)', () => {
  const globs = [
    ...DEFAULT_SETTINGS.logFiles,
    'logs/*.txt',
    '{a,b}/**/c?.log',
    '**/build/**',
    '*.log',
    'a/**',
    'x/**/y',
    '*.{log,txt}',
    '**/{foo,bar{1,2}}.log',
    '\\*.log',
    '[a-c]*.log',
    'é*.log',
    '**/.hidden/*',
    '?.log',
    '**/*a*a*b',
    'logs/**/*.log',
    '**/*.log.[0-9]*',
    '/var/log/**',
  ];
  const paths = [
    '/home/u/x.log', 'x.log', 'a/b/x.log', 'a/.hidden/x.log', '/x.log.1', 'x.log.12.gz', 'x.logx', 'a/x.out', '.log', 'a/b.err/c', 'logs/a.txt',
    'logs/a/b.txt', 'a/c1.log', 'a/x/y/c1.log', 'b/c12.log', 'y.log', 'build', 'a/build', 'q/build/z', 'a', 'x/y', 'x/q/y', 'x/q/r/y', 'z.txt',
    'foo.log', 'bar2.log', 'q/bar1.log', '*.log', 'é1.log', 'b.log', 'aab', 'a/aab', 'logs/x/y.log', 'logs/y.log', '/var/log/syslog', '/var/log/apt/term.log',
    'C:/x/y.log', 'app.err', 'a.out.txt', 'x.log.a',
  ];

  it('answers as picomatch (dot: true) on the globs users write, path by path', () => {
    let compared = 0;
    for (const g of globs) {
      const pm = picomatch(g, { dot: true });
      const ours = compileGlobs([g]);
      for (const p of paths) {
        assert.equal(ours(p), pm(p), `${g} on ${p} (${globToRe2(g)})`);
        compared++;
      }
    }
    assert.equal(compared, globs.length * paths.length);
  });

  it('a list matches when any glob does; a leading ! negates; bad or huge globs match nothing', () => {
    const m = compileGlobs(['**/*.log', '!**/*.txt']);
    assert.equal(m('a/x.log'), true);
    assert.equal(m('a/x.bin'), true); // not a .txt
    assert.equal(compileGlobs(['!**/*.txt'])('a/x.txt'), false);
    assert.equal(compileGlobs([])('x.log'), false);
    assert.equal(compileGlobs(['', 'x'.repeat(2000)])('x.log'), false);
    assert.equal(compileGlobs(['[a-'])('[a-'), true); // an unclosed class is literal
    assert.equal(compileGlobs(['{a,b'])('{a,b'), true);
    assert.equal(compileGlobs(['**/*.LOG'], { nocase: true })('a/x.log'), true);
  });

  it('the issue’s glob **/*a*a*a*a*a*a*a*a*a*b on a 60-character name: milliseconds (picomatch: 0.6 s at 28 characters, growing ~n^9)', () => {
    const m = compileGlobs(['**/*a*a*a*a*a*a*a*a*a*b']);
    const name = '/w/logs/' + 'a'.repeat(60) + 'c';
    m(name);
    const t0 = performance.now();
    for (let i = 0; i < 100; i++) assert.equal(m(name + i), false);
    const ms = (performance.now() - t0) / 100;
    assert.ok(ms < 5, `${ms} ms per match`);
    assert.equal(m('/w/' + 'a'.repeat(60) + 'b'), true);
    // through the server's log detection too
    const t1 = performance.now();
    assert.equal(isLogLike('file:///w/' + 'a'.repeat(60) + 'c', 'plaintext', ['**/*a*a*a*a*a*a*a*a*a*b'], ['/w']), false);
    assert.ok(performance.now() - t1 < 200);
  });
});
