import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ID, open, iterationSeconds } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'hostile files and links: 50 MB and 200 MB scenario files are refused by size within a second; JSON nested 100,000 deep is refused, not overflowed; a 1 MB link gets one sentence; the scenario and its result stay throughout';

const banner = (page) => page.locator(ID('scenario-error')).textContent();

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  const t10 = await iterationSeconds(page);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ddnn-hostile-'));
  try {
    // Large files: sparse, so writing them costs nothing; the page must
    // refuse them by their size, before reading a byte.
    for (const mb of [50, 200]) {
      const file = path.join(dir, `big-${mb}.json`);
      fs.closeSync(fs.openSync(file, 'w'));
      fs.truncateSync(file, mb * 1e6);
      const t0 = Date.now();
      await page.locator(ID('import-json')).setInputFiles(file);
      await page.waitForFunction((n) => (document.querySelector('[data-testid="scenario-error"]')?.textContent || '').includes(`big-${n}.json`), mb, { timeout: 5_000 });
      const ms = Date.now() - t0;
      assert(ms < 1000, `${mb} MB refused after ${ms} ms`);
      assert.match(await banner(page), new RegExp(`big-${mb}\\.json: ${mb}\\.0 MB is larger than the 5 MB this page reads`));
      assert.equal(await iterationSeconds(page), t10, 'the scenario and its result stay');
    }

    // Nesting far past any parser's stack: refused with a message.
    const nested = path.join(dir, 'nested.json');
    fs.writeFileSync(nested, '['.repeat(100_000) + ']'.repeat(100_000));
    await page.locator(ID('import-json')).setInputFiles(nested);
    await page.waitForFunction(() => (document.querySelector('[data-testid="scenario-error"]')?.textContent || '').includes('nested.json'), null, { timeout: 5_000 });
    const said = await banner(page);
    assert(said.length < 300, `one short message: ${said}`);
    assert.equal(await iterationSeconds(page), t10, 'the scenario and its result stay');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  // A link of 1 MB that is not a scenario: one sentence, the example shown.
  const junk = `s1.${'A'.repeat(1_000_000)}`;
  const other = await open(ctx, `#${junk}`);
  const msg = await other.locator(ID('scenario-error')).textContent();
  assert(msg.length < 300 && /^The link/.test(msg), `one sentence: ${msg.slice(0, 400)}`);
  assert(Number.isFinite(await iterationSeconds(other)), 'the example is shown');
});
