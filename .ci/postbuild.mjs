// Trunk post-build hook (Trunk.toml), two jobs that need the built files:
//
// 1. A strict Content-Security-Policy in the built page, and the same
//    policy as a `_headers` file for static hosts that read one (Netlify,
//    Cloudflare Pages). Trunk writes one inline module script (the wasm
//    loader) whose text names the hashed files, so its hash is computed
//    here and allowed by hash alone.
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
  .replace('__FILES__', JSON.stringify(files.map((f) => `./${f}`), null, 2));
fs.writeFileSync(sw, worker);
console.log(`postbuild.mjs: sw.js caches ${files.length} files`);
