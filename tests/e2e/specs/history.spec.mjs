import { ID, open, pickExample, setField, waitIteration, within } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'work is never lost: undo/redo (typing is one step, an example pick can be undone), Back/Forward over the same steps, the examples menu, the last scenario offered back on the next visit';

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  assert(await page.locator(ID('undo')).isDisabled(), 'nothing to undo at the start');

  // Typing "10" is one step, however many keystrokes.
  await setField(page, 'bandwidth-gbps', '1');
  await page.locator(ID('bandwidth-gbps')).pressSequentially('0', { delay: 50 });
  const t10 = await waitIteration(page, (t) => t < 5, '10 GbE');
  assert(within(t10, 2.94, 0.02), `10 GbE: ${t10}`);
  await page.waitForTimeout(800);

  // Picking an example replaces the scenario, and Undo brings the edit back.
  await pickExample(page, 1);
  await page.waitForFunction(() => /ResNet-50/.test(document.title));
  await page.locator(ID('undo')).click();
  await waitIteration(page, (t) => within(t, t10, 1e-9), 'the 10 GbE result again');
  await page.waitForFunction(() => /VGG-16/.test(document.title)); // set after the frame
  await page.locator(ID('undo')).click();
  await waitIteration(page, (t) => within(t, 26.8437, 0.0005), 'the 1 GbE example again');
  await page.locator(ID('redo')).click();
  await waitIteration(page, (t) => within(t, t10, 1e-9), 'redo: 10 GbE');
  assert.equal(await page.locator(ID('bandwidth-gbps')).inputValue(), '10');

  // The next visit without a link offers the last scenario back.
  await page.waitForTimeout(600); // the address bar (and the saved copy) follow after a pause
  const next = await ctx.newPage();
  await next.goto(ctx.baseUrl, { waitUntil: 'load' });
  await next.locator(ID('saved-offer')).waitFor();
  assert.match(await next.locator(ID('saved-offer')).textContent(), /PS link 10 Gb\/s/);
  await next.locator(ID('restore')).click();
  await waitIteration(next, (t) => within(t, t10, 1e-9), 'the saved scenario');
  assert.equal(await next.locator(ID('saved-offer')).count(), 0);

  // Back and Forward walk the same steps.
  const nav = await open(ctx, '', {});
  const t1 = await waitIteration(nav, (t) => t > 0, 'a first result');
  await setField(nav, 'bandwidth-gbps', '5');
  const t5 = await waitIteration(nav, (t) => t < t1, 'faster at 5 Gb/s');
  await nav.waitForTimeout(900); // the address bar follows after a pause
  await nav.goBack();
  await waitIteration(nav, (t) => within(t, t1, 1e-9), 'Back: the first result');
  await nav.goForward();
  await waitIteration(nav, (t) => within(t, t5, 1e-9), 'Forward: 5 Gb/s again');

  // An edit and a view change in the same moment: the view is written
  // into the address first, and the edit is still a step of its own.
  await nav.evaluate(() => {
    const input = document.querySelector('[data-testid="bandwidth-gbps"]');
    input.value = '2';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    document.querySelector('[data-testid="view-zeng"]').click();
  });
  const t2 = await waitIteration(nav, (t) => t > t5, 'slower at 2 Gb/s');
  await nav.waitForFunction(() => location.hash.includes('&view=zeng'));
  await nav.waitForTimeout(900); // the address bar follows after a pause
  await nav.goBack();
  await waitIteration(nav, (t) => within(t, t5, 1e-9), 'Back after the view change: 5 Gb/s');
  await nav.goForward();
  await waitIteration(nav, (t) => within(t, t2, 1e-9), 'Forward: 2 Gb/s again');
});
