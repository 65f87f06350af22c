// The JS package (`make js` → target/js-pkg, wasm-pack --target web) in plain node:
// the same wasm a documentation page loads, initialised with initSync from the file.
//
//   node --test tests/js/node.test.mjs        (make test-js)
//
// JS_PKG overrides the package directory.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PKG = path.resolve(process.env.JS_PKG || path.join(ROOT, 'target', 'js-pkg'));
const EXAMPLES = path.join(ROOT, 'public', 'examples');

const entry = path.join(PKG, 'ddnn_planner.js');
if (!fs.existsSync(entry)) {
  throw new Error(`${entry} not found: build the package first (make js)`);
}
const pkg = await import(pathToFileURL(entry).href);
pkg.initSync({ module: fs.readFileSync(path.join(PKG, 'ddnn_planner_bg.wasm')) });
const { evaluate, calibrate, encode, decode, models, example, figure, display, papers } = pkg;

// The registry's ids, in order, as `registry!` in src/models/mod.rs lists
// them (`<id>: <type>,` one a line): the package must list the same.
const REGISTRY = (() => {
  const src = fs.readFileSync(path.join(ROOT, 'src', 'models', 'mod.rs'), 'utf8');
  const body = src.match(/macro_rules! registry \{[\s\S]*?\$callback! \{([\s\S]*?)\}/)?.[1] ?? '';
  const ids = [...body.matchAll(/^\s*(\w+): \w+,$/gm)].map((m) => m[1]);
  assert.ok(ids.length > 0, 'registry! lists no model in src/models/mod.rs');
  return ids;
})();
const readExample = (name) => JSON.parse(fs.readFileSync(path.join(EXAMPLES, name), 'utf8'));
const headline = (report, key) => report.headline.find((f) => f.key === key);
/** Calls `fn`, which must throw an Error whose message matches `re`; returns the message. */
function thrown(fn, re) {
  let err;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof Error, `expected an Error, got ${err}`);
  assert.match(err.message, re);
  return err.message;
}

test('package.json comes from Cargo.toml, with types', () => {
  const meta = JSON.parse(fs.readFileSync(path.join(PKG, 'package.json'), 'utf8'));
  assert.equal(meta.name, 'ddnn-planner');
  assert.equal(meta.license, 'MIT');
  assert.match(meta.version, /^\d+\.\d+\.\d+/);
  assert.equal(meta.type, 'module');
  assert.equal(meta.types, 'ddnn_planner.d.ts');
  const dts = fs.readFileSync(path.join(PKG, 'ddnn_planner.d.ts'), 'utf8');
  for (const sig of [
    /export function evaluate\(scenario: Scenario \| string\): Evaluation;/,
    /export function calibrate\(scenario: Scenario \| string\): Calibration;/,
    /runs\?: Outcome;/,
    /export function encode\(scenario: Scenario \| string\): string;/,
    /export function decode\(fragment: string\): Scenario;/,
    /export function models\(\): ModelInfo\[\];/,
    /export function figure\(chart: Chart\): PlotlyFigure;/,
    /export interface Report \{/,
  ]) {
    assert.match(dts, sig);
  }
  assert.doesNotMatch(dts, /export function \w+\([^)]*\): any;/, 'no export returns any');
});

test('the package exports this API (and no other function of the crate)', () => {
  const functions = Object.keys(pkg).filter((k) => typeof pkg[k] === 'function' && !/^[A-Z]/.test(k));
  assert.deepEqual(functions.sort(), [
    'calibrate', 'decode', 'default', 'display', 'encode', 'evaluate', 'example', 'figure', 'initSync', 'models', 'papers',
  ]);
});

test('evaluate: the VGG-16 example, bit for bit as tests/suite/golden.rs', () => {
  const scenario = readExample('vgg16-hetero-1gbe.json');
  const out = evaluate(scenario);
  assert.deepEqual(Object.keys(out), ['title', 'models']);
  // No typed title: the one derived from the inputs.
  assert.match(out.title, /^VGG-16 · 2× Quadro RTX 4000 \(bs 32\) \+ 1× GeForce GTX 1060 6GB \(bs 32\) · PS link 1 Gb\/s$/);
  assert.deepEqual(Object.keys(out.models), REGISTRY, 'registry order');
  const zeng = out.models.zeng.report;
  assert.equal(zeng.model, 'zeng');
  const t = headline(zeng, 'iteration-time').value;
  assert.equal(t.kind, 'number');
  assert.equal(t.unit, 'seconds');
  assert.ok(Object.is(t.value, 26.843674729417838), `iteration time ${t.value}`);
  assert.equal(display(t), '26.84 s');
  assert.deepEqual(
    zeng.charts.map((c) => c.key),
    ['timeline', 'workers-iteration', 'workers-speedup', 'bandwidth'],
  );
  // No job profile: Cynthia says what it needs instead of failing.
  const cynthia = out.models.cynthia;
  assert.equal(cynthia.report, undefined);
  assert.equal(cynthia.unavailable.kind, 'missing');
  assert.equal(cynthia.unavailable.needs[0].field, 'workload.profile');
});

