// Renders resources/icon.svg to resources/icon.png (512x512) with Debian's Chromium.
// Run after changing the SVG: node scripts/make-icon.mjs
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const svg = readFileSync('resources/icon.svg', 'utf8');
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
const page = await browser.newPage({ viewport: { width: 512, height: 512 } });
await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
await page.locator('svg').screenshot({ path: 'resources/icon.png', omitBackground: true });
await browser.close();
console.log('wrote resources/icon.png');
