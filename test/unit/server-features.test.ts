// Feature modules in memory (no connection): hover, diagnostics, code actions, links, raise sites,
// file references, commands, settings, log detection, runSafe.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { CancellationTokenSource, LSPErrorCodes, ResponseError } from 'vscode-languageserver';
import { Catalog } from '../../server/src/core/catalog';
import { parseRecordText } from '../../server/src/core/load';
import type { ErrorRecord } from '../../server/src/core/record';
import { candidateRecords, codeActions, stringLiterals } from '../../server/src/server/features/codeActions';
import { commandUri, hoverActions } from '../../server/src/server/features/commandLinks';
import { documentDiagnostics, problemDiagnostics } from '../../server/src/server/features/diagnostics';
import { findFileRefs } from '../../server/src/core/fileRefs';
import { FileRefResolver } from '../../server/src/server/state/fileRefResolver';
import { hover } from '../../server/src/server/features/hover';
import { detectIndentation } from '../../server/src/core/indentation';
import { isLogLike } from '../../server/src/server/state/logKind';
import { locateInLines, messageFragment } from '../../server/src/core/raiseSite';
import { affectsSources, sourceSpecs } from '../../server/src/server/state/recordSources';
import { search } from '../../server/src/server/features/customRequests';
import { runSafe } from '../../server/src/server/runSafe';
import { SeenRecords } from '../../server/src/server/state/seen';
import { isExcluded, normalizeSettings } from '../../server/src/server/state/settings';
import { DEFAULT_SETTINGS, searchPageUrl, validSearchUrl } from '../../server/src/protocol';
import { pathToUri } from '../../server/src/server/uri';
import { FIXTURE, fixtureRecords, makeCtx } from './server-ctx';
import { positionOf } from '../shared/positions';

const ID_SEND = '063d2eac5107dda5';
const ID_META = '12c38bb1afed0ec1';

function userRecord(fields: Record<string, unknown>): ErrorRecord {
  const r = parseRecordText(JSON.stringify(fields), 'user.json');
  assert.equal(r.records.length, 1, JSON.stringify(r.problems));
  return r.records[0]!;
}

