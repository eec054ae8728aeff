import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Catalog, splitLines } from '../../server/src/core/catalog';
import type { ErrorRecord } from '../../server/src/core/record';
import bundled from '../../records/sgl-project/sglang.json';

const seeds = bundled as unknown as ErrorRecord[];
const SENT = '063d2eac5107dda5';
const META = '12c38bb1afed0ec1';
const COUNT = 'a5259f8458270c81';

function withCode(): ErrorRecord[] {
  const extra: ErrorRecord = {
    ...structuredClone(seeds[0]!),
    id: 'ffff000000000001',
    slug: 'cuda-oom',
    errorCode: 'E_OOM',
    errorMessage: 'CUDA out of memory. Tried to allocate {size}',
    messagePattern: 'CUDA out of memory\\. Tried to allocate (.+?)',
    errorClass: 'OutOfMemoryError',
  };
  return [...seeds.map((r) => structuredClone(r)), extra];
}

describe('catalog', () => {
  const catalog = new Catalog(withCode());

  it('get by id, slug or errorCode', () => {
    assert.equal(catalog.get(SENT)?.id, SENT);
    assert.equal(catalog.get('encode-metadata-not-ready')?.id, META);
    assert.equal(catalog.get('E_OOM')?.slug, 'cuda-oom');
    assert.equal(catalog.get('nope'), undefined);
  });

  it('builds the engine once, lazily', () => {
    const c = new Catalog(withCode());
    assert.equal((c as unknown as { engineCache: unknown }).engineCache, undefined);
    c.get(SENT);
    assert.equal((c as unknown as { engineCache: unknown }).engineCache, undefined);
    const e = c.engine;
    c.matchLine('encode metadata not ready');
    assert.equal(c.engine, e);
    assert.equal(e.size, 4);
  });

  it('matchLine: record, span in the original line, named captures', () => {
    const line = '[2026-08-28 05:10:38] ERROR: Inconsistent receive_count for req_id=req-5f2e: registered 2, got 10';
    const [m, ...rest] = catalog.matchLine(line);
    assert.equal(rest.length, 0);
    assert.equal(m!.record.id, COUNT);
    const start = line.indexOf('Inconsistent');
    assert.deepEqual([m!.match.start, m!.match.end], [start, line.length]);
    assert.equal(m!.match.text, line.slice(start));
    assert.deepEqual(
      m!.match.captures.map((c) => [c.name, c.value, c.start]),
      [
        ['req_id', 'req-5f2e', line.indexOf('req-5f2e')],
        ['registered_count', '2', line.indexOf('2, got')],
        ['expected_destination_count', '10', line.lastIndexOf('10')],
      ],
    );
    assert.deepEqual(catalog.matchLine('all good here'), []);
  });

  it('explainText splits CRLF, LF and lone CR; 0-based lines; only lines with matches', () => {
    const text = 'ok\r\nencode metadata not ready\rprogress 10%\nCUDA out of memory. Tried to allocate 2.00 GiB\r\n';
    const got = catalog.explainText(text);
    assert.deepEqual(
      got.map((g) => [g.line, g.matches.map((m) => m.record.slug)]),
      [
        [1, ['encode-metadata-not-ready']],
        [3, ['cuda-oom']],
      ],
    );
    assert.equal(got[1]!.matches[0]!.match.captures[0]!.value, '2.00 GiB');
    assert.deepEqual(splitLines('a\r\nb\rc\nd'), ['a', 'b', 'c', 'd']);
  });

  it('explainText over the sample log finds all three bundled records (ANSI, JSON, CRLF lines)', () => {
    const text = readFileSync(path.join(__dirname, '../fixtures/logs/sample.log'), 'utf8');
    const c = new Catalog(seeds.map((r) => structuredClone(r)));
    const found = c.explainText(text).flatMap((l) => l.matches.map((m) => m.record.id));
    assert.deepEqual(new Set(found), new Set([SENT, META, COUNT]));
    const lines = splitLines(text);
    const ansi = lines.findIndex((l) => l.includes('\u001b[31mMMError: encode metadata not ready'));
    const json = lines.findIndex((l) => l.startsWith('{') && l.includes('Inconsistent'));
    const crlf = lines.findIndex((l) => l.includes('req-5f2e'));
    for (const i of [ansi, json, crlf]) assert.ok(c.explainText(text).some((l) => l.line === i), `line ${i} matched`);
    // JSON: the trailing capture stops at the closing quote of the string value
    const j = c.matchLine(lines[json]!)[0]!;
    assert.equal(j.match.captures[2]!.value, '4');
    assert.equal(j.match.text, 'Inconsistent receive_count for req_id=req-6a01: registered 2, got 4');
  });

  it('records with unsafe patterns are rejected with a reason and never match; the rest still do', () => {
    const bad: ErrorRecord = { ...structuredClone(seeds[0]!), id: 'bad0000000000001', slug: 'redos', messagePattern: '(a+)+$', errorMessage: 'x' };
    const c = new Catalog([bad, ...seeds.map((r) => structuredClone(r))]);
    assert.deepEqual(c.rejected.map((r) => r.record.id), ['bad0000000000001']);
    assert.ok(c.rejected[0]!.reason.length > 0);
    assert.deepEqual(c.matchLine('aaaaaaaaaaaaaaaaaaaaaaaaaaaa!'), []);
    assert.equal(c.matchLine('encode metadata not ready')[0]!.record.id, META);
    assert.equal(c.get('redos')?.id, 'bad0000000000001', 'still listed and searchable');
  });

  it('search: exact, then pattern, then fuzzy', () => {
    assert.deepEqual(
      catalog.search('E_OOM', 1).map((h) => [h.kind, h.record.slug]),
      [['code', 'cuda-oom']],
    );
    const p = catalog.search('worker said: no staged embedding for /send req_id=77 (already released)');
    assert.equal(p[0]!.kind, 'pattern');
    assert.equal(p[0]!.record.id, SENT);
    const f = catalog.search('receive cou');
    assert.equal(f[0]!.kind, 'fuzzy');
    assert.equal(f[0]!.record.id, COUNT);
  });
});
