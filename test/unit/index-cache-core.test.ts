// The index cache's shared flow (core/indexCache: loadThroughCache, its saveAsync = writeCacheAsync), as the
// language server uses it: the time-sliced writer gives the same file as the whole one and lets the
// event loop run meanwhile; a load whose sources are bounded (within) is keyed with its bounds, and
// a link out of them means no cache; a load that does not line up with its sources is not cached.
import * as assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Catalog } from '../../server/src/core/catalog';
import { type CacheSource, loadThroughCache, readCache, readCacheAsync, refreshEngine, writeCache } from '../../server/src/core/indexCache';
import { readHashed } from '../../server/src/core/indexCache/file';
import { createHash } from 'node:crypto';
import { type FileDigest, type LoadResult, loadRecordsFromPath, mergeRecordSets } from '../../server/src/core/load';
import type { RecordOrigin } from '../../server/src/core/record';
import { REPO, tempDir } from '../shared/paths';
import { ScanRecords } from '../../server/src/core/scanColumns';
import { confidenceScore, patternBits } from '../../server/src/core/confidence';

const TS_RECORDS = path.join(REPO, 'test/fixtures/real/typescript-records.json');

describe('index cache (core flow)', function () {
  this.timeout(120_000);
  let tmp: string;
  let dir: string;
  beforeEach(() => {
    tmp = tempDir('index-core');
    dir = path.join(tmp, 'cache');
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  /** The caller's own load, as recordSources does it (one set per source, files listed). */
  const uncached = (sources: readonly CacheSource[], opts: { lineUp?: boolean } = {}) => async (digests: Map<string, FileDigest> | undefined) => {
    const sets: { origin: RecordOrigin; result: LoadResult }[] = [];
    for (const s of sources) sets.push({ origin: s.origin, result: await loadRecordsFromPath(s.path, { ...(s.within ? { within: s.within } : {}), ...(digests ? { digests } : {}) }) });
    const merged = mergeRecordSets(sets);
    return {
      load: { catalog: new Catalog(merged.records), problems: merged.problems, sources: sources.map((s, i) => ({ origin: s.origin, path: s.path, records: sets[i]!.result.records.length })) },
      files: opts.lineUp === false ? undefined : sets.map((s) => s.result.files),
    };
  };

  it('writeCacheAsync: the same file as writeCache, with event-loop turns while it writes', async () => {
    const folder = path.join(tmp, 'records');
    mkdirSync(folder);
    copyFileSync(TS_RECORDS, path.join(folder, 'ts.json'));
    const sources: CacheSource[] = [{ origin: 'user', path: folder, within: [folder] }];
    const first = await loadThroughCache(sources, true, { dir, minBytes: 0, full: true }, uncached(sources));
    assert.equal(first.cache, 'absent');
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const error = await first.saveAsync!(1);
    clearInterval(ticker);
    assert.equal(error, undefined);
    assert.ok(turns > 0, 'the event loop ran while the cache file was written');
    const files = () => readdirSync(dir).filter((f) => /\.ee(idx|rec)$/.test(f)).sort();
    const asyncBytes = files().map((f) => readFileSync(path.join(dir, f)));
    const key = files()[0]!.replace(/\.ee(idx|rec)$/, '');
    assert.ok('load' in readCache(dir, key, { full: true }));
    assert.equal(writeCache(dir, key, first.load), undefined);
    assert.deepEqual(files().map((f) => readFileSync(path.join(dir, f))), asyncBytes, 'writeCache and writeCacheAsync write the same bytes');
    const second = await loadThroughCache(sources, true, { dir, minBytes: 0, full: true }, uncached(sources));
    assert.equal(second.cache, 'hit');
    assert.deepEqual(JSON.parse(JSON.stringify(second.load.catalog.records)), JSON.parse(JSON.stringify(first.load.catalog.records)));
    // the same files without the bounds: another key (a bounded load may have refused links)
    const unbounded: CacheSource[] = [{ origin: 'user', path: folder }];
    assert.equal((await loadThroughCache(unbounded, true, { dir, minBytes: 0, full: true }, uncached(unbounded))).cache, 'absent');
  });

  it('a hit restores the scan columns: each record\'s id, severity and what its confidence reads, as the record gives them (no record is read for them)', async () => {
    const folder = path.join(tmp, 'records');
    mkdirSync(folder);
    copyFileSync(TS_RECORDS, path.join(folder, 'ts.json'));
    const sources: CacheSource[] = [{ origin: 'user', path: folder }];
    const first = await loadThroughCache(sources, true, { dir, minBytes: 0 }, uncached(sources));
    assert.equal(first.load.scanColumns, undefined, 'a miss scores from the records');
    const scored = first.load.catalog.records[0]!.messagePattern;
    patternBits(scored); // (as the scan before the save does for the records it scores)
    assert.equal(first.save!(), undefined);
    const second = await loadThroughCache(sources, true, { dir, minBytes: 0 }, uncached(sources));
    assert.equal(second.cache, 'hit');
    const cols = new ScanRecords(second.load.scanColumns!);
    assert.equal(cols.scoredRecord(0).specificity, patternBits(scored), 'the specificity the writer had worked out is stored');
    const records = first.load.catalog.records;
    assert.equal(second.load.scanColumns!.flags.length, records.length);
    const line = 'error TS2304: Cannot find name \'foo\'.';
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      assert.equal(cols.id(i), r.id);
      assert.equal(cols.severity(i), r.severity);
      const s = cols.scoredRecord(i);
      assert.deepEqual([s.messagePattern, s.errorClass, s.errorCode, s.tags?.includes('class-only') ?? false], [r.messagePattern, r.errorClass, r.errorCode, r.tags?.includes('class-only') ?? false]);
      // (stored where the writing process had worked it out; else worked out on first use)
      assert.ok(s.specificity === undefined || s.specificity === patternBits(r.messagePattern));
      const m = { start: 0, end: line.length, codeInLine: true };
      assert.equal(confidenceScore(s, m, line), confidenceScore(r, m, line));
    }
  });

  it('a hit whose run built a prefilter the file lacked writes it in (refresh): the next hit has both; nothing new, nothing written; a file changed meanwhile is left alone', async () => {
    const folder = path.join(tmp, 'records');
    mkdirSync(folder);
    copyFileSync(TS_RECORDS, path.join(folder, 'ts.json'));
    const sources: CacheSource[] = [{ origin: 'user', path: folder }];
    const through = () => loadThroughCache(sources, true, { dir, minBytes: 0, full: true }, uncached(sources));
    const line = "src/a.ts(3,7): error TS2304: Cannot find name 'foo'.";
    // a scan writes the file: its byte index, no string prefilter
    const first = await through();
    first.load.catalog.engine.byteIndex();
    assert.equal(first.save!(), undefined);
    const idx = () => path.join(dir, readdirSync(dir).find((f) => f.endsWith('.eeidx'))!);
    const written = readFileSync(idx());
    // explain: a hit, and its matchLine plans the string prefilter; refresh stores it
    const second = await through();
    assert.equal(second.cache, 'hit');
    assert.deepEqual(second.load.stored, { bytes: true, strings: false });
    const want = second.load.catalog.engine.matchLine(line);
    assert.ok(want.length > 0, 'the line matches');
    assert.equal(second.refresh!(), undefined);
    assert.notDeepEqual(readFileSync(idx()), written, 'the engine section was written again');
    const third = await through();
    assert.equal(third.cache, 'hit');
    assert.deepEqual(third.load.stored, { bytes: true, strings: true });
    assert.deepEqual(third.load.catalog.engine.matchLine(line), want);
    assert.deepEqual(JSON.parse(JSON.stringify(third.load.catalog.records)), JSON.parse(JSON.stringify(first.load.catalog.records)), 'the records as they were');
    // nothing new: nothing written
    const now = readFileSync(idx());
    third.load.catalog.engine.matchLine(line);
    assert.equal(third.refresh!(), undefined);
    assert.deepEqual(readFileSync(idx()), now);
    // a file corrupted since it was read is not given a new header over its bad bytes
    const fourth = await through();
    const bad = Buffer.from(now);
    bad[bad.length - 10]! ^= 0xff;
    writeFileSync(idx(), bad);
    // (as a run would whose restored file had lacked the string prefilter)
    assert.match(String(refreshEngine(dir, path.basename(idx(), '.eeidx'), fourth.load.catalog.engine, { bytes: true, strings: false })), /changed \(checksum\)/);
    assert.deepEqual(readFileSync(idx()), bad);
    assert.equal((await through()).cache, 'checksum');
  });

  it('a link out of a source bound: no cache (the loader reports the link); a load that does not line up: no cache', async () => {
    const folder = path.join(tmp, 'records');
    mkdirSync(folder);
    copyFileSync(TS_RECORDS, path.join(tmp, 'outside.json'));
    symlinkSync(path.join(tmp, 'outside.json'), path.join(folder, 'link.json'));
    const bounded: CacheSource[] = [{ origin: 'workspace', path: folder, within: [folder] }];
    const got = await loadThroughCache(bounded, true, { dir, minBytes: 0, full: true }, uncached(bounded));
    assert.equal(got.cache, 'off');
    assert.equal(got.save, undefined);
    assert.equal(got.load.catalog.records.length, 0);
    copyFileSync(TS_RECORDS, path.join(folder, 'ts.json'));
    rmSync(path.join(folder, 'link.json'));
    const sources: CacheSource[] = [{ origin: 'user', path: folder }];
    // first load: keyed by what it read; a load whose files do not line up is not cached
    assert.equal((await loadThroughCache(sources, true, { dir, minBytes: 0 }, uncached(sources, { lineUp: false }))).cache, 'off');
    const ok = await loadThroughCache(sources, true, { dir, minBytes: 0 }, uncached(sources));
    assert.equal(ok.cache, 'absent');
    // the file is known now (hashed): a load that does not line up is still not cached
    const again = await loadThroughCache(sources, true, { dir, minBytes: 0 }, uncached(sources, { lineUp: false }));
    assert.equal(again.cache, 'off');
    assert.equal(again.save, undefined);
  });
});

describe('index cache: reading and hashing at once (readHashed, readCacheAsync)', function () {
  this.timeout(60_000);
  let tmp: string;
  beforeEach(() => (tmp = tempDir('index-hashed')));
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  it('the digests of the ranges asked for are those of the bytes, for chunks smaller and larger than the ranges, empty ranges and ranges past the end', async () => {
    let seed = 7;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    for (const size of [0, 1, 5, 64, 1000, 4096 + 3]) {
      const bytes = Buffer.alloc(size);
      for (let i = 0; i < size; i++) bytes[i] = Math.floor(rnd() * 256);
      const file = path.join(tmp, `f${size}`);
      writeFileSync(file, bytes);
      // contiguous ranges as a cache file's sections are, with an empty one, then one past the end
      const cuts = [...new Set([0, ...Array.from({ length: 5 }, () => Math.floor(rnd() * (size + 1))), size])].sort((a, b) => a - b);
      const ranges: [number, number][] = cuts.slice(1).map((c, i) => [cuts[i]!, c]);
      ranges.push([size, size], [size, size + 10]);
      for (const chunk of [1, 3, 64, 1 << 20]) {
        let head = -1;
        const got = await readHashed(file, (h, n) => ((head = h.length), assert.equal(n, size), ranges), chunk);
        assert.deepEqual(got.buf, bytes, `size ${size}, chunk ${chunk}`);
        assert.ok(size === 0 || head === Math.min(chunk, size), 'the ranges are asked for from the first chunk');
        // (an empty file is not read at all: no ranges asked, no digests; readers work them out)
        if (size === 0) assert.equal(got.digests.size, 0);
        else
          for (const [s, e] of ranges) {
            if (e > size) assert.equal(got.digests.get(`${s}:${e}`), undefined, 'no digest for bytes that are not there');
            else assert.equal(got.digests.get(`${s}:${e}`), sha(bytes.subarray(s, e)), `[${s}, ${e}) size ${size}, chunk ${chunk}`);
          }
      }
    }
    await assert.rejects(readHashed(path.join(tmp, 'none'), () => []), /ENOENT/);
  });

  it('readCacheAsync answers as readCache: a good entry, and each byte of the header and of every section flipped, truncated, lite-only', async () => {
    const folder = path.join(tmp, 'records');
    mkdirSync(folder);
    copyFileSync(TS_RECORDS, path.join(folder, 'ts.json'));
    const dir = path.join(tmp, 'cache');
    const sources: CacheSource[] = [{ origin: 'user', path: folder }];
    const loadIt = async (digests: Map<string, FileDigest> | undefined) => {
      const sets: { origin: RecordOrigin; result: LoadResult }[] = [{ origin: 'user', result: await loadRecordsFromPath(folder, digests ? { digests } : {}) }];
      const merged = mergeRecordSets(sets);
      return { load: { catalog: new Catalog(merged.records), problems: merged.problems, sources: [{ origin: 'user' as const, path: folder, records: merged.records.length }] }, files: sets.map((s) => s.result.files) };
    };
    const first = await loadThroughCache(sources, true, { dir, minBytes: 0, full: true }, loadIt);
    assert.equal(first.save!(), undefined);
    const key = readdirSync(dir).find((f) => f.endsWith('.eeidx'))!.replace(/\.eeidx$/, '');
    const file = path.join(dir, `${key}.eeidx`);
    const good = readFileSync(file);
    const same = async (what: string) => {
      for (const full of [false, true]) {
        const a = readCache(dir, key, { full });
        const b = await readCacheAsync(dir, key, { full });
        if ('miss' in a) assert.deepEqual(b, a, `${what} (full ${full})`);
        else {
          assert.ok('load' in b, `${what}: a load both ways (full ${full})`);
          assert.deepEqual(JSON.parse(JSON.stringify(b.load.catalog.records)), JSON.parse(JSON.stringify(a.load.catalog.records)));
          assert.deepEqual(b.load.stored, a.load.stored);
        }
      }
    };
    await same('the good entry');
    // a byte of every 4 KiB and the header's first 300 bytes, flipped
    const positions = [...Array.from({ length: 300 }, (_, i) => i), ...Array.from({ length: Math.floor(good.length / 4096) }, (_, i) => i * 4096 + 11)].filter((p) => p < good.length);
    // (where the records' lite rows are: a load that reads no prose checks them at its first read
    // of one, file.ts DEFERRED)
    const hl = good.readUInt32LE(7);
    const header = JSON.parse(good.toString('utf8', 11, 11 + hl)) as { sections: { name: string; length: number }[] };
    let liteStart = 11 + hl;
    for (const sec of header.sections) {
      if (sec.name === 'lite') break;
      liteStart += sec.length;
    }
    const lite = header.sections.find((sec) => sec.name === 'lite')!;
    const liteEnd = liteStart + lite.length;
    const inLite = (p: number) => p >= liteStart && p < liteEnd;
    let misses = 0;
    let atFirstRead = 0;
    for (const p of positions) {
      const bad = Buffer.from(good);
      bad[p] = bad[p]! ^ 0x20;
      writeFileSync(file, bad);
      // a load that reads prose: every flip is a miss, both ways, the same one
      const a = readCache(dir, key, { full: true });
      if ('miss' in a) misses++;
      assert.deepEqual(await readCacheAsync(dir, key, { full: true }), a, `byte ${p} flipped (full)`);
      // one that does not and checks everything up front (the language server): a miss too
      assert.deepEqual(readCache(dir, key, { full: false }), a, `byte ${p} flipped (not full)`);
      assert.deepEqual(await readCacheAsync(dir, key, { full: false }), a, `byte ${p} flipped (not full)`);
      // one that checks the lite rows at their first read (a scan without prose): the same miss
      // both ways, or (a flip in the lite rows) a load whose first read of a row fails clearly and
      // removes the file, both ways
      const lazy = readCache(dir, key, { full: false, lazyCheck: true });
      const lazyAsync = await readCacheAsync(dir, key, { full: false, lazyCheck: true });
      if ('miss' in lazy) {
        assert.deepEqual(lazyAsync, lazy, `byte ${p} flipped`);
        continue;
      }
      assert.ok(inLite(p), `byte ${p} flipped outside the lite rows, and used`);
      atFirstRead++;
      for (const got of [lazy, lazyAsync]) {
        assert.ok('load' in got);
        writeFileSync(file, bad);
        assert.throws(() => JSON.stringify(got.load.catalog.records), /the index cache file .* is corrupted: it was removed; run again \(or use --no-cache\)/);
        assert.ok(!existsSync(file), 'the corrupted file is removed');
      }
    }
    assert.equal(misses, positions.length, 'every flip is a miss for a load that reads prose');
    assert.ok(atFirstRead > 0 && atFirstRead === positions.filter(inLite).length, `every flip in the lite rows is found at the first read (${atFirstRead})`);
    writeFileSync(file, good);
    writeFileSync(file, good.subarray(0, good.length - 100));
    await same('truncated');
    writeFileSync(file, good);
    rmSync(path.join(dir, `${key}.eerec`));
    await same('its records file gone');
  });
});
