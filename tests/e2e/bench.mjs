#!/usr/bin/env node
// In-browser benchmark for the README's performance table (`make bench`, which
// then prints the table with tests/bench/table.mjs). Serves dist/ as built (it
// never builds) and drives the system Chromium, headless, no GPU:
//
//   load        navigation → first numbers on screen (the example), LOADS fresh pages
//               (the server sends Cache-Control: no-store, so every load is cold)
//   coldload    first visits (a fresh browser context each: no cache, no service
//               worker) from a gzip host (startGzipServer), COLD_LOADS per profile
//               (PROFILES): 10 Mb/s with 40 ms round trips and 1.6 Mb/s with 150 ms,
//               each emulated by Chromium and shaped by the host, and the local host
//               with the page's CPU slowed 4×: navigation → first number, the bytes
//               sent by then, and every main-thread task (and microtask checkpoint)
//               from the navigation to the end of the page's start (the mark
//               'ddnn-first-render', after plotly.js has loaded and the first charts
//               are drawn) + 1 s, each named by what filled it (a Chromium trace)
//   roundtrip   the worker round trip of a small evaluation (the example): post of the
//               request → its `done` message arriving, minus the models' own time (the
//               results' `elapsed_ms`). Twice: with the page idle, a second worker like
//               the page's sent the page's own request (what the worker adds); and during
//               edits, the page's own requests as it receives the answers (Worker wrapped
//               by an init script), which also counts the page rendering the first
//               model's report before it reads the next message
//   edit        a made-up 200-layer table: edits from the input event to (a) the
//               headline number changing and (b) every on-screen chart redrawn
//               (plotly_afterplot); off-screen charts redraw when scrolled into view;
//               then real keystrokes: key → next painted frame (Event Timing),
//               and key → the frame that shows the new number (the worker's
//               answer drawn), on the overview and on Zeng's tab
//   hostile     importing a 1,000-type catalog, and a 4,000-group cluster: the longest
//               main-thread task after the first render (performance mark
//               'ddnn-first-render'), from a Chromium trace (category toplevel); long
//               tasks (PerformanceObserver 'longtask') as a cross-check
//
// Before each measure it samples the machine's CPU use for 1 s and says if other work
// was running. Prints the raw figures; with BENCH_OUT=<file> also writes them as JSON.
// A measure that fails is recorded as an error and the others still run; the exit
// status is 1 if any failed.
//
// Environment: DIST (default <repo>/dist), RUNS edits per case (default 30), LOADS
// (default 7), COLD_LOADS (default 5), COLD_ONLY (comma-separated profiles: fast, slow,
// fast-host, slow-host, cpu4), CHROMIUM (default /usr/bin/chromium), BENCH_OUT, BENCH_ONLY
// (comma-separated measures: load, coldload, roundtrip, edit, spotdnn, catalog1000,
// cluster4000), BENCH_DEBUG=1 (per-request arrivals; the longest tasks' trace events; the
// cold loads' responses and long trace events).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { MIME, startServer } from './server.mjs';
import { bigCatalog, dropFile, hugeCluster, recordLongTasks, stageFile } from './hostile.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const DIST = path.resolve(process.env.DIST || path.join(ROOT, 'dist'));
const RUNS = Number(process.env.RUNS || 30);
const LOADS = Number(process.env.LOADS || 7);
const COLD_LOADS = Number(process.env.COLD_LOADS || 5);
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const OUT = process.env.BENCH_OUT;
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ID = (id) => `[data-testid="${id}"]`;

// ---------------------------------------------------------------------------- inputs

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

// ---------------------------------------------------------------------------- in-page probes

// Init script: the time (performance.now(), i.e. since navigation start) the
// headline first shows a number.
function watchFirstNumbers() {
  const obs = new MutationObserver(() => {
    const h = document.querySelector('[data-testid="zeng-iteration-time"]');
    if (h && /\d/.test(h.textContent)) {
      window.__ddnnFirstNumbers = { at: performance.now(), text: h.textContent };
      obs.disconnect();
    }
  });
  obs.observe(document, { subtree: true, childList: true, characterData: true });
}

