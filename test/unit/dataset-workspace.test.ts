// Workspace dependencies -> dataset repositories, repository selection, and the streaming index reader.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RowScanner } from '../../server/src/core/dataset/rowScanner';
import { parseSelection } from '../../server/src/core/dataset/select';
import { parseRepos, toIndexRow, type RepoEntry } from '../../server/src/core/dataset/types';
import {
  parseCargoToml,
  parseCsproj,
  parseGoMod,
  parsePomXml,
  parsePyproject,
  parseRequirements,
  scanWorkspaceDependencies,
  suggestionMessage,
  suggestRepositories,
} from '../../server/src/core/dataset/workspace';
import { FIXTURE_DATASET } from '../shared/datasetServer';

const WS = path.join(FIXTURE_DATASET, 'workspace');
const repos = (): RepoEntry[] => parseRepos(fs.readFileSync(path.join(FIXTURE_DATASET, 'current', 'data', 'repos.json'), 'utf8'));

describe('dataset: workspace dependency suggestions', () => {
  it('reads every manifest kind and skips node_modules', () => {
    const deps = scanWorkspaceDependencies(WS);
    const names = (file: string): string[] => deps.filter((d) => d.file === file).map((d) => d.name);
    assert.deepEqual(names('api/package.json'), ['axios', 'express', 'pg']);
    assert.deepEqual(names('package.json'), ['@types/node', 'left-pad']);
    assert.deepEqual(names('cli/go.mod'), ['github.com/spf13/cobra', 'github.com/inconshreveable/mousetrap', 'gopkg.in/yaml.v3']);
    assert.deepEqual(names('native/Cargo.toml'), ['anyhow', 'serde_json', 'serde', 'proptest']);
    assert.deepEqual(names('jvm/pom.xml'), ['com.fasterxml.jackson.core:jackson-databind']);
    assert.deepEqual(names('dotnet/Shop.csproj'), ['Newtonsoft.Json', 'Serilog']);
    assert.deepEqual(names('ml/pyproject.toml'), ['requests', 'PyYAML', 'matplotlib', 'httpx']);
    assert.deepEqual(names('ml/requirements.txt'), ['numpy'], 'requests already came from pyproject.toml');
    assert.deepEqual(names('ml/requirements-dev.txt'), ['pytest']);
    assert.ok(!deps.some((d) => d.name === 'should-not-be-read'));
  });

  it('parsers handle the awkward forms', () => {
    assert.deepEqual(parseRequirements('requests[socks]>=2 ; python_version>"3"\n-e .\ngit+https://x/y.git\n  # c\nDjango==5'), ['requests', 'Django']);
    assert.deepEqual(parsePyproject('[project]\ndependencies = ["a>=1", \'b\']\n[tool.poetry.group.dev.dependencies]\nc = "1"\npython = "3"\n'), ['a', 'b', 'c']);
    assert.deepEqual(parseCargoToml('[dependencies]\nx = "1"\nmy-y = { package = "y", version = "2" }\n[target.\'cfg(unix)\'.dependencies]\nz = "1"\n'), ['x', 'y', 'z']);
    assert.deepEqual(parseGoMod('module m\nrequire (\n\ta/b v1 // x\n)\nrequire c/d v2\n'), ['a/b', 'c/d']);
    assert.deepEqual(parsePomXml('<dependency><artifactId>solo</artifactId></dependency>'), ['solo']);
    assert.deepEqual(parseCsproj('<PackageReference Update="A.B" Version="1"/>'), ['A.B']);
  });

  it('maps dependencies to repositories by name and language, with the reason shown', () => {
    const { suggestions, unmatched } = suggestRepositories(scanWorkspaceDependencies(WS), repos());
    const map = Object.fromEntries(suggestions.map((s) => [s.dependency, `${s.repo} (${s.reason})`]));
    assert.deepEqual(map, {
      axios: 'axios/axios (same name, JavaScript)',
      express: 'expressjs/express (same name, JavaScript)',
      pg: 'brianc/node-postgres (known package → repository)',
      'github.com/spf13/cobra': 'spf13/cobra (module path github.com/spf13/cobra)',
      'Newtonsoft.Json': 'JamesNK/Newtonsoft.Json (same name, C#)',
      'com.fasterxml.jackson.core:jackson-databind': 'FasterXML/jackson-databind (same name, Java)',
      requests: 'psf/requests (same name, Python)',
      serde: 'serde-rs/serde (same name, Rust)',
    });
    assert.ok(unmatched.some((d) => d.name === 'serde_json'));
    assert.ok(!suggestions.some((s) => s.repo === 'rubyist/requests'), 'a Ruby repository is not suggested for a Python package');
  });

  it('says it in one sentence', () => {
    const r = repos();
    const only = (names: string[]) => suggestRepositories(scanWorkspaceDependencies(WS).filter((d) => names.includes(d.name)), r).suggestions;
    assert.equal(suggestionMessage(only(['axios', 'express', 'pg'])), 'axios, express and pg have 4 explained errors — use them?');
    assert.equal(suggestionMessage(only(['express'])), 'express has 1 explained error — use it?');
    assert.equal(suggestionMessage(only(['left-pad'])), undefined);
    assert.match(suggestionMessage(suggestRepositories(scanWorkspaceDependencies(WS), r).suggestions)!, /^axios, express, pg and 5 more have 9 explained errors/);
  });
});

