// Issue 33, items 1 and 2: the page never loses work. The address, this
// browser's copy and history only hold valid scenarios, so a reload in the
// middle of an invalid edit opens the last valid one; a link whose fields
// fail validation opens with them marked, never as the example; and text
// that cannot be read as a number marks the results as from the last
// valid inputs, as an out-of-range number does, and counts on its tab.

import zlib from 'node:zlib';
import fs from 'node:fs';
import { ID, open, iterationSeconds, setField, showInputs, showView, waitIteration } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const b64url = (buf) => Buffer.from(buf).toString('base64url');

// A share fragment as the page writes it (src/scenario/codec.rs): raw
// deflate of the JSON, then the CRC-32 of the deflated bytes.
function fragmentOf(doc) {
  const packed = zlib.deflateRawSync(Buffer.from(JSON.stringify(doc)), { level: 9 });
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(zlib.crc32(packed) >>> 0);
  return `s2.${b64url(packed)}.${b64url(sum)}`;
}

test('a reload in the middle of an invalid edit opens the last valid scenario', async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  const t0 = await iterationSeconds(page);
  await showInputs(page, 'cluster');
  await setField(page, 'bandwidth-gbps', '7');
  const t7 = await waitIteration(page, (t) => t !== t0, 'changed by a 7 Gb/s link');
  await setField(page, 'bandwidth-gbps', '-7');
  await page.locator(ID('zeng-stale')).waitFor();
  // Longer than the address bar's pause after typing.
  await page.waitForTimeout(1500);
  await page.reload();
  await page.locator(ID('zeng-iteration-time')).first().waitFor();
  assert.equal(await iterationSeconds(page), t7, 'the last valid scenario (7 Gb/s) is back');
  assert.equal(await page.locator(ID('scenario-error')).count(), 0, 'no banner: the address held a valid link');
  await showInputs(page, 'cluster');
  assert.equal(await page.locator(ID('bandwidth-gbps')).inputValue(), '7');
});

test('a link whose field fails validation opens with that field marked, not the example', async ({ ctx }) => {
  const { assert } = ctx;
  const doc = JSON.parse(fs.readFileSync('public/examples/vgg16-hetero-1gbe.json', 'utf8'));
  doc.title = 'a shared plan with a bad link speed';
  doc.hardware.cluster.ps.link_bytes_per_s = -875000000;
  // Not `open`: with its link invalid, no model has a figure to wait for.
  const page = await ctx.newPage();
  await page.goto(`${ctx.baseUrl}#${fragmentOf(doc)}`, { waitUntil: 'load' });
  await page.locator(ID('scenario-error')).waitFor({ timeout: 30_000 });
  assert.match(await page.locator(ID('scenario-error')).textContent(), /1 invalid field \(marked in red\)/);
  await showInputs(page, 'cluster');
  assert.equal(await page.locator(ID('bandwidth-gbps')).inputValue(), '-7', 'the link’s own value, marked');
  assert.equal(await page.locator(ID('bandwidth-gbps')).getAttribute('aria-invalid'), 'true');
  assert.equal(await page.locator(`${ID('inputs-cluster')} .tab-errors`).textContent(), '1');
  // Fixed, it computes and the address bar takes the valid scenario.
  await setField(page, 'bandwidth-gbps', '7');
  await page.locator(ID('zeng-iteration-time')).first().waitFor();
  assert.equal(await page.locator(ID('zeng-stale')).count(), 0);
});

test('text that cannot be read as a number marks every result and counts on its tab', async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  await showInputs(page, 'cluster');
  const t0 = await iterationSeconds(page);
  const cases = [
    ['bandwidth-gbps', 'abc'],
    ['bandwidth-gbps', '1e308'],
    ['bandwidth-gbps', 'NaN'],
    ['bandwidth-gbps', '1,5'],
    ['group-count', '-1'],
  ];
  for (const [field, text] of cases) {
    const before = await page.locator(ID(field)).first().inputValue();
    await setField(page, field, text);
    await page.locator(ID('zeng-stale')).waitFor({ timeout: 5000 });
    assert.equal(await page.locator(`${ID('inputs-cluster')} .tab-errors`).textContent(), '1', `${field} = ${text}: counted on the Cluster tab`);
    assert.equal(await iterationSeconds(page), t0, `${field} = ${text}: the last valid result stays`);
    await setField(page, field, before);
    await page.locator(ID('zeng-stale')).waitFor({ state: 'detached', timeout: 5000 });
    assert.equal(await page.locator(`${ID('inputs-cluster')} .tab-errors`).count(), 0, `${field}: nothing counted once readable`);
  }
});

test('unreadable text marks only the results that read its field', async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  await showInputs(page, 'cluster');
  // The PS link: Zeng et al. reads it, Stash (all-reduce) does not.
  await setField(page, 'bandwidth-gbps', 'abc');
  await showView(page, 'zeng');
  await page.locator(ID('zeng-stale')).waitFor({ timeout: 5000 });
  await showView(page, 'stash');
  await page.locator(ID('stash-headline')).first().waitFor({ timeout: 5000 });
  assert.equal(await page.locator(ID('stash-stale')).count(), 0, 'Stash does not read the PS link');
  // A field of Stash's own section marks Stash, not Zeng et al.
  await setField(page, 'bandwidth-gbps', '1');
  await page.locator(ID('stash-stale')).waitFor({ state: 'detached', timeout: 5000 });
  await setField(page, 'stash-tau-nvlink', 'x');
  await page.locator(ID('stash-stale')).waitFor({ timeout: 5000 });
  await showView(page, 'zeng');
  await page.locator(ID('zeng-headline')).first().waitFor({ timeout: 5000 });
  assert.equal(await page.locator(ID('zeng-stale')).count(), 0, "Zeng et al. does not read Stash's section");
});

test('a worker count of 100,000 is refused at its field; the other models keep what they showed', async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  const t0 = await iterationSeconds(page);
  const needs = ['cynthia', 'spotdnn', 'li'];
  for (const id of needs) {
    await page.waitForFunction((id) => /needs inputs/.test(document.querySelector(`[data-testid="view-${id}"]`)?.textContent || ''), id, { timeout: 10_000 });
  }
  await showInputs(page, 'cluster');
  await setField(page, 'group-count', '100000');
  const at = page.locator(`label:has(${ID('group-count')}) ${ID('field-error')}`);
  await at.first().waitFor();
  assert.match(await at.first().textContent(), /10\d,\d{3} workers is more than the 4,096 this page models/);
  await page.locator(ID('zeng-stale')).waitFor();
  assert.equal(await iterationSeconds(page), t0, 'Zeng keeps its last valid result');
  for (const id of needs) {
    assert.match(await page.locator(ID(`view-${id}`)).textContent(), /needs inputs/, `${id} still says what it needs`);
  }
});

test('a message repeats what was typed, in the unit typed', async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  await showInputs(page, 'cluster');
  await setField(page, 'bandwidth-gbps', '1e-320');
  const at = page.locator(`label:has(${ID('bandwidth-gbps')}) ${ID('field-error')}`);
  await at.first().waitFor();
  assert.match(await at.first().textContent(), /'1e-320' is too close to 0/);
  await setField(page, 'bandwidth-gbps', '-7');
  await page.waitForFunction(() => /got −7 Gb\/s/.test(document.querySelector('label:has([data-testid="bandwidth-gbps"])')?.textContent || ''), null, { timeout: 5000 });
});
