// Page object for the ddnn-planner page: lookups by data-testid and the
// numbers the specs compare. Not a spec (no .spec.mjs suffix).

export const ID = (id) => `[data-testid="${id}"]`;

/** Reads "<number> <unit>" text as a number. */
export function numberIn(text) {
  const m = String(text).match(/-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?/i);
  return m ? Number(m[0].replace(/,/g, '')) : NaN;
}

/** Opens the page (optionally with a query/fragment) and waits for a result. */
export async function open(ctx, suffix = '', opts = {}, before = null) {
  const page = await ctx.newPage(opts);
  // Before the page loads (init scripts, staged files).
  if (before) await before(page);
  await page.goto(ctx.baseUrl + suffix, { waitUntil: 'load' });
  await page.locator(ID('zeng-iteration-time')).first().waitFor({ state: 'visible', timeout: 30_000 });
  return page;
}

/** The headline iteration time in seconds. */
export async function iterationSeconds(page) {
  return numberIn(await page.locator(ID('zeng-iteration-time')).first().textContent());
}

/** Waits until every model has answered the latest edit: an edit raises
 *  the page's revision at once, and a result section is `aria-busy` until
 *  its model answers that revision. Two frames first, so the edit's
 *  reactive update has marked the sections. */
export async function settled(page) {
  // (waitForFunction takes a returned promise as a truthy answer: wait first.)
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await page.waitForFunction(() => !document.querySelector('.model-results[aria-busy="true"]'), null, { timeout: 15_000 });
}

/** Waits until the headline shows a value that satisfies `pred`. */
export async function waitIteration(page, pred, what) {
  const deadline = Date.now() + 10_000;
  let last;
  while (Date.now() < deadline) {
    last = await iterationSeconds(page);
    if (pred(last)) return last;
    await page.waitForTimeout(50);
  }
  throw new Error(`iteration time never became ${what}; last ${last}`);
}

/** The input section each field the specs type into lives in (the page
 *  shows one section at a time, like a user the specs open it first). */
const INPUT_TAB = [
  [/^(bandwidth-gbps|latency|ps-|group-)/, 'cluster'],
  [/^(device-|calibrate|catalog-|add-aws|add-current|precision)/, 'catalog'],
  [/^(beta\d|c-prof|goal-|max-workers|profile-|loss-|fit-workers|epoch-samples|flops-per-weight|sweep-max-workers|sync|pricing|spotdnn-|stash-|li-)/, 'models'],
  [/^(layer-|forward-flop|network-|ignored-layers|weights)/, 'workload'],
  [/^(run-|runs-)/, 'runs'],
];

/** The input sections, in the page's order. */
export const INPUT_TABS = ['workload', 'cluster', 'catalog', 'models', 'runs'];

/** The shipped examples as `pickExample` takes them (-1: the landing one). */
export const EXAMPLES = [-1, 1, 2, 3, 4, 5, 6, 7];

/** Every example × every input section: loads the example, opens the
 *  section, lets long lists build, then `await fn(example, tab)`. */
export async function eachInputSection(page, fn) {
  for (const example of EXAMPLES) {
    if (example >= 0) await pickExample(page, example);
    for (const tab of INPUT_TABS) {
      await showInputs(page, tab);
      await page.waitForTimeout(150); // long lists build over a few frames
      await fn(example, tab);
    }
  }
}

/** Opens the input section `tab` (workload, cluster, catalog, models, runs) and
 *  waits until its panels are built (the models' take a few frames). */
export async function showInputs(page, tab) {
  const t = page.locator(ID(`inputs-${tab}`));
  if ((await t.getAttribute('aria-selected')) !== 'true') await t.click();
  await page.waitForFunction(() => !document.querySelector('.inputs .panels[aria-busy="true"]'));
}

/** Loads shipped example `i` from the Examples menu. */
export async function pickExample(page, i) {
  await page.locator(ID('examples')).locator('summary').click();
  await page.locator(ID(`example-${i}`)).click();
}

/** Opens the results view `view` (overview or a model id). */
export async function showView(page, view) {
  const t = page.locator(ID(`view-${view}`));
  if ((await t.getAttribute('aria-selected')) !== 'true') await t.click();
}

/** Opens the input section that holds field `testid`, if it is not shown. */
export async function reveal(page, testid) {
  if (await page.locator(ID(testid)).count()) return;
  const hit = INPUT_TAB.find(([re]) => re.test(testid));
  if (hit) await showInputs(page, hit[1]);
}

/** Types into a NumberField (select all, type, let the input event fire). */
export async function setField(page, testid, text) {
  await reveal(page, testid);
  const input = page.locator(ID(testid)).first();
  await input.fill(text);
}

/** Number of bars (points) plotly drew in a chart. */
export async function chartPoints(page, testid) {
  return page.locator(`${ID(testid)} .point`).count();
}

/** The text of a chart's SVG (axis labels, titles, legends). */
export async function chartText(page, testid) {
  return page.locator(ID(testid)).first().evaluate((el) => el.textContent || '');
}

export const within = (got, want, rel) => Math.abs(got - want) <= Math.abs(want) * rel;

/** A chart draws in several tasks, `aria-busy` meanwhile, and again at a
 *  new width: waits until the chart `locator` (a `.chart` element) has a
 *  finished drawing as wide as its box. */
export async function chartDrawn(locator) {
  await locator.locator('.main-svg').first().waitFor();
  await locator.evaluate((el) => new Promise((done) => {
    const check = () => {
      const svg = el.querySelector('.main-svg');
      const fits = !svg || el.clientWidth === 0 || Math.abs(svg.getBoundingClientRect().width - el.clientWidth) < 1;
      if (el.getAttribute('aria-busy') === 'true' || !fits) requestAnimationFrame(check);
      else done();
    };
    check();
  }));
}

/** The legend entries of the chart `locator` that plotly's mode bar (shown
 *  on hover or tap, at the top right) would cover, as text; null with no
 *  mode bar drawn. */
export async function underModeBar(locator) {
  return locator.evaluate((el) => {
    const bar = el.querySelector('.modebar')?.getBoundingClientRect();
    if (!bar) return null;
    return [...el.querySelectorAll('.legend .traces')]
      .filter((t) => {
        const e = t.getBoundingClientRect();
        return !(e.right <= bar.left || bar.right <= e.left || e.bottom <= bar.top || bar.bottom <= e.top);
      })
      .map((t) => t.textContent);
  });
}

/** Charts draw only near the viewport: scroll each into view, wait for it,
 *  then return to the top (for full-page screenshots). */
export async function drawAllCharts(page) {
  const charts = page.locator('.chart');
  const n = await charts.count();
  for (let i = 0; i < n; i++) {
    await charts.nth(i).scrollIntoViewIfNeeded();
    await chartDrawn(charts.nth(i));
  }
  await page.evaluate(() => window.scrollTo(0, 0));
}

/** Adds a rule to Li et al.'s trace mapping screen: events matching
 *  `pattern` go to `target` (the rule's change re-reads the trace). */
export async function addTraceRule(page, pattern, target) {
  const mapping = page.locator(ID('li-trace-mapping'));
  if (!(await mapping.evaluate((d) => d.open))) await mapping.locator('summary').click();
  await page.locator(ID('li-trace-add')).click();
  const last = page.locator(ID('li-trace-pattern')).last();
  await last.fill(pattern);
  await last.dispatchEvent('change');
  await page.locator(ID('li-trace-target')).last().selectOption(target);
}
