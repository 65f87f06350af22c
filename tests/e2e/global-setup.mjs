// Playwright global setup for the e2e suite (playwright.config.mjs): checks
// that the build and the browser are there, then serves DIST with
// tests/e2e/server.mjs on 127.0.0.1 (a free port) under every base path a
// project asks for ('/' and the sub-path project's /some/dir/). The
// addresses reach the test workers as DDNN_E2E_SERVERS (JSON: base path →
// URL); fixtures.mjs turns them into each test's baseURL. Returns the
// teardown that stops the servers.

import fs from 'node:fs';
import path from 'node:path';
import { normaliseBasePath, startServer } from './server.mjs';
import { CHROMIUM, DIST } from './env.mjs';

export default async function globalSetup(config) {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    throw new Error(`e2e: ${DIST}/index.html not found; build first (make build / trunk build --release), or set DIST`);
  }
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`e2e: browser ${CHROMIUM} not found (apt-get install chromium, or set CHROMIUM)`);
  }
  const bases = new Set(['/']);
  for (const p of config.projects) {
    if (p.use?.basePath) bases.add(normaliseBasePath(p.use.basePath));
  }
  if (process.env.BASE_PATH) bases.add(normaliseBasePath(process.env.BASE_PATH));
  const servers = [];
  const urls = {};
  for (const base of bases) {
    const server = await startServer(DIST, base, { host: '127.0.0.1', port: 0 });
    servers.push(server);
    urls[base] = `http://127.0.0.1:${server.address().port}${base}`;
  }
  process.env.DDNN_E2E_SERVERS = JSON.stringify(urls);
  console.log(`e2e: serving ${DIST} at ${Object.values(urls).join(', ')}; browser ${CHROMIUM}`);
  return async () => {
    for (const server of servers) {
      const closed = new Promise((r) => server.close(r));
      server.closeAllConnections?.();
      await closed;
    }
  };
}
