import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ID, open, showInputs, pickExample, setField } from '../planner.mjs';
import { longestTaskSince } from '../hostile.mjs';
import { test } from '../fixtures.mjs';

const name = 'long tables and huge numbers: a 10⁶-row layer table is refused by size within a second; 4.9 MB uploads (156,597-row layer table, 263,742-point loss curve, 192,718 Stash runs, 86,160 catalog entries) are read in an import worker — no main-thread task over 50 ms; past a count limit refused in one sentence at the upload; the loss curve thinned to 10,000 points and fitted; 1e308 and NaN typed into fields are refused there with their range; the scenario stays';

// [upload, input tab, example (-1: the landing one), file, header, row i,
//  what the page says]
const CASES = [
  ['layer-upload', 'workload', -1, 'layers.csv', 'name,kind,inch,kh,kw,outn,outh,outw\n', (i) => `conv${i},conv,64,3,3,64,56,56\n`,
    /^layers\.csv: line 10002: more than 10000 layers, the most one table may have$/],
  ['loss-upload', 'models', 2, 'loss.csv', 'iteration,loss\n', (i) => `${i},${(2000 / (i + 1000)).toFixed(9)}\n`,
    /^loss\.csv: fitted β0 = 2,?000(\.\d+)?, β1 = 1,?000(\.\d+)? from 9,\d{3} points \(263,742 read; every 27th kept, and the last\), R² = 1\.0000$/],
  ['stash-runs-upload', 'models', 5, 'runs.csv', 'configuration, run, seconds, samples\n', (i) => `p3.8xlarge,${1 + (i % 5)},${100 + i},10000\n`,
    /^runs\.csv: 192,718 runs is more than the 10,000 accepted$/],
  ['catalog-upload', 'catalog', -1, 'catalog.json', '[', (i) => `{"name":"gpu${i}","peak_flops":1e13,"price_per_hour":1},`,
    /^catalog\.json: 86160 instances is more than the 1000 accepted$/],
];

// Where each upload says what happened.
const SAID = {
  'layer-upload': '[data-testid="import-note"], [data-testid="import-error"]',
  'loss-upload': '[data-testid="cynthia-note"], [data-testid="cynthia-error"]',
  'stash-runs-upload': '[data-testid="stash-runs-error"], [data-testid="stash-note"]',
  'catalog-upload': '[data-testid="catalog-note"], [data-testid="catalog-error"]',
};

// The address once the page has written the scenario into it and it has
// not changed for half a second.
async function settledAddress(page) {
  let last = null;
  for (let i = 0; i < 40; i++) {
    const now = await page.evaluate(() => location.hash);
    if (now.length > 1 && now === last) return now;
    last = now;
    await page.waitForTimeout(500);
  }
  return last;
}

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ddnn-tables-'));
  try {
    for (const [upload, tab, example, file, head, row, said] of CASES) {
      const parts = [head];
      let size = head.length;
      for (let i = 0; size < 4.9e6; i++) {
        const r = row(i);
        parts.push(r);
        size += r.length;
      }
      if (file.endsWith('.json')) parts[parts.length - 1] = parts[parts.length - 1].replace(/,$/, ']');
      const where = path.join(dir, file);
      fs.writeFileSync(where, parts.join(''));
      if (example >= 0) await pickExample(page, example);
      await showInputs(page, tab);
      const link = await settledAddress(page);
      const t0 = await page.evaluate(() => performance.now());
      await page.locator(ID(upload)).setInputFiles(where);
      const note = page.locator(SAID[upload]).filter({ hasText: file });
      await note.first().waitFor({ timeout: 10_000 });
      const text = (await note.first().textContent()).trim();
      await page.waitForTimeout(300);
      const longest = await longestTaskSince(page, t0);
      ctx.log(`${file} (${parts.length - 1} rows, ${(size / 1e6).toFixed(1)} MB): longest main-thread task ${Math.round(longest)} ms; "${text}"`);
      assert.match(text, said);
      assert(longest <= 50, `${file}: a ${Math.round(longest)} ms task`);
      if (upload !== 'loss-upload') {
        assert.equal(await settledAddress(page), link, `${file}: the scenario stays`);
      }
    }

    // A layer table of 10⁶ rows (34 MB): refused by its size before a byte
    // is read.
    const million = path.join(dir, 'million.csv');
    const out = fs.openSync(million, 'w');
    fs.writeSync(out, 'name,kind,inch,kh,kw,outn,outh,outw\n');
    for (let k = 0; k < 100; k++) {
      fs.writeSync(out, Array.from({ length: 10_000 }, (_, i) => `conv${k * 10_000 + i},conv,256,3,3,256,28,28\n`).join(''));
    }
    fs.closeSync(out);
    await showInputs(page, 'workload');
    const started = Date.now();
    await page.locator(ID('layer-upload')).setInputFiles(million);
    const refused = page.locator('[data-testid="import-error"]').filter({ hasText: 'million.csv' });
    await refused.waitFor({ timeout: 1000 });
    ctx.log(`10^6-row layer table (${(fs.statSync(million).size / 1e6).toFixed(0)} MB) refused after ${Date.now() - started} ms: "${await refused.textContent()}"`);
    assert.match(await refused.textContent(), /^million\.csv: 3\d\.\d MB is larger than the 5 MB this page reads$/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  // Numbers at the edge of floating point, typed: refused at the field
  // in the words typed (too large, or too close to 0, to compute with),
  // the result kept.
  const before = await settledAddress(page);
  await showInputs(page, 'cluster');
  const original = await page.locator(ID('bandwidth-gbps')).inputValue();
  for (const [field, typed, said] of [['bandwidth-gbps', '1e308', /'1e308' is too large to compute with/], ['bandwidth-gbps', 'NaN', /'NaN' is not a number/], ['bandwidth-gbps', '1e-320', /'1e-320' is too close to 0 to compute with/]]) {
    await setField(page, field, typed);
    const label = page.locator(`label:has(${ID(field)})`);
    await page.waitForFunction(([f, re]) => new RegExp(re).test(document.querySelector(`label:has([data-testid="${f}"])`)?.textContent || ''), [field, said.source], { timeout: 5000 });
    ctx.log(`${field} = ${typed}: "${(await label.textContent()).replace(/\s+/g, ' ').slice(0, 200)}"`);
    // The last good result stays: Zeng is never told its inputs are missing.
    await page.waitForTimeout(500);
    const tab = await page.locator(ID('view-zeng')).textContent();
    assert(!/needs inputs/.test(tab), `${typed}: Zeng's result kept (tab says "${tab}")`);
  }
  await setField(page, 'bandwidth-gbps', original);
  assert.equal(await settledAddress(page), before, 'back to the scenario as it was');
});
