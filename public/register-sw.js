// Registers the offline cache (sw.js) once the page has started — its
// first numbers, plotly.js and its first charts (the app's performance
// mark 'ddnn-first-render') — so the cache's downloads (every file of the
// build) never compete with the page's own on a slow link; at the latest
// 30 s after the load. Same origin, this directory only. Every load also
// asks for a new sw.js (a new build's worker then installs and waits for
// the old build's tabs to close), rather than leaving it to the browser's
// own, less frequent check.
if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol)) {
  let registered = false;
  const register = () => {
    if (registered) return;
    registered = true;
    navigator.serviceWorker.register('./sw.js').then((reg) => reg.update()).catch(() => {});
  };
  try {
    new PerformanceObserver((list, observer) => {
      if (list.getEntriesByName('ddnn-first-render').length > 0) {
        observer.disconnect();
        register();
      }
    }).observe({ type: 'mark', buffered: true });
  } catch {
    addEventListener('load', register);
  }
  addEventListener('load', () => setTimeout(register, 30000));
}
