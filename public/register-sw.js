// Registers the offline cache (sw.js) after the page has loaded, so it
// never competes with the first render. Same origin, this directory only.
if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol)) {
  addEventListener('load', () => {
    navigator.serviceWorker.register('./sw.js').catch(() => {});
  });
}
