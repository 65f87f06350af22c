// Issue 35 item 4: uncertainty bands on the page. The calibration's
// "use the runs' spread" stores ranges on Zeng's factors and the headline
// shows p10–p90 under its number; the Ranges editor adds a range on the
// PS link (±10%) whose band holds the deterministic value, and shades the
// iteration-time curve and the timeline's total ("10th-90th percentile"
// in their legends, percentile columns in the curve's data table);
// refuses a path that takes none at its box and min above max under the
// row, and then no chart is shaded.

import { ID, chartDrawn, chartText, numberIn, open, pickExample, setField, showInputs, showView, waitIteration } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const VGG16_RUNS = 7; // its place in the Examples menu

const BAND = '10th-90th percentile';

/** The legend text of Zeng's chart `key`, drawn. */
async function zengChart(page, key) {
  const chart = page.locator(ID(`zeng-chart-${key}`)).first();
  await chart.scrollIntoViewIfNeeded();
  await chartDrawn(chart);
  return chartText(page, `zeng-chart-${key}`);
}

/** The two numbers of a band's text ("p10–p90 23.18 s – 31.94 s"). */
async function band(page, testid) {
  const el = page.locator(ID(`${testid}-band`)).first();
  await el.waitFor({ timeout: 30_000 });
  const text = await el.textContent();
  const parts = text.replace(/^p10–p90/, '').split(' – ');
  return { text, p10: numberIn(parts[0]), p90: numberIn(parts[1] ?? '') };
}

test('the runs spread as bands, and a range typed in the editor', async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  await pickExample(page, VGG16_RUNS);
  await waitIteration(page, (t) => Math.abs(t - 26.84) < 0.005, 'VGG-16 at 1 GbE as published: 26.84 s');
  await showView(page, 'runs');
  await page.locator(ID('calibration-action-zeng-bands')).click();
  await showView(page, 'overview');
  await waitIteration(page, (t) => Math.abs(t - 28.65) < 0.005, 'calibrated: 28.65 s');
  const b = await band(page, 'zeng-iteration-time');
  assert.ok(b.p10 < b.p90, `a spread: ${b.text}`);

  // The editor: a range on the PS link, ±10% of its 1 GbE.
  await showInputs(page, 'models');
  await page.locator(ID('ranges-clear')).click();
  await page.locator(ID('range-path')).fill('hardware.cluster.ps.bandwidth');
  await page.locator(ID('range-add')).click();
  assert.match(await page.locator('section[aria-label="uncertainty ranges"] [data-testid="field-error"]').first().textContent(), /not an input a range can be given on/);
  await page.locator(ID('range-path')).fill('hardware.cluster.ps.link');
  await page.locator(ID('range-add')).click();
  await page.locator(ID('range-row')).waitFor();
  await showView(page, 'overview');
  const link = await band(page, 'zeng-iteration-time');
  const t = numberIn(await page.locator(ID('zeng-iteration-time')).first().textContent());
  assert.ok(link.p10 < t && t < link.p90, `${t} s within ${link.text}`);

  // The same samples shade the curves and the timeline's total.
  await showView(page, 'zeng');
  for (const key of ['timeline', 'workers-iteration']) {
    const text = await zengChart(page, key);
    assert.ok(text.includes(BAND), `${key}: the legend names the band: ${text.slice(0, 200)}`);
  }
  const d = page.locator(`figure:has(${ID('zeng-chart-workers-iteration')}) + details.chart-table`);
  await d.locator('summary').click();
  // The table is built when opened, in a later task.
  const table = page.locator(ID('zeng-chart-workers-iteration-table'));
  await table.locator('th').first().waitFor();
  const heads = await table.locator('th').allTextContents();
  assert.ok(heads.includes('10th percentile [s]') && heads.includes('90th percentile [s]'), `percentile columns: ${heads}`);
  await d.locator('summary').click();

  // The ends are typed in the link's own unit; min above max: the
  // message under the row, no band.
  await showInputs(page, 'models');
  const label = await page.locator(ID('range-row')).first().textContent();
  assert.match(label, /min \[Gb\/s\]/, label);
  assert.ok(Math.abs(numberIn(await page.locator(ID('range-max')).first().inputValue()) - 1.1) < 1e-9, 'max 1.1 Gb/s');
  await setField(page, 'range-min', '2');
  await page.locator(ID('range-min')).first().press('Tab');
  await page.locator('section[aria-label="uncertainty ranges"] [data-testid="field-error"]', { hasText: 'swap them' }).waitFor();
  await showView(page, 'overview');
  await page.locator(ID('zeng-iteration-time-band')).first().waitFor({ state: 'detached', timeout: 30_000 });
  await showView(page, 'zeng');
  const plain = await zengChart(page, 'workers-iteration');
  assert.ok(!plain.includes(BAND), `no band without valid ranges: ${plain.slice(0, 200)}`);
});

test("spotDNN's frontier banded from a spot price range", async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  await pickExample(page, 4);
  await showView(page, 'spotdnn');
  const chart = page.locator(ID('spotdnn-chart-frontier')).first();
  await chart.scrollIntoViewIfNeeded();
  await chartDrawn(chart);
  assert.ok(!(await chartText(page, 'spotdnn-chart-frontier')).includes(BAND), 'no band without ranges');
  // ±10% on the first type's spot price (typed in USD/h).
  await showInputs(page, 'models');
  await page.locator(ID('range-path')).fill('hardware.catalog[0].spot_price_per_hour');
  await page.locator(ID('range-add')).click();
  await page.locator(ID('range-row')).waitFor();
  await showView(page, 'spotdnn');
  await page.waitForFunction(
    ([id, band]) => (document.querySelector(`[data-testid="${id}"]`)?.textContent || '').includes(band),
    ['spotdnn-chart-frontier', BAND],
    { timeout: 30_000 },
  );
  const note = await page.locator('.model-results').filter({ hasText: "The frontier's band" }).count();
  assert.ok(note > 0, 'a note says what the frontier band is');
});
