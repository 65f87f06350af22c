// The model worker: loads the page's own wasm-bindgen module and wasm (the
// page passes their addresses), whose `main` then serves requests
// (src/ui/runtime.rs). Same origin only; nothing else is fetched.
const params = new URL(self.location.href).searchParams;
const here = self.location.href;
const js = new URL(params.get('js') || '', here);
const wasm = new URL(params.get('wasm') || '', here);
if (js.origin !== self.location.origin || wasm.origin !== self.location.origin) {
  throw new Error('worker.js: the module must come from this page');
}
const { default: init } = await import(js.href);
await init({ module_or_path: wasm.href });
