#!/usr/bin/env node
// Prints the README's performance table (markdown) from one `make bench` run:
//
//   target/bench/native.jsonl   the cargo benches' figures (tests/bench/timing.rs, BENCH_OUT)
//   target/bench/wasm.jsonl     the core timed in headless Chromium (tests/suite/*wasm_bench.rs)
//   target/bench/browser.json   tests/e2e/bench.mjs's figures (BENCH_OUT)
//   dist/, target/js-pkg/       the files whose gzip -9 sizes it sums here
//
//   node tests/bench/table.mjs [--native FILE] [--browser FILE] [--dist DIR] [--js-pkg DIR]
//
// Every row: what is measured, the figure, the target, and whether it is met. A
// measure that failed or is missing shows as such and makes the exit status 1.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const opt = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return path.resolve(i > 0 ? process.argv[i + 1] : fallback);
};
const NATIVE = opt('native', path.join(ROOT, 'target/bench/native.jsonl'));
const BROWSER = opt('browser', path.join(ROOT, 'target/bench/browser.json'));
const DIST = opt('dist', path.join(ROOT, 'dist'));
const JS_PKG = opt('js-pkg', path.join(ROOT, 'target/js-pkg'));

let problems = 0;

// ---------------------------------------------------------------------------- inputs

const WASM = opt('wasm', path.join(ROOT, 'target/bench/wasm.jsonl'));
const jsonl = (file) => {
  const m = new Map();
  if (fs.existsSync(file)) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (line.trim()) {
        const r = JSON.parse(line);
        m.set(r.key, r);
      }
    }
  }
  return m;
};
const native = jsonl(NATIVE);
const wasm = jsonl(WASM);
const browser = fs.existsSync(BROWSER) ? JSON.parse(fs.readFileSync(BROWSER, 'utf8')) : null;
const measures = browser ? browser.measures : {};

