// Trunk post-build hook (Trunk.toml), three jobs that need the built files
// (and it leaves the comments out of the shipped HTML and small scripts):
//
// 0. plotly.js, copied by Trunk as `plotly-basic.min.js`, gets V8's
//    compile hint, is named by its content hash, and the page learns that
//    name (and the file's integrity) from `<meta name="ddnn-plotly">`: the
//    app loads it only when the first chart is to be drawn
//    (src/ui/plotly_js.rs).
// 1. A strict Content-Security-Policy in the built page, and the same
//    policy as a `_headers` file for static hosts that read one (Netlify,
//    Cloudflare Pages). The page has two inline scripts, Trunk's wasm
//    loader (its text names the hashed files) and the model worker's early
//    start (index.html), so their hashes are computed here and allowed by
//    hash alone.
// 2. The offline cache worker (`sw.js`): this build's name (a hash of every
//    file) and the list of files it caches.
//
// The policy: everything from this origin only; wasm may compile
// ('wasm-unsafe-eval', never 'unsafe-eval'); styles may be inline (plotly
// sets style attributes); images may be data:/blob: (chart exports).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('postbuild.mjs runs as a Trunk post_build hook (TRUNK_STAGING_DIR unset)');
const file = path.join(dir, 'index.html');
let html = fs.readFileSync(file, 'utf8');

// 0. plotly.js under its content hash, announced to the app.
{
  const plain = path.join(dir, 'plotly-basic.min.js');
  if (!fs.existsSync(plain)) throw new Error('postbuild.mjs: no plotly-basic.min.js in the build (index.html copies it from node_modules)');
  // V8's compile hint: compile every function while the script streams in,
  // off the main thread, rather than each on its first call as the script
  // runs (at a 4× CPU slowdown its evaluation held the page ~550 ms in one
  // task; with the hint ~100 ms). Other engines read it as a comment.
  const hint = '//# allFunctionsCalledOnLoad\n';
  const body = Buffer.concat([Buffer.from(hint), fs.readFileSync(plain)]);
  fs.writeFileSync(plain, body);
  const name = `plotly-basic-${crypto.createHash('sha256').update(body).digest('hex').slice(0, 16)}.min.js`;
  const integrity = `sha384-${crypto.createHash('sha384').update(body).digest('base64')}`;
  fs.renameSync(plain, path.join(dir, name));
  if (/<meta name="ddnn-plotly" content=/.test(html)) throw new Error('postbuild.mjs: the page already names plotly.js');
  const meta = `<meta name="ddnn-plotly" content="./${name}" data-integrity="${integrity}" />`;
  if (!html.includes('</head>')) throw new Error('postbuild.mjs: index.html has no </head>');
  html = html.replace('</head>', `  ${meta}\n  </head>`);
  console.log(`postbuild.mjs: plotly.js is ${name}`);
}

// Comments are for the repository's readers: the page ships without the
// HTML's comments, nor the full-line comments of its own small scripts.
html = html.replace(/<!--[\s\S]*?-->/g, '').replace(/\n(?:[ \t]*\n)+/g, '\n');
for (const f of ['sw.js', 'worker.js', 'register-sw.js']) {
  const p = path.join(dir, f);
  const text = fs.readFileSync(p, 'utf8');
  fs.writeFileSync(p, text.split('\n').filter((l) => !/^\s*\/\//.test(l)).join('\n'));
}

const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
if (inline.length === 0) throw new Error('postbuild.mjs: no inline script found; is this Trunk\'s output?');
const hashes = inline.map((text) => `'sha256-${crypto.createHash('sha256').update(text, 'utf8').digest('base64')}'`);

const directives = [
  "default-src 'self'",
  `script-src 'self' 'wasm-unsafe-eval' ${hashes.join(' ')}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
];
const policy = directives.join('; ');

const charset = '<meta charset="utf-8" />';
if (!html.includes(charset)) throw new Error('postbuild.mjs: index.html has no <meta charset="utf-8" /> to put the policy after');
if (html.includes('http-equiv="Content-Security-Policy"')) throw new Error('postbuild.mjs: the page already has a policy');
html = html.replace(charset, `${charset}\n    <meta http-equiv="Content-Security-Policy" content="${policy}" />`);
fs.writeFileSync(file, html);

// A header may also say who may frame the page; the embed view is meant
// for internal docs on any origin, so framing stays open.
fs.writeFileSync(path.join(dir, '_headers'), `/*\n  Content-Security-Policy: ${policy}\n  X-Content-Type-Options: nosniff\n  Referrer-Policy: no-referrer\n`);
console.log(`postbuild.mjs: policy with ${hashes.length} inline script hash(es) written`);

// Every file of the build but the cache worker itself and the headers
// file, as paths relative to the worker (it may live under a sub-path).
const files = [];
const walk = (rel) => {
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) walk(r);
    else if (r !== 'sw.js' && r !== '_headers') files.push(r);
  }
};
walk('');
files.sort();
const build = crypto.createHash('sha256');
for (const f of files) build.update(f).update(fs.readFileSync(path.join(dir, f)));
const sw = path.join(dir, 'sw.js');
let worker = fs.readFileSync(sw, 'utf8');
if (!worker.includes("'__BUILD__'") || !worker.includes('__FILES__')) throw new Error('postbuild.mjs: sw.js has no __BUILD__/__FILES__ to fill');
worker = worker.replace("'__BUILD__'", JSON.stringify(build.digest('hex').slice(0, 16)))
  .replace('__FILES__', JSON.stringify(files.map((f) => `./${f}`)));
fs.writeFileSync(sw, worker);
console.log(`postbuild.mjs: sw.js caches ${files.length} files`);
