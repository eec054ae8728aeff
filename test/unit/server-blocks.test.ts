// The language server's feature modules on error blocks: one diagnostic per block (range = the
// block's lines, frames as related information), no matches on frames or quoted code, the hover's
// "Raised at", code actions on block diagnostics, and blocks kept right through edits without
// re-matching the document.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import type { Diagnostic } from 'vscode-languageserver';
import { Catalog } from '../../server/src/core/catalog';
import { parseRecordText } from '../../server/src/core/load';
import { codeActions } from '../../server/src/server/features/codeActions';
import { documentDiagnostics } from '../../server/src/server/features/diagnostics';
import { hover } from '../../server/src/server/features/hover';
import { lineMatches, scanDocument } from '../../server/src/server/features/matching';
import { pathToUri } from '../../server/src/server/uri';
import { REPO, fixtureRecords, makeCtx } from './server-ctx';
import { TRACES, traceLines } from './traces';
import { editsMatchFresh } from './edits';

const traceRecords = () => parseRecordText(fs.readFileSync(path.join(TRACES, 'records.json'), 'utf8'), 'records.json').records;

function lineWith(lines: readonly string[], text: string, from = 0): number {
  const i = lines.findIndex((l, k) => k >= from && l.includes(text));
  assert.ok(i >= 0, `no line with ${text}`);
  return i;
}

/** A log of real traces between ordinary lines. */
function traceLog(): string[] {
  return [
    '2026-12-01 09:00:00 INFO backup starting',
    ...traceLines('python/shutil_archive.txt').filter((l) => l !== ''),
    '2026-12-01 09:00:01 INFO retrying',
    ...traceLines('node/picomatch_empty.txt').filter((l) => l !== ''),
    '2026-12-01 09:00:02 INFO done',
  ];
}

type Range = Diagnostic['range'];
const tuple = (r: Range) => [r.start.line, r.start.character, r.end.line, r.end.character];

