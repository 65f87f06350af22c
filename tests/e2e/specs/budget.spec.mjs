// Issue 32: inputs of hostile size never hang the page. A scenario with a
// 4,000-type catalog is refused by its size; spotDNN over 25 types with a
// quota on each plans, its exact search proven to the end.
// Throughout, no main-thread task over 100 ms (the fixtures' probe) and
// the last good result stays.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ID, open, iterationSeconds, showView } from '../planner.mjs';
import { test } from '../fixtures.mjs';
import { bigCatalog } from '../hostile.mjs';

const name = 'work budgets: a 4,000-type catalog is refused by size, spotDNN over 25 quota types plans, the last result stays';

const textOf = (page, id) => page.locator(ID(id)).first().textContent();

// spotDNN's Table I example (4 of its types have a quota of 5) with `n`
// renamed copies of its GPU types, a quota of 5 on each (the searches once
// grew 6x per 4 such types). The cluster keeps its own types.
function quotaTypes(n) {
  const doc = JSON.parse(fs.readFileSync('public/examples/spotdnn-table1.json', 'utf8'));
  const gpus = doc.hardware.catalog.filter((t) => !/PS/.test(t.name));
  const sp = doc.models.spotdnn;
  for (let i = 0; i < n; i++) {
    const t = gpus[i % gpus.length];
    const copy = { ...t, name: `${t.name} #${i}`, quota: 5 };
    doc.hardware.catalog.push(copy);
    const m = sp.measured.find((r) => r.instance === t.name);
    if (m) sp.measured.push({ ...m, instance: copy.name });
  }
  doc.title = `${n + 4} quota types`;
  return doc;
}

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  const t0 = await iterationSeconds(page);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ddnn-budget-'));
  try {
    // 1. A scenario carrying 4,000 instance types: refused by the catalog's
    //    size, in one sentence; the scenario and its result stay.
    const big = path.join(dir, 'catalog-4000.json');
    fs.writeFileSync(big, JSON.stringify(bigCatalog(4000)));
    await page.locator(ID('import-json')).setInputFiles(big);
    await page.waitForFunction(() => /4,000 instance types, more than the 1,000 accepted/.test(document.querySelector('[data-testid="scenario-error"]')?.textContent || ''), null, { timeout: 10_000 });
    assert.equal(await iterationSeconds(page), t0, 'the scenario and its result stay');

    // 2. spotDNN over 25 types with a quota of 5 each: its plans arrive,
    //    every search finished (no "stopped at its budget" note).
    const quota = path.join(dir, 'quota-25.json');
    fs.writeFileSync(quota, JSON.stringify(quotaTypes(21)));
    await page.locator(ID('import-json')).setInputFiles(quota);
    await showView(page, 'spotdnn');
    await page.waitForFunction(() => {
      const panel = document.querySelector('[data-testid="results-spotdnn"]')?.textContent || '';
      const plan = document.querySelector('[data-testid="spotdnn-exact-plan"]')?.textContent || '';
      return (/× /.test(plan) || /it takes on: reduce/.test(panel)) && !document.querySelector('[data-testid="spotdnn-pending"]');
    }, null, { timeout: 30_000 });
    assert.match(await textOf(page, 'spotdnn-exact-plan'), /× /, '25 quota types are planned');
    const panel = await textOf(page, 'results-spotdnn');
    assert(!/stopped at its budget/.test(panel), 'every search went to the end');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
