import fs from 'node:fs';
import { createRequire } from 'node:module';
import { ID, open, pickExample, showView, showInputs } from '../planner.mjs';

export const name = 'accessibility: axe-core finds no serious or critical violation on any results view or input tab, with each model example loaded, in light and dark themes';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

// Results views and the example that gives each a result (toolbar.rs).
const VIEWS = [
  ['overview', -1],
  ['zeng', -1],
  ['cynthia', 2],
  ['spotdnn', 4],
  ['stash', 5],
  ['li', 6],
];
const TABS = ['workload', 'cluster', 'catalog', 'models'];

async function audit(page, where) {
  // Evaluated over the debugging protocol, so the page's own
  // Content-Security-Policy (no injected scripts) does not stop it.
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return found.map((v) => `${where}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(' | ')}`);
}

export async function run(ctx) {
  const { assert } = ctx;
  const problems = [];
  for (const scheme of ['light', 'dark']) {
    const page = await open(ctx);
    await page.emulateMedia({ colorScheme: scheme });
    for (const [view, example] of VIEWS) {
      if (example >= 0) {
        await pickExample(page, example);
      }
      await showView(page, view);
      await page.waitForFunction(() => !document.querySelector('[data-testid$="-pending"]'), null, { timeout: 60_000 });
      await page.waitForTimeout(300);
      problems.push(...(await audit(page, `${scheme}, ${view} view (example ${example})`)));
    }
    for (const tab of TABS) {
      await showInputs(page, tab);
      await page.waitForTimeout(200);
      problems.push(...(await audit(page, `${scheme}, ${tab} inputs`)));
    }
    await page.close();
  }
  const unique = [...new Set(problems)];
  ctx.log(`${unique.length} serious or critical findings`);
  assert.equal(unique.length, 0, `axe-core:\n${unique.join('\n')}`);
}
