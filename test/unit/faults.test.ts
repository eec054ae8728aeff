// Faults (issue 6): a record file rewritten while it is loaded, the disk filling up while the
// dataset is cached, and a hover arriving while a huge document is scanned.
// (A read-only cache folder is in dataset.test.ts; cancelling a diagnostics scan mid-way in
// server-documents.test.ts and test/protocol/robustness.test.ts.)
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CancellationTokenSource } from 'vscode-languageserver';
import { DatasetStore } from '../../server/src/core/dataset/store';
import { loadRecordsFromPath, parseRecordText } from '../../server/src/core/load';
import { formatSnippet, surroundWithTry } from '../../server/src/core/snippet';
import { documentDiagnostics } from '../../server/src/server/features/diagnostics';
import { hover } from '../../server/src/server/features/hover';
import { Cancelled } from '../../server/src/server/runSafe';
import { FixtureServer, listFiles } from '../shared/datasetServer';
import { makeCtx } from './server-ctx';
import { tempDir } from '../shared/paths';

let tmp = '';
before(() => {
  tmp = tempDir('faults');
});
after(() => tmp && fs.rmSync(tmp, { recursive: true, force: true }));

describe('faults', function () {
  this.timeout(120_000);

  describe('a record file rewritten while it is being loaded', () => {
    // Two versions of one file with disjoint record sets; a writer process rewrites the file with
    // them alternately while the loader loads it again and again.
    const N = 300;
    const version = (tag: string) =>
      JSON.stringify(
        Array.from({ length: N }, (_, i) => ({ errorMessage: `${tag} failure number ${i} in the widget layer`, documentation: `${tag} `.repeat(40) })),
        null,
        2,
      );
    const A = version('alpha');
    const B = version('bravo');
    const setOf = (text: string) => JSON.stringify((JSON.parse(text) as { errorMessage: string }[]).map((r) => r.errorMessage).sort());
    const wantA = setOf(A);
    const wantB = setOf(B);

    async function loadWhileRewriting(mode: 'rename' | 'in-place'): Promise<{ a: number; b: number; other: string[] }> {
      const file = path.join(tmp, `rewritten-${mode}.json`);
      const fa = path.join(tmp, `a-${mode}.json`);
      const fb = path.join(tmp, `b-${mode}.json`);
      fs.writeFileSync(fa, A);
      fs.writeFileSync(fb, B);
      fs.writeFileSync(file, A);
      const writer = path.join(tmp, `writer-${mode}.js`);
      fs.writeFileSync(
        writer,
        mode === 'rename'
          ? // atomic replace: a temp file renamed over the record file (what most tools do)
            `const fs=require('fs');const [f,a,b]=process.argv.slice(2);const t=[fs.readFileSync(a),fs.readFileSync(b)];` +
              `for(let i=0;!fs.existsSync(f+'.stop');i++){fs.writeFileSync(f+'.tmp',t[i%2]);fs.renameSync(f+'.tmp',f);}`
          : // in place: truncate, then write in 4 KB pieces 1 ms apart (a plain save to a slow disk),
            // a new save every ~30 ms
            `const fs=require('fs');const [f,a,b]=process.argv.slice(2);const t=[fs.readFileSync(a),fs.readFileSync(b)];` +
              `const nap=(ms)=>Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0,ms);` +
              `for(let i=0;!fs.existsSync(f+'.stop');i++){const d=t[i%2];const fd=fs.openSync(f,'w');` +
              `for(let o=0;o<d.length;o+=4096){fs.writeSync(fd,d,o,Math.min(4096,d.length-o));nap(1);}fs.closeSync(fd);nap(30);}`,
      );
      const child = spawn(process.execPath, [writer, file, fa, fb], { stdio: 'ignore' });
      const counts = { a: 0, b: 0, other: [] as string[] };
      try {
        const end = Date.now() + 4000;
        for (let i = 0; i < 40 && Date.now() < end; i++) {
          const r = await loadRecordsFromPath(file);
          const got = JSON.stringify(r.records.map((x) => x.errorMessage).sort());
          if (got === wantA && r.problems.length === 0) counts.a++;
          else if (got === wantB && r.problems.length === 0) counts.b++;
          else counts.other.push(`${r.records.length} records, problems: ${r.problems.map((p) => p.message).slice(0, 2).join(' | ')}`);
        }
      } finally {
        // the writer stops after a complete write
        fs.writeFileSync(file + '.stop', '');
        const t = setTimeout(() => child.kill(), 20_000);
        await new Promise((res) => (child.exitCode !== null || child.signalCode !== null ? res(null) : child.once('exit', res)));
        clearTimeout(t);
      }
      // after the writer stops, the file loads in full
      const last = await loadRecordsFromPath(file);
      assert.equal(last.records.length, N);
      return counts;
    }

    it('replaced atomically (rename): every load gives the old or the new records, whole', async () => {
      const c = await loadWhileRewriting('rename');
      assert.deepEqual(c.other, [], 'never a mix, a partial set or a problem');
      assert.ok(c.a + c.b > 0);
    });

    it('rewritten in place: every load gives the old or the new records, whole, never a half-record', async () => {
      const c = await loadWhileRewriting('in-place');
      assert.deepEqual(c.other, [], 'never a mix, a partial set or a problem');
      assert.ok(c.a + c.b > 0);
    });
  });

  describe('the disk fills up while the dataset is cached', () => {
    let server: FixtureServer;
    let dir = '';
    // the CommonJS module object (writable) that the dataset code reads fs functions from
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const nodeFs: typeof fs = require('node:fs');
    const realWriteSync = fs.writeSync;
    const realWriteFileSync = fs.writeFileSync;
    before(async () => {
      server = await FixtureServer.start();
    });
    after(async () => {
      await server.close();
    });
    afterEach(() => {
      nodeFs.writeSync = realWriteSync;
      nodeFs.writeFileSync = realWriteFileSync;
    });

    const enospc = (): NodeJS.ErrnoException => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });

    /** Makes writes to files whose name matches `target` fail with ENOSPC (fs is injected by patching the module object). */
    function diskFullFor(target: RegExp): void {
      const fdPaths = new Map<number, string>();
      const realOpenSync = fs.openSync;
      nodeFs.openSync = ((p: fs.PathLike, ...rest: unknown[]) => {
        const fd = (realOpenSync as (...a: unknown[]) => number)(p, ...rest);
        fdPaths.set(fd, String(p));
        return fd;
      }) as typeof fs.openSync;
      nodeFs.writeSync = ((fd: number, ...rest: unknown[]) => {
        if (target.test(path.basename(fdPaths.get(fd) ?? ''))) throw enospc();
        return (realWriteSync as (...a: unknown[]) => number)(fd, ...rest);
      }) as typeof fs.writeSync;
      nodeFs.writeFileSync = ((p: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
        if (typeof p !== 'number' && target.test(path.basename(String(p)))) throw enospc();
        return (realWriteFileSync as (...a: unknown[]) => void)(p, ...rest);
      }) as typeof fs.writeFileSync;
      afterEachRestore.push(() => (nodeFs.openSync = realOpenSync));
    }
    const afterEachRestore: (() => void)[] = [];
    afterEach(() => {
      for (const f of afterEachRestore.splice(0)) f();
    });

    // where the disk fills up: the downloaded index, the prepared rows, the head, repos.json, state.json
    const places: [string, RegExp][] = [
      ['while downloading the index', /^index\.download$/],
      ['while preparing the index rows', /^index\.rows$/],
      ['while writing the prepared head', /^index\.head\.json$/],
      ['while writing repos.json', /^repos\.json$/],
      ['while writing state.json', /^state\.json/],
    ];
    for (const [name, target] of places) {
      it(`${name}: the previous version stays live, the failure is a write failure reported once`, async () => {
        dir = fs.mkdtempSync(path.join(tmp, 'cache-'));
        let clock = Date.parse('2026-11-29T12:00:00Z');
        const s = new DatasetStore({ cacheDir: dir, url: server.base(`full-${name.length}`, 'current'), now: () => clock });
        const first = await s.sync({ optIn: true });
        assert.equal(first.status, 'updated', first.reason);
        const before = s.status().datasetVersion;
        const records = (await s.loadRecords(['*'])).length;
        server.setVariant(`full-${name.length}`, 'next');

        diskFullFor(target);
        clock += 1000;
        const r = await s.sync({ force: true });
        assert.equal(r.status, 'failed');
        assert.equal(s.status().failure?.kind, 'write', `kind of: ${r.reason}`);
        assert.match(r.reason ?? '', /ENOSPC/);
        assert.ok(r.notify, 'the first failure is reported');
        clock += 1000;
        const again = await s.sync({ force: true });
        assert.equal(again.status, 'failed');
        assert.equal(again.notify, undefined, 'the same failure is not reported again');

        assert.equal(s.status().datasetVersion, before, 'the previous version stays live');
        assert.equal((await s.loadRecords(['*'])).length, records);
        const left = listFiles(dir).filter((f) => f.includes('.tmp-') || f.endsWith('index.download'));
        assert.deepEqual(left, [], 'no partial files left behind');

        // space again: the next sync succeeds
        nodeFs.writeSync = realWriteSync;
        nodeFs.writeFileSync = realWriteFileSync;
        for (const f of afterEachRestore.splice(0)) f();
        clock += 1000;
        const ok = await s.sync({ force: true });
        assert.equal(ok.status, 'updated', ok.reason);
        assert.notEqual(s.status().datasetVersion, before);
      });
    }
  });

  describe('oversized record content', () => {
    it('a snippet of 300k lines is formatted and surrounds a selection without throwing', () => {
      const code = 'try:\n' + '    x()\n'.repeat(300_000) + 'except Exception:\n    {selection}\n';
      const rec = parseRecordText(JSON.stringify({ errorMessage: 'snippet flood record here', tryCatchPattern: code }), 'flood.json').records[0]!;
      const target = { languageId: 'python', indent: '    ', insertSpaces: true, tabSize: 4, eol: '\n' as const };
      const out = formatSnippet(code, rec, target);
      assert.equal(out.split('\n').filter((l) => l === '        x()').length, 300_000);
      surroundWithTry(code, 'pass', rec, target);
    });
  });

  describe('a huge document in the language server', () => {
    it('a hover is answered while diagnostics of a huge log are still being computed; a cancelled scan resumes after an edit', async () => {
      const ctx = makeCtx();
      const filler = 'INFO 2026-08-28 worker heartbeat ok, nothing to report here at all\n';
      const hit = '[x] ERROR: MMError: encode metadata not ready\n';
      const doc = ctx.documents.open('file:///huge.log', 'log', 1, hit + filler.repeat(300_000) + hit);

      const source = new CancellationTokenSource();
      let diagnosticsDone = false;
      const diags = documentDiagnostics(ctx, doc, source.token).finally(() => (diagnosticsDone = true));
      const t0 = performance.now();
      const h = await hover(ctx, { textDocument: { uri: doc.uri }, position: { line: 0, character: hit.indexOf('encode') } });
      const hoverMs = performance.now() - t0;
      assert.ok(h, 'hover answered');
      assert.equal(diagnosticsDone, false, 'the hover did not wait for the whole scan');
      assert.ok(hoverMs < 2000, `hover took ${hoverMs} ms`);

      source.cancel(); // the user moved on
      await assert.rejects(diags, (e) => e instanceof Cancelled);
      // ...and edited the document: the next request scans the rest and sees the edit
      doc.apply([{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: hit }], 2);
      const report = await documentDiagnostics(ctx, doc);
      assert.deepEqual(
        report.items.map((d) => d.range.start.line),
        [0, 1, 300_002],
      );
      assert.deepEqual(ctx.errors, []);
    });
  });
});
