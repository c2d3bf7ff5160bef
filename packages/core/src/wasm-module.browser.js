// @ts-check
/**
 * How browsers and Web Workers obtain the compiled core: fetch the .wasm
 * next to this module (served as application/wasm it compiles while it
 * downloads). Node uses wasm-module.js instead.
 */

/** @type {Promise<WebAssembly.Module> | undefined} */
let cached;

/**
 * Compile termite_core.wasm once per page or worker.
 * @returns {Promise<WebAssembly.Module>}
 */
export function compileCore() {
  cached ??= (async () => {
    const url = new URL('../wasm/termite_core.wasm', import.meta.url);
    const res = await fetch(url);
    if (!res.ok) throw new Error(`fetching ${url}: HTTP ${res.status}`);
    if (res.headers.get('content-type')?.startsWith('application/wasm'))
      return WebAssembly.compileStreaming(res);
    return WebAssembly.compile(await res.arrayBuffer());
  })();
  return cached;
}
