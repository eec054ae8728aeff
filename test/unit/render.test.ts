import * as assert from 'node:assert/strict';
import type { ErrorRecord } from '../../server/src/core/record';
import {
  codeSpan,
  escapeMarkdown,
  fencedBlock,
  firstSentence,
  renderRecord,
  safeGithubUrl,
} from '../../server/src/core/render';
import bundled from '../../records/sgl-project/sglang.json';

// Two renderers: marked (GFM, autolinks of scheme URLs, www. and e-mails anywhere in a text run),
// the one VS Code's hovers use, and markdown-it with HTML and linkify on (fuzzy domains, e-mails),
// the Markdown preview that shows the record view. Record text must be inert under both.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const MarkdownIt = require('markdown-it');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { marked } = require('marked') as { marked: { parse(md: string, opts?: object): string } };
const mdIt = new MarkdownIt({ html: true, linkify: true });
/** Both renderings, joined: every check below applies to each. */
const md = { render: (text: string): string => mdIt.render(text) + '\n<hr>\n' + marked.parse(text, { gfm: true, async: false }) };

const seeds = bundled as unknown as ErrorRecord[];
const seed = (i: number): ErrorRecord => structuredClone(seeds[i]!);
const GH = seeds[0]!.githubUrl!;

function skeleton(): ErrorRecord {
  return {
    ...seed(0),
    documentation: null,
    triggerScenarios: null,
    commonSituations: null,
    solutions: [],
    preventionTips: [],
    exampleFix: null,
    validationCode: null,
    typeGuard: null,
    tryCatchPattern: null,
  };
}

const ALLOWED_TAGS = new Set(['h3', 'h4', 'p', 'strong', 'em', 'code', 'pre', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'ol', 'ul', 'li', 'blockquote', 'a', 'br', 'hr']);

/** Renders to HTML and checks: only allowed tags, links only to allowed hrefs, no images, no entities decoded into markup. */
function assertInert(markdown: string, allowedHrefs: string[] = []): string {
  const html: string = md.render(markdown);
  for (const m of html.matchAll(/<(\/?)([a-zA-Z][\w-]*)([^>]*)>/g)) {
    const tag = m[2]!.toLowerCase();
    const attrs = m[3]!.trim();
    assert.ok(ALLOWED_TAGS.has(tag), `tag <${tag}> in\n${html}`);
    if (m[1]) {
      assert.equal(attrs, '');
      continue;
    }
    if (tag === 'a') assert.match(attrs, /^href="[^"]*"$/, `attributes of <a ${attrs}>`);
    else if (tag === 'code') assert.match(attrs, /^(class="language-[\w+-]+")?$/, `attributes of <code ${attrs}>`);
    else assert.match(attrs, /^(style="text-align:(left|right|center)")?$/, `attributes of <${tag} ${attrs}>`);
  }
  for (const m of html.matchAll(/<a\s[^>]*href="([^"]*)"/g)) {
    const href = m[1]!.replace(/&amp;/g, '&');
    assert.ok(allowedHrefs.includes(href), `unexpected link ${href} in\n${html}`);
  }
  return html;
}

