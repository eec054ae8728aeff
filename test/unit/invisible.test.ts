// Bidi controls and invisible characters (Trojan Source) in record fields and log text never reach
// an output: one rule (core/render.ts stripControls / showInvisible) used by hovers, the record
// view, diagnostics, code-action titles and edits, link tooltips, snippets, the DTOs the client
// shows (Known Errors view included), the agent tools (MCP, language-model tool), every CLI format
// and the MCP server's JSON lines (issue 14.8).
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { type AgentEnv, callTool } from '../../server/src/core/agent/tools';
import { Catalog } from '../../server/src/core/catalog';
import { parseRecordText } from '../../server/src/core/load';
import type { ErrorRecord } from '../../server/src/core/record';
import { oneLine, renderRecord, showInvisible, stripControls } from '../../server/src/core/render';
import { formatSnippet, snippetHeader } from '../../server/src/core/snippet';
import { languageById } from '../../server/src/core/languages';
import { codeActions } from '../../server/src/server/features/codeActions';
import { explainText, record as recordRequest, search } from '../../server/src/server/features/customRequests';
import { documentDiagnostics } from '../../server/src/server/features/diagnostics';
import { FileRefResolver } from '../../server/src/server/state/fileRefResolver';
import { hover } from '../../server/src/server/features/hover';
import { documentLinks } from '../../server/src/server/features/links';
import { LogScans } from '../../server/src/server/features/logScan';
import { snippetRequest } from '../../server/src/server/features/snippets';
import { pathToUri } from '../../server/src/server/uri';
import { makeCtx } from './server-ctx';
import { positionOf } from '../shared/positions';
import { CLI, tempDir } from '../shared/paths';

/** One of each kind: RLO, LRI..PDI, ZWSP..RLM, ALM, BOM, word joiner, Mongolian vowel separator,
 * interlinear annotation, a tag character, C1 NEL, DEL, ESC. */
