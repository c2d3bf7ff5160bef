// @ts-check
/**
 * @packageDocumentation
 * `@termite/core` — the JavaScript face of Termite Mesh's C core
 * (wasm-core/ compiled to WebAssembly): a node's Linda tuple spaces and its
 * process scheduler. The same code runs in Node, browsers and Web Workers.
 *
 * @example
 * ```js
 * import { loadCore, formal } from '@termite/core';
 *
 * const core = await loadCore();
 * const space = core.createSpace();
 * space.out(['point', 3, 4]);
 * space.inp(['point', formal.integer, formal.any]); // ['point', 3, 4]
 *
 * const a = core.spawn({ priority: 1 });
 * core.next();                                     // a, wakeReason 'spawn'
 * space.in(a, ['job', formal.any]);                // BLOCKED: a waits
 * space.out(['job', 'build']);                     // wakes a with the tuple
 * core.next();                                     // a, wakeReason 'tuple'
 * core.takeTuple(a);                               // ['job', 'build']
 * core.destroy();
 * ```
 */
import { compileCore } from './wasm-module.js';
import { Core } from './core.js';

export { Core } from './core.js';
export { Space } from './space.js';
export { BLOCKED, TIMED_OUT } from './blocking.js';
export { Sym, Formal, Float, Simple, Tag, formal, float, encode, decode } from './codec.js';
export * from './errors.js';
export { STATES, REASONS, PRIORITIES, CLOCKS, FormalCode, TAG_SYMBOL, TAG_FORMAL, XFER, XFER_FIELDS, XFER_MAGIC, Status } from './layout.js';

/**
 * Load the core: compile termite_core.wasm (once per process, page or
 * worker) and create a fresh instance with its own memory.
 * @param {import('./core.js').CoreOptions & { module?: WebAssembly.Module }} [options]
 *   `module` supplies an already compiled termite_core.wasm.
 * @returns {Promise<Core>}
 */
export async function loadCore(options = {}) {
  const module = options.module ?? await compileCore();
  return new Core(module, options);
}