// Init script: wraps Worker to time each evaluate request the page sends: when
// the page posted it, when each answer arrived, the models' own time (sum of the
// results' `elapsed_ms`), and how long the page's onmessage handler ran for its
// messages. Reads only the messages' heads and tails (never parses a report).
// Keeps the worker's address and the newest request for `isolatedRoundTrips`.
function wrapWorker() {
  const Native = window.Worker;
  const requests = new Map();
  window.__ddnnRequests = requests;
  window.__ddnnNativeWorker = Native;
  // Messages are externally tagged JSON: `"ready"`, `{"result":{"id":7,…}}`;
  // the page posts its requests as UTF-8 bytes (src/ui/evaluation.rs).
  const utf8 = new TextDecoder();
  const head = (data) => {
    const text = data instanceof Uint8Array ? utf8.decode(data.subarray(0, 48)) : data;
    const m = typeof text === 'string' ? /^(?:"(\w+)"|\{"(\w+)":\{(?:"id":(\d+))?)/.exec(text) : null;
    return m && [m[0], m[1] || m[2], m[3]];
  };
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      window.__ddnnWorkerArgs = args;
      // Registered before the page's onmessage, so it runs first.
      this.addEventListener('message', (ev) => {
        const t = performance.now();
        const m = head(ev.data);
        const r = m && m[2] !== undefined ? requests.get(Number(m[2])) : null;
        if (!r) return;
        r.arrivals.push([m[1], t - r.posted]);
        // A model's answer: its outcome, or `same` (unchanged, or one the
        // page computed itself, src/worker/quick.rs), with its own time.
        if (m[1] === 'result' || m[1] === 'same') {
          const e = /"elapsed_ms":(-?[\d.eE+-]+)\}\}$/.exec(ev.data);
          if (e) r.elapsed += Number(e[1]);
          r.results += 1;
        }
        if (m[1] === 'done') r.done = t;
      });
    }
    set onmessage(fn) {
      const wrapped = fn && ((ev) => {
        const t = performance.now();
        try {
          return fn.call(this, ev);
        } finally {
          const m = head(ev.data);
          const r = m && m[2] !== undefined ? requests.get(Number(m[2])) : null;
          if (r && m[1] !== 'done') r.handlers += performance.now() - t;
        }
      });
      super.onmessage = wrapped;
    }
    get onmessage() {
      return super.onmessage;
    }
    postMessage(data, ...rest) {
      // The compiled wasm the page posts its workers (src/ui/module_worker.rs):
      // the isolated round trip's worker is posted it too.
      if (data instanceof WebAssembly.Module) window.__ddnnModule = data;
      const m = head(data);
      if (m && m[1] === 'evaluate' && m[2] !== undefined) {
        // A copy: the bytes' buffer moves to the worker with the message.
        window.__ddnnLastRequest = data instanceof Uint8Array ? data.slice() : data;
        requests.set(Number(m[2]), { id: Number(m[2]), posted: performance.now(), elapsed: 0, results: 0, handlers: 0, done: null, arrivals: [] });
      }
      return super.postMessage(data, ...rest);
    }
  };
}

