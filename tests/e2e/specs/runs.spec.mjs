// Issue 35: measured runs on the page. Zeng et al.'s own Tables 6-7
// (VGG-16: four runs) against every model, calibrated in the worker, the
// factors applied to the model's figures and carried by the link; runs
// pasted as CSV, a bad paste refused at its box, a bad measurement marked
// at its row. The figures are the CLI's (`ddnn-planner calibrate
// public/examples/zeng-tables6-7-vgg16-runs.json`), computed natively.

import { ID, numberIn, open, pickExample, setField, showInputs, showView, iterationSeconds, waitIteration } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const VGG16_RUNS = 7; // its place in the Examples menu

async function figure(page, testid) {
  const el = page.locator(ID(testid)).first();
  await el.waitFor({ timeout: 30_000 });
  return numberIn(await el.textContent());
}

test('Tables 6-7 runs: every model against them, calibrated, applied and shared', async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  await pickExample(page, VGG16_RUNS);
  await waitIteration(page, (t) => Math.abs(t - 26.84) < 0.005, 'VGG-16 at 1 GbE as published: 26.84 s');
  await showView(page, 'runs');
  assert.equal(await figure(page, 'runs-runs'), 4, 'four measured runs');
  // As published, Zeng's median |error| over the four runs is 9.979%.
  assert.ok(Math.abs((await figure(page, 'runs-zeng-median-error')) - 9.979) < 0.01);
  await page.locator(ID('runs-chart-parity-iteration-time')).or(page.locator('[data-testid^="runs-chart-"]')).first().waitFor();
  // The calibration beside it: in-sample 0.5942%, leave-one-out 1.511%.
  assert.ok(Math.abs((await figure(page, 'calibration-zeng-calibrated-median-error')) - 0.5942) < 0.001);
  assert.ok(Math.abs((await figure(page, 'calibration-zeng-loo-median-error')) - 1.511) < 0.001);
  // Applied: Zeng's figures use the factors (28.65 s), the calibration
  // offers the way back, and the link carries them.
  await page.locator(ID('calibration-action-zeng-apply')).click();
  await page.locator(ID('calibration-action-zeng-published')).waitFor();
  await showView(page, 'overview');
  await waitIteration(page, (t) => Math.abs(t - 28.65) < 0.005, 'calibrated: 28.65 s');
  const beside = page.locator(ID('zeng-iteration-time-published')).first();
  await beside.waitFor();
  assert.match(await beside.textContent(), /as published: 26\.84 s/, 'the published figure beside the calibrated one');
  await page.waitForFunction(() => location.hash.startsWith('#s2.'));
  await page.waitForTimeout(1500); // the address bar follows after a pause
  const link = page.url();
  const other = await ctx.newPage();
  await other.goto(link, { waitUntil: 'load' });
  await other.locator(ID('zeng-iteration-time')).first().waitFor({ timeout: 30_000 });
  assert.ok(Math.abs((await iterationSeconds(other)) - 28.65) < 0.005, 'the shared link opens calibrated');
  await other.close();
  // Back to as published.
  await showView(page, 'runs');
  await page.locator(ID('calibration-action-zeng-published')).click();
  await showView(page, 'overview');
  await waitIteration(page, (t) => Math.abs(t - 26.84) < 0.005, 'as published again');
  assert.equal(await page.locator(ID('zeng-iteration-time-published')).count(), 0, 'nothing beside a published figure');
});

test('runs pasted as CSV are compared; a bad paste and a bad measurement are marked where they are', async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  await showView(page, 'runs');
  assert.match(await page.locator(ID('view-runs')).textContent(), /needs inputs/);
  await showInputs(page, 'runs');
  await page.locator(ID('runs-empty')).waitFor();
  const csv = [
    'label,instance,count,batch_size,iteration_s',
    'mix 1 GbE,Quadro RTX 4000,2,32,28.66',
    'mix 1 GbE,GeForce GTX 1060 6GB,1,32,28.66',
    'one Quadro,Quadro RTX 4000,1,32,9.5',
  ].join('\n');
  await page.locator(ID('runs-text')).fill(csv);
  await page.locator(ID('runs-apply')).click();
  assert.match(await page.locator(ID('runs-note')).textContent(), /2 measured runs \(3 worker groups\)/);
  assert.equal(await page.locator('[data-testid^="run-row-"]').count(), 2);
  assert.equal(await figure(page, 'runs-runs'), 2);
  assert.ok(!/needs inputs/.test(await page.locator(ID('view-runs')).textContent()), 'the tab no longer needs inputs');
  // The first run is Table 6's mix: Zeng predicts 26.84 s for 28.66 s.
  const err = await figure(page, 'runs-zeng-median-error');
  assert.ok(Number.isFinite(err) && err > 0, `a median error (${err}%)`);

  // A paste that is not runs: refused at the box, the runs stay.
  if (!(await page.locator(ID('runs-text')).isVisible())) await page.locator('details.import summary').click();
  await page.locator(ID('runs-text')).fill('label,instance\nx');
  await page.locator(ID('runs-apply')).click();
  await page.locator(ID('runs-error')).waitFor();
  assert.equal(await page.locator('[data-testid^="run-row-"]').count(), 2, 'the runs stay');

  // A measurement below zero: marked at its row, the comparison kept and
  // marked as from the last valid inputs, counted on the tab.
  await setField(page, 'run-value-1', '-3');
  await page.locator(ID('runs-stale')).waitFor({ timeout: 10_000 });
  assert.equal(await page.locator(ID('run-value-1')).getAttribute('aria-invalid'), 'true');
  assert.equal(await page.locator(`${ID('inputs-runs')} .tab-errors`).textContent(), '1');
  assert.equal(await figure(page, 'runs-runs'), 2, 'the last valid comparison stays');
  await setField(page, 'run-value-1', '9.5');
  await page.locator(ID('runs-stale')).waitFor({ state: 'detached', timeout: 10_000 });
  // Removing a run takes it out of the comparison.
  await page.locator(ID('run-remove-1')).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="runs-runs"]')?.textContent.trim() === '1');
});
