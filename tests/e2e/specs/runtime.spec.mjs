import { ID, open, pickExample, setField, waitIteration, within, showView, showInputs } from '../planner.mjs';
import { bigCatalog, dropFile, hugeCluster, stageFile } from '../hostile.mjs';
import { test } from '../fixtures.mjs';

const name = 'models run in a worker: a 1,000-type catalog and a 4,000-group cluster compute off the page; progress, cancel, stale marks, paged lists';

// Staged before the page loads and dropped on the input (not setInputFiles,
// whose in-page decoding would count as the page's long task).
async function stage(page) {
  await stageFile(page, 'big-catalog.json', JSON.stringify(bigCatalog(1000)));
  await stageFile(page, 'huge-cluster.json', JSON.stringify(hugeCluster(4000)));
}

async function importJson(page, name) {
  await dropFile(page, 'import-json', name, name);
}

test(name, async ({ ctx }) => {
  const { assert, log } = ctx;
  const page = await open(ctx, '', {}, stage);

  // A thousand instance types: the exact search runs in the worker, with progress.
  const t0 = Date.now();
  await importJson(page, 'big-catalog.json');
  await showView(page, 'cynthia');
  await page.locator(ID('cynthia-exact-plan')).waitFor({ timeout: 60_000 });
  await page.waitForFunction(() => !document.querySelector('[data-testid="cynthia-pending"]'), null, { timeout: 60_000 });
  log(`1,000-type catalog: Cynthia's plans on screen after ${Date.now() - t0} ms`);
  assert.match(await page.locator(ID('cynthia-exact-plan')).textContent(), /type-\d{4}/, 'a plan from the big catalog');

  // While it recomputes, the page answers: typing is not blocked, the old
  // figures are marked as older, and Cancel stops the computation.
  // 1,000 types × up to 256 workers: long enough to cancel.
  await setField(page, 'max-workers', '256');
  // The progress box and the older-results mark are on the page at once
  // (shown after 150 ms, so fast edits do not flicker).
  await page.locator(ID('cancel')).waitFor({ state: 'attached' });
  await page.locator(ID('cynthia-pending')).waitFor({ state: 'attached' });
  const typed = await page.evaluate(() => {
    const t = performance.now();
    document.querySelector('[data-testid="goal-budget"]').value = '40';
    return performance.now() - t;
  });
  assert(typed < 50, `an input answers while the worker computes (${typed} ms)`);
  // Click in the page at once: a fast machine may finish before a
  // pointer click could land.
  const stopped = await page.evaluate(() => {
    const b = document.querySelector('[data-testid="cancel"]');
    if (b) b.click();
    return Boolean(b);
  });
  assert(stopped, 'Cancel was on the page while the worker computed');
  await page.locator(ID('cynthia-cancelled')).waitFor();
  assert.equal(await page.locator(ID('runtime-status')).count(), 0, 'no progress after cancel');
  // The next edit computes again, on a fresh worker.
  await setField(page, 'max-workers', '64');
  await page.waitForFunction(() => !document.querySelector('[data-testid="cynthia-pending"]') && !document.querySelector('[data-testid="cynthia-cancelled"]'), null, { timeout: 60_000 });

  // 4,000 worker groups: Zeng's queue and report, still no long task.
  await importJson(page, 'huge-cluster.json');
  await showView(page, 'zeng');
  await page.waitForFunction(() => /2,000× CPU \+ 2,000× GPU in 4,000 groups/.test(document.querySelector('[data-testid="zeng-subject"]')?.textContent || ''), null, { timeout: 60_000 });
  await showInputs(page, 'cluster');
  // Rows build a few per frame, up to one page.
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="worker-groups"] tbody tr').length >= 25);
  await page.waitForTimeout(200);
  assert.equal(await page.locator('[data-testid="worker-groups"] tbody tr').count(), 25, 'the group list shows a page of groups');
  await page.waitForFunction(() => !document.querySelector('[data-testid="zeng-pending"]'), null, { timeout: 60_000 });
  const t = await waitIteration(page, (x) => x > 0, 'positive');
  log(`4,000 groups: iteration ${t} s`);

  // Back to the example: the numbers are the example's, exactly.
  await pickExample(page, 0);
  const back = await waitIteration(page, (x) => within(x, 26.8437, 0.0005), 'the example again');
  assert(within(back, 26.8437, 0.0005), `example after the big ones: ${back}`);
});
