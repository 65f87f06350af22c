import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ID, open, chartText, numberIn, waitIteration, showInputs, showView } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'layer-table and Paleo uploads work; bad files are refused at the import';

const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../public/examples');

async function upload(page, name, buffer, mimeType = 'text/plain') {
  await page.locator('details.import summary').click();
  await page.locator(ID('layer-upload')).setInputFiles({ name, mimeType, buffer });
}

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);

  // The shipped TSV: 5 layers.
  await upload(page, 'small-net.tsv', fs.readFileSync(path.join(EXAMPLES, 'small-net.tsv')));
  await page.locator(ID('import-note')).waitFor();
  assert.match(await page.locator(ID('import-note')).textContent(), /5 layers imported/);
  assert.equal(await page.locator(`${ID('layer-table')} tbody tr`).count(), 5);

  // A CSV whose layer name is markup: shown as text.
  const csv = 'name,kind,inch,kh,kw,outn,outh,outw\n<b>x</b>,conv,3,3,3,8,32,32\nfc,fc,8192,1,1,10,1,1\n';
  await page.locator(ID('layer-upload')).setInputFiles({ name: 'tiny.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="layer-table"] tbody tr').length === 2);
  const first = page.locator(`${ID('layer-table')} tbody tr td`).first();
  assert.equal(await first.textContent(), '<b>x</b>');
  assert.equal(await page.locator(`${ID('layer-table')} b`).count(), 0, 'no <b> element from a file');
  // Eq. 4: 2·3·3·3·8·32·32 + 2·8192·10 = 606,208 FLOP per sample.
  assert.equal(numberIn(await page.locator(ID('forward-flop')).textContent()), 606208);

  // Paleo AlexNet: conv/fc counted, the rest listed as ignored.
  await page.locator(ID('layer-upload')).setInputFiles({
    name: 'alexnet.paleo.json',
    mimeType: 'application/json',
    buffer: fs.readFileSync(path.join(EXAMPLES, 'alexnet.paleo.json')),
  });
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="layer-table"] tbody tr').length === 8);
  assert.equal((await page.locator(ID('forward-flop')).textContent()).trim(), '1.678e9');
  assert.match(await page.locator(ID('import-note')).textContent(), /Paleo network/);
  const ignored = await page.locator(ID('ignored-layers')).textContent();
  assert.match(ignored, /not counted by Eq\. 4/);
  assert.match(ignored, /pool/i);

  // Malformed and oversized files: a message at the import, table unchanged.
  const bad = 'name,kind,inch,kh,kw,outn,outh,outw\nconv1,lstm,3,3,3,8,32,32\n';
  await page.locator(ID('layer-upload')).setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from(bad) });
  await page.locator(ID('import-error')).waitFor();
  assert.match(await page.locator(ID('import-error')).textContent(), /bad\.csv: .*line 2.*lstm/);
  assert.equal(await page.locator(`${ID('layer-table')} tbody tr`).count(), 8, 'last good table kept');

  // A 50 MB file (playwright passes files this large by path).
  const hugePath = path.join(os.tmpdir(), `ddnn-e2e-huge-${process.pid}.csv`);
  fs.writeFileSync(hugePath, Buffer.alloc(50 * 1024 * 1024, 0x41));
  try {
    await page.locator(ID('layer-upload')).setInputFiles(hugePath);
  } finally {
    fs.rmSync(hugePath, { force: true });
  }
  await page.waitForFunction(() => /ddnn-e2e-huge-\d+\.csv: .*larger than/.test(document.querySelector('[data-testid="import-error"]')?.textContent || ''));

  await page.locator(ID('layer-upload')).setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"layers": {"data": ') });
  await page.waitForFunction(() => /broken\.json/.test(document.querySelector('[data-testid="import-error"]')?.textContent || ''));

  // A device named with markup is drawn literally in the timeline.
  await showInputs(page, 'catalog');
  const nameInput = page.locator(ID('device-name')).nth(2);
  await nameInput.fill('<b>x</b>');
  await nameInput.dispatchEvent('change');
  await waitIteration(page, (t) => t > 0, 'positive');
  // Charts redraw when on screen: bring the timeline back into view.
  await showView(page, 'zeng');
  await page.locator(ID('zeng-chart-timeline')).scrollIntoViewIfNeeded();
  await page.waitForFunction(() => (document.querySelector('[data-testid="zeng-chart-timeline"]')?.textContent || '').includes('<b>x</b> #1'));
  assert((await chartText(page, 'zeng-chart-timeline')).includes('<b>x</b> #2'));
});
