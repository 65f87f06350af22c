import { ID, open, pickExample, showView } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'chart tables: every chart on every results view has its data as a table under it (closed until opened), with a unit on every number column and a row per point; Zeng\'s timeline table lists every bar of the drawing';

// Results views and the example that gives each a result (toolbar.rs).
const VIEWS = [
  ['zeng', -1],
  ['cynthia', 2],
  ['spotdnn', 4],
  ['stash', 5],
  ['li', 6],
];

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  for (const [view, example] of VIEWS) {
    if (example >= 0) await pickExample(page, example);
    await showView(page, view);
    await page.waitForFunction(() => !document.querySelector('[data-testid$="-pending"]'), null, { timeout: 60_000 });
    const section = page.locator(ID(`results-${view}`));
    const charts = await section.locator('.chart').count();
    const tables = section.locator('details.chart-table');
    assert(charts > 0, `${view}: charts drawn`);
    assert.equal(await tables.count(), charts, `${view}: one table per chart`);
    for (let i = 0; i < charts; i++) {
      const d = tables.nth(i);
      assert.equal(await d.locator('table').count(), 0, `${view}: table ${i} is built only when opened`);
      await d.locator('summary').click();
      const table = d.locator('table');
      await table.waitFor();
      const heads = await table.locator('th').allTextContents();
      const rows = await table.locator('tbody tr').count();
      const summary = await d.locator('summary').textContent();
      assert.match(summary, / — as a table$/, `${view}: ${summary}`);
      assert(rows > 0, `${view}: ${summary} has rows`);
      assert.equal(heads[0], 'series', `${view}: ${heads}`);
      // Every numeric column names its unit (or is a count).
      const numeric = await table.locator('th.num').allTextContents();
      assert(numeric.length > 0, `${view}: ${summary}: number columns ${heads}`);
      const cells = await table.locator('tbody td').allTextContents();
      assert(!cells.some((c) => /NaN|inf/.test(c)), `${view}: ${summary}: ${cells.slice(0, 20)}`);
      await d.locator('summary').click();
    }
  }

  // Zeng's iteration timeline: one row per bar plotly drew (the example's
  // three workers), with start and end in seconds.
  await pickExample(page, 0);
  await showView(page, 'zeng');
  const d = page.locator(`figure:has(${ID('zeng-chart-timeline')}) + details.chart-table`);
  await d.locator('summary').click();
  const table = page.locator(ID('zeng-chart-timeline-table'));
  await table.waitFor();
  const heads = await table.locator('th').allTextContents();
  assert(heads.includes('start [s]') && heads.includes('end [s]'), `timeline columns: ${heads}`);
  const bars = await page.locator(`${ID('zeng-chart-timeline')} .point`).count();
  const rows = await table.locator('tbody tr').count();
  ctx.log(`zeng timeline: ${bars} bars drawn, ${rows} table rows`);
  assert(bars > 0 && rows >= bars, `every bar in the table: ${bars} bars, ${rows} rows`);
});
