// The e2e suite's fixtures on @playwright/test (playwright.config.mjs runs
// tests/e2e/specs/*.spec.mjs with them). Every spec imports `test` from here
// and gets, without asking, the checks below; a spec's body takes `ctx`.
//
// Checks every test gets (auto fixtures), on every page of its browser
// context (ctx.newPage, the built-in `page`, popups) and frame:
//   consoleErrors    any console error (a worker's too: it reaches the page),
//                    any uncaught page error fails the test. A spec may
//                    tolerate some: ctx.newPage({ allowConsole: [RegExp] })
//                    for one page, test.use({ allowConsole: [...] }) for all.
//   offHostRequests  any request to a host other than 127.0.0.1 (data:, blob:,
//                    about: are fine) fails the test, and is aborted: nothing
//                    leaves the machine.
//   cspViolations    a Content-Security-Policy violation is reported in the
//                    page as a console error, so it fails the test.
//   longTaskProbe    main-thread long tasks (PerformanceObserver 'longtask')
//                    that start after the page's first render (the app's
//                    performance mark 'ddnn-first-render'), read when a page
//                    closes (by the spec or at the test's end): those over
//                    50 ms (the product's target) are printed and annotated;
//                    one over LONG_TASK_MS (default 100, a margin for a noisy
//                    machine) fails the test, unless it began in an interval
//                    the spec declared with ctx.exempt (printing, which blocks
//                    by design). LONG_TASKS=report only prints them.
//   verdict          judges the above after the test body. A test that failed
//                    on long tasks alone runs once more (config retries: 1)
//                    and passes only if that run has none: on 2 shared cores
//                    a task can be stretched by other processes, while a real
//                    regression repeats. A test that failed for any other
//                    reason runs once more too, with a Playwright trace (kept
//                    in its results and the HTML report), and fails whatever
//                    that run does: the first run has no trace, since tracing
//                    every run stretches the page's tasks.
//
// The spec's context, `ctx` (the API of the former custom runner, run.mjs):
//   ctx.baseUrl                 e.g. http://127.0.0.1:41234/ (ends with "/"), the
//                               project's base path on the global setup's server
//   ctx.url(path)               absolute URL for a path relative to baseUrl
//   await ctx.newPage(opts)     a fresh page, once the spec's other pages are
//                               quiet (nothing aria-busy for 200 ms: a second
//                               page compiling its wasm on both cores stretches
//                               the tasks of one still drawing)
//   await ctx.screenshot(page, 'name')   SCREENSHOTS/name.png (full page; default
//                               docs/screenshots), also attached to the report
//   ctx.assert                  assert(cond, msg), .equal, .notEqual, .match, .ok, .fail
//   ctx.log(...args)            a line under the test (stdout, in the report too)
//   await ctx.exempt(page, why, fn)  runs fn; long tasks begun meanwhile are
//                               printed, not failed
//
// Options (test.use or a project's `use`): basePath (BASE_PATH), longTasks
// ('enforce' | 'report', LONG_TASKS), longTaskLimitMs (LONG_TASK_MS),
// allowConsole. Environment: DIST (the build, default dist/), CHROMIUM
// (default /usr/bin/chromium), SCREENSHOTS, SPEC_TIMEOUT_MS, HEADED=1.

import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { test as base } from '@playwright/test';
import { normaliseBasePath } from './server.mjs';
import { recordLongTasks } from './hostile.mjs';
import { ROOT, SCREENSHOTS } from './env.mjs';

export { CHROMIUM, DIST, ROOT, SCREENSHOTS, specTimeout } from './env.mjs';
const LOCAL_HOST = '127.0.0.1';
const LONG_TASK_TARGET_MS = 50;

// ---------------------------------------------------------------------------------------
// Assertions (the specs' own: messages that read as sentences).

export class AssertionError extends Error {
  constructor(msg) {
    super(msg);
    this.name = 'AssertionError';
  }
}