// Runs inside the page (after wrapWorker): a second worker like the page's own,
// sent the page's newest request `n` times while the page is idle; returns, per
// request, post → done minus the models' own time.
async function isolatedRoundTrips(n) {
  const [url, opts] = window.__ddnnWorkerArgs;
  const last = window.__ddnnLastRequest;
  const request = typeof last === 'string' ? last : new TextDecoder().decode(last);
  const w = new window.__ddnnNativeWorker(url, opts);
  // worker.js waits for the page's compiled wasm (or asks for a fetch).
  w.postMessage(window.__ddnnModule || 'fetch-wasm');
  const next = (pred) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the benchmark worker did not answer within 10 s')), 10_000);
    w.onmessage = (ev) => {
      if (pred(ev.data)) {
        clearTimeout(timer);
        resolve();
      }
    };
  });
  try {
    await next((d) => d === '"ready"');
    const out = [];
    for (let i = 0; i < n; i++) {
      const id = 1_000_000 + i;
      const msg = request.replace(/^\{"evaluate":\{"id":\d+/, `{"evaluate":{"id":${id}`);
      let elapsed = 0;
      const t0 = performance.now();
      const done = next((d) => {
        const e = /^\{"(?:result|same)":.*"elapsed_ms":(-?[\d.eE+-]+)\}\}$/s.exec(d);
        if (e) elapsed += Number(e[1]);
        return d.startsWith(`{"done":{"id":${id}`);
      });
      // As the page posts it: UTF-8 bytes, their buffer moved.
      const bytes = new TextEncoder().encode(msg);
      w.postMessage(bytes, [bytes.buffer]);
      await done;
      out.push({ overhead: performance.now() - t0 - elapsed, elapsed });
      await new Promise((r) => setTimeout(r, 20));
    }
    return out;
  } finally {
    w.terminate();
  }
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
    let firstChartAt = null;
    const t0 = performance.now();
    const done = () => resolve({ numbers: numbersAt - t0, firstChart: firstChartAt - t0, charts: performance.now() - t0, count: charts.length });
    const obs = new MutationObserver(() => {
      if (numbersAt === null && headline.isConnected && headline.textContent !== before) numbersAt = performance.now();
    });
    obs.observe(document.body, { subtree: true, childList: true, characterData: true });
    for (const c of charts) {
      c.on('plotly_afterplot', function handler() {
        c.removeListener('plotly_afterplot', handler);
        drawn += 1;
        if (firstChartAt === null) firstChartAt = performance.now();
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

// Runs inside the page: one edit, then waits for its request's `done`.
async function roundTrip([testid, value]) {
  const requests = window.__ddnnRequests;
  const before = Math.max(0, ...requests.keys());
  const input = document.querySelector(`[data-testid="${testid}"]`);
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  const deadline = performance.now() + 10_000;
  for (;;) {
    const newer = [...requests.values()].filter((r) => r.id > before);
    const last = newer[newer.length - 1];
    if (last && last.done !== null) {
      return { requests: newer.length, roundTrip: last.done - last.posted, elapsed: last.elapsed, handlers: last.handlers, results: last.results, arrivals: last.arrivals };
    }
    if (performance.now() > deadline) throw new Error(`no answer to the edit within 10 s (${newer.length} request(s) posted)`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

// ---------------------------------------------------------------------------- helpers

/** The fraction of the machine's CPU time spent busy over `ms` (Linux /proc/stat),
 *  or null. Sampled with the browser idle before each measure: other work on a
 *  2-core machine skews every browser figure. */
async function cpuBusy(ms) {
  const read = () => {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { idle: f[3] + (f[4] || 0), total: f.reduce((a, b) => a + b, 0) };
  };
  try {
    const a = read();
    await new Promise((r) => setTimeout(r, ms));
    const b = read();
    return 1 - (b.idle - a.idle) / (b.total - a.total);
  } catch {
    return null;
  }
}

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
function stats(xs) {
  const s = sorted(xs);
  const f = (x) => x.toFixed(1);
  return `min ${f(s[0])} ms, median ${f(median(s))} ms, max ${f(s[s.length - 1])} ms`;
}

async function firstRender(page) {
  await page.waitForFunction(() => performance.getEntriesByName('ddnn-first-render').length > 0, null, { timeout: 30_000 });
}

// The file is staged before the page loads (`stageFile`) and dropped on the
// input: Playwright's setInputFiles would decode it in the page, one long task
// of its own.
async function importJson(page, name) {
  await dropFile(page, 'import-json', name, name);
}

/** Records a Chromium trace (category toplevel: every task) around `body`;
 *  returns the main-thread tasks that start at or after the page's
 *  'ddnn-first-render' mark, as { start (ms after the mark), ms }. */
async function traceTasks(ctx, page, body) {
  const cdp = await ctx.newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { recordMode: 'recordAsMuchAsPossible', includedCategories: process.env.BENCH_DEBUG ? ['toplevel', 'blink.user_timing', 'devtools.timeline', 'v8'] : ['toplevel', 'blink.user_timing'] },
  });
  let extra;
  try {
    extra = await body();
  } finally {
    await cdp.send('Tracing.end');
    await complete;
    await cdp.detach().catch(() => {});
  }
  const mark = events.find((e) => e.name === 'ddnn-first-render');
  if (!mark) throw new Error('no ddnn-first-render mark in the trace');
  const tasks = events
    .filter((e) => e.ph === 'X' && e.pid === mark.pid && e.tid === mark.tid && e.ts >= mark.ts
      && (e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask'))
    .map((e) => ({ start: (e.ts - mark.ts) / 1000, ms: e.dur / 1000, from: (e.args && e.args.src_func) || '?' }));
  if (tasks.length === 0) throw new Error('no main-thread tasks in the trace');
  if (process.env.BENCH_DEBUG) {
    const main = events.filter((e) => e.pid === mark.pid && e.tid === mark.tid && e.ts >= mark.ts);
    const top = main.filter((e) => e.ph === 'X' && (e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask')).sort((a, b) => b.dur - a.dur).slice(0, 4);
    for (const t of top) {
      const inner = main.filter((e) => e.ph === 'X' && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur && e !== t && e.dur > 2000);
      console.log(`task ${t.name} ${(t.dur / 1000).toFixed(1)} ms at ${((t.ts - mark.ts) / 1000).toFixed(0)} ms: ${JSON.stringify(t.args).slice(0, 200)}`);
      for (const e of inner.slice(0, 25)) console.log(`   ${e.cat} ${e.name} ${(e.dur / 1000).toFixed(1)} ms +${((e.ts - t.ts) / 1000).toFixed(1)} ${JSON.stringify(e.args).slice(0, 160)}`);
    }
  }
  return { tasks, extra };
}

// ---------------------------------------------------------------------------- measures

async function measureLoad(ctx, base) {
  const samples = [];
  let text = '';
  for (let i = 0; i < LOADS; i++) {
    const page = await ctx.newPage();
    await page.addInitScript(watchFirstNumbers);
    await page.goto(base, { waitUntil: 'load' });
    await page.waitForFunction(() => window.__ddnnFirstNumbers, null, { timeout: 30_000 });
    const r = await page.evaluate(() => window.__ddnnFirstNumbers);
    samples.push(r.at);
    text = r.text;
    await page.close();
  }
  console.log(`navigation → first numbers on screen (example, "${text}"), ${LOADS} cold loads: ${stats(samples)}`);
  return { samples };
}

async function measureRoundTrip(ctx, base) {
  const page = await ctx.newPage();
  await page.addInitScript(wrapWorker);
  await page.goto(base, { waitUntil: 'load' });
  await page.locator(ID('zeng-iteration-time')).waitFor();
  await firstRender(page);
  await page.locator(ID('inputs-cluster')).click();
  await page.waitForTimeout(1000);
  const overhead = [];
  const handlers = [];
  const models = [];
  const firstResult = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await page.evaluate(roundTrip, ['bandwidth-gbps', String(1 + ((i + 1) % 7) / 4)]);
    if (r.requests !== 1) throw new Error(`one edit posted ${r.requests} requests`);
    if (r.results === 0) throw new Error('no model answered the request');
    if (process.env.BENCH_DEBUG) console.log(JSON.stringify(r));
    overhead.push(r.roundTrip - r.elapsed);
    handlers.push(r.handlers);
    models.push(r.elapsed);
    firstResult.push(r.arrivals.find(([k]) => k === 'result' || k === 'same')[1]);
    await page.waitForTimeout(400); // the charts redraw before the next edit
  }
  await page.waitForTimeout(1000);
  const isolated = await page.evaluate(isolatedRoundTrips, RUNS);
  await page.close();
  const idle = isolated.map((r) => r.overhead);
  console.log(`worker round trip, small evaluation (the example), ${RUNS} requests each:`);
  console.log(`  page idle, a second worker sent the page's request: post → done minus the models' own time ${stats(idle)}`);
  console.log(`  during PS bandwidth edits, as the page sees it: post → done minus the models' own time ${stats(overhead)}`);
  console.log(`    post → first model's result arriving ${stats(firstResult)}; the models' own time ${stats(models)}; the page's onmessage handlers (synchronous part) ${stats(handlers)}`);
  return { samples: idle, inPage: overhead, firstResult, models, handlers };
}

async function measureEdits(ctx, base) {
  const page = await ctx.newPage();
  await page.goto(base, { waitUntil: 'load' });
  await page.locator(ID('zeng-iteration-time')).waitFor();
  await page.locator('details.import summary').click();
  await page.locator(ID('layer-text')).fill(table200());
  await page.locator(ID('layer-apply')).click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="layer-table"] tbody tr').length === 200);
  // The edited fields are in the Cluster section; the overview stays in view.
  await page.locator(ID('inputs-cluster')).click();
  await page.waitForTimeout(500);
  const cases = [
    ['PS bandwidth edit', 'bandwidth-gbps', (i) => String(1 + (i % 7) / 4)],
    ['batch size edit', 'group-batch', (i) => String(16 + (i % 5) * 8)],
  ];
  const all = { numbers: [], firstChart: [], charts: [], count: 0 };
  for (const [label, testid, value] of cases) {
    const numbers = [];
    const firstChart = [];
    const charts = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await page.evaluate(timedEdit, [testid, value(i + 1)]);
      all.count = r.count;
      numbers.push(r.numbers);
      firstChart.push(r.firstChart);
      charts.push(r.charts);
      await page.waitForTimeout(50);
    }
    console.log(`200-layer table, ${label}, ${RUNS} edits: numbers and tables on screen ${stats(numbers)}`);
    console.log(`  first on-screen chart redrawn ${stats(firstChart)}; all ${all.count} on-screen chart(s) redrawn ${stats(charts)}`);
    all.numbers.push(...numbers);
    all.firstChart.push(...firstChart);
    all.charts.push(...charts);
  }
  // Real keystrokes (trusted, so the browser's Event Timing sees them):
  // each keystroke's time from the key event to the next painted frame,
  // as the browser measures it (8 ms steps; ≤ 16 ms is reported as 16).
  await page.evaluate(() => {
    window.__ddnnKeys = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.name === 'keydown') window.__ddnnKeys.push(e.duration);
    }).observe({ type: 'event', durationThreshold: 16, buffered: false });
  });
  const field = page.locator(ID('bandwidth-gbps')).first();
  let keys = 0;
  for (let i = 0; i < RUNS; i++) {
    await field.click();
    await page.keyboard.press('End');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(String(1 + (i % 9)));
    keys += 3; // End, Backspace, the digit
    await page.waitForTimeout(250);
  }
  await page.waitForTimeout(500);
  const slow = await page.evaluate(() => window.__ddnnKeys);
  // Keystrokes under 16 ms are not reported: count them at 16 ms.
  all.keystrokes = [...slow, ...Array(Math.max(0, keys - slow.length)).fill(16)];
  console.log(`200-layer table, typing into the PS bandwidth, ${keys} keystrokes: key → next painted frame (Event Timing) ${stats(all.keystrokes)}; ${slow.length} over 16 ms`);
  // The same typing, to the frame that shows the new number (the worker's
  // answer drawn), on the overview and on Zeng's tab.
  all.keyToNumber = {};
  for (const view of ['overview', 'zeng']) {
    await page.locator(ID(`view-${view}`)).click();
    await page.waitForTimeout(500);
    await page.evaluate(watchKeyToNumber);
    for (let i = 0; i < RUNS; i++) {
      await field.click();
      await page.keyboard.press('End');
      await page.keyboard.press('Backspace');
      await page.keyboard.type(String(1 + (i % 9)));
      await page.waitForTimeout(250);
    }
    await page.waitForTimeout(500);
    const xs = await page.evaluate(() => window.__ddnnKeyToNumber);
    if (xs.length < RUNS) throw new Error(`${view}: only ${xs.length} keystrokes of ${RUNS} edits showed a new number`);
    all.keyToNumber[view] = xs;
    console.log(`200-layer table, ${view}, typing into the PS bandwidth, ${xs.length} keystrokes that change the number: key → the frame that shows it ${stats(xs)}`);
  }
  await page.close();
  return all;
}

// Runs inside the page: from each real keystroke (its event time) to the
// frame that shows a new headline, in window.__ddnnKeyToNumber. Each frame
// after the keystroke reads the headline in its requestAnimationFrame (a
// read there costs no extra layout, unlike one in a MutationObserver in the
// middle of the page's rendering); the first frame that sees a new text is
// the one that shows it, timed past its paint (a message posted from the
// rAF). A keystroke that changes nothing (End, a Backspace leaving text that
// is not a number) is dropped at the next one.
function watchKeyToNumber() {
  window.__ddnnKeyToNumber = [];
  let watch = 0;
  const headline = () => {
    const all = document.querySelectorAll('[data-testid="zeng-iteration-time"]');
    return (all.length === 1 ? all[0] : [...all].find((e) => e.offsetParent))?.textContent;
  };
  // One listener: the previous view's goes.
  if (window.__ddnnKeyListener) document.removeEventListener('keydown', window.__ddnnKeyListener, true);
  window.__ddnnKeyListener = (ev) => {
    if (!ev.isTrusted) return;
    const mine = ++watch;
    const t0 = ev.timeStamp;
    const before = headline();
    const frame = () => {
      if (mine !== watch || performance.now() - t0 > 5000) return;
      if (headline() === before) {
        requestAnimationFrame(frame);
        return;
      }
      const ch = new MessageChannel();
      ch.port1.onmessage = () => window.__ddnnKeyToNumber.push(performance.now() - t0);
      ch.port2.postMessage(0);
    };
    requestAnimationFrame(frame);
  };
  document.addEventListener('keydown', window.__ddnnKeyListener, true);
}

async function measureHostile(ctx, base, label, file, doc, ready) {
  const page = await ctx.newPage();
  await page.addInitScript(recordLongTasks);
  await stageFile(page, file, JSON.stringify(doc));
  let importedAt = 0;
  const { tasks, extra } = await traceTasks(ctx, page, async () => {
    await page.goto(base, { waitUntil: 'load' });
    await page.locator(ID('zeng-iteration-time')).waitFor();
    await firstRender(page);
    await page.waitForTimeout(1000); // the first charts draw
    importedAt = await page.evaluate(() => performance.now() - performance.getEntriesByName('ddnn-first-render')[0].startTime);
    const before = await page.locator(ID('zeng-iteration-time')).textContent();
    const t0 = Date.now();
    await importJson(page, file);
    await page.waitForFunction(ready, before, { timeout: 120_000, polling: 50 });
    const shownMs = Date.now() - t0;
    const banner = await page.locator(ID('scenario-error')).count();
    if (banner) throw new Error(`import failed: ${await page.locator(ID('scenario-error')).textContent()}`);
    await page.waitForTimeout(1500); // charts and anything else the results set off
    const longTasks = await page.evaluate(() => {
      const mark = performance.getEntriesByName('ddnn-first-render')[0];
      return (window.__ddnnLongTasks || []).filter((t) => t.start >= mark.startTime).map((t) => t.ms);
    });
    return { shownMs, longTasks };
  });
  await page.close();
  const top = [...tasks].sort((a, b) => b.ms - a.ms).slice(0, 3);
  const longest = top[0].ms;
  const over = tasks.filter((t) => t.ms > 50).length;
  const where = top.map((t) => `${t.ms.toFixed(1)} ms at ${(t.start - importedAt).toFixed(0)} ms (${t.from})`).join(', ');
  console.log(`${label}: results on screen ${extra.shownMs} ms after the import; longest main-thread task after the first render ${longest.toFixed(1)} ms (${tasks.length} tasks traced, ${over} over 50 ms; longest: ${where} from the import)`);
  console.log(`  long tasks (PerformanceObserver) after the first render: ${extra.longTasks.length ? extra.longTasks.map((ms) => `${ms.toFixed(0)} ms`).join(', ') : 'none'}`);
  return { longest, over, tasks: tasks.length, shownMs: extra.shownMs, longTasks: extra.longTasks };
}

/** Records the model's own time (`elapsed_ms`, measured in the worker) of
 *  each spotDNN report the worker sends. */
function recordSpot() {
  const W = window.Worker;
  window.__spot = [];
  window.Worker = class extends W {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', (ev) => {
        const d = ev.data;
        if (typeof d !== 'string' || !d.startsWith('{"result"') || !d.includes('"model":"spotdnn"') || !d.includes('"outcome":{"report"')) return;
        const e = /"elapsed_ms":(-?[\d.eE+-]+)\}\}$/.exec(d);
        if (e) window.__spot.push(Number(e[1]));
      });
    }
  };
}

