#!/usr/bin/env node
// UI-level tour (issue 15, "what users see"): Chromium drives the real workbench like a person and
// checks what is on screen, not what the API says:
//   - a coloured log shows its colours and no escape glyphs (artifacts/ansi.png);
//   - the Problems panel lists the known errors (artifacts/problems.png);
//   - a command in the terminal prints a known error: link tooltip, status item, notification
//     (artifacts/terminal.png);
//   - the records status item says what it counts; its tooltip and menu; "Error Explainer: Status"
//     is in the command palette;
//   - Search shows the errors seen recently before anything is typed; the record tab is titled by
//     the error and has Insert / Copy actions;
//   - the record settings are listed in the User tab of this (remote) window;
//   - an offline dataset download explains itself with Retry / Open Settings;
//   - the Get Started walkthrough.
//   node test/e2e/ui-tour.js --workspace DIR [--artifacts test/e2e/artifacts]
// Exit status: 0 pass, 1 a check failed, 2 harness failure.
'use strict';
const fs = require('fs');
const path = require('path');
const { startCodeServer, launchBrowser, ROOT } = require('./code-server');
const { TestFailure, cliArg, runMain, openWorkbench, waitFullyRendered, openFile, runCommand, until } = require('./lib/ui');

const workspace = path.resolve(cliArg('workspace'));
const artifacts = path.resolve(cliArg('artifacts', path.join(ROOT, 'test', 'e2e', 'artifacts')));
const check = (ok, what) => {
  if (!ok) throw new TestFailure(what);
  console.log(`PASS ${what}`);
};
/** Monaco and xterm render spaces as U+00A0. */
const plain = (t) => (t || '').replace(/\u00a0/g, ' ');

