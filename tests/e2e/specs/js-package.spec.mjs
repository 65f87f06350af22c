// The JS package on a documentation page: tests/js/docs-page imports target/js-pkg
// (`make js`), evaluates its scenario, draws the timeline with plotly and shows the
// iteration time, next to an <iframe> of the built site's embed view on the same
// scenario (a link made with the package's `encode`). The two must show the same figure.
//
// The docs site is assembled in tests/e2e/.tmp/docs-site (index.html + docs.mjs, pkg/,
// plotly.min.js from node_modules, scenario.json, planner/ = a copy of DIST) and served
// on its own 127.0.0.1 port, so the page, the package and the embedded planner share
// one origin, as on a real documentation site.

import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../server.mjs';
import { ID } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'js package: a docs page draws a live figure next to the embed view';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..', '..');
const PKG = path.resolve(process.env.JS_PKG || path.join(ROOT, 'target', 'js-pkg'));
const DIST = path.resolve(process.env.DIST || path.join(ROOT, 'dist'));
const SITE = path.join(ROOT, 'tests', 'e2e', '.tmp', 'docs-site');
const PLOTLY = path.join(ROOT, 'node_modules', 'plotly.js-basic-dist-min', 'plotly-basic.min.js');
const SCENARIO = path.join(ROOT, 'public', 'examples', 'vgg16-hetero-1gbe.json');
// tests/suite/golden.rs asserts this value bit for bit.
const ITERATION_S = '26.843674729417838';

async function assembleSite() {
  for (const f of ['ddnn_planner.js', 'ddnn_planner_bg.wasm']) {
    if (!fs.existsSync(path.join(PKG, f))) {
      throw new Error(`${path.join(PKG, f)} not found: build the JS package first (make js)`);
    }
  }
  await fsp.rm(SITE, { recursive: true, force: true });
  await fsp.mkdir(SITE, { recursive: true });
  await fsp.cp(path.join(ROOT, 'tests', 'js', 'docs-page'), SITE, { recursive: true });
  await fsp.cp(PKG, path.join(SITE, 'pkg'), { recursive: true });
  await fsp.cp(PLOTLY, path.join(SITE, 'plotly.min.js'));
  await fsp.cp(SCENARIO, path.join(SITE, 'scenario.json'));
  await fsp.cp(DIST, path.join(SITE, 'planner'), { recursive: true });
}

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  await assembleSite();
  const server = await startServer(SITE, '/', { host: '127.0.0.1', port: 0 });
  let page;
  try {
    const url = `http://127.0.0.1:${server.address().port}/`;
    page = await ctx.newPage();
    await page.setViewportSize({ width: 1100, height: 1400 });
    const response = await page.goto(url, { waitUntil: 'load' });
    assert(response && response.ok(), `GET ${url} returned ${response && response.status()}`);

    // The package's number, bit for bit.
    const figure = page.locator('#iteration-time[data-value]');
    await figure.waitFor({ timeout: 30_000 });
    assert.equal(await figure.getAttribute('data-value'), ITERATION_S, 'iteration time from evaluate()');
    const shown = (await figure.textContent()).trim();
    assert.match(shown, /^26\.8\d* s$/, 'the figure as display() shows it');

    // plotly drew the package's figure.
    await page.locator('#timeline .main-svg').first().waitFor({ timeout: 30_000 });
    const title = await page.locator('#timeline .gtitle').first().textContent();
    assert.match(title || '', /\S/, 'the chart has its title');
    assert.equal(await page.locator('#timeline .trace').count() > 0, true, 'the chart has traces');

    // The embed view, linked with encode(), shows the same figure the same way.
    const src = await page.locator('#planner').getAttribute('src');
    assert.match(src, /^planner\/\?embed=1#s2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'iframe src');
    const frame = page.frameLocator('#planner');
    await frame.locator(ID('embed-view')).waitFor({ timeout: 30_000 });
    const kpi = frame.locator(ID('zeng-iteration-time')).first();
    await kpi.waitFor({ timeout: 30_000 });
    assert.equal(await kpi.getAttribute('title'), ITERATION_S, 'the embed view computes the same number');
    assert.equal((await kpi.textContent()).trim(), shown, 'and shows it as the docs page does');
    ctx.log(`docs page and embed view: ${shown} (${ITERATION_S} s)`);

    await ctx.screenshot(page, 'js-package-docs-page');
  } finally {
    // Close the page before its server, so nothing it still loads fails.
    if (page) await page.close().catch(() => {});
    const closed = new Promise((r) => server.close(r));
    server.closeAllConnections?.();
    await closed;
  }
});
