// Renders media/icon.svg to media/icon.png (256×256, the Marketplace wants a PNG of at least
// 128×128) with headless Chromium through playwright-core, as the UI-level tests drive it.
//   node scripts/render-icon.mjs
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { launchBrowser } = require(join(root, 'test', 'e2e', 'code-server.js'));
const svg = readFileSync(join(root, 'media', 'icon.svg'), 'utf8');
const browser = await launchBrowser();
try {
  const page = await browser.newPage({ viewport: { width: 256, height: 256 }, deviceScaleFactor: 1 });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.locator('svg').screenshot({ path: join(root, 'media', 'icon.png'), omitBackground: true });
  console.log('media/icon.png written');
} finally {
  await browser.close();
}
