import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ID, open, iterationSeconds, within } from '../planner.mjs';
import { dropFile, stageFile } from '../hostile.mjs';
import { test } from '../fixtures.mjs';

const name = 'version-1 links open unchanged; a newer link is named and kept; an oversize scenario gets no link';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'v1');

test(name, async ({ ctx }) => {
  const { assert } = ctx;

  // A link written by the version-1 page (tests/fixtures/v1): same numbers.
  const v1 = fs.readFileSync(path.join(FIXTURES, 'vgg16-hetero-1gbe.fragment.txt'), 'utf8').trim();
  const old = await open(ctx, `#${v1}`);
  const t = await iterationSeconds(old);
  assert(within(t, 26.8437, 0.0005), `the v1 link shows the v1 result (26.84 s): ${t}`);
  assert.equal(await old.locator(ID('scenario-error')).count(), 0, 'a plain upgrade needs no banner');
  // The address bar now carries the same scenario as a version-2 link.
  await old.waitForFunction((v) => location.hash.length > 10 && location.hash.slice(1) !== v, v1);

  // A document from a newer version: said so, and the address bar keeps it.
  // A scenario too large for a link (used below), staged before the page
  // loads: incompressible text, about 2.4 MB, whose link would pass the
  // 2 MiB limit.
  const big = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'landing.scenario.json'), 'utf8'));
  big.hardware.catalog[0].source = (await import('node:crypto')).randomBytes(1_800_000).toString('base64');
  const doc = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'landing.scenario.json'), 'utf8'));
  doc.version = 3;
  doc.models = { spotdnn: { revoked: [] } };
  const deflated = (await import('node:zlib')).deflateRawSync(Buffer.from(JSON.stringify(doc)));
  const future = `s1.${deflated.toString('base64url')}`;
  const page = await open(ctx, `#${future}`, {}, (p) => stageFile(p, 'big.json', JSON.stringify(big)));
  const banner = page.locator(ID('scenario-error'));
  await banner.waitFor();
  assert.match(await banner.textContent(), /newer ddnn-planner \(document version 3\)/);
  assert(within(await iterationSeconds(page), 26.85, 0.02), 'the example is shown');
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => location.hash.slice(1)), future, 'the newer link is not rewritten');

  // A scenario too large for a link: the share button says why.
  await dropFile(page, 'import-json', 'big.json', 'big.json');
  await page.waitForFunction(() => /too large for a link/.test(document.querySelector('[data-testid="scenario-error"]')?.textContent || ''));
  await page.locator(ID('share')).click();
  await page.waitForFunction(() => /no link: .*Export scenario JSON/.test(document.body.textContent));
  assert.equal(await page.locator(ID('share-url')).count(), 0, 'no link offered');
});
