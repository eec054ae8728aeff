// The scan's index cache (core/indexCache, issue 11 item 5): a second load of the same record
// files comes from the cache and gives the same records and matches; a cache file that is stale,
// truncated, corrupted or of another format is detected and never used; --no-cache turns it off.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import * as path from 'node:path';
import { loadCatalog } from '../../server/src/cli/records';
import { readCache, readCacheAsync } from '../../server/src/core/indexCache';
import type { Catalog } from '../../server/src/core/catalog';
import { CLI, REPO, tempDir } from '../shared/paths';

const TS_RECORDS = path.join(REPO, 'test/fixtures/real/typescript-records.json');
const TSC_LOG = readFileSync(path.join(REPO, 'test/fixtures/real/tsc-output.log'), 'utf8').split(/\r?\n/);

describe('index cache (scan)', function () {
  this.timeout(120_000);
  let tmp: string;
  let records: string;
  let dir: string;
  beforeEach(() => {
    tmp = tempDir('index');
    records = path.join(tmp, 'ts.json');
    copyFileSync(TS_RECORDS, records);
    dir = path.join(tmp, 'cache');
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  const load = (full = true) => loadCatalog([records], true, undefined, { cache: { dir, minBytes: 0, full } });
  /** What a scan reports: per line, each match's record, span and captures. */
  const matches = (c: Catalog) => TSC_LOG.map((l) => c.matchLine(l).map((m) => [m.record.id, m.match.start, m.match.end, m.match.captures, m.confidence.score]));
  const entryFile = () => path.join(dir, readdirSync(dir).find((f) => f.endsWith('.eeidx'))!);

  it('the second load is a hit with the same records (every field) and the same matches', async () => {
    const first = await load();
    assert.equal(first.cache, 'absent');
    assert.equal(first.saveCache!(), undefined);
    const second = await load();
    assert.equal(second.cache, 'hit');
    assert.equal(second.catalog.records.length, first.catalog.records.length);
    assert.deepEqual(JSON.parse(JSON.stringify(second.catalog.records)), JSON.parse(JSON.stringify(first.catalog.records)));
    assert.deepEqual(second.problems, first.problems);
    assert.deepEqual(second.sources, first.sources);
    const want = matches(first.catalog);
    assert.ok(want.flat().length > 20, 'the tsc log matches TypeScript records');
    assert.deepEqual(matches(second.catalog), want);
    // the file scan (byte index restored, not built)
    const lines = (c: Catalog) => {
      const got: [number, number[]][] = [];
      const buf = Buffer.from(TSC_LOG.join('\n'));
      c.engine.scanBytes(buf, buf.length, (i, hits) => got.push([i, hits.matches().map((m) => m.entry)]));
      return got;
    };
    assert.deepEqual(lines(second.catalog), lines(first.catalog));
    // lookups work on the lazy records
    const some = first.catalog.records[100]!;
    assert.equal(second.catalog.get(some.id)?.documentation, some.documentation);
  });

  it('a changed record file is another key: the old entry is not used', async () => {
    (await load()).saveCache!();
    const data = JSON.parse(readFileSync(records, 'utf8')) as { errorMessage: string }[];
    data[0]!.errorMessage = data[0]!.errorMessage + ' (edited)';
    writeFileSync(records, JSON.stringify(data));
    const again = await load();
    assert.equal(again.cache, 'absent');
    assert.ok(again.catalog.records[0]!.errorMessage.endsWith('(edited)'));
  });

  it('a content hash remembered for an unchanged file is reused; a touched file is hashed again', async () => {
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(records, old, old);
    (await load()).saveCache!();
    const known = () => JSON.parse(readFileSync(path.join(dir, 'hashes.json'), 'utf8')) as { files: Record<string, { sha256: string; hashedAt: number }> };
    const before = known();
    assert.equal(Object.keys(before.files).length, 1);
    // the first load took the hash from the bytes it read (no second read of the file)
    assert.equal(Object.values(before.files)[0]!.sha256, createHash('sha256').update(readFileSync(records)).digest('hex'));
    assert.equal((await load()).cache, 'hit');
    assert.deepEqual(known(), before, 'not hashed again');
    // a file written within RACY_MS of its hash is hashed again each time (its mtime says nothing)
    utimesSync(records, new Date(), new Date());
    assert.equal((await load()).cache, 'hit', 'same content, same key');
    const racy = Object.values(known().files)[0]!.hashedAt;
    assert.equal((await load()).cache, 'hit');
    assert.ok(Object.values(known().files)[0]!.hashedAt > racy, 'hashed again');
    // same size, new content, new mtime: a miss (hashed again)
    const text = readFileSync(records, 'utf8');
    const at = text.indexOf('"errorMessage":"') + '"errorMessage":"'.length;
    writeFileSync(records, text.slice(0, at) + (text[at] === 'X' ? 'Y' : 'X') + text.slice(at + 1));
    assert.equal(statSync(records).size, Buffer.byteLength(text));
    assert.equal((await load()).cache, 'absent');
  });

  it('a first load keys the cache by the bytes it read, for a gzip file and a folder too: the next load is a hit', async () => {
    const folder = path.join(tmp, 'folder');
    mkdirSync(path.join(folder, 'sub'), { recursive: true });
    writeFileSync(path.join(folder, 'sub', 'ts.json.gz'), gzipSync(readFileSync(records)));
    const data = JSON.parse(readFileSync(records, 'utf8')) as unknown[];
    writeFileSync(path.join(folder, 'few.jsonl'), data.slice(0, 3).map((r) => JSON.stringify({ ...(r as object), id: undefined, slug: undefined })).join('\n'));
    const loadFolder = () => loadCatalog([folder], true, undefined, { cache: { dir, minBytes: 0, full: true } });
    const first = await loadFolder();
    assert.equal(first.cache, 'absent');
    assert.equal(first.saveCache!(), undefined);
    const second = await loadFolder();
    assert.equal(second.cache, 'hit');
    assert.equal(second.catalog.records.length, first.catalog.records.length);
    assert.deepEqual(JSON.parse(JSON.stringify(second.catalog.records)), JSON.parse(JSON.stringify(first.catalog.records)));
    // a changed file in the folder: another key
    writeFileSync(path.join(folder, 'few.jsonl'), data.slice(0, 2).map((r) => JSON.stringify({ ...(r as object), id: undefined, slug: undefined })).join('\n'));
    assert.equal((await loadFolder()).cache, 'absent');
  });

  it('flipped bytes anywhere, truncation, another format or key, a missing or corrupted records file: never used', async () => {
    (await load()).saveCache!();
    const file = entryFile();
    const key = path.basename(file, '.eeidx');
    const good = readFileSync(file);
    const rec = file.replace(/\.eeidx$/, '.eerec');
    const goodRec = readFileSync(rec);
    const restore = () => {
      writeFileSync(file, good);
      writeFileSync(rec, goodRec);
    };
    assert.ok('load' in readCache(dir, key, { full: true }));
    // a byte flipped at many places of the index file: magic, header, each section
    const step = Math.max(1, Math.floor(good.length / 40));
    for (let at = 0; at < good.length; at += step) {
      const bad = Buffer.from(good);
      bad[at] = bad[at]! ^ 0x5a;
      writeFileSync(file, bad);
      const got = readCache(dir, key, { full: true });
      assert.ok('miss' in got, `a flipped byte at ${at} of ${good.length} was not detected`);
    }
    restore();
    for (const len of [0, 5, 12, Math.floor(good.length / 2), good.length - 1]) {
      truncateSync(file, len);
      const got = readCache(dir, key, { full: true });
      assert.ok('miss' in got && ['magic', 'truncated', 'header'].includes(got.miss), `truncated to ${len}: ${'miss' in got ? got.miss : 'used'}`);
      restore();
    }
    // another format version (the header names it)
    const hl = good.readUInt32LE(7);
    const header = JSON.parse(good.toString('utf8', 11, 11 + hl)) as { format: number };
    // (a format of as many digits: the header keeps its length)
    const otherFormat = String(header.format + 1).length === String(header.format).length ? header.format + 1 : header.format - 1;
    const swapped = Buffer.from(JSON.stringify({ ...header, format: otherFormat }).padEnd(hl, ' '));
    assert.equal(swapped.length, hl);
    const other = Buffer.from(good);
    swapped.copy(other, 11);
    writeFileSync(file, other);
    assert.deepEqual(readCache(dir, key, { full: true }), { miss: 'format' });
    restore();
    // the file of one key renamed to another key
    const otherKey = 'f'.repeat(64);
    copyFileSync(file, path.join(dir, `${otherKey}.eeidx`));
    copyFileSync(rec, path.join(dir, `${otherKey}.eerec`));
    assert.deepEqual(readCache(dir, otherKey, { full: true }), { miss: 'key' });
    // the records file: corrupted (same size) is caught up front when full records are wanted…
    const badRec = Buffer.from(goodRec);
    const mid = Math.floor(badRec.length / 2);
    badRec[mid] = badRec[mid]! ^ 0x01;
    writeFileSync(rec, badRec);
    assert.deepEqual(readCache(dir, key, { full: true }), { miss: 'checksum' });
    // …and at the first read of a record's prose otherwise: a clear error, the file removed
    const lazy = readCache(dir, key, { full: false });
    assert.ok('load' in lazy);
    const r = lazy.load.catalog.records[3]!;
    assert.equal(typeof r.errorMessage, 'string', 'lite fields need no records file');
    assert.throws(() => r.documentation, /index cache's record file .* is corrupted: it was removed; run again \(or use --no-cache\)/);
    assert.deepEqual(readCache(dir, key, { full: true }), { miss: 'absent' });
    // and the scan loads from the sources, then writes a good entry again
    const reload = await load();
    assert.equal(reload.cache, 'absent');
    reload.saveCache!();
    assert.equal((await load()).cache, 'hit');
  });

  it("a load that reads no prose and asks for it (lazyCheck) checks the records' lite rows at the first read of one: a flipped byte there is a clear error and the file goes; elsewhere a miss at once", async () => {
    (await load()).saveCache!();
    const file = entryFile();
    const key = path.basename(file, '.eeidx');
    const good = readFileSync(file);
    // the sections' places, from the header (magic, u32 length, JSON)
    const hl = good.readUInt32LE(7);
    const header = JSON.parse(good.toString('utf8', 11, 11 + hl)) as { sections: { name: string; length: number }[] };
    const places = new Map<string, [number, number]>();
    let at = 11 + hl;
    for (const sec of header.sections) {
      places.set(sec.name, [at, sec.length]);
      at += sec.length;
    }
    const flipIn = (name: string): void => {
      const [start, length] = places.get(name)!;
      assert.ok(length > 2, `${name} has bytes`);
      const bad = Buffer.from(good);
      bad[start + Math.floor(length / 2)] = bad[start + Math.floor(length / 2)]! ^ 0x20;
      writeFileSync(file, bad);
    };
    for (const read of [(full: boolean) => readCache(dir, key, { full, lazyCheck: true }), (full: boolean) => readCacheAsync(dir, key, { full, lazyCheck: true })]) {
      // a flipped byte in any other section: a miss at once, whatever the load reads
      for (const name of header.sections.map((x) => x.name).filter((x) => x !== 'lite')) {
        flipIn(name);
        assert.deepEqual(await read(false), { miss: 'checksum' }, name);
        assert.deepEqual(await read(true), { miss: 'checksum' }, name);
      }
      // in the lite rows: a miss for a load that reads prose, or that does not ask for the lazy
      // check (the language server), all checked up front…
      flipIn('lite');
      assert.deepEqual(await read(true), { miss: 'checksum' });
      assert.deepEqual(readCache(dir, key, { full: false }), { miss: 'checksum' });
      assert.deepEqual(await readCacheAsync(dir, key, { full: false }), { miss: 'checksum' });
      // …for one that does not, the load is there (matching needs no row), and the first row read
      // fails clearly, having removed the file
      const got = await read(false);
      assert.ok('load' in got);
      assert.ok(got.load.catalog.matchLine(TSC_LOG.find((l) => got.load.catalog.matchLine(l).length === 0) ?? '').length === 0);
      assert.throws(() => got.load.catalog.records[3]!.errorMessage, /the index cache file .* is corrupted: it was removed; run again \(or use --no-cache\)/);
      // (and so does every read after it, without hashing the section again)
      assert.throws(() => got.load.catalog.records[4]!.errorMessage, /is corrupted/);
      assert.deepEqual(await read(false), { miss: 'absent' });
      // a good file: the rows read as before
      writeFileSync(file, good);
      const ok = await read(false);
      assert.ok('load' in ok);
      assert.equal(typeof ok.load.catalog.records[3]!.errorMessage, 'string');
    }
  });

  it('a load that reads no prose writes an entry without it (no records file); a load that does finds it a miss and writes a full one', async () => {
    const first = await load(false);
    assert.equal(first.cache, 'absent');
    assert.equal(first.saveCache!(), undefined);
    assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.eerec')), [], 'no records file');
    const lite = await load(false);
    assert.equal(lite.cache, 'hit');
    assert.deepEqual(matches(lite.catalog), matches(first.catalog));
    const r = lite.catalog.records[7]!;
    assert.equal(r.errorMessage, first.catalog.records[7]!.errorMessage, 'lite fields are there');
    assert.throws(() => r.documentation, /prose was read from an entry written without it/);
    // a load that reads prose: a miss, then a full entry that both kinds of load use
    const full = await load(true);
    assert.equal(full.cache, 'lite-only');
    assert.equal(full.saveCache!(), undefined);
    assert.equal(readdirSync(dir).filter((f) => f.endsWith('.eerec')).length, 1);
    const again = await load(true);
    assert.equal(again.cache, 'hit');
    assert.equal(again.catalog.records[7]!.documentation, first.catalog.records[7]!.documentation);
    assert.equal((await load(false)).cache, 'hit');
  });

  it('CLI: the second scan uses the cache; output equal to --no-cache; a corrupted cache is replaced', () => {
    const log = path.join(tmp, 'tsc.log');
    writeFileSync(log, TSC_LOG.join('\n'));
    const env = { ...process.env, ERROR_EXPLAINER_INDEX_CACHE: dir, ERROR_EXPLAINER_INDEX_CACHE_MIN_BYTES: '0' };
    const scan = (...extra: string[]) => spawnSync(process.execPath, [CLI, 'scan', '--no-bundled', '--records', records, ...extra, log], { encoding: 'utf8', env });
    for (const format of ['text', 'json', 'sarif', 'count']) {
      const none = scan('--format', format, '--no-cache');
      assert.equal(none.status, 0, none.stderr);
      const cold = scan('--format', format);
      const warm = scan('--format', format);
      assert.equal(cold.stdout, none.stdout, `${format}: cold`);
      assert.equal(warm.stdout, none.stdout, `${format}: warm`);
      assert.equal(warm.stderr, none.stderr);
    }
    const file = entryFile();
    const bad = readFileSync(file);
    bad[bad.length - 10] = bad[bad.length - 10]! ^ 0xff;
    writeFileSync(file, bad);
    const after = scan('--format', 'json');
    assert.equal(after.stdout, scan('--format', 'json', '--no-cache').stdout);
    // (json prints no record's prose: the entry written again holds none; a text scan wants it)
    const key = path.basename(file, '.eeidx');
    assert.ok('load' in readCache(dir, key, { full: false }), 'rewritten good');
    assert.deepEqual(readCache(dir, key, { full: true }), { miss: 'lite-only' });
    const text = scan('--format', 'text');
    assert.equal(text.stdout, scan('--format', 'text', '--no-cache').stdout);
    assert.ok('load' in readCache(dir, key, { full: true }), 'a full entry written by the text scan');
    // --no-cache neither reads nor writes
    rmSync(dir, { recursive: true, force: true });
    scan('--format', 'count', '--no-cache');
    assert.throws(() => readdirSync(dir));
  });

  it('CLI: explain goes through the same cache (its output equal to --no-cache), and a scan after it and an explain after a scan each add the prefilter the other left out', () => {
    const env = { ...process.env, ERROR_EXPLAINER_INDEX_CACHE: dir, ERROR_EXPLAINER_INDEX_CACHE_MIN_BYTES: '0' };
    const text = TSC_LOG.find((l) => /error TS\d+/.test(l))!;
    const explain = (...extra: string[]) => spawnSync(process.execPath, [CLI, 'explain', '--no-bundled', '--records', records, '--color', 'never', ...extra, text], { encoding: 'utf8', env });
    const log = path.join(tmp, 'tsc.log');
    writeFileSync(log, TSC_LOG.join('\n'));
    const scan = (...extra: string[]) => spawnSync(process.execPath, [CLI, 'scan', '--no-bundled', '--records', records, '--format', 'text', ...extra, log], { encoding: 'utf8', env });
    const stored = () => {
      const got = readCache(dir, path.basename(entryFile(), '.eeidx'), { full: true });
      assert.ok('load' in got);
      return got.load.stored;
    };
    const none = explain('--no-cache');
    assert.equal(none.status, 0, none.stderr);
    assert.ok(none.stdout.includes('TS'), none.stdout);
    assert.throws(() => readdirSync(dir), '--no-cache writes nothing');
    // explain first: its entry holds the string prefilter; the scan after it adds the byte index
    assert.equal(explain().stdout, none.stdout);
    assert.deepEqual(stored(), { bytes: false, strings: true });
    assert.equal(explain().stdout, none.stdout, 'restored');
    const scanned = scan();
    assert.equal(scanned.stdout, scan('--no-cache').stdout);
    assert.deepEqual(stored(), { bytes: true, strings: true });
    assert.equal(explain().stdout, none.stdout);
    // a scan first: the explain after it adds the string prefilter
    rmSync(dir, { recursive: true, force: true });
    assert.equal(scan().stdout, scanned.stdout);
    assert.deepEqual(stored(), { bytes: true, strings: false });
    assert.equal(explain().stdout, none.stdout);
    assert.deepEqual(stored(), { bytes: true, strings: true });
  });
});
