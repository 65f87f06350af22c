import fs from 'node:fs';
import { ID, open, iterationSeconds, waitIteration, within, showView } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'scenario JSON export/import, results CSV and chart SVG downloads';

async function download(page, testid) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(ID(testid)).click()]);
  const file = await dl.path();
  return { name: dl.suggestedFilename(), text: fs.readFileSync(file, 'utf8'), bytes: fs.readFileSync(file) };
}

async function importJson(page, name, text) {
  await page.locator(ID('import-json')).setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
}

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  const t = await iterationSeconds(page);

  const json = await download(page, 'export-json');
  assert.match(json.name, /\.scenario\.json$/);
  const doc = JSON.parse(json.text);
  assert.equal(doc.version, 2);
  assert.equal(doc.hardware.cluster.workers.length, 2);

  const csv = await download(page, 'export-csv');
  assert.match(csv.name, /\.results\.csv$/);
  assert(csv.text.startsWith('model,section,key,quantity,value,unit'), csv.text.slice(0, 80));
  const row = csv.text.split('\n').find((l) => l.startsWith('zeng,headline,iteration-time,'));
  // The quantity is quoted (it has a comma); the value is full precision, in seconds.
  const value = Number((row || '').match(/",([^,]+),s\r?$/)?.[1]);
  assert(within(value, t, 1e-3), `CSV row ${row} vs screen ${t}`);
  assert(csv.text.includes('zeng,timeline,Quadro RTX 4000 #1,push,'), 'timeline section');
  assert(csv.text.includes('model,table,worker,segment,start [s],end [s]'), 'units in the table header');

  const results = await download(page, 'export-results-json');
  assert.match(results.name, /\.results\.json$/);
  const reports = JSON.parse(results.text);
  assert.equal(reports[0].model, 'zeng');
  assert.equal(reports[0].headline[0].value.value, Number(row.match(/",([^,]+),s\r?$/)[1]), 'JSON and CSV agree');

  await showView(page, 'zeng');
  const svg = await download(page, 'zeng-chart-timeline-svg');
  // Named after the scenario and the chart, never plotly's "newplot".
  assert.match(svg.name, /^vgg-16-.+-ddnn-zeng-timeline\.svg$/, svg.name);
  const png = await download(page, 'zeng-chart-timeline-png');
  assert.match(png.name, /-ddnn-zeng-timeline\.png$/);
  assert.equal(png.bytes.readUInt32BE(16), 2000, 'PNG at twice the 1,000 px drawing');
  assert(svg.text.includes('<svg') && svg.text.includes('time since iteration start [s]'), 'timeline SVG');
  // A file has no HTML caption: it keeps the chart's title, drawn.
  const caption = (await page.locator(ID('zeng-chart-timeline-title')).textContent()).trim();
  assert.match(caption, /^One iteration: /, caption);
  assert(svg.text.includes('class="gtitle"') && svg.text.includes(caption.slice(0, 20)), 'the SVG has the title');

  // Import the exported document with a 10 GbE link: Table 7's 2.94 s.
  doc.hardware.cluster.ps.link_bytes_per_s = 1.25e9;
  await importJson(page, 'edited.json', JSON.stringify(doc));
  const t10 = await waitIteration(page, (x) => x < 5, 'below 5 s');
  assert(within(t10, 2.94, 0.02), `imported 10 GbE: ${t10}`);

  // Broken and future documents: a banner naming the file, scenario kept.
  await importJson(page, 'broken.json', '{"version": 1, "workload": ');
  await page.locator(ID('scenario-error')).waitFor();
  assert.match(await page.locator(ID('scenario-error')).textContent(), /broken\.json: .*current scenario is kept/);
  assert.equal(await iterationSeconds(page), t10);
  doc.version = 99;
  await importJson(page, 'future.json', JSON.stringify(doc));
  await page.waitForFunction(() => /future\.json: .*newer ddnn-planner/.test(document.querySelector('[data-testid="scenario-error"]')?.textContent || ''));
  assert.equal(await iterationSeconds(page), t10);
});
