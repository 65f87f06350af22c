import fs from 'node:fs';
import { ID, open, setField, settled, waitIteration, within } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = "a keystroke's own frame shows Zeng et al.'s new number; the worker's results file agrees with the page";

// Runs inside the page: for each real keystroke into a field, whether the
// first frame after its input event shows a headline other than before
// the key went down (Zeng et al. is computed in the edit's own task once
// measured cheap, src/worker/quick.rs; the worker's answer would come a
// frame or more later).
function watchFrames() {
  window.__frames = [];
  const headline = () => document.querySelector('[data-testid="zeng-iteration-time"]')?.textContent;
  let before = null;
  document.addEventListener('keydown', (ev) => {
    if (ev.isTrusted) before = headline();
  }, true);
  document.addEventListener('input', (ev) => {
    if (!ev.isTrusted || before === null) return;
    const was = before;
    before = null;
    requestAnimationFrame(() => window.__frames.push({ was, now: headline() }));
  });
}

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  // The first edit goes to the worker (nothing measured yet); its answer
  // times Zeng et al. for the page.
  await setField(page, 'bandwidth-gbps', '2');
  await waitIteration(page, (t) => t < 20, '2 Gb/s');
  await settled(page);

  // "10" typed into the emptied field: each digit changes the number.
  await setField(page, 'bandwidth-gbps', '');
  await settled(page);
  await page.evaluate(watchFrames);
  const field = page.locator(ID('bandwidth-gbps')).first();
  for (const key of ['1', '0']) {
    await field.press(key);
    await page.waitForTimeout(200);
  }
  const frames = await page.evaluate(() => window.__frames);
  assert.equal(frames.length, 2, JSON.stringify(frames));
  for (const f of frames) {
    assert(f.now && f.now !== f.was, `the keystroke's frame showed ${f.now}, before it ${f.was}`);
  }
  const t10 = await waitIteration(page, (t) => t < 5, '10 GbE');
  assert(within(t10, 2.94, 0.02), `10 GbE: ${t10} s (Zeng et al. Table 7: 2.94 s)`);

  // The results file comes from the worker, which computed Zeng et al.
  // as well: the same number to the last digit as the page's tooltip.
  await settled(page);
  const exact = Number(await page.locator(ID('zeng-iteration-time')).first().getAttribute('title'));
  const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(ID('export-results-json')).click()]);
  const reports = JSON.parse(fs.readFileSync(await dl.path(), 'utf8'));
  const zeng = reports.find((r) => r.model === 'zeng');
  const figure = zeng.headline.find((f) => f.key === 'iteration-time');
  assert.equal(figure.value.value, exact, 'the worker exports the number the page shows');
  ctx.log(`typed 10 Gb/s: ${t10} s in the keystroke's own frame; exported ${figure.value.value} s`);
});
