// Trust over LSP (issue 6): hostile records in the workspace (.error-records/) try every way to
// get live content into what the server sends: command: links, reference-style links, raw HTML,
// images, autolinks and bare URLs, javascript:/data:/vscode: URLs, a non-GitHub githubUrl, a
// filePath that climbs out of the workspace, and log text (captures) carrying the same payloads.
// Every Markdown the server produces (hovers in a log and on a raise site, the record view) is
// rendered with markdown-it at its most permissive (HTML and linkify on), and so are the other
// surfaces checked: diagnostics, document links, code actions.
// Allowed live targets: the extension's own commands with JSON arguments the server built for a
// known record, https://github.com/ links equal to a record's own githubUrl, file: URIs inside the
// workspace. (Renderer-level injection cases are in test/unit/render.test.ts.)
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CodeAction, Diagnostic, DocumentLink, Hover } from 'vscode-languageserver-protocol';
import { copyFixture, TestClient, waitFor } from './client';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const MarkdownIt = require('markdown-it');
const md = new MarkdownIt({ html: true, linkify: true });

const PAYLOAD = [
  '[Run me](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm -rf ~%22%7D)',
  '[x]\n\n[x]: command:evil.run',
  '<img src=x onerror=alert(1)><script>alert(1)</script><a href="command:x">a</a>',
  '<div>\n<iframe src="https://evil.example"></iframe>\n</div>',
  '![pixel](https://evil.example/track.png)',
  '<https://evil.example/x> and <command:evil>',
  'see https://evil.example/path?q=1 now, www.evil.example, evil@evil.example, evil.com',
  'javascript:alert(1) data:text/html,<b>x</b> vscode://evil/x',
  '`` ` ``[x](command:y)`',
  '&lt;script&gt; &#60;img src=x&#62;',
].join('\n\n');

const GH = 'https://github.com/acme/rogue/blob/main/rogue.py#L3';
const IDS = { widget: 'f1f1f1f1f1f1f1f1', gadget: 'f2f2f2f2f2f2f2f2', gizmo: 'f3f3f3f3f3f3f3f3' };
const textFields = {
  documentation: PAYLOAD,
  triggerScenarios: PAYLOAD,
  commonSituations: PAYLOAD,
  solutions: [PAYLOAD, '[click](command:evil.run)'],
  preventionTips: [PAYLOAD],
  exampleFix: PAYLOAD,
  validationCode: 'if (x) {\n  ' + PAYLOAD.replace(/\n/g, ' ') + '\n}',
  tryCatchPattern: 'try:\n    run()\nexcept Rogue:\n    ' + PAYLOAD.replace(/\n/g, ' '),
  sourceCode: PAYLOAD,
};
const RECORDS = [
  {
    id: IDS.widget,
    errorMessage: 'rogue widget failed with code {code}',
    errorClass: '<img src=x onerror=alert(1)>',
    errorCode: 'E1](command:evil.run)',
    repo: 'acme/rogue',
    githubUrl: GH,
    filePath: '../../../../../../etc/passwd',
    lineNumber: 1,
    ...textFields,
  },
  { id: IDS.gadget, errorMessage: 'rogue gadget exploded: {why}', errorClass: 'Gadget', githubUrl: 'javascript:alert(1)', ...textFields },
  {
    id: IDS.gizmo,
    errorMessage: 'rogue gizmo broke at {where}',
    errorClass: 'Gizmo',
    githubUrl: 'https://evil.example/https://github.com/acme/rogue',
    filePath: '/etc/hosts',
    ...textFields,
  },
];
// log text carries payloads too (they become captures and matched text)
const LOG = [
  'ERROR rogue widget failed with code [x](command:evil.run) <img src=x onerror=alert(1)>',
  'ERROR rogue gadget exploded: ![p](https://evil.example/p.png) <script>alert(1)</script>',
  'ERROR rogue gizmo broke at https://evil.example/x javascript:alert(1)',
  '',
].join('\n');

const ALLOWED_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'strong', 'em', 'code', 'pre', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'ol', 'ul', 'li', 'blockquote', 'a', 'br', 'hr', 's']);
const OWN_COMMANDS = /^command:(errorExplainer\.(?:insertSnippet|openRecord|copyExplanation|goToRaiseSite))\?(.*)$/;

