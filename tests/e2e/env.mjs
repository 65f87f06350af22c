// Settings of the e2e suite shared by playwright.config.mjs, its global setup
// and the fixtures (tests/e2e/fixtures.mjs), from the environment:
//
//   DIST             the built site to serve (default: <repo>/dist, `trunk build --release`)
//   CHROMIUM         browser executable (default: /usr/bin/chromium, Debian's)
//   SCREENSHOTS      directory for ctx.screenshot() (default: <repo>/docs/screenshots)
//   SPEC_TIMEOUT_MS  a test's time limit (default 60000; a spec that asks for
//                    more with specTimeout(ms) gets the larger of the two)
//   HEADED=1         show the browser window (debugging only)

import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '..', '..');
export const DIST = path.resolve(process.env.DIST || path.join(ROOT, 'dist'));
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const SCREENSHOTS = path.resolve(process.env.SCREENSHOTS || path.join(ROOT, 'docs', 'screenshots'));
export const SPEC_TIMEOUT_MS = Number(process.env.SPEC_TIMEOUT_MS || 60_000);
export const HEADED = Boolean(process.env.HEADED);

// Headless, no sandbox (root in a container), no GPU, and nothing of
// Chromium's own that would phone home. Playwright adds its own defaults
// (a fresh temporary profile per browser, a new context per test).
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
].filter((a) => !(HEADED && a === '--headless'));

/** A spec's time limit: `ms`, or SPEC_TIMEOUT_MS if that is larger. */
export const specTimeout = (ms) => Math.max(SPEC_TIMEOUT_MS, ms);
