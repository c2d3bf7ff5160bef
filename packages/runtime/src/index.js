// @ts-check
/**
 * @packageDocumentation
 * Termite processes on a node: compiled Scheme running as lightweight processes on the
 * C core's scheduler, with the Termite API (spawn, !, ?, recv, links, supervisors,
 * generic servers) and local Linda.
 *
 * @example
 * ```js
 * import { createNode } from '@termite/runtime';
 * const node = await createNode({ stdout: (s) => process.stdout.write(s) });
 * const r = await node.runProgram('(define p (spawn (lambda () (! (?) (quote pong))))) (! p (self)) (display (?))');
 * // prints "pong"; r.ok === true
 * node.stop();
 * ```
 */
import './prims-processes.js';
import './prims-linda.js';
import './prims-distribution.js';
import './messengers/prims-messengers.js';
import './prims-monitors.js';
import { boot, installPrimitives, loadRuntimeSource } from '@termite/scheme/internal';
import { installFormalConstants } from './prims-linda.js';
import { termiteSource, jsSupportSource, replSource, distributionSource, messengersSource } from './scheme-sources/runtime-sources.js';
import { defineTermiteLibrary } from './syntax/termite-library.js';
import { defineMessengersLibrary } from './messengers/library.js';
import { TermiteNode } from './termite-node.js';
import { runProgramOn } from './program.js';
import { installJsApi } from './js-api.js';

export { TermiteNode, Process } from './termite-node.js';
export { Pid, Tag, NodeRef, SpaceRef, Formal } from './termite-values.js';
export { copyMessage } from './copy.js';
export { resolveCode, registerUnitInstance, hasCode } from './code.js';
export { runProgramOn, publishLibrary } from './program.js';
export { LibraryRegistry, LibraryRefused, signedBytes, libraryStoreIn } from './code-libraries/library-registry.js';
/** @typedef {import('./code-libraries/library-registry.js').LibraryOptions} LibraryOptions */
/** @typedef {import('./code-libraries/library-registry.js').LibraryStore} LibraryStore */
/** @typedef {import('./code-libraries/library-registry.js').LibraryRecord} LibraryRecord */
export { trapExits, describeExit } from './termite-node/links-and-signals.js';
export { NodeEvaluator } from './repl.js';
export { Distribution, DEFAULT_DENIED } from './distribution.js';
export { attachSpaceStore, spaceSummaries } from './linda/space-table.js';
/** @typedef {import('./linda/space-table.js').SpaceStore} SpaceStore */
export { fromJs, toJs, list, sym, formal, JsProcess } from './js-api.js';
/** @typedef {import('./js-api.js').ApiNode} ApiNode a node as createNode returns it: a TermiteNode with the JavaScript API */
export { logicalNetworkSnapshot } from './messengers/logical-network.js';

// (termite)'s syntax and names are defined when the runtime is imported, as its
// primitives are registered (the prims-*.js imports above): a program expanded in this
// process sees them even if it is compiled before loadTermiteLibrary runs.
defineTermiteLibrary();
defineMessengersLibrary();

let loaded = false;

/**
 * Define the (termite) library's syntax and names in the expander, register the
 * runtime's primitives and load the Termite library's Scheme into 'rt'. Idempotent.
 * The library is defined first, before anything is expanded (the language's prelude,
 * compiled by boot(), included), so every unit is compiled with the same keywords in
 * scope whichever process compiles it, and a precompiled unit fits (engine/boot.js).
 * (Importing this module defined it already; defining it again is a no-op.)
 */
export function loadTermiteLibrary() {
  if (loaded) return;
  loaded = true;
  defineTermiteLibrary();
  defineMessengersLibrary();
  boot();
  installPrimitives();
  installFormalConstants();
  loadRuntimeSource(termiteSource, 'termite');
  loadRuntimeSource(jsSupportSource, 'js-support');
  loadRuntimeSource(replSource, 'repl');
  loadRuntimeSource(distributionSource, 'distribution');
  loadRuntimeSource(messengersSource, 'messengers');
}

/**
 * Create a node (a core, a scheduler, a stdout process), with the JavaScript API.
 * @param {import('./termite-node.js').NodeOptions} [opts]
 * @returns {Promise<import('./js-api.js').ApiNode>}
 */
export async function createNode(opts = {}) {
  loadTermiteLibrary();
  const node = await TermiteNode.create(opts);
  /** @type {any} */ (node).runProgram = (/** @type {string} */ text, /** @type {any} */ o) => runProgramOn(node, text, o);
  installJsApi(node);
  return /** @type {import('./js-api.js').ApiNode} */ (node);
}
