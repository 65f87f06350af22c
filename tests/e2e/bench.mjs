#!/usr/bin/env node
// In-browser edit benchmark for the README's performance table (`make bench`).
// Loads a made-up 200-layer table, then times edits from the input event to
// (a) the headline number changing and (b) the charts on screen redrawn
// (plotly_afterplot); off-screen charts redraw when scrolled into view. Prints min / median / max over the runs.
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const DIST = path.resolve(process.env.DIST || path.join(ROOT, 'dist'));
const RUNS = Number(process.env.RUNS || 30);
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The same made-up 200-layer network as tests/bench/zeng.rs. */
function table200() {
  const rows = ['name,kind,inch,kh,kw,outn,outh,outw'];
  for (let i = 0; i < 196; i++) {
    const stage = Math.floor(i / 40);
    const ch = 64 << Math.min(stage, 3);
    const out = 112 >> stage;
    rows.push(`conv${i},conv,${ch},3,3,${ch},${out},${out}`);
  }
  [[25088, 4096], [4096, 4096], [4096, 2048], [2048, 1000]].forEach(([a, b], i) => rows.push(`fc${i},fc,${a},1,1,${b},1,1`));
  return rows.join('\n');
}

// Runs inside the page: one edit of `testid` to `value`, timed.
async function timedEdit([testid, value]) {
  // Only charts near the viewport redraw (see src/ui/chart.rs).
  const near = (el) => {
    const r = el.getBoundingClientRect();
    return r.bottom > -300 && r.top < window.innerHeight + 300;
  };
  const charts = [...document.querySelectorAll('.chart')].filter(near);
  const headline = document.querySelector('[data-testid="zeng-iteration-time"]');
  const before = headline.textContent;
  const input = document.querySelector(`[data-testid="${testid}"]`);
  return new Promise((resolve, reject) => {
    let drawn = 0;
    let numbersAt = null;
    const t0 = performance.now();
    const done = () => resolve({ numbers: numbersAt - t0, charts: performance.now() - t0, count: charts.length });
    const obs = new MutationObserver(() => {
      if (numbersAt === null && headline.isConnected && headline.textContent !== before) numbersAt = performance.now();
    });
    obs.observe(document.body, { subtree: true, childList: true, characterData: true });
    for (const c of charts) {
      c.on('plotly_afterplot', function handler() {
        c.removeListener('plotly_afterplot', handler);
        drawn += 1;
        if (drawn === charts.length) {
          obs.disconnect();
          const h = document.querySelector('[data-testid="zeng-iteration-time"]');
          if (numbersAt === null && h.textContent !== before) numbersAt = performance.now();
          done();
        }
      });
    }
    setTimeout(() => reject(new Error('edit did not redraw within 10 s')), 10_000);
    input.value = value;
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const f = (x) => x.toFixed(1);
  return `min ${f(s[0])} ms, median ${f(s[Math.floor(s.length / 2)])} ms, max ${f(s[s.length - 1])} ms`;
}

const server = await startServer(DIST, '/', { host: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${server.address().port}/`;
const profile = await fsp.mkdtemp(path.join(os.tmpdir(), 'ddnn-bench-profile-'));
const ctx = await chromium.launchPersistentContext(profile, { executablePath: '/usr/bin/chromium', args: ARGS, viewport: { width: 1280, height: 800 } });
try {
  const page = await ctx.newPage();
  await page.goto(base, { waitUntil: 'load' });
  await page.locator('[data-testid="zeng-iteration-time"]').waitFor();
  await page.locator('details.import summary').click();
  await page.locator('[data-testid="layer-text"]').fill(table200());
  await page.locator('[data-testid="layer-apply"]').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="layer-table"] tbody tr').length === 200);
  await page.waitForTimeout(500);
  const cases = [
    ['PS bandwidth edit', 'bandwidth-gbps', (i) => String(1 + (i % 7) / 4)],
    ['batch size edit', 'group-batch', (i) => String(16 + (i % 5) * 8)],
  ];
  console.log(`edit benchmark: 200-layer table, 3 workers, ${RUNS} edits each, Chromium ${ctx.browser()?.version() ?? ''}`);
  for (const [label, testid, value] of cases) {
    const numbers = [];
    const charts = [];
    let count = 0;
    for (let i = 0; i < RUNS; i++) {
      const r = await page.evaluate(timedEdit, [testid, value(i + 1)]);
      count = r.count;
      numbers.push(r.numbers);
      charts.push(r.charts);
    }
    console.log(`${label}: numbers and tables on screen ${stats(numbers)}; the ${count} on-screen chart(s) redrawn ${stats(charts)}`);
  }
} finally {
  await ctx.close();
  server.close();
  await fsp.rm(profile, { recursive: true, force: true });
}