// ---------------------------------------------------------------------------- formatting

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
const max = (xs) => Math.max(...xs);
const ms = (x) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x < 1 ? x.toFixed(2) : x < 10 ? x.toFixed(1) : x.toFixed(0)} ms`);
const us = (x) => (x >= 1000 ? ms(x / 1000) : `${x < 10 ? x.toFixed(1) : x.toFixed(0)} µs`);
const kb = (n) => `${Math.round(n / 1000).toLocaleString('en-US')} KB`;
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
const range = (xs, f) => {
  const [lo, hi] = [f(Math.min(...xs)), f(Math.max(...xs))];
  const unit = (t) => t.replace(/^[\d.,]+/, '');
  if (lo === hi) return lo;
  return unit(lo) === unit(hi) ? `${lo.slice(0, -unit(lo).length)}-${hi}` : `${lo} - ${hi}`;
};
const verdict = (ok) => (ok ? 'pass' : 'miss');

const rows = [];
/** A row: `what`, the `figure` text, the `target` text, and pass/miss/—. */
function row(what, figure, target = '—', status = '—') {
  rows.push([what, figure, target, status]);
}
function failed(what, why, target) {
  problems += 1;
  row(what, `not measured: ${why}`, target, 'error');
}

/** A browser measure: its record, or null after adding an error row. */
function browserMeasure(key, what, target) {
  if (!browser) {
    failed(what, `no ${path.relative(ROOT, BROWSER)} (run node tests/e2e/bench.mjs)`, target);
    return null;
  }
  const m = measures[key];
  if (!m) {
    failed(what, `"${key}" was not run`, target);
    return null;
  }
  if (m.error) {
    failed(what, m.error.replace(/\|/g, '\\|'), target);
    return null;
  }
  return m;
}

/** A native timing: its record, or null after adding an error row. */
function nativeTiming(keys, what, target) {
  const found = keys.map((k) => native.get(k)).filter(Boolean);
  if (found.length === 0 || found.length !== keys.length) {
    failed(what, `no ${keys[0]} in ${path.relative(ROOT, NATIVE)} (run the cargo benches with BENCH_OUT)`, target);
    return null;
  }
  return found;
}

// ---------------------------------------------------------------------------- rows

// The newest source file the page is built from, to tell a stale build.
const newest = (dir) => {
  let best = { t: 0, f: '' };
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const f = path.join(d, e.name);
      if (e.isDirectory()) walk(f);
      else {
        const t = fs.statSync(f).mtimeMs;
        if (t > best.t) best = { t, f };
      }
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return best;
};
const distBuilt = fs.existsSync(path.join(DIST, 'index.html')) ? fs.statSync(path.join(DIST, 'index.html')).mtimeMs : 0;
const src = [newest(path.join(ROOT, 'src')), newest(path.join(ROOT, 'style')), newest(path.join(ROOT, 'public'))]
  .concat(['index.html', 'Cargo.toml', 'Cargo.lock', 'Trunk.toml'].map((f) => {
    const p = path.join(ROOT, f);
    return fs.existsSync(p) ? { t: fs.statSync(p).mtimeMs, f: p } : { t: 0, f: '' };
  }))
  .sort((a, b) => b.t - a.t)[0];

const runs = browser ? browser.runs : 0;

{
  const what = `edit → numbers on screen (headline and tables), 200-layer table, 3 workers; ${2 * runs} edits`;
  const m = browserMeasure('edit', what, 'median < 16 ms');
  if (m) row(what, `median ${ms(median(m.numbers))}, max ${ms(max(m.numbers))}`, 'median < 16 ms', verdict(median(m.numbers) < 16));
}
{
  const m0 = measures.edit && !measures.edit.error ? measures.edit : null;
  const what = `edit → every on-screen chart redrawn${m0 ? ` (${m0.count} chart${m0.count === 1 ? "" : "s"})` : ''}, same edits`;
  const m = browserMeasure('edit', what, 'median < 30 ms');
  if (m) {
    row(what, `median ${ms(median(m.charts))}, max ${ms(max(m.charts))} (the first of them: median ${ms(median(m.firstChart))})`,
      'median < 30 ms', verdict(median(m.charts) < 30));
  }
}
{
  const what = 'keystroke → next painted frame (Event Timing of real keystrokes into the PS bandwidth, 200-layer table)';
  const target = 'median < 20 ms, max < 50 ms';
  const m = browserMeasure('edit', what, target);
  if (m && m.keystrokes) {
    row(`${what}; ${m.keystrokes.length} keystrokes`, `median ${ms(median(m.keystrokes))}, max ${ms(max(m.keystrokes))}`, target,
      verdict(median(m.keystrokes) < 20 && max(m.keystrokes) < 50));
  }
}
{
  // Issue 33 item 10: to the frame that shows the worker's answer.
  const what = 'keystroke → the frame that shows the new number (real keystrokes into the PS bandwidth, 200-layer table)';
  const target = 'median < 16 ms, max < 33 ms';
  const m = browserMeasure('edit', what, target);
  for (const [view, xs] of Object.entries((m && m.keyToNumber) || {})) {
    row(`${what}, ${view === 'zeng' ? "Zeng's tab" : view}; ${xs.length} keystrokes`, `median ${ms(median(xs))}, max ${ms(max(xs))}`, target,
      verdict(median(xs) < 16 && max(xs) < 33));
  }
}
{
  const what = `worker round trip, small evaluation (the example): post → done minus the models' own time, page idle; ${runs} requests`;
  const m = browserMeasure('roundtrip', what, 'median < 5 ms');
  if (m) row(what, `median ${ms(median(m.samples))}, max ${ms(max(m.samples))}`, 'median < 5 ms', verdict(median(m.samples) < 5));
}
{
  // Not the worker's cost: after posting, the page goes on with the edit's
  // own work (validation, stale marks, history, the address) and renders
  // the first model's report before it reads the next message, so this
  // counts page work that overlaps the worker. What the user waits for is
  // the edit → numbers row above; what the worker adds is the idle row.
  const what = `the same during edits, as the page sees it: post → done minus the models' own time, which also counts the page's own work on the edit and its rendering of the first report (a diagnostic; the user's figure is edit → numbers); ${runs} edits`;
  const m = browserMeasure('roundtrip', what);
  if (m) row(what, `median ${ms(median(m.inPage))}, max ${ms(max(m.inPage))} (post → first result read: median ${ms(median(m.firstResult))})`);
}
{
  const what = `navigation → first numbers on screen (the example; cold load from a local server; ${browser ? browser.loads : 0} loads)`;
  const m = browserMeasure('load', what);
  if (m) row(what, `median ${ms(median(m.samples))}, max ${ms(max(m.samples))}`);
}
// First visits from a gzip host (tests/e2e/bench.mjs, coldload).
{
  const m0 = measures.coldload && !measures.coldload.error ? measures.coldload : null;
  const n = m0 ? Object.values(m0)[0]?.samples?.length ?? 0 : 0;
  for (const [key, link, target, limit] of [
    ['fast', '10 Mb/s, 40 ms round trips', '< 1.2 s', 1200],
    ['slow', '1.6 Mb/s, 150 ms round trips', '< 5 s', 5000],
  ]) {
    const what = `cold load → first number on screen (the example; first visit, gzip host, ${link}; ${n} loads): Chromium's network emulation; the same link shaped by the host for every request, the workers' and the service worker's too`;
    const m = browserMeasure('coldload', what, target);
    if (!m) continue;
    const cdp = m[key];
    const host = m[`${key}-host`];
    if (!cdp || !host) {
      failed(what, `no ${key} / ${key}-host profile in the run (COLD_ONLY?)`, target);
      continue;
    }
    const fig = (r) => `median ${ms(median(r.samples))}, max ${ms(max(r.samples))}`;
    row(what, `${fig(cdp)} (${kb(cdp.bytesBeforeFirst)} received by then); shaped by the host ${fig(host)}`, target,
      verdict(median(cdp.samples) < limit) + (median(host.samples) < limit ? '' : ' (host-shaped: miss)'));
  }
  const what = `cold load at a 4× CPU slowdown (local host; ${n} loads): first number; the longest main-thread task from the navigation to the end of the page's start (plotly.js loaded, first charts drawn) + 1 s`;
  const m = browserMeasure('coldload', what, 'every task < 200 ms');
  if (m && m.cpu4) {
    const c = m.cpu4;
    const worst = c.longest.indexOf(max(c.longest));
    const named = (c.longestWhat?.[worst] || '').split(';')[0];
    const kind = named === 'microtasks' ? "the wasm's start and first render" : named;
    row(what, `first number median ${ms(median(c.samples))}; longest task median ${ms(median(c.longest))}, max ${ms(max(c.longest))}${kind ? ` (${kind})` : ''}`,
      'every task < 200 ms', verdict(max(c.longest) < 200));
  } else if (m) {
    failed(what, 'no cpu4 profile in the run (COLD_ONLY?)', 'every task < 200 ms');
  }
}
for (const [key, label] of [['catalog1000', 'a 1,000-type catalog'], ['cluster4000', 'a 4,000-group cluster']]) {
  const what = `longest main-thread task after the first render, importing ${label}`;
  const m = browserMeasure(key, what, '< 50 ms');
  if (m) {
    row(what, `${ms(m.longest)} (${m.over} task${m.over === 1 ? '' : 's'} over 50 ms; results on screen after ${ms(m.shownMs)})`,
      '< 50 ms', verdict(m.longest < 50));
  }
}