async function ansiLog(page) {
  await openFile(page, 'colored.log');
  const line = page.locator('.monaco-editor .view-lines .view-line', { hasText: 'encode metadata' }).first();
  await line.waitFor();
  // the line as drawn: every leaf span with its text, width, colour and weight
  const spans = await until('the coloured line decorated', async () => {
    const s = await line.evaluate((el) =>
      [...el.querySelectorAll('span')]
        .filter((x) => x.children.length === 0)
        .map((x) => {
          const cs = getComputedStyle(x);
          return { text: x.textContent, width: x.getBoundingClientRect().width, color: cs.color, weight: cs.fontWeight, opacity: cs.opacity };
        }),
    );
    // (laid out too: on a busy machine the spans exist a moment before they have their widths)
    return s.some((x) => x.text.includes('MMError') && x.text.trim().startsWith('MMError') && x.width > 0.5) ? s : undefined;
  });
  const shown = spans.filter((x) => x.width > 0.5 && x.opacity !== '0');
  const visible = plain(shown.map((x) => x.text).join(''));
  const glyphs = shown.filter((x) => /[\u001b\u241b]|\[\d*(;\d+)*m/.test(x.text));
  if (glyphs.length) console.log(JSON.stringify(spans, null, 1));
  check(glyphs.length === 0, 'ansi: no escape glyph or sequence is drawn');
  check(visible === '[2026-08-28 05:10:36] ERROR MM-Encoder wait_metadata failed: MMError: encode metadata not ready (HTTP 504)', `ansi: the line reads as printed (${JSON.stringify(visible)})`);
  const err = shown.find((x) => plain(x.text) === 'ERROR');
  const mm = shown.find((x) => plain(x.text).startsWith('MMError'));
  const normal = shown.find((x) => plain(x.text).includes('wait_metadata failed'));
  check(err && Number(err.weight) >= 600 && err.color !== normal.color, `ansi: "ERROR" is bold and coloured (${err && `${err.weight} ${err.color}`} vs ${normal.color})`);
  check(mm && mm.color !== normal.color && mm.color === err.color, `ansi: the MMError text is red like ERROR (${mm && mm.color})`);
  // the shot shows the diagnostics too: wait for the server's squiggles on both errors
  await until('the squiggles of the coloured log', async () => (await page.locator('.monaco-editor .squiggly-error').count()) >= 2);
  await page.mouse.move(5, 5);
  await page.screenshot({ path: path.join(artifacts, 'ansi.png') });
}

async function problems(page) {
  await openFile(page, 'app.log');
  await page.keyboard.press('Control+Shift+M');
  const rows = page.locator('.markers-panel .monaco-list-row');
  await until('problems of both logs', async () => {
    const texts = await rows.allInnerTexts();
    return texts.some((t) => t.includes('app.log')) && texts.some((t) => t.includes('colored.log')) && texts.filter((t) => /BadRequestError|MMError/.test(t)).length >= 3;
  });
  const texts = (await rows.allInnerTexts()).map(plain);
  // (since uxed: the message reads as the log shows it, the record's class is the problem's code)
  check(texts.some((t) => t.includes('Inconsistent receive_count for req_id=req-42') && t.includes('BadRequestError')), 'problems: an entry reads as the log line and names the error class');
  check(!texts.some((t) => /[{}]/.test(t)), 'problems: no entry reads as a template');
  await page.mouse.move(5, 5);
  await page.screenshot({ path: path.join(artifacts, 'problems.png') });
  await page.keyboard.press('Control+Shift+M'); // close the panel again
}

async function terminal(page) {
  await page.keyboard.press('Control+Backquote');
  const term = page.locator('.terminal-wrapper .xterm').first();
  await term.waitFor();
  // a prompt with shell integration: the status item "known error" needs it
  await until('the shell prompt', async () => /[$#]$/.test(plain(await page.locator('.xterm-rows').first().innerText()).trim()), 60000);
  await term.click();
  await page.keyboard.type("printf '\\033[32m[2026-08-28 05:10:36]\\033[0m \\033[1;31mERROR\\033[0m MM-Encoder wait_metadata failed: \\033[31mMMError: encode metadata not ready\\033[0m (HTTP 504)\\n'", { delay: 5 });
  await page.keyboard.press('Enter');
  const item = page.locator('.statusbar-item', { hasText: '1 known error' }).first();
  await item.waitFor({ timeout: 60000 });
  check(true, 'terminal: the status item says "1 known error"');
  await page.locator('.notification-toast', { hasText: 'Known error in the terminal: MMError' }).first().waitFor();
  check(true, 'terminal: one notification names it');
  // the link: the mouse on the error in the terminal shows the record's class and first sentence
  const row = page.locator('.xterm-rows > div', { hasText: 'wait_metadata failed: MMError' }).last();
  const box = await row.boundingBox();
  const text = plain(await row.innerText());
  const at = text.indexOf('encode metadata');
  const cw = box.width / Math.max(1, text.length);
  const hover = page.locator('.workbench-hover, .monaco-hover:not(.hidden)', { hasText: 'MMError' }).first();
  await until('the terminal link tooltip', async () => {
    await page.mouse.move(box.x + (at + 3) * cw, box.y + box.height / 2);
    await page.mouse.move(box.x + (at + 6) * cw, box.y + box.height / 2, { steps: 3 });
    return hover.isVisible();
  }, 60000, 500);
  check(true, 'terminal: the error is a link with the record in its tooltip');
  await waitFullyRendered(page, '.workbench-hover, .monaco-hover:not(.hidden)').catch(() => undefined);
  await page.screenshot({ path: path.join(artifacts, 'terminal.png') });
  await page.mouse.move(5, 5);
  await page.keyboard.press('Control+Backquote');
}

async function statusItem(page) {
  const item = page.locator('.statusbar-item', { hasText: /error records?/ }).first();
  await item.waitFor({ timeout: 60000 });
  check(/^[\d,]+ error records?$/.test(plain(await item.innerText()).trim()), `status: the item reads "${plain(await item.innerText()).trim()}"`);
  await item.hover();
  const tip = page.locator('.workbench-hover, .monaco-hover:not(.hidden)', { hasText: 'Error Explainer:' }).first();
  await tip.waitFor();
  check(/Error Explainer: [\d,]+ error records? loaded/.test(plain(await tip.innerText())), 'status: the tooltip says what it counts');
  await page.mouse.move(5, 5);
  await item.click();
  const rows = page.locator('.quick-input-list .monaco-list-row');
  await rows.first().waitFor();
  const labels = (await rows.allInnerTexts()).map(plain).join(' | ');
  for (const want of ['Search Error Records', 'Reload Records', 'Download ErrLookup Dataset', 'Show Output', 'Open Settings', 'Get Started']) check(labels.includes(want), `status menu: "${want}"`);
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  await page.keyboard.type('Error Explainer: Status', { delay: 10 });
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Error Explainer: Status' }).first().waitFor();
  check(true, 'palette: "Error Explainer: Status" is listed');
  await page.keyboard.press('Escape');
}

async function searchAndRecord(page) {
  await runCommand(page, 'Error Explainer: Search Error Records');
  const recent = page.locator('.quick-input-list .monaco-list-row', { hasText: 'seen in' });
  await recent.first().waitFor();
  const texts = (await page.locator('.quick-input-list .monaco-list-row').allInnerTexts()).map(plain);
  check(texts.some((t) => t.includes('encode metadata not ready')), 'search: the errors seen recently are listed before typing');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Inconsistent receive_count' }).first().click();
  const tab = page.locator('.tabs-container .tab', { hasText: /^Preview / }).last();
  await tab.waitFor();
  const title = plain(await tab.innerText()).trim();
  check(/^Preview BadRequestError: Inconsistent receive_count/.test(title) && !/[0-9a-f]{16}/.test(title), `record view: the tab reads "${title}"`);
  for (const label of ['Insert Handling Snippet', 'Copy Explanation as Markdown', 'Go to Raise Site']) {
    await page.locator(`.title-actions .action-label[aria-label^="${label}"], .editor-actions .action-label[aria-label^="${label}"]`).first().waitFor();
    check(true, `record view: the title bar offers "${label}"`);
  }
}

async function userSettings(page) {
  await page.keyboard.press('Control+Comma');
  const search = page.locator('.settings-editor .settings-header .suggest-input-container').first();
  await search.waitFor();
  await page.locator('.settings-editor .settings-tabs-widget .action-label', { hasText: /^User$/ }).first().click();
  await search.click();
  await page.keyboard.type('errorExplainer.records.paths', { delay: 10 });
  await page.locator('.settings-editor .setting-item-contents', { hasText: 'Records: Paths' }).first().waitFor();
  check(true, 'settings: Records: Paths is in the User tab of this remote window');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('errorExplainer.dataset.url', { delay: 10 });
  await page.locator('.settings-editor .setting-item-contents', { hasText: 'Dataset: Url' }).first().waitFor();
  check(true, 'settings: Dataset: Url is in the User tab too');
}

async function offlineDataset(page) {
  await runCommand(page, 'Error Explainer: Download ErrLookup Dataset');
  await page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Download' }).first().click();
  const toast = page.locator('.notification-toast', { hasText: 'could not reach' }).first();
  await toast.waitFor({ timeout: 90000 });
  const text = plain(await toast.innerText());
  check(!/^\S+: ENOTFOUND$/m.test(text) && /no network connection, or the name does not resolve/.test(text), 'dataset: an offline download says why in words');
  for (const b of ['Retry', 'Open Settings']) {
    await toast.locator('.monaco-button', { hasText: b }).first().waitFor();
    check(true, `dataset: the message offers "${b}"`);
  }
  await toast.locator('.monaco-button', { hasText: 'Open Settings' }).first().click();
  await page.locator('.settings-editor .setting-item-contents', { hasText: 'Dataset: Url' }).first().waitFor();
  check(true, 'dataset: Open Settings shows the dataset settings');
}

async function walkthrough(page) {
  await runCommand(page, 'Error Explainer: Get Started');
  const container = page.locator('.gettingStartedContainer');
  await container.locator('text=Get Started with Error Explainer').first().waitFor();
  for (const step of ['Open a log', 'Hover an error', 'Search the records', 'Add your own records', 'Download the ErrLookup dataset']) {
    await container.locator('.getting-started-step', { hasText: step }).first().waitFor();
  }
  check(true, 'walkthrough: "Get Started with Error Explainer" with its five steps');
}

async function main() {
  fs.mkdirSync(artifacts, { recursive: true });
  // a dataset address that never resolves (RFC 6761), so the offline download fails the same way
  // everywhere; the terminal drawn as DOM text (not a canvas), so the test can read it
  fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
  fs.writeFileSync(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'errorExplainer.dataset.url': 'https://errors.invalid', 'terminal.integrated.gpuAcceleration': 'off' }, null, 2));
  const cs = await startCodeServer({ workspace });
  const browser = await launchBrowser();
  try {
    const page = await openWorkbench(browser, cs, ROOT, { viewport: { width: 1440, height: 900 }, timeout: 60000 });
    const only = process.env.UI_STEPS ? process.env.UI_STEPS.split(/\s+/) : undefined; // e.g. UI_STEPS="ansi settings"
    const steps = [['ansi', ansiLog], ['problems', problems], ['terminal', terminal], ['status', statusItem], ['search', searchAndRecord], ['settings', userSettings], ['dataset', offlineDataset], ['walkthrough', walkthrough]];
    for (const [name, step] of steps.filter(([n]) => !only || only.includes(n))) {
      console.log(`--- ${name}`);
      try {
        await step(page);
      } catch (e) {
        await page.screenshot({ path: path.join(artifacts, `failed-${name}.png`) }).catch(() => undefined);
        throw e;
      }
      await page.keyboard.press('Escape');
    }
    return 0;
  } finally {
    await browser.close().catch(() => undefined);
    await cs.stop();
  }
}

runMain('ui tour', main);