test('evaluate: the Stash example has its 500% network stall', () => {
  const stash = evaluate(readExample('stash-p3.json')).models.stash.report;
  const worst = headline(stash, 'worst-stall').value;
  assert.equal(worst.unit, 'percent');
  assert.ok(Math.abs(worst.value - 5) < 1e-12, `${worst.value}`);
  assert.equal(display(worst), '500.0%');
});

test('evaluate: JSON text and the object give the same result', () => {
  const text = fs.readFileSync(path.join(EXAMPLES, 'vgg16-hetero-1gbe.json'), 'utf8');
  assert.deepEqual(evaluate(text), evaluate(JSON.parse(text)));
});

test('evaluate: the Cynthia example has a Cynthia report', () => {
  const out = evaluate(readExample('cifar10-bsp-m4.json'));
  const r = out.models.cynthia.report;
  assert.equal(r.model, 'cynthia');
  const cost = headline(r, 'cost').value;
  assert.equal(cost.unit, 'usd');
  assert.ok(cost.value > 0 && Number.isFinite(cost.value), `cost ${cost.value}`);
  assert.match(display(cost), /^\$\d/);
  assert.ok(r.charts.length > 0 && r.tables.length > 0);
  assert.ok(out.models.zeng.report, 'the Zeng model runs on the same scenario');
});

test('figure: a chart as a plotly figure', () => {
  const zeng = evaluate(readExample('vgg16-hetero-1gbe.json')).models.zeng.report;
  const chart = zeng.charts.find((c) => c.key === 'timeline');
  const fig = figure(chart);
  assert.deepEqual(Object.keys(fig).sort(), ['config', 'data', 'layout']);
  assert.ok(fig.data.length > 0);
  assert.equal(fig.layout.title.text, chart.title);
  thrown(() => figure({ key: 'x' }), /^not a report chart: missing field `title`$/);
  thrown(() => display({ kind: 'nope' }), /^not a report value: unknown variant `nope`/);
});

test('encode → decode round-trips; decode takes a fragment, #fragment or a whole link', () => {
  const scenario = readExample('cifar10-bsp-m4.json');
  const frag = encode(scenario);
  assert.match(frag, /^s2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{6}$/);
  const back = decode(frag);
  assert.equal(back.title, scenario.title ?? '');
  assert.equal(encode(back), frag, 'a decoded scenario encodes to the same fragment');
  assert.deepEqual(evaluate(back), evaluate(scenario));
  assert.deepEqual(decode(`#${frag}`), back);
  assert.deepEqual(decode(`http://127.0.0.1:8080/?embed=1#${frag}`), back);
  assert.deepEqual(decode(`http://127.0.0.1:8080/#${frag}&view=cynthia`), back, 'a page link with its view');
  assert.equal(encode(JSON.stringify(scenario)), frag, 'text and object encode alike');
});