// Page weight: every file dist/ serves at load (not the examples, fetched on demand).
const gzip9 = (file) => {
  try {
    return execFileSync('gzip', ['-9c', file], { maxBuffer: 1 << 28 }).length;
  } catch {
    return zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
  }
};
{
  const what = 'page weight: every file in dist/ (HTML, JS glue, wasm, CSS, icon, worker.js, plotly.js basic), gzip -9 each, summed';
  const files = fs.existsSync(DIST) ? fs.readdirSync(DIST).map((f) => path.join(DIST, f)).filter((f) => fs.statSync(f).isFile()) : [];
  if (files.length === 0) {
    failed(what, `no ${DIST} (make build)`, '< 800 KB');
  } else {
    const raw = files.reduce((s, f) => s + fs.statSync(f).size, 0);
    const gz = files.reduce((s, f) => s + gzip9(f), 0);
    const plotly = files.filter((f) => /plotly/.test(path.basename(f))).reduce((s, f) => s + gzip9(f), 0);
    row(what, `${kb(gz)} (${mb(raw)} raw; plotly.js ${kb(plotly)} of it)`, '< 800 KB', verdict(gz < 800_000));
    const wasm = files.filter((f) => f.endsWith('.wasm'));
    row('… of which the wasm', `${kb(wasm.reduce((s, f) => s + gzip9(f), 0))} (${mb(wasm.reduce((s, f) => s + fs.statSync(f).size, 0))} raw)`);
  }
}
{
  const what = 'JS package wasm (target/js-pkg, `make js`), gzip -9';
  const wasm = fs.existsSync(JS_PKG) ? fs.readdirSync(JS_PKG).filter((f) => f.endsWith('.wasm')).map((f) => path.join(JS_PKG, f)) : [];
  if (wasm.length === 0) row(what, 'not built: run `make js`');
  else {
    const built = Math.min(...wasm.map((f) => fs.statSync(f).mtimeMs));
    const stale = built < src.t ? `; built ${new Date(built).toISOString().slice(0, 16)}Z, before the newest source: run \`make js\`` : '';
    row(what, `${kb(wasm.reduce((s, f) => s + gzip9(f), 0))} (${mb(wasm.reduce((s, f) => s + fs.statSync(f).size, 0))} raw${stale})`);
  }
}

