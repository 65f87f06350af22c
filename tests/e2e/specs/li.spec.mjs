import fs from 'node:fs';
import { ID, open, pickExample, setField, showView, showInputs, chartDrawn, drawAllCharts, numberIn, underModeBar } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'Li et al.: the example runs off the page → throughput curve at the link bound with its seed spread, Cynthia\'s estimate and Lin et al.\'s queueing estimate saturating early, a synthetic timeline; a cyclic profile upload is named op by op; flow control off re-simulates; a shared link reproduces';

const text = (page, id) => page.locator(ID(id)).first().textContent();

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  // Without a profile, the tab says what it needs.
  await showView(page, 'li');
  await page.locator(ID('li-missing')).waitFor();
  assert.match(await text(page, 'li-missing'), /profile/);

  // The example: VGG-16 at 10 Gb/s, a profile generated from its layers.
  await pickExample(page, 6);
  await showView(page, 'li');
  await page.locator(ID('li-throughput-max')).waitFor({ timeout: 60_000 });
  // The whole result, not the part computed so far.
  await page.waitForFunction(() => /W = 1 to 8,/.test(document.querySelector('[data-testid="li-subject"]')?.textContent || '') && !document.querySelector('[data-testid="li-pending"]'), null, { timeout: 60_000 });
  const best = numberIn(await text(page, 'li-throughput-max'));
  const bound = numberIn(await text(page, 'li-link-bound'));
  assert(best <= bound * 1.005 && best > 0.99 * bound, `${best} at the bound ${bound}`);
  assert(numberIn(await text(page, 'li-saturation')) < 8);
  await drawAllCharts(page);
  const chart = await page.locator(ID('li-chart-throughput')).textContent();
  assert.match(chart, /Cynthia's estimate/);
  assert.match(chart, /Lin et al.'s estimate/);
  // Lin et al.'s model reads the uplink's spread over the backward pass as
  // its service time: at batch 32 it saturates far below the simulation.
  const linNote = await page.locator('.note', { hasText: "Lin et al.'s queueing estimate" }).first().textContent();
  const uplinkPhase = numberIn(linNote.match(/uplink ([\d.,]+) ms/)?.[1] || '');
  assert(uplinkPhase > 500 && uplinkPhase < 5000, `uplink phase ${uplinkPhase} ms in: ${linNote}`);
  const linRow = await page.locator(`${ID('li-table-throughput')} tbody tr`).last().locator('td').nth(5).textContent();
  assert(numberIn(linRow) < best / 2, `Lin et al. at W = 8: ${linRow} vs ${best}`);
  assert.match(chart, /least of seeds/);
  assert.match(chart, /link bound/);
  assert((await page.locator(`${ID('li-chart-timeline')} .barlayer .trace`).count()) >= 4, 'downlink, compute, uplink, PS update');
  // Five legend entries fill the first row: the mode bar gets a row of
  // its own above them.
  assert.equal(JSON.stringify(await underModeBar(page.locator(ID('li-chart-throughput')))), '[]', 'legend entries under the mode bar');
  await ctx.screenshot(page, 'li');

  // On a phone the saturation and link-bound labels do not run into each
  // other (the bound's label takes the top right, the saturation's the
  // bottom).
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForFunction(() => {
    const c = document.querySelector('[data-testid="li-chart-throughput"] .main-svg');
    return c && c.getBoundingClientRect().width < 390;
  });
  await chartDrawn(page.locator(ID('li-chart-throughput')));
  const labels = await page.evaluate(() => [...document.querySelectorAll('[data-testid="li-chart-throughput"] .annotation')]
    .map((a) => ({ text: a.textContent, ...a.getBoundingClientRect().toJSON() })));
  assert.equal(labels.length, 2, JSON.stringify(labels));
  const [a, b] = labels;
  const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
  assert(apart, `labels overlap at 390 px: ${JSON.stringify(labels)}`);
  assert.equal(JSON.stringify(await underModeBar(page.locator(ID('li-chart-throughput')))), '[]', 'legend entries under the mode bar at 390 px');
  await page.setViewportSize({ width: 1280, height: 800 });

  // The synthetic trace downloads as Chrome Trace Event JSON for Perfetto.
  const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(ID('li-download-perfetto')).click()]);
  assert.match(dl.suggestedFilename(), /^li-trace-2-workers\.json$/);
  const trace = JSON.parse(fs.readFileSync(await dl.path(), 'utf8'));
  const slices = trace.traceEvents.filter((e) => e.ph === 'X');
  assert(slices.length > 100, `${slices.length} slices`);
  assert(slices.every((e) => e.ts >= 0 && e.dur >= 0 && e.pid >= 1 && e.tid >= 1));
  assert.equal([...new Set(slices.map((e) => e.pid))].sort().join(','), '1,2');
  assert(trace.traceEvents.some((e) => e.ph === 'M' && e.name === 'thread_name' && e.args.name === 'downlink PS1'));

  // More workers: the curve grows on the page as each W is done, marked
  // as still computing, until the whole result replaces it.
  await setField(page, 'li-max-workers', '14');
  await showView(page, 'li');
  await page.waitForFunction(() => /computing… \d+ of 14 parts done/.test(document.querySelector('[data-testid="li-pending"]')?.textContent || ''), null, { timeout: 30_000 });
  await page.waitForFunction(() => /W = 1 to 14,/.test(document.querySelector('[data-testid="li-subject"]')?.textContent || '') && !document.querySelector('[data-testid="li-pending"]'), null, { timeout: 60_000 });
  // The W were shared out over a pool of workers, one per core but the
  // page's, beside the model worker that assembles them.
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  if (cores >= 2) assert(page.workers().length >= 1 + Math.min(Math.max(cores - 1, 1), 8), `${page.workers().length} workers for ${cores} cores`);
  const at14 = await text(page, 'li-throughput-max');

  // A long sweep is cancelled while the pool computes it; the next edit
  // computes again on fresh workers, to the same figures.
  await setField(page, 'li-max-workers', '30');
  await showView(page, 'li');
  await page.waitForFunction(() => /computing… \d+ of 30 parts done/.test(document.querySelector('[data-testid="li-pending"]')?.textContent || ''), null, { timeout: 30_000 });
  const closed = [];
  for (const w of page.workers()) w.on('close', () => closed.push(w.url()));
  assert(await page.evaluate(() => {
    const b = document.querySelector('[data-testid="cancel"]');
    if (b) b.click();
    return Boolean(b);
  }), 'Cancel was on the page while the pool computed');
  await page.locator(ID('li-cancelled')).waitFor();
  for (let i = 0; i < 50 && closed.length < 2; i++) await page.waitForTimeout(100);
  assert(closed.length >= 2, `the model worker and the busy pool workers stop (${closed.length} closed)`);
  await setField(page, 'li-max-workers', '14');
  await page.waitForFunction(() => /W = 1 to 14,/.test(document.querySelector('[data-testid="li-subject"]')?.textContent || '') && !document.querySelector('[data-testid="li-pending"]') && !document.querySelector('[data-testid="li-cancelled"]'), null, { timeout: 60_000 });
  assert.equal(await text(page, 'li-throughput-max'), at14, 'the same figures after a cancel');

  // A profile whose ops wait for each other in a circle: named, kept out.
  await showInputs(page, 'models');
  const cyclic = {
    name: 'loop', batch: 8,
    ops: [
      { name: 'recv w', resource: 'downlink', deps: [2] },
      { name: 'step', resource: 'worker', deps: [0] },
      { name: 'send g', resource: 'uplink', deps: [1] },
    ],
    steps: [[1e6, 0.01, 1e6]],
  };
  await page.locator(ID('li-profile-upload')).setInputFiles({ name: 'loop.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(cyclic)) });
  await page.locator(ID('li-profile-error')).waitFor();
  assert.match(await text(page, 'li-profile-error'), /loop\.json: the ops wait for each other in a cycle: 'recv w' → 'step' → 'send g'|cycle/);
  assert.match(await text(page, 'li-source'), /generated from the layer table/);

  // Flow control off: a new simulation, the figures follow.
  const before = await text(page, 'li-one-worker');
  await page.locator(ID('li-flow-control')).uncheck();
  await page.locator(ID('li-order')).selectOption('reverse');
  assert.equal(await page.locator(ID('li-ordered-streams')).inputValue(), 'downlinks');
  await setField(page, 'li-max-workers', '4');
  await showView(page, 'li');
  await page.waitForFunction(() => /W = 1 to 4/.test(document.querySelector('[data-testid="li-subject"]')?.textContent || ''), null, { timeout: 60_000 });
  const all = page.locator(`${ID('results-li')} details`, { hasText: 'All figures' }).first();
  if (!(await all.evaluate((d) => d.open))) await all.locator('summary').click();
  assert.match(await page.locator(ID('li-figures')).textContent(), /flow control off, whole streams: downlinks in reverse order, the others first come, first served/);
  assert.ok((await text(page, 'li-one-worker')).length > 0 && before.length > 0);

  // α and β fitted from measured pairs: the fields take the line's slope
  // and intercept; pairs that fall with size are refused, the fit stays.
  await showInputs(page, 'models');
  const fitBox = page.locator(ID('li-parse-fit-box'));
  await fitBox.locator('summary').click();
  await page.locator(ID('li-parse-pairs')).fill('bytes, seconds\n1000000, 0.003\n4000000, 0.009\n8000000, 0.017');
  await page.locator(ID('li-parse-pairs')).dispatchEvent('change');
  await page.locator(ID('li-parse-fit')).click();
  assert.match(await text(page, 'li-parse-note'), /α = 2(\.0+)? ns\/B, β = 1(\.0+)? ms from 3 pairs \(R² = 1\.0000\)/);
  const near = async (id, want) => {
    const v = Number(await page.locator(ID(id)).inputValue());
    assert.ok(Math.abs(v - want) < 1e-9, `${id} shows ${v}, not ${want}`);
  };
  await near('li-alpha', 2);
  await near('li-beta', 1);
  await page.locator(ID('li-parse-pairs')).fill('1000, 0.005\n2000000, 0.001');
  await page.locator(ID('li-parse-pairs')).dispatchEvent('change');
  await page.locator(ID('li-parse-fit')).click();
  assert.match(await text(page, 'li-parse-error'), /falls as the size grows/);
  await near('li-alpha', 2);
  await showView(page, 'li');
  await page.waitForFunction(() => /W = 1 to 4/.test(document.querySelector('[data-testid="li-subject"]')?.textContent || '') && !document.querySelector('[data-testid="li-pending"]'), null, { timeout: 60_000 });

  // A shared link reproduces the figures.
  const head = await text(page, 'li-headline');
  await page.waitForTimeout(400);
  const again = await ctx.newPage();
  await again.goto(page.url());
  await showView(again, 'li');
  await again.locator(ID('li-throughput-max')).waitFor({ timeout: 60_000 });
  await again.waitForFunction((h) => document.querySelector('[data-testid="li-headline"]')?.textContent === h, head, { timeout: 60_000 });
  await again.close();
});
