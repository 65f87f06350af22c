#!/usr/bin/env node
// Tiny static file server for the built site (dist/), shared by the e2e harness and
// `make serve`. GET/HEAD only, correct MIME types (application/wasm included), no
// directory listings, no SPA fallback, `Cache-Control: no-store`.
//
//   node tests/e2e/server.mjs [--dir dist] [--port 8080] [--host 127.0.0.1] [--base /]

import http from 'node:http';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.toml': 'text/plain; charset=utf-8',
  '.yaml': 'text/yaml; charset=utf-8',
  '.yml': 'text/yaml; charset=utf-8',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

export function normaliseBasePath(p) {
  let out = p.startsWith('/') ? p : `/${p}`;
  if (!out.endsWith('/')) out += '/';
  return out;
}

// ---------------------------------------------------------------------------------------
// Static file server (GET/HEAD only, no directory listings, no SPA fallback).

/**
 * Serve `root` under `basePath` (e.g. "/" or "/ddnn-planner/") on host:port
 * (port 0 = any free port). Resolves to the listening http.Server.
 */
export function startServer(root, basePath = '/', { host = '127.0.0.1', port = 0 } = {}) {
  root = path.resolve(root);
  basePath = normaliseBasePath(basePath);
  const server = http.createServer(async (req, res) => {
    const send = (status, body, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n');
      let pathname;
      try {
        pathname = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      } catch {
        return send(400, 'bad request\n');
      }
      if (!pathname.startsWith(basePath)) {
        if (`${pathname}/` === basePath) {
          res.writeHead(301, { Location: basePath });
          return res.end();
        }
        return send(404, 'not found\n');
      }
      let rel = pathname.slice(basePath.length);
      if (rel === '' || rel.endsWith('/')) rel += 'index.html';
      const file = path.resolve(root, rel);
      if (file !== root && !file.startsWith(root + path.sep)) return send(403, 'forbidden\n');
      let stat;
      try {
        stat = await fsp.stat(file);
      } catch {
        return send(404, 'not found\n');
      }
      if (stat.isDirectory()) {
        res.writeHead(301, { Location: `${pathname.replace(/\/?$/, '/')}` });
        return res.end();
      }
      const type = MIME[path.extname(file).toLowerCase()] || 'application/octet-stream';
      res.writeHead(200, {
        'Content-Type': type,
        'Content-Length': stat.size,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      });
      if (req.method === 'HEAD') return res.end();
      fs.createReadStream(file).on('error', () => res.destroy()).pipe(res);
    } catch (err) {
      send(500, `internal error: ${err}\n`);
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

// ---------------------------------------------------------------------------------------
// Command line: serve until interrupted.

function parseArgs(argv) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const opts = {
    dir: process.env.DIST || path.resolve(here, '..', '..', 'dist'),
    port: Number(process.env.PORT || 8080),
    host: process.env.HOST || '127.0.0.1',
    base: process.env.BASE_PATH || '/',
  };
  for (let i = 0; i < argv.length; i += 1) {
    const [key, inline] = argv[i].split('=', 2);
    const value = () => (inline !== undefined ? inline : argv[++i]);
    if (key === '--dir') opts.dir = value();
    else if (key === '--port') opts.port = Number(value());
    else if (key === '--host') opts.host = value();
    else if (key === '--base') opts.base = value();
    else throw new Error(`unknown argument ${argv[i]} (use --dir, --port, --host, --base)`);
  }
  return opts;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(opts.dir, 'index.html'))) {
    console.error(`serve: ${opts.dir}/index.html not found; run 'make build' first`);
    process.exit(2);
  }
  const server = await startServer(opts.dir, opts.base, { host: opts.host, port: opts.port });
  const { address, port } = server.address();
  console.log(`Serving ${path.resolve(opts.dir)} at http://${address}:${port}${normaliseBasePath(opts.base)}`);
  console.log('Press Ctrl-C to stop.');
  const stop = () => {
    server.close();
    server.closeAllConnections?.();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