function fmt(v) {
  try {
    return typeof v === 'string' ? JSON.stringify(v) : String(JSON.stringify(v) ?? v);
  } catch {
    return String(v);
  }
}

export function assert(cond, msg = 'assertion failed') {
  if (!cond) throw new AssertionError(msg);
}
assert.ok = assert;
assert.fail = (msg = 'failed') => {
  throw new AssertionError(msg);
};
assert.equal = (actual, expected, msg) => {
  if (!Object.is(actual, expected)) {
    throw new AssertionError(`${msg ? `${msg}: ` : ''}expected ${fmt(expected)}, got ${fmt(actual)}`);
  }
};
assert.notEqual = (actual, unexpected, msg) => {
  if (Object.is(actual, unexpected)) {
    throw new AssertionError(`${msg ? `${msg}: ` : ''}did not expect ${fmt(unexpected)}`);
  }
};
assert.match = (text, re, msg) => {
  if (typeof text !== 'string' || !re.test(text)) {
    throw new AssertionError(`${msg ? `${msg}: ` : ''}${fmt(text)} does not match ${re}`);
  }
};

const log = (...args) => console.log('    ', ...args);

// ---------------------------------------------------------------------------------------
// Request policy: only 127.0.0.1 (and data:/blob:/about: URLs) may be requested.

export function isAllowedUrl(raw) {
  let u;
  try {
    u = new URL(raw);
  } catch {
    return false;
  }
  if (u.protocol === 'data:' || u.protocol === 'blob:' || u.protocol === 'about:') return true;
  return u.hostname === LOCAL_HOST;
}

// ---------------------------------------------------------------------------------------
// Long tasks.

// Long tasks over `limit` after the first render: { ms, text, exempt }.
// `exempt`: the task began in an interval a spec declared (ctx.exempt).
async function longTasksAfterFirstRender(page, limit, exempt = []) {
  return page.evaluate(({ limit, exempt }) => {
    window.__ddnnFlushLongTasks?.();
    const mark = performance.getEntriesByName('ddnn-first-render')[0];
    if (!mark) return [];
    return (window.__ddnnLongTasks || [])
      .filter((t) => t.start >= mark.startTime && t.ms > limit)
      .map((t) => {
        const why = exempt.find(([from, to]) => t.start >= from && t.start <= to)?.[2];
        return { ms: t.ms, exempt: why, text: `${t.ms.toFixed(0)} ms at ${t.start.toFixed(0)} ms (${location.hash.length > 40 ? location.hash.slice(0, 40) + '…' : location.hash || location.pathname})${why ? ` during ${why}` : ''}` };
      });
  }, { limit, exempt });
}

// Waits (up to 10 s) until `page` has for 200 ms computed nothing, drawn
// no chart and built no panel: nothing marked `aria-busy`. (A drawing a
// click queued starts a task or two later, so a moment's calm is not it.)
async function quiet(page) {
  await page.evaluate(() => { window.__ddnnCalmSince = performance.now(); }).catch(() => {});
  await page.waitForFunction(() => {
    const now = performance.now();
    if (document.querySelector('[aria-busy="true"]')) window.__ddnnCalmSince = now;
    return now - window.__ddnnCalmSince > 200;
  }, null, { timeout: 10_000, polling: 50 }).catch(() => {});
}

// A check's failure: its message alone (the line of this file that threw
// it would say nothing).
function checkFailed(message) {
  const err = new Error(message);
  err.stack = `Error: ${message}`;
  return err;
}

// ---------------------------------------------------------------------------------------
// The fixtures.

