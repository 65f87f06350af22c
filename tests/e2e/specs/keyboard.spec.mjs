import { ID, open, waitIteration, iterationSeconds } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'keyboard alone: Tab reaches the examples menu, an example, the results views, the input tabs and a field; Enter and typing do the rest';

// Presses Tab until the element `selector` matches has the focus: it must
// be reachable from the keyboard, in the page's own order.
async function tabTo(page, selector, most = 250) {
  for (let i = 0; i < most; i++) {
    if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) return i;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

const selected = (page, testid) => page.locator(ID(testid)).getAttribute('aria-selected');

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  await page.evaluate(() => document.activeElement?.blur());

  // The examples menu opens with Enter; an example loads with Enter.
  await tabTo(page, `${ID('examples')} > summary`);
  await page.keyboard.press('Enter');
  await tabTo(page, ID('example-2'));
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /cifar10/i.test(document.title));

  // A results view, then an input tab, by Tab and Enter.
  await tabTo(page, ID('view-cynthia'));
  await page.keyboard.press('Enter');
  assert.equal(await selected(page, 'view-cynthia'), 'true');
  await tabTo(page, ID('inputs-cluster'));
  await page.keyboard.press('Enter');
  assert.equal(await selected(page, 'inputs-cluster'), 'true');

  // Back to the landing example's numbers through a field typed into.
  await tabTo(page, ID('view-zeng'));
  await page.keyboard.press('Enter');
  assert.equal(await selected(page, 'view-zeng'), 'true');
  await tabTo(page, ID('bandwidth-gbps'));
  const before = await iterationSeconds(page);
  const typed = (await page.locator(ID('bandwidth-gbps')).inputValue()) === '10' ? '1' : '10';
  await page.keyboard.press('Control+A');
  await page.keyboard.type(typed);
  const t = await waitIteration(page, (x) => x > 0 && x !== before, 'a new number');
  ctx.log(`typed ${typed} Gb/s: ${before} s → ${t} s`);
  // The focus is visible where it lands (an outline or a ring).
  const ring = await page.evaluate(() => {
    const s = getComputedStyle(document.activeElement);
    return s.outlineStyle !== 'none' || s.boxShadow !== 'none';
  });
  assert(ring, 'the focused field shows its focus');
});
