import { ID, open, setField, showView, showInputs, drawAllCharts } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'spotDNN: preset → plan → frontier chart; the plan as the cluster; a revocation replan; a shared link reproduces both; a B_req unit slip is named; loss traces fitted and the fit typed in by its action';

const text = (page, id) => page.locator(ID(id)).first().textContent();

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  // Without its inputs the spotDNN tab says what it needs.
  await showView(page, 'spotdnn');
  await page.locator(ID('spotdnn-missing')).waitFor();
  assert.match(await text(page, 'spotdnn-missing'), /S_param/);

  // Table III's catalog, the authors' ResNet-110 profile, Table I's goals.
  await showInputs(page, 'models');
  await page.locator(ID('spotdnn-table3')).click();
  await page.locator(ID('spotdnn-preset')).selectOption('resnet110');
  await setField(page, 'goal-time', String(2600 / 3600));
  await setField(page, 'goal-loss', '0.8');
  await page.waitForFunction(() => /× /.test(document.querySelector('[data-testid="spotdnn-exact-plan"]')?.textContent || ''));
  const exact = await text(page, 'spotdnn-exact-plan');
  assert.match(await text(page, 'spotdnn-paper-plan'), /× /);
  // The exact optimiser is never dearer than Algorithm 1.
  const gap = await page.locator(ID('spotdnn-gap')).count();
  if (gap) assert(!(await text(page, 'spotdnn-gap')).startsWith('-'));

  await drawAllCharts(page);
  assert((await page.locator(`${ID('spotdnn-chart-frontier')} .scatterlayer .trace`).count()) >= 2, 'frontier and the chosen plan');
  assert.match(await page.locator(ID('spotdnn-chart-frontier')).textContent(), /time goal/);
  await ctx.screenshot(page, 'spotdnn');

  // The exact plan becomes the cluster (the report's action): its own
  // prediction appears.
  await page.locator(ID('spotdnn-action-use-plan')).click();
  await page.locator(ID('spotdnn-train-time')).waitFor();
  assert.match(await text(page, 'spotdnn-train-time'), /\d s$/);

  // A revocation of the plan's first type: the takeover never reuses it.
  await page.locator(ID('spotdnn-revoked')).check();
  const revoked = await page.locator(`${ID('spotdnn-revoked-instance')} option:checked`).textContent();
  await setField(page, 'spotdnn-revoked-at', '600');
  await setField(page, 'spotdnn-revoked-loss', '1.2');
  await page.locator(ID('spotdnn-takeover-plan')).waitFor();
  const takeover = await text(page, 'spotdnn-takeover-plan');
  assert(!takeover.includes(revoked.trim()), `${takeover} reuses ${revoked}`);
  const finish = await text(page, 'spotdnn-finish-after');

  // A shared link reproduces the plan and the takeover.
  await page.waitForTimeout(400); // the address follows edits after a pause
  const url = page.url();
  const again = await ctx.newPage();
  await again.goto(url);
  await showView(again, 'spotdnn');
  await again.locator(ID('spotdnn-takeover-plan')).waitFor();
  assert.equal(await text(again, 'spotdnn-takeover-plan'), takeover);
  assert.equal(await text(again, 'spotdnn-finish-after'), finish);
  await again.close();

  // B_req typed as Mb/s turned MB/s: the message names the slip at the
  // field; the last good result stays, marked.
  await setField(page, 'spotdnn-req', '17.75');
  await page.locator(ID('spotdnn-stale')).waitFor();
  assert.match(await page.locator(`label:has(${ID('spotdnn-req')})`).textContent(), /looks converted from Mb\/s/);
  assert.ok((await text(page, 'spotdnn-exact-plan')).length > 0);
  await setField(page, 'spotdnn-req', '142');
  await page.locator(ID('spotdnn-stale')).waitFor({ state: 'detached' });
  assert.equal(await text(page, 'spotdnn-exact-plan'), exact);

  // Fits: loss traces of three clusters from the preset's own law, the
  // typed law removed. The fitted law plans as the typed one did; its
  // action types it back in.
  await page.locator(ID('spotdnn-revoked')).uncheck();
  await showInputs(page, 'models');
  await page.locator(ID('spotdnn-loss-form')).selectOption('none');
  await page.locator(`${ID('spotdnn-fits')} summary`).click();
  await page.locator(ID('spotdnn-fit-form')).selectOption('r_free');
  // R-free Eq. 3 with the authors' γ; b_w and |N| of each homogeneous cluster.
  const law = (b, n, j) => (-0.2 * b + 2507.6) * Math.sqrt(n) / (j + 876.5) + 0.5;
  const rows = [];
  for (const [cluster, b, n] of [['2× g3.8xlarge', 1024, 2], ['3× g3.16xlarge', 2048, 3], ['2× p2.8xlarge', 8192, 2]]) {
    for (let j = 0; j <= 40000; j += 4000) rows.push(`${cluster}, ${j}, ${law(b, n, j).toFixed(6)}`);
  }
  const box = page.locator(ID('spotdnn-fit-loss'));
  await box.fill(`cluster, global step, loss\n${rows.join('\n')}`);
  await box.blur();
  await showView(page, 'spotdnn');
  await page.locator(ID('spotdnn-table-fits')).waitFor();
  await page.waitForFunction((want) => document.querySelector('[data-testid="spotdnn-exact-plan"]')?.textContent === want, exact);
  assert.match(await text(page, 'spotdnn-notes'), /fitted values are used/);
  await drawAllCharts(page);
  assert((await page.locator(`${ID('spotdnn-chart-loss-fit')} .scatterlayer .trace`).count()) >= 6, 'three traces, measured and fitted');
  await page.locator(ID('spotdnn-action-use-loss-fit')).click();
  await showInputs(page, 'models');
  await page.waitForFunction(() => Math.abs(Number(document.querySelector('[data-testid="spotdnn-gamma1"]')?.value) - 876.5) < 0.01);
  // A row the box cannot read is named under it; the rows stay.
  await box.fill('2× g3.8xlarge, x, 1');
  await box.blur();
  assert.match(await text(page, 'spotdnn-fit-loss-error'), /line 1/);
});