/** spotDNN in the page's worker (wasm): the bench scenario of
 *  tests/bench/spotdnn.rs (Table III, quota 25 each, α1 = 0.1, β1 = 0.2:
 *  ≤ 63 workers), imported as a file; the figure is the whole spotDNN
 *  evaluation (Algorithm 1, the exact optimiser, the comparisons, the
 *  24-point frontier, the fastest cluster when none is in time). */
async function measureSpot(ctx, base) {
  const example = JSON.parse(fs.readFileSync(path.join(ROOT, 'public', 'examples', 'spotdnn-table1.json'), 'utf8'));
  const out = {};
  for (const [id, loss, time] of [['infeasible-900s', 0.8, 900], ['table1-goals', 0.8, 2600], ['loose', 0.7, 7200]]) {
    const doc = structuredClone(example);
    for (const i of doc.hardware.catalog) if (i.gpus) i.quota = 25;
    doc.models.spotdnn.alpha1 = 0.1;
    doc.models.spotdnn.beta1 = 0.2;
    doc.goals.loss = loss;
    doc.goals.time_s = time;
    const samples = [];
    for (let i = 0; i < 5; i++) {
      const page = await ctx.newPage();
      await page.addInitScript(recordSpot);
      await stageFile(page, 'spot.json', JSON.stringify(doc));
      await page.goto(base, { waitUntil: 'load' });
      await page.locator(ID('zeng-iteration-time')).waitFor();
      await importJson(page, 'spot.json');
      await page.waitForFunction(() => window.__spot.length > 0, null, { timeout: 60_000 });
      samples.push(await page.evaluate(() => window.__spot[window.__spot.length - 1]));
      await page.close();
    }
    out[id] = samples;
    console.log(`spotDNN evaluation in the page's worker (wasm), 7 types × quota 25, ${id}: ${stats(samples)}`);
  }
  return out;
}

