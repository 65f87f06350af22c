import { ID, open, pickExample, setField, waitIteration, within, showView } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'offline and installable: after one visit the page loads, computes (in its worker) and shares with the network off; the manifest names 192 and 512 px icons';

// This spec's own browser profile lets the page's service worker run (the
// others block it, so each starts uncached).
test.use({ serviceWorkers: 'allow' });

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  // Installable: a manifest with its icons, all served.
  const manifest = await page.evaluate(async () => {
    const href = document.querySelector('link[rel="manifest"]')?.href;
    const m = await (await fetch(href)).json();
    const icons = await Promise.all(m.icons.map(async (i) => {
      const r = await fetch(new URL(i.src, href));
      return { sizes: i.sizes, ok: r.ok, type: r.headers.get('content-type') };
    }));
    return { name: m.short_name, start: m.start_url, display: m.display, icons };
  });
  assert.equal(manifest.name, 'ddnn-planner');
  assert.equal(manifest.display, 'standalone');
  assert.equal(manifest.icons.map((i) => i.sizes).sort().join(' '), '192x192 512x512');
  assert(manifest.icons.every((i) => i.ok && /image\/png/.test(i.type)), JSON.stringify(manifest.icons));

  // The cache worker is installed once the page has loaded.
  const cached = await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    const keys = await caches.keys();
    const cache = await caches.open(keys.find((k) => k.startsWith('ddnn-planner-')));
    return { scope: reg.scope, files: (await cache.keys()).length };
  });
  assert(cached.scope.startsWith(ctx.baseUrl), `${cached.scope} under ${ctx.baseUrl}`);
  assert(cached.files >= 8, `${cached.files} files cached`);

  // Network off: the page comes back from the cache, with its wasm, its
  // model worker and its charts; an edit computes; the address follows.
  await page.context().setOffline(true);
  try {
    await page.reload({ waitUntil: 'load' });
    await page.locator(ID('zeng-iteration-time')).first().waitFor({ state: 'visible', timeout: 30_000 });
    const before = await page.evaluate(() => location.hash);
    await setField(page, 'bandwidth-gbps', '10');
    const t10 = await waitIteration(page, (t) => t < 5, 'below 5 s');
    assert(within(t10, 2.94, 0.02), `offline, 10 GbE: ${t10} s (Table 7: 2.94 s)`);
    await page.waitForFunction((b) => location.hash !== b && location.hash.startsWith('#s'), before, { timeout: 10_000 });
    // A model that runs in parts (pool workers load from the cache too).
    await pickExample(page, 6);
    await showView(page, 'li');
    await page.waitForFunction(() => /W = 1 to 8,/.test(document.querySelector('[data-testid="li-subject"]')?.textContent || '') && !document.querySelector('[data-testid="li-pending"]'), null, { timeout: 60_000 });
  } finally {
    await page.context().setOffline(false);
  }
});
