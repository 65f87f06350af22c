import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { ID, open, showView, drawAllCharts } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'hostile names: markup in a title, device and group names is shown literally on the page, in plotly labels, hover text, a chart\'s table and the exported SVG, never run; a name that starts like a formula is neutralised in the results CSV';

const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'public', 'examples');

// Each payload would set window.__xss if it ever ran as markup or script.
const QUADRO = '<img src=x onerror="window.__xss=1"><b>Quadro</b> ‏עברית';
const GTX = '=HYPERLINK("http://example.invalid","<script>window.__xss=2</script>")';
const TITLE = '<a href="javascript:window.__xss=3">click</a> <script>window.__xss=4</script>';

async function download(page, testid) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(ID(testid)).click()]);
  return fs.readFileSync(await dl.path(), 'utf8');
}

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const doc = JSON.parse(fs.readFileSync(path.join(EXAMPLES, 'vgg16-hetero-1gbe.json'), 'utf8'));
  const rename = { 'Quadro RTX 4000': QUADRO, 'GeForce GTX 1060 6GB': GTX };
  for (const c of doc.hardware.catalog) c.name = rename[c.name] || c.name;
  for (const g of doc.hardware.cluster.workers) g.instance = rename[g.instance] || g.instance;
  doc.title = TITLE;
  const frag = `s1.${zlib.deflateRawSync(Buffer.from(JSON.stringify(doc))).toString('base64url')}`;
  const page = await open(ctx, `#${frag}`);
  await drawAllCharts(page);
  await showView(page, 'zeng');
  await drawAllCharts(page);

  // Nothing ran, and no element came out of a name.
  const found = await page.evaluate(() => ({
    xss: window.__xss,
    imgs: document.querySelectorAll('img[src="x"]').length,
    bold: [...document.querySelectorAll('b')].filter((b) => b.textContent === 'Quadro').length,
    links: document.querySelectorAll('a[href^="javascript:"]').length,
    scripts: [...document.querySelectorAll('script')].filter((s) => s.textContent.includes('__xss')).length,
    text: document.body.innerText,
    title: document.title,
    titleField: document.querySelector('[data-testid="title"]')?.value,
    svgText: [...document.querySelectorAll('.main-svg text')].map((t) => t.textContent).join('\n'),
  }));
  assert.equal(found.xss, undefined, 'a payload ran');
  assert.equal(found.imgs + found.bold + found.links + found.scripts, 0, JSON.stringify({ ...found, text: '', svgText: '' }));
  // Shown as written: the title, the device names, in the page and in the
  // charts' own text (plotly reads a few tags as markup unless escaped).
  assert(found.text.includes('<b>Quadro</b>'), 'the device name is shown literally on the page');
  assert(found.title.includes('<script>window.__xss=4</script>'), `the tab's title shows it literally: ${found.title}`);
  assert.equal(found.titleField, TITLE, 'the title field holds it as typed');
  assert(found.svgText.includes('<b>Quadro</b>'), `plotly shows the name literally:\n${found.svgText.slice(0, 400)}`);
  assert(found.svgText.includes('עברית'), 'right-to-left text survives');

  // Hover text: a bar of the device's row says its name literally.
  const bars = page.locator(`${ID('zeng-chart-timeline')} .point`);
  let hover = '';
  for (let i = 0; i < (await bars.count()) && !hover.includes('Quadro'); i++) {
    await bars.nth(i).hover({ force: true });
    await page.waitForTimeout(100);
    hover = await page.locator(`${ID('zeng-chart-timeline')} .hoverlayer`).textContent();
  }
  assert(hover.includes('<b>Quadro</b>'), `the hover text shows the name literally: ${hover.slice(0, 200)}`);
  assert.equal(await page.locator(`${ID('zeng-chart-timeline')} .hoverlayer b`).count(), 0, 'no element in the hover text');

  // The chart's table shows it as text too.
  await page.locator(`figure:has(${ID('zeng-chart-timeline')}) + details.chart-table summary`).click();
  const table = page.locator(ID('zeng-chart-timeline-table'));
  await table.waitFor();
  assert((await table.textContent()).includes('<b>Quadro</b>'), 'the chart table shows the name literally');
  assert.equal(await table.locator('b, img, a, script').count(), 0, 'no element in the chart table');
  assert.equal(await page.evaluate(() => window.__xss), undefined, 'a payload ran');

  // The exported SVG carries the names as text, escaped.
  const svg = await download(page, 'zeng-chart-timeline-svg');
  assert(/(&lt;|&#60;)b(&gt;|&#62;)Quadro/.test(svg), 'the SVG carries the name as escaped text');
  assert(!/<(img|script|b|a)[\s>]/i.test(svg), 'no element from a name in the SVG');

  // The results CSV: a cell that starts like a formula gets a leading quote.
  const csv = await download(page, 'export-csv');
  assert(csv.includes("'=HYPERLINK("), 'the formula-like name is neutralised');
  assert(!/(^|,|")=HYPERLINK/m.test(csv.replaceAll("'=HYPERLINK", '')), 'no cell starts with =HYPERLINK');
});