// Native (cargo bench, tests/bench/*.rs).
for (const [key, what] of [
  ['zeng.200', '`evaluate_zeng` native (every number the page shows), 200-layer table, sweeps to 16 workers'],
  ['zeng.200.256', '`evaluate_zeng` native, 200-layer table, sweeps to 256 workers'],
]) {
  const t = nativeTiming([key], what);
  if (t) row(what, `median ${us(t[0].median_us)}, max ${us(t[0].max_us)}`);
}
{
  const what = 'share fragment of the 200-layer scenario (native): length; encode; decode + validate';
  const t = nativeTiming(['fragment.200.chars', 'fragment.encode', 'fragment.decode'], what);
  if (t) {
    row(what, `${t[0].value.toLocaleString('en-US')} characters; encode median ${us(t[1].median_us)}; decode + validate median ${us(t[2].median_us)}`);
  }
}
// Calibration (issue 35): every page edit of a scenario with runs refits.
// Runs of one cluster share a prediction, so each row names its clusters.
const CALIBRATED = [['zeng', 'Zeng et al.'], ['cynthia', 'Cynthia'], ['stash', 'Stash'], ['spotdnn', 'spotDNN'], ['li', 'Li et al.'], ['li-distinct', 'Li et al.']];
function clustersOf(id) {
  const c = native.get(`calibration.${id}50.clusters`);
  return c ? ` of ${c.value} clusters` : '';
}
{
  const target = '< 100 ms in the page';
  for (const [id, name] of CALIBRATED) {
    const label = `calibrating ${name} on 50 runs${clustersOf(id)} with leave-one-out, native`;
    const m = nativeTiming([`calibration.${id}50`], label, target);
    if (m) row(label, `median ${us(m[0].median_us)}, max ${us(m[0].max_us)}`, target, verdict(m[0].median_us < 100000));
  }
}
for (const [kind, what] of [
  ['algorithm1', 'Cynthia Algorithm 1 (paper mode), 20 instance types (the paper reports 13-39 ms)'],
  ['exact', 'Cynthia exact search, 20 types × 1 ≤ n_ps ≤ n_wk ≤ 64'],
  ['curves', 'Cynthia cost curves, 20 types × 64 workers'],
]) {
  const keys = [...native.keys()].filter((k) => k.startsWith(`cynthia.${kind}.`));
  const label = `${what}, native, ${keys.length || 'each'} profile${keys.length === 1 ? '' : 's'}`;
  const t = nativeTiming(keys.length ? keys : [`cynthia.${kind}.*`], label, '< 1 ms');
  if (t) {
    const medians = t.map((r) => r.median_us);
    row(label, `median ${range(medians, us)}, max ${us(max(t.map((r) => r.max_us)))}`, '< 1 ms', verdict(max(medians) < 1000));
  }
}

