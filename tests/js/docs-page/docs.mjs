// The documentation page's script: evaluate the page's scenario with the JS package,
// draw one chart with plotly, show a headline figure, and embed the planner on the
// same scenario. docs/js-package.md shows this file as its example.
import init, { evaluate, figure, display, encode } from './pkg/ddnn_planner.js';

try {
  await init(); // fetches pkg/ddnn_planner_bg.wasm, next to the module
  const scenario = await (await fetch('scenario.json')).json();

  const zeng = evaluate(scenario).models.zeng.report;
  const t = zeng.headline.find((f) => f.key === 'iteration-time').value;
  const out = document.getElementById('iteration-time');
  out.textContent = display(t); // "26.84 s", as the planner shows it
  out.dataset.value = String(t.value); // 26.843674729417838 s

  const timeline = zeng.charts.find((c) => c.key === 'timeline');
  await Plotly.newPlot('timeline', figure(timeline));

  document.getElementById('planner').src = `planner/?embed=1#${encode(scenario)}`;
} catch (err) {
  const el = document.getElementById('error');
  el.hidden = false;
  el.textContent = `ddnn-planner: ${err.message}`;
  throw err;
}