// ---------------------------------------------------------------------------- cold loads

/** A static host as the page is deployed, behind a slow link: dist/
 *  gzip-compressed (level 9, compressed once) where the browser accepts
 *  it, `Cache-Control: no-store` (every load is cold), HTTP/1.1 keep-alive.
 *  The link is shaped here, in the server, so it holds for every request
 *  alike, the page's, its workers' and its service worker's (Chromium's
 *  own network emulation leaves a dedicated worker's imports and the
 *  service worker's fetches unthrottled): `server.link = { rtt, rate }`
 *  (ms, bytes/s; null: unshaped). Each response starts one round trip
 *  after its request (one more on a new connection: the TCP handshake),
 *  and the responses under way share the link's rate equally. */
function startGzipServer(root) {
  const packed = new Map();
  const compressible = /^(text\/|application\/(javascript|json|wasm|manifest\+json)|image\/svg)/;
  const flows = new Set();
  let pumping = null;
  let last = 0;
  const pump = () => {
    const now = performance.now();
    let budget = server.link ? server.link.rate * (now - last) / 1000 : Infinity;
    last = now;
    while (budget >= 1 && flows.size) {
      const share = Math.max(1, Math.floor(budget / flows.size));
      for (const f of [...flows]) {
        const n = Math.min(share, f.body.length - f.sent);
        f.res.write(f.body.subarray(f.sent, f.sent + n));
        f.sent += n;
        budget -= n;
        if (f.sent >= f.body.length) {
          flows.delete(f);
          f.res.end();
          f.done();
        }
      }
    }
    if (!flows.size) {
      clearInterval(pumping);
      pumping = null;
    }
  };
  const send = (res, body, done) => {
    const flow = { res, body, sent: 0, done };
    flows.add(flow);
    res.on('close', () => flows.delete(flow));
    res.on('error', () => flows.delete(flow));
    if (!pumping) {
      last = performance.now();
      pumping = setInterval(pump, 4);
    }
  };
  const server = http.createServer((req, res) => {
    // What was sent: each response's file, size (as sent) and when it
    // was asked for and fully sent (Date.now()).
    const entry = { file: new URL(req.url, 'http://x').pathname, asked: Date.now(), bytes: 0, sent: null };
    server.sent.push(entry);
    const finished = (n) => Object.assign(entry, { bytes: n, sent: Date.now() });
    let rel = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '');
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    const file = path.resolve(root, rel);
    const link = server.link;
    const fresh = !req.socket.ddnnUsed;
    req.socket.ddnnUsed = true;
    const wait = link ? link.rtt * (fresh ? 2 : 1) : 0;
    setTimeout(() => {
      if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
        res.writeHead(404, { 'Cache-Control': 'no-store' });
        return res.end();
      }
      const type = MIME[path.extname(file).toLowerCase()] || (file.endsWith('.webmanifest') ? 'application/manifest+json' : 'application/octet-stream');
      const headers = { 'Content-Type': type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };
      let body = fs.readFileSync(file);
      if (compressible.test(type) && /\bgzip\b/.test(req.headers['accept-encoding'] || '')) {
        if (!packed.has(file)) packed.set(file, zlib.gzipSync(body, { level: 9 }));
        body = packed.get(file);
        headers['Content-Encoding'] = 'gzip';
        headers.Vary = 'Accept-Encoding';
      }
      headers['Content-Length'] = body.length;
      res.writeHead(200, headers);
      if (req.method === 'HEAD' || body.length === 0) {
        finished(0);
        return res.end();
      }
      if (!link) {
        finished(body.length);
        return res.end(body);
      }
      send(res, body, () => finished(body.length));
    }, wait);
  });
  server.link = null;
  server.sent = [];
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** The link and CPU profiles of the cold loads: Lighthouse's desktop
 *  (10 Mb/s, 40 ms round trips) and mobile (1.6 Mb/s, 150 ms) links, each
 *  emulated by Chromium (how the figures before this measure were taken)
 *  and shaped by the host (stricter: the workers' and the service worker's
 *  requests wait their turn too); and the unshaped local host with the
 *  page's CPU slowed 4× (a phone, or a busy laptop; Chromium throttles the
 *  page's main thread, not its workers). */
