// MatchEngine.useScanThread: a second thread scans parts of each large block while this one walks
// the parts before (engine/wasmScan.ts ScanHelper, scanParts). The results must be exactly those of one thread, and of
// matchLine on every line.
import * as assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { MatchEngine, type EngineEntry, type LineMatch } from '../../server/src/core/engine';
import { captureNames, derivePattern } from '../../server/src/core/pattern';
import { STAGED_AHEAD } from '../../server/src/core/engine/bytes';
import { type ByteSource, forEachMatchingLine } from '../../server/src/core/lineScan';
import { generateLog, generateRecords, rng, toEntries } from '../bench/gen';

const spawn = (source: string, data: object) => new Worker(source, { eval: true, workerData: data });

function entry(id: string, message: string): EngineEntry {
  const pattern = derivePattern(message);
  return { id, pattern, captureNames: captureNames(message, pattern), errorCode: null };
}

type Got = [number, LineMatch[], string][];

function reference(e: MatchEngine, text: string): Got {
  const split = text.split(/\r\n|\n|\r/);
  if (/[\r\n]$/.test(text)) split.pop();
  const got: Got = [];
  split.forEach((l, i) => {
    const ms = e.matchLine(l);
    if (ms.length) got.push([i, ms, l]);
  });
  return got;
}

/** matchBytes over text as one block (large enough to be split) at byte offset `shift`. */
function viaBytes(e: MatchEngine, text: string, shift = 0): { lines: number; got: Got } {
  const enc = Buffer.from(text, 'utf8');
  const backing = new Uint8Array(shift + enc.length + 32);
  backing.set(enc, shift);
  const got: Got = [];
  const lines = e.matchBytes(backing.subarray(shift), enc.length, (i, ms, line) => got.push([i, ms, line]));
  return { lines, got };
}

const native = (e: MatchEngine) => e.byteIndex().native!;
const splits = (e: MatchEngine): number => native(e).splits;
/** Each later part of a split block is scanned once: by the helper, by this thread (where the
 * helper had not begun it when its walk came), or again with more room. */
function accounted(e: MatchEngine): void {
  const n = native(e);
  assert.equal(n.helped + n.stolen + n.refits, n.parts, `${n.parts} parts: helper ${n.helped}, this thread ${n.stolen}, again ${n.refits}`);
}