describe('language server over stdio: trust (hostile records and log text stay data)', function () {
  let ws: string;
  let c: TestClient;
  let logUri: string;
  const wsUri = (): string => pathToFileURL(ws).href + '/';

  /** A link target the server may produce: our commands with args built for a known record,
   * the record's own GitHub URL, a file inside the workspace. */
  function assertAllowedHref(href: string, where: string): void {
    const cmd = OWN_COMMANDS.exec(href);
    if (cmd) {
      const args = JSON.parse(decodeURIComponent(cmd[2]!)) as unknown[];
      assert.ok(Array.isArray(args) && args.length === 1, `${where}: args of ${href}`);
      const a = args[0] as Record<string, unknown>;
      assert.ok(Object.values(IDS).includes(a['id'] as string), `${where}: command for an unknown record: ${href}`);
      for (const k of Object.keys(a)) assert.ok(['id', 'kind', 'captures', 'matchedText', 'near'].includes(k), `${where}: argument ${k}`);
      if (a['near'] !== undefined) {
        const near = a['near'] as { uri: unknown; line: unknown };
        assert.ok(typeof near.uri === 'string' && near.uri.startsWith(wsUri()) && Number.isInteger(near.line), `${where}: near ${JSON.stringify(near)}`);
      }
      return;
    }
    if (href.startsWith('https://')) {
      assert.equal(href, GH, `${where}: only the record's own GitHub URL is linked (got ${href})`);
      return;
    }
    if (href.startsWith('file:')) {
      assert.ok(href.startsWith(wsUri()), `${where}: a file link outside the workspace: ${href}`);
      return;
    }
    assert.fail(`${where}: unexpected link ${href}`);
  }

  /** Renders Markdown as permissively as possible and checks every tag and link. */
  function assertInertMarkdown(markdown: string, where: string): void {
    const html: string = md.render(markdown);
    for (const m of html.matchAll(/<(\/?)([a-zA-Z][\w-]*)([^>]*)>/g)) {
      const tag = m[2]!.toLowerCase();
      assert.ok(ALLOWED_TAGS.has(tag), `${where}: tag <${tag}> in\n${html}`);
      if (!m[1] && tag === 'a') assert.match(m[3]!.trim(), /^href="[^"]*"( title="[^"]*")?$/, `${where}: <a${m[3]}>`);
    }
    assert.doesNotMatch(html, /<(img|script|iframe|svg|object|embed)\b/i, `${where}: markup in\n${html}`);
    for (const m of html.matchAll(/<a\s[^>]*href="([^"]*)"/g)) assertAllowedHref(m[1]!.replace(/&amp;/g, '&'), where);
  }

  before(async () => {
    ws = copyFixture();
    fs.writeFileSync(path.join(ws, '.error-records', 'rogue.json'), JSON.stringify(RECORDS, null, 2));
    fs.writeFileSync(path.join(ws, 'rogue.py'), 'def run():\n    pass\n\nraise Rogue("rogue widget failed with code " + code)\n');
    c = await TestClient.start({ workspace: ws });
    logUri = await c.open('logs/rogue.log', 'log', LOG);
    // the hostile records are loaded (all three, none rejected)
    await waitFor('rogue records', async () => ((await c.request<unknown[]>('errorExplainer/explainText', { text: LOG })).length === 3 ? true : undefined));
  });
  after(async () => {
    await c?.stop();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('hovers on every matched line: only our commands, the own GitHub URL and workspace files are links; no HTML, no images', async () => {
    const lines = LOG.split('\n');
    let checked = 0;
    for (let line = 0; line < 3; line++) {
      const character = lines[line]!.indexOf('rogue') + 2;
      const h = await c.request<Hover | null>('textDocument/hover', { textDocument: { uri: logUri }, position: { line, character } });
      assert.ok(h, `hover on line ${line}`);
      const value = (h.contents as { value: string }).value;
      assertInertMarkdown(value, `hover line ${line}`);
      // the footer's own command links are live
      assert.match(md.render(value), /href="command:errorExplainer\.openRecord\?/);
      checked++;
    }
    assert.equal(checked, 3);
  });

  it('the record view Markdown of each record, also with hostile captures and matched text from a crafted link', async () => {
    for (const id of Object.values(IDS)) {
      for (const extra of [{}, { captures: [{ name: '[n](command:evil)', value: '<img src=x>' }], matchedText: '![a](https://evil.example/a.png)' }]) {
        const r = await c.request<{ markdown: string } | null>('errorExplainer/record', { id, ...extra });
        assert.ok(r, id);
        assertInertMarkdown(r.markdown, `record ${id}`);
      }
    }
  });

  it('diagnostics: code links only to the own GitHub URL, related locations only inside the workspace', async () => {
    const report = await c.pull(logUri);
    const items = report.items as Diagnostic[];
    assert.equal(items.length, 3);
    for (const d of items) {
      if (d.codeDescription) assert.equal(d.codeDescription.href, GH);
      for (const r of d.relatedInformation ?? []) assert.ok(r.location.uri.startsWith(wsUri()), `related ${r.location.uri}`);
      assert.equal(typeof d.message, 'string'); // plain text in the Problems panel, never rendered as Markdown
    }
  });

  it('document links: only workspace files and the own GitHub URL', async () => {
    const links = await c.request<DocumentLink[]>('textDocument/documentLink', { textDocument: { uri: logUri } });
    for (const l of links) if (l.target) assertAllowedHref(l.target, 'document link');
  });

  it('code actions: our commands only, plain text edits inside the workspace, no file operations', async () => {
    const items = (await c.pull(logUri)).items as Diagnostic[];
    let total = 0;
    for (const d of items) {
      const actions = await c.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri: logUri }, range: d.range, context: { diagnostics: [d] } });
      total += actions.length;
      for (const a of actions) {
        if (a.command) assert.match(a.command.command, /^errorExplainer\./, a.title);
        for (const ch of a.edit?.documentChanges ?? []) {
          assert.ok(!('kind' in ch), `${a.title}: file operation ${JSON.stringify(ch)}`);
          assert.ok(ch.textDocument.uri.startsWith(wsUri()), ch.textDocument.uri);
        }
        for (const uri of Object.keys(a.edit?.changes ?? {})) assert.ok(uri.startsWith(wsUri()), `${a.title}: edit of ${uri}`);
      }
    }
    assert.ok(total > 0, 'code actions are offered on the hostile records');
  });

  it('leaves stderr free of errors', () => {
    assert.doesNotMatch(c.stderr, /\b(Error|TypeError|RangeError)\b.*\n\s+at /);
  });
});
