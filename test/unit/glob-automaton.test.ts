// core/glob.ts runs globToRe2's expression with its own automaton (no regex library, so the client
// carries none). Checked against RE2 (re2js, which the server's pattern engine uses) on random
// globs and paths: the same answer for every pair, with and without nocase.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { compileGlobs, globToRe2 } from '../../server/src/core/glob';

const SEED = Number(process.env.FUZZ_SEED ?? 42);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

const globChars = fc.constantFrom('a', 'b', 'B', '/', '*', '*', '?', '[', ']', '!', '^', '-', '{', '}', ',', '.', '\\', 'é', 'É', '😀', '$', '(', ')', '|', '+', '@');
const pathChars = fc.constantFrom('a', 'b', 'A', 'B', '/', '.', '-', ',', '{', '}', 'é', 'É', '😀', '$', '\n', '!', '*');
const glob = fc.array(globChars, { maxLength: 14 }).map((cs) => cs.join(''));
const path = fc.array(pathChars, { maxLength: 16 }).map((cs) => cs.join(''));

function re2(g: string, nocase: boolean): ((p: string) => boolean) | undefined {
  try {
    const re = RE2JS.compile(globToRe2(g), nocase ? RE2JS.CASE_INSENSITIVE : 0);
    return (p) => re.testExact(p);
  } catch {
    return undefined;
  }
}

describe('globs: the automaton answers as RE2 on the same expression', () => {
  for (const nocase of [false, true]) {
    it(`random globs and paths${nocase ? ' (nocase)' : ''}`, function () {
      this.timeout(Math.max(2000, RUNS * 5));
      fc.assert(
        fc.property(glob, fc.array(path, { minLength: 1, maxLength: 8 }), (g, paths) => {
          if (g === '' || (g.startsWith('!') && !g.startsWith('!('))) return; // lists and negation: compileGlobs' own tests
          const want = re2(g, nocase);
          const ours = compileGlobs([g], { nocase });
          // paths shaped by the glob too, so that matches are common: the glob itself, its wildcards filled
          const shaped = [g, g.replace(/\*+/g, 'a/b').replace(/\?/g, 'é'), g.replace(/\*+/g, '').replace(/[?[\]{}!\\]/g, '')];
          for (const p of [...paths, ...shaped]) assert.equal(ours(p), want ? want(p) : false, `${JSON.stringify(g)} on ${JSON.stringify(p)} (${globToRe2(g)})`);
        }),
        { seed: SEED, numRuns: RUNS },
      );
    });
  }
});
