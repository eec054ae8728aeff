// Helpers of the UI-level tests (ui-hover.js, ui-tour.js): Chromium driven like a person.
'use strict';

class TestFailure extends Error {}

/** The value after `--name` on the command line, else `def`. */
function cliArg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
}

/** A new page on the workbench of code-server `cs` with the extension under development, once the
 * extension is active (its status item is there); the editor area has the focus. */
async function openWorkbench(browser, cs, root, { viewport, timeout }) {
  const page = await browser.newPage({ viewport });
  page.setDefaultTimeout(timeout);
  await page.goto(cs.url([['extensionDevelopmentPath', cs.remote(root)], ['skipWelcome', 'true']]), { waitUntil: 'domcontentloaded' });
  await page.locator('.monaco-workbench').waitFor({ timeout: 120000 });
  await page.locator('.statusbar-item', { hasText: /Error Explainer|error records?/ }).first().waitFor({ timeout: 120000 });
  await page.locator('.monaco-workbench .part.editor').click();
  return page;
}

/**
 * Polls until the element matching `selector` and its ancestors run no animation or transition
 * and are fully opaque (computed opacity 1): a widget that fades in is then fully drawn.
 */
async function waitFullyRendered(page, selector, timeoutMs = 10000) {
  await page.waitForFunction(
    (sel) => {
      const el = document.querySelector(sel);
      if (!el) return false;
      for (let e = el; e && e !== document.body; e = e.parentElement) {
        if (Number(getComputedStyle(e).opacity) < 1) return false;
        if (e.getAnimations().some((a) => a.playState === 'running' || a.playState === 'pending')) return false;
      }
      return true;
    },
    selector,
    { timeout: timeoutMs, polling: 50 },
  );
}

/** Ctrl+P, the file name, Enter. */
async function openFile(page, name) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await page.keyboard.type(name, { delay: 20 });
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.tabs-container .tab', { hasText: name }).first().waitFor();
}

/** F1, the command's title, Enter on the row that has it. */
async function runCommand(page, title) {
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').waitFor({ state: 'visible' });
  await page.keyboard.type(title, { delay: 10 });
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor();
  await page.keyboard.press('Enter');
}

/** Polls `fn` (async, returns a value or a falsy one) until truthy; fails with `what`. */
async function until(what, fn, timeoutMs = 60000, intervalMs = 200) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new TestFailure(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Runs a UI test's main() and exits: 0 pass, 1 a check failed (or timed out waiting for what it
 * checks), 2 harness failure. */
function runMain(name, main) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      console.error(e instanceof TestFailure ? `FAIL ${name}: ${e.message}` : e);
      process.exit(e instanceof TestFailure || (e && e.name === 'TimeoutError') ? 1 : 2);
    },
  );
}

module.exports = { TestFailure, runMain, cliArg, openWorkbench, waitFullyRendered, openFile, runCommand, until };
