// The property both diagnostics suites check: after any sequence of edits (inserts, deletions,
// appends at the end, as an editor sends them), a document's diagnostics equal those of the same
// text opened fresh (so the incremental paths never drift from a full computation).
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Diagnostic } from 'vscode-languageserver';
import { documentDiagnostics } from '../../server/src/server/features/diagnostics';
import type { TestCtx } from './server-ctx';

export async function editsMatchFresh(ctx: TestCtx, lineArb: fc.Arbitrary<string>, opts: { name: string; seed: number; initialLines: number }): Promise<void> {
  const editArb = fc.tuple(fc.nat(12), fc.nat(3), fc.array(lineArb, { maxLength: 3 }), fc.boolean());
  let n = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(lineArb, { maxLength: opts.initialLines }), fc.array(editArb, { maxLength: 8 }), async (initial, edits) => {
      const doc = ctx.documents.open(`file:///${opts.name}${n++}.log`, 'log', 1, initial.join('\n'));
      await documentDiagnostics(ctx, doc);
      for (const [at, del, ins, append] of edits) {
        const line = append ? doc.lineCount - 1 : Math.min(at, doc.lineCount - 1);
        const endLine = append ? line : Math.min(line + del, doc.lineCount - 1);
        const endChar = append ? doc.line(line).length : 0;
        const text = append ? (ins.length ? '\n' + ins.join('\n') : '') : ins.map((l) => l + '\n').join('');
        doc.apply([{ range: { start: { line, character: append ? doc.line(line).length : 0 }, end: { line: endLine, character: endChar } }, text }], doc.version + 1);
        const got = await documentDiagnostics(ctx, doc);
        const fresh = ctx.documents.open(`file:///${opts.name}-fresh${n++}.log`, 'log', 1, doc.getText());
        const want = await documentDiagnostics(ctx, fresh);
        // (related information that points into the log itself names the fresh copy)
        const asDoc = (d: Diagnostic): Diagnostic =>
          d.relatedInformation ? { ...d, relatedInformation: d.relatedInformation.map((r) => (r.location.uri === fresh.uri ? { ...r, location: { ...r.location, uri: doc.uri } } : r)) } : d;
        assert.deepEqual(got.items, want.items.map(asDoc));
      }
    }),
    { seed: opts.seed, numRuns: 200 },
  );
}