describe('server: error blocks', () => {
  it('one diagnostic per block: its lines as the range, the record that raised it, the frames as related information', async () => {
    const ctx = makeCtx(traceRecords(), [REPO]);
    const lines = traceLog();
    const doc = ctx.documents.open('file:///tmp/traces.log', 'log', 1, lines.join('\n'));
    const { items } = await documentDiagnostics(ctx, doc);
    assert.equal(items.length, 2, items.map((d) => d.message).join('\n'));
    const [py, node] = items as [Diagnostic, Diagnostic];
    const pyFirst = lineWith(lines, 'Traceback (most recent call last)');
    const pyExc = lineWith(lines, "ValueError: unknown archive format 'foo'");
    assert.deepEqual(tuple(py.range), [pyFirst, 0, pyExc, lines[pyExc]!.length]);
    const nodeFirst = lineWith(lines, 'node_modules/picomatch/lib/picomatch.js:59', pyExc);
    const nodeLast = lineWith(lines, 'at node:internal/main/run_main_module', nodeFirst);
    assert.deepEqual(tuple(node.range), [nodeFirst, 0, nodeLast, lines[nodeLast]!.length]);
    // the records raised where the frames say (not distutils' copy of the message, not tsx's bundle)
    const rec = (d: Diagnostic) => ctx.catalog().get((d.data as { id: string }).id)!;
    assert.equal(rec(py).filePath, 'shutil.py');
    assert.equal(rec(node).filePath, 'picomatch/lib/picomatch.js');
    assert.equal((py.data as { line: number }).line, pyExc);
    // related information: the raising frame first, then outwards
    const rel = py.relatedInformation!;
    assert.match(rel[0]!.message, /^raised here: make_archive \(\/usr\/lib\/python3\.11\/shutil\.py:1105\)$/);
    assert.match(rel[1]!.message, /^called from <module> \(\/tmp\/ee-traces\/python\/shutil_archive\.py:2\)$/);
    // frames outside the workspace point at their line in the log
    assert.equal(rel[0]!.location.uri, doc.uri);
    const frameLine = lineWith(lines, 'File "/usr/lib/python3.11/shutil.py"');
    assert.deepEqual(tuple(rel[0]!.location.range), [frameLine, lines[frameLine]!.indexOf('/usr/lib'), frameLine, lines[frameLine]!.indexOf('", line')]);
    // a frame in a workspace file points there (node_modules/picomatch of this repository)
    const nrel = node.relatedInformation!;
    assert.equal(nrel[0]!.location.uri, pathToUri(path.join(REPO, 'node_modules/picomatch/lib/picomatch.js')));
    assert.deepEqual(tuple(nrel[0]!.location.range), [58, 10, 58, 10]);
    assert.match(nrel[0]!.message, /^raised here: picomatch /);
  });

  it('a chained traceback is one diagnostic, as the CLI reports it (traceChoice)', async () => {
    // pytest --tb=native: a worker's traceback, then "The above exception was the direct cause",
    // then the test's own traceback: one trace, one problem, on the last exception line
    const ctx = makeCtx(traceRecords(), [REPO]);
    const lines = traceLines('python/pytest_native.txt');
    const doc = ctx.documents.open('file:///tmp/chain.log', 'log', 1, lines.join('\n'));
    const { items } = await documentDiagnostics(ctx, doc);
    const blocks = doc.blocks.blocksIn(0, lines.length);
    assert.ok(blocks.length >= 3 && blocks[1]!.chain === 'caused-by-previous', String(blocks.length));
    const inChain = items.filter((d) => d.range.start.line <= blocks[1]!.last && d.range.end.line >= blocks[0]!.first);
    assert.equal(inChain.length, 1, items.map((d) => `${d.range.start.line}: ${d.message}`).join('\n'));
    assert.equal((inChain[0]!.data as { line: number }).line, blocks[1]!.exceptions[0]!.lineIndex);
    // the separate test after it is a trace of its own
    assert.equal(items.filter((d) => d.range.start.line >= blocks[2]!.first).length, 1);
  });

  it('frames, quoted code and the other lines of a block have no matches; the exception line has them in context', async () => {
    const ctx = makeCtx(traceRecords(), [REPO]);
    const lines = traceLog();
    const doc = ctx.documents.open('file:///tmp/t.log', 'log', 1, lines.join('\n'));
    await scanDocument(ctx, doc);
    const quoted = lineWith(lines, 'raise ValueError("unknown archive format');
    assert.ok(ctx.catalog().matchLine(lines[quoted]!).length > 0, 'the quoted line matches on its own text');
    assert.deepEqual(lineMatches(ctx, doc, quoted), []);
    for (const b of doc.blocks.blocks) {
      for (let i = b.first; i <= b.last; i++) if (b.roles[i - b.first] !== 'exception') assert.deepEqual(lineMatches(ctx, doc, i), [], lines[i]);
    }
    const exc = lineMatches(ctx, doc, lineWith(lines, "ValueError: unknown archive format 'foo'"));
    assert.equal(exc[0]!.record.filePath, 'shutil.py');
    assert.ok(exc[0]!.confidence.reasons.includes('the exception line of a stack trace'));
  });

  it('the hover on an exception line says where it was raised, and links the workspace file', async () => {
    const ctx = makeCtx(traceRecords(), [REPO]);
    const lines = traceLog();
    const uri = 'file:///tmp/h.log';
    ctx.documents.open(uri, 'log', 1, lines.join('\n'));
    const exc = lineWith(lines, 'TypeError: Expected pattern to be a non-empty string');
    const h = await hover(ctx, { textDocument: { uri }, position: { line: exc, character: lines[exc]!.indexOf('Expected') + 2 } });
    const md = (h!.contents as { value: string }).value;
    const target = pathToUri(path.join(REPO, 'node_modules/picomatch/lib/picomatch.js'));
    // the record is raised at the block's raising frame, a workspace file: the title's "raised at" is that frame, linked
    const title = md.split('\n')[0]!;
    assert.match(title, /^\*\*TypeError\*\* · /, md.slice(0, 300));
    assert.ok(title.includes(`raised at [\`…/lib/picomatch.js:59\`](${target}#L59,11)`), title);
    assert.equal(md.match(/raised at/gi)?.length, 1, 'one raise site in the hover');
    // outside the workspace: the record's own site (the printed file when it exists here, else its pinned permalink), named once
    const pyExc = lineWith(lines, "ValueError: unknown archive format 'foo'");
    const ph = await hover(ctx, { textDocument: { uri }, position: { line: pyExc, character: lines[pyExc]!.indexOf('unknown') } });
    const pmd = (ph!.contents as { value: string }).value;
    assert.match(pmd.split('\n')[0]!, /raised at \[`…\/[^`]*shutil\.py:\d+`\]\((?:https:\/\/github\.com\/|file:\/\/\/)/, pmd.slice(0, 300));
    assert.equal(pmd.match(/raised at/gi)?.length, 1, 'one raise site in the hover');
    // on a frame line: no record hover (the frame is context)
    const frame = lineWith(lines, 'File "/usr/lib/python3.11/shutil.py"');
    assert.equal(await hover(ctx, { textDocument: { uri }, position: { line: frame, character: lines[frame]!.indexOf('/usr/lib') } }), null);
  });

  it('code actions on a block diagnostic find the match on its exception line', async () => {
    const ctx = makeCtx(traceRecords(), [REPO]);
    const lines = traceLog();
    const uri = 'file:///tmp/c.log';
    const doc = ctx.documents.open(uri, 'log', 1, lines.join('\n'));
    const { items } = await documentDiagnostics(ctx, doc);
    const d = items[0]!;
    const actions = await codeActions(ctx, { textDocument: { uri }, range: d.range, context: { diagnostics: [d] } });
    const explain = actions.find((a) => a.title.startsWith('Explain'))!;
    const args = (explain.command!.arguments as { id: string; matchedText?: string }[])[0]!;
    assert.equal(args.id, (d.data as { id: string }).id);
    assert.equal(args.matchedText, "unknown archive format 'foo'", 'the match itself, from the exception line');
  });

  it('a frame appended under a stack extends its block and its diagnostic; only the edited lines are matched', async () => {
    const ctx = makeCtx();
    const catalog = new Catalog(fixtureRecords());
    let calls = 0;
    const orig = catalog.matchLine.bind(catalog);
    catalog.matchLine = (l: string) => (calls++, orig(l));
    ctx.setCatalog(catalog);
    const lines: string[] = [];
    for (let i = 0; i < 20_000; i++) lines.push(`INFO line ${i} all good`);
    lines.push('2026-12-01 ERROR payments: payment gateway stripe timed out after 30s', '    at charge (src/payments.ts:3:11)');
    const doc = ctx.documents.open('file:///big.log', 'log', 1, lines.join('\n'));
    const first = await documentDiagnostics(ctx, doc);
    assert.equal(first.items.length, 1);
    assert.deepEqual(tuple(first.items[0]!.range), [20_000, 0, 20_001, lines[20_001]!.length]);
    const n = calls;
    const last = doc.lineCount - 1;
    doc.apply([{ range: { start: { line: last, character: doc.line(last).length }, end: { line: last, character: doc.line(last).length } }, text: '\n    at main (src/main.ts:9:3)' }], 2);
    const second = await documentDiagnostics(ctx, doc);
    assert.notEqual(second.resultId, first.resultId);
    assert.equal(second.items.length, 1);
    assert.deepEqual(tuple(second.items[0]!.range), [20_000, 0, 20_002, doc.line(20_002).length]);
    assert.equal(second.items[0]!.relatedInformation!.filter((r) => /^(raised here|called from)/.test(r.message)).length, 2);
    assert.ok(calls - n <= 3, `${calls - n} lines matched again`);
  });

  it('a chained exception appended below a trace changes that trace\'s one problem (not a second one)', async () => {
    const ctx = makeCtx();
    const tb = (msg: string) => ['Traceback (most recent call last):', '  File "/srv/app/encoder/runtime.py", line 1295, in handle', `    raise MMError("${msg}")`, `MMError: ${msg}`];
    const first = tb('encode metadata not ready');
    // (a log ends with a line break: what is appended starts on the line after the trace)
    const doc = ctx.documents.open('file:///chain-append.log', 'log', 1, ['INFO start', ...first].join('\n') + '\n');
    const before = await documentDiagnostics(ctx, doc);
    assert.equal(before.items.length, 1);
    const appended = ['', 'During handling of the above exception, another exception occurred:', '', ...tb('encode metadata not ready')];
    const end = { line: doc.lineCount - 1, character: doc.line(doc.lineCount - 1).length };
    doc.apply([{ range: { start: end, end }, text: appended.join('\n') + '\n' }], 2);
    const after = await documentDiagnostics(ctx, doc);
    const fresh = await documentDiagnostics(ctx, ctx.documents.open('file:///chain-fresh.log', 'log', 1, doc.getText()));
    assert.equal(after.items.length, 1, after.items.map((d) => `${d.range.start.line}: ${d.message}`).join('\n'));
    assert.equal(after.items[0]!.range.start.line, fresh.items[0]!.range.start.line);
    assert.equal(after.items[0]!.range.start.line, lineWith(doc.getText().split('\n'), 'During handling'), 'on the chain\'s last exception');
  });

  it('diagnostics after any edit sequence equal those of the same text opened fresh, with blocks (property)', async () => {
    const ctx = makeCtx();
    ctx.settings.diagnostics.maxPerFile = 3;
    const lineArb = fc.constantFrom(
      'INFO ok',
      'E: encode metadata not ready',
      'W payment gateway g timed out after 3s',
      '',
      'Traceback (most recent call last):',
      '  File "/srv/app/encoder/runtime.py", line 1295, in handle',
      '    raise MMError("encode metadata not ready")',
      'MMError: encode metadata not ready',
      // (a chain: its trace is one problem, which an append below a trace changes)
      'During handling of the above exception, another exception occurred:',
      '    at charge (src/payments.ts:3:11)',
      'Error: payment gateway stripe timed out after 30s',
    );
    await editsMatchFresh(ctx, lineArb, { name: 'b', seed: 11, initialLines: 12 });
  });
});
