import { INPUT_TABS, ID, open, pickExample, setField, showInputs, showView, numberIn, chartDrawn, drawAllCharts, underModeBar } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'layout: the overview shows timeline beside cost curves on one screen; views are in the address; phones get results first, no sideways scroll and chart titles that fit; the title follows the inputs; dark theme';

const box = (page, id) => page.locator(ID(id)).first().boundingBox();

test(name, async ({ ctx }) => {
  const { assert, log } = ctx;
  const page = await open(ctx);
  await page.setViewportSize({ width: 1280, height: 800 });

  // The overview is the first view; the headline is on the first screen.
  assert.equal(await page.locator(ID('view-overview')).getAttribute('aria-selected'), 'true');
  const kpi = await box(page, 'zeng-iteration-time');
  assert(kpi && kpi.y + kpi.height < 800, `headline on the first screen (${JSON.stringify(kpi)})`);
  // Without prices or a Cynthia profile the cost place says what brings it.
  assert.match(await page.locator(ID('overview-missing-cost')).textContent(), /prices/);

  // The cifar10 example has prices and a profile: timeline beside the cost
  // curves, both starting on the first screen at 1280×800, no scrolling.
  await pickExample(page, 2);
  await chartDrawn(page.locator(ID('overview-chart-cost')));
  await chartDrawn(page.locator(ID('overview-chart-timeline')));
  const tl = await box(page, 'overview-chart-timeline');
  const cost = await box(page, 'overview-chart-cost');
  assert(Math.abs(tl.y - cost.y) < 2 && cost.x > tl.x + tl.width - 2, `side by side: ${JSON.stringify({ tl, cost })}`);
  assert(tl.y + tl.height <= 800 && cost.y + cost.height <= 800, `both whole on the first screen: ${tl.y + tl.height}, ${cost.y + cost.height}`);
  assert.equal(await page.evaluate(() => window.scrollY), 0);
  // Each headline names its model; one line says why their times differ.
  assert.match(await page.locator(ID('overview-zeng')).textContent(), /Zeng et al\./);
  assert.match(await page.locator(ID('overview-cynthia')).textContent(), /Cynthia/);
  assert.match(await page.locator(ID('overview-why')).textContent(), /Zeng et al\. queue .*Cynthia \(Eq\. 3\)/);

  // The view is part of the address: a reload (or a shared link) opens it.
  await showView(page, 'cynthia');
  await page.waitForFunction(() => location.hash.includes('&view=cynthia'));
  await page.reload({ waitUntil: 'load' });
  await page.locator(ID('cynthia-exact-plan')).waitFor();
  assert.equal(await page.locator(ID('view-cynthia')).getAttribute('aria-selected'), 'true', 'the view survives a reload');
  await page.locator(ID('share')).click();
  assert.match(await page.locator(ID('share-url')).inputValue(), /#s2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+&view=cynthia$/);
  await showView(page, 'overview');
  await page.waitForFunction(() => !location.hash.includes('&view='));

  // The title follows the inputs until the user types one.
  await setField(page, 'bandwidth-gbps', '10');
  await page.waitForFunction(() => /PS link 10 Gb\/s — ddnn-planner$/.test(document.title));
  await showInputs(page, 'workload');
  await page.locator(ID('title')).fill('my sizing run');
  await page.locator(ID('title')).dispatchEvent('change');
  await page.waitForFunction(() => document.title === 'my sizing run — ddnn-planner');
  await setField(page, 'bandwidth-gbps', '1');
  await page.waitForTimeout(300);
  assert.equal(await page.title(), 'my sizing run — ddnn-planner', 'a typed title stays');

  // A problem in a section that is not shown is counted on its tab.
  await setField(page, 'bandwidth-gbps', '0');
  await showInputs(page, 'workload');
  assert.equal(numberIn(await page.locator(`${ID('inputs-cluster')} .tab-errors`).textContent()), 1);
  await setField(page, 'bandwidth-gbps', '1');

  // A 400-digit value wraps; it never widens the page.
  await showInputs(page, 'workload');
  await page.locator(ID('title')).fill('9'.repeat(400));
  await page.locator(ID('title')).dispatchEvent('change');
  await page.waitForFunction(() => document.title.startsWith('9999'));
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 1280, 'no sideways scroll at 1280 px');
  await ctx.screenshot(page, 'overview');

  // A phone: results first, then the inputs; nothing wider than the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'no sideways scroll at 390 px');
  const order = await page.evaluate(() => {
    const top = (sel) => document.querySelector(sel).getBoundingClientRect().top;
    return { results: top('.outputs'), inputs: top('.inputs') };
  });
  assert(order.results < order.inputs, `results before inputs on a phone: ${JSON.stringify(order)}`);
  // Every chart's title is its HTML caption, which wraps (plotly would cut
  // a long one at both edges), and the legend has the rows it needs above
  // the plot, under the title.
  for (const view of ['overview', 'zeng']) {
    await showView(page, view);
    await drawAllCharts(page);
    const charts = await page.evaluate(() => [...document.querySelectorAll('.chart-wrap')].filter((f) => f.offsetParent).map((f) => {
      const box = (el) => el && el.getBoundingClientRect();
      const [t, svg, legend, plot] = [f.querySelector('.chart-title'), f.querySelector('.main-svg'), f.querySelector('.legend'), f.querySelector('.nsewdrag')].map(box);
      return {
        title: f.querySelector('.chart-title').textContent,
        fits: t.left >= 0 && t.right <= 390,
        cut: !!f.querySelector('.gtitle'),
        legend: !legend || (legend.top >= svg.top - 1 && legend.bottom <= plot.top + 2 && legend.top >= t.bottom - 1),
        // The x axis's title (its unit last) inside the drawing.
        xtitle: [f.querySelector('.g-xtitle')].filter((x) => x && x.textContent).map(box)
          .every((x) => x.left >= svg.left - 0.5 && x.right <= svg.right + 0.5 && x.bottom <= svg.bottom + 0.5),
      };
    }));
    assert(charts.length > 0, `charts on the ${view} view`);
    for (const c of charts) {
      assert(c.title.trim() && c.fits && !c.cut, `the title '${c.title}' is a caption that fits at 390 px (${view})`);
      assert(c.legend, `the legend of '${c.title}' sits above the plot, under its title (${view})`);
      assert(c.xtitle, `the x axis title of '${c.title}' fits at 390 px (${view})`);
    }
    // Plotly's mode bar, shown on a tap, covers no legend entry.
    const shown = page.locator('.chart:visible');
    for (let i = 0; i < await shown.count(); i++) {
      assert.equal(JSON.stringify(await underModeBar(shown.nth(i))), '[]', `legend entries under the mode bar at 390 px (${view}, chart ${i + 1})`);
    }
  }
  for (const tab of INPUT_TABS) {
    await showInputs(page, tab);
    const wide = await page.evaluate(() => [...document.querySelectorAll('.inputs input, .inputs select')]
      .filter((e) => e.getBoundingClientRect().right > 391).map((e) => e.dataset.testid || e.outerHTML.slice(0, 60)));
    assert.equal(wide.join(", "), "", `every field fits at 390 px (${tab})`);
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, `no sideways scroll (${tab})`);
  }
  await ctx.screenshot(page, 'mobile');

  // Dark theme from the system setting.
  const dark = await ctx.newPage();
  await dark.emulateMedia({ colorScheme: 'dark' });
  await dark.setViewportSize({ width: 1280, height: 800 });
  await dark.goto(ctx.baseUrl, { waitUntil: 'load' });
  await dark.locator(ID('zeng-iteration-time')).first().waitFor();
  const bg = await dark.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  const [r, g, b] = bg.match(/\d+/g).map(Number);
  assert(r + g + b < 150, `dark background (${bg})`);
  log(`dark theme background ${bg}`);
});
