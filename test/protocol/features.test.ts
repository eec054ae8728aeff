// The built server over stdio: hover, pull diagnostics, incremental edits, code actions (exact
// inserted text), document links, definition, custom requests. Positions come from the text.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CodeAction, Diagnostic, DocumentLink, Hover, Location, TextEdit } from 'vscode-languageserver-protocol';
import { copyFixture, lineOf, positionOf, TestClient, waitFor } from './client';

const LOG = 'logs/app.log';
const RUNTIME = 'python/sglang/srt/disaggregation/encoder/runtime.py';
const ID_SEND = '063d2eac5107dda5'; // no staged embedding for /send req_id={req_id} (already released)
const ID_META = '12c38bb1afed0ec1'; // encode metadata not ready
const ID_COUNT = 'a5259f8458270c81'; // Inconsistent receive_count ... (raised in server.py: not in the workspace)
const ID_TEAM = 'a1b2c3d4e5f60718'; // .error-records/team.json: payment gateway {gateway} timed out after {seconds}s

type Range = { start: { line: number; character: number }; end: { line: number; character: number } };
const tuple = (r: Range) => [r.start.line, r.start.character, r.end.line, r.end.character];

describe('language server over stdio: features', function () {
  let ws: string;
  let c: TestClient;
  let logText: string;
  let logUri: string;
  /** 0-based line of `raise MMError(` that raises the /send error in the local runtime.py. */
  let sendRaiseLine: number;
  /** The line the log's Python traceback names in runtime.py (`runtime.py", line N`, 1-based). */
  let tracebackLine: number;

  before(async () => {
    ws = copyFixture();
    c = await TestClient.start({ workspace: ws });
    logText = c.text(LOG);
    const runtime = c.text(RUNTIME);
    sendRaiseLine = lineOf(runtime, 'no staged embedding for /send') - 1;
    assert.match(runtime.split('\n')[sendRaiseLine]!, /raise MMError\(/);
    tracebackLine = Number(/runtime\.py", line (\d+)/.exec(logText)![1]);
  });
  after(async () => {
    await c?.stop();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('initializes with incremental sync, pull diagnostics and every feature', async () => {
    const caps = c.initializeResult.capabilities;
    assert.deepEqual(caps.textDocumentSync && typeof caps.textDocumentSync === 'object' && caps.textDocumentSync.change, 2);
    assert.ok(caps.hoverProvider);
    assert.ok(caps.definitionProvider);
    assert.ok(caps.documentLinkProvider);
    assert.ok(caps.codeActionProvider);
    assert.ok(caps.diagnosticProvider);
    await waitFor('file watcher registration', () =>
      c.registrations.find((r) => r.method === 'workspace/didChangeWatchedFiles'),
    );
    await waitFor('configuration registration', () =>
      c.registrations.find((r) => r.method === 'workspace/didChangeConfiguration'),
    );
    const status = await c.request<{ records: number; sources: { origin: string }[] }>('errorExplainer/status');
    assert.equal(status.records, 4);
    assert.deepEqual(status.sources.map((s) => s.origin), ['bundled', 'workspace']);
    assert.ok(c.notificationsOf('errorExplainer/statusChanged').length >= 1);
  });

  it('hovers a match with the record, this line\'s captures and command links; range = the match', async () => {
    logUri = await c.open(LOG, 'log', logText);
    const at = positionOf(logText, 'req-7f3a9');
    const h = await c.request<Hover | null>('textDocument/hover', { textDocument: { uri: logUri }, position: at });
    assert.ok(h, 'hover expected');
    const md = h.contents as { kind: string; value: string };
    assert.equal(md.kind, 'markdown');
    // a one-line title naming the raise site: the fixture's runtime.py (moved 3 lines), linked
    const title = md.value.split('  \n')[0]!;
    assert.equal(
      title,
      `**MMError** · HTTP 500 · error · sgl-project/sglang · raised at [\`…/encoder/runtime.py:${sendRaiseLine + 1}\`](${c.uri(RUNTIME)}#L${sendRaiseLine + 1})`,
    );
    assert.ok(md.value.includes('req\\_id = `req-7f3a9`'), 'capture value of req_id from this line');
    assert.ok(md.value.includes('command:errorExplainer.insertSnippet?'));
    assert.ok(md.value.includes('command:errorExplainer.openRecord?'));
    // the action links right under the title, before the explanation
    const blocks = md.value.split('\n\n');
    assert.match(blocks[0]!.split('  \n')[1]!, /^\[Insert try\/catch\]\(command:errorExplainer\.insertSnippet\?.* · \[Go to raise site\]\(command:errorExplainer\.goToRaiseSite\?/);
    assert.ok(blocks[1]!.startsWith("The decoder called the encoder's /send endpoint"), blocks[1]);
    // a likely match (a specific message on an ERROR line) spends no line on its confidence
    assert.ok(!/match \\\(/.test(md.value), md.value);
    // the diagnostic shows the error; the glance does not repeat it
    assert.ok(!md.value.includes('no staged embedding for /send req\\_id=req-7f3a9'));
    const start = positionOf(logText, 'no staged embedding');
    const end = positionOf(logText, '(already released)', '(already released)'.length);
    assert.deepEqual(tuple(h.range!), [start.line, start.character, end.line, end.character]);

    const none = await c.request<Hover | null>('textDocument/hover', {
      textDocument: { uri: logUri },
      position: positionOf(logText, 'started dp_rank'),
    });
    assert.equal(none, null);
  });

  it('hover arguments of command links are encoded JSON the client can parse', async () => {
    const h = await c.request<Hover>('textDocument/hover', { textDocument: { uri: logUri }, position: positionOf(logText, 'req-7f3a9') });
    const value = (h.contents as { value: string }).value;
    const m = /\(command:errorExplainer\.openRecord\?([^ )]+) /.exec(value);
    assert.ok(m);
    const args = JSON.parse(decodeURIComponent(m[1]!));
    assert.deepEqual(args, [
      {
        id: ID_SEND,
        captures: [{ name: 'req_id', value: 'req-7f3a9' }],
        matchedText: 'no staged embedding for /send req_id=req-7f3a9 (already released)',
      },
    ]);
  });

  it('pulls one diagnostic per match with severity, code, link, message, data and related raise site', async () => {
    const r = await c.pull(logUri);
    assert.equal(r.kind, 'full');
    const items = r.items!;
    assert.deepEqual(
      items.map((d) => (d.data as { id: string }).id),
      [ID_SEND, ID_META, ID_COUNT, ID_TEAM],
    );
    const send = items[0]!;
    const start = positionOf(logText, 'no staged embedding');
    assert.deepEqual(tuple(send.range), [start.line, start.character, start.line, start.character + 'no staged embedding for /send req_id=req-7f3a9 (already released)'.length]);
    assert.equal(send.severity, 1);
    assert.equal(send.source, 'Error Explainer');
    assert.equal(send.code, 'MMError', 'the class, not a cut-off slug');
    assert.match(send.codeDescription!.href, /^https:\/\/github\.com\/sgl-project\/sglang\/blob\//);
    assert.equal(send.message, 'no staged embedding for /send req_id=req-7f3a9 (already released)', 'the error as logged, captures filled in');
    assert.equal(items[2]!.message, 'Inconsistent receive_count for req_id=req-88: registered 2, got 4');
    assert.equal(items[2]!.code, 'BadRequestError');
    assert.equal(send.relatedInformation?.[0]?.location.uri, c.uri(RUNTIME));
    assert.equal(send.relatedInformation?.[0]?.location.range.start.line, sendRaiseLine);
    assert.equal(items[2]!.relatedInformation, undefined, 'server.py is not in the workspace');
    const team = items[3]!;
    assert.equal(team.severity, 2, 'warning');
    assert.equal(team.code, 'GatewayTimeout');
    assert.equal(team.message, 'payment gateway stripe timed out after 30s');
    assert.equal(team.codeDescription, undefined, 'no githubUrl');

    const again = await c.pull(logUri, r.resultId);
    assert.equal(again.kind, 'unchanged');
  });

  it('re-matches only edited lines: append, insert above, delete', async () => {
    const first = await c.pull(logUri);
    const lines = logText.split('\n');
    const last = lines.length - 1; // the text ends with a newline: last line is empty
    // 1. Append a line without a match: diagnostics unchanged.
    await c.change(logUri, [{ range: { start: { line: last, character: 0 }, end: { line: last, character: 0 } }, text: 'INFO nothing to see\n' }]);
    const unchanged = await c.pull(logUri, first.resultId);
    assert.equal(unchanged.kind, 'unchanged');
    // 2. Append a matching line: one more diagnostic, on the new line.
    await c.change(logUri, [{ range: { start: { line: last + 1, character: 0 }, end: { line: last + 1, character: 0 } }, text: 'ERROR again: encode metadata not ready\n' }]);
    const appended = await c.pull(logUri, first.resultId);
    assert.equal(appended.kind, 'full');
    assert.equal(appended.items!.length, 5);
    const added = appended.items![4]!;
    assert.deepEqual(tuple(added.range), [last + 1, 'ERROR again: '.length, last + 1, 'ERROR again: encode metadata not ready'.length]);
    // 3. Insert a line at the top: every diagnostic moves down one line.
    await c.change(logUri, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: 'header line\n' }]);
    const shifted = await c.pull(logUri, appended.resultId);
    assert.deepEqual(
      shifted.items!.map((d) => d.range.start.line),
      appended.items!.map((d) => d.range.start.line + 1),
    );
    // 4. Edit inside a match so it no longer matches: that diagnostic disappears.
    const sendLine = shifted.items![0]!.range.start.line;
    const col = lines[1]!.indexOf('staged');
    await c.change(logUri, [{ range: { start: { line: sendLine, character: col }, end: { line: sendLine, character: col + 'staged'.length } }, text: 'STAGED' }]);
    const edited = await c.pull(logUri, shifted.resultId);
    assert.deepEqual(
      edited.items!.map((d) => (d.data as { id: string }).id),
      [ID_META, ID_COUNT, ID_TEAM, ID_META],
    );
    // Undo everything (full-text change) for the following tests.
    await c.change(logUri, [{ text: logText }]);
    const restored = await c.pull(logUri);
    assert.equal(restored.items!.length, 4);
  });

  it('links matched spans to the raise site and file:line references to workspace files', async () => {
    const links = await c.request<DocumentLink[]>('textDocument/documentLink', { textDocument: { uri: logUri } });
    const byStart = (needle: string) => {
      const p = positionOf(logText, needle);
      return links.find((l) => l.range.start.line === p.line && l.range.start.character === p.character);
    };
    assert.equal(byStart('no staged embedding')?.target, `${c.uri(RUNTIME)}#L${sendRaiseLine + 1}`);
    assert.match(byStart('Inconsistent receive_count')!.target!, /^https:\/\/github\.com\/sgl-project\/sglang\/blob\/.*server\.py#L706-L742$/);
    // Python traceback from another machine: /opt/sglang/... is found in the workspace by suffix.
    assert.equal(byStart('/opt/sglang/python')?.target, `${c.uri(RUNTIME)}#L${tracebackLine}`);
    // JS stack frame: src/payments.ts:3:11
    assert.equal(byStart('src/payments.ts:3:11')?.target, `${c.uri('src/payments.ts')}#L3,11`);
    // The team record's raise site is local too.
    const teamLink = byStart('payment gateway stripe');
    assert.equal(teamLink?.target, `${c.uri('src/payments.ts')}#L3`);
  });

  it('goes to the definition: raise site of a match, file of a reference, nothing for a remote site', async () => {
    const def = await c.request<Location[] | null>('textDocument/definition', { textDocument: { uri: logUri }, position: positionOf(logText, 'req-7f3a9') });
    assert.deepEqual(def, [{ uri: c.uri(RUNTIME), range: { start: { line: sendRaiseLine, character: 0 }, end: { line: sendRaiseLine, character: 0 } } }]);
    const ref = await c.request<Location[] | null>('textDocument/definition', { textDocument: { uri: logUri }, position: positionOf(logText, 'runtime.py", line') });
    assert.deepEqual(ref, [{ uri: c.uri(RUNTIME), range: { start: { line: tracebackLine - 1, character: 0 }, end: { line: tracebackLine - 1, character: 0 } } }]);
    const remote = await c.request<Location[] | null>('textDocument/definition', { textDocument: { uri: logUri }, position: positionOf(logText, 'receive_count for') });
    assert.equal(remote, null);
  });

  it('offers Explain and Insert handling snippet on a diagnostic in the log', async () => {
    const r = await c.pull(logUri);
    const diag = r.items![0]!;
    const actions = await c.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri: logUri },
      range: diag.range,
      context: { diagnostics: [diag] },
    });
    assert.deepEqual(
      actions.map((a) => [a.title, a.kind, a.command?.command]),
      [
        ['Explain MMError: no staged embedding for /send req_id={req_id} (already released)', 'quickfix', 'errorExplainer.openRecord'],
        ['Insert handling snippet…', 'quickfix', 'errorExplainer.insertSnippet'],
        ['Copy error message', 'quickfix', 'errorExplainer.copyMessage'],
        ['Search the web for this error', 'quickfix', 'errorExplainer.searchOnline'],
        ['Show MMError problems as warnings', 'quickfix', 'errorExplainer.setRecordSeverity'],
        ['Ignore MMError: no staged embedding for /send req_id={req_id} (already released)', 'quickfix', 'errorExplainer.ignoreRecord'],
      ],
    );
    const args = actions.map((a) => a.command!.arguments![0]);
    assert.deepEqual(args[0].captures, [{ name: 'req_id', value: 'req-7f3a9' }]);
    assert.equal(args[1].id, ID_SEND);
    assert.deepEqual(args[2], { text: diag.message });
    assert.deepEqual(args[3], { query: diag.message });
    assert.deepEqual(args[4], { id: ID_SEND, slug: 'no-staged-embedding-for-send-req-id-req-id-alr', severity: 'warning' });
    assert.deepEqual(args[5], { id: ID_SEND, slug: 'no-staged-embedding-for-send-req-id-req-id-alr', label: 'MMError: no staged embedding for /send req_id={req_id} (already released)' });
    for (const a of actions) assert.deepEqual(a.diagnostics, [diag]);
  });

  it('inserts validation above the line that raises the record\'s message (exact text)', async () => {
    const rel = 'app.py';
    const text = c.text(rel);
    const uri = await c.open(rel, 'python', text);
    const at = positionOf(text, 'raise MMError("encode metadata not ready")');
    const line = at.line;
    const actions = await c.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: at, end: at },
      context: { diagnostics: [] },
    });
    const titles = actions.map((a) => a.title);
    // The record whose message is in the string literal comes first; the other MMError record
    // (named on the line, and seen in the log) follows; at most 5 records.
    assert.deepEqual(titles.slice(0, 2), ['Insert validation for MMError: encode metadata not ready', 'Insert try/catch for MMError: encode metadata not ready']);
    assert.ok(titles.includes('Insert validation for MMError: no staged embedding for /send req_id={req_id} (already released)'));
    const edits = actions[0]!.edit!.changes![uri]!;
    assert.deepEqual(edits, [
      {
        range: { start: { line, character: 0 }, end: { line, character: 0 } },
        newText:
          '    # error-explainer: encode-metadata-not-ready\n' +
          '    if not meta_registry.has(req_id):\n' +
          '        await asyncio.sleep(backoff)  # allow publication to land before waiting\n',
      },
    ]);
    // The retry-loop try/catch of this record cannot surround code: inserted above, re-indented.
    const tc = actions[1]!.edit!.changes![uri]![0]!;
    assert.deepEqual(tc.range, { start: { line, character: 0 }, end: { line, character: 0 } });
    assert.ok(tc.newText.startsWith('    # error-explainer: encode-metadata-not-ready'));
    assert.ok(tc.newText.includes('\n    for attempt in range(3):\n        try:\n'));
  });

  it('takes indentation from formattingOptions when the client sends them', async () => {
    const uri = c.uri('app.py');
    const text = c.text('app.py');
    const at = positionOf(text, 'raise MMError("encode metadata not ready")');
    const actions = await c.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: at, end: at },
      context: { diagnostics: [] },
      formattingOptions: { insertSpaces: true, tabSize: 2 },
    });
    assert.equal(
      actions[0]!.edit!.changes![uri]![0]!.newText,
      '    # error-explainer: encode-metadata-not-ready\n' +
        '    if not meta_registry.has(req_id):\n' +
        '      await asyncio.sleep(backoff)  # allow publication to land before waiting\n',
    );
  });

  it('surrounds the selected lines with the try/catch of a record seen in the log (exact text)', async () => {
    const uri = c.uri('app.py');
    const text = c.text('app.py');
    const line = lineOf(text, 'await encoder.send(req_id)');
    const lineText = text.split('\n')[line]!;
    const actions = await c.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: { line, character: 0 }, end: { line: line + 1, character: 0 } },
      context: { diagnostics: [] },
    });
    const a = actions.find((x) => x.title === 'Insert try/catch for MMError: no staged embedding for /send req_id={req_id} (already released)');
    assert.ok(a, `actions: ${actions.map((x) => x.title).join(' | ')}`);
    const edits = a.edit!.changes![uri] as TextEdit[];
    assert.deepEqual(edits, [
      {
        range: { start: { line, character: 0 }, end: { line, character: lineText.length } },
        newText:
          '        # error-explainer: no-staged-embedding-for-send-req-id-req\n' +
          '        try:\n' +
          '            await encoder.send(req_id)\n' +
          '        except MMError as e:\n' +
          "            if 'already released' in str(e):\n" +
          '                treat_as_duplicate(req_id); return  # not fatal for this rank\n' +
          '            raise',
      },
    ]);
    // Only records of the file's language: the TypeScript team record is never offered in Python.
    assert.ok(!actions.some((x) => x.title.includes('GatewayTimeout')));
  });

  it('hovers a record on its own raise site in a source file', async () => {
    const text = c.text(RUNTIME);
    const uri = await c.open(RUNTIME, 'python', text);
    const h = await c.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: sendRaiseLine, character: text.split('\n')[sendRaiseLine]!.indexOf('MMError') } });
    assert.ok(h);
    const glance = (h.contents as { value: string }).value;
    assert.match(glance, /^\*\*MMError\*\* · HTTP 500 · error · sgl-project\/sglang · raised at \[`…\/encoder\/runtime\.py:\d+`\]\([^)]+\) {2}\n\[Insert try\/catch\]/);
    assert.ok(glance.includes('The decoder called the encoder'));
    assert.ok(!glance.includes('Go to raise site'), 'already at the raise site');
    assert.equal(h.range!.start.line, sendRaiseLine);
    const far = await c.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: positionOf(text, '# filler 11') });
    assert.equal(far, null);
  });

  it('answers every custom request', async () => {
    const hits = await c.request<{ id: string; kind: string }[]>('errorExplainer/search', { query: 'encode metadata not ready', limit: 5 });
    assert.equal(hits[0]?.id, ID_META);
    const byCode = await c.request<{ id: string; kind: string }[]>('errorExplainer/search', { query: 'payment-gateway-timeout' });
    assert.deepEqual([byCode[0]?.id, byCode[0]?.kind], [ID_TEAM, 'slug']);

    const rec = await c.request<{ record: { id: string }; markdown: string; raiseSite: unknown }>('errorExplainer/record', {
      id: ID_SEND,
      captures: [{ name: 'req_id', value: 'r-1' }],
      matchedText: 'no staged embedding for /send req_id=r-1 (already released)',
    });
    assert.equal(rec.record.id, ID_SEND);
    assert.ok(rec.markdown.includes('| r-1 |'));
    assert.ok(rec.markdown.includes('#### Why it happens'), 'the record view is the full record');
    assert.deepEqual(rec.raiseSite, { uri: c.uri(RUNTIME), line: sendRaiseLine });
    const remote = await c.request<{ raiseSite: unknown }>('errorExplainer/record', { id: ID_COUNT });
    assert.match((remote.raiseSite as { url: string }).url, /^https:\/\/github\.com\//);
    assert.equal(await c.request('errorExplainer/record', { id: 'ffffffffffffffff' }), null);

    const text = 'x\nINFO ok\nfailed: Inconsistent receive_count for req_id=7: registered 1, got 2';
    const matches = await c.request<{ record: { id: string }; line: number; start: number; end: number; captures: unknown }[]>(
      'errorExplainer/explainText',
      { text },
    );
    assert.equal(matches.length, 1);
    assert.equal(matches[0]!.record.id, ID_COUNT);
    assert.equal(matches[0]!.line, 2);
    assert.equal(matches[0]!.start, 'failed: '.length);
    assert.deepEqual(matches[0]!.captures, [
      { name: 'req_id', value: '7' },
      { name: 'registered_count', value: '1' },
      { name: 'expected_destination_count', value: '2' },
    ]);

    const snippetLine = lineOf(c.text('app.py'), 'raise MMError');
    const snip = await c.request<{ text: string; line: number; snippet: string }>('errorExplainer/snippet', {
      id: ID_SEND,
      kind: 'validation',
      uri: c.uri('app.py'),
      line: snippetLine,
    });
    assert.deepEqual(snip, {
      line: snippetLine,
      text:
        '    # error-explainer: no-staged-embedding-for-send-req-id-req\n' +
        '    if encoder_client.already_sent(req_id):\n' +
        '        skip_send(req_id)  # idempotency check before /send\n',
      // names app.py does not know are tab stops; req_id is its own
      snippet:
        '    # error-explainer: no-staged-embedding-for-send-req-id-req\n' +
        '    if ${1:encoder_client}.already_sent(req_id):\n' +
        '        ${2:skip_send}(req_id)  # idempotency check before /send\n',
    });
    // a try/catch without a selection surrounds the statement at the line (the `if` and its block)
    const around = await c.request<{ text: string; line: number; replace?: { start: number; end: number }; snippet: string }>('errorExplainer/snippet', {
      id: ID_SEND,
      kind: 'tryCatch',
      uri: c.uri('app.py'),
      line: lineOf(c.text('app.py'), 'if req_id:'),
    });
    const ifLine = lineOf(c.text('app.py'), 'if req_id:');
    assert.deepEqual(around.replace, { start: ifLine, end: ifLine + 1 });
    assert.equal(
      around.text,
      '    # error-explainer: no-staged-embedding-for-send-req-id-req\n' +
        '    try:\n' +
        '        if req_id:\n' +
        '            await encoder.send(req_id)\n' +
        '    except MMError as e:\n' +
        "        if 'already released' in str(e):\n" +
        '            treat_as_duplicate(req_id); return  # not fatal for this rank\n' +
        '        raise',
    );
    assert.ok(around.snippet.includes('${1:treat_as_duplicate}(req_id)'), around.snippet);
    assert.equal(await c.request('errorExplainer/snippet', { id: ID_SEND, kind: 'typeGuard', uri: c.uri('app.py'), line: 0 }), null);

    const status = await c.request<{ records: number; problems: number; workspaceTrusted: boolean; timings: { loadMs: number } }>('errorExplainer/status');
    assert.deepEqual([status.records, status.problems, status.workspaceTrusted], [4, 0, true]);
    assert.ok(status.timings.loadMs >= 0);
    const before = c.notificationsOf('errorExplainer/statusChanged').length;
    const reloaded = await c.request<{ records: number }>('errorExplainer/reload');
    assert.equal(reloaded.records, 4);
    await waitFor('statusChanged after reload', () => c.notificationsOf('errorExplainer/statusChanged').length > before);
  });

  it('offers snippets of records the client saw in a terminal (seen notification)', async () => {
    const rel = 'other.py';
    const source = 'def f():\n    pass\n';
    const uri = await c.open(rel, 'python', source);
    const pass = positionOf(source, 'pass');
    const ask = () =>
      c.request<CodeAction[]>('textDocument/codeAction', {
        textDocument: { uri },
        range: { start: pass, end: pass },
        context: { diagnostics: [] },
      });
    await c.conn.sendNotification('errorExplainer/seen', { source: 'terminal:bash', matches: [{ id: ID_COUNT }] });
    const actions = await waitFor('seen record offered first', async () => {
      const a = await ask();
      return a[0]?.title.includes('BadRequestError') ? a : undefined;
    });
    assert.equal(actions[0]!.title, 'Insert validation for BadRequestError: Inconsistent receive_count for req_id={req_id}: registered {registered_count},…');
    assert.ok(actions.length <= 10, 'at most 5 records, 2 actions each');
    // not related to this line: refactor actions on demand, never for the light bulb
    assert.ok(actions.every((a) => a.kind === 'refactor.errorExplainer'), actions.map((a) => a.kind).join());
    const auto = await c.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: pass, end: pass },
      context: { diagnostics: [], triggerKind: 2 },
    });
    assert.deepEqual(auto, [], 'the automatic (light bulb) request gets nothing on an unrelated line');
    const refactor = await c.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: pass, end: pass },
      context: { diagnostics: [], triggerKind: 2, only: ['refactor'] },
    });
    assert.equal(refactor.length, actions.length, 'asked for refactorings: offered');
    const quick = await c.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: pass, end: pass },
      context: { diagnostics: [], only: ['quickfix'] },
    });
    assert.deepEqual(quick, []);
  });

  it('leaves stderr free of errors', () => {
    assert.doesNotMatch(c.stderr, /Error|failed/i);
    assert.ok(path.isAbsolute(ws));
  });
});

export type { Diagnostic };
