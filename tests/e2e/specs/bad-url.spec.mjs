import { ID, open, iterationSeconds, within } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'a corrupt or future link shows a clear error and the example';

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  for (const [frag, msg] of [
    ['#s1.bm90LWRlZmxhdGU', /damaged/],
    ['#s1.%%%', /damaged/],
    ['#s9.AAAA', /newer ddnn-planner/],
    ['#hello', /does not carry a scenario/],
  ]) {
    const page = await open(ctx, frag);
    const banner = page.locator(ID('scenario-error'));
    await banner.waitFor();
    assert.match(await banner.textContent(), msg, frag);
    assert(within(await iterationSeconds(page), 26.85, 0.02), 'the example is shown');
  }
});