for (const [kind, what, target, limit] of [
  ['exact', 'spotDNN exact optimiser, Table III 7 types × quota 25, ≤ 63 workers', '< 10 ms', 10000],
  ['algorithm1', 'spotDNN Algorithm 1, the same catalog (the paper reports 0.2 s)', '< 1 ms', 1000],
]) {
  const keys = [...native.keys()].filter((k) => k.startsWith(`spotdnn.${kind}.`));
  const label = `${what}, native, goals: ${keys.map((k) => k.split('.').pop()).join(', ') || '?'}`;
  const t = nativeTiming(keys.length ? keys : [`spotdnn.${kind}.*`], label, target);
  if (t) {
    const medians = t.map((r) => r.median_us);
    row(label, `median ${range(medians, us)}, max ${us(max(t.map((r) => r.max_us)))}`, target, verdict(max(medians) < limit));
  }
}

// spotDNN at the shipped catalog's scale (issue 32): the whole evaluation
// and the exact optimiser alone, 31 types × quota 32 and 25 copies × 5.
for (const [kind, what, target, limit] of [
  ['evaluation', 'spotDNN whole evaluation (plans, fastest, frontier, replan) at scale', '< 100 ms', 100000],
  ['exact', 'spotDNN exact optimiser at scale', '< 100 ms', 100000],
]) {
  const keys = [...native.keys()].filter((k) => k.startsWith(`spotdnn.scale.${kind}.`));
  const label = `${what}, native: ${keys.map((k) => k.split('.').pop()).join(', ') || '?'} (current31-q32: the shipped current catalog, quota 32 each)`;
  const t = nativeTiming(keys.length ? keys : [`spotdnn.scale.${kind}.*`], label, target);
  if (t) {
    const medians = t.map((r) => r.median_us);
    row(label, `median ${range(medians, us)}, max ${us(max(t.map((r) => r.max_us)))}`, target, verdict(max(medians) < limit));
  }
}

// Stash: the all-reduce prediction and its ranking over 200 configurations.
{
  const label = 'Stash evaluation with the ranking of 200 configurations (100 GPU types × 1-2 machines), native';
  const t = nativeTiming(['stash.rank.200'], label, '< 5 ms');
  if (t) row(label, `median ${us(t[0].median_us)}, max ${us(t[0].max_us)}`, '< 5 ms', verdict(t[0].median_us < 5000));
}

// Li et al.'s event core: one W = 2..10 sweep of 1000 steps, one core, on
// the Inception-v3-sized profile (the target's step) and the VGG-16 example.
for (const [key, what, perStep] of [
  ['li.inception', 'the shipped Inception v3 profile per op', true],
  ['li', 'the shipped VGG-16 example, generated per layer', false],
]) {
  const target = '40,000 worker-steps/s at ~1,700 ops (W = 2..10 < 1.5 s)';
  const t = nativeTiming([`${key}.sweep2_10.seconds`, `${key}.sweep2_10.worker_steps_per_s`, `${key}.ops_per_step`], `Li et al.'s simulation (${what})`, target);
  if (!t) continue;
  const [secs, rate, ops] = t.map((r) => r.value);
  const label = `Li et al.'s simulation, W = 2..10 × 1000 steps on one core (${what}: ${ops} ops per step), native (release, opt-level 3)`;
  // The target is per ~1,700-op step: compare ops per second.
  const opsRate = rate * ops;
  const at1700 = Math.round(opsRate / 1700);
  row(label, `${secs.toFixed(2)} s, ${Math.round(rate).toLocaleString('en')} worker-steps/s = ${(opsRate / 1e6).toFixed(1)} M ops/s (≈ ${at1700.toLocaleString('en')} worker-steps/s at 1,700 ops)`, target, perStep ? verdict(at1700 >= 40000) : 'see the row above');
}

