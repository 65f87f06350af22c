// Memory of a page and of its workers as the product controls it, for the
// specs (big-trace): per JavaScript context (the page, each dedicated worker)
// the V8 heap in use and the ArrayBuffer backing stores (Runtime.getHeapUsage,
// after HeapProfiler.collectGarbage when asked), and the wasm linear memory
// (the buffer of its wasm-bindgen module's memory). Not the processes'
// resident memory: that follows the allocator and the garbage collector's
// timing, not the page.
//
// The page is reached through a CDP session (context.newCDPSession), its
// workers through that session's auto-attach (Target.setAutoAttach, not
// flattened: Playwright's CDPSession has no child sessions, so their
// commands go in Target.sendMessageToTarget). All of the page's workers are
// its own children (src/ui/evaluation.rs, src/ui/uploads.rs); each has a
// name: "ddnn-planner models", "ddnn-planner parts", "ddnn-planner import".
//
// Runtime.getHeapUsage answers at once even while a worker's thread is
// busy (Chromium runs such commands on an interrupt), so it can sample a
// worker during a read; reading a wasm memory's size runs script, which
// waits until the worker is idle: hence holdTerminatedWorkers.

/** A mebibyte; the figures are in MiB. */
export const MB = 1024 * 1024;

/** Keeps a worker the page ends once it has answered alive (idle) until
 *  window.__ddnnReleaseWorkers() is called in the page, so that its memory
 *  can be read after its work: a wasm memory never shrinks, so its size
 *  then is its peak. Such a worker is one whose handlers the page cleared
 *  before terminate() (an import worker that answered, src/ui/uploads.rs);
 *  any other (an import replaced mid-read, a cancelled model worker) ends
 *  at once, as without this. An init script (page.addInitScript before
 *  the page loads). */
export function holdTerminatedWorkers() {
  const terminate = Worker.prototype.terminate;
  const held = [];
  window.__ddnnHeldWorkers = held;
  Worker.prototype.terminate = function () {
    if (this.onmessage === null && this.onerror === null) held.push(this);
    else terminate.call(this);
  };
  window.__ddnnReleaseWorkers = () => {
    const n = held.length;
    for (const w of held.splice(0)) terminate.call(w);
    return n;
  };
}

// The size of the wasm memory of the context it runs in [bytes], or null
// before the context's wasm-bindgen module has started. That module (the
// page's app-….js; in a worker the one worker.js?js=… imported) is then
// initialised, and calling its init again returns the instance's exports,
// memory included, without instantiating anything. Started means: the page
// has window.wasmBindings (Trunk's loader sets it after init), a worker has
// an onmessage handler (its Rust main sets it, src/ui/evaluation.rs). (Not
// Runtime.queryObjects for the WebAssembly.Memory objects: Chromium 156's
// renderer crashes when a worker it ran in is terminated afterwards.)
const WASM_OF_CONTEXT = `(async () => {
  let init;
  if (typeof document !== 'undefined') {
    init = window.wasmBindings?.default;
  } else if (self.onmessage) {
    const js = new URL(new URL(self.location.href).searchParams.get('js') || '', self.location.href).href;
    init = (await import(js)).default;
  }
  if (!init) return null;
  return (await init()).memory.buffer.byteLength;
})()`;

export async function memoryProbe(page) {
  const session = await page.context().newCDPSession(page);
  const workers = new Map(); // sessionId → { name, url }
  const pending = new Map(); // message id → resolve
  let id = 0;
  session.on('Target.attachedToTarget', (e) => {
    if (e.targetInfo.type === 'worker') workers.set(e.sessionId, { name: e.targetInfo.title, url: e.targetInfo.url });
  });
  session.on('Target.detachedFromTarget', (e) => {
    workers.delete(e.sessionId);
    for (const [k, p] of pending) if (p.sessionId === e.sessionId) { pending.delete(k); p.resolve({ error: { message: 'the worker is gone' } }); }
  });
  session.on('Target.receivedMessageFromTarget', (e) => {
    const m = JSON.parse(e.message);
    const p = m.id && pending.get(m.id);
    if (p) {
      pending.delete(m.id);
      p.resolve(m);
    }
  });
  await session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });

  // A command to the page (sessionId null) or a worker; its result, or
  // null if the worker went away (or did not answer within `timeout`).
  const send = (sessionId, method, params = {}, timeout = 30_000) => {
    if (!sessionId) return session.send(method, params).catch(() => null);
    return new Promise((resolve) => {
      const i = ++id;
      const timer = setTimeout(() => { pending.delete(i); resolve({ error: { message: 'no answer' } }); }, timeout);
      pending.set(i, { sessionId, resolve: (m) => { clearTimeout(timer); resolve(m); } });
      session.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: i, method, params }) })
        .catch((err) => { pending.delete(i); clearTimeout(timer); resolve({ error: { message: String(err) } }); });
    }).then((m) => (m.error ? null : m.result));
  };

  async function wasmBytes(sessionId) {
    const r = await send(sessionId, 'Runtime.evaluate', { expression: WASM_OF_CONTEXT, awaitPromise: true, returnByValue: true });
    return r?.result?.value ?? null;
  }

  async function one(sessionId, name, { gc }) {
    if (gc) await send(sessionId, 'HeapProfiler.collectGarbage');
    const heap = await send(sessionId, 'Runtime.getHeapUsage');
    if (!heap) return null;
    return { name, js: heap.usedSize, buffers: heap.backingStorageSize ?? 0, wasm: await wasmBytes(sessionId) };
  }

  return {
    /** The names of the page's workers now. */
    workerNames: () => [...workers.values()].map((w) => w.name),
    /** Every context's memory: [{ name, js, buffers, wasm }] in bytes, the
     *  page first; `gc`: after a full garbage collection in each. */
    async measure({ gc = true } = {}) {
      const out = [await one(null, 'page', { gc })];
      for (const [sid, w] of [...workers]) out.push(await one(sid, w.name, { gc }));
      return out.filter(Boolean);
    },
    /** The JS heap and buffers [bytes] of every context, without running
     *  script in them: answers at once while a worker computes. */
    async sampleHeaps() {
      const out = [];
      const all = [[null, 'page'], ...[...workers].map(([sid, w]) => [sid, w.name])];
      await Promise.all(all.map(async ([sid, name]) => {
        const h = await send(sid, 'Runtime.getHeapUsage', {}, 2000);
        if (h) out.push({ name, js: h.usedSize, buffers: h.backingStorageSize ?? 0 });
      }));
      return out;
    },
    async close() {
      await session.send('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false }).catch(() => {});
      await session.detach().catch(() => {});
    },
  };
}

/** "page: js 6.5 + buffers 1.1 + wasm 2.0 MiB; ddnn-planner models: js 0.7 + wasm 1.8 MiB" */
export function describe(ms) {
  const f = (b) => (b / MB).toFixed(1);
  return ms.map((m) => `${m.name}: js ${f(m.js)}${m.buffers > MB / 10 ? ` + buffers ${f(m.buffers)}` : ''}${m.wasm != null ? ` + wasm ${f(m.wasm)}` : ''} MiB`).join('; ');
}
