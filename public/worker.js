// The model worker (and the import and pool workers): runs the page's own
// wasm, whose `main` then serves requests (src/ui/evaluation.rs). It
// imports the page's wasm-bindgen glue (the page passes its address) and
// waits for the page to post it the wasm the page has already compiled (a
// `WebAssembly.Module`, src/ui/module_worker.rs): the wasm is never
// fetched or compiled a second time. Only if the page posts the wasm's
// address instead (it could not post the module) is the wasm fetched.
// Same origin only; nothing else is fetched.
const params = new URL(self.location.href).searchParams;
const here = self.location.href;
const js = new URL(params.get('js') || '', here);
const wasm = new URL(params.get('wasm') || '', here);
if (js.origin !== self.location.origin || wasm.origin !== self.location.origin) {
  throw new Error('worker.js: the module must come from this page');
}
// Messages that arrive before `main` has set its own handler wait here,
// and are handed to it once it runs.
const early = [];
const compiled = new Promise((resolve) => {
  self.onmessage = (ev) => {
    if (ev.data instanceof WebAssembly.Module) resolve(ev.data);
    else if (ev.data === 'fetch-wasm') resolve(wasm.href);
    else early.push(ev.data);
  };
});
const [{ default: init }, module] = await Promise.all([import(js.href), compiled]);
await init({ module_or_path: module });
for (const data of early) self.dispatchEvent(new MessageEvent('message', { data }));
