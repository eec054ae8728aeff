import * as assert from 'node:assert/strict';
import type { ErrorRecord } from '../../server/src/core/record';
import * as fs from 'node:fs';
import { extractFromDir } from '../../server/src/core/extract';
import {
  codeSpan,
  escapeMarkdown,
  fencedBlock,
  firstSentence,
  GLANCE,
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

    it('summary mode (CLI scan, SARIF) is shorter and keeps causes, fixes, snippets and the raise site', () => {
      const r = seed(0);
      const full = renderRecord(r);
      const summary = renderRecord(r, { summary: true });
      assert.ok(summary.length < full.length);
      assert.ok(summary.includes('**Why it happens**'));
      assert.ok(summary.includes('**Solutions**'));
      assert.ok(summary.includes('```python\n' + r.tryCatchPattern + '\n```'));
      assert.ok(summary.includes('**Raised at**'));
      assert.ok(!summary.includes('Common situations'));
      assert.ok(!summary.includes('Source (lines'));
      assertInert(summary, [GH]);
    });

    it('compact mode (hover) is a glance: one-line title with the raise site, actions under it, lead sentences, first fix, captures', () => {
      const r = seed(2);
      const actions = '[Insert try/catch](command:errorExplainer.insertSnippet?%5B%5D) · [Copy](command:errorExplainer.copyExplanation?%5B%5D)';
      const out = renderRecord(r, {
        compact: true,
        actions,
        confidence: { label: 'likely', reasons: ['specific message text', 'an error marker on the line'] },
        match: {
          text: 'Inconsistent receive_count for req_id=r-7: registered 1, got 2',
          captures: [
            { name: 'req_id', value: 'r-7' },
            { name: 'registered_count', value: '1' },
            { name: 'expected_destination_count', value: 'x'.repeat(200) },
          ],
        },
      });
      const blocks = out.trimEnd().split('\n\n');
      assert.equal(blocks.length, 3, 'title and actions; documentation; the facts');
      const [title, actionLine, ...more] = blocks[0]!.split('  \n');
      assert.match(title!, /^\*\*BadRequestError\*\* · HTTP 400 · error · sgl-project\/sglang · raised at \[`…\/encoder\/server\.py:724`\]\(https:\/\/github\.com\/[^)]+server\.py#L\d+-L\d+\)$/);
      assert.equal(actionLine, actions, 'the action links on the line under the title');
      assert.deepEqual(more, []);
      // the documentation's first sentence(s), within the glance limit
      assert.ok(blocks[1]!.startsWith('register\\_embedding\\_destinations memoizes the expected receive\\_count'), blocks[1]);
      assert.ok(blocks[1]!.replace(/\\/g, '').length <= GLANCE.documentation);
      // one line each, hard line breaks (no paragraph margins)
      const facts = blocks[2]!.split('  \n');
      assert.equal(facts.length, 2, `a likely match says nothing about its confidence: ${blocks[2]}`);
      assert.match(facts[0]!, /^\*\*Fix:\*\* Make all ranks compute receive\\_count .*… \(\+2 more\)$/);
      assert.ok(facts[0]!.replace(/\\|\*\*/g, '').length <= 'Fix: '.length + GLANCE.solution + ' (+2 more)'.length, facts[0]);
      assert.match(facts[1]!, /^\*\*Captured:\*\* req\\_id = `r-7` · registered\\_count = `1` · expected\\_destination\\_count = `x+…`$/);
      assert.ok(facts[1]!.length < 140, 'a long capture value is shortened');
      assert.ok(!out.includes('Likely match'));
      for (const html of [mdIt.render(out), marked.parse(out, { gfm: true, async: false })]) assert.equal((html.match(/<br>/g) ?? []).length, 2, 'rendered as line breaks (markdown-it and marked)');
      for (const gone of ['Why it happens', 'Solutions', 'Try/catch', 'Validation', 'Source', '| Capture |', 'Common situations']) assert.ok(!out.includes(gone), gone);
      assertInert(out.replace(actions, ''), [r.githubUrl!]);
    });

    it('compact mode states the confidence of a doubtful match (possible, unlikely) as the last line', () => {
      for (const label of ['possible', 'unlikely'] as const) {
        const out = renderRecord(seed(2), { compact: true, confidence: { label, reasons: ['generic message text', 'x'] } });
        const last = out.trimEnd().split('\n').at(-1);
        assert.equal(last, `_${label[0]!.toUpperCase()}${label.slice(1)} match \\(generic message text\\)_`);
      }
    });

    it('compact mode skips a first sentence that only restates the error', () => {
      const r = { ...seed(1), documentation: 'Encode metadata not ready. The decoder waited for metadata that never came.' };
      const out = renderRecord(r, { compact: true, match: { text: 'encode metadata not ready', captures: [] } });
      const shown = out.replace(/\\(.)/g, '$1'); // the text as rendered (record text is escaped, '.' too)
      assert.ok(shown.includes('The decoder waited for metadata that never came.'), out);
      assert.ok(!/Encode metadata not ready\./.test(shown), out);
    });

    it('a skeleton record: the glance shows the raise statement (a few lines), the summary a short window, the full view all of it', () => {
      const r = skeleton();
      const glance = renderRecord(r, { compact: true });
      assert.ok(!glance.includes('No explanation has been written'), 'no long notice in the hover');
      assert.match(glance, /_No explanation written yet \(a skeleton record\)\._\n$/);
      assert.ok(glance.includes('runtime.py:1295'));
      const fence = /```python\n([\s\S]*?)\n```/.exec(glance);
      assert.ok(fence, glance);
      const shown = fence[1]!.split('\n');
      assert.ok(shown.length <= 4, `${shown.length} lines of source`);
      const raiseLine = r.sourceCode!.split('\n')[r.lineNumber! - r.sourceCodeStart!]!.trim();
      assert.ok(shown.some((l) => l.trim() === raiseLine), `the raise line ${raiseLine} is shown`);
      assert.ok(glance.indexOf('runtime.py:1295') < glance.indexOf('```'), 'raise site before the code');
      const summary = renderRecord(r, { summary: true });
      assert.ok(summary.includes('No explanation has been written for this error yet'));
      assert.ok(summary.includes('Source (from line'));
      assert.ok(!summary.includes('Solutions'));
      const full = renderRecord(r);
      assert.ok(full.includes('No explanation has been written for this error yet'));
      assert.ok(full.includes('```python\n' + r.sourceCode + '\n```'));
      assert.ok(full.includes('Source (lines 1277–1313)'));
    });

    it('every bundled record and every record extracted from this machine\'s Python library glances in at most 8 blocks of bounded length', function () {
      this.timeout(60000);
      const records: ErrorRecord[] = [...seeds];
      const lib = '/usr/lib/python3.11';
      if (fs.existsSync(lib)) records.push(...extractFromDir(lib, { repo: 'python/cpython', sha: null }).records);
      assert.ok(records.length > 3);
      let worst = 0;
      for (const r of records) {
        const out = renderRecord(r, {
          compact: true,
          actions: '[Open full explanation](command:x)',
          confidence: { label: 'possible', reasons: ['fairly generic message text'] },
          match: { text: r.errorMessage, captures: [{ name: 'a', value: 'b' }] },
        });
        const blocks = out.trimEnd().split(/\n\n(?![^`]*```\n)/);
        assert.ok(blocks.length <= 8, `${r.id}: ${blocks.length} blocks`);
        const lines = out.trimEnd().split('\n').filter((l) => l.trim()).length;
        worst = Math.max(worst, lines);
        assert.ok(lines <= 12, `${r.id} (${r.filePath}): ${lines} lines\n${out}`);
      }
      assert.ok(worst >= 5);
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
      // (a link's text in a code span with a backtick: marked ended the text at the `](` inside it
      // and linked the rest; found by the fuzz run at 20,000, seed 42)
      ['link text ended inside a code span', '`\t+evil.com。](http://evil%2Eexample)<*c(c}'],
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
        for (const opts of [
          {},
          { compact: true },
          { summary: true },
          { match: { text: payload, captures: [{ name: payload, value: payload }] } },
          { compact: true, match: { text: payload, captures: [{ name: payload, value: payload }] }, confidence: { label: payload, reasons: [payload] } },
        ]) {
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
