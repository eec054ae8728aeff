// The dataset as a background-built catalog: compact rows read back from the prepared form,
// MatchEngine shards built in separate event-loop turns, and the CompositeCatalog that puts the
// user's records first (they answer before and during the build).
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Catalog, CompositeCatalog } from '../../server/src/core/catalog';
import { DatasetCatalog } from '../../server/src/core/dataset/datasetCatalog';
import { isLiteRecord } from '../../server/src/core/dataset/lite';
import { readHead } from '../../server/src/core/dataset/prepared';
import { rowRanges } from '../../server/src/core/dataset/rows';
import { DatasetService } from '../../server/src/core/dataset/service';
import { DatasetStore } from '../../server/src/core/dataset/store';
import { derivePattern } from '../../server/src/core/pattern';
import type { ErrorRecord } from '../../server/src/core/record';
import { DatasetCatalogs } from '../../server/src/server/state/datasetCatalogs';
import { DEFAULT_SETTINGS } from '../../server/src/protocol';
import { waitFor } from '../shared/poll';
import { tempDir } from '../shared/paths';
import type { IndexRow } from '../../server/src/core/dataset/types';

const ROWS = 2400;
const REPOS = ['acme/alpha', 'acme/beta', 'other/gamma', 'other/delta'];

type Row = IndexRow;

function rowOf(i: number): Row {
  const msg = `Widget ${i} failed: cannot reach {host} for job_${i.toString(36)}_zq ("quoted [brackets]" ok)`;
  return {
    id: i === 13 ? 'Not-Hex-Id-13' : i.toString(16).padStart(16, '0'), // ids are usually 16 hex digits, not always
    repo: REPOS[Math.floor((i * REPOS.length) / ROWS)]!,
    slug: `widget-${i}-failed`,
    code: i % 10 === 0 ? `WX${i}` : null,
    msg,
    pattern: derivePattern(msg),
    type: 'exception',
    cls: i % 2 ? 'ValueError' : null,
    tags: i % 3 ? ['network'] : ['network', 'io'],
    sev: i % 7 === 0 ? 'warning' : 'error',
  };
}
const lineFor = (i: number): string => `2026-01-01 ERROR worker: Widget ${i} failed: cannot reach db-${i}.internal for job_${i.toString(36)}_zq ("quoted [brackets]" ok)`;

function userRecord(id: string, msg: string): ErrorRecord {
  return {
    id, repo: 'me/app', slug: 'user-' + id, errorCode: null, errorMessage: msg, messagePattern: derivePattern(msg), errorType: 'exception',
    errorClass: null, httpStatus: null, severity: 'error', filePath: null, lineNumber: null, sourceCode: null, sourceCodeStart: null,
    sourceCodeEnd: null, githubUrl: null, documentation: 'user docs', triggerScenarios: null, commonSituations: null, solutions: [],
    exampleFix: null, handlingStrategy: null, validationCode: null, typeGuard: null, tryCatchPattern: null, preventionTips: [], tags: [],
    backgroundTag: null, analyzedSha: null, analyzedAt: null, schemaVersion: 2,
  };
}