describe('server: hover and diagnostics (in memory)', () => {
  it('hover lists every record matching the span in rank order, range = top match', async () => {
    const extra = userRecord({ id: 'ab00ab00ab00ab00', errorMessage: 'metadata not ready', errorClass: 'Generic' });
    const ctx = makeCtx([...fixtureRecords(), extra]);
    const text = 'W: encode metadata not ready';
    const doc = ctx.documents.open('file:///x.log', 'log', 1, text);
    const h = await hover(ctx, { textDocument: { uri: doc.uri }, position: { line: 0, character: text.indexOf('ready') } });
    assert.ok(h);
    const value = (h.contents as { value: string }).value;
    assert.match(value, /^\*\*MMError\*\*/, 'the longer literal ranks first: its glance');
    const others = value.split('\n\n').filter((b) => b.startsWith('Also matching: '));
    assert.equal(others.length, 1, 'the other record is named on one line');
    assert.match(others[0]!, /^Also matching: \[Generic \\\((likely|possible|unlikely)\\\)\]\(command:errorExplainer\.openRecord\?[^)\s]+ "Open the record view"\)\n?$/);
    assert.ok(value.indexOf('Also matching') > value.indexOf('MMError'));
    assert.deepEqual(h.range, { start: positionOf(text, 'encode'), end: { line: 0, character: text.length } });
  });

  it('record text stays inert in hovers; only our command links are live', async () => {
    const evil = userRecord({
      id: 'e0e0e0e0e0e0e0e0',
      errorMessage: 'evil thing happened here',
      errorClass: 'Evil',
      documentation: 'Click [here](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%22%7D) <img src=https://x/y.png>',
      solutions: ['[run](command:evil)'],
    });
    const ctx = makeCtx([evil]);
    const text = 'evil thing happened here';
    const doc = ctx.documents.open('file:///x.log', 'log', 1, text);
    const h = await hover(ctx, { textDocument: { uri: doc.uri }, position: positionOf(text, 'thing') });
    const value = (h!.contents as { value: string }).value;
    const commands = [...value.matchAll(/\]\((command:[^ )]+)/g)].map((m) => m[1]!.split('?')[0]);
    assert.deepEqual(commands, ['command:errorExplainer.openRecord', 'command:errorExplainer.copyExplanation']);
    for (const c of commands) assert.match(c!, /^command:errorExplainer\./);
    assert.doesNotMatch(value, /(^|[^\\])<img/, 'raw HTML is escaped');
  });

  it('diagnostics: severity mapping, minSeverity, maxPerFile summary, disabled', async () => {
    const ctx = makeCtx();
    const lines = ['encode metadata not ready', 'payment gateway x timed out after 3s', 'encode metadata not ready'];
    const doc = ctx.documents.open('file:///x.log', 'log', 1, lines.join('\n'));
    const all = await documentDiagnostics(ctx, doc);
    assert.deepEqual(all.items.map((d) => d.severity), [1, 2, 1]);
    ctx.settings.diagnostics.minSeverity = 'error';
    doc.clearMatches();
    assert.deepEqual((await documentDiagnostics(ctx, doc)).items.map((d) => d.severity), [1, 1]);
    ctx.settings.diagnostics.minSeverity = 'info';
    ctx.settings.diagnostics.maxPerFile = 1;
    doc.clearMatches();
    const capped = (await documentDiagnostics(ctx, doc)).items;
    assert.equal(capped.length, 2);
    assert.equal(capped[1]!.message, '2 more error matches in this file not shown (errorExplainer.diagnostics.maxPerFile = 1)');
    assert.equal(capped[1]!.range.start.line, 1);
    ctx.settings.diagnostics.enabled = false;
    assert.equal((await documentDiagnostics(ctx, doc)).items.length, 0);
  });

  it('diagnostics.minConfidence: a generic record matching an ordinary line is no problem (the hover still offers it); 0 reports it', async () => {
    const generic = parseRecordText(JSON.stringify([{ errorMessage: 'password', messagePattern: 'password' }]), 'g.json').records;
    const ctx = makeCtx([...fixtureRecords(), ...generic]);
    const lines = ['12:00:01 INFO user password changed for alice', 'encode metadata not ready'];
    const doc = ctx.documents.open('file:///c.log', 'log', 1, lines.join('\n'));
    const ids = async () => (await documentDiagnostics(ctx, doc)).items.map((d) => [d.range.start.line, (d.data as { id: string }).id]);
    const real = (await ids()).filter(([l]) => l === 1);
    assert.equal(real.length, 1, 'a specific record is a problem at the default threshold');
    assert.deepEqual((await ids()).filter(([l]) => l === 0), [], `the generic match is below ${DEFAULT_SETTINGS.diagnostics.minConfidence}`);
    const h = await hover(ctx, { textDocument: { uri: doc.uri }, position: { line: 0, character: lines[0]!.indexOf('password') + 1 } });
    assert.ok(h && /(Possible|Unlikely) match/.test((h.contents as { value: string }).value), 'the hover still lists it, labelled');
    ctx.settings.diagnostics.minConfidence = 0;
    doc.clearMatches();
    assert.deepEqual((await ids()).filter(([l]) => l === 0).map(([, id]) => id), [generic[0]!.id]);
    assert.equal(normalizeSettings({ diagnostics: { minConfidence: 2 } }).diagnostics.minConfidence, DEFAULT_SETTINGS.diagnostics.minConfidence, 'out of range: the default');
    assert.equal(normalizeSettings({ diagnostics: { minConfidence: 0.8 } }).diagnostics.minConfidence, 0.8);
  });

  it('source files get no diagnostics; logs by glob or language', async () => {
    const ctx = makeCtx();
    const py = ctx.documents.open(pathToUri('/w/a.py'), 'python', 1, 'raise MMError("encode metadata not ready")');
    assert.equal((await documentDiagnostics(ctx, py)).items.length, 0);
    assert.ok(isLogLike('file:///w/x.log.3', 'plaintext', ['**/*.log.[0-9]*'], []));
    assert.ok(isLogLike('output:extension-output-foo', 'plaintext', [], []));
    assert.ok(isLogLike('untitled:Untitled-1', 'log', [], []));
    assert.ok(!isLogLike('file:///w/x.txt', 'plaintext', ['**/*.log'], []));
    assert.ok(isLogLike('file:///w/sub/run.txt', 'plaintext', ['sub/*.txt'], ['/w']), 'globs relative to a workspace folder');
  });

  it('record-file problems become 0-based diagnostics on the file', () => {
    const m = problemDiagnostics([
      { file: '/r/a.json', line: 3, column: 5, endLine: 3, endColumn: 9, path: '[0].severity', severity: 'warning', message: 'bad' },
    ]);
    const [uri, ds] = [...m][0]!;
    assert.equal(uri, 'file:///r/a.json');
    assert.deepEqual(ds[0]!.range, { start: { line: 2, character: 4 }, end: { line: 2, character: 8 } });
    assert.equal(ds[0]!.severity, 2);
  });
});

