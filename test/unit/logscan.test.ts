// core/logScan: the bounded per-record summary, the byte-range file scan, and the follower
// (appends scanned alone, unfinished lines waited for, truncation / rewrite / rotation rescanned).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Catalog } from '../../server/src/core/catalog';
import { LogFollower, lastLineEnd, scanFile, scanRange } from '../../server/src/core/logScan/file';
import { ScanSummary } from '../../server/src/core/logScan/summary';
import { readLineWindow } from '../../server/src/core/logScan/window';
import type { ErrorRecord } from '../../server/src/core/record';
import bundled from '../../records/sgl-project/sglang.json';
import { waitFor } from '../shared/poll';
import { tempDir } from '../shared/paths';

const seeds = bundled as unknown as ErrorRecord[];
const SENT = '063d2eac5107dda5';
const META = '12c38bb1afed0ec1';
const sent = (id: string): string => `[2026-08-28 05:10:05 MM-Encoder] ERROR: MMError: no staged embedding for /send req_id=${id} (already released)`;
const meta = 'ERROR sglang.srt: MMError: encode metadata not ready';
const noise = (i: number): string => `2026-08-28 05:10:${String(i % 60).padStart(2, '0')} INFO scheduler: step ${i} ok, 12 tokens`;

function tmpFile(content: string): string {
  const dir = tempDir('logscan');
  const f = path.join(dir, 'app.log');
  fs.writeFileSync(f, content);
  return f;
}

describe('logScan: ScanSummary', () => {
  const catalog = new Catalog(seeds.map((r) => structuredClone(r)));

  it('groups by record in order of first appearance, with counts, first/last line and captures', () => {
    const s = new ScanSummary();
    const lines = [noise(1), meta, sent('aa11'), noise(2), sent('bb22'), meta];
    lines.forEach((l, i) => {
      const ms = catalog.matchLine(l);
      if (ms.length) s.add(i + 1, ms, l);
    });
    const g = s.result();
    assert.deepEqual(
      g.map((x) => [x.record.id, x.count, x.firstLine, x.lastLine]),
      [
        [META, 2, 2, 6],
        [SENT, 2, 3, 5],
      ],
    );
    assert.deepEqual(g[1]!.occurrences.map((o) => o.captures), [[{ name: 'req_id', value: 'aa11' }], [{ name: 'req_id', value: 'bb22' }]]);
    assert.equal(g[1]!.occurrences[0]!.lineText, sent('aa11'));
    const o = g[1]!.occurrences[0]!;
    assert.equal(sent('aa11').slice(o.start, o.end), o.text);
    assert.equal(s.matchedLines, 4);
    assert.equal(s.matches, 4);
  });

  it('keeps the first and the most recent occurrences only, counting all of them', () => {
    const s = new ScanSummary({ keepPerRecord: 6 });
    for (let i = 1; i <= 1000; i++) s.add(i, catalog.matchLine(sent(`r${i}`)), sent(`r${i}`));
    const [g] = s.result();
    assert.equal(g!.count, 1000);
    assert.equal(g!.omitted, 994);
    assert.deepEqual(
      g!.occurrences.map((o) => o.line),
      [1, 2, 3, 998, 999, 1000],
    );
    assert.equal(s.keptOccurrences, 6);
  });

  it('counts matches below minConfidence apart and does not group them', () => {
    const ms = catalog.matchLine(sent('x'));
    const s = new ScanSummary({ minConfidence: ms[0]!.confidence.score + 0.001 });
    s.add(1, ms, sent('x'));
    assert.equal(s.size, 0);
    assert.equal(s.belowThreshold, 1);
    assert.equal(s.matchedLines, 0);
  });

  it('cuts long lines it keeps', () => {
    const s = new ScanSummary();
    const long = sent('x') + ' '.repeat(10) + 'y'.repeat(5000);
    s.add(1, catalog.matchLine(long), long);
    assert.ok(s.result()[0]!.occurrences[0]!.lineText.length <= 240);
  });
});

