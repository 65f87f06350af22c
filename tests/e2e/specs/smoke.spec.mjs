// Smoke test: the page loads, plotly.js is present, the default scenario is evaluated
// and the predicted iteration time is shown as "<number> s".

export const name = 'smoke: page loads and shows an iteration time';

// A number (optionally with decimals/exponent/thousands separators) followed by " s";
// the space may be a normal, no-break or narrow no-break space.
const ITERATION_TIME = /(\d[\d,]*(?:\.\d+)?(?:[eE][+-]?\d+)?)[ \u00a0\u202f]s\b/;

export async function run(ctx) {
  const { assert } = ctx;
  const page = await ctx.newPage();
  const response = await page.goto(ctx.baseUrl, { waitUntil: 'load' });
  assert(response && response.ok(), `GET ${ctx.baseUrl} returned ${response && response.status()}`);

  const title = await page.title();
  assert.match(title, /ddnn-planner/, 'document title');

  const hasPlotly = await page.evaluate(() => typeof window.Plotly === 'object' && typeof window.Plotly.newPlot === 'function');
  assert(hasPlotly, 'window.Plotly is not loaded');

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

}
