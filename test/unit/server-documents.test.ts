// TrackedDocument: incremental edits, the per-line match cache and "re-match only changed lines".
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { CancellationTokenSource } from 'vscode-languageserver';
import { Catalog } from '../../server/src/core/catalog';
import { TrackedDocument } from '../../server/src/server/state/documents';
import { documentDiagnostics } from '../../server/src/server/features/diagnostics';
import { lineMatches, lineMatchesNow, scanDocument } from '../../server/src/server/features/matching';
import { Cancelled, interactive, noteInput, yieldToEventLoop, yieldToInteractive } from '../../server/src/server/runSafe';
import { fixtureRecords, makeCtx } from './server-ctx';
import { editsMatchFresh } from './edits';

/** Reference: apply an LSP range edit to a plain string. */
function offsetAt(text: string, line: number, character: number): number {
  const lines = text.split(/\r\n|\r|\n/);
  line = Math.min(line, lines.length - 1);
  let off = 0;
  const breaks = text.match(/\r\n|\r|\n/g) ?? [];
  for (let i = 0; i < line; i++) off += lines[i]!.length + breaks[i]!.length;
  return off + Math.min(character, lines[line]!.length);
}

/** A catalog whose matchLine calls are counted. */
function countingCatalog(): { catalog: Catalog; calls: () => number } {
  const catalog = new Catalog(fixtureRecords());
  let n = 0;
  const orig = catalog.matchLine.bind(catalog);
  catalog.matchLine = (line: string) => {
    n++;
    return orig(line);
  };
  return { catalog, calls: () => n };
}