describe('logScan: file scan', () => {
  const catalog = new Catalog(seeds.map((r) => structuredClone(r)));

  it('scanFile: the same matches through the byte engine as line by line (CRLF, lone CR, no final newline)', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 40_000; i++) lines.push(i % 97 === 5 ? sent(`id${i}`) : i % 131 === 7 ? meta : noise(i));
    // a lone CR (a line end for editors) early on, CRLF later, no newline at the end
    const text = lines.join('\n').replace('step 10 ok', 'step 10 ok\r').replace('step 30020 ok', 'step 30020 ok\r\n' + meta);
    assert.ok(text.length > 2 << 20, `${text.length} bytes: larger than the text threshold`);
    const f = tmpFile(text);
    const expected = new ScanSummary();
    catalog.explainText(text).forEach(({ line, matches }) => expected.add(line + 1, matches, ''));
    const engine = catalog.engine;
    const real = engine.scanBytes.bind(engine);
    let byteCalls = 0;
    engine.scanBytes = (...a: Parameters<typeof real>) => (byteCalls++, real(...a));
    try {
      const s = new ScanSummary();
      const r = await scanFile(f, catalog, s);
      assert.ok(byteCalls > 0, `byte engine used: ${byteCalls} calls`);
      assert.equal(r.size, Buffer.byteLength(text));
      assert.equal(r.lines, text.split(/\r\n|\r|\n/).length);
      assert.deepEqual(
        s.result().map((g) => [g.record.id, g.count, g.firstLine, g.lastLine]),
        expected.result().map((g) => [g.record.id, g.count, g.firstLine, g.lastLine]),
      );
    } finally {
      engine.scanBytes = real;
    }
  });

  it('reports progress up to the whole range and stops when cancelled', async () => {
    const big = (noise(1) + '\n').repeat(Math.ceil((3.5 * (1 << 20)) / (noise(1).length + 1))) + sent('late') + '\n';
    const f = tmpFile(big);
    const fd = fs.openSync(f, 'r');
    try {
      const seen: number[] = [];
      const s = new ScanSummary();
      const r = await scanRange(fd, catalog, (n, ms, l) => s.add(n, ms, l), { onProgress: (d, t) => seen.push(Math.round((100 * d) / t)) });
      assert.equal(r.cancelled, false);
      assert.ok(seen.length >= 3, `progress reports: ${seen.join(',')}`);
      assert.equal(seen[seen.length - 1], 100);
      assert.equal(s.size, 1);
      let calls = 0;
      const c = new ScanSummary();
      const rc = await scanRange(fd, catalog, (n, ms, l) => c.add(n, ms, l), { cancelled: () => ++calls >= 2 });
      assert.equal(rc.cancelled, true);
      assert.equal(c.size, 0, 'the match at the end was never reached');
    } finally {
      fs.closeSync(fd);
    }
  });

  it('lastLineEnd finds the end of the last whole line', () => {
    const f = tmpFile('a\nbb\nccc');
    const fd = fs.openSync(f, 'r');
    assert.equal(lastLineEnd(fd, 0, 8), 5);
    assert.equal(lastLineEnd(fd, 5, 8), 5);
    assert.equal(lastLineEnd(fd, 0, 2), 2);
    fs.closeSync(fd);
  });
});