// The whole sweep, W = 1..64 × 1000 steps, on two threads (as the CLI
// shares W out to the cores).
{
  const target = 'W = 1..64 under a minute on 2 cores';
  const label = "Li et al.'s whole sweep, W = 1..64 × 1000 steps (one seed), the Inception v3 profile, 2 threads, native";
  const t = nativeTiming(['li.inception.sweep1_64.seconds', 'li.inception.sweep1_64.worker_steps_per_s'], label, target);
  if (t) {
    const [secs, rate] = t.map((r) => r.value);
    row(label, `${secs.toFixed(1)} s, ${Math.round(rate).toLocaleString('en')} worker-steps/s`, target, verdict(secs < 60));
  }
}

// Reading a ~100 MB Chrome trace natively (the page runs the same import
// in its import worker).
{
  const target = '≥ 50 MB/s';
  const label = "Chrome trace import (Li et al.'s profile from a PyTorch-shaped trace in allocator samples), native";
  const t = nativeTiming(['trace.import100.seconds', 'trace.import100.mb'], label, target);
  if (t) {
    const [secs, mb] = t.map((r) => r.value);
    row(`${label}, ${Math.round(mb)} MB`, `${secs.toFixed(2)} s, ${Math.round(mb / secs)} MB/s`, target, verdict(mb / secs >= 50));
  }
}

// Tables the page reads in its import worker, natively: the largest layer
// table accepted, a 10⁶-row one (refused by its size before a row is
// read), a 5 MB loss curve read, thinned and fitted.
{
  const target = '≥ 50 MB/s';
  const label = 'layer table import, 10,000 layers (the most a table may have), native';
  const t = nativeTiming(['tables.layers10k.seconds', 'tables.layers10k.mb'], label, target);
  if (t) {
    const [secs, mb] = t.map((r) => r.value);
    row(`${label}, ${mb.toFixed(2)} MB`, `${(secs * 1e3).toFixed(1)} ms, ${Math.round(mb / secs)} MB/s`, target, verdict(mb / secs >= 50));
  }
}
{
  const label = 'layer table of 10⁶ rows, native: refused by its size (5 MiB accepted) before a row is read';
  const t = nativeTiming(['tables.layers1m.seconds', 'tables.layers1m.mb'], label, '—');
  if (t) {
    const [secs, mb] = t.map((r) => r.value);
    const took = secs < 1e-6 ? `${Math.round(secs * 1e9)} ns` : `${(secs * 1e6).toFixed(1)} µs`;
    row(`${label}, ${Math.round(mb)} MB`, took, '—', '—');
  }
}
{
  const target = '≥ 50 MB/s';
  const label = 'loss curve import (Cynthia), read, thinned to 10,000 points and fitted, native';
  const t = nativeTiming(['tables.loss.seconds', 'tables.loss.mb', 'tables.loss.points'], label, target);
  if (t) {
    const [secs, mb, points] = t.map((r) => r.value);
    row(`${label}, ${Math.round(points).toLocaleString('en')} points, ${mb.toFixed(1)} MB`, `${Math.round(secs * 1e3)} ms, ${Math.round(mb / secs)} MB/s`, target, verdict(mb / secs >= 50));
  }
}

// The same searches compiled to wasm32 and timed in headless Chromium.
for (const [kind, what, target, limit] of [
  ['exact', 'spotDNN exact optimiser, the same catalog', '< 50 ms', 50],
  ['algorithm1', 'spotDNN Algorithm 1, the same catalog', '< 1 ms', 1],
]) {
  const keys = [...wasm.keys()].filter((k) => k.startsWith(`spotdnn.wasm.${kind}.`));
  const label = `${what}, in headless Chromium (wasm32), goals: ${keys.map((k) => k.split('.').pop()).join(', ') || '?'}`;
  if (keys.length === 0) {
    failed(label, `no spotdnn.wasm.${kind}.* in ${path.relative(ROOT, WASM)} (make bench runs tests/suite/spotdnn_wasm_bench.rs)`, target);
  } else {
    const medians = keys.map((k) => wasm.get(k).median_ms);
    row(label, `median ${range(medians, ms)}`, target, verdict(max(medians) < limit));
  }
}