describe('dataset: repository selection', () => {
  it('[] none, ["*"] all, exact names and owner/* (case-insensitive)', () => {
    assert.equal(parseSelection([]).has('a/b'), false);
    assert.equal(parseSelection(['*']).has('a/b'), true);
    const s = parseSelection('axios/axios, PSF/*');
    assert.equal(s.has('Axios/Axios'), true);
    assert.equal(s.has('psf/requests'), true);
    assert.equal(s.has('psfx/requests'), false);
    assert.deepEqual(s.unknown(['axios/axios']), ['psf/*']);
  });
});

describe('dataset: index rows from the network are checked', () => {
  it('refuses rows without what matching needs and repository names that are paths', () => {
    const ok = { id: 'a', repo: 'o/n', slug: 's', code: null, msg: 'm', pattern: 'm', type: 'exception', class: 'E', tags: ['x', 3], sev: 'error' };
    assert.deepEqual(toIndexRow(ok), { id: 'a', repo: 'o/n', slug: 's', code: null, msg: 'm', pattern: 'm', type: 'exception', cls: 'E', tags: ['x'], sev: 'error' });
    for (const repo of ['../x', 'o/..', 'o/n/m', 'o', '']) assert.equal(toIndexRow({ ...ok, repo }), undefined, repo);
    assert.equal(toIndexRow({ ...ok, pattern: '' }), undefined);
    assert.equal(toIndexRow({ ...ok, msg: 5 }), undefined);
    assert.equal(toIndexRow([ok]), undefined);
  });
});

describe('dataset: streaming index reader', () => {
  it('yields the same rows whatever the chunking, nested values and escapes included', () => {
    const rows = [
      { id: 'a', repo: 'o/n', msg: 'brace } and bracket ] in "quotes" \\ é 😀', pattern: 'x', tags: ['t{'], nested: { k: [1, { z: '}' }] } },
      { id: 'b', repo: 'o/n', msg: '', pattern: 'y', tags: [] },
    ];
    const text = JSON.stringify({ schemaVersion: 2, datasetVersion: 'v"1', errors: rows, after: { x: [1] } }, null, 1);
    const bytes = Buffer.from(text, 'utf8');
    for (const size of [1, 2, 3, 7, 64, bytes.length]) {
      const got: string[] = [];
      const sc = new RowScanner((j) => got.push(j));
      for (let i = 0; i < bytes.length; i += size) sc.push(bytes.subarray(i, i + size));
      const root = sc.end();
      assert.deepEqual(got.map((g) => JSON.parse(g)), rows, `chunk size ${size}`);
      assert.equal(root.datasetVersion, 'v"1');
      assert.deepEqual(root.errors, []);
      assert.deepEqual(root.after, { x: [1] });
    }
  });

  it('accepts a bare array of rows and rejects truncated JSON', () => {
    const got: string[] = [];
    const sc = new RowScanner((j) => got.push(j));
    sc.push(Buffer.from('[{"id":"a"},{"id":"b"}]'));
    sc.end();
    assert.equal(got.length, 2);
    const cut = new RowScanner(() => undefined);
    cut.push(Buffer.from('{"errors":[{"id":"a"},{"id":'));
    assert.throws(() => cut.end(), /ends in the middle/);
  });
});
