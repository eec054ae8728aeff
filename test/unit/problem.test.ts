// How a match reads as a problem (core/problem), source reading around raise sites
// (core/sourceContext) and the source-root tag `extract` writes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { extractFromDir } from '../../server/src/core/extract';
import { sourceRootOf, withSourceRoot } from '../../server/src/core/extract/records';
import { problemCode, problemMessage, MAX_PROBLEM_MESSAGE } from '../../server/src/core/problem';
import type { ErrorRecord } from '../../server/src/core/record';
import { enclosingFunction, raiseExcerpt, statementAt } from '../../server/src/core/sourceContext';
import bundled from '../../records/sgl-project/sglang.json';

const seeds = bundled as unknown as ErrorRecord[];

describe('problem: message and code', () => {
  it('the message is the matched text on one line (ANSI colours and controls removed), not the template', () => {
    const r = { errorMessage: 'AssertionError: {name} failed' };
    assert.equal(problemMessage(r, 'test_parse failed'), 'test_parse failed');
    assert.equal(problemMessage(r, '\u001b[31mtest_parse\u001b[0m\n  failed\u0007'), 'test_parse failed');
    assert.equal(problemMessage(r, ''), 'AssertionError: {name} failed', 'no text: the record message');
    const long = problemMessage(r, 'word '.repeat(200));
    assert.ok(long.length <= MAX_PROBLEM_MESSAGE && long.endsWith('…'));
  });

  it('the code: errorCode, else the class (its last part when long), else a short id; never a cut-off slug', () => {
    const base = { id: '0123456789abcdef', errorCode: null, errorClass: null };
    assert.equal(problemCode({ ...base, errorCode: 'ERR_BAD_RESPONSE', errorClass: 'AxiosError' }), 'ERR_BAD_RESPONSE');
    assert.equal(problemCode({ ...base, errorClass: 'json.decoder.JSONDecodeError' }), 'json.decoder.JSONDecodeError');
    assert.equal(problemCode({ ...base, errorClass: 'org.apache.commons.configuration2.ex.ConfigurationRuntimeException' }), 'ConfigurationRuntimeException');
    assert.equal(problemCode(base), '01234567');
    for (const r of seeds) assert.ok(problemCode(r).length <= 40 && !problemCode(r).includes(r.slug));
  });
});

