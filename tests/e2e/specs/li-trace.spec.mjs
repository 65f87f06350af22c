import zlib from 'node:zlib';
import { ID, open, showView, showInputs } from '../planner.mjs';

export const name = 'Li et al.: a gzipped PyTorch-shaped Chrome trace becomes a profile with the PS transfers from the layer table, the page says what it merged and skipped; a mapping rule changes it; a broken trace is refused at the upload';

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

export async function run(ctx) {
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
  await page.locator(ID('li-trace-mapping')).locator('summary').click();
  await page.locator(ID('li-trace-add')).click();
  const last = page.locator(ID('li-trace-pattern')).last();
  await last.fill('cpu_op');
  await last.dispatchEvent('change');
  await page.locator(ID('li-trace-target')).last().selectOption('skip');
  await page.waitForFunction((b) => document.querySelector('[data-testid="li-source"]')?.textContent !== b, before);
  assert.notEqual(await text(page, 'li-source'), before);
  await showView(page, 'li');
  await page.locator(ID('li-throughput-max')).waitFor({ timeout: 60_000 });

  // Not a trace: named at the upload, the profile stays.
  await showInputs(page, 'models');
  const kept = await text(page, 'li-source');
  await page.locator(ID('li-trace-upload')).setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"traceEvents": [ {"ph": "X", "name": ') });
  await page.locator(ID('li-trace-error')).waitFor();
  assert.match(await text(page, 'li-trace-error'), /^broken\.json: /);
  assert.equal(await text(page, 'li-source'), kept);
}
