import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { ID, open, showView, showInputs, setField, numberIn, addTraceRule } from '../planner.mjs';
import { writeCounterTrace, longestTaskSince } from '../hostile.mjs';
import { test } from '../fixtures.mjs';

const name = 'Li et al.: a gzipped PyTorch-shaped Chrome trace becomes a profile with the PS transfers from the layer table, the page says what it merged and skipped; a mapping rule changes it; a broken trace is refused at the upload; an 80 MB trace is read off the page';

const text = (page, id) => page.locator(ID(id)).first().textContent();

// A trace written here in PyTorch's shape: two ProfilerStep# markers on the
// CPU lane, nested cpu_ops, kernels on a GPU lane (two overlap), a python
// frame around everything, no PS transfers.
function trace() {
  const ev = [
    { ph: 'M', name: 'process_name', pid: 1, tid: 0, args: { name: 'python' } },
    { ph: 'M', name: 'thread_name', pid: 2, tid: 7, args: { name: 'stream 7' } },
    { ph: 'X', name: 'train.py(12): step', cat: 'python_function', pid: 1, tid: 1, ts: 0, dur: 2000 },
  ];
  for (const [k, t0] of [[1, 0], [2, 1000]]) {
    ev.push({ ph: 'X', name: `ProfilerStep#${k}`, cat: 'user_annotation', pid: 1, tid: 1, ts: t0, dur: 1000 });
    ev.push({ ph: 'X', name: 'aten::conv2d', cat: 'cpu_op', pid: 1, tid: 1, ts: t0 + 10, dur: 100 });
    ev.push({ ph: 'X', name: 'aten::convolution', cat: 'cpu_op', pid: 1, tid: 1, ts: t0 + 20, dur: 50 });
    ev.push({ ph: 'X', name: 'volta_sgemm', cat: 'kernel', pid: 2, tid: 7, ts: t0 + 200, dur: 300 });
    ev.push({ ph: 'X', name: 'bn_fw', cat: 'kernel', pid: 2, tid: 7, ts: t0 + 450, dur: 100 });
    ev.push({ ph: 'X', name: 'relu_bw', cat: 'kernel', pid: 2, tid: 7, ts: t0 + 700, dur: 200 });
  }
  return zlib.gzipSync(Buffer.from(JSON.stringify({ traceEvents: ev })));
}

// The same two steps inside 80 MB of allocator counter samples (a phase
// the import counts and skips), written to a file: the events in all.
function bigTrace(file) {
  const head = JSON.parse(zlib.gunzipSync(trace()).toString()).traceEvents;
  return writeCounterTrace(file, 80, head);
}

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx);
  await showInputs(page, 'models');
  await page.locator(ID('li-trace-upload')).setInputFiles({ name: 'step.pt.trace.json.gz', mimeType: 'application/gzip', buffer: trace() });
  await page.locator(ID('li-trace-summary')).waitFor();
  const summary = await text(page, 'li-trace-summary');
  assert.match(summary, /2 steps/);
  assert.match(summary, /no PS transfers/);
  assert.match(summary, /layer table/);
  assert.match(summary, /merged|folded/);
  assert.match(await text(page, 'li-source'), /profile 'step\.pt\.trace\.json\.gz'/);
  const before = await text(page, 'li-source');

  // A rule sends the CPU ops nowhere: fewer ops.
  await addTraceRule(page, 'cpu_op', 'skip');
  await page.waitForFunction((b) => document.querySelector('[data-testid="li-source"]')?.textContent !== b, before);
  assert.notEqual(await text(page, 'li-source'), before);
  await showView(page, 'li');
  await page.locator(ID('li-throughput-max')).waitFor({ timeout: 60_000 });
  const whole = () => page.waitForFunction(() => !document.querySelector('[data-testid="li-pending"]') && document.querySelector('[data-testid="li-throughput-max"]'), null, { timeout: 60_000 });
  await whole();
  const at32 = numberIn(await text(page, 'li-throughput-max'));

  // The traced worker's batch, typed on the mapping screen: twice the
  // samples per step, twice the throughput (the step times are the trace's).
  await showInputs(page, 'models');
  await setField(page, 'li-trace-batch', '64');
  await showView(page, 'li');
  await page.waitForFunction((b) => { const t = document.querySelector('[data-testid="li-throughput-max"]')?.textContent || ''; return !document.querySelector('[data-testid="li-pending"]') && t && !t.includes(b); }, String(at32), { timeout: 60_000 });
  await whole();
  const at64 = numberIn(await text(page, 'li-throughput-max'));
  assert(Math.abs(at64 / at32 - 2) < 1e-3, `batch 64 gives ${at64} vs ${at32} at 32`);
  // A link speed of 0 is refused at its field, with the range.
  await showInputs(page, 'models');
  await setField(page, 'li-trace-link', '0');
  const linkField = page.locator('label.field', { has: page.locator(ID('li-trace-link')) });
  await linkField.locator(ID('field-error')).waitFor();
  assert.match(await linkField.locator(ID('field-error')).first().textContent(), /Gb\/s/);
  await setField(page, 'li-trace-link', '10');

  // Not a trace: named at the upload, the profile stays.
  await showInputs(page, 'models');
  const kept = await text(page, 'li-source');
  await page.locator(ID('li-trace-upload')).setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"traceEvents": [ {"ph": "X", "name": ') });
  await page.locator(ID('li-trace-error')).waitFor();
  assert.match(await text(page, 'li-trace-error'), /^broken\.json: /);
  assert.equal(await text(page, 'li-source'), kept);

  // 80 MB: read in the import worker. The page says it is reading, keeps
  // drawing frames, and the summary counts every event.
  const big = path.join(os.tmpdir(), `ddnn-big-trace-${process.pid}.json`);
  const events = bigTrace(big);
  try {
    const t0 = await page.evaluate(() => performance.now());
    await page.locator(ID('li-trace-upload')).setInputFiles(big);
    await page.locator(ID('li-trace-reading')).waitFor();
    assert.match(await text(page, 'li-trace-reading'), /reading ddnn-big-trace-\d+\.json \(8\d\.\d MB\)/);
    const worstFrame = await page.evaluate(() => new Promise((resolve) => {
      let last = performance.now();
      let worst = 0;
      let n = 0;
      const frame = (t) => {
        worst = Math.max(worst, t - last);
        last = t;
        if (++n < 20 && document.querySelector('[data-testid="li-trace-reading"]')) requestAnimationFrame(frame);
        else resolve(worst);
      };
      requestAnimationFrame(frame);
    }));
    await page.waitForFunction(() => !document.querySelector('[data-testid="li-trace-reading"]'), null, { timeout: 60_000 });
    const read = await text(page, 'li-trace-summary');
    assert.match(read, new RegExp(`Read ${events} events from 'ddnn-big-trace`), read);
    const longest = await longestTaskSince(page, t0);
    ctx.log(`80 MB trace: ${events} events, longest main-thread task ${Math.round(longest)} ms, worst frame gap while reading ${Math.round(worstFrame)} ms`);
    assert(longest < 100, `the page stays responsive while an 80 MB trace is read (${longest} ms task)`);
  } finally {
    fs.rmSync(big, { force: true });
  }
});