// spotDNN's whole evaluation at scale compiled to wasm32 (the worker's code).
{
  const target = '< 300 ms';
  const m = wasm.get('spotdnn.wasm.scale.evaluation.current31-q32');
  const label = 'spotDNN whole evaluation, the shipped current catalog (31 types × quota 32), in headless Chromium (wasm32)';
  if (!m) failed(label, `no spotdnn.wasm.scale.evaluation.current31-q32 in ${path.relative(ROOT, WASM)} (make bench runs tests/suite/spotdnn_wasm_bench.rs)`, target);
  else row(label, `median ${ms(m.median_ms)}`, target, verdict(m.median_ms < 300));
}

// The same calibrations compiled to wasm32 (the worker's code).
{
  const target = '< 100 ms';
  for (const [id, name] of CALIBRATED) {
    const m = wasm.get(`calibration.wasm.${id}50`);
    const label = `calibrating ${name} on 50 runs${clustersOf(id)} with leave-one-out, in headless Chromium (wasm32)`;
    if (!m) failed(label, `no calibration.wasm.${id}50 in ${path.relative(ROOT, WASM)} (make bench runs tests/suite/calibration_wasm_bench.rs)`, target);
    else row(label, `median ${ms(m.median_ms)}`, target, verdict(m.median_ms < 100));
  }
}

// Uncertainty bands (issue 35): 10,000 Monte Carlo samples of a model's
// headline figures and of its charts' points, natively and in the page's
// build.
{
  const target = '< 1 s in the page';
  for (const [id, name] of [['zeng', 'Zeng et al.'], ['cynthia', 'Cynthia'], ['spotdnn', 'spotDNN'], ['stash', 'Stash']]) {
    const points = native.get(`uncertainty.${id}.chart_points`)?.value;
    const charts = points ? `headline, and ${Math.round(points).toLocaleString('en-US')} samples × chart points` : 'headline';
    const label = `${name}'s bands, 10,000 samples (the example's ${charts}, one range), native`;
    const m = nativeTiming([`uncertainty.${id}.10000`], label, target);
    if (m) row(label, `median ${us(m[0].median_us)}, max ${us(m[0].max_us)}`, target, verdict(m[0].median_us < 1e6));
  }
  for (const [id, name] of [['zeng', 'Zeng et al.'], ['cynthia', 'Cynthia']]) {
    const label = `${name}'s bands, 10,000 samples, in headless Chromium (wasm32)`;
    const m = wasm.get(`uncertainty.wasm.${id}.10000`);
    if (!m) failed(label, `no uncertainty.wasm.${id}.10000 in ${path.relative(ROOT, WASM)} (make bench runs tests/suite/uncertainty_wasm_bench.rs)`, target);
    else row(label, `median ${ms(m.median_ms)}`, target, verdict(m.median_ms < 1000));
  }
}

// Li et al.'s event core compiled to wasm32 (the page's build), in headless
// Chromium: the Inception v3 profile, W = 2..10 × 200 steps.
{
  const target = '15,000 worker-steps/s at ~1,700 ops';
  const m = wasm.get('li.wasm.inception');
  const label = "Li et al.'s simulation in headless Chromium (wasm32, the page's build), Inception v3 per op, W = 2..10 × 200 steps";
  if (!m) {
    failed(label, `no li.wasm.inception in ${path.relative(ROOT, WASM)} (make bench runs tests/suite/li_wasm_bench.rs)`, target);
  } else {
    const at1700 = Math.round((m.worker_steps_per_s * m.ops_per_step) / 1700);
    row(`${label} (${m.ops_per_step} ops per step)`, `${m.seconds.toFixed(2)} s, ${Math.round(m.worker_steps_per_s).toLocaleString('en')} worker-steps/s (≈ ${at1700.toLocaleString('en')} at 1,700 ops)`, target, verdict(at1700 >= 15000));
  }
}

// spotDNN's whole evaluation in the page's worker: what a user waits for
// after an edit (both plans, the fastest cluster, the 24-goal frontier).
{
  const label = 'spotDNN whole evaluation (exact optimiser, Algorithm 1, frontier, fastest) in the page\'s worker, 7 types × quota 25';
  const m = browserMeasure('spotdnn', label, '< 50 ms');
  if (m) {
    const names = Object.keys(m).filter((k) => Array.isArray(m[k]));
    const meds = names.map((k) => median(m[k]));
    row(`${label}, goals: ${names.join(', ')}`, `median ${range(meds, (v) => `${v.toFixed(1)} ms`)}`, '< 50 ms', verdict(Math.max(...meds) < 50));
  }
}