describe('sourceContext', () => {
  it('raiseExcerpt: the raise statement and the line before, a few lines at most', () => {
    const r = seeds[0]!;
    const ex = raiseExcerpt(r)!;
    const lines = ex.text.split('\n');
    assert.ok(lines.length >= 2 && lines.length <= 4, ex.text);
    assert.ok(lines.some((l) => l.includes('raise MMError(')));
    assert.equal(ex.firstLine, r.lineNumber! - 1);
    assert.equal(raiseExcerpt({ ...r, sourceCode: null }), undefined);
    assert.equal(raiseExcerpt({ ...r, lineNumber: 5 }), undefined, 'a raise line outside the window');
  });

  it('enclosingFunction: the def, function or method around the raise; constructors give their class', () => {
    const win = (src: string[], line: number) => ({ sourceCode: src.join('\n'), sourceCodeStart: 1, lineNumber: line });
    assert.equal(enclosingFunction(win(['def find(order_id):', '    if x:', '        raise LookupError("no")'], 3)), 'find');
    assert.equal(enclosingFunction(win(['class Ledger:', '    def __init__(self):', '        raise ValueError("x")'], 3)), 'Ledger');
    assert.equal(enclosingFunction(win(['export async function pay(order) {', '  throw new Error("x");', '}'], 2)), 'pay');
    assert.equal(enclosingFunction(win(['func (s *Store) Get(id string) error {', '\treturn errors.New("x")', '}'], 2)), 'Get');
    assert.equal(enclosingFunction(win(['raise SystemExit("top level")'], 1)), undefined);
    for (const r of seeds) assert.equal(typeof (enclosingFunction(r) ?? ''), 'string');
  });

  it('statementAt: continuation lines, blocks, clauses, strings and comments', () => {
    const py = ['x = f(', '    a,', '    b)', 'if x:', '    y()', 'else:', '    z()', '# note', 's = """a', 'b"""'];
    assert.deepEqual(statementAt(py, 1, 'python'), { start: 0, end: 2 });
    assert.deepEqual(statementAt(py, 3, 'python'), { start: 3, end: 6 }, 'if with its else');
    assert.equal(statementAt(py, 5, 'python'), undefined, 'an else clause alone');
    assert.equal(statementAt(py, 7, 'python'), undefined, 'a comment');
    assert.deepEqual(statementAt(py, 9, 'python'), { start: 8, end: 9 }, 'a triple-quoted string');
    const js = ['const a = 1; // {', 'if (a) {', '  b("}");', '} else {', '  c();', '}', 'd()', '  .then(e);'];
    assert.deepEqual(statementAt(js, 0, 'javascript'), { start: 0, end: 0 }, 'braces in comments do not count');
    assert.deepEqual(statementAt(js, 1, 'javascript'), { start: 1, end: 5 });
    assert.deepEqual(statementAt(js, 2, 'javascript'), { start: 2, end: 2 }, 'braces in strings do not count');
    assert.deepEqual(statementAt(js, 7, 'javascript'), { start: 6, end: 7 });
    assert.equal(statementAt(js, 3, 'javascript'), undefined);
  });

  it('statementAt on this machine\'s Python library: every raise site is inside a whole statement (the raise, or the statement that builds the exception)', function () {
    const lib = '/usr/lib/python3.11';
    if (!fs.existsSync(lib)) this.skip();
    const records = extractFromDir(lib, { repo: 'python/cpython' }).records.filter((r) => /^(json|email|http|asyncio)\//.test(r.filePath!));
    assert.ok(records.length > 100, String(records.length));
    let raises = 0;
    for (const r of records) {
      const lines = fs.readFileSync(`${lib}/${r.filePath}`, 'utf8').split(/\r\n|\r|\n/);
      const s = statementAt(lines, r.lineNumber! - 1, 'python');
      assert.ok(s, `${r.filePath}:${r.lineNumber}`);
      assert.ok(s.start <= r.lineNumber! - 1 && s.end >= r.lineNumber! - 1);
      assert.ok(s.end - s.start < 12, `${r.filePath}:${r.lineNumber}: ${s.start}-${s.end}`);
      const raiseAt = lines.slice(s.start, r.lineNumber!).findIndex((l) => /^\s*raise\b/.test(l));
      if (raiseAt >= 0) {
        assert.equal(raiseAt, 0, `${r.filePath}:${r.lineNumber}: starts at the raise`);
        raises++;
      } else {
        // an exception built in an assignment, a call argument or an exception class's
        // __init__/__str__: a statement of its own (from its first line, the same statement),
        // not the tail of an earlier one
        assert.deepEqual(statementAt(lines, s.start, 'python'), s, `${r.filePath}:${r.lineNumber}`);
        assert.match(lines[s.start]!, /^\s*(?:[\w.]+\s*=|[\w.]+\(|return\b|super\(\))/, `${r.filePath}:${r.lineNumber}`);
      }
    }
    assert.ok(raises > records.length * 0.9, `${raises} of ${records.length} are raise statements`);
  });
});

describe('extract: the source-root tag', () => {
  it('is kebab-case, round-trips the absolute folder and replaces an older tag', () => {
    const r = withSourceRoot(withSourceRoot(seeds[0]!, '/old/place'), '/usr/lib/python3.11');
    const tags = r.tags.filter((t) => t.startsWith('source-root-'));
    assert.equal(tags.length, 1);
    assert.match(tags[0]!, /^[a-z0-9]+(?:-[a-z0-9]+)*$/);
    assert.equal(sourceRootOf(r), '/usr/lib/python3.11');
    assert.equal(sourceRootOf({ tags: ['source-root-zz'] }), undefined);
    assert.equal(sourceRootOf({ tags: ['source-root-' + Buffer.from('relative/dir').toString('hex')] }), undefined, 'only absolute folders');
  });
});
