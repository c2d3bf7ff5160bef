// @ts-check
/**
 * Start-up of the runtime library: register every primitive, install the builtin
 * closures and control procedures in 'rt', create the standard port parameters, and
 * compile and run the Scheme prelude (primitives/prelude.scm) into 'rt'. Idempotent; the
 * first call does the work (about as long as compiling a few hundred lines of Scheme).
 * Also the precompiled runtime library: units compiled by one process, handed to another
 * (a browser worker) so it need not compile them.
 *
 * Dependencies point one way, from the engine to the compiler: boot imports the reader,
 * the expander and the pipeline to compile the prelude, and hands the pipeline this
 * process's primitives (engine/registry.js); nothing in the compiler (pipeline.js,
 * passes/, expand/, ir/) imports the engine.
 *
 * Invariants: boot() runs once per process (JS realm), before any program is compiled
 * or run; a runtime unit is instantiated from precompiled IR only when it was compiled
 * in the same context (the same source, primitives, procedures and syntax) and passes
 * checkWire (unless the host gave the JavaScript to run for it), so it is the unit this
 * process would have compiled itself, with the same hash.
 */
import '../primitives/prims-numbers.js';
import '../primitives/prims-equivalence.js';
import '../primitives/prims-lists.js';
import '../primitives/prims-chars.js';
import '../primitives/prims-strings.js';
import '../primitives/prims-vectors.js';
import '../primitives/prims-errors.js';
import '../primitives/ports.js';
import '../primitives/console-input.js';
import '../primitives/prims-system.js';
import '../primitives/prims-control.js';
import { Port } from '../primitives/port.js';
import { consolePorts } from '../primitives/port-codec.js';
import { installPrimitives, installControl, builtinUnit } from './builtins.js';
import { installEval } from './eval.js';
import { makeParameter, parameterValue } from '../primitives/prims-control.js';
import { current } from './current.js';
import { rtEnv, instantiate, hasFastSource } from './linker.js';
import { driverHooks, Thread, runToCompletion } from './driver.js';
import { preludeSource } from '../primitives/prelude-source.js';
import { readAll } from '../reader.js';
import { expandProgram, STANDARD_LIBRARIES } from '../expand/index.js';
import { compileUnit, wireToData, wireFromData } from '../pipeline.js';
import { checkWire } from '../ir/check-wire.js';
import { WIRE_VERSION } from '../ir/wire.js';
import { internalOps } from '../passes/inline-primitives.js';
import { primitives } from './registry.js';
import { encodeValue, decodeValue } from '../codec/index.js';
import { mapCore } from '../passes/walk-core.js';
import { writeString } from '../printer.js';

/** Where console output goes; the host (CLI, daemon, browser) may replace the sinks. */
export const consoleSinks = {
  /** @type {(s: string) => void} */
  stdout: (s) => void s,
  /** @type {(s: string) => void} */
  stderr: (s) => void s,
};

let booted = false;

/** The prelude's unit instance (for tests and serialization). @type {any} */
export let preludeUnit = null;

/** Boot the runtime library once. */
export function boot() {
  if (booted) return;
  booted = true;
  installPrimitives();
  installControl();
  installEval();
  installPorts();
  loadPrelude();
}

function installPorts() {
  const stdout = new Port({ kind: 'console', output: true, sink: (s) => consoleSinks.stdout(s), buffering: 'none' });
  const stderr = new Port({ kind: 'console', output: true, sink: (s) => consoleSinks.stderr(s), buffering: 'none' });
  const stdin = new Port({ kind: 'console', input: true, text: '' });
  /** @type {any} */ (stdout).uid = 'rt:stdout';
  /** @type {any} */ (stderr).uid = 'rt:stderr';
  /** @type {any} */ (stdin).uid = 'rt:stdin';
  consolePorts.set('rt:stdout', stdout);
  consolePorts.set('rt:stderr', stderr);
  consolePorts.set('rt:stdin', stdin);
  // fixed uids: a process that moves to another node prints on that node's console
  // unless it parameterized its ports
  const out = makeParameter(stdout, false, 'rt:current-output-port');
  const err = makeParameter(stderr, false, 'rt:current-error-port');
  const inp = makeParameter(stdin, false, 'rt:current-input-port');
  rtEnv.cell('current-output-port').v = out;
  rtEnv.cell('current-error-port').v = err;
  rtEnv.cell('current-input-port').v = inp;
  const keyOf = (/** @type {any} */ p) => p.fv[0];
  current.outputPort = () => parameterValue(keyOf(out));
  current.errorPort = () => parameterValue(keyOf(err));
  current.inputPort = () => parameterValue(keyOf(inp));
}

/**
 * Runtime library units (the prelude, and Scheme sources other packages add, such as
 * the Termite library) by hash, so snapshots and migrated code can name them.
 * @type {Map<string, any>}
 */
export const runtimeUnits = new Map();

