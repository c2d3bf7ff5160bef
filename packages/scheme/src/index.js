// @ts-check
/**
 * @packageDocumentation
 * Termite Scheme: read, expand, compile and run R7RS Scheme with serializable
 * continuations.
 *
 * @example
 * ```js
 * import { runProgramText } from '@termite/scheme';
 * const out = [];
 * const r = runProgramText('(display (map (lambda (x) (* x x)) (list 1 2 3)))', {
 *   file: 'demo.scm', stdout: (s) => out.push(s),
 * });
 * // r.ok === true, out.join('') === '(1 4 9)'
 * ```
 */
import { boot, consoleSinks, preludeUnit } from './engine/boot.js';
import { readAll } from './reader.js';
import { expandProgram, createEnvironment, expandInEnvironment } from './expand/index.js';
import { compileUnitChecked } from './compile-checked.js';
import { compileUnit as compileWithPrimitives } from './pipeline.js';
import { primitives } from './engine/registry.js';
import { describeError } from './describe-error.js';
import { uncaughtBacktrace } from './engine/backtrace.js';
import { instantiate, Environment, libraryEnvs, rtEnv } from './engine/linker.js';
import { Thread, runSlice, runToCompletion, SLICE_DONE, SLICE_DIED, SLICE_YIELD, SLICE_SUSPENDED } from './engine/driver.js';
import { writeString, displayString } from './printer.js';
import { SchemeError } from './values.js';

export * from './values.js';
export { readAll, Reader } from './reader.js';
export { writeString, displayString } from './printer.js';
export { encodeValue, decodeValue, registerValueCodec } from './codec/index.js';
export { wireToData, wireFromData, hashWire, PASSES } from './pipeline.js';
export { describeError, writeForReport } from './describe-error.js';
export { uncaughtBacktrace, formatBacktrace } from './engine/backtrace.js';
export { Thread, runSlice, runToCompletion, SLICE_DONE, SLICE_DIED, SLICE_YIELD, SLICE_SUSPENDED } from './engine/driver.js';
export { Environment, rtEnv, libraryEnvs, instantiate } from './engine/linker.js';
export { boot, consoleSinks };
export { evalOptions, interactionEnvironment, EvalEnvironment } from './engine/eval.js';
export { Evaluator } from './evaluator.js';
export { snapshotThread, restoreThread, threadToData, threadFromData, resolveRuntimeCode } from './snapshot.js';

/**
 * @typedef {object} CompiledUnit
 * @property {string} kind 'program' | 'library' | 'repl'
 * @property {string} name
 * @property {string} hash content hash of the unit's IR
 * @property {any} wire the unit's IR
 * @property {string[]} requires namespaces of the libraries it needs
 * @property {string|null} [ns] a library's namespace
 */

/**
 * Compile one Core unit to wire IR with its content hash (pipeline.js), against this
 * process's primitives.
 * @param {import('./ir/core.js').CoreUnit} core
 * @param {Omit<import('./pipeline.js').CompileOptions, 'primitives'>} [opts]
 * @returns {{hash: string, wire: any}}
 */
export function compileUnit(core, opts = {}) {
  return compileWithPrimitives(core, { ...opts, primitives });
}

/**
 * Read, expand and compile a program's text (no execution).
 * @param {string} text
 * @param {{file?: string, libraryPath?: string[], readFile?: (p: string) => string|null, trace?: any, onTrace?: any, onTime?: any}} [opts]
 * @returns {CompiledUnit[]} the libraries it needs, then the program
 */
export function compileProgramText(text, opts = {}) {
  boot();
  const file = opts.file ?? '<string>';
  const datums = readAll(text, { file });
  const { units } = expandProgram(datums, { file, libraryPath: opts.libraryPath ?? [], readFile: opts.readFile });
  return units.map((u) => {
    const { hash, wire } = compileUnitChecked(u, { trace: opts.trace, onTrace: opts.onTrace, onTime: opts.onTime, writeDatum: writeString });
    return { kind: u.kind, name: u.name, hash, wire, requires: u.requires, ns: /** @type {any} */ (u).ns ?? null };
  });
}

/**
 * Instantiate compiled units: each library once per node (its body runs), then the
 * program in a fresh environment. Returns the program's top-level thunk.
 * @param {CompiledUnit[]} units
 * @param {{envId?: string, onLibrary?: (inst: any, unit: CompiledUnit) => void}} [opts]
 *   onLibrary: told of each library instantiated here (a host registers and publishes it)
 */
export function linkProgram(units, opts = {}) {
  boot();
  let program = null;
  for (const u of units) {
    if (u.kind === 'library') {
      const ns = u.ns ?? `lib:${u.name}`;
      if (libraryEnvs.has(ns)) continue;
      const env = new Environment(ns);
      libraryEnvs.set(ns, env);
      const inst = instantiate(u.wire, u.hash, env);
      const r = runToCompletion(new Thread(inst.top, []));
      if (!r.ok) throw new Error(`library ${u.name} failed to load: ${writeString(r.error)}`);
      opts.onLibrary?.(inst, u);
    } else {
      const env = new Environment(opts.envId ?? `prog:${u.hash}`);
      program = instantiate(u.wire, u.hash, env);
    }
  }
  if (program === null) throw new Error('no program unit');
  return program;
}

/**
 * Run a program's text to completion on this JS stack (single thread, no processes).
 * Output goes to `stdout`; the result says whether it finished or died.
 * @param {string} text
 * @param {{file?: string, stdout?: (s: string) => void, stderr?: (s: string) => void, libraryPath?: string[], readFile?: (p: string) => string|null}} [opts]
 * @returns {{ok: true, value: any, exitCode?: any} | {ok: false, error: any, message: string, backtrace?: string[]|null}}
 */
export function runProgramText(text, opts = {}) {
  boot();
  const saved = { ...consoleSinks };
  if (opts.stdout) consoleSinks.stdout = opts.stdout;
  if (opts.stderr) consoleSinks.stderr = opts.stderr;
  try {
    let units;
    try {
      units = compileProgramText(text, opts);
    } catch (e) {
      if (e instanceof SchemeError) return { ok: false, error: e.payload, message: describeError(e.payload) };
      throw e;
    }
    const prog = linkProgram(units);
    const th = new Thread(prog.top, []);
    const r = runToCompletion(th);
    if (r.ok) return { ok: true, value: r.value, exitCode: /** @type {any} */ (th).exitCode };
    const backtrace = uncaughtBacktrace(r.error, th);
    return { ok: false, error: r.error, message: describeError(r.error, backtrace), backtrace };
  } finally {
    consoleSinks.stdout = saved.stdout;
    consoleSinks.stderr = saved.stderr;
  }
}


export { createEnvironment, expandInEnvironment, preludeUnit };
