// Registers the offline cache (sw.js) after the page has loaded, so it
// never competes with the first render. Same origin, this directory only.
// Every load also asks for a new sw.js (a new build's worker then installs
// and waits for the old build's tabs to close), rather than leaving it to
// the browser's own, less frequent check.
if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol)) {
  addEventListener('load', () => {
    navigator.serviceWorker.register('./sw.js').then((reg) => reg.update()).catch(() => {});
  });
}
