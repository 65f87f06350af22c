// @playwright/test configuration of the browser end-to-end suite
// (tests/e2e/specs/*.spec.mjs on the built dist/, `make e2e`):
//
//   npx playwright test                      every spec, every project
//   npx playwright test --grep big-trace     one spec (file name or title)
//   npx playwright test --project desktop    one project (desktop: every spec at
//                                            1280x800; subpath: smoke and share under
//                                            /some/dir/; phone: some specs at 390x844)
//   LONG_TASKS=report npx playwright test    long tasks printed, never failed
//   DIST=/path/to/dist npx playwright test   another build
//
// The Debian chromium (/usr/bin/chromium, or CHROMIUM) runs it: Playwright
// never downloads a browser here. One worker, one test at a time (2 cores,
// and the long-task check wants the machine to itself). Every spec gets the
// checks of tests/e2e/fixtures.mjs (console errors, requests off 127.0.0.1,
// CSP violations, long tasks). A failed test's screenshots, and the trace
// of its re-run, are kept under test-results/e2e/; the HTML report is
// written to test-results/e2e-report/ (npx playwright show-report
// test-results/e2e-report).

import { defineConfig } from '@playwright/test';
import { CHROMIUM, CHROMIUM_ARGS, HEADED, SPEC_TIMEOUT_MS } from './tests/e2e/env.mjs';

export default defineConfig({
  testDir: './tests/e2e/specs',
  testMatch: '*.spec.mjs',
  outputDir: './test-results/e2e',
  globalSetup: './tests/e2e/global-setup.mjs',
  timeout: SPEC_TIMEOUT_MS,
  workers: 1,
  fullyParallel: false,
  // A failed test runs once more (tests/e2e/fixtures.mjs, verdict): after
  // long tasks alone, to see whether they repeat; after anything else, to
  // record a trace, and it fails whatever that run does.
  retries: 1,
  forbidOnly: Boolean(process.env.CI),
  reporter: [
    ['list'],
    ['html', { outputFolder: './test-results/e2e-report', open: 'never' }],
    ['./tests/e2e/summary-reporter.mjs'],
  ],
  use: {
    browserName: 'chromium',
    headless: !HEADED,
    launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 },
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    locale: 'en-US',
    timezoneId: 'UTC',
    colorScheme: 'light',
    reducedMotion: 'reduce',
    // Each test starts uncached; the offline specs allow their worker.
    serviceWorkers: 'block',
    actionTimeout: 30_000,
    navigationTimeout: 30_000,
    // No trace of a first run: tracing costs this 2-core machine 70% more
    // CPU and stretches the page's tasks past the long-task limit. The
    // fixtures trace the re-run of a test that failed (--trace on traces
    // every run, for debugging).
    trace: 'off',
    screenshot: 'only-on-failure',
  },
  projects: [
    { name: 'desktop' },
    // The same build served under a sub-path (a GitHub Pages style
    // deployment): the page's asset paths are relative.
    { name: 'subpath', testMatch: /(smoke|share)\.spec\.mjs$/, use: { basePath: '/some/dir/' } },
    // A phone's viewport for the specs whose steps hold at any width
    // (layout and trust check the phone layout itself; main, edit and the
    // model specs look for charts on a desktop's first screen).
    {
      name: 'phone',
      testMatch: /(smoke|bad-url|share|history|export|keyboard|hostile-names|upload|versions)\.spec\.mjs$/,
      use: { viewport: { width: 390, height: 844 } },
    },
  ],
});