describe('logScan: LogFollower', () => {
  const catalog = new Catalog(seeds.map((r) => structuredClone(r)));
  const followers: LogFollower[] = [];
  afterEach(() => followers.splice(0).forEach((f) => f.stop()));
  const follow = async (f: string, updates: { n: number } = { n: 0 }): Promise<LogFollower> => {
    const fl = new LogFollower(f, catalog, new ScanSummary(), { pollMs: 60_000, onUpdate: () => updates.n++ });
    followers.push(fl);
    await fl.start();
    return fl;
  };
  const counts = (fl: LogFollower) => fl.summary.result().map((g) => [g.record.id, g.count, g.firstLine, g.lastLine]);

  it('scans only appended bytes, with line numbers continuing', async () => {
    const f = tmpFile(`${noise(1)}\n${sent('a')}\n`);
    const updates = { n: 0 };
    const fl = await follow(f, updates);
    assert.deepEqual(counts(fl), [[SENT, 1, 2, 2]]);
    assert.equal(fl.st.state, 'following');
    const before = fl.st.offset;
    fs.appendFileSync(f, `${noise(2)}\n${sent('b')}\n${meta}\n`);
    await fl.check();
    assert.deepEqual(counts(fl), [
      [SENT, 2, 2, 4],
      [META, 1, 5, 5],
    ]);
    assert.equal(fl.st.offset, fs.statSync(f).size);
    assert.ok(fl.st.offset > before);
    assert.equal(updates.n, 1);
    await fl.check(); // nothing new: no update
    assert.equal(updates.n, 1);
  });

  it('waits for the line end of an unfinished last line', async () => {
    const f = tmpFile(`${noise(1)}\n`);
    const fl = await follow(f);
    const line = sent('half');
    fs.appendFileSync(f, line.slice(0, 40));
    await fl.check();
    assert.deepEqual(counts(fl), []);
    fs.appendFileSync(f, `${line.slice(40)}\n`);
    await fl.check();
    assert.deepEqual(counts(fl), [[SENT, 1, 2, 2]]);
    assert.equal(fl.summary.result()[0]!.occurrences[0]!.captures[0]!.value, 'half');
  });

  it('a truncated file is scanned again from its start', async () => {
    const f = tmpFile(`${sent('a')}\n${sent('b')}\n${noise(3)}\n`);
    const fl = await follow(f);
    assert.deepEqual(counts(fl), [[SENT, 2, 1, 2]]);
    fs.truncateSync(f, 0);
    fs.appendFileSync(f, `${meta}\n`);
    await fl.check();
    assert.deepEqual(counts(fl), [[META, 1, 1, 1]]);
    assert.equal(fl.st.resets, 1);
    assert.equal(fl.st.lastReset, 'truncated');
  });

  it('a file rewritten in place (longer, other bytes before the offset) is scanned again', async () => {
    const f = tmpFile(`${sent('a')}\n`);
    const fl = await follow(f);
    const fd = fs.openSync(f, 'r+');
    fs.writeSync(fd, Buffer.from(`${meta}\n${noise(1)}\n${noise(2)}\n${noise(3)}\n`), 0, undefined, 0);
    fs.closeSync(fd);
    await fl.check();
    assert.equal(fl.st.lastReset, 'replaced');
    assert.deepEqual(counts(fl), [[META, 1, 1, 1]]);
  });

  it('rotation: a new file at the path is followed from its start; a deleted one waits for its return', async () => {
    const f = tmpFile(`${sent('a')}\n`);
    const updates = { n: 0 };
    const fl = await follow(f, updates);
    fs.renameSync(f, `${f}.1`);
    await fl.check();
    assert.equal(fl.st.state, 'missing');
    assert.deepEqual(counts(fl), [[SENT, 1, 1, 1]], 'results are kept while the path is missing');
    fs.writeFileSync(f, `${noise(1)}\n${meta}\n`);
    await fl.check();
    assert.equal(fl.st.state, 'following');
    assert.equal(fl.st.lastReset, 'rotated');
    assert.deepEqual(counts(fl), [[META, 1, 2, 2]]);
    // rotated again without a gap (logrotate's create): the path names another inode
    fs.renameSync(f, `${f}.2`);
    fs.writeFileSync(f, `${sent('z')}\n`);
    await fl.check();
    assert.deepEqual(counts(fl), [[SENT, 1, 1, 1]]);
    assert.equal(fl.st.resets, 2);
    assert.ok(updates.n >= 3);
  });

  it('a cancelled first scan stops and is not followed', async () => {
    const f = tmpFile((noise(1) + '\n').repeat(60_000) + `${sent('late')}\n`);
    const fl = new LogFollower(f, catalog, new ScanSummary(), { cancelled: () => true });
    followers.push(fl);
    await fl.start();
    assert.equal(fl.st.state, 'cancelled');
    assert.deepEqual(counts(fl), []);
  });

  it('a file that cannot be opened rejects start()', async () => {
    const fl = new LogFollower('/nonexistent/x.log', catalog, new ScanSummary());
    await assert.rejects(fl.start(), /ENOENT/);
    const dir = tempDir('dir');
    await assert.rejects(new LogFollower(dir, catalog, new ScanSummary()).start(), /directory/);
  });

  it('the timer picks up appends by itself', async () => {
    const f = tmpFile(`${noise(1)}\n`);
    const fl = new LogFollower(f, catalog, new ScanSummary(), { pollMs: 50 });
    followers.push(fl);
    await fl.start();
    fs.appendFileSync(f, `${meta}\n`);
    await waitFor('the appended line scanned', () => fl.summary.size > 0, 5000);
    assert.deepEqual(counts(fl), [[META, 1, 2, 2]]);
  });
});

describe('logScan: readLineWindow', () => {
  it('returns the lines around N as the scan numbers them (LF, CRLF, lone CR, across read chunks and checkpoints)', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const parts: string[] = [];
    let size = 0;
    let n = 0;
    while (size < 9.5 * (1 << 20)) {
      const line = `line ${++n} ${'x'.repeat(Math.floor(rnd() * 120))} é`;
      const r = rnd();
      const end = r < 0.8 ? '\n' : r < 0.93 ? '\r\n' : r < 0.98 ? '\r' : '\n\n';
      parts.push(line + end);
      size += line.length + end.length;
    }
    parts.push('last line without an end');
    const text = parts.join('');
    const f = tmpFile(text);
    const all = text.split(/\r\n|\r|\n/);
    for (const at of [1, 2, 500, Math.floor(all.length / 2), all.length - 3, all.length, all.length + 5, Math.floor(all.length / 3)]) {
      const w = readLineWindow(f, at, 3, 4);
      const first = Math.max(1, at - 3);
      assert.equal(w.firstLine, first);
      assert.deepEqual(w.lines, all.slice(first - 1, at + 4), `line ${at}`);
      assert.equal(w.atEnd, at + 4 > all.length);
    }
  });
});
