// The offline cache. `.ci/postbuild.mjs` fills in this build's name and
// every file of dist/ after the build. The page's own files are served
// from the cache first (their names carry content hashes); the page itself
// from the network first, so a new build shows as soon as it is deployed
// and the cached one when offline. A new build's worker waits until every
// tab of the old one has closed (no skipWaiting), so a page never mixes
// two builds' files; it then drops the old build's cache.
const BUILD = '__BUILD__';
const FILES = __FILES__;
const CACHE = `ddnn-planner-${BUILD}`;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys().then((keys) => Promise.all(
      keys.filter((k) => k.startsWith('ddnn-planner-') && k !== CACHE).map((k) => caches.delete(k)),
    )),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== self.location.origin) return;
  if (req.mode === 'navigate') {
    const page = new URL('index.html', self.registration.scope).href;
    event.respondWith(fetch(req).catch(() => caches.open(CACHE).then((c) => c.match(page)))
      .then((r) => r || Response.error()));
    return;
  }
  // worker.js carries the module's names as a query: the file is the same,
  // but answered as a new response, so the worker keeps its own address
  // (a cached response would give it the cached one, without the query).
  const query = new URL(req.url).search !== '';
  event.respondWith(
    caches.open(CACHE)
      .then((c) => c.match(req, { ignoreSearch: true }))
      .then((hit) => {
        if (!hit) return fetch(req);
        if (!query) return hit;
        return new Response(hit.body, { status: hit.status, statusText: hit.statusText, headers: hit.headers });
      }),
  );
});
