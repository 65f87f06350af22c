import path from 'node:path';
import { ID, open, setField, showView, showInputs } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'Li et al.: a 240 kB profile leaves the link, which names it by content hash; reopened in this browser it is put back, elsewhere the tab asks for the file and recognises it';

const text = (page, id) => page.locator(ID(id)).first().textContent();
const PROFILE = path.resolve('public/examples/inception-v3.profile.json');

// By path: Playwright hands a file given as a buffer over inside the page,
// a task of ~70 ms for these 240 kB that the long-task probe would charge
// to the page.
async function upload(page) {
  await page.locator(ID('li-profile-upload')).setInputFiles(PROFILE);
  await page.locator(ID('li-note')).waitFor();
}

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  await showInputs(page, 'models');
  await setField(page, 'li-max-workers', '2');
  await setField(page, 'li-seeds', '1');
  await setField(page, 'li-steps', '200');
  await upload(page);
  assert.match(await text(page, 'li-note'), /1512 ops read/);
  await showView(page, 'li');
  await page.waitForFunction(() => /W = 1 to 2,/.test(document.querySelector('[data-testid="li-subject"]')?.textContent || '') && !document.querySelector('[data-testid="li-pending"]'), null, { timeout: 60_000 });
  const head = await text(page, 'li-headline');
  // The link stays short: the profile is named, not carried.
  await page.waitForFunction(() => location.hash.length > 10 && location.hash.length < 6000, null, { timeout: 10_000 });
  const link = page.url();
  assert(link.length < 6000, `${link.length} characters`);

  // Reopened in this browser: this browser's copy is put back, said so.
  const again = await ctx.newPage();
  await again.goto(link);
  await again.locator(ID('scenario-error')).waitFor();
  assert.match(await again.locator(ID('scenario-error')).textContent(), /profile 'Inception v3 \(generated from its layer table\)' \(1512 ops\) was too large for the link; this browser's copy was put back/);
  await showView(again, 'li');
  await again.waitForFunction((h) => document.querySelector('[data-testid="li-headline"]')?.textContent === h, head, { timeout: 60_000 });
  await again.close();

  // Elsewhere (no copy): the tab names the file to attach; attaching it
  // is recognised by its hash and gives the same figures.
  await page.evaluate(() => { for (const k of Object.keys(localStorage)) if (k.startsWith('ddnn-planner.li.profile.')) localStorage.removeItem(k); });
  const other = await ctx.newPage();
  await other.goto(link);
  await showView(other, 'li');
  await other.locator(ID('li-missing')).waitFor({ timeout: 30_000 });
  assert.match(await text(other, 'li-missing'), /refers to the profile 'Inception v3[^']*' \(1512 ops, content hash [0-9a-f]{16}\).*upload that profile JSON/);
  await showInputs(other, 'models');
  assert.match(await text(other, 'li-source'), /content hash [0-9a-f]{16}/);
  await upload(other);
  assert.match(await text(other, 'li-note'), /the profile the link refers to \(content hash [0-9a-f]{16}\)/);
  await showView(other, 'li');
  await other.waitForFunction((h) => document.querySelector('[data-testid="li-headline"]')?.textContent === h, head, { timeout: 60_000 });
  await other.close();
});