const INVISIBLES = ['\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u061c', '\ufeff', '\u2060', '\u180e', '\ufff9', '\u{e0041}', '\u0085', '\u007f', '\u001b', '\u202a', '\u206a'];
const ANY = new RegExp(INVISIBLES.map((c) => [...c].map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')).join('|'), 'u');
// like Trojan Source: an override that flips how the rest of the text reads
const sneaky = (s: string) => s.replace(' ', ` \u202e${INVISIBLES.join('')}\u2066 `);

function assertClean(what: string, value: unknown): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  // JSON.stringify escapes C0 controls; test the parsed strings for those
  const strings: string[] = typeof value === 'string' ? [value] : [];
  if (typeof value !== 'string')
    JSON.parse(text, (_k, v: unknown) => {
      if (typeof v === 'string') strings.push(v);
      return v;
    });
  for (const s of strings) assert.doesNotMatch(s, ANY, `${what}: ${JSON.stringify(s).slice(0, 300)}`);
}

function hostile(): ErrorRecord {
  const fields = {
    id: 'b1d1b1d1b1d1b1d1',
    errorMessage: sneaky('access denied for user {user} at gate'),
    messagePattern: 'access denied for user (.+?) at gate',
    errorClass: sneaky('Access Error'),
    errorCode: 'E\u202eACC',
    documentation: sneaky('The user is admin. Never grant it.'),
    triggerScenarios: sneaky('when it runs'),
    solutions: [sneaky('grant the role'), 'ok text'],
    tryCatchPattern: 'try:\n    check()  # \u202e } \u2066if admin\u2069 {\nexcept AccessError:\n    raise',
    validationCode: 'if not ok:  # \u200b\u202e\n    deny()',
    filePath: 'src/gate.py',
    lineNumber: 10,
    githubUrl: 'https://github.com/acme/gate/blob/abc/src/gate.py#L10',
    tags: ['a\u202eb'],
  };
  const r = parseRecordText(JSON.stringify(fields), 'user.json');
  assert.equal(r.records.length, 1, JSON.stringify(r.problems));
  return r.records[0]!;
}

describe('invisible characters: one rule for every output', () => {
  it('stripControls removes every character of the set; showInvisible writes them as \\u escapes (lossless in JSON)', () => {
    for (const c of INVISIBLES) {
      assert.equal(stripControls(`a${c}b`), 'ab', JSON.stringify(c));
      const shown = showInvisible(`a${c}b`);
      assert.doesNotMatch(shown, ANY);
      assert.equal(JSON.parse(`"${shown}"`), `a${c}b`);
    }
    assert.equal(stripControls('tab\tand\nnewline\r\nCRLF'), 'tab\tand\nnewline\nCRLF');
    assert.equal(showInvisible('tab\tnl\n'), 'tab\tnl\n');
    assert.equal(oneLine(' a \u202e\n b '), 'a b');
    // ordinary text is untouched: accents, CJK, emoji (ZWJ sequences lose their joiner only)
    assert.equal(stripControls('é 中文 😀 ا'), 'é 中文 😀 ا');
  });

  it('hovers, the record view (every field) and the plain CLI rendering', () => {
    const r = hostile();
    for (const opts of [{}, { compact: true }, { plain: true }, { match: { text: sneaky('x y'), captures: [{ name: 'user', value: sneaky('r o') }] } }])
      assertClean(`renderRecord ${JSON.stringify(opts)}`, renderRecord(r, opts));
  });

  it('snippets and their header comment', () => {
    const r = hostile();
    const target = { languageId: 'python', indent: '    ', insertSpaces: true, tabSize: 4, eol: '\n' as const };
    assertClean('formatSnippet', formatSnippet(r.tryCatchPattern!, r, target));
    assertClean('snippetHeader', snippetHeader({ ...r, slug: sneaky('a b') }, languageById('python')!));
  });

  it('language server features: hover, diagnostics, code actions, links, explain/search DTOs, record view, snippet request', async () => {
    const r = hostile();
    const ctx = makeCtx([r]);
    const logLine = 'access denied for user b\u202eob\u2066 at gate';
    const doc = ctx.documents.open('file:///w/x.log', 'log', 1, `${logLine}\n`);
    const pos = { line: 0, character: logLine.indexOf('denied') };
    const h = await hover(ctx, { textDocument: { uri: doc.uri }, position: pos });
    assert.ok(h, 'the record matches the log line');
    assertClean('hover', h);
    const diags = await documentDiagnostics(ctx, doc);
    assert.ok(diags.items.length >= 1);
    assertClean('diagnostics', diags.items);
    const links = await documentLinks(ctx, new FileRefResolver(() => ['/w']), { textDocument: { uri: doc.uri } });
    assertClean('document links', links);
    const matches = await explainText(ctx, { text: logLine });
    assert.equal(matches.length, 1);
    assertClean('explainText DTOs', matches);
    assertClean('search DTOs', search(ctx, { query: 'access denied' }));
    const rec = await recordRequest(ctx, { id: r.id, captures: matches[0]!.captures, matchedText: logLine });
    assertClean('record view markdown', rec!.markdown);
    const source = '    raise AccessError("access denied for user bob at gate")\n';
    const py = ctx.documents.open(pathToUri('/w/gate.py'), 'python', 1, source);
    const at = positionOf(source, 'raise');
    const actions = await codeActions(ctx, { textDocument: { uri: py.uri }, range: { start: at, end: at }, context: { diagnostics: [] } });
    assert.ok(actions.length >= 2, JSON.stringify(actions.map((a) => a.title)));
    assertClean('code actions (titles, edits, command arguments)', actions);
    const snip = snippetRequest(ctx, { id: r.id, kind: 'tryCatch', uri: py.uri, line: 0 });
    assert.ok(snip);
    assertClean('snippet request', snip);
  });

  it('CLI: scan in every format and explain print no raw invisible character (JSON keeps the data)', () => {
    const dir = tempDir('invisible');
    const r = hostile();
    writeFileSync(path.join(dir, 'r.json'), JSON.stringify([r]));
    const log = path.join(dir, 'app.log');
    writeFileSync(log, 'ok\naccess denied for user b\u202eob\u2066\u200b at gate\n');
    for (const format of ['text', 'json', 'sarif', 'count']) {
      const p = spawnSync(process.execPath, [CLI, 'scan', '--no-bundled', '--records', path.join(dir, 'r.json'), '--format', format, log], { encoding: 'utf8' });
      assert.equal(p.status, 0, p.stderr);
      assert.doesNotMatch(p.stdout, ANY, `${format}: ${p.stdout.slice(0, 400)}`);
      if (format === 'json') assert.equal((JSON.parse(p.stdout.trim()) as { captures: { value: string }[] }).captures[0]!.value, 'b\u202eob\u2066\u200b', 'JSON keeps the data');
      if (format === 'text') assert.match(p.stdout, /b\\u202eob\\u2066\\u200b/, 'shown, not hidden');
    }
    // colour on: the CLI's own colours pass, nothing from the record or the log does (an ESC in the
    // log line ends up escaped or removed, never a colour of its own)
    writeFileSync(log, 'access denied for user b\u001b[8m\u202eob at gate\n');
    for (const cmd of [['scan', '--format', 'text', log], ['explain', 'access denied for user b\u001b[8m\u202eob at gate']]) {
      const p = spawnSync(process.execPath, [CLI, cmd[0]!, '--color=always', '--no-bundled', '--records', path.join(dir, 'r.json'), ...cmd.slice(1)], { encoding: 'utf8' });
      assert.equal(p.status, 0, p.stderr);
      assert.match(p.stdout, /\u001b\[1m/, `${cmd[0]}: coloured`);
      const sgr = p.stdout.replace(/\u001b\[(?:[0-4]|3[1-6])m/g, '');
      assert.doesNotMatch(sgr, ANY, `${cmd[0]}: only the CLI's colours: ${JSON.stringify(sgr.match(ANY))}`);
      assert.ok(!p.stdout.includes('\u001b[8m'), `${cmd[0]}: the log's conceal sequence is not passed on`);
    }
    for (const extra of [[], ['--markdown']]) {
      const p = spawnSync(process.execPath, [CLI, 'explain', '--no-bundled', '--records', path.join(dir, 'r.json'), ...extra, 'access denied for user b\u202eob at gate'], { encoding: 'utf8' });
      assert.equal(p.status, 0, p.stderr);
      assert.match(p.stdout, /access denied/);
      assert.doesNotMatch(p.stdout, ANY);
    }
  });

  it('agent tools (MCP, language-model tool) and the Known Errors view scan results', async () => {
    const r = hostile();
    const catalog = new Catalog([r]);
    const dir = tempDir('invisible');
    const logLine = 'access denied for user b\u202eob\u2066\u200b at gate';
    writeFileSync(path.join(dir, 'app.log'), `ok\n${logLine}\n`);
    const env: AgentEnv = { cwd: dir, catalog: () => catalog, scanCatalog: () => catalog, records: () => catalog.records, sources: () => [{ origin: 'files', path: dir, records: 1 }] };
    const calls: [string, Record<string, unknown>][] = [
      ['search_error', { message: logLine }],
      ['search_error', { message: 'access gate' }],
      ['get_error', { id: r.id }],
      ['explain_text', { text: logLine }],
      ['scan_log', { path: 'app.log' }],
      ['scan_log', { text: logLine }],
      ['list_repos', {}],
    ];
    for (const [name, args] of calls) {
      const res = await callTool(env, name, args);
      assert.equal(res.isError, undefined, `${name}: ${res.text}`);
      assertClean(`${name} text`, res.text);
    }
    assert.match((await callTool(env, 'scan_log', { path: 'app.log' })).text, /1 known error matched 1 time/);
    const scans = new LogScans(() => catalog, () => undefined, { error: () => undefined, warn: () => undefined, info: () => undefined, log: () => undefined });
    const res = await scans.scan({ path: path.join(dir, 'app.log') }, undefined, () => false);
    assert.equal(res.groups.length, 1, JSON.stringify(res));
    assert.equal(res.groups[0]!.occurrences[0]!.line, 2);
    assertClean('scanLog result (Known Errors view)', res.groups);
  });

  it('MCP server: its JSON lines carry invisible characters as \\u escapes; the parsed data keeps them', async function () {
    this.timeout(30_000);
    const dir = tempDir('invisible');
    const r = hostile();
    writeFileSync(path.join(dir, 'r.json'), JSON.stringify([r]));
    const child = spawn(process.execPath, [CLI, 'mcp', '--no-bundled', '--records', path.join(dir, 'r.json')], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
    const response = async (id: number): Promise<{ result: { content: { text: string }[]; structuredContent: Record<string, any> } }> => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const line = out.split('\n').find((l) => l.startsWith('{') && (JSON.parse(l) as { id?: number }).id === id);
        if (line) return JSON.parse(line);
        assert.ok(Date.now() < deadline && child.exitCode === null, `no answer ${id}; stdout ${out.slice(0, 300)}; stderr ${err}`);
        await new Promise((res) => setTimeout(res, 20));
      }
    };
    try {
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'invisible-test', version: '1' } } });
      await response(1);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_error', arguments: { message: 'access denied for user b\u202eob\u2066 at gate' } } });
      send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_error', arguments: { id: r.id } } });
      const search = await response(2);
      const get = await response(3);
      assert.doesNotMatch(out, ANY, out.slice(0, 400));
      assert.match(out, /\\u202e/, 'shown as an escape');
      assert.equal(search.result.structuredContent['results'][0].captures[0].value, 'b\u202eob\u2066', 'the data is unchanged');
      assert.equal(get.result.structuredContent['record'].errorCode, 'E\u202eACC');
      assertClean('MCP text', search.result.content[0]!.text + get.result.content[0]!.text);
    } finally {
      child.kill();
    }
  });
});