describe('engine: a second scan thread (useScanThread)', () => {
  const records = generateRecords(3000, 5);
  let text = '';
  generateLog({ records, bytes: 600_000, matchFraction: 0.2, nearMissFraction: 0.2, seed: 11 }, (c) => (text += c), () => undefined);
  const want = reference(MatchEngine.build(toEntries(records)), text);
  const lines = text.split(/\r\n|\n|\r/).length - 1;

  it('splits a block between two threads with the results of one (plain, JSON, ANSI, CRLF lines), at two alignments', () => {
    assert.ok(want.length > 300, `${want.length} matched lines`);
    const e = MatchEngine.build(toEntries(records));
    assert.equal(e.useScanThread(spawn), true);
    try {
      for (const shift of [0, 5]) {
        const before = splits(e);
        const parts = native(e).parts;
        const got = viaBytes(e, text, shift);
        assert.equal(splits(e), before + 1, 'the block was split');
        assert.ok(native(e).parts - parts >= 4, `${native(e).parts - parts} later parts`);
        assert.equal(got.lines, lines);
        assert.deepEqual(got.got, want);
        accounted(e);
      }
      // many blocks, whichever thread scans which part
      for (let i = 0; i < 10; i++) assert.deepEqual(viaBytes(e, text, i % 4).got, want);
      accounted(e);
      assert.ok(native(e).helped > 0, 'the helper scanned parts');
    } finally {
      e.stopScanThread();
    }
    // and once stopped, in this thread only
    const before = splits(e);
    assert.deepEqual(viaBytes(e, text).got, want);
    assert.equal(splits(e), before);
  });

  it('a thread started before its engine (earlyScanThread) is handed its data when the engine takes it: the same results; a second engine spawns its own; an unused one is stopped', async () => {
    const spawned: string[] = [];
    const counting = (source: string, data: object) => {
      spawned.push(Object.keys(data).length ? 'with data' : 'early');
      return spawn(source, data);
    };
    const early = MatchEngine.earlyScanThread(counting);
    assert.deepEqual(spawned, ['early']);
    const e = MatchEngine.build(toEntries(records));
    const f = MatchEngine.build(toEntries(records));
    try {
      assert.equal(e.useScanThread(early.spawn), true);
      assert.deepEqual(spawned, ['early'], 'the early thread was taken, none spawned');
      assert.equal(f.useScanThread(early.spawn), true);
      assert.deepEqual(spawned, ['early', 'with data'], 'a second engine spawns its own');
      early.dispose(); // (taken: nothing to stop)
      for (let i = 0; i < 4; i++) assert.deepEqual(viaBytes(e, text, i % 2).got, want);
      assert.deepEqual(viaBytes(f, text).got, want);
      accounted(e);
      assert.ok(native(e).helped > 0, 'the early thread scanned parts');
    } finally {
      e.stopScanThread();
      f.stopScanThread();
    }
    // started and never taken: dispose() stops it (its exit is seen)
    const workers: Worker[] = [];
    const unused = MatchEngine.earlyScanThread((source, data) => {
      const w = spawn(source, data);
      workers.push(w);
      return w;
    });
    assert.equal(workers.length, 1);
    const exited = new Promise<number>((resolve) => workers[0]!.once('exit', resolve));
    unused.dispose();
    await exited;
  });

  it('a helper started again after a stop finds every match (its instance counts record stamps from 0 again)', () => {
    const e = MatchEngine.build(toEntries(records));
    e.useScanThread(spawn);
    // the first helper stamps each record with its count of verified lines; a second one counting
    // from the same start would take every record as seen on its line already
    viaBytes(e, text);
    e.stopScanThread();
    assert.equal(e.useScanThread(spawn), true);
    try {
      assert.deepEqual(viaBytes(e, text).got, want);
    } finally {
      e.stopScanThread();
    }
  });

  it('a half with more hits than its first room is scanned again with more, with the same results', () => {
    // 20 records share one 38-byte key: its lines hold about 0.5 hits per byte, over the first room
    // (one per 4 bytes); the first half is noise, so only the helper's half overflows
    const key = 'the replica set lost its primary node';
    const entries = [...Array.from({ length: 20 }, (_, i) => entry(`k${i}`, `${key} {n} x${i}`)), entry('other', 'disk {d} is completely full now')];
    const noise = 'INFO a quiet line about nothing in particular\n'.repeat(2000);
    const hot = Array.from({ length: 2500 }, (_, i) => `${key} 7 x${i % 20}\n`).join('');
    const block = noise + hot + 'disk sda is completely full now\n';
    const e = MatchEngine.build(entries);
    e.useScanThread(spawn);
    try {
      const got = viaBytes(e, block);
      assert.deepEqual(got.got, reference(MatchEngine.build(entries), block));
      assert.equal(got.got.length, 2501);
      assert.ok(native(e).refits >= 1, 'a part did not fit its first room');
      accounted(e);
    } finally {
      e.stopScanThread();
    }
  });

  for (const where of ['second', 'first'] as const)
  it(`a ${where} part with more hits than the module holds at all is walked in JS (${where === 'second' ? 'from its first line, after the first part' : 'the whole block'}), with the same results`, () => {
    // 300 records share one key: 300 hits per 41-byte line, more than one per byte
    const key = 'the replica set lost its primary node';
    const entries = [...Array.from({ length: 300 }, (_, i) => entry(`k${i}`, `${key} {n} x${i}`)), entry('other', 'disk {d} is completely full now')];
    const noise = 'INFO a quiet line about nothing: disk sda is completely full now\n'.repeat(1200);
    const hot = Array.from({ length: 1800 }, (_, i) => `${key} 7 x${i % 300}\n`).join('');
    const block = where === 'second' ? noise + hot : hot + noise;
    const e = MatchEngine.build(entries);
    e.useScanThread(spawn);
    try {
      const got = viaBytes(e, block, 3);
      const ref = reference(MatchEngine.build(entries), block);
      assert.equal(got.got.length, 3000);
      assert.deepEqual(got.got, ref);
      assert.equal(got.lines, 3000);
      // and the next block is split again
      const before = splits(e);
      const calm = noise + noise;
      assert.deepEqual(viaBytes(e, calm).got, reference(MatchEngine.build(entries), calm));
      assert.equal(splits(e), before + 1);
      accounted(e);
    } finally {
      e.stopScanThread();
    }
  });

  it('a thread that never answers: every part is scanned here, and the helper is given up at its next job', () => {
    // a thread that starts but never looks at its jobs (it hangs): this thread takes every part
    // (none is begun), and the next block's post finds the last job undone within the timeout
    const hung = (_source: string, _data: object) => new Worker('setInterval(() => {}, 1000)', { eval: true });
    const e = MatchEngine.build(toEntries(records));
    assert.equal(e.useScanThread(hung, 200), true);
    try {
      const first = viaBytes(e, text);
      assert.deepEqual(first.got, want);
      assert.equal(splits(e), 1);
      assert.equal(native(e).stolen, native(e).parts, 'this thread scanned every part');
      const t0 = Date.now();
      assert.deepEqual(viaBytes(e, text).got, want);
      assert.ok(Date.now() - t0 < 5000, 'one timeout, not one per part');
      assert.equal(splits(e), 1, 'given up: the block is not split');
      assert.deepEqual(viaBytes(e, text).got, want);
      assert.equal(splits(e), 1);
    } finally {
      e.stopScanThread();
    }
  });

  it('a thread that takes parts and never finishes them: after one timeout this thread scans them, with the same results', () => {
    // (white box: the control words of wasmScan.ts ScanHelper: job at 0, parts at 2, a part's
    // status word at 32 + k * 16 + 15; it claims every part, as the helper does, then hangs. Word
    // 31, unused, says it is waiting for the job)
    const source = `
      const { workerData } = require('node:worker_threads');
      const c = new Int32Array(workerData.ctl);
      Atomics.store(c, 31, 1);
      Atomics.notify(c, 31);
      while (Atomics.load(c, 0) === 0);
      for (let k = 0; k < c[2]; k++) Atomics.compareExchange(c, 32 + k * 16 + 15, 0, 1);
      setInterval(() => {}, 1000);`;
    let ctl: Int32Array | undefined;
    const stuck = (_source: string, data: object) => {
      ctl = new Int32Array((data as { ctl: SharedArrayBuffer }).ctl);
      return new Worker(source, { eval: true, workerData: data });
    };
    const e = MatchEngine.build(toEntries(records));
    assert.equal(e.useScanThread(stuck, 200), true);
    // (the thread spins on its job word before the scan posts it, so it mostly claims the parts
    // while the scan's first part is scanned here; a part this thread takes first is stolen)
    assert.notEqual(Atomics.wait(ctl!, 31, 0, 10_000), 'timed-out', 'the thread started');
    try {
      const t0 = Date.now();
      assert.deepEqual(viaBytes(e, text).got, want);
      assert.ok(Date.now() - t0 < 5000, 'one timeout, not one per part');
      assert.equal(splits(e), 1);
      assert.equal(native(e).refits + native(e).stolen, native(e).parts, 'every part scanned here');
      assert.equal(native(e).helped, 0);
      assert.deepEqual(viaBytes(e, text).got, want);
      assert.equal(splits(e), 1, 'given up: the next block is not split');
    } finally {
      e.stopScanThread();
    }
  });

  it('no thread where none can be started: useScanThread is false and scans go on in this thread', () => {
    const e = MatchEngine.build(toEntries(records));
    assert.equal(e.useScanThread(() => { throw new Error('no threads here'); }), false);
    assert.deepEqual(viaBytes(e, text).got, want);
    assert.equal(splits(e), 0);
  });
});