const FAST = { rtt: 40, rate: 10e6 / 8 };
const SLOW = { rtt: 150, rate: 1.6e6 / 8 };
const PROFILES = [
  { key: 'fast', label: '10 Mb/s, 40 ms round trips (Chromium\'s emulation)', link: FAST, shaper: 'cdp', cpu: 1 },
  { key: 'slow', label: '1.6 Mb/s, 150 ms round trips (Chromium\'s emulation)', link: SLOW, shaper: 'cdp', cpu: 1 },
  { key: 'fast-host', label: '10 Mb/s, 40 ms round trips (shaped by the host)', link: FAST, shaper: 'host', cpu: 1 },
  { key: 'slow-host', label: '1.6 Mb/s, 150 ms round trips (shaped by the host)', link: SLOW, shaper: 'host', cpu: 1 },
  { key: 'cpu4', label: 'local host, CPU slowed 4×', link: null, cpu: 4 },
];

/** One cold load in a fresh browser context (empty cache, no service
 *  worker yet: a first visit) under `profile`: navigation → the first
 *  number on screen, the bytes received by then (compressed, every
 *  request of the page and its workers), and every main-thread task from
 *  the navigation until the page's start is over (the 'ddnn-first-render'
 *  mark, which follows plotly.js's load and warm-up) plus 1 s. */
