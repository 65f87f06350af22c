import { ID, open, setField, waitIteration, iterationSeconds, within, numberIn, pickExample, showView, showInputs } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'editing inputs updates the result; bad values keep the last good result; switching views while charts draw leaves no error and no chart half drawn';

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  // 10 GbE: Zeng Table 7, VGG-16 bs 32, 2.94 s.
  await setField(page, 'bandwidth-gbps', '10');
  const t10 = await waitIteration(page, (t) => t < 5, 'below 5 s');
  assert(within(t10, 2.94, 0.02), `10 GbE: ${t10} s, Table 7 says 2.94 s`);

  // Not a number: message at the field, result unchanged.
  await setField(page, 'bandwidth-gbps', 'abc');
  await page.locator(`label:has(${ID('bandwidth-gbps')}) ${ID('field-error')}`).first().waitFor();
  assert.match(await page.locator(`label:has(${ID('bandwidth-gbps')})`).textContent(), /'abc' is not a number/);
  assert.equal(await iterationSeconds(page), t10);

  // Zero bandwidth parses but is invalid: named at the field, stale result kept.
  await setField(page, 'bandwidth-gbps', '0');
  await page.locator(ID('zeng-stale')).waitFor();
  // The overview's timeline (Zeng's) is dimmed and says so, as the headline.
  await page.locator(ID('overview-chart-stale-timeline')).waitFor();
  assert.match(await page.locator(ID('overview-chart-box-timeline')).getAttribute('class'), /stale-result/);
  assert.match(await page.locator(`label:has(${ID('bandwidth-gbps')})`).textContent(), /must be a positive number/);
  assert.equal(await iterationSeconds(page), t10, 'last good result stays');
  await setField(page, 'bandwidth-gbps', 'NaN');
  assert.match(await page.locator(`label:has(${ID('bandwidth-gbps')})`).textContent(), /'NaN' is not a number/);

  // Back to 1 GbE, then one more GPU worker: 4 workers at 1 GbE add 2 transfers.
  await setField(page, 'bandwidth-gbps', '1');
  await page.locator(ID('zeng-stale')).waitFor({ state: 'detached' });
  await page.locator(ID('overview-chart-stale-timeline')).waitFor({ state: 'detached' });
  await setField(page, 'group-count', '3');
  const t4 = await waitIteration(page, (t) => t > 30, 'above 30 s');
  // Eq. 32 with n = 4: 8 transfers of 4.428 s + 0.278 s.
  assert(within(t4, 8 * 4.4276 + 0.2782, 0.005), `4 workers: ${t4} s`);
  await showView(page, 'zeng');
  assert.equal(await page.locator(`${ID('zeng-table-workers')} tbody tr`).count(), 4);

  // Negative batch is not a whole number ≥ 0: refused at the field.
  await page.locator(ID('group-batch')).first().fill('-4');
  assert.match(await page.locator(`label:has(${ID('group-batch')})`).first().textContent(), /not a whole number/);
  assert(numberIn(await page.locator(ID('zeng-iteration-time')).textContent()) === t4);

  // Calibrate a CPU's SIMD from a measured iteration.
  await showInputs(page, 'catalog');
  await page.locator(ID('calibrate-seconds')).first().fill('-3');
  await page.locator(ID('calibrate')).first().click();
  assert.match(await page.locator(ID('device-0')).textContent(), /cannot be a measured iteration time/);

  // A clock below floating point's normal range (it would make the time
  // overflow, and is not the number typed) is refused at its field in the
  // words typed, and the last good result stays marked.
  await page.locator(ID('calibrate-seconds')).first().fill('');
  const ghz = page.locator(ID('device-ghz')).first();
  await ghz.fill('1e-320');
  const label = page.locator(`label:has(${ID('device-ghz')})`).first();
  await label.locator(ID('field-error')).first().waitFor();
  assert.match(await label.textContent(), /'1e-320' is too close to 0 to compute with/);
  assert(!/hardware\.catalog/.test(await label.textContent()), 'the message names the device, not a path');
  await page.locator(ID('zeng-stale')).waitFor();
  assert(Number.isFinite(await iterationSeconds(page)), 'no inf on screen');

  // A chart draws over several tasks: views switched meanwhile remove
  // charts mid-drawing (the drawing finishes detached, then the chart is
  // purged). The harness fails the spec on any page error this leaves.
  const churn = await open(ctx);
  await pickExample(churn, 2);
  const views = ['overview', 'zeng', 'cynthia', 'overview', 'cynthia', 'zeng'];
  for (let i = 0; i < 36; i++) {
    await churn.locator(ID(`view-${views[i % views.length]}`)).click();
    await churn.waitForTimeout(5 + ((i * 7) % 60));
  }
  // Every chart on the first screen is drawn in the end, none busy.
  const state = () => churn.evaluate(() => [...document.querySelectorAll('.chart')]
    .filter((c) => c.getBoundingClientRect().top < innerHeight)
    .map((c) => ({ id: c.dataset.testid, busy: c.getAttribute('aria-busy') === 'true', drawn: !!c.querySelector('.main-svg') })));
  const settled = (charts) => charts.length > 0 && charts.every((c) => !c.busy && c.drawn);
  for (let i = 0; i < 150 && !settled(await state()); i++) await churn.waitForTimeout(100);
  const left = await state();
  assert(settled(left), `charts on the first screen, drawn and not busy: ${JSON.stringify(left)}`);
});
