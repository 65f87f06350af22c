import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ID, open, showInputs, addTraceRule } from '../planner.mjs';
import { writeCounterTrace, longestTaskSince } from '../hostile.mjs';

export const name = 'large uploads: 50 MB and 200 MB Chrome traces — "reading" said within a second, no main-thread task over 100 ms, every event counted; the browser\'s memory measured while reading and given back after, also after a rule change reads the file again';

// Resident memory of this browser's renderer processes [MB] (the page and
// its workers live there), read off /proc through ps.
function rendererMB() {
  const out = execFileSync('ps', ['-eo', 'rss=,args=']).toString().split('\n');
  let kb = 0;
  for (const line of out) {
    if (/chrom/.test(line) && /--type=renderer/.test(line)) kb += parseInt(line.trim(), 10) || 0;
  }
  return kb / 1024;
}

// A two-op step, then `mb` of allocator counter samples.
function writeTrace(file, mb) {
  return writeCounterTrace(file, mb, [
    { ph: 'X', name: 'ProfilerStep#1', cat: 'user_annotation', pid: 1, tid: 1, ts: 0, dur: 1000 },
    { ph: 'X', name: 'conv_fw', cat: 'kernel', pid: 2, tid: 7, ts: 10, dur: 300 },
    { ph: 'X', name: 'relu_fw', cat: 'kernel', pid: 2, tid: 7, ts: 320, dur: 100 },
  ]);
}

// Samples renderer memory every 100 ms until `done` settles; the peak.
async function peakWhile(done) {
  let peak = rendererMB();
  const timer = setInterval(() => { peak = Math.max(peak, rendererMB()); }, 100);
  try {
    await done;
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rendererMB());
}

const text = (page, id) => page.locator(ID(id)).textContent();
const readingGone = (page) => page.waitForFunction(() => !document.querySelector('[data-testid="li-trace-reading"]'), null, { timeout: 120_000 });

export async function run(ctx) {
  const { assert } = ctx;
  const page = await open(ctx);
  await showInputs(page, 'models');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ddnn-big-trace-'));
  try {
    for (const mb of [50, 200]) {
      const file = path.join(dir, `trace-${mb}mb.json`);
      const events = writeTrace(file, mb);
      await page.waitForTimeout(500);
      const base = rendererMB();
      const t0 = await page.evaluate(() => performance.now());
      const started = Date.now();
      await page.locator(ID('li-trace-upload')).setInputFiles(file);
      await page.locator(ID('li-trace-reading')).waitFor({ timeout: 1000 });
      const saidAfter = Date.now() - started;
      assert.match(await text(page, 'li-trace-reading'), new RegExp(`reading trace-${mb}mb\\.json \\(\\d+\\.\\d MB\\)`));
      const peak = await peakWhile(readingGone(page));
      const took = Date.now() - started;
      assert.equal(await page.locator(ID('li-trace-error')).count(), 0, 'read without a problem');
      const summary = await text(page, 'li-trace-summary');
      assert.match(summary, new RegExp(`Read ${events} events from 'trace-${mb}mb\\.json'`), summary.slice(0, 300));
      assert.match(summary, new RegExp(`Events not read: ${events - 3} of phase 'C'`));
      const longest = await longestTaskSince(page, t0);
      await page.waitForTimeout(500);
      const after = rendererMB();
      ctx.log(`${mb} MB trace (${events} events): "reading" after ${saidAfter} ms, read in ${took} ms, longest main-thread task ${Math.round(longest)} ms; renderer memory ${Math.round(base)} MB before, peak ${Math.round(peak)} MB (+${Math.round(peak - base)}), ${Math.round(after)} MB after`);
      assert(longest < 100, `the page stays responsive (${longest} ms task)`);
      // The file's bytes as read in the worker and as its text (the same
      // buffer), the events kept: under 3× the file, and given back.
      assert(peak - base < 3 * mb, `memory while reading ${mb} MB: +${Math.round(peak - base)} MB`);
      assert(after - base < 100, `memory given back after the read: ${Math.round(base)} → ${Math.round(after)} MB`);
    }

    // A rule change reads the kept file again, in a new worker, and gives
    // its memory back too.
    const base = rendererMB();
    const ops = async () => Number((await text(page, 'li-source')).match(/: (\d+) ops/)?.[1]);
    const before = await ops();
    await addTraceRule(page, 'relu', 'skip');
    await page.locator(ID('li-trace-reading')).waitFor({ timeout: 1000 });
    const peak = await peakWhile(readingGone(page));
    await page.waitForTimeout(500);
    const after = rendererMB();
    assert.match(await text(page, 'li-trace-summary'), /from 'trace-200mb\.json'/);
    assert.equal(await ops(), before - 1, 'relu skipped: one op fewer');
    ctx.log(`re-read with a new rule: peak +${Math.round(peak - base)} MB, ${Math.round(after)} MB after`);
    assert(after - base < 100, `memory given back after the re-read: ${Math.round(base)} → ${Math.round(after)} MB`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