describe('server: code actions (in memory)', () => {
  it('string literals of a line', () => {
    assert.deepEqual(stringLiterals(`raise X("a \\"b\\" c", 'd', \`e\`)`), ['a \\"b\\" c', 'd', 'e']);
  });

  it('ranks: message in a literal, then class named on the line, then seen; only the file language; at most 5', () => {
    const ctx = makeCtx();
    const doc = ctx.documents.open(pathToUri('/w/a.py'), 'python', 1, '    raise MMError("encode metadata not ready")\n');
    assert.deepEqual(candidateRecords(ctx, doc, 0).map((c) => [c.record.id, c.relation]), [[ID_META, 'message'], [ID_SEND, 'class']]);
    ctx.seen.note('a5259f8458270c81');
    assert.deepEqual(candidateRecords(ctx, doc, 0).map((c) => [c.record.id, c.relation]), [[ID_META, 'message'], [ID_SEND, 'class'], ['a5259f8458270c81', 'seen']]);
    const ts = ctx.documents.open(pathToUri('/w/a.ts'), 'typescript', 1, 'foo()\n');
    ctx.seen.note('a1b2c3d4e5f60718');
    assert.deepEqual(candidateRecords(ctx, ts, 0).map((c) => [c.record.id, c.relation]), [['a1b2c3d4e5f60718', 'seen']]);
    const many: ErrorRecord[] = [];
    for (let i = 0; i < 8; i++) many.push(userRecord({ id: `f${i}`.padEnd(16, '0'), errorMessage: `thing ${i} broke badly`, errorClass: 'Boom', filePath: 'x.py' }));
    const ctx2 = makeCtx(many);
    const d2 = ctx2.documents.open(pathToUri('/w/b.py'), 'python', 1, 'raise Boom()\n');
    assert.equal(candidateRecords(ctx2, d2, 0).length, 5);
  });

  it('uses tabs when the document is indented with tabs', async () => {
    const ctx = makeCtx();
    const text = 'def f():\n\tif x:\n\t\traise MMError("encode metadata not ready")\n';
    const doc = ctx.documents.open(pathToUri('/w/t.py'), 'python', 1, text);
    const actions = await codeActions(ctx, {
      textDocument: { uri: doc.uri },
      range: { start: positionOf(text, 'raise'), end: positionOf(text, 'raise') },
      context: { diagnostics: [] },
    });
    const edit = actions[0]!.edit!.changes![doc.uri]![0]!;
    assert.equal(
      edit.newText,
      '\t\t# error-explainer: encode-metadata-not-ready\n' +
        '\t\tif not meta_registry.has(req_id):\n' +
        '\t\t\tawait asyncio.sleep(backoff)  # allow publication to land before waiting\n',
    );
  });

  it('keeps CRLF documents CRLF', async () => {
    const ctx = makeCtx();
    const doc = ctx.documents.open(pathToUri('/w/c.py'), 'python', 1, 'x = 1\r\nraise MMError("encode metadata not ready")\r\n');
    const actions = await codeActions(ctx, {
      textDocument: { uri: doc.uri },
      range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } },
      context: { diagnostics: [] },
    });
    const t = actions[0]!.edit!.changes![doc.uri]![0]!.newText;
    assert.ok(t.endsWith('\r\n'));
    assert.ok(!/[^\r]\n/.test(t));
  });

  it('detects indentation', () => {
    assert.deepEqual(detectIndentation(['a', '  b', '    c', '  d']), { insertSpaces: true, tabSize: 2 });
    assert.deepEqual(detectIndentation(['a', '\tb', '\t\tc']), { insertSpaces: false, tabSize: 4 });
    assert.deepEqual(detectIndentation(['a', 'b']), { insertSpaces: true, tabSize: 4 });
  });
});