function loadPrelude() {
  preludeUnit = loadRuntimeSource(preludeSource, 'prelude');
  driverHooks.raise = rtEnv.cell('%raise-from-primitive').v;
}

/**
 * Compile Scheme source into the runtime namespace 'rt' and run it. It is expanded as
 * a program importing one pseudo-library: every syntactic keyword of the standard
 * libraries, and every runtime procedure already defined (so the source's own
 * definitions, such as the prelude's `map`, are definitions, not imports).
 * @param {string} source @param {string} name
 * @returns {any} the unit instance
 */
export function loadRuntimeSource(source, name) {
  boot();
  installPrimitives();
  const syntax = new Set();
  for (const [key, lib] of Object.entries(STANDARD_LIBRARIES)) {
    if (key.startsWith('(termite runtime-environment')) continue;
    for (const k of lib.syntax) syntax.add(k);
  }
  // one pseudo-library per source (the expander caches standard libraries by key)
  const procedures = [...rtEnv.cells.keys()].filter((n) => rtEnv.has(n));
  const key = `(termite runtime-environment ${name})`;
  STANDARD_LIBRARIES[key] = { syntax: [...syntax], procedures };
  // what the compilation depends on, kept as it is now; digested only when needed
  const inputs = { source, prims: [...primitives.keys()], syntax: [...syntax], procedures };
  const { hash, wire } = fromPrecompiled(name, inputs) ?? compileRuntimeSource(source, name, key);
  loadedHere.set(name, { inputs, hash, wire });
  // No source map: an error signalled inside the runtime library is reported at the
  // location of the user's code that called it (driver.js locateError skips frames of
  // code without one), not at a line of the library's source.
  const unit = instantiate({ ...wire, debug: undefined }, hash, rtEnv);
  runtimeUnits.set(hash, unit);
  const r = runToCompletion(new Thread(unit.top, []));
  if (!r.ok) throw new Error(`the runtime library ${name} failed to load: ${writeString(r.error)}`);
  installPrimitives();
  return unit;
}

/** @param {string} source @param {string} name @param {string} key the pseudo-library */
function compileRuntimeSource(source, name, key) {
  const file = `${name}.scm`;
  const datums = [readAll(`(import ${key})`)[0], ...readAll(source, { file })];
  const { units } = expandProgram(datums, { file });
  const core = units[units.length - 1];
  // The source's own definitions are runtime definitions: move '.' to 'rt'.
  const body = mapCore(core.body, (n, recur) => {
    if (n.t === 'GlobalRef' && n.g.ns === '.') return { ...n, g: { ns: 'rt', name: n.g.name } };
    if ((n.t === 'GlobalDef' || n.t === 'GlobalSet') && n.g.ns === '.') return { ...n, g: { ns: 'rt', name: n.g.name }, e: recur(n.e) };
    return undefined;
  });
  return compileUnit({ ...core, body, name }, { primitives });
}

// ---- precompiled runtime library ----------------------------------------------------
//
// Compiling the runtime sources is most of a node's start-up (about 110 ms in Node, 300-
// 550 ms in a browser worker). A daemon hands the browser workers it serves the wire
// units it compiled itself (web/src/build.js puts them in the worker bundle), and the
// worker instantiates those instead of compiling. A unit is used only if it was compiled
// in the same context: the same source, the same primitives and the same runtime
// procedures and syntax visible to it (compileContext), so it is the unit the worker
// would have compiled itself, with the same hash (migrated code names runtime units by
// hash). The units come inside the worker's own bundle, from the origin that served its
// JavaScript, so they are trusted as much as that code: the hash they come with is taken
// as it is (recomputing it would cost a third of the gain). They are still checked like
// received code (checkWire); a unit that fails is compiled from source instead. Nothing
// here is JavaScript: the worker generates its code from the IR as always. (One host
// also keeps the JavaScript it generated from them, beside its own code: node-daemon's
// start-up bundle, linker.js presetFastSources; for a unit whose JavaScript is given,
// the IR is not checked, as the check would protect nothing.)

/**
 * What a runtime source's compilation depends on.
 * @typedef {{source: string, prims: string[], syntax: string[], procedures: string[]}} CompileInputs
 */

/** What this process compiled or loaded, by source name. @type {Map<string, {inputs: CompileInputs, hash: string, wire: any}>} */
const loadedHere = new Map();
/** Units supplied by the host, by source name (sameCode: see supplyPrecompiledRuntime). @type {Map<string, {context: string, hash: string, data: any, sameCode: boolean}>} */
const supplied = new Map();

/** How runtime units came to be: for start-up diagnostics and tests. */
export const precompiledStats = { used: 0, compiled: 0, rejected: /** @type {string[]} */ ([]) };

/**
 * A digest of everything a runtime source's compilation depends on (computed only by a
 * process that is offered units or hands them out, not at every start-up).
 * @param {CompileInputs} inputs
 */
