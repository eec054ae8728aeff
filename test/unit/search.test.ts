import * as assert from 'node:assert/strict';
import type { ErrorRecord } from '../../server/src/core/record';
import { SearchIndex, tokenize } from '../../server/src/core/search';
import bundled from '../../records/sgl-project/sglang.json';

const seeds = bundled as unknown as ErrorRecord[];

const BASE: ErrorRecord = structuredClone(seeds[0]!);
function rec(i: number, over: Partial<ErrorRecord>): ErrorRecord {
  return { ...BASE, id: i.toString(16).padStart(16, '0'), slug: `slug-${i}`, ...over };
}
/** CPU milliseconds of fn (the machine is shared: wall time mostly measures the other processes). */
function cpuMs(fn: () => void): number {
  const t = process.cpuUsage();
  fn();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
}

describe('search', () => {
  it('tokenize: lowercase words, camelCase and snake_case parts', () => {
    assert.deepEqual(tokenize('BadRequestError: req_id=ab, HTTPServer x'), [
      'badrequesterror', 'bad', 'request', 'error', 'req_id', 'req', 'id', 'ab', 'httpserver', 'http', 'server',
    ]);
  });

  describe('SearchIndex', () => {
    const records = [
      ...seeds.map((r) => structuredClone(r)),
      rec(100, { errorCode: 'E0382', errorMessage: 'borrow of moved value: `{name}`', errorClass: null, repo: 'rust-lang/rust', tags: ['borrow-checker'], severity: 'error' }),
      rec(101, { errorCode: 'ECONNREFUSED', errorMessage: 'connect ECONNREFUSED {addr}', errorClass: 'Error', repo: 'nodejs/node', tags: ['network'], severity: 'error' }),
      rec(102, { errorCode: null, errorMessage: 'connection reset by peer', errorClass: 'ConnectionResetError', repo: 'python/cpython', tags: ['network', 'socket'], severity: 'warning' }),
      rec(103, { errorCode: null, errorMessage: 'connection timed out after {n} ms', errorClass: 'TimeoutError', repo: 'encode/httpx', tags: ['network', 'timeout'], severity: 'error' }),
    ];
    const index = new SearchIndex(records);

    it('exact errorCode (any case), id and slug come first with their kind', () => {
      const byCode = index.search('e0382');
      assert.equal(byCode[0]!.kind, 'code');
      assert.equal(byCode[0]!.record.errorCode, 'E0382');
      const byId = index.search('12c38bb1afed0ec1');
      assert.deepEqual([byId[0]!.kind, byId[0]!.record.slug], ['id', 'encode-metadata-not-ready']);
      const bySlug = index.search('encode-metadata-not-ready');
      assert.equal(bySlug[0]!.kind, 'slug');
      assert.equal(bySlug[0]!.record.id, '12c38bb1afed0ec1');
      // deduplicated: the slug record is not repeated as a fuzzy hit
      assert.equal(bySlug.filter((h) => h.record.id === '12c38bb1afed0ec1').length, 1);
    });

    it('pattern matches come after exact hits and before fuzzy ones', () => {
      const patternOf = (text: string) => (text.includes('receive_count') ? [2] : []);
      const hits = index.search('Inconsistent receive_count for req_id=9: registered 1, got 2', 10, patternOf);
      assert.equal(hits[0]!.kind, 'pattern');
      assert.equal(hits[0]!.record.id, 'a5259f8458270c81');
      assert.ok(hits.slice(1).every((h) => h.kind === 'fuzzy'));
      assert.equal(new Set(hits.map((h) => h.record.id)).size, hits.length, 'no duplicates');
      for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1]!.score >= hits[i]!.score, 'scores descend');
    });

    it('fuzzy: rare tokens weigh more than common ones', () => {
      // "network" is on 3 records, "socket" on one: the socket record ranks first
      const hits = index.search('network socket');
      assert.equal(hits[0]!.record.errorClass, 'ConnectionResetError');
      assert.equal(hits[0]!.kind, 'fuzzy');
      assert.ok(hits.length >= 3);
      assert.ok(hits[0]!.score > hits[1]!.score);
    });

    it('fuzzy: the last token matches as a prefix (as-you-type), earlier tokens do not', () => {
      const typing = index.search('connection tim');
      assert.equal(typing[0]!.record.errorClass, 'TimeoutError');
      const done = index.search('connection tim ');
      assert.ok(!done.length || done[0]!.score < typing[0]!.score);
      assert.equal(index.search('staged embed')[0]!.record.id, '063d2eac5107dda5');
      assert.equal(index.search('MMError meta')[0]!.record.id, '12c38bb1afed0ec1');
    });

    it('searches class, tags and repo', () => {
      assert.equal(index.search('BadRequestError')[0]!.record.id, 'a5259f8458270c81');
      assert.equal(index.search('tensor-parallel')[0]!.record.id, 'a5259f8458270c81');
      assert.equal(index.search('cpython')[0]!.record.errorClass, 'ConnectionResetError');
    });

    it('nothing for empty, unknown or limit 0 queries', () => {
      assert.deepEqual(index.search('   '), []);
      assert.deepEqual(index.search('zzzqqq xxyyzz'), []);
      assert.deepEqual(index.search('network', 0), []);
      assert.equal(index.search('network', 2).length, 2);
    });
  });

  it('100k records: index once, then fast queries', function () {
    this.timeout(60000);
    const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda sigma omega request buffer socket token cache shard'.split(' ');
    const records: ErrorRecord[] = [];
    for (let i = 0; i < 100_000; i++) {
      const w = (k: number) => words[(i * 7 + k * 13) % words.length]!;
      records.push(rec(i, { errorMessage: `${w(1)} ${w(2)} failed for item${i} in ${w(3)}`, errorClass: `Err${i % 500}`, tags: [w(4)], repo: `org${i % 1000}/repo${i % 3000}`, errorCode: `C${i}` }));
    }
    const index = new SearchIndex(records);
    const build = cpuMs(() => index.buildIndex());
    const queries = ['alpha failed', 'item4242', 'sigma tok', 'C99999', 'err42 omega', 'failed fo', 'org7 repo7'];
    const per = cpuMs(() => queries.forEach((q) => index.search(q, 20))) / queries.length;
    assert.equal(index.search('item4242')[0]!.record.errorCode, 'C4242');
    assert.equal(index.search('C99999')[0]!.kind, 'code');
    // Generous CPU-time bounds (about 1 s and 30 ms on an idle core); a quadratic design would take hours.
    assert.ok(build < 20000, `build ${build} ms CPU`);
    assert.ok(per < 2000, `query ${per} ms CPU`);
    console.log(`      100k records: index build ${build.toFixed(0)} ms CPU, ${per.toFixed(1)} ms CPU/query`);
  });
});
