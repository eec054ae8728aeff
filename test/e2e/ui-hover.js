#!/usr/bin/env node
// UI-level test: drives the real workbench in Chromium like a person. Opens the log with Ctrl+P,
// moves the mouse over the error (twice, as a hand does), waits for the hover widget, reads its
// text as the user sees it, and saves a screenshot. Then searches by typing into the Search
// Error Records QuickPick and opens the hit with Enter.
//   node test/e2e/ui-hover.js --workspace DIR [--screenshot test/e2e/artifacts/hover.png]
// Exit status: 0 pass, 1 the hover is wrong or missing, 2 harness failure.
'use strict';
const path = require('path');
const { startCodeServer, launchBrowser, ROOT } = require('./code-server');
const { TestFailure, cliArg, runMain, openFile, openWorkbench, runCommand, waitFullyRendered } = require('./lib/ui');

const workspace = path.resolve(cliArg('workspace'));
const screenshot = path.resolve(cliArg('screenshot', path.join(ROOT, 'test', 'e2e', 'artifacts', 'hover.png')));
const FILE = 'app.log';
const TOKEN = 'receive_count'; // a word of the error line (Monaco renders spaces as U+00A0)
const EXPECT = [
  'register_embedding_destinations memoizes the expected receive_count', // the record's explanation
  'req-42', // the capture req_id of this line
];


