import { chromium } from 'playwright';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
for (const [w, h] of [[1280, 800], [390, 844]]) {
  const p = await b.newPage({ viewport: { width: w, height: h } });
  p.on('console', (m) => { if (m.type() === 'error') console.log('console error', m.text()); });
  await p.goto('http://127.0.0.1:8123/', { waitUntil: 'load' });
  await p.locator('[data-testid=examples] summary').click();
  await p.locator('[data-testid=example-7]').click();
  await p.waitForTimeout(1500);
  await p.locator('[data-testid=view-runs]').click();
  await p.locator('[data-testid=calibration-action-zeng-bands]').click({ timeout: 20000 });
  await p.waitForTimeout(2000);
  await p.locator('[data-testid=view-overview]').click();
  await p.waitForTimeout(2500);
  await p.screenshot({ path: `/tmp/cal-${w}.png` });
  await p.locator('[data-testid=inputs-models]').click().catch(() => {});
  await p.waitForTimeout(800);
  const r = p.locator('section[aria-label="uncertainty ranges"]');
  if (await r.count()) { await r.scrollIntoViewIfNeeded(); await p.screenshot({ path: `/tmp/ranges-${w}.png` }); }
}
await b.close();