describe('server: TrackedDocument', () => {
  it('applies incremental edits exactly like a string edit (property)', () => {
    const chars = fc.constantFrom('a', 'b', ' ', '\n', '\r\n', 'é', '😀');
    const textArb = fc.array(chars, { maxLength: 40 }).map((a) => a.join(''));
    fc.assert(
      fc.property(
        textArb,
        fc.array(fc.tuple(fc.nat(8), fc.nat(12), fc.nat(8), fc.nat(12), textArb), { maxLength: 6 }),
        (initial, edits) => {
          const doc = new TrackedDocument('file:///x.log', 'log', 1, initial);
          let ref = initial;
          for (const [l1, c1, l2, c2, text] of edits) {
            // Clamp like LSP clients: positions inside the document, start <= end.
            const lines = ref.split(/\r\n|\r|\n/);
            const sl = Math.min(l1, lines.length - 1);
            const el = Math.min(l2, lines.length - 1);
            const s = { line: sl, character: Math.min(c1, lines[sl]!.length) };
            const e = { line: el, character: Math.min(c2, lines[el]!.length) };
            const [a, b] = offsetAt(ref, s.line, s.character) <= offsetAt(ref, e.line, e.character) ? [s, e] : [e, s];
            const from = offsetAt(ref, a.line, a.character);
            const to = offsetAt(ref, b.line, b.character);
            ref = ref.slice(0, from) + text + ref.slice(to);
            doc.apply([{ range: { start: a, end: b }, text }], doc.version + 1);
          }
          assert.deepEqual(doc.lines, ref.split(/\r\n|\r|\n/));
          assert.equal(doc.matches.length, doc.lines.length);
          assert.equal(doc.refs.length, doc.lines.length);
        },
      ),
      { seed: 42, numRuns: 300 },
    );
  });

  it('appending a line to a long log matches only that line and keeps diagnostics unchanged', async () => {
    const ctx = makeCtx();
    const { catalog, calls } = countingCatalog();
    ctx.setCatalog(catalog);
    const lines: string[] = [];
    for (let i = 0; i < 20_000; i++) lines.push(i % 1000 === 5 ? `E ${i}: encode metadata not ready` : `INFO line ${i} all good`);
    const doc = ctx.documents.open('file:///big.log', 'log', 1, lines.join('\n') + '\n');
    const first = await documentDiagnostics(ctx, doc);
    assert.equal(first.items.length, 20);
    assert.equal(calls(), 20_001);

    const last = doc.lineCount - 1;
    doc.apply([{ range: { start: { line: last, character: 0 }, end: { line: last, character: 0 } }, text: 'INFO appended\n' }], 2);
    const second = await documentDiagnostics(ctx, doc);
    assert.equal(calls(), 20_003, 'the edited line and the new empty last line only');
    assert.equal(second.resultId, first.resultId, 'no diagnostic changed');

    doc.apply([{ range: { start: { line: last + 1, character: 0 }, end: { line: last + 1, character: 0 } }, text: 'X encode metadata not ready\n' }], 3);
    const third = await documentDiagnostics(ctx, doc);
    assert.equal(calls(), 20_005);
    assert.notEqual(third.resultId, first.resultId);
    assert.equal(third.items.length, 21);
    assert.equal(third.items[20]!.range.start.line, last + 1);
  });

  it('inserting lines shifts cached results without re-matching them', async () => {
    const ctx = makeCtx();
    const { catalog, calls } = countingCatalog();
    ctx.setCatalog(catalog);
    const doc = ctx.documents.open('file:///a.log', 'log', 1, 'a\nencode metadata not ready\nb\n');
    const before = await documentDiagnostics(ctx, doc);
    assert.equal(before.items[0]!.range.start.line, 1);
    const n = calls();
    doc.apply([{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: 'new 1\nnew 2\n' }], 2);
    const after = await documentDiagnostics(ctx, doc);
    assert.equal(after.items[0]!.range.start.line, 3);
    assert.equal(calls() - n, 3, 'two inserted lines + the edited first line');
  });

  it('diagnostics after any edit sequence equal those of the same text opened fresh (property)', async () => {
    const ctx = makeCtx();
    ctx.settings.diagnostics.maxPerFile = 3;
    const lineArb = fc.constantFrom('INFO ok', 'E: encode metadata not ready', 'W payment gateway g timed out after 3s', '', 'x');
    await editsMatchFresh(ctx, lineArb, { name: 'p', seed: 7, initialLines: 10 });
  });

  it('scanning a huge document is cancellable between slices', async () => {
    const ctx = makeCtx();
    const text = 'INFO nothing here at all but some words to scan\n'.repeat(400_000);
    const doc = ctx.documents.open('file:///huge.log', 'log', 1, text);
    const source = new CancellationTokenSource();
    const t0 = performance.now();
    const p = scanDocument(ctx, doc, source.token);
    setImmediate(() => source.cancel());
    await assert.rejects(p, (e) => e instanceof Cancelled);
    assert.ok(performance.now() - t0 < 2000, 'cancelled promptly');
    assert.ok(doc.firstUnscanned < doc.lineCount, 'not finished');
  });

  it('a background scan steps aside while an interactive request (hover) is answered', async () => {
    const ctx = makeCtx();
    const text = 'INFO nothing here at all but some words to scan\n'.repeat(400_000);
    const doc = ctx.documents.open('file:///huge.log', 'log', 1, text);
    const scanned = (): number => doc.matches.reduce((n, m) => n + (m === undefined ? 0 : 1), 0);
    const p = scanDocument(ctx, doc);
    await yieldToEventLoop();
    // a request that takes 30 ms of waiting (its own work): no slice of the scan runs meanwhile
    let during = -1;
    let before = -1;
    await interactive(async () => {
      await yieldToEventLoop();
      before = scanned();
      await new Promise((r) => setTimeout(r, 30));
      during = scanned() - before;
    });
    assert.ok(before > 0 && before < doc.lineCount, `the scan had started and not finished (${before})`);
    assert.equal(during, 0, 'no lines matched while the request was in progress');
    await p;
    assert.equal(scanned(), doc.lineCount, 'the scan finishes after it');
  });

  it('a request for a line far past the parsed blocks gets the block a parse of the lines before it finds, without parsing every block before it; the scan then gives the same matches', async () => {
    const ctx = makeCtx();
    const trace = ['Traceback (most recent call last):', '  File "/srv/app/codec.py", line 12, in encode', '    raise ValueError("encode metadata not ready")', 'ValueError: encode metadata not ready'];
    const lines: string[] = [];
    for (let k = 0; k < 30_000; k++) lines.push(k % 500 === 7 ? trace[0]! : 'INFO nothing here at all', ...(k % 500 === 7 ? trace.slice(1) : []));
    lines.push('E: encode metadata not ready');
    const doc = ctx.documents.open('file:///far.log', 'log', 1, lines.join('\n') + '\n');
    const exception = lines.lastIndexOf(trace[3]!);
    const frame = lines.lastIndexOf(trace[1]!);
    const plain = lines.length - 1;
    const now = [exception, frame, plain].map((i) => lineMatchesNow(ctx, doc, i).map((m) => [m.record.id, m.match.start, m.match.end]));
    assert.ok(doc.blocks.freshTo < exception - 10_000, `the blocks before the line were not all parsed (fresh to ${doc.blocks.freshTo} of ${doc.lineCount})`);
    assert.equal(doc.matches[exception], undefined, 'the answer is not kept: the scan matches the line in the index\'s context');
    assert.ok(now[0]!.length > 0 && now[1]!.length === 0 && now[2]!.length > 0, JSON.stringify(now));
    await scanDocument(ctx, doc);
    assert.deepEqual([exception, frame, plain].map((i) => lineMatches(ctx, doc, i).map((m) => [m.record.id, m.match.start, m.match.end])), now);
  });

  it('input that arrived during a slice gets a few event-loop turns before the next slice of every background runner (its request reaches its handler); a stream of input does not stop the work', async () => {
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const turnsOf = async (input: boolean, stream = false): Promise<number> => {
      await yieldToInteractive(); // (input seen before this is not new)
      const t0 = turns;
      if (input) noteInput();
      let feeding = stream;
      const feed = (): void => {
        noteInput();
        if (feeding) setImmediate(feed);
      };
      if (stream) setImmediate(feed);
      await yieldToInteractive();
      feeding = false;
      return turns - t0;
    };
    // two background runners yielding at once after input: both give it the turns (when the first
    // to see it took them alone, the other's slice ran in them)
    const both = async (): Promise<number[]> => {
      await Promise.all([yieldToInteractive(), yieldToInteractive()]);
      const t0 = turns;
      noteInput();
      return Promise.all([yieldToInteractive().then(() => turns - t0), yieldToInteractive().then(() => turns - t0)]);
    };
    try {
      const quiet = await turnsOf(false);
      const after = await turnsOf(true);
      const flood = await turnsOf(true, true);
      assert.ok(quiet <= 2, `without input: back at once (${quiet} turns)`);
      assert.ok(after >= 4, `after input: a few turns first (${after})`);
      assert.ok(flood >= 4 && flood <= 70, `under a stream of input: at most 64 turns (${flood})`);
      const [a, b] = await both();
      assert.ok(a! >= 4 && b! >= 4, `both runners wait after input (${a}, ${b} turns)`);
      // a turn that takes long (a loaded machine, a GC pause) does not shorten the wait: it is
      // counted in turns, not only in time
      await yieldToInteractive();
      const t0 = turns;
      noteInput();
      setImmediate(() => {
        const until = performance.now() + 10;
        while (performance.now() < until) {
          /* a 10 ms turn */
        }
      });
      await yieldToInteractive();
      assert.ok(turns - t0 >= 4, `a long turn after the input: still a few turns (${turns - t0})`);
    } finally {
      ticking = false;
    }
  });

  it('a matcher that throws costs the line its matches, not the feature', () => {
    const ctx = makeCtx();
    const catalog = new Catalog(fixtureRecords());
    catalog.matchLine = () => {
      throw new Error('boom');
    };
    ctx.setCatalog(catalog);
    const doc = ctx.documents.open('file:///a.log', 'log', 1, 'encode metadata not ready');
    assert.deepEqual(lineMatches(ctx, doc, 0), []);
    assert.equal(ctx.errors.length, 1);
  });
});