/** The visible text of rendered HTML. */
function visible(html: string): string {
  return html
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

describe('render', () => {
  describe('renderRecord', () => {
    it('renders every section of a full record', () => {
      const r = seed(2);
      const out = renderRecord(r, {
        match: {
          text: 'Inconsistent receive_count for req_id=r-7: registered 1, got 2',
          captures: [
            { name: 'req_id', value: 'r-7' },
            { name: 'registered_count', value: '1' },
            { name: 'expected_destination_count', value: '2' },
          ],
        },
      });
      const html = assertInert(out, [GH.replace(seeds[0]!.filePath!, r.filePath!).replace('L1277-L1313', 'L706-L742')]);
      const text = visible(html);
      assert.match(out, /^### BadRequestError · HTTP 400 · error · sgl-project\/sglang\n/);
      for (const heading of ['Why it happens', 'Common situations', 'Solutions', 'Prevention', 'Example fix', 'Validation', 'Try/catch', 'Raised at']) {
        assert.ok(out.includes(`#### ${heading}`), heading);
      }
      assert.ok(text.includes(r.documentation!), 'documentation shown verbatim');
      assert.ok(text.includes(r.triggerScenarios!));
      assert.ok(text.includes(r.commonSituations!));
      for (const s of [...r.solutions, ...r.preventionTips]) assert.ok(text.includes(s), s);
      // captures table
      assert.match(out, /\| Capture \| Value \|\n\| --- \| --- \|\n\| req\\_id \| r-7 \|/);
      assert.ok(html.includes('<td>expected_destination_count</td>'));
      // snippets fenced as python (filePath is .py), verbatim
      assert.ok(out.includes('```python\n' + r.tryCatchPattern + '\n```'));
      assert.ok(out.includes('```python\n' + r.validationCode + '\n```'));
      assert.ok(out.includes('```python\n' + r.exampleFix + '\n```'));
      // raise site: file:line at short sha, linked to githubUrl
      assert.ok(text.includes('python/sglang/srt/disaggregation/encoder/server.py:724 at 0132848'));
      assert.ok(out.includes(`](${r.githubUrl})`));
    });

    it('compact mode (hover) is shorter and keeps causes, fixes, snippets and the raise site', () => {
      const r = seed(0);
      const full = renderRecord(r);
      const compact = renderRecord(r, { compact: true });
      assert.ok(compact.length < full.length);
      assert.ok(compact.includes('**Why it happens**'));
      assert.ok(compact.includes('**Solutions**'));
      assert.ok(compact.includes('```python\n' + r.tryCatchPattern + '\n```'));
      assert.ok(compact.includes('**Raised at**'));
      assert.ok(!compact.includes('Common situations'));
      assert.ok(!compact.includes('Source (lines'));
      assertInert(compact, [GH]);
    });

    it('a skeleton record says so and still shows the raise site and the source', () => {
      const r = skeleton();
      for (const compact of [false, true]) {
        const out = renderRecord(r, { compact });
        assert.ok(out.includes('No explanation has been written for this error yet'));
        assert.ok(out.includes('runtime.py:1295'));
        assert.ok(out.includes('```python\n' + r.sourceCode + '\n```'));
        assert.ok(out.includes('Source (lines 1277–1313)'));
        assert.ok(!out.includes('Solutions'));
      }
    });

    it('uses a local raise site href when given, keeping the GitHub link', () => {
      const out = renderRecord(seed(0), { raiseSite: { label: 'runtime.py:1295', href: 'file:///work/repo/runtime.py#L1295' } });
      assertInert(out, ['file:///work/repo/runtime.py#L1295', GH]);
      assert.ok(out.includes('[`runtime.py:1295`](file:///work/repo/runtime.py#L1295)'));
    });

    it('appends the trusted footer as is', () => {
      const footer = '[Explain](command:errorExplainer.explain?%5B%22x%22%5D)';
      const out = renderRecord(seed(0), { footer });
      assert.ok(out.trimEnd().endsWith(footer));
    });

    it('plain mode (terminal) does not escape but strips control characters', () => {
      const r = { ...seed(0), documentation: 'Use req_id *once*.\u001b[31m red \u001b]0;title\u0007 \u202e' };
      const out = renderRecord(r, { plain: true });
      assert.ok(out.includes('Use req_id *once*.'));
      assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/.test(out));
    });
  });

  describe('injection: record text is data', () => {
    const hostile: [string, string][] = [
      ['command link', '[Run me](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm -rf ~%22%7D)'],
      ['reference link', '[x]\n\n[x]: command:evil.run'],
      ['inline html', '<img src=x onerror=alert(1)><script>alert(1)</script><a href="command:x">a</a>'],
      ['html comment / block', '<div>\n<iframe src="https://evil.example"></iframe>\n</div>'],
      ['image', '![pixel](https://evil.example/track.png)'],
      ['autolink', '<https://evil.example/x> and <command:evil>'],
      ['bare url', 'see https://evil.example/path?q=1 now'],
      ['www link', 'visit www.evil.example today'],
      ['email', 'mail evil@evil.example'],
      ['fuzzy domain', 'open evil.com or runtime.py'],
      ['entity', '&lt;script&gt; &#60;b&#62; &amp;'],
      ['javascript url', 'javascript:alert(1) data:text/html,<b>x</b> vscode://evil'],
      ['backtick break', '`` ` ``[x](command:y)`'],
      ['heading and list', '# Heading\n1. one\n- two\n> quote\n---\n| a | b |\n| - | - |'],
      ['emphasis', '**bold** _it_ ~~del~~ $x^2$'],
    ];
    for (const [name, payload] of hostile) {
      it(`${name}: in every text field`, () => {
        const r: ErrorRecord = {
          ...seed(0),
          errorClass: payload,
          errorMessage: payload,
          repo: payload,
          documentation: payload,
          triggerScenarios: payload,
          commonSituations: payload,
          solutions: [payload, payload],
          preventionTips: [payload],
          exampleFix: payload,
          validationCode: '```\n' + payload + '\n```',
          typeGuard: '~~~\n' + payload,
          tryCatchPattern: '````' + payload,
          sourceCode: payload,
          filePath: payload,
        };
        for (const opts of [{}, { compact: true }, { match: { text: payload, captures: [{ name: payload, value: payload }] } }]) {
          const html = assertInert(renderRecord(r, opts), [GH]);
          const text = visible(html).replace(/\s+/g, ' ');
          // the payload is shown literally (whitespace aside)
          const literal = payload.replace(/\s+/g, ' ');
          if (!/\n/.test(payload)) assert.ok(text.includes(literal), `payload not shown literally:\n${text}`);
        }
      });
    }

    // Shapes that renderers autolink, each glued to what precedes it in ways a word boundary does
    // not see (issue 14: `_https://`, `1https://`, `x_https://`, `%2E` hosts decoded by the browser).
    const AUTOLINK_SHAPES = [
      'https://evil.example/x',
      'http://evil.example',
      'HTTPS://EVIL.EXAMPLE/',
      'ftp://evil.example/f',
      'https://evil%2Eexample/reset',
      'www.evil.example',
      'www.evil.example:8080/x',
      'evil@evil.example',
      'mailto:a@evil.example',
      'xmpp:a@evil.example',
      'evil.com/path',
      '//evil.example/x',
      'http://127.0.0.1:8/x',
      'http://[::1]/x',
      'file:///etc/passwd',
      'vscode://x.y/z',
      'command:workbench.action.openSettings',
      'javascript:alert(1)',
    ];
    const GLUE = ['', ' ', '_', '1', 'x_', 'req_id=_', '(', '*', '~', '"', "'", '\\', '/', '-', '.', 'é', ':'];
    it('no autolink shape becomes a link, whatever is glued before or after it (marked and markdown-it; record and log text)', () => {
      let checked = 0;
      for (const shape of AUTOLINK_SHAPES)
        for (const before of GLUE)
          for (const after of ['', ' ', '.', ')', '_x', ' (already released)']) {
            const text = `${before}${shape}${after}`;
            // a record field (documentation), and log text (the matched span and a capture)
            const r: ErrorRecord = { ...seed(0), documentation: `see ${text} now`, solutions: [text] };
            assertInert(renderRecord(r, { compact: true, match: { text: `failed ${text}`, captures: [{ name: 'url', value: text }] } }), [GH]);
            assertInert(escapeMarkdown(text));
            checked++;
          }
      assert.equal(checked, AUTOLINK_SHAPES.length * GLUE.length * 6);
      // the line, exactly
      assertInert(escapeMarkdown('no staged embedding for /send req_id=_https://evil%2Ecom/reset (already released)'));
    });

    it('a githubUrl that is not https://github.com/ is never linked', () => {
      const bad = [
        'javascript:alert(1)',
        'command:workbench.action.openSettings',
        'http://github.com/a/b',
        'https://github.com.evil.example/a',
        'https://evil.example/https://github.com/',
        'https://user:pw@github.com/a/b',
        'https://github.com:8443/a/b',
        'file:///etc/passwd',
        'https://github.com/a/b) [x](command:evil',
        '//github.com/a/b',
      ];
      for (const url of bad) {
        const r = { ...seed(0), githubUrl: url };
        const out = renderRecord(r);
        const html = assertInert(out, ['https://github.com/a/b%29%20%5Bx%5D%28command:evil']);
        assert.doesNotMatch(html, /href="(?!https:\/\/github\.com\/)/, url);
      }
      assert.equal(safeGithubUrl('https://github.com/a/b) [x](command:evil'), 'https://github.com/a/b%29%20%5Bx%5D%28command:evil');
      assert.equal(safeGithubUrl(GH), GH);
      assert.equal(safeGithubUrl(null), undefined);
    });

    it('a caller href other than file:, vscode-remote: or https://github.com/ is not linked', () => {
      for (const href of ['command:evil', 'javascript:alert(1)', 'https://evil.example/', 'data:text/html,x']) {
        const out = renderRecord({ ...seed(0), githubUrl: null }, { raiseSite: { label: 'x.py:1', href } });
        assertInert(out, []);
      }
    });
  });

  describe('helpers', () => {
    it('escapeMarkdown leaves plain words alone and escapes metacharacters', () => {
      assert.equal(escapeMarkdown('plain words 42'), 'plain words 42');
      assert.equal(escapeMarkdown('a [b](c) <d> & `e`'), 'a \\[b\\]\\(c\\) \\<d\\> \\& \\`e\\`');
      assert.equal(escapeMarkdown('see https://x.example/a'), 'see `https://x.example/a`');
      assert.equal(escapeMarkdown('(see https://x.example/a).'), '\\(see `https://x.example/a`\\)\\.');
      assert.equal(escapeMarkdown('x_https://evil.example'), 'x\\_`https://evil.example`');
      assert.equal(escapeMarkdown('mail a@b.c: done.'), 'mail `a@b.c`\\: done\\.');
    });
    it('codeSpan and fencedBlock use a fence longer than any backtick run inside', () => {
      assert.equal(codeSpan('a ` b'), '`` a ` b ``'.replace('`` a', '``a').replace('b ``', 'b``'));
      assert.equal(codeSpan('``x``'), '``` ``x`` ```');
      const block = fencedBlock('print("```")\n````', 'python');
      assert.ok(block.startsWith('`````python\n'));
      assert.ok(block.endsWith('\n`````'));
      const html = mdIt.render(block);
      assert.ok(visible(html).includes('print("```")\n````'));
    });
    it('firstSentence', () => {
      assert.equal(firstSentence(null), '');
      assert.equal(firstSentence('One. Two.'), 'One.');
      assert.equal(firstSentence('Uses e.g. retries, i.e. twice. Then more.'), 'Uses e.g. retries, i.e. twice.');
      assert.equal(firstSentence('calls enc.send(...) and fails.\nNext'), 'calls enc.send(...) and fails.');
      assert.equal(firstSentence('no period at all'), 'no period at all');
      assert.equal(
        firstSentence(seeds[0]!.documentation),
        "The decoder called the encoder's /send endpoint for a req_id whose staged embedding has already been released, so enc.send(...) returned False.",
      );
    });
  });
});