describe('server: raise sites and file references', () => {
  it('finds the message text where the code moved and keeps the raise line offset', () => {
    const records = fixtureRecords();
    const send = records.find((r) => r.id === ID_SEND)!;
    const src = send.sourceCode!.split('\n');
    const pad = (n: number) => Array.from({ length: n }, (_, i) => `# ${i}`);
    const moved = [...pad(send.sourceCodeStart! - 1 + 40), ...src];
    const at = locateInLines(send, moved)!;
    assert.match(moved[at.line]!, /raise MMError\(/);
    assert.equal(at.line, send.lineNumber! - 1 + 40);
    assert.match(moved[at.textLine]!, /no staged embedding/);
    const far = [...pad(send.sourceCodeStart! - 1 + 500), ...src];
    assert.equal(locateInLines(send, far), undefined, 'too far: not the same code');
    assert.equal(messageFragment('no staged embedding for /send req_id={req_id} (already released)'), 'no staged embedding for /send req_id=');
  });

  it('resolves the fixture raise site and falls back to githubUrl', () => {
    const ctx = makeCtx();
    const send = ctx.catalog().get(ID_SEND)!;
    const site = ctx.raiseSites.resolve(send);
    assert.equal(site?.kind, 'local');
    const count = ctx.raiseSites.resolve(ctx.catalog().get('a5259f8458270c81')!);
    assert.equal(count?.kind, 'remote');
  });

  it('finds file references in log lines', () => {
    const refs = (s: string) => findFileRefs(s).map((r) => [s.slice(r.start, r.end), r.file, r.line, r.column]);
    assert.deepEqual(refs('  File "/opt/app/x.py", line 12, in f'), [['/opt/app/x.py", line 12', '/opt/app/x.py', 12, undefined]]);
    assert.deepEqual(refs('    at foo (src/x.ts:10:5)'), [['src/x.ts:10:5', 'src/x.ts', 10, 5]]);
    assert.deepEqual(refs('    at src/x.ts:10:5'), [['src/x.ts:10:5', 'src/x.ts', 10, 5]]);
    assert.deepEqual(refs('main.go:7:2: undefined: foo'), [['main.go:7:2', 'main.go', 7, 2]]);
    assert.deepEqual(refs('see lib/a.rb:3 for details'), [['lib/a.rb:3', 'lib/a.rb', 3, undefined]]);
    assert.deepEqual(refs('GET http://host:8080/x 200 12:30:01'), []);
  });

  it('resolves references inside the workspace only, by suffix for foreign absolute paths', () => {
    const r = new FileRefResolver(() => [FIXTURE]);
    assert.equal(r.resolve('src/payments.ts'), path.join(FIXTURE, 'src/payments.ts'));
    assert.equal(r.resolve('/elsewhere/checkout/src/payments.ts'), path.join(FIXTURE, 'src/payments.ts'));
    assert.equal(r.resolve('../../../etc/passwd'), undefined);
    assert.equal(r.resolve('/etc/passwd'), undefined);
    assert.equal(r.resolve('payments.ts'), undefined, 'a bare name is not enough for a suffix match');
  });
});

describe('server: commands, settings, sources, runSafe', () => {
  it('command URIs carry encoded JSON that cannot close a Markdown link', () => {
    const uri = commandUri('errorExplainer.openRecord', [{ id: 'x) [evil](command:foo "t"' }]);
    assert.doesNotMatch(uri.slice('command:errorExplainer.openRecord?'.length), /[()\s"[\]]/);
    assert.deepEqual(JSON.parse(decodeURIComponent(uri.split('?')[1]!)), [{ id: 'x) [evil](command:foo "t"' }]);
    const rec = fixtureRecords()[0]!;
    const footer = hoverActions({ ...rec, id: 'a) [x](command:evil' }, [{ name: 'n', value: ')](command:evil)' }], ')](command:evil)', {
      raiseSite: true,
      near: { uri: 'file:///x) [y](command:evil', line: 1 },
    });
    for (const m of footer.matchAll(/\]\(([^ )]+)/g)) assert.match(m[1]!, /^command:errorExplainer\.[a-zA-Z]+\?[^()\s]*$/);
  });

  it('settings of issue 15: exclude list, severity overrides, search URL (http(s) with ${query} only)', () => {
    const s = normalizeSettings({
      records: { exclude: [' a-slug ', 3, ''] },
      diagnostics: { severityOverrides: JSON.parse('{"x": "hint", "y": "loud", "__proto__": "error", " ": "info"}'), inlineMessage: true, searchUrl: 'javascript:alert(1)//${query}' },
    });
    assert.deepEqual(s.records.exclude, ['a-slug']);
    assert.deepEqual(Object.keys(s.diagnostics.severityOverrides).sort(), ['__proto__', 'x']);
    assert.equal(s.diagnostics.severityOverrides['x'], 'hint');
    assert.equal(Object.getPrototypeOf(s.diagnostics.severityOverrides), null, 'a key named __proto__ cannot reach a prototype');
    assert.equal(s.diagnostics.inlineMessage, true);
    assert.equal(s.diagnostics.searchUrl, DEFAULT_SETTINGS.diagnostics.searchUrl);
    assert.equal(validSearchUrl('https://duckduckgo.com/?q=${query}'), 'https://duckduckgo.com/?q=${query}');
    assert.equal(validSearchUrl('https://example.com/search'), undefined, 'no ${query}');
    assert.equal(validSearchUrl('command:evil?${query}'), undefined);
    assert.equal(searchPageUrl('https://duckduckgo.com/?q=${query}', 'ValueError: x & y  #1'), 'https://duckduckgo.com/?q=ValueError%3A%20x%20%26%20y%20%231');
    assert.equal(searchPageUrl('file:///etc/${query}', 'q'), 'https://www.google.com/search?q=q', 'an invalid template gives the default');
    const ctx = { ...DEFAULT_SETTINGS, records: { ...DEFAULT_SETTINGS.records, exclude: ['slug-a', 'ffff000011112222'] } };
    assert.ok(isExcluded(ctx, { id: 'x', slug: 'slug-a' }));
    assert.ok(isExcluded(ctx, { id: 'ffff000011112222', slug: 'b' }));
    assert.ok(!isExcluded(ctx, { id: 'x', slug: 'b' }));
  });

  it('normalizes settings of the wrong type to defaults', () => {
    const s = normalizeSettings({ diagnostics: { enabled: 'yes', minSeverity: 'loud', maxPerFile: -3 }, logFiles: 'x', records: { paths: ['a', 3] } });
    assert.deepEqual({ ...s.diagnostics, severityOverrides: { ...s.diagnostics.severityOverrides } }, DEFAULT_SETTINGS.diagnostics);
    assert.deepEqual(s.logFiles, ['**/*.log', '**/*.log.[0-9]*', '**/*.out', '**/*.err']);
    assert.deepEqual(s.records.paths, ['a']);
  });

  it('record sources: workspace values only when trusted; changed files map to sources', () => {
    const input = { bundledPath: '/ext/records', includeBundled: true, paths: [{ folder: '/w', paths: ['recs', '/abs/r.json'] }], folders: ['/w'] };
    assert.deepEqual(sourceSpecs({ ...input, trusted: false }).map((s) => [s.origin, s.path]), [['bundled', '/ext/records']]);
    const specs = sourceSpecs({ ...input, trusted: true });
    assert.deepEqual(specs.map((s) => [s.origin, s.path]), [
      ['bundled', '/ext/records'],
      ['user', '/w/recs'],
      ['user', '/abs/r.json'],
      ['workspace', '/w/.error-records'],
    ]);
    assert.ok(affectsSources('/w/recs/x.jsonl', specs, ['/w']));
    assert.ok(affectsSources('/w/.error-records/new.json', [], ['/w']));
    assert.ok(!affectsSources('/w/src/a.py', specs, ['/w']));
  });

  it('runSafe: errors give the empty value and a log line; cancellation gives RequestCancelled', async () => {
    const errors: string[] = [];
    const log = { error: (m: string) => errors.push(m), warn() {}, info() {}, log() {} };
    assert.deepEqual(await runSafe(log, 'x', undefined, [], () => { throw new Error('boom'); }), []);
    assert.match(errors[0]!, /x failed: Error: boom/);
    const src = new CancellationTokenSource();
    src.cancel();
    const r = await runSafe(log, 'y', src.token, [], () => [1]);
    assert.ok(r instanceof ResponseError);
    assert.equal(r.code, LSPErrorCodes.RequestCancelled);
  });

  it('seen records: most recent first, bounded', () => {
    const s = new SeenRecords(3);
    for (const id of ['a', 'b', 'c', 'a', 'd']) s.note(id);
    assert.deepEqual(s.recent(), ['d', 'a', 'c']);
  });

  it('seen records keep where they were seen last; an empty search answers them, most recent first', async () => {
    const s = new SeenRecords(2);
    s.note('a', 'app.log');
    s.note('a'); // no source: the last one stays
    s.note('b', 'terminal:bash');
    assert.equal(s.source('a'), 'app.log');
    s.note('c');
    assert.equal(s.source('a'), undefined, 'evicted with its record');

    const ctx = makeCtx();
    assert.deepEqual(search(ctx, { query: '' }), [], 'nothing seen yet');
    const doc = ctx.documents.open('file:///w/logs/app%20one.log', 'log', 1, 'x\nERROR encode metadata not ready\nERROR no staged embedding for /send req_id=9 (already released)\n');
    await documentDiagnostics(ctx, doc);
    ctx.seen.note(ID_META, 'terminal:bash');
    const hits = search(ctx, { query: '  ', limit: 5 });
    assert.deepEqual(hits.map((h) => [h.id, h.kind, h.seenIn]), [
      [ID_META, 'recent', 'terminal:bash'],
      [ID_SEND, 'recent', 'app one.log'],
    ]);
    assert.equal(search(ctx, { query: '', limit: 1 }).length, 1);
    // Malformed params are not an empty query: they answer nothing.
    assert.deepEqual(search(ctx, {} as never), []);
    assert.deepEqual(search(ctx, { query: 42 } as never), []);
  });

  it('an empty catalog answers nothing without errors', async () => {
    const ctx = makeCtx([]);
    ctx.setCatalog(new Catalog([]));
    const text = 'encode metadata not ready';
    const doc = ctx.documents.open('file:///x.log', 'log', 1, text);
    assert.equal(await hover(ctx, { textDocument: { uri: doc.uri }, position: positionOf(text, 'metadata') }), null);
    assert.equal(ctx.errors.length, 0);
  });
});