export const test = base.extend({
  // Options.
  basePath: [normaliseBasePath(process.env.BASE_PATH || '/'), { option: true }],
  longTasks: [process.env.LONG_TASKS === 'report' ? 'report' : 'enforce', { option: true }],
  longTaskLimitMs: [Number(process.env.LONG_TASK_MS || 100), { option: true }],
  allowConsole: [[], { option: true }],

  // The global setup's server for this project's base path.
  baseURL: async ({ basePath }, use) => {
    const servers = JSON.parse(process.env.DDNN_E2E_SERVERS || '{}');
    const url = servers[basePath];
    if (!url) throw new Error(`e2e: no server for base path ${basePath} (global setup serves ${Object.keys(servers).join(', ') || 'none'})`);
    await use(url);
  },

  consoleErrors: [async ({ context, allowConsole }, use) => {
    const problems = [];
    const allowed = new WeakMap(); // page → RegExp[]
    context.on('console', (msg) => {
      if (msg.type() !== 'error') return;
      const text = msg.text();
      const page = msg.page();
      if ([...allowConsole, ...((page && allowed.get(page)) || [])].some((re) => re.test(text))) return;
      const loc = msg.location();
      const where = loc && loc.url ? ` (${loc.url}:${loc.lineNumber})` : '';
      const worker = msg.worker() ? ` in the worker ${msg.worker().url()}` : '';
      problems.push(`console error${worker}: ${text}${where}`);
    });
    context.on('weberror', (e) => {
      const err = e.error();
      problems.push(`page error: ${err && err.stack ? err.stack : err}`);
    });
    await use({ problems, allow: (page, res) => allowed.set(page, [...(allowed.get(page) || []), ...res]) });
  }, { auto: true, title: 'console errors and page errors fail the test' }],

  offHostRequests: [async ({ context }, use) => {
    const problems = [];
    context.on('request', (req) => {
      if (!isAllowedUrl(req.url())) problems.push(`request to a non-local address: ${req.url()}`);
    });
    // Never let a non-local request leave the machine.
    await context.route((url) => !isAllowedUrl(url.href), (route) => route.abort('blockedbyclient'));
    await use({ problems });
  }, { auto: true, title: 'requests off 127.0.0.1 fail the test' }],

  cspViolations: [async ({ context }, use) => {
    // A violation becomes a console error, which fails the test (a
    // worker's, too: Chromium logs it to the page's console).
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
      });
    });
    await use();
  }, { auto: true, title: 'Content-Security-Policy violations fail the test' }],

  longTaskProbe: [async ({ context, longTasks: mode, longTaskLimitMs }, use, testInfo) => {
    await context.addInitScript(recordLongTasks);
    const pages = [];
    const slow = [];
    const read = async (page) => {
      const state = page.__ddnn;
      if (!state || state.read) return;
      state.read = true;
      const found = await longTasksAfterFirstRender(page, LONG_TASK_TARGET_MS, state.exempt).catch(() => []);
      for (const { ms, text: t, exempt } of found) {
        const text = pages.length > 1 ? `${t} on the spec's page ${state.index}` : t;
        if (mode !== 'report' && ms > longTaskLimitMs && !exempt) {
          slow.push(`main-thread task over ${longTaskLimitMs} ms after the first render: ${text}`);
        } else {
          log(`long task (target ${LONG_TASK_TARGET_MS} ms): ${text}`);
        }
        testInfo.annotations.push({ type: `long task${ms > longTaskLimitMs && !exempt ? ` over ${longTaskLimitMs} ms` : ''}`, description: text });
      }
    };
    // Every page of the context, however it was opened: its long tasks
    // are read before it closes, whoever closes it.
    const watch = (page) => {
      if (page.__ddnn) return;
      page.__ddnn = { index: pages.length + 1, exempt: [], read: false };
      pages.push(page);
      const close = page.close.bind(page);
      page.close = async (o) => {
        if (!page.isClosed()) await read(page);
        return close(o);
      };
    };
    context.on('page', watch);
    await use({
      pages,
      watch,
      /** Reads every page still open; the tasks over the limit. */
      async finish() {
        for (const page of pages) if (!page.isClosed()) await read(page);
        return slow;
      },
    });
  }, { auto: true, title: 'main-thread long tasks after the first render' }],

  verdict: [async ({ context, consoleErrors, offHostRequests, longTaskProbe, trace }, use, testInfo) => {
    // Why the run before this one failed (a retry's marker file, written
    // below): 'long tasks' alone, or 'other'.
    const marker = path.join(testInfo.project.outputDir, '.first-run', testInfo.testId);
    const rerun = testInfo.retry > 0 ? (fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : 'other') : null;
    // A test that failed otherwise runs once more with a trace (unless
    // Playwright traces every run already: --trace on): tracing every run
    // would cost the long-task check its meaning (measured on 4 specs:
    // 70% more CPU, 4-30 tasks over 50 ms instead of 1), so the first run
    // has none, and the re-run records what led to the failure.
    const tracing = rerun === 'other' && (trace === 'off' || trace?.mode === 'off');
    if (tracing) await context.tracing.start({ title: testInfo.title, screenshots: true, snapshots: true, sources: true });
    await use();
    const slow = await longTaskProbe.finish();
    const problems = [...consoleErrors.problems, ...offHostRequests.problems];
    const passed = testInfo.status === 'passed' && problems.length === 0;
    if (tracing) {
      const file = testInfo.outputPath('trace.zip');
      await context.tracing.stop({ path: file });
      testInfo.attachments.push({ name: 'trace', path: file, contentType: 'application/zip' });
    }
    if (rerun === 'other') {
      // Tracing stretches tasks: not judged in this run.
      for (const t of slow) log(`${t} (a traced re-run: not judged)`);
      if (problems.length) throw checkFailed(problems.join('\n'));
      if (passed) throw checkFailed('the first run failed (see it above); this re-run, which records a trace of the test, passed: the test fails all the same');
      return;
    }
    if (passed && slow.length === 0) return;
    if (testInfo.retry < testInfo.project.retries) {
      await fsp.mkdir(path.dirname(marker), { recursive: true });
      await fsp.writeFile(marker, passed ? 'long tasks' : 'other');
    }
    if (passed) {
      throw checkFailed(`${slow.join('\n')}${testInfo.retry < testInfo.project.retries ? '\n(long tasks alone: the test runs once more, and passes if that run has none)' : ''}`);
    }
    if (problems.length || slow.length) throw checkFailed([...problems, ...slow].join('\n'));
  }, { auto: true, title: 'the checks every test gets' }],

  // The specs' context.
  ctx: async ({ context, baseURL, consoleErrors, longTaskProbe }, use, testInfo) => {
    const ctx = {
      baseUrl: baseURL,
      url: (p = '') => new URL(String(p).replace(/^\//, ''), baseURL).href,
      assert,
      log,
      async newPage(opts = {}) {
        // A second page loading (its wasm compiled on both cores) stretches
        // the tasks of a page still drawing: ~30 ms of work measured 150 ms.
        // A user's new tab does not race the old one, so neither do ours.
        for (const other of longTaskProbe.pages) if (!other.isClosed()) await quiet(other);
        const page = await context.newPage();
        longTaskProbe.watch(page);
        if (opts.allowConsole) consoleErrors.allow(page, opts.allowConsole);
        return page;
      },
      // Runs `fn`; the page's tasks that begin meanwhile are printed, never
      // failed. Only for what blocks by design: printing lays out and draws
      // everything in the `beforeprint` event's task.
      async exempt(page, why, fn) {
        longTaskProbe.watch(page);
        const now = () => page.evaluate(() => performance.now());
        const from = await now();
        try {
          return await fn();
        } finally {
          page.__ddnn.exempt.push([from, await now(), why]);
        }
      },
      async screenshot(page, name) {
        assert(/^[A-Za-z0-9_.-]+$/.test(name), `bad screenshot name ${fmt(name)}`);
        await fsp.mkdir(SCREENSHOTS, { recursive: true });
        const file = path.join(SCREENSHOTS, `${name}.png`);
        await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
        log(`screenshot: ${file.startsWith(ROOT + path.sep) ? path.relative(ROOT, file) : file}`);
        await testInfo.attach(name, { path: file, contentType: 'image/png' });
        return file;
      },
    };
    await use(ctx);
  },
});