describe('dataset: background-built catalog (compact rows, shards, composite)', function () {
  this.timeout(60_000);
  let tmp: string;
  let cacheDir: string;
  let url: string;

  before(async () => {
    tmp = tempDir('dataset-cat');
    const data = path.join(tmp, 'site', 'data');
    fs.mkdirSync(data, { recursive: true });
    const rows = Array.from({ length: ROWS }, (_, i) => rowOf(i));
    const index = JSON.stringify({ schemaVersion: 2, datasetVersion: 'v1', errors: rows });
    const repos = JSON.stringify(REPOS.map((repo) => ({ repo, description: null, language: 'Python', stars: 1, errorCount: rows.filter((r) => r.repo === repo).length })));
    fs.writeFileSync(path.join(data, 'index.json'), index);
    fs.writeFileSync(path.join(data, 'repos.json'), repos);
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    fs.writeFileSync(
      path.join(data, 'manifest.json'),
      JSON.stringify({
        schemaVersion: 2, datasetVersion: 'v1', counts: { repos: REPOS.length, errors: ROWS },
        files: { index: { path: '/data/index.json', bytes: Buffer.byteLength(index), sha256: sha(index) }, repos: { path: '/data/repos.json', bytes: Buffer.byteLength(repos), sha256: sha(repos) } },
      }),
    );
    cacheDir = path.join(tmp, 'cache');
    url = pathToFileURL(path.join(tmp, 'site')).toString();
    const r = await new DatasetStore({ cacheDir, url }).sync({ force: true, optIn: true });
    assert.equal(r.status, 'updated', r.reason);
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  function open(repos: string[] = ['*'], opts: Parameters<DatasetService['openCatalog']>[0] = {}): DatasetCatalog {
    const ds = new DatasetService(cacheDir);
    ds.configure({ url, repos, refreshHours: 24 });
    const c = ds.openCatalog({ shardRows: 300, minShardRows: 200, maxShardRows: 400, ...opts });
    assert.ok(c, 'a catalog for a selection of a cached dataset');
    return c;
  }

  it('finds row boundaries in a block, strings with brackets, quotes and escapes included', () => {
    const rows = [['a"[', 'b\\', null, ['x]', '{y}']], ['c', '\\"]'], []];
    const text = JSON.stringify(rows);
    const buf = Buffer.from(`xx${text}yy`);
    const r = rowRanges(buf, 2, 2 + Buffer.byteLength(text));
    assert.equal(r.length, 6);
    for (let k = 0; k < 3; k++) assert.deepEqual(JSON.parse(buf.toString('utf8', 2 + r[2 * k]!, 2 + r[2 * k + 1]!)), rows[k]);
  });

  it('after the build every selected row matches, in several shards, and its record is read back whole', async () => {
    const c = open();
    assert.equal(c.total, ROWS);
    assert.deepEqual(c.matchLine(lineFor(5)), [], 'nothing matches before the build');
    assert.equal(await c.build(), true);
    assert.ok(c.isReady);
    assert.ok(c.stats.shards >= 4, `shards: ${c.stats.shards}`);
    assert.equal(c.readyRows, ROWS);
    for (let i = 0; i < ROWS; i++) {
      const ms = c.matchLine(lineFor(i));
      assert.equal(ms.length, 1, `row ${i}`);
      assert.equal(ms[0]!.record.id, rowOf(i).id);
    }
    const m = c.matchLine(lineFor(1234))[0]!;
    const row = rowOf(1234);
    assert.ok(isLiteRecord(m.record));
    assert.deepEqual(
      [m.record.repo, m.record.slug, m.record.errorMessage, m.record.messagePattern, m.record.errorClass, m.record.tags, m.record.severity],
      [row.repo, row.slug, row.msg, row.pattern, row.cls, row.tags, row.sev],
    );
    assert.deepEqual(m.match.captures.map((x) => [x.name, x.value]), [['host', 'db-1234.internal']]);
    const line = lineFor(1234);
    assert.equal(m.match.start, line.indexOf('Widget 1234'));
    assert.equal(m.match.text, line.slice(line.indexOf('Widget 1234')));
    // lookups: id, slug, code (exact, then trimmed)
    assert.equal(c.get(row.id)?.id, row.id);
    assert.equal(c.get(` ${row.id} `)?.id, row.id);
    assert.equal(c.get('widget-1234-failed')?.id, row.id);
    assert.equal(c.get('WX1230')?.id, rowOf(1230).id);
    assert.equal(c.get('no-such-thing'), undefined);
    assert.equal(c.get('Not-Hex-Id-13')?.slug, 'widget-13-failed');
    assert.equal(c.get('00000000000000ff')?.slug, 'widget-255-failed', 'leading zeros of a hex id');
    c.dispose();
  });

  it('selects repositories: rows of others are never matched', async () => {
    const c = open(['acme/beta']);
    await c.build();
    const beta = Array.from({ length: ROWS }, (_, i) => i).filter((i) => rowOf(i).repo === 'acme/beta');
    assert.equal(c.total, beta.length);
    assert.equal(c.matchLine(lineFor(beta[3]!)).length, 1);
    assert.equal(c.matchLine(lineFor(0)).length, 0, 'acme/alpha is not selected');
    c.dispose();
  });

  it('user records match before and during the build; dataset rows join as their shards are built', async () => {
    const user = new Catalog([userRecord('aaaaaaaaaaaaaaaa', 'Custom failure in {module} while loading plugins')]);
    const userLine = 'Custom failure in auth while loading plugins';
    const duringUser: number[] = [];
    const duringReady: number[] = [];
    let c: DatasetCatalog | undefined;
    let composite: CompositeCatalog | undefined;
    c = open(['*'], {
      onProgress: (ready) => {
        // a hover-like call between two shards
        duringUser.push(composite!.matchLine(userLine).length);
        duringReady.push(ready);
        const first = composite!.matchLine(lineFor(0));
        const last = composite!.matchLine(lineFor(ROWS - 1));
        assert.equal(first.length, 1, 'row 0 is in the first shard');
        if (ready < ROWS) assert.equal(last.length, 0, 'the last row matches only once its shard is built');
      },
    });
    composite = new CompositeCatalog(user, c);
    assert.equal(composite.matchLine(userLine)[0]?.record.id, 'aaaaaaaaaaaaaaaa', 'before the build starts');
    assert.equal(composite.matchLine(lineFor(7)).length, 0);
    const built = c.build();
    assert.equal(composite.matchLine(userLine).length, 1, 'while the build runs');
    assert.equal(await built, true);
    assert.ok(duringUser.length >= 4 && duringUser.every((n) => n === 1), `user matches during the build: ${duringUser.join(',')}`);
    assert.ok(duringReady.some((n) => n > 0 && n < ROWS), 'progress was reported between shards');
    assert.equal(composite.matchLine(lineFor(ROWS - 1))[0]?.record.id, rowOf(ROWS - 1).id);
    c.dispose();
  });

  it('user records win on id collisions: matching, lookups and search', async () => {
    const row = rowOf(42);
    // same id as dataset row 42, another message
    const user = new Catalog([userRecord(row.id, 'Quite another failure of {thing} happened here')]);
    const c = open();
    await c.build();
    const composite = new CompositeCatalog(user, c);
    assert.equal(composite.get(row.id)?.documentation, 'user docs');
    assert.deepEqual(composite.matchLine(lineFor(42)), [], 'the dataset row with the user id is hidden');
    assert.equal(composite.matchLine('Quite another failure of x happened here')[0]?.record.id, row.id);
    assert.ok(!composite.search(row.id).some((h) => isLiteRecord(h.record)));
    assert.equal(composite.matchLine(lineFor(43))[0]?.record.id, rowOf(43).id, 'other rows still match');
    c.dispose();
  });

  it('merges matches of both by rank and search hits by score', async () => {
    // a user record matching a shorter span of the same line ranks after the dataset row
    const user = new Catalog([userRecord('bbbbbbbbbbbbbbbb', 'cannot reach {host} for')]);
    const c = open();
    await c.build();
    const composite = new CompositeCatalog(user, c);
    const ms = composite.matchLine(lineFor(77));
    assert.deepEqual(ms.map((m) => m.record.id), [rowOf(77).id, 'bbbbbbbbbbbbbbbb']);
    const byCode = composite.search('WX770');
    assert.equal(byCode[0]?.record.id, rowOf(770).id);
    assert.equal(byCode[0]?.kind, 'code');
    const bySlug = composite.search('widget-99-failed');
    assert.equal(bySlug[0]?.kind, 'slug');
    const byText = composite.search(lineFor(1500));
    assert.equal(byText[0]?.record.id, rowOf(1500).id);
    assert.equal(byText[0]?.kind, 'pattern');
    assert.ok(byText.some((h) => h.record.id === 'bbbbbbbbbbbbbbbb'), 'the user record matches the query too');
    assert.equal(new Set(byText.map((h) => h.record.id)).size, byText.length, 'one hit per record');
    c.dispose();
  });

  it('fuzzy word search over the rows of small selections (none above fuzzyMaxRows)', async () => {
    const c = open();
    await c.build();
    assert.ok(!c.search('widget 1234', 5).some((h) => h.kind === 'fuzzy'), 'the word index is built on the first search');
    assert.equal(await c.fuzzyReady(), true);
    const hits = new CompositeCatalog(new Catalog([]), c).search('widget 1234', 5);
    assert.equal(hits[0]?.record.id, rowOf(1234).id);
    assert.equal(hits[0]?.kind, 'fuzzy');
    assert.equal(c.search('cannot REACH widget 77 ', 3)[0]?.record.id, rowOf(77).id, 'case and a trailing space');
    c.dispose();
    const big = open(['*'], { fuzzyMaxRows: 1000 });
    await big.build();
    assert.deepEqual(big.search('widget 1234', 5), [], 'too many rows for a token index');
    assert.equal(await big.fuzzyReady(), false);
    assert.equal(big.search('WX1230', 5)[0]?.kind, 'code', 'exact lookups still work');
    big.dispose();
  });

  it('cancelling mid-build is safe: the build stops, matching keeps working on what was built', async () => {
    let c: DatasetCatalog | undefined;
    let calls = 0;
    c = open(['*'], {
      onProgress: () => {
        calls++;
        if (calls === 2) c!.dispose();
      },
    });
    assert.equal(await c.build(), false, 'cancelled');
    assert.equal(calls, 2, 'no shard after the cancel');
    assert.ok(!c.isReady);
    assert.ok(c.readyRows > 0 && c.readyRows < ROWS);
    // rows of built shards still match (a request in flight on a replaced catalog), records whole
    assert.equal(c.matchLine(lineFor(0))[0]?.record.errorMessage, rowOf(0).msg);
    assert.equal(c.matchLine(lineFor(ROWS - 1)).length, 0);
  });

  it('a rows file cut short: the rows read so far match, and the build says why it stopped', async () => {
    const live = new DatasetStore({ cacheDir, url }).liveDir()!;
    const copy = path.join(tmp, 'cut');
    fs.cpSync(live, copy, { recursive: true });
    const rowsFile = path.join(copy, 'index.rows');
    fs.truncateSync(rowsFile, Math.floor(fs.statSync(rowsFile).size / 2));
    const c = new DatasetCatalog(copy, readHead(copy)!, { shardRows: 300 });
    assert.equal(await c.build(), true);
    assert.match(c.stats.readError ?? '', /shorter than its head says/);
    assert.ok(c.rows.count > 0 && c.rows.count < ROWS, `${c.rows.count} rows`);
    assert.equal(c.matchLine(lineFor(0))[0]?.record.id, rowOf(0).id);
    assert.equal(c.matchLine(lineFor(ROWS - 1)).length, 0);
    c.dispose();
  });

  it('the server keeps one catalog across reloads and replaces it when the selection changes', async () => {
    const logs: string[] = [];
    const log = { log: (m: string) => logs.push(m), info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m), error: (m: string) => logs.push(m) };
    const readyOnes: DatasetCatalog[] = [];
    const cats = new DatasetCatalogs(log, (c) => readyOnes.push(c));
    const ds = new DatasetService(cacheDir);
    const settings = (repos: string[]) => ({ ...DEFAULT_SETTINGS, dataset: { ...DEFAULT_SETTINGS.dataset, url, repos, refreshHours: 24 } });
    const a = cats.update(ds, settings(['acme/*']));
    assert.ok(a);
    assert.equal(cats.update(ds, settings(['acme/*']))?.catalog, a.catalog, 'same settings: same catalog');
    const b = cats.update(ds, settings(['other/gamma']));
    assert.ok(b && b.catalog !== a.catalog, 'another selection: a new catalog');
    assert.equal(cats.update(ds, settings([])), undefined, 'nothing selected');
    const c = cats.update(ds, settings(['*']));
    assert.ok(c);
    await waitFor('a catalog ready', () => readyOnes.length > 0, 30_000);
    assert.deepEqual(readyOnes, [c.catalog], 'only the current catalog reports ready (the replaced ones were cancelled)');
    assert.equal(c.records, ROWS);
    cats.dispose();
  });
});
