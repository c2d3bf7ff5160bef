// @ts-check
/**
 * How Node obtains the compiled core: read the .wasm that ships in this
 * package from disk. Browsers use wasm-module.browser.js instead (selected
 * through package.json's "browser" field).
 */
import { readFile } from 'node:fs/promises';

/** @type {Promise<WebAssembly.Module> | undefined} */
let cached;

/**
 * Compile termite_core.wasm once per process.
 * @returns {Promise<WebAssembly.Module>}
 */
export function compileCore() {
  cached ??= readFile(new URL('../wasm/termite_core.wasm', import.meta.url))
    .then((bytes) => WebAssembly.compile(bytes));
  return cached;
}