async function main() {
  const cs = await startCodeServer({ workspace });
  const browser = await launchBrowser();
  try {
    // (the extension is active once its status item is there)
    const page = await openWorkbench(browser, cs, ROOT, { viewport: { width: 1440, height: 960 }, timeout: 120000 });
    console.log('workbench ready, extension active');

    // Open the log like a person: Ctrl+P, type the name, Enter.
    await openFile(page, FILE);
    const line = page.locator('.monaco-editor .view-lines .view-line', { hasText: TOKEN }).first();
    await line.waitFor();
    console.log(`opened ${FILE}`);

    // Where the token is on screen.
    const measure = () => line.evaluate((el, token) => {
      // Monaco renders a line as token spans in a monospace font: find the token's column in
      // the line's text and measure with the rendered line span.
      const span = el.firstElementChild;
      if (!span) return null;
      const text = span.textContent || '';
      const at = text.indexOf(token);
      const r = span.getBoundingClientRect();
      if (at < 0 || !text.length || r.width === 0) return null;
      const cw = r.width / text.length;
      return { x: r.x + at * cw, y: r.y, width: token.length * cw, height: r.height };
    }, TOKEN);
    let box = null;
    for (const end = Date.now() + 30000; !box && Date.now() < end; ) {
      box = await measure().catch(() => null); // the line may be re-rendered while we look
      if (!box) await page.waitForTimeout(250);
    }
    if (!box) throw new TestFailure(`"${TOKEN}" is not rendered`);
    console.log(`"${TOKEN}" at x=${Math.round(box.x)} y=${Math.round(box.y)} w=${Math.round(box.width)} h=${Math.round(box.height)}`);

    const hover = page.locator('.monaco-hover:not(.hidden)').first();
    let text = '';
    const end = Date.now() + 90000;
    while (Date.now() < end) {
      // Move onto the word, then a little within it: the hover shows after the mouse rests.
      await page.mouse.move(box.x + 2, box.y + box.height / 2);
      await page.mouse.move(box.x + Math.min(box.width - 2, 12), box.y + box.height / 2, { steps: 3 });
      try {
        await hover.waitFor({ state: 'visible', timeout: 10000 });
        text = await hover.innerText();
        if (EXPECT.every((e) => text.includes(e))) break;
      } catch {
        /* not shown yet: move again */
      }
      await page.mouse.move(box.x, box.y + 200); // away, then back
    }
    // The hover fades in (a CSS animation on the widget): shoot it only once it is fully drawn,
    // or the log's text shows through it.
    await waitFullyRendered(page, '.monaco-hover:not(.hidden)');
    await page.screenshot({ path: screenshot });
    console.log(`screenshot: ${path.relative(process.cwd(), screenshot)}`);
    console.log(`hover text:\n${text.split('\n').slice(0, 30).map((l) => `  | ${l}`).join('\n')}`);
    const missing = EXPECT.filter((e) => !text.includes(e));
    if (missing.length) throw new TestFailure(`the hover lacks: ${missing.join(' / ')}`);
    // A glance: the whole hover (the problem's message, our part, the link's row, the status bar)
    // fits the hover box without scrolling, and the action links sit on the line under our title.
    const layout = await hover.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const content = el.querySelector('.monaco-hover-content') || el;
      const scrollable = el.querySelector('.monaco-scrollable-element') || el;
      const link = [...el.querySelectorAll('a')].find((a) => (a.textContent || '').trim() === 'Open full explanation');
      const linkBox = link ? link.getBoundingClientRect() : null;
      const title = [...el.querySelectorAll('.rendered-markdown strong')].find((b) => (b.textContent || '').trim() === 'BadRequestError');
      const titleBox = title ? title.getBoundingClientRect() : null;
      return {
        boxHeight: Math.round(box.height),
        visibleHeight: Math.round(scrollable.clientHeight),
        contentHeight: Math.round(content.scrollHeight),
        linkTop: linkBox ? Math.round(linkBox.top - box.top) : null,
        titleTop: titleBox ? Math.round(titleBox.top - box.top) : null,
        titleHeight: titleBox ? Math.round(titleBox.height) : null,
        rows: [...el.querySelectorAll('.hover-row, .hover-row-contents, .markdown-hover p, .markdown-hover pre, .hover-contents > *')].map((r) => `${Math.round(r.getBoundingClientRect().height)}px ${r.className || r.tagName}: ${(r.textContent || '').slice(0, 40)}`),
      };
    });
    for (const r of layout.rows) console.log(`  row ${r}`);
    console.log(`hover layout: box ${layout.boxHeight} px, content ${layout.contentHeight} px in ${layout.visibleHeight} px visible, title at ${layout.titleTop} px, "Open full explanation" at ${layout.linkTop} px from the top`);
    if (layout.contentHeight > layout.visibleHeight + 1) throw new TestFailure(`the hover scrolls: ${layout.contentHeight} px of content in ${layout.visibleHeight} px`);
    if (layout.linkTop === null) throw new TestFailure('no "Open full explanation" link in the hover');
    if (layout.titleTop === null) throw new TestFailure('no BadRequestError title in the hover');
    const below = layout.linkTop - layout.titleTop;
    if (below <= 0 || below > 1.5 * layout.titleHeight) {
      throw new TestFailure(`the action links are ${below} px below the title (${layout.titleHeight} px high): want them on the next line`);
    }
    console.log('PASS ui hover');

    // The Problems panel lists the errors as the log shows them, with the record's class as the code.
    await page.mouse.move(box.x, box.y + 300);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Shift+M');
    const row = page.locator('.markers-panel .monaco-list-row', { hasText: 'Inconsistent receive_count for req_id=req-42: registered 2, got 3' }).first();
    await row.waitFor();
    const rowText = (await row.innerText()).replace(/\s+/g, ' ');
    console.log(`problems row: ${rowText}`);
    if (!rowText.includes('BadRequestError')) throw new TestFailure(`the problem's code is not the record's class: ${rowText}`);
    if (/[{}]/.test(rowText)) throw new TestFailure(`the problem reads as a template: ${rowText}`);
    const rows = await page.locator('.markers-panel .monaco-list-row').allInnerTexts();
    if (rows.some((r) => /-req-id-|\{req_id\}/.test(r))) throw new TestFailure(`a slug or template in Problems: ${rows.join(' | ')}`);
    console.log('PASS ui problems');
    await page.keyboard.press('Control+Shift+M');

    // Search like a person: command palette, the command's title, then type a query into the
    // extension's QuickPick, wait for the server's hits, Enter opens the record view.
    await page.mouse.move(box.x, box.y + 300);
    await page.keyboard.press('Escape');
    await runCommand(page, 'Error Explainer: Search Error Records');
    await page.locator('.quick-input-widget', { hasText: 'Search Error Records' }).waitFor();
    await page.keyboard.type('receive_count drift', { delay: 40 });
    const hit = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Inconsistent receive_count for req_id=' }).first();
    await hit.waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab', { hasText: /Preview/ }).first().waitFor();
    console.log('PASS ui search (typed into the QuickPick, record view opened)');
    return 0;
  } finally {
    await browser.close().catch(() => undefined);
    await cs.stop();
  }
}

runMain('ui hover', main);
