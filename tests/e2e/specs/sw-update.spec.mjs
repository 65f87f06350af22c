import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer } from '../server.mjs';
import { ID, iterationSeconds } from '../planner.mjs';
import { DIST, test } from '../fixtures.mjs';

const name = 'offline updates safely: a new build deployed while a tab is open waits (the open tab keeps its build and cache), takes over once the old tabs close, drops the old cache, and then works offline';

// Its own browser profile, with service workers allowed (offline.spec).
test.use({ serviceWorkers: 'allow' });


// Polls `f` in the page until it is true (waitForFunction does not wait
// for a promise's value).
async function until(page, f, arg, what) {
  for (let i = 0; i < 60; i++) {
    if (await page.evaluate(f, arg)) return;
    await page.waitForTimeout(250);
  }
  throw new Error(`timed out waiting for ${what}`);
}

// What the page's service worker and caches say.
const swState = (page) => page.evaluate(async () => {
  const reg = await navigator.serviceWorker.getRegistration();
  return {
    active: Boolean(reg?.active),
    waiting: Boolean(reg?.waiting),
    caches: (await caches.keys()).filter((k) => k.startsWith('ddnn-planner-')).sort(),
    marker: document.querySelector('meta[name="ddnn-test-build"]')?.content || 'A',
  };
});

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  // Build A, a copy of dist/ served from its own directory (its own origin).
  const site = fs.mkdtempSync(path.join(os.tmpdir(), 'ddnn-sw-'));
  fs.cpSync(DIST, site, { recursive: true });
  const server = await startServer(site, '/');
  const base = `http://127.0.0.1:${server.address().port}/`;
  const swText = fs.readFileSync(path.join(site, 'sw.js'), 'utf8');
  const buildA = swText.match(/const BUILD = "([^"]+)"/)?.[1];
  assert(buildA && buildA !== '__BUILD__', `the build names its cache: ${buildA}`);
  try {
    const first = await ctx.newPage();
    await first.goto(base);
    await first.locator(ID('zeng-iteration-time')).first().waitFor();
    await first.evaluate(() => navigator.serviceWorker.ready);
    await until(first, async () => (await caches.keys()).some((k) => k.startsWith('ddnn-planner-')), null, "build A's cache");
    let s = await swState(first);
    assert.equal(s.caches.join(' '), `ddnn-planner-${buildA}`, 'build A cached');

    // Deploy build B over it: another build name, a page that says B.
    const buildB = `${buildA}-b`;
    fs.writeFileSync(path.join(site, 'sw.js'), swText.replace(`const BUILD = "${buildA}"`, `const BUILD = "${buildB}"`));
    const html = fs.readFileSync(path.join(site, 'index.html'), 'utf8');
    fs.writeFileSync(path.join(site, 'index.html'), html.replace('<head>', '<head><meta name="ddnn-test-build" content="B">'));

    // The open tab reloads: the page comes from the network (B), B's
    // worker installs and waits, A's stays in charge with its cache.
    await first.reload();
    await first.locator(ID('zeng-iteration-time')).first().waitFor();
    await until(first, async () => Boolean((await navigator.serviceWorker.getRegistration())?.waiting), null, "B's worker waiting");
    s = await swState(first);
    ctx.log(`after deploying B with a tab open: ${JSON.stringify(s)}`);
    assert.equal(s.marker, 'B', 'the page itself is the new one (network first)');
    assert(s.waiting, 'B waits while a tab of A is open');
    assert.equal(s.caches.join(' '), [`ddnn-planner-${buildA}`, `ddnn-planner-${buildB}`].sort().join(' '), 'both caches while A is in charge');
    assert(Number.isFinite(await iterationSeconds(first)), 'the tab computes');

    // Every tab of A closed: B takes over and drops A's cache. Chromium
    // forgets a closed tab as a client a moment after the close returns:
    // a tab opened in that moment is still A's and keeps A in charge, so
    // such a tab is closed and a new one opened (at most three times).
    await first.close();
    const bAlone = async (b) => {
      const keys = (await caches.keys()).filter((k) => k.startsWith('ddnn-planner-'));
      return keys.length === 1 && keys[0] === `ddnn-planner-${b}`;
    };
    let second;
    for (let attempt = 1; ; attempt++) {
      second = await ctx.newPage();
      await second.goto(base);
      await second.locator(ID('zeng-iteration-time')).first().waitFor();
      try {
        await until(second, bAlone, buildB, "B's cache alone");
        break;
      } catch (e) {
        if (attempt === 3) throw e;
        ctx.log(`attempt ${attempt}: ${JSON.stringify(await swState(second))}; the tab closed, another opened`);
        await second.close();
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    s = await swState(second);
    ctx.log(`after the old tab closed: ${JSON.stringify(s)}`);
    assert(!s.waiting, 'nothing waits');

    // And B works offline.
    await second.context().setOffline(true);
    try {
      await second.reload({ waitUntil: 'load' });
      await second.locator(ID('zeng-iteration-time')).first().waitFor({ timeout: 30_000 });
      assert.equal((await swState(second)).marker, 'B', 'offline, the cached page is B');
      assert(Number.isFinite(await iterationSeconds(second)), 'offline, it computes');
    } finally {
      await second.context().setOffline(false);
    }
  } finally {
    server.close();
    fs.rmSync(site, { recursive: true, force: true });
  }
});
