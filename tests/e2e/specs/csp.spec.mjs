import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from '../planner.mjs';
import { test } from '../fixtures.mjs';

const name = 'a strict Content-Security-Policy: no unsafe-eval, no remote origin, the loader allowed by hash; an injected inline script does not run; the same policy ships as _headers';

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const page = await open(ctx, '', { allowConsole: [/Content Security Policy|CSP violation/] });
  const policy = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') || '');
  assert.match(policy, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/=]{44}'/);
  assert(!/'unsafe-eval'/.test(policy), policy);
  assert(!/https?:|\*/.test(policy), `no remote origin: ${policy}`);
  assert.match(policy, /default-src 'self'/);
  assert.match(policy, /object-src 'none'/);

  // A script written into the page at run time is refused.
  const [ran, violated] = await page.evaluate(() => new Promise((resolve) => {
    const seen = [];
    document.addEventListener('securitypolicyviolation', (e) => seen.push(e.violatedDirective));
    const s = document.createElement('script');
    s.textContent = 'window.__injected = true;';
    document.body.append(s);
    setTimeout(() => resolve([Boolean(window.__injected), seen]), 100);
  }));
  assert.equal(ran, false, 'an injected inline script ran');
  assert(violated.some((d) => d.startsWith('script-src')), `the violation is reported (${violated})`);

  // Static hosts that read _headers send the same policy.
  const dist = path.resolve(process.env.DIST || fileURLToPath(new URL('../../../dist', import.meta.url)));
  const headers = fs.readFileSync(path.join(dist, '_headers'), 'utf8');
  assert(headers.includes(`Content-Security-Policy: ${policy}`), headers);
});