async function coldLoad(browser, host, base, profile) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await ctx.newPage();
    await page.addInitScript(watchFirstNumbers);
    const cdp = await ctx.newCDPSession(page);
    if (profile.link && profile.shaper === 'cdp') {
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: profile.link.rtt, downloadThroughput: profile.link.rate, uploadThroughput: profile.link.rate });
    } else {
      host.link = profile.link;
    }
    if (profile.cpu !== 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpu });
    // Every response the host sent for this load (the page's, its workers'
    // and its service worker's), timed from the navigation.
    host.sent = [];
    const t0 = Date.now();
    const events = [];
    cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
    const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.start', {
      transferMode: 'ReportEvents',
      traceConfig: { recordMode: 'recordAsMuchAsPossible', includedCategories: ['toplevel', 'blink.user_timing', 'devtools.timeline'] },
    });
    let first;
    let marked = false;
    try {
      await page.goto(base, { waitUntil: 'commit' });
      await page.waitForFunction(() => window.__ddnnFirstNumbers, null, { timeout: 60_000, polling: 20 });
      first = await page.evaluate(() => window.__ddnnFirstNumbers);
      marked = await page.waitForFunction(() => performance.getEntriesByName('ddnn-first-render').length > 0, null, { timeout: 30_000 })
        .then(() => true, () => false);
      await page.waitForTimeout(1000);
    } finally {
      await cdp.send('Tracing.end');
      await complete;
    }
    const nav = events.find((e) => e.name === 'navigationStart' && e.args?.data?.isLoadingMainFrame && e.args?.data?.documentLoaderURL?.startsWith(base))
      || events.find((e) => e.name === 'navigationStart');
    const mark = events.find((e) => e.name === 'ddnn-first-render');
    const main = nav ? events.filter((e) => e.pid === nav.pid && e.tid === nav.tid) : [];
    const firstAt = nav ? nav.ts + first.at * 1000 : 0;
    const end = mark ? mark.ts + 1e6 : firstAt + 1e6;
    // Tasks, and microtask checkpoints run between tasks (the wasm's start,
    // after its compilation, runs in one).
    const runs = main.filter((e) => e.ph === 'X' && /^(ThreadControllerImpl::RunTask|RunTask|BlinkScheduler_PerformMicrotaskCheckpoint)$/.test(e.name) && e.ts >= nav.ts && e.ts <= end);
    // Outermost tasks only (a task's trace may nest a second RunTask event).
    const tasks = runs
      .filter((t) => !runs.some((o) => o !== t && o.ts <= t.ts && o.ts + o.dur >= t.ts + t.dur && (o.dur > t.dur || o.ts < t.ts)))
      .map((t) => {
        // What the task did: its longest inner events of interest.
        const inner = main.filter((e) => e.ph === 'X' && e !== t && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur && e.dur > 1000
          && /^(EvaluateScript|v8\.compile|v8\.compileModule|v8\.evaluateModule|FunctionCall|TimerFire|FireAnimationFrame|ParseHTML|Layout|UpdateLayoutTree|Paint|wasm|v8\.wasm|RunMicrotasks|EventDispatch|ScheduleStyleRecalculation|PrePaint|Commit|V8\.GC)/.test(e.name))
          .sort((a, b) => b.dur - a.dur).slice(0, 3)
          .map((e) => {
            const d = e.args?.data || {};
            const where = d.url ? ` ${path.basename(d.url.split('?')[0])}` : d.functionName ? ` ${d.functionName}` : d.type ? ` ${d.type}` : '';
            return `${e.name}${where} ${(e.dur / 1000).toFixed(0)} ms`;
          });
        const kind = t.name === 'BlinkScheduler_PerformMicrotaskCheckpoint' ? 'microtasks' : (t.args?.src_func || 'task');
        return { start: (t.ts - nav.ts) / 1000, ms: t.dur / 1000, beforeFirst: t.ts + t.dur <= firstAt, what: [kind, ...inner].join('; ') };
      });
    if (process.env.BENCH_DEBUG) {
      const long = main.filter((e) => e.ph === 'X' && e.dur > 40_000 && e.ts >= nav.ts && e.ts <= end);
      for (const e of long) console.log(`      [${profile.key}] ${e.cat} ${e.name} ${(e.dur / 1000).toFixed(0)} ms at ${((e.ts - nav.ts) / 1000).toFixed(0)} ms ${JSON.stringify(e.args?.data || e.args || {}).slice(0, 100)}`);
    }
    host.link = null;
    const done = host.sent.filter((r) => r.sent !== null).map((r) => ({ file: path.basename(r.file) || 'index.html', bytes: r.bytes, start: r.asked - t0, end: r.sent - t0 }));
    const bytesBeforeFirst = done.filter((r) => r.end <= first.at).reduce((s, r) => s + r.bytes, 0);
    const bytes = done.reduce((s, r) => s + r.bytes, 0);
    const fetched = done;
    return { at: first.at, marked, bytesBeforeFirst, bytes, fetched, tasks };
  } finally {
    host.link = null;
    await ctx.close();
  }
}

