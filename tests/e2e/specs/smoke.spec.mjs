// Smoke test: the page loads, the default scenario is evaluated, the predicted
// iteration time is shown as "<number> s", then plotly.js arrives and draws a chart.

import { test } from '../fixtures.mjs';

const name = 'smoke: page loads and shows an iteration time';

// A number (optionally with decimals/exponent/thousands separators) followed by " s";
// the space may be a normal, no-break or narrow no-break space.
const ITERATION_TIME = /(\d[\d,]*(?:\.\d+)?(?:[eE][+-]?\d+)?)[ \u00a0\u202f]s\b/;

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await ctx.newPage();
  const response = await page.goto(ctx.baseUrl, { waitUntil: 'load' });
  assert(response && response.ok(), `GET ${ctx.baseUrl} returned ${response && response.status()}`);

  const title = await page.title();
  assert.match(title, /ddnn-planner/, 'document title');

  const el = page.locator('[data-testid="zeng-iteration-time"]').first();
  await el.waitFor({ state: 'visible', timeout: 30_000 });
  await page.waitForFunction(
    (source) => {
      const node = document.querySelector('[data-testid="zeng-iteration-time"]');
      return node !== null && new RegExp(source).test(node.textContent || '');
    },
    ITERATION_TIME.source,
    { timeout: 30_000 },
  );
  const text = (await el.textContent()) || '';
  const value = Number(text.match(ITERATION_TIME)[1].replace(/,/g, ''));
  assert(Number.isFinite(value) && value > 0, `iteration time ${JSON.stringify(text)} is not a positive number`);
  ctx.log(`iteration time: ${text.trim()}`);

  // plotly.js is not part of the first load: the app fetches it (by its hashed name
  // from <meta name=ddnn-plotly>) once there is a chart to draw.
  await page.waitForFunction(
    () => typeof window.Plotly === 'object' && typeof window.Plotly.newPlot === 'function',
    null,
    { timeout: 30_000 },
  );
  await page.locator('.js-plotly-plot').first().waitFor({ state: 'attached', timeout: 30_000 });

});