function compileContext(inputs) {
  const text = `${WIRE_VERSION}\0${inputs.source}`;
  return `${text.length}:${stringHash2(text)}:${setDigest(inputs.prims)}:${setDigest(inputs.syntax)}:${setDigest(inputs.procedures)}`;
}

/**
 * A digest of a set of names that does not depend on their order (the sum, modulo 2³²,
 * of each name's two hashes, and the count): sorting and joining thousands of names at
 * every start-up cost more than the hashing.
 * @param {string[]} names
 */
function setDigest(names) {
  let a = 0;
  let b = 0;
  for (const n of names) {
    let h1 = (0x811c9dc5 ^ 0x9e3779b9) >>> 0;
    let h2 = (0x811c9dc5 ^ 0x85ebca6b) >>> 0;
    for (let i = 0; i < n.length; i++) {
      const u = n.charCodeAt(i);
      h1 = Math.imul(h1 ^ u, 0x01000193);
      h2 = Math.imul(h2 ^ u, 0x01000193);
    }
    a = (a + (h1 >>> 0)) >>> 0;
    b = (b + (h2 >>> 0)) >>> 0;
  }
  return `${names.length}.${a.toString(16)}.${b.toString(16)}`;
}

/**
 * Two fast 32-bit hashes of a string's code units (FNV-1a with two seeds, in one pass:
 * this runs at every start-up that is offered units, on the runtime sources' text), as
 * 16 hex digits. Not cryptographic: the context check guards against compiling in
 * another context by mistake, not against an adversary (the units arrive with the
 * worker's own code, or from this installation's own cache).
 * @param {string} s
 */
function stringHash2(s) {
  let h1 = (0x811c9dc5 ^ 0x9e3779b9) >>> 0;
  let h2 = (0x811c9dc5 ^ 0x85ebca6b) >>> 0;
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ u, 0x01000193);
    h2 = Math.imul(h2 ^ u, 0x01000193);
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
}

/**
 * The supplied unit for `name` if it was compiled in this context and passes the checks.
 * @param {string} name @param {CompileInputs} inputs
 * @returns {{hash: string, wire: any} | null}
 */
function fromPrecompiled(name, inputs) {
  const pre = supplied.get(name);
  supplied.delete(name);
  if (pre === undefined || (!pre.sameCode && pre.context !== compileContext(inputs))) {
    if (pre !== undefined) precompiledStats.rejected.push(`${name}: compiled in another context`);
    precompiledStats.compiled++;
    return null;
  }
  try {
    const wire = wireFromData(pre.data, name);
    // When the host already gave the JavaScript that will run for this unit
    // (presetFastSources: its own output, kept beside its own code), checking the IR
    // it was generated from would protect nothing.
    if (!hasFastSource(pre.hash)) {
      checkWire(wire, {
        primitiveAllowed: (p) => primitives.has(p) || internalOps.has(p),
        globalAllowed: (ns) => ns === 'rt',
      });
    }
    precompiledStats.used++;
    return { hash: pre.hash, wire };
  } catch (e) {
    precompiledStats.rejected.push(`${name}: ${e instanceof Error ? e.message : String(e)}`);
    precompiledStats.compiled++;
    return null;
  }
}

/**
 * The runtime units this process has loaded so far, encoded (CBOR) for
 * supplyPrecompiledRuntime in another process.
 * @returns {Uint8Array}
 */
export function precompiledRuntime() {
  return encodeValue([...loadedHere].map(([name, u]) => [name, compileContext(u.inputs), u.hash, wireToData(u.wire)]));
}

/**
 * Offer units from precompiledRuntime() for the runtime sources this process will load.
 * Call before the first boot(); malformed input is ignored (everything is compiled).
 * `sameCode`: the host vouches that these units were compiled by this same code from
 * these same sources (node-daemon's start-up bundle holds both and keeps its units
 * beside itself), so their context is not digested again.
 * @param {Uint8Array} bytes
 * @param {{sameCode?: boolean}} [opts]
 * @returns {number} how many units were offered
 */
export function supplyPrecompiledRuntime(bytes, opts = {}) {
  let list;
  try {
    list = decodeValue(bytes);
  } catch (e) {
    precompiledStats.rejected.push(`undecodable: ${e instanceof Error ? e.message : String(e)}`);
    return 0;
  }
  return supplyPrecompiledUnits(list, opts);
}

/**
 * supplyPrecompiledRuntime for units already decoded (a host that keeps them in a form
 * that decodes faster). Entries of another shape are skipped.
 * @param {any} list @param {{sameCode?: boolean}} [opts]
 * @returns {number} how many units were offered
 */
export function supplyPrecompiledUnits(list, opts = {}) {
  if (!Array.isArray(list)) return 0;
  for (const entry of list) {
    if (!Array.isArray(entry) || entry.length !== 4) continue;
    const [name, context, hash, data] = entry;
    if (typeof name === 'string' && typeof context === 'string' && typeof hash === 'string') supplied.set(name, { context, hash, data, sameCode: opts.sameCode === true });
  }
  return supplied.size;
}

export { builtinUnit };
