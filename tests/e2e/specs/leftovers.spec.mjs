import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ID, open, pickExample, setField, showInputs } from '../planner.mjs';
import { test } from '../fixtures.mjs';

// Issue 33, items 7 and 8: picking an example leaves nothing of the old
// scenario behind (a field's unreadable text and its message, even where
// the example has the same value; the last upload's message), and the ASP
// loss fit asks for the worker count of the measured run instead of taking
// the planned cluster's.

const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../public/examples');

// The messages shown in the label of the field `testid`.
const fieldErrors = (page, testid) => page.locator(`label:has(${ID(testid)}) ${ID('field-error')}`);

test('picking an example clears a field’s unreadable text and its message, also where the example has the same value', async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  // Examples 0 and 1 (VGG-16 and ResNet-50 on the same GPUs) share Zeng's
  // 85 FLOP per weight and 16 workers in the scaling charts.
  await pickExample(page, 0);
  await setField(page, 'flops-per-weight', 'abc');
  await setField(page, 'sweep-max-workers', '1,5');
  await fieldErrors(page, 'flops-per-weight').waitFor();
  assert.match(await fieldErrors(page, 'flops-per-weight').textContent(), /'abc' is not a number/);
  await fieldErrors(page, 'sweep-max-workers').waitFor();

  await pickExample(page, 1);
  await page.waitForFunction(() => document.querySelector('[data-testid="flops-per-weight"]')?.value === '85', null, { timeout: 5000 }).catch(() => {});
  assert.equal(await page.locator(ID('flops-per-weight')).inputValue(), '85', 'the example’s value replaces the unreadable text');
  assert.equal(await page.locator(ID('sweep-max-workers')).inputValue(), '16', 'the example’s value replaces the unreadable text');
  assert.equal(await fieldErrors(page, 'flops-per-weight').count(), 0, 'no message left at the field');
  assert.equal(await fieldErrors(page, 'sweep-max-workers').count(), 0, 'no message left at the field');
  assert.equal(await page.locator(`label:has(${ID('flops-per-weight')})`).getAttribute('class'), 'field');
});

test('picking an example clears the last upload’s message', async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  await pickExample(page, 0);
  await showInputs(page, 'workload');
  await page.locator(ID('layer-upload')).setInputFiles({
    name: 'small-net.tsv',
    mimeType: 'text/plain',
    buffer: fs.readFileSync(path.join(EXAMPLES, 'small-net.tsv')),
  });
  await page.locator(ID('import-note')).waitFor();
  assert.match(await page.locator(ID('import-note')).textContent(), /small-net\.tsv.*5 layers imported/);

  await pickExample(page, 1);
  await page.locator(ID('import-note')).waitFor({ state: 'detached', timeout: 5000 }).catch(() => {});
  assert.equal(await page.locator(ID('import-note')).count(), 0, 'the upload’s message is about the old scenario');

  // A failed upload's message goes too (input tabs build their panels when
  // shown: each check stays on its tab).
  await page.locator(ID('layer-upload')).setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('name,kind\nx,lstm\n') });
  await page.locator(ID('import-error')).waitFor();
  await pickExample(page, 2);
  await page.locator(ID('import-error')).waitFor({ state: 'detached', timeout: 5000 }).catch(() => {});
  assert.equal(await page.locator(ID('import-error')).count(), 0, 'the failed upload’s message is about the old scenario');

  // And Cynthia's fit note, though the example is the same one again.
  await showInputs(page, 'models');
  await page.locator(ID('loss-upload')).setInputFiles({
    name: 'loss.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('iteration,loss\n0,2\n1000,1\n3000,0.5\n7000,0.25\n'),
  });
  await page.locator(ID('cynthia-note')).waitFor();
  await pickExample(page, 2);
  await page.locator(ID('cynthia-note')).waitFor({ state: 'detached', timeout: 5000 }).catch(() => {});
  assert.equal(await page.locator(ID('cynthia-note')).count(), 0, 'the fit note is about the old scenario');
});

test('the ASP loss fit asks for the worker count of the measured run and fits with it', async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  // cifar10 on 8 m4.xlarge dockers: the planned cluster has 8 workers.
  await pickExample(page, 2);
  await showInputs(page, 'models');
  await page.locator(ID('sync')).selectOption('asp');
  await page.locator(ID('fit-workers')).waitFor();
  assert.equal(await page.locator(ID('fit-workers')).inputValue(), '', 'no count is guessed (not the cluster’s 8)');
  const before = await page.locator(ID('beta0')).inputValue();

  // Hand-worked: 1/loss = (s + 1000)/2000, so β0·√n = 2000 and β1 = 1000;
  // measured on 2 workers, β0 = 2000/√2 = 1414.21 (with the cluster's 8 it
  // would be 2000/√8 = 707.107).
  const curve = {
    name: 'asp-2-workers.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('iteration,loss\n0,2\n1000,1\n3000,0.5\n7000,0.25\n'),
  };
  await page.locator(ID('loss-upload')).setInputFiles(curve);
  await fieldErrors(page, 'fit-workers').waitFor({ timeout: 5000 });
  assert.match(await fieldErrors(page, 'fit-workers').textContent(), /enter the number of workers the loss curve was measured with/);
  await page.waitForTimeout(300);
  assert.equal(await page.locator(ID('beta0')).inputValue(), before, 'nothing is fitted without the count');
  assert.equal(await page.locator(ID('cynthia-note')).count(), 0);

  await setField(page, 'fit-workers', '2');
  assert.equal(await fieldErrors(page, 'fit-workers').count(), 0, 'the message goes once the count is typed');
  await page.locator(ID('loss-upload')).setInputFiles(curve);
  await page.locator(ID('cynthia-note')).waitFor();
  const note = await page.locator(ID('cynthia-note')).textContent();
  assert.match(note, /asp-2-workers\.csv: fitted β0 = 1414, β1 = 1000(\.0)? from 4 points, R² = 1\.0000 for an ASP run of 2 workers/, note);
  assert.equal(await page.locator(ID('beta0')).inputValue(), '1414.21');
  assert.equal(await page.locator(ID('beta1')).inputValue(), '1000');
  assert.equal(await page.locator(ID('fit-workers')).inputValue(), '2');

  // Another count refits the same curve: √(2/8) of it.
  await setField(page, 'fit-workers', '8');
  await page.waitForFunction(() => document.querySelector('[data-testid="beta0"]')?.value === '707.107', null, { timeout: 5000 }).catch(() => {});
  assert.equal(await page.locator(ID('beta0')).inputValue(), '707.107');
  assert.match(await page.locator(ID('cynthia-note')).textContent(), /refitted for n = 8: β0 = 707\.1/);

  // BSP does not need it: the field goes, and a BSP fit takes no count.
  await page.locator(ID('sync')).selectOption('bsp');
  await page.locator(ID('fit-workers')).waitFor({ state: 'detached' });
  await page.locator(ID('loss-upload')).setInputFiles({ ...curve, name: 'bsp.csv' });
  await page.waitForFunction(() => /^bsp\.csv: fitted β0 = 2000/.test(document.querySelector('[data-testid="cynthia-note"]')?.textContent || ''));
  assert.equal(await page.locator(ID('beta0')).inputValue(), '2000');
});
