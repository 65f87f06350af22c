// Shared by the e2e specs, the harness and the benchmark: scenarios of hostile
// size and the in-page long-task probe. Not a spec (no .spec.mjs suffix).

import fs from 'node:fs';

// A Cynthia scenario with a catalog of `n` instance types (all priced), so the
// exact search walks n types × up to 64 workers.
export function bigCatalog(n) {
  const catalog = [];
  for (let i = 0; i < n; i++) {
    catalog.push({
      name: `type-${String(i).padStart(4, '0')}`,
      flops_per_s: 2e9 + i * 1.7e7,
      network_bytes_per_s: 1e8 + (i % 17) * 1.5e7,
      price_per_hour: 0.05 + (i % 23) * 0.011,
      spot_price_per_hour: 0.02 + (i % 23) * 0.004,
    });
  }
  return {
    version: 2,
    title: `${n}-type catalog`,
    workload: {
      network: { name: 'cifar10 DNN', layers: [], given: { forward_flop: 1e9, weights: 1e6, source: 'made up' } },
      profile: { name: 'cifar10 DNN', sync: 'bsp', w_iter_flop: 2.686e10, g_param_bytes: 4.94e6, c_prof_flops: 6e7,
        b_prof_bytes_per_s: 1.56e6, c_base_flops: 3.466e9, source: 'Cynthia Table 4' },
      loss: { beta0: 7360, beta1: 3200 },
    },
    hardware: {
      catalog,
      cluster: { workers: [{ instance: 'type-0000', count: 8, batch_size: 128 }], ps: { count: 1, instance: 'type-0000' } },
    },
    goals: { time_s: 10800, loss: 0.6, budget_usd: 50 },
    models: { cynthia: { max_workers: 64 } },
  };
}

// A Zeng scenario with `groups` worker groups of one worker each.
export function hugeCluster(groups) {
  const workers = [];
  for (let i = 0; i < groups; i++) workers.push({ instance: i % 2 ? 'GPU' : 'CPU', count: 1, batch_size: 16 + (i % 5) * 8 });
  return {
    version: 2,
    title: `${groups} groups`,
    workload: { network: { name: 'AlexNet-like', layers: [], given: { forward_flop: 7.2e8, weights: 6.1e7, source: 'made up' } } },
    hardware: {
      catalog: [
        { name: 'CPU', processor: { type: 'cpu', hz: 2e9, simd: 2 } },
        { name: 'GPU', processor: { type: 'gpu', hz: 1.5e9, stream_processors: 2048, fma: false } },
      ],
      cluster: { workers, ps: { count: 1, link_bytes_per_s: 1.25e9 } },
    },
  };
}

// Init script (page.addInitScript): collects main-thread long tasks into
// window.__ddnnLongTasks. window.__ddnnFlushLongTasks() adds those the
// observer has not been called back with yet (a task that ended just
// before the reader's own task).
export function recordLongTasks() {
  window.__ddnnLongTasks = [];
  window.__ddnnFlushLongTasks = () => {};
  try {
    const add = (entries) => {
      for (const e of entries) window.__ddnnLongTasks.push({ start: e.startTime, ms: e.duration });
    };
    const observer = new PerformanceObserver((list) => add(list.getEntries()));
    observer.observe({ type: 'longtask', buffered: true });
    window.__ddnnFlushLongTasks = () => add(observer.takeRecords());
  } catch {
    // No long-task timing in this browser: nothing recorded.
  }
}

// The longest long task [ms] the page recorded from its time `t0` on (0 if
// none).
export function longestTaskSince(page, t0) {
  return page.evaluate((t) => {
    window.__ddnnFlushLongTasks?.();
    return Math.max(0, ...(window.__ddnnLongTasks || []).filter((e) => e.start >= t).map((e) => e.ms));
  }, t0);
}

// A file for `dropFile`, staged in the page before it loads (call before
// page.goto): handing over 150 KB of text later is itself a task of ~50 ms,
// which the long-task probes would charge to the page.
export async function stageFile(page, key, text) {
  await page.addInitScript(({ key, text }) => {
    window.__ddnnStaged = window.__ddnnStaged || {};
    window.__ddnnStaged[key] = text;
  }, { key, text });
}

// Gives the staged file `key` to the file input `testid` as the file `name`,
// the way a user's pick arrives: one change event. (Playwright's setInputFiles
// decodes the file inside the page, in one task of ~100 ms for 150 KB.)
export async function dropFile(page, testid, name, key) {
  await page.evaluate(({ testid, name, key }) => {
    const input = document.querySelector(`[data-testid="${testid}"]`);
    const files = new DataTransfer();
    files.items.add(new File([window.__ddnnStaged[key]], name, { type: 'application/json' }));
    input.files = files.files;
    input.dispatchEvent(new Event('change', { bubbles: true }));
  }, { testid, name, key });
}

// A Chrome trace file of at least `mb` MB: the events `head` (objects),
// then allocator counter samples (phase C, which the import counts and
// does not keep). Written in chunks; returns the number of events.
export function writeCounterTrace(file, mb, head) {
  const out = fs.openSync(file, 'w');
  fs.writeSync(out, '{"traceEvents": [\n' + head.map((e) => JSON.stringify(e)).join(',\n'));
  let n = head.length;
  const chunk = [];
  while (fs.fstatSync(out).size < mb * 1e6) {
    chunk.length = 0;
    for (let i = 0; i < 20000; i++, n++) chunk.push(`,\n{"ph":"C","name":"GPU_0_bfc","pid":9,"tid":0,"ts":${n},"args":{"allocated_bytes":${n * 64}}}`);
    fs.writeSync(out, chunk.join(''));
  }
  fs.writeSync(out, '\n]}');
  fs.closeSync(out);
  return n;
}
