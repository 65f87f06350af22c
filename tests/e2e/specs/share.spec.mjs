import { ID, open, setField, waitIteration, iterationSeconds, chartDrawn, drawAllCharts, showInputs } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'a shared link reproduces the result; the embed view renders';

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  await setField(page, 'bandwidth-gbps', '2.5');
  const t = await waitIteration(page, (x) => x < 15 && x > 5, 'between 5 and 15 s');
  await page.locator(ID('share')).click();
  const url = await page.locator(ID('share-url')).inputValue();
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/.*#s2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, `share url ${url}`);
  assert.equal(await page.evaluate(() => location.href), url, 'the address bar carries the scenario');

  const fresh = await ctx.newPage();
  await fresh.goto(url, { waitUntil: 'load' });
  await fresh.locator(ID('zeng-iteration-time')).waitFor();
  assert.equal(await iterationSeconds(fresh), t, 'same result from the link');
  await showInputs(fresh, 'cluster');
  assert.equal(await fresh.locator(ID('bandwidth-gbps')).inputValue(), '2.5');

  await page.locator(ID('embed')).click();
  const snippet = await page.locator(ID('share-url')).inputValue();
  const src = snippet.match(/src="([^"]+)"/)[1];
  assert.match(src, /\?embed=1#s2\./);
  const embed = await ctx.newPage();
  await embed.setViewportSize({ width: 900, height: 900 });
  await embed.goto(src, { waitUntil: 'load' });
  await embed.locator(ID('embed-view')).waitFor();
  assert.equal(await iterationSeconds(embed), t, 'embed shows the same result');
  assert.equal(await embed.locator(ID('bandwidth-gbps')).count(), 0, 'embed has no inputs');
  assert.equal(await embed.locator(ID('results-cynthia')).count(), 0, 'embed leaves out models the scenario does not use');
  await drawAllCharts(embed);
  await ctx.screenshot(embed, 'embed');

  // The compact card for a documentation column: title, the headline, one
  // chart, a link back to the full view.
  await page.locator(ID('embed-card-link')).click();
  const cardSrc = (await page.locator(ID('share-url')).inputValue()).match(/src="([^"]+)"/)[1];
  assert.match(cardSrc, /\?embed=card#s2\./);
  const card = await ctx.newPage();
  await card.setViewportSize({ width: 640, height: 480 });
  await card.goto(cardSrc, { waitUntil: 'load' });
  await card.locator(ID('embed-card')).waitFor();
  await chartDrawn(card.locator(ID('card-chart-timeline')));
  assert.equal(await iterationSeconds(card), t, 'the card shows the same result');
  assert.equal(await card.evaluate(() => document.documentElement.scrollWidth), 640, 'fits a 640 px column');
  const back = await card.locator(ID('card-open')).getAttribute('href');
  assert(!back.includes('embed') && back.includes('#s2.'), `link back to the full view: ${back}`);
  await ctx.screenshot(card, 'embed-card');
});
