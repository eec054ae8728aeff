// Frames decide between records; frames and quoted code are never matches of their own
// (core/catalog: explainBlocks, matchLineInBlock, rankMatch), on the real traces and the real
// records of test/fixtures/traces (extracted from this machine's Python standard library and
// node_modules).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findBlocks, framePathMatches } from '../../server/src/core/blocks';
import { Catalog, type RecordMatch, continuesTrace, explainBlocks, matchLineInBlock, rankMatch, recordMatch, traceAt, traceChoice } from '../../server/src/core/catalog';
import { parseRecordText } from '../../server/src/core/load';
import { TRACES, traceFiles, traceLines } from './traces';

const records = parseRecordText(fs.readFileSync(path.join(TRACES, 'records.json'), 'utf8'), 'records.json').records;
const catalog = new Catalog(records);

function lineWith(lines: readonly string[], text: string): number {
  const i = lines.findIndex((l) => l.includes(text));
  assert.ok(i >= 0, `no line with ${text}`);
  return i;
}

describe('catalog with error blocks', () => {
  it('the records are real and ambiguous: several files raise the same messages', () => {
    assert.ok(records.length >= 40);
    const byPattern = new Map<string, Set<string>>();
    for (const r of records) byPattern.set(r.messagePattern, (byPattern.get(r.messagePattern) ?? new Set()).add(r.filePath!));
    assert.ok([...byPattern.values()].filter((s) => s.size > 1).length >= 8);
  });

  it('on every real trace, the first record comes from the raising frame\'s file whenever one of that file matches', () => {
    let decided = 0;
    for (const name of traceFiles()) {
      const lines = traceLines(name);
      for (const b of explainBlocks(catalog, lines).blocks) {
        const raising = b.block.frames[b.block.raising];
        if (!raising || !b.matches.length) continue;
        const fromRaising = b.matches.filter((m) => m.record.filePath && framePathMatches(raising.file, m.record.filePath));
        if (!fromRaising.length) continue;
        decided++;
        const top = b.matches[0]!;
        assert.ok(top.record.filePath && framePathMatches(raising.file, top.record.filePath), `${name} block ${b.block.first}: ${top.record.filePath} ranked first, raised at ${raising.file}`);
        assert.deepEqual(top.frame && { index: top.frame.index, distance: top.frame.distance }, { index: b.block.raising, distance: 0 });
        assert.ok(top.confidence.reasons.some((r) => /raised at a frame|its file is in the stack trace/.test(r)), top.confidence.reasons.join('; '));
        assert.ok(top.confidence.reasons.includes('the exception line of a stack trace'));
      }
    }
    assert.ok(decided >= 15, `only ${decided} blocks had a record of the raising file`);
  });

  it('where two files raise the same message, the traceback says which (shutil, not distutils; queue, not asyncio; bz2, not gzip)', () => {
    const cases: [string, string, string][] = [
      ['python/shutil_archive.txt', 'shutil.py', 'distutils/archive_util.py'],
      ['python/queue_task_done.txt', 'queue.py', 'asyncio/queues.py'],
      ['python/asyncio_task_done.txt', 'asyncio/queues.py', 'queue.py'],
      ['python/bz2_mode.txt', 'bz2.py', 'gzip.py'],
      ['python/lzma_encoding.txt', 'lzma.py', 'bz2.py'],
      ['python/threading_wait.txt', 'threading.py', 'asyncio/locks.py'],
    ];
    for (const [name, want, other] of cases) {
      const lines = traceLines(name);
      const [b] = explainBlocks(catalog, lines).blocks;
      const files = b!.matches.map((m) => m.record.filePath);
      assert.equal(files[0], want, `${name}: ${files.join(', ')}`);
      assert.ok(files.includes(other), `${name}: the other file's record matches too`);
      assert.equal(b!.matches[0]!.frame?.line, true, 'the frame line is the record\'s raise line');
      // without the traceback (the exception line alone) nothing tells them apart this way
      const alone = catalog.matchLine(lines[b!.block.exceptions[0]!.lineIndex]!);
      assert.ok(alone.every((m) => m.frame === undefined));
    }
  });

  it('a package and its copy bundled into another: the frames name the package (picomatch, not tsx\'s bundle)', () => {
    for (const name of ['node/picomatch_empty.txt', 'node/esm_throw.txt']) {
      const lines = traceLines(name);
      const [b] = explainBlocks(catalog, lines).blocks;
      assert.deepEqual(b!.matches.map((m) => m.record.filePath), ['picomatch/lib/picomatch.js', 'tsx/dist/cli.mjs'], name);
      assert.equal(b!.matches[0]!.frame?.line, true);
      assert.equal(b!.matches[1]!.frame, undefined);
    }
    const colors = traceLines('node/inspect_colors.txt');
    const [c] = explainBlocks(catalog, colors).blocks;
    assert.equal(c!.matches[0]!.record.filePath, 'fill-range/index.js', 'also through ANSI colours');
  });

  it('frames, quoted code and other lines of a block are never matches of their own', () => {
    for (const name of traceFiles()) {
      const lines = traceLines(name);
      const ex = explainBlocks(catalog, lines);
      for (const l of ex.lines) for (const b of ex.blocks) assert.ok(l.line < b.block.first || l.line > b.block.last, `${name}:${l.line + 1} is in a block`);
      for (const b of ex.blocks) {
        for (let i = b.block.first; i <= b.block.last; i++) {
          const role = b.block.roles[i - b.block.first];
          const ms = matchLineInBlock(catalog, lines[i]!, i, b.block);
          if (role !== 'exception') assert.deepEqual(ms, [], `${name}:${i + 1} (${role}) ${lines[i]}`);
        }
      }
    }
    // the quoted raise statement matches the record on its own text, but it is context here
    const sh = traceLines('python/shutil_archive.txt');
    const quoted = lineWith(sh, 'raise ValueError("unknown archive format');
    const b = findBlocks(sh)[0]!;
    assert.deepEqual(matchLineInBlock(catalog, sh[quoted]!, quoted, b), []);
  });

  it('outside blocks: the plain matches, unchanged', () => {
    const lines = ['2026-12-01 ERROR unknown archive format \'zip\'', 'plain'];
    const ex = explainBlocks(catalog, lines);
    assert.equal(ex.blocks.length, 0);
    assert.deepEqual(ex.lines.map((l) => l.line), [0]);
    assert.deepEqual(ex.lines[0]!.matches.map((m) => m.record.id), catalog.matchLine(lines[0]!).map((m) => m.record.id));
    assert.deepEqual(matchLineInBlock(catalog, lines[0]!, 0, undefined).map((m) => m.record.id), catalog.matchLine(lines[0]!).map((m) => m.record.id));
  });

  it('a chain is one trace: Python\'s primary block is the last, Java\'s and Node\'s the first; the others only when it has no match', () => {
    const py = traceLines('python/json_cause.txt');
    const pb = findBlocks(py);
    assert.equal(pb.length, 2);
    assert.ok(continuesTrace(pb[0]!, pb[1]!));
    assert.ok(!continuesTrace(pb[1]!, pb[0]!));
    assert.deepEqual(traceAt(pb, 0), pb, 'the cause and the final exception: one trace');
    const ex = explainBlocks(catalog, py).blocks;
    const best = ex.map((b) => b.matches[0]);
    assert.equal(traceChoice(pb, [best[0], best[1] ?? best[0]]), 1, 'the final exception when it has a match');
    assert.equal(traceChoice(pb, [best[0], undefined]), 0, 'the cause when the final one has none');
    assert.equal(traceChoice(pb, [undefined, undefined]), -1);
    const java = findBlocks(traceLines('java/CausedBy.txt'));
    assert.ok(java.length >= 2 && java[1]!.chain === 'cause-of-previous' && continuesTrace(java[0]!, java[1]!));
    const some = best[0]!;
    assert.equal(traceChoice(java.slice(0, 2), [some, some]), 0, 'Java: the top exception');
    // blocks apart (a log line between) are separate traces
    const apart = findBlocks([...py.slice(0, pb[0]!.last + 1), '2026-12-01 09:00:00 INFO next', '', ...py.slice(pb[1]!.first)]);
    assert.ok(!continuesTrace(apart[0]!, apart[1]!));
    assert.equal(traceAt(apart, 0).length, 1);
  });

  it('rankMatch: the errorCode on the line first, then frames (raising before nearer before farther; line before file), then confidence', () => {
    const line = "ValueError: unknown archive format 'foo'";
    const base = catalog.matchLine(line);
    assert.ok(base.length >= 2);
    const [a, b] = base as [RecordMatch, RecordMatch];
    const withFrame = (m: RecordMatch, distance: number, lineHit: boolean, whole = true): RecordMatch => ({ ...m, frame: { index: distance, distance, line: lineHit, whole } });
    assert.ok(rankMatch(withFrame(b, 0, false), a) < 0, 'a frame beats no frame');
    assert.ok(rankMatch(withFrame(b, 0, false), withFrame(a, 1, true)) < 0, 'the raising frame beats a farther one');
    assert.ok(rankMatch(withFrame(b, 1, true), withFrame(a, 1, false)) < 0, 'at the same frame, the raise line beats the file');
    assert.ok(rankMatch(withFrame(b, 0, true, true), withFrame(a, 0, true, false)) < 0, 'then the whole path beats a copy nested in another package');
    assert.ok(rankMatch(withFrame(b, 0, false, false), withFrame(a, 1, true, true)) < 0, 'but the frame decides first');
    const coded = { ...a, match: { ...a.match, codeInLine: true } };
    assert.ok(rankMatch(coded, withFrame(b, 0, true)) < 0, 'the error code still comes first');
    assert.equal(recordMatch(a.record, a.match, line).frame, undefined);
  });
});