test('decode: garbage throws a readable Error', () => {
  thrown(() => decode('s1.!!!not-base64!!!'), /the link's scenario is damaged/);
  thrown(() => decode('s1.AAAA'), /the link's scenario is damaged/);
  thrown(() => decode('s2.AAAA.AAAAAA'), /the link is damaged/);
  thrown(() => decode('hello'), /does not carry a scenario/);
  thrown(() => decode('s9.abc'), /newer ddnn-planner/);
});

test('version-1 documents and links are upgraded on reading', () => {
  const V1 = path.join(ROOT, 'tests', 'fixtures', 'v1');
  const current = example().version;
  const doc = JSON.parse(fs.readFileSync(path.join(V1, 'vgg16-hetero-1gbe.scenario.json'), 'utf8'));
  assert.equal(doc.version, 1);
  const zeng = evaluate(doc).models.zeng.report;
  assert.ok(Object.is(headline(zeng, 'iteration-time').value.value, 26.843674729417838));
  const link = fs.readFileSync(path.join(V1, 'vgg16-hetero-1gbe.fragment.txt'), 'utf8').trim();
  const fromLink = decode(link);
  assert.equal(fromLink.version, current, 'decode returns the current version');
  assert.deepEqual(evaluate(fromLink), evaluate(doc));
  assert.equal(decode(encode(doc)).version, current, 'encode writes the current version');
  assert.deepEqual(decode(encode(fromLink)), fromLink);
});

test('a newer document version throws "newer ddnn-planner"', () => {
  const future = { ...readExample('vgg16-hetero-1gbe.json'), version: 999 };
  const msg = thrown(() => evaluate(future), /newer ddnn-planner/);
  assert.match(msg, /document version 999/);
  thrown(() => encode(future), /newer ddnn-planner/);
});

test('documents that are not scenarios throw with the CLI\'s message', () => {
  thrown(() => evaluate('{ not json'), /^not a scenario document: /);
  thrown(() => evaluate({ title: 'no version' }), /^not a scenario document: missing "version"/);
  thrown(() => evaluate(42), /^not a scenario document: /);
  thrown(() => evaluate(null), /^not a scenario document: /);
});

test('models(): the registry with the inputs each model reads', () => {
  const list = models();
  assert.deepEqual(list.map((m) => m.id), REGISTRY);
  for (const m of list) {
    assert.deepEqual(Object.keys(m), ['id', 'name', 'about', 'paper', 'needs']);
    assert.ok(m.name && m.about && m.paper, m.id);
    assert.ok(m.needs.length > 0, `${m.id} needs`);
    for (const n of m.needs) {
      assert.equal(typeof n.field, 'string');
      assert.equal(typeof n.what, 'string');
      assert.equal(typeof n.optional, 'boolean');
    }
  }
  const cynthia = list.find((m) => m.id === 'cynthia');
  assert.ok(cynthia.needs.some((n) => n.field === 'workload.profile'));
});

test('example(): the landing example evaluates', () => {
  const s = example();
  assert.equal(typeof s.version, 'number');
  const zeng = evaluate(s).models.zeng.report;
  assert.ok(headline(zeng, 'iteration-time').value.value > 0);
});

// Issue 35: measured runs and calibration carried by the package; the
// figures are the CLI's (`ddnn-planner eval|calibrate
// public/examples/zeng-tables6-7-vgg16-runs.json`).
test('evaluate holds every model against the runs; calibrate fits and stores the factors', () => {
  const scenario = readExample('zeng-tables6-7-vgg16-runs.json');
  const out = evaluate(scenario);
  assert.deepEqual(Object.keys(out), ['title', 'models', 'runs']);
  const runs = out.runs.report;
  assert.equal(headline(runs, 'runs').value.value, 4);
  assert.ok(Math.abs(headline(runs, 'zeng-median-error').value.value - 0.09979) < 1e-5);
  assert.equal(Object.keys(evaluate(readExample('vgg16-hetero-1gbe.json'))).includes('runs'), false, 'no runs, no key');

  const cal = calibrate(scenario);
  assert.ok(Math.abs(headline(cal.report, 'zeng-loo-median-error').value.value - 0.01511) < 1e-5);
  assert.ok(Math.abs(cal.scenario.calibration.zeng.link - 0.948) < 0.001, 'the link factor stored');
  const t = headline(evaluate(cal.scenario).models.zeng.report, 'iteration-time').value.value;
  assert.ok(Math.abs(t - 28.65) < 0.005, `calibrated iteration ${t} s`);
  thrown(() => calibrate(readExample('vgg16-hetero-1gbe.json')), /no measured runs/);
});

// The paper check: `ddnn-planner papers --format json`'s figures.
test('papers: the papers\' cells, recomputed and calibrated, as the CLI prints them', () => {
  const r = papers();
  assert.equal(r.model, 'papers');
  assert.equal(headline(r, 'cells').value.value, 56);
  assert.ok(Math.abs(headline(r, 'zeng-published-median').value.value - 0.06313) < 1e-5);
  assert.ok(Math.abs(headline(r, 'zeng-loo-median').value.value - 0.01907) < 1e-5);
  const cells = r.tables.find((t) => t.key === 'cells');
  assert.equal(cells.rows.length, 56);
});
