// The embed snippets in a host page (issue 33, item 6): a documentation page
// that pastes the page's "Embed card" and "Embed" snippets as they are copied,
// served from its own 127.0.0.1 origin (as a docs site is), at 390x844 and
// 1280x800. The host never scrolls sideways, the framed content has no
// horizontal overflow, and each iframe's height follows its content through the
// documented message ({type: 'ddnn-planner:height', height}, docs/scenario.md
// "Embedding"), which the snippet's own one-line listener applies.

import fsp from 'node:fs/promises';
import path from 'node:path';
import { startServer } from '../server.mjs';
import { ID, open, chartDrawn } from '../planner.mjs';
import { ROOT } from '../env.mjs';
import { test, specTimeout } from '../fixtures.mjs';

const name = 'embed snippets in a host page: no sideways scroll at 390 or 1280 px, the iframe follows its content';

test.describe.configure({ timeout: specTimeout(180_000) });

const SITE = path.join(ROOT, 'tests', 'e2e', '.tmp', 'embed-host');
const SIZES = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];
// How far the iframe's height may be from its content's (px): the message
// carries whole pixels.
const SLACK = 3;

// A docs page: a heading, a paragraph, the snippet, and a recorder of the
// height messages (the snippet's listener is what sizes the frame).
function hostPage(title, snippet) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>body { font: 16px/1.5 sans-serif; max-width: 60rem; margin: 0 auto; padding: 0 8px; }</style>
<script>
  window.__heights = [];
  addEventListener('message', (e) => {
    if (e.data && e.data.type === 'ddnn-planner:height') window.__heights.push(e.data.height);
  });
</script>
</head><body>
<h1>${title}</h1>
<p>The planner's figure for this scenario, live: change it in the planner.</p>
${snippet}
<p>Text after the frame.</p>
</body></html>
`;
}

async function snippetOf(page, button) {
  await page.locator(ID(button)).click();
  const snippet = await page.locator(ID('share-url')).inputValue();
  if (!/<iframe [^>]*style="width:100%;max-width:[^;"]+;height:\d+px;border:0"/.test(snippet)) {
    throw new Error(`the ${button} snippet is not responsive: ${snippet}`);
  }
  if (/width="\d+"/.test(snippet)) throw new Error(`a fixed width in the ${button} snippet: ${snippet}`);
  return snippet;
}

// The framed document's own measurements.
function frameOf(page, mode) {
  const f = page.frames().find((fr) => fr.url().includes(`?embed=${mode}`));
  if (!f) throw new Error(`no ?embed=${mode} frame in ${page.frames().map((fr) => fr.url()).join(', ')}`);
  return f;
}

async function measure(page, frame) {
  const host = await page.evaluate(() => ({
    scrollWidth: document.scrollingElement.scrollWidth,
    innerWidth: window.innerWidth,
    iframe: document.querySelector('iframe[data-ddnn-planner]').getBoundingClientRect().height,
    iframeWidth: document.querySelector('iframe[data-ddnn-planner]').getBoundingClientRect().width,
    heights: window.__heights.slice(),
  }));
  const inner = await frame.evaluate(() => ({
    scrollWidth: document.scrollingElement.scrollWidth,
    clientWidth: document.scrollingElement.clientWidth,
    scrollHeight: document.scrollingElement.scrollHeight,
    clientHeight: document.scrollingElement.clientHeight,
    content: document.body.offsetHeight,
  }));
  return { host, inner };
}

// Waits until the iframe's height equals its content's (within SLACK) and the
// last message said so, then returns the measurements.
async function settled(page, frame, what) {
  const deadline = Date.now() + 20_000;
  let m;
  while (Date.now() < deadline) {
    m = await measure(page, frame);
    const last = m.host.heights.at(-1);
    if (
      last !== undefined &&
      Math.abs(last - m.inner.content) <= SLACK &&
      Math.abs(m.host.iframe - m.inner.content) <= SLACK
    ) {
      // Still there a moment later (no chart or panel still growing).
      await page.waitForTimeout(300);
      const again = await measure(page, frame);
      if (Math.abs(again.host.iframe - m.host.iframe) <= 0.5) return again;
    }
    await page.waitForTimeout(100);
  }
  throw new Error(`${what}: the iframe never followed its content: ${JSON.stringify(m)}`);
}

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const planner = await open(ctx);
  const card = await snippetOf(planner, 'embed-card-link');
  const results = await snippetOf(planner, 'embed');
  await planner.close();

  await fsp.rm(SITE, { recursive: true, force: true });
  await fsp.mkdir(SITE, { recursive: true });
  await fsp.writeFile(path.join(SITE, 'card.html'), hostPage('A docs page with the card', card));
  await fsp.writeFile(path.join(SITE, 'results.html'), hostPage('A docs page with the results', results));
  // Its own origin: another port on 127.0.0.1, as a docs site is another host.
  const server = await startServer(SITE, '/', { host: '127.0.0.1', port: 0 });
  try {
    const base = `http://127.0.0.1:${server.address().port}/`;
    for (const [file, mode, ready] of [
      ['card.html', 'card', async (f) => {
        await f.locator(ID('embed-card')).waitFor({ timeout: 30_000 });
        await chartDrawn(f.locator(ID('card-chart-timeline')));
      }],
      ['results.html', '1', async (f) => {
        await f.locator(ID('embed-view')).waitFor({ timeout: 30_000 });
        await f.locator(ID('zeng-iteration-time')).first().waitFor({ timeout: 30_000 });
      }],
    ]) {
      for (const size of SIZES) {
        const what = `${file} at ${size.width}x${size.height}`;
        const page = await ctx.newPage();
        await page.setViewportSize(size);
        await page.goto(base + file, { waitUntil: 'load' });
        const frame = frameOf(page, mode);
        await ready(frame);
        const m = await settled(page, frame, what);
        ctx.log(`${what}: iframe ${m.host.iframeWidth.toFixed(0)}x${m.host.iframe.toFixed(0)} px, content ${m.inner.content} px, ${m.host.heights.length} height messages`);
        assert(m.host.scrollWidth <= m.host.innerWidth, `${what}: the host scrolls sideways (${m.host.scrollWidth} > ${m.host.innerWidth})`);
        assert(m.inner.scrollWidth <= m.inner.clientWidth, `${what}: the framed content overflows sideways (${m.inner.scrollWidth} > ${m.inner.clientWidth})`);
        assert(m.inner.scrollHeight <= m.inner.clientHeight + SLACK, `${what}: the frame scrolls (${m.inner.scrollHeight} > ${m.inner.clientHeight})`);
        assert(m.host.iframeWidth <= Math.min(size.width, 900) + 0.5, `${what}: the iframe is ${m.host.iframeWidth} px wide`);
        if (mode === 'card' && size.width === 390) await ctx.screenshot(page, 'embed-host-card-390');

        // The frame narrowed on the same page (the other size): the content
        // reflows, and the height follows it through a new message.
        const other = SIZES.find((s) => s !== size);
        const before = m.host.heights.length;
        await page.setViewportSize(other);
        const r = await settled(page, frame, `${what} resized to ${other.width}`);
        assert(r.host.scrollWidth <= r.host.innerWidth, `${what} → ${other.width}: the host scrolls sideways`);
        assert(r.inner.scrollWidth <= r.inner.clientWidth, `${what} → ${other.width}: the framed content overflows sideways`);
        if (Math.abs(r.inner.content - m.inner.content) > SLACK) {
          assert(r.host.heights.length > before, `${what} → ${other.width}: no new height message`);
        }
        await page.close();
      }
    }
  } finally {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections?.();
    await closed;
  }
});
