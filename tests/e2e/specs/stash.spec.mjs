import { ID, open, setField, showView, showInputs, drawAllCharts, numberIn } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'Stash: example runs → stalls as stacked bars, comm charts and the ranking; an uploaded run that contradicts the method is named; a malformed upload keeps the runs; today\'s GPU clouds ranked at BF16; a shared link reproduces';

const text = (page, id) => page.locator(ID(id)).first().textContent();

/** Opens a results table's <details> (long tables start closed). */
async function openTable(page, title) {
  const d = page.locator('details.report-table', { hasText: title }).first();
  if (!(await d.evaluate((e) => e.open))) await d.locator('summary').click();
}

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);

  // The example runs (and Table I in the catalog).
  await showInputs(page, 'models');
  await page.locator(ID('stash-example')).click();
  assert.match(await text(page, 'stash-note'), /Table I in the catalog \(8 new\)/);
  assert.match(await page.locator(ID('stash-runs')).inputValue(), /2× p3\.8xlarge, 5, 672, 80000/);
  await showView(page, 'stash');
  await page.waitForFunction(() => /500\.0%/.test(document.querySelector('[data-testid="stash-worst-stall"]')?.textContent || ''));
  assert.match(await page.locator(ID('results-stash')).textContent(), /network on 2× p3\.8xlarge/);
  const fastest = await text(page, 'stash-fastest');
  assert.ok(fastest.length > 0);

  // Stalls as stacked bars, configurations side by side; the comm model
  // over L and G; the ranking table with its definitions.
  await drawAllCharts(page);
  const bars = await page.locator(`${ID('stash-chart-stalls')} .barlayer .trace`).count();
  assert(bars >= 5, `compute and four stalls, got ${bars}`);
  const stallsChart = await page.locator(ID('stash-chart-stalls')).textContent();
  for (const c of ['p3.16xlarge', 'p3.8xlarge', '2× p3.8xlarge']) assert(stallsChart.includes(c), c);
  assert.match(await page.locator(ID('stash-chart-comm-layers')).textContent(), /NVLink/);
  assert.match(await text(page, 'stash-table-stalls'), /t2 − t1, % of t1/);
  await openTable(page, 'Every configuration');
  assert.match(await text(page, 'stash-table-configurations'), /fastest/);
  await ctx.screenshot(page, 'stash');

  // An uploaded run file where run (2) beats run (1): named, no stall.
  await showInputs(page, 'models');
  const csv = 'configuration, run, seconds, samples\np3.8xlarge, 1, 100, 10000\np3.8xlarge, 2, 90, 40000\n';
  await page.locator(ID('stash-runs-upload')).setInputFiles({ name: 'runs.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.locator(ID('stash-note')).filter({ hasText: 'runs.csv: 2 runs read' }).waitFor();
  await showView(page, 'stash');
  await page.waitForFunction(() => /contradiction: run \(2\) takes 90/.test(document.querySelector('[data-testid="stash-notes"]')?.textContent || ''));

  // A malformed upload: its message, the runs stay.
  await showInputs(page, 'models');
  await page.locator(ID('stash-runs-upload')).setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"runs": [') });
  assert.match(await text(page, 'stash-runs-error'), /bad\.json: not JSON/);
  assert.match(await page.locator(ID('stash-runs')).inputValue(), /p3\.8xlarge, 2, 90, 40000/);
  // Back to the example runs.
  await page.locator(ID('stash-example')).click();

  // Today's GPU clouds in the shared catalog, ranked at BF16.
  await showInputs(page, 'catalog');
  await page.locator(ID('add-current')).click();
  assert.match(await text(page, 'catalog-note'), /Today's GPU clouds: \d+ types/);
  await page.locator(ID('precision')).selectOption('bf16');
  await showView(page, 'stash');
  await openTable(page, 'Every configuration');
  await page.waitForFunction(() => /p5\.48xlarge/.test(document.querySelector('[data-testid="stash-table-configurations"]')?.textContent || ''));

  // The same types are in every model's instance lists: a worker group of
  // the shared cluster takes one.
  await showInputs(page, 'cluster');
  const group = page.locator(ID('group-0-instance'));
  await group.focus();
  await group.selectOption('p5.48xlarge');
  assert.equal(await group.inputValue(), 'p5.48xlarge');

  // A typed value out of range is refused at its field; the last result stays.
  await setField(page, 'stash-overlap', '2');
  await page.locator(ID('stash-stale')).waitFor();
  assert.match(await page.locator(`label:has(${ID('stash-overlap')})`).textContent(), /between 0 and 1/);
  await setField(page, 'stash-overlap', '0.5');
  await page.locator(ID('stash-stale')).waitFor({ state: 'detached' });

  // A shared link reproduces every figure.
  await showView(page, 'stash');
  const figures = await text(page, 'stash-headline');
  await page.waitForTimeout(400); // the address follows edits after a pause
  const again = await ctx.newPage();
  await again.goto(page.url());
  await showView(again, 'stash');
  await again.locator(ID('stash-worst-stall')).waitFor();
  assert.equal(await text(again, 'stash-headline'), figures);
  assert(numberIn(await text(again, 'stash-fastest-time')) > 0);
  await again.close();

  // The embed view and the compact card carry Stash too.
  const frag = new URL(page.url()).hash;
  const embed = await ctx.newPage();
  await embed.goto(`${ctx.baseUrl}?embed=1${frag}`, { waitUntil: 'load' });
  await embed.locator(ID('embed-view')).waitFor();
  await embed.locator(ID('stash-worst-stall')).waitFor();
  assert.equal(await text(embed, 'stash-worst-stall'), await text(page, 'stash-worst-stall'));
  await embed.close();
  const card = await ctx.newPage();
  await card.setViewportSize({ width: 640, height: 480 });
  await card.goto(`${ctx.baseUrl}?embed=card&view=stash${frag}`, { waitUntil: 'load' });
  await card.locator(ID('embed-card')).waitFor();
  await card.waitForFunction(() => /500\.0%/.test(document.querySelector('[data-testid="embed-card"]')?.textContent || ''));
  assert.equal(await card.evaluate(() => document.documentElement.scrollWidth), 640, 'the card fits a 640 px column');
  await card.close();
});
