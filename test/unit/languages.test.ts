import * as assert from 'node:assert/strict';
import { commentLine, fenceLanguage, languageById, languageForPath } from '../../server/src/core/languages';

describe('languages', () => {
  const cases: [string, string][] = [
    ['python/sglang/srt/disaggregation/encoder/runtime.py', 'python'],
    ['src/a.ts', 'typescript'],
    ['src/App.TSX', 'typescriptreact'],
    ['lib/x.mjs', 'javascript'],
    ['cmd/main.go', 'go'],
    ['src/Main.java', 'java'],
    ['src/lib.rs', 'rust'],
    ['Program.cs', 'csharp'],
    ['app/models/user.rb', 'ruby'],
    ['index.php', 'php'],
    ['Main.kt', 'kotlin'],
    ['App.swift', 'swift'],
    ['x.c', 'c'],
    ['kernel.cu', 'cpp'],
    ['a/b.hpp', 'cpp'],
    ['scripts/run.sh', 'shellscript'],
    ['C:\\repo\\tool.ps1', 'powershell'],
    ['Dockerfile', 'dockerfile'],
    ['path/Makefile', 'makefile'],
  ];
  for (const [p, id] of cases) {
    it(`${p} -> ${id}`, () => assert.equal(languageForPath(p)?.id, id));
  }

  it('unknown, empty and null paths give undefined', () => {
    assert.equal(languageForPath(null), undefined);
    assert.equal(languageForPath(''), undefined);
    assert.equal(languageForPath('README'), undefined);
    assert.equal(languageForPath('a.unknownext'), undefined);
    assert.equal(fenceLanguage('a.unknownext'), '');
    assert.equal(fenceLanguage('a.py'), 'python');
  });

  it('comment syntax', () => {
    assert.deepEqual(languageForPath('a.py'), { id: 'python', lineComment: '#' });
    assert.deepEqual(languageForPath('a.go'), { id: 'go', lineComment: '//', blockComment: ['/*', '*/'] });
    assert.equal(languageById('html')?.lineComment, undefined);
    assert.deepEqual(languageById('html')?.blockComment, ['<!--', '-->']);
  });

  it('languageById knows VS Code ids and common aliases', () => {
    for (const id of ['python', 'typescript', 'typescriptreact', 'javascript', 'go', 'java', 'rust', 'csharp', 'ruby', 'php', 'kotlin', 'swift', 'c', 'cpp', 'shellscript']) {
      assert.equal(languageById(id)?.id, id);
    }
    assert.equal(languageById('golang')?.id, 'go');
    assert.equal(languageById('bash')?.id, 'shellscript');
    assert.equal(languageById('cuda-cpp')?.id, 'cpp');
    assert.equal(languageById('plaintext'), undefined);
  });

  it('returns copies (callers cannot corrupt the table)', () => {
    const a = languageById('go')!;
    a.blockComment![0] = 'X';
    assert.equal(languageById('go')!.blockComment![0], '/*');
  });

  it('commentLine', () => {
    assert.equal(commentLine({ id: 'python', lineComment: '#' }, 'a\nb'), '# a b');
    assert.equal(commentLine({ id: 'html', blockComment: ['<!--', '-->'] }, 'x --> y'), '<!-- x - - > y -->');
    assert.equal(commentLine({ id: 'x' }, 'x'), undefined);
  });
});
