import { ID, open, iterationSeconds, chartDrawn, chartPoints, chartText, within, drawAllCharts, showView, showInputs } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'example renders real numbers, a timeline and charts';

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  // VGG-16, 2× RTX 4000 + GTX 1060, 1 GbE, bs 32: Zeng Table 6 says 26.85 s.
  const t = await iterationSeconds(page);
  assert(within(t, 26.85, 0.02), `iteration ${t} s, Table 6 says 26.85 s`);
  assert.match(await page.locator(ID('zeng-regime')).textContent(), /communication-bound/);

  // The overview shows the timeline beside the cost curves; the Zeng tab has it all.
  await chartDrawn(page.locator(ID('overview-chart-timeline')));
  await showView(page, 'zeng');
  // 3 compute + 2 waits + 3 pushes + 3 pulls, one row per worker.
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="zeng-chart-timeline"] .point').length === 11);
  assert.equal(await chartPoints(page, 'zeng-chart-timeline'), 11, 'timeline bars');
  const tl = await chartText(page, 'zeng-chart-timeline');
  for (const w of ['Quadro RTX 4000 #1', 'Quadro RTX 4000 #2', 'GeForce GTX 1060 6GB']) {
    assert(tl.includes(w), `timeline row ${w} missing: ${tl.slice(0, 200)}`);
  }
  assert(tl.includes('time since iteration start [s]'), 'timeline axis label with unit');

  // Three worker rows, in push order, and the layer table of VGG-16 D.
  assert.equal(await page.locator(`${ID('zeng-table-workers')} tbody tr`).count(), 3);
  await showInputs(page, 'workload');
  assert.equal(await page.locator(`${ID('layer-table')} tbody tr`).count(), 16);
  assert.equal((await page.locator(ID('forward-flop')).textContent()).trim(), '3.094e10');

  // Printing draws the charts that are still off screen (they wait until
  // scrolled near, to keep edits fast).
  await page.evaluate(() => window.scrollTo(0, 0));
  const undrawn = () => page.evaluate(() => [...document.querySelectorAll('.chart')].filter((c) => !c.querySelector('.main-svg')).length);
  assert((await undrawn()) > 0, 'some chart waits off screen before printing');
  // Every chart drawn in the event's one task, as printing needs: a long
  // task by design, not failed.
  await ctx.exempt(page, 'print', async () => {
    await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
    await page.waitForFunction(() => [...document.querySelectorAll('.chart')].every((c) => c.querySelector('.main-svg')));
  });
  assert.equal(await undrawn(), 0, 'every chart drawn for print');
  await drawAllCharts(page);
  for (const c of ['zeng-chart-workers-iteration', 'zeng-chart-workers-speedup', 'zeng-chart-bandwidth']) {
    assert((await page.locator(`${ID(c)} .scatterlayer .trace`).count()) >= 1, `${c} has no trace`);
  }
  assert((await chartText(page, 'zeng-chart-bandwidth')).includes('PS link bandwidth [Gb/s]'));
  await ctx.screenshot(page, 'main');
});