async function measureColdLoads(host, gzipBase) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const out = {};
  try {
    for (const profile of PROFILES.filter((p) => !process.env.COLD_ONLY || process.env.COLD_ONLY.split(",").includes(p.key))) {
      const samples = [];
      const runs = [];
      for (let i = 0; i < COLD_LOADS; i++) {
        const r = await coldLoad(browser, host, gzipBase, profile);
        samples.push(r.at);
        runs.push(r);
      }
      const longest = runs.map((r) => Math.max(0, ...r.tasks.map((t) => t.ms)));
      const beforeFirst = runs.map((r) => Math.max(0, ...r.tasks.filter((t) => t.beforeFirst).map((t) => t.ms)));
      const mid = runs[samples.indexOf(median(samples))];
      console.log(`cold load, gzip host, ${profile.label}, ${COLD_LOADS} loads: navigation → first number ${stats(samples)}`);
      console.log(`  bytes received before the first number ${Math.round(mid.bytesBeforeFirst / 1000)} KB, in all ${Math.round(mid.bytes / 1000)} KB (median load); longest main-thread task of the load ${stats(longest)} (before the first number ${stats(beforeFirst)})`);
      const top = [...mid.tasks].sort((a, b) => b.ms - a.ms).slice(0, 4);
      for (const t of top) console.log(`    ${t.ms.toFixed(0)} ms at ${t.start.toFixed(0)} ms${t.beforeFirst ? ' (before the first number)' : ''}: ${t.what || '?'}`);
      if (process.env.BENCH_DEBUG) {
        for (const f of mid.fetched) console.log(`    ${f.file} ${Math.round(f.bytes / 1000)} KB ${f.start.toFixed(0)}-${f.end.toFixed(0)} ms`);
      }
      out[profile.key] = {
        label: profile.label, samples, longest, beforeFirst,
        bytesBeforeFirst: mid.bytesBeforeFirst, bytes: mid.bytes,
        top: top.map((t) => ({ ms: t.ms, start: t.start, what: t.what, beforeFirst: t.beforeFirst })),
        // Each load's longest task: what filled it.
        longestWhat: runs.map((r) => [...r.tasks].sort((a, b) => b.ms - a.ms)[0]?.what || '?'),
        marked: runs.every((r) => r.marked),
      };
    }
  } finally {
    await browser.close();
  }
  return out;
}

// ---------------------------------------------------------------------------- main

if (!fs.existsSync(path.join(DIST, 'index.html'))) {
  console.error(`bench: ${DIST}/index.html not found; build first (make build)`);
  process.exit(2);
}
const server = await startServer(DIST, '/', { host: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${server.address().port}/`;
const gzipServer = await startGzipServer(DIST);
const gzipBase = `http://127.0.0.1:${gzipServer.address().port}/`;
const profile = await fsp.mkdtemp(path.join(os.tmpdir(), 'ddnn-bench-profile-'));
const ctx = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, viewport: { width: 1280, height: 800 } });
// Chromium's own start-up keeps a core busy for about a second.
await new Promise((r) => setTimeout(r, 2000));
const results = { chromium: ctx.browser()?.version() ?? '', runs: RUNS, loads: LOADS, dist: DIST, measures: {} };
let failed = 0;
const ONLY = (process.env.BENCH_ONLY || '').split(',').filter(Boolean);
async function measure(key, fn) {
  if (ONLY.length && !ONLY.includes(key)) return;
  // Other work on the machine skews the figures: say so (1 s sample, browser idle).
  const busy = await cpuBusy(1000);
  if (busy !== null && busy > 0.2) console.log(`(${key}: the machine was ${(busy * 100).toFixed(0)}% busy just before; figures skewed)`);
  try {
    results.measures[key] = { ...(await fn()), busyBefore: busy };
  } catch (e) {
    failed += 1;
    const message = String(e && e.message ? e.message : e).split('\n')[0];
    results.measures[key] = { error: message, busyBefore: busy };
    console.log(`${key}: FAILED: ${message}`);
  }
}
try {
  console.log(`in-browser benchmark: Chromium ${results.chromium}, headless, no GPU, ${os.cpus().length} cores; ${DIST}`);
  await measure('load', () => measureLoad(ctx, base));
  await measure('coldload', () => measureColdLoads(gzipServer, gzipBase));
  await measure('roundtrip', () => measureRoundTrip(ctx, base));
  await measure('edit', () => measureEdits(ctx, base));
  await measure('spotdnn', () => measureSpot(ctx, base));
  await measure('catalog1000', () => measureHostile(ctx, base, '1,000-type catalog import', 'big-catalog.json', bigCatalog(1000),
    () => document.querySelector('[data-testid="cynthia-exact-plan"]') && !document.querySelector('[data-testid="cynthia-pending"]')
      && /type-\d{4}/.test(document.querySelector('[data-testid="cynthia-exact-plan"]').textContent)));
  await measure('cluster4000', () => measureHostile(ctx, base, '4,000-group cluster import', 'huge-cluster.json', hugeCluster(4000),
    (before) => {
      const h = document.querySelector('[data-testid="zeng-iteration-time"]')?.textContent || '';
      return h !== before && /\d/.test(h) && !document.querySelector('[data-testid="zeng-pending"]');
    }));
} finally {
  await ctx.close();
  server.close();
  gzipServer.close();
  await fsp.rm(profile, { recursive: true, force: true });
}
if (OUT) {
  await fsp.mkdir(path.dirname(path.resolve(OUT)), { recursive: true });
  await fsp.writeFile(OUT, JSON.stringify(results, null, 1));
}
process.exit(failed ? 1 : 0);
