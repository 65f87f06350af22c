import fs from 'node:fs';
import { createRequire } from 'node:module';
import { INPUT_TABS, eachInputSection, open, pickExample, showView, showInputs } from '../planner.mjs';
import { test, specTimeout } from '../fixtures.mjs';

const name = 'accessibility: axe-core finds no serious or critical violation on any results view (chart tables closed and open) or input tab, with each model example loaded, in light and dark themes; every control has a name and every numeric field its unit';

// Six views, seven examples, four input tabs, two themes: about 40 s on a
// quick machine, over the default 60 s on a slow one.
test.describe.configure({ timeout: specTimeout(150_000) });

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

// Numeric fields whose quantity is a count or a pure number, so their label
// names it without a bracketed unit; every other numeric field says
// "[unit]" in its label.
const UNITLESS = [
  /^workers\b/, /^PS nodes$/, /^GPUs per instance$/, /^vCPUs$/, /^stream processors$/,
  /^gradient pushes per iteration/, /^values per push\/pull/, /^values per pull/, /^samples per epoch/,
  /^loss goal$/, /^seeds?\b/, /count/,
];

/** Every visible form control's accessible name (aria-label, its labels or
 *  aria-labelledby) with its testid and whether it takes a number. */
async function controls(page) {
  return page.evaluate(() => {
    const out = [];
    for (const el of document.querySelectorAll('input, select, textarea')) {
      if (el.type === 'hidden') continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      let label = el.getAttribute('aria-label') || '';
      if (!label && el.labels) label = [...el.labels].map((l) => (l.querySelector('.field-label') || l).textContent).join(' ');
      if (!label && el.getAttribute('aria-labelledby')) {
        label = el.getAttribute('aria-labelledby').split(' ').map((i) => document.getElementById(i)?.textContent || '').join(' ');
      }
      const numeric = el.tagName === 'INPUT' && (el.type === 'number' || el.inputMode === 'numeric' || el.inputMode === 'decimal');
      out.push({ id: el.dataset.testid || el.name || el.tagName.toLowerCase(), label: label.trim().replace(/\s+/g, ' '), numeric });
    }
    return out;
  });
}

/** What is wrong with control `c`'s name, or null. */
function nameProblem(c) {
  if (!c.label) return `${c.id} has no accessible name`;
  if (c.numeric && !/\[[^\]]+\]/.test(c.label) && !UNITLESS.some((re) => re.test(c.label))) {
    return `numeric field ${c.id} "${c.label}" names no unit`;
  }
  return null;
}

async function audit(ctx, page, where) {
  // axe-core runs in the page's main thread, in tasks of 50-100 ms: the
  // test's work, not the page's, so its tasks are printed, not failed.
  return ctx.exempt(page, 'an axe-core audit', () => auditNow(page, where));
}

async function auditNow(page, where) {
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

test(name, async ({ ctx }) => {
  const { assert } = ctx;
  const problems = [];
  let fields = 0;
  let opened = 0;
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
      problems.push(...(await audit(ctx, page, `${scheme}, ${view} view (example ${example})`)));
      // The table equivalent of every chart, opened one by one as a user
      // would (each builds its rows as it opens: all at once, one task).
      const tables = await page.locator('details.chart-table:not([open])').count();
      for (let i = 0; i < tables; i++) {
        await page.evaluate(() => new Promise((done) => {
          const d = document.querySelector('details.chart-table:not([open])');
          if (d) d.open = true;
          requestAnimationFrame(() => setTimeout(done));
        }));
      }
      opened += tables;
      if (tables > 0) {
        await page.waitForTimeout(300);
        problems.push(...(await audit(ctx, page, `${scheme}, ${view} view with ${tables} chart tables open`)));
      }
    }
    for (const tab of INPUT_TABS) {
      await showInputs(page, tab);
      await page.waitForTimeout(200);
      problems.push(...(await audit(ctx, page, `${scheme}, ${tab} inputs`)));
    }
    await page.close();
  }
  // Names and units: every example, every input tab, folded sections open.
  const page = await open(ctx);
  const seen = new Set();
  await eachInputSection(page, async (example, tab) => {
    await page.evaluate(() => document.querySelectorAll('main details:not([open]):not(.chart-table)').forEach((d) => { d.open = true; }));
    await page.waitForTimeout(100);
    for (const c of await controls(page)) {
      const key = `${c.id}|${c.label}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (c.numeric) fields += 1;
      const problem = nameProblem(c);
      if (problem) problems.push(`${tab} inputs (example ${example}): ${problem}`);
    }
  });
  await page.close();
  const unique = [...new Set(problems)];
  ctx.log(`${unique.length} findings; ${opened} chart tables audited open; ${fields} numeric fields checked for a unit`);
  assert.ok(opened >= 10, `only ${opened} chart tables opened`);
  assert.ok(fields >= 20, `only ${fields} numeric fields seen`);
  assert.equal(unique.length, 0, `axe-core:\n${unique.join('\n')}`);
});