// The work budget's worst cases (issue 32, tests/bench/budget.rs): the
// largest input of each kind the product accepts, run as a user runs it;
// time and the peak heap the process held (the input included).
const budgetRows = [];
const heap = (n) => (n >= 1e8 ? `${Math.round(n / 1e6).toLocaleString('en-US')} MB` : n >= 1e6 ? mb(n) : kb(n));
{
  const target = '< 10 s, < 512 MB';
  for (const [key, kind] of [
    ['budget.li', "Li et al.'s simulation at its budget of ops simulated"],
    ['budget.spotdnn', "spotDNN's plan search at its budget of search steps"],
    ['budget.cynthia', "Cynthia's plans and curves on the largest catalog"],
    ['budget.zeng', 'Zeng et al. at its budget of push-queue positions'],
    ['budget.stash', 'Stash on the largest catalog and run set'],
    ['budget.calibration', 'the calibration at its run limit'],
    ['budget.scenario', 'a scenario document at its size limit'],
    ['budget.catalog', 'a catalog file at its entry limit'],
    ['budget.paleo', 'a Paleo file at its layer and link limits'],
    ['budget.li_profile', "a Li et al. profile at its op limit"],
    ['budget.trace', 'a Chrome trace at its size limit'],
    ['budget.trace_gz', 'a gzipped Chrome trace of at most 8 MiB'],
    ['budget.trace_names', 'a Chrome trace of distinct names at its held-bytes limit'],
  ]) {
    const r = native.get(key);
    if (!r) {
      problems += 1;
      budgetRows.push([kind, `not measured: no ${key} in ${path.relative(ROOT, NATIVE)} (cargo bench --bench budget with BENCH_OUT)`, target, 'error']);
      continue;
    }
    const what = `${r.what}, native`;
    if (!r.ok) {
      // Refused: the "largest accepted" input is not accepted after all.
      problems += 1;
      budgetRows.push([what, `refused: ${r.said.replace(/\|/g, '\\|')}`, target, 'error']);
      continue;
    }
    const took = r.seconds >= 1 ? `${r.seconds.toFixed(1)} s (one run)` : `median ${ms(r.seconds * 1000)} of ${r.runs}`;
    budgetRows.push([what, `${took}; peak heap ${heap(r.peak_bytes)} (the input ${heap(r.input_bytes)})`, target,
      verdict(r.seconds < 10 && r.peak_bytes < 512e6)]);
  }
}

// ---------------------------------------------------------------------------- print

const cpu = os.cpus();
const when = new Date().toISOString().slice(0, 10);
console.log(`\n${when}: ${cpu.length} cores (${(cpu[0]?.model || '?').trim()}), ${browser ? `Chromium ${browser.chromium}, headless, no GPU` : 'no browser run'}.`);
if (distBuilt && src.t > distBuilt) {
  console.log(`note: dist/ (built ${new Date(distBuilt).toISOString()}) is older than ${path.relative(ROOT, src.f)} `
    + `(${new Date(src.t).toISOString()}); the browser rows and page weight measure that older build (make bench rebuilds it unless BUILD=0).`);
}
const busy = Object.entries(measures).filter(([, m]) => m.busyBefore > 0.2);
if (busy.length) {
  console.log(`note: other work was running on the machine before ${busy.map(([k, m]) => `${k} (${(m.busyBefore * 100).toFixed(0)}% busy)`).join(', ')}; those rows are skewed.`);
}
console.log('');
console.log('| what | measured | target | met |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
console.log('');
console.log("The work budget's worst cases: the largest input of each kind accepted, run as a user runs it (tests/bench/budget.rs); peak heap counted by the bench's allocator, MB = 10⁶ bytes.");
console.log('');
console.log('| what | measured | target | met |');
console.log('|---|---|---|---|');
for (const r of budgetRows) console.log(`| ${r.join(' | ')} |`);
if (problems) console.error(`\ntable: ${problems} figure(s) not measured`);
process.exit(problems ? 1 : 0);