describe('engine: blocks staged ahead of their walk (stageBytes, core/lineScan BlocksAhead)', function () {
  this.timeout(120_000);
  const records = generateRecords(3000, 5);
  let text = '';
  generateLog({ records, bytes: 600_000, matchFraction: 0.2, nearMissFraction: 0.2, seed: 12 }, (c) => (text += c), () => undefined);
  const entries = toEntries(records);

  /** The input as a stream of chunks: full 1 MiB reads, odd sizes and a few bytes (blocks of every
   * size: a read's block, the few lines after a short read, one block per byte range). */
  function chunked(input: Buffer, seed: number): Readable {
    const r = rng(seed);
    const chunks: Buffer[] = [];
    for (let i = 0; i < input.length; ) {
      const x = r();
      const size = x < 0.5 ? 1 << 20 : x < 0.8 ? 1 + Math.floor(r() * 400_000) : 1 + Math.floor(r() * 300);
      chunks.push(input.subarray(i, i + size));
      i += size;
    }
    return Readable.from(chunks);
  }

  /** The input as a file is read (a ByteSource: reads right into the scan's buffers, each as large
   * as asked or, now and then, shorter), with the reads in flight counted in `reading`. */
  function fileOf(input: Buffer, seed: number, reading: { now: number; most: number } = { now: 0, most: 0 }): ByteSource {
    const r = rng(seed);
    let pos = 0;
    return {
      readInto: async (buf, at, n) => {
        reading.now++;
        reading.most = Math.max(reading.most, reading.now);
        await new Promise((resolve) => setImmediate(resolve));
        const k = Math.min(n, input.length - pos, r() < 0.7 ? n : 1 + Math.floor(r() * n));
        buf.set(input.subarray(pos, pos + k), at);
        pos += k;
        reading.now--;
        return k;
      },
    };
  }

  type Seen = [number, string][];
  async function scan(e: MatchEngine, input: Buffer, seed: number, stopAfter = Infinity, asFile = false): Promise<{ lines: number; seen: Seen }> {
    const seen: Seen = [];
    let chunks = 0;
    const st = await forEachMatchingLine(
      asFile ? fileOf(input, seed) : chunked(input, seed),
      e,
      (n, hits) => {
        for (const m of hits.matches()) seen.push([n, `${m.entry}@${m.start}-${m.end}:${m.text}`]);
      },
      async () => ++chunks < stopAfter,
      { ahead: true },
    );
    return { lines: st.lines, seen };
  }

  // ~6 MB of log lines, a 4.5 MB line (longer than a block: matched between blocks) with a match at
  // its end, and more lines after it
  const lines = text.split('\n').filter((l) => l.length > 0);
  const planted = lines.find((l) => MatchEngine.build(entries).matchLine(l).length > 0)!;
  const input = Buffer.from(text.repeat(6) + 'x'.repeat(4_500_000) + ' ' + planted + '\n' + text.repeat(3), 'utf8');
  let want: { lines: number; seen: Seen };

  before(async () => {
    // one thread: the same reader and order, nothing staged
    want = await scan(MatchEngine.build(entries), input, 1);
    assert.ok(want.seen.length > 3000, `${want.seen.length} matches`);
    // which are matchLine's on each line
    const e = MatchEngine.build(entries);
    const ref: Seen = [];
    const all = input.toString('utf8').split('\n');
    all.pop();
    all.forEach((l, i) => {
      for (const m of e.matchLine(l)) ref.push([i + 1, `${m.entry}@${m.start}-${m.end}:${m.text}`]);
    });
    assert.equal(want.lines, all.length);
    assert.deepEqual(want.seen, ref);
  });

  /** An engine over the entries with a scan thread (`start`, given up after `timeoutMs`), stopped
   * after `body`. */
  async function withThread(body: (e: MatchEngine) => unknown, start = spawn, timeoutMs?: number): Promise<void> {
    const e = MatchEngine.build(entries);
    assert.equal(e.useScanThread(start, timeoutMs), true);
    try {
      await body(e);
    } finally {
      e.stopScanThread();
    }
  }

  /** No staged block waits for its walk: a block that is not staged splits again, with the
   * results of matchLine. */
  function assertFreed(e: MatchEngine): void {
    const before = splits(e);
    assert.deepEqual(viaBytes(e, text).got, reference(MatchEngine.build(entries), text));
    assert.equal(splits(e), before + 1, 'the staged blocks were freed');
  }

  it('the same lines and matches as one thread, whatever the chunks; every large block staged, and each part scanned once', async () => {
    await withThread(async (e) => {
      for (const seed of [1, 2, 3]) {
        const before = native(e).staged;
        const got = await scan(e, input, seed);
        assert.equal(got.lines, want.lines);
        assert.deepEqual(got.seen, want.seen);
        assert.ok(native(e).staged - before >= 4, `${native(e).staged - before} blocks staged`);
      }
      accounted(e);
      assert.ok(native(e).helped > 0, 'the helper scanned parts');
    });
  });

  it('a file (read right into the scanner\'s memory): every staged block scanned where it was read, not copied, with the same lines and matches; one read in flight at a time', async () => {
    await withThread(async (e) => {
      // (lines only, then with the long line: its larger buffer is not the scanner's, and the
      // blocks after it are read into the scanner's buffers again)
      const lines = Buffer.from(text.repeat(8), 'utf8');
      const ofLines = await scan(MatchEngine.build(entries), lines, 1);
      for (const [body, ref, seed] of [[lines, ofLines, 4], [input, want, 5]] as const) {
        const before = { staged: native(e).staged, inPlace: native(e).inPlace, parts: native(e).parts };
        const reading = { now: 0, most: 0 };
        const seen: Seen = [];
        const st = await forEachMatchingLine(fileOf(body, seed, reading), e, (n, hits) => {
          for (const m of hits.matches()) seen.push([n, `${m.entry}@${m.start}-${m.end}:${m.text}`]);
        }, undefined, { ahead: true });
        assert.equal(st.lines, ref.lines);
        assert.deepEqual(seen, ref.seen);
        const staged = native(e).staged - before.staged;
        const parts = native(e).parts - before.parts;
        const inPlace = native(e).inPlace - before.inPlace;
        assert.ok(staged >= 4, `${staged} blocks staged`);
        // (every part of a staged block, and the later parts of the other split ones)
        if (body === lines) assert.equal(inPlace, parts);
        // (but those of the one block in the long line's larger buffer: at most 8 parts)
        else assert.ok(inPlace >= parts - 8 && inPlace > 0, `${inPlace} of ${parts} parts in place`);
        assert.equal(reading.most, 1);
      }
      accounted(e);
      assert.ok(native(e).helped > 0, 'the helper scanned parts');
    });
  });

  it('a file scan stopped by its output waits for the read it started ahead, and gives the scanner\'s buffers back: the next file scans take the same ones', async () => {
    await withThread(async (e) => {
      const reading = { now: 0, most: 0 };
      let chunks = 0;
      const st = await forEachMatchingLine(fileOf(input, 6, reading), e, () => undefined, async () => ++chunks < STAGED_AHEAD + 3, { ahead: true });
      assert.ok(st.lines > 0 && st.lines < want.lines, `${st.lines} lines`);
      assert.equal(reading.now, 0, 'no read in flight after the scan returned');
      const memory = native(e).memoryBytes;
      for (const seed of [7, 8]) assert.deepEqual(await scan(e, input, seed, Infinity, true), want);
      assert.equal(native(e).memoryBytes, memory, 'no new buffers');
      accounted(e);
    });
  });

  it('a file whose read fails mid-scan (one started ahead of the walk): the error is the read\'s, and the next file scans get the buffers back', async () => {
    await withThread(async (e) => {
      const ok = fileOf(input, 9);
      let reads = 0;
      const failing: ByteSource = {
        readInto: async (buf, at, n) => {
          if (++reads > STAGED_AHEAD + 4) throw new Error('EIO: the disk went away');
          return ok.readInto(buf, at, n);
        },
      };
      await assert.rejects(forEachMatchingLine(failing, e, () => undefined, undefined, { ahead: true }), /EIO: the disk went away/);
      const memory = native(e).memoryBytes;
      assert.deepEqual(await scan(e, input, 10, Infinity, true), want);
      assert.equal(native(e).memoryBytes, memory, 'no new buffers');
      accounted(e);
    });
  });

  it('a scan stopped by its output (afterChunk false) frees what it staged: the next scans split blocks again, with the same results', async () => {
    await withThread(async (e) => {
      const part = await scan(e, input, 1, 3);
      assert.ok(part.seen.length < want.seen.length);
      // a block that is not staged splits only where no staged block waits for its walk
      assertFreed(e);
      assert.deepEqual((await scan(e, input, 2)).seen, want.seen);
      accounted(e);
    });
  });

  it('an input that fails mid-scan frees what it staged (the error is the input\'s): the next scans split blocks again', async () => {
    await withThread(async (e) => {
      async function* failing() {
        yield input.subarray(0, 3_000_000);
        throw new Error('disk went away');
      }
      await assert.rejects(forEachMatchingLine(Readable.from(failing()), e, () => undefined, undefined, { ahead: true }), /disk went away/);
      assertFreed(e);
    });
  });

  it(`a block staged into the slot of one not walked yet (${STAGED_AHEAD + 1} later stages) makes that one an ordinary block: the same results, in any walk order`, async () => {
    await withThread(async (e) => {
      const block = (i: number) => {
        const b = new Uint8Array(Buffer.byteLength(text) + 32);
        b.set(Buffer.from(text.slice(0, text.length - i * 1000).replace(/[^\n]*$/, ''), 'utf8'));
        return b;
      };
      const blocks = Array.from({ length: STAGED_AHEAD + 2 }, (_, i) => block(i));
      const sizes = blocks.map((b) => b.indexOf(0));
      const staged = blocks.map((b, i) => e.stageBytes(b, sizes[i]!));
      assert.ok(staged.every((x) => x !== undefined), 'every block staged');
      const matches = (i: number) => {
        const got: Got = [];
        e.matchBytes(blocks[i]!, sizes[i]!, (j, ms, line) => got.push([j, ms, line]));
        return got;
      };
      const viaStaged = (i: number) => {
        const got: Got = [];
        e.scanBytes(blocks[i]!, sizes[i]!, (j, hits) => got.push([j, hits.matches(), hits.text()]), staged[i]);
        return got;
      };
      const ref = (i: number) => reference(MatchEngine.build(entries), Buffer.from(blocks[i]!.subarray(0, sizes[i]!)).toString('utf8'));
      const stagedBefore = native(e).staged;
      // block 0's slot was staged into again by the last block: it is walked as an ordinary one,
      // after the others (walked in order); then a block that was never staged
      for (let i = 1; i < blocks.length; i++) assert.deepEqual(viaStaged(i), ref(i), `block ${i}`);
      assert.deepEqual(viaStaged(0), ref(0), 'block 0');
      assert.equal(native(e).staged - stagedBefore, blocks.length - 1, 'all but block 0 walked as staged');
      assert.deepEqual(matches(2), ref(2));
      accounted(e);
    });
  });

  it('a live stream (ahead off, as for stdin): the lines of each read are matched before the next read, with the thread on', async () => {
    await withThread(async (e) => {
      const body = Buffer.from(text.repeat(3), 'utf8');
      const cuts: number[] = [];
      for (let at = 0; at < body.length; at += 200_000) cuts.push(at);
      cuts.push(body.length);
      let seen = 0;
      const late: string[] = [];
      const ref = MatchEngine.build(entries);
      async function* reads() {
        for (let k = 0; k + 1 < cuts.length; k++) {
          yield body.subarray(cuts[k]!, cuts[k + 1]!);
          // read k + 1 is asked for once read k - 1 was handed on (the stream holds one read): by
          // then the matched lines that ended in read k - 1 are reported
          if (k === 0) continue;
          const whole = body.subarray(0, cuts[k]!).lastIndexOf(10) + 1;
          const want = reference(ref, body.subarray(0, whole).toString('utf8')).length;
          if (seen < want) late.push(`read ${k - 1}: ${seen} of ${want} lines`);
        }
      }
      const st = await forEachMatchingLine(Readable.from(reads(), { highWaterMark: 1 }), e, () => seen++, undefined, { ahead: false });
      assert.deepEqual(late, []);
      assert.equal(st.lines, body.toString('utf8').split('\n').length - 1);
    });
  });

  it('a thread that never answers: staged blocks are scanned here, after one timeout', async () => {
    const hung = (_source: string, _data: object) => new Worker('setInterval(() => {}, 1000)', { eval: true });
    await withThread(async (e) => {
      const t0 = Date.now();
      const got = await scan(e, input, 3);
      assert.ok(Date.now() - t0 < 20_000, 'one timeout, not one per block');
      assert.equal(got.lines, want.lines);
      assert.deepEqual(got.seen, want.seen);
      // (a file's parts, in the scanner's memory, are scanned where they are here too)
      assert.deepEqual(await scan(e, input, 4, Infinity, true), want);
      assert.equal(native(e).helped, 0);
    }, hung, 200);
  });
});
