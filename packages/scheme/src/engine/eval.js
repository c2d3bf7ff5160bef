// @ts-check
/**
 * R7RS §6.12 and the libraries (scheme eval), (scheme repl), (scheme load) and the
 * (scheme r5rs) environments: `eval`, `environment`, `interaction-environment`, `load`,
 * `scheme-report-environment`, `null-environment`.
 *
 * An environment is an `EvalEnvironment`: the expander's view (imports, macros and the
 * definitions made so far, expand/toplevel.js createEnvironment) plus the global
 * environment its definitions live in (linker.js Environment). `environment` makes a new
 * one from import sets; `interaction-environment` is one per node (JS realm), created on
 * first use, importing every standard library and (termite), as a program without an
 * import form does.
 *
 * `eval` expands the datum in the environment, compiles it (pipeline.js) and instantiates
 * the unit (linker.js) synchronously, inside the builtin; then it tail-calls the unit's
 * top-level thunk, as `apply` tail-calls its procedure, so `eval` needs no frame of its
 * own and a continuation captured inside evaluated code is ordinary frames. When the
 * datum loads user libraries (an `import` or `define-library`), their bodies run first,
 * in order, through the prelude's `%run-thunks`. `load` does the same for every datum of
 * a file, all expanded before any runs (so a macro defined early in the file is known to
 * the later forms; a syntax error anywhere means nothing in the file runs).
 *
 * Expansion and compilation errors are Scheme conditions (kind 'syntax'), raised in the
 * caller like any error a primitive signals, so `guard` sees them.
 *
 * Limits: procedures created by evaluated code belong to units no code store knows unless
 * the host registers them (evalOptions.onUnit), else a continuation holding one cannot be
 * serialized; environments are not serializable, so neither is a procedure that holds
 * one (nor code given to eval that contains such a procedure as a constant).
 */
import { defineBuiltin } from './builtins.js';
import { CALL, arity } from './engine.js';
import { rtEnv, Environment, instantiate, libraryEnvs } from './linker.js';
import { createEnvironment, expandInEnvironment } from '../expand/index.js';
import { STANDARD_LIBRARIES } from '../expand/stdlib.js';
import { compileUnitChecked } from '../compile-checked.js';
import { registerPrinter, writeString } from '../printer.js';
import { readAll, locationOf } from '../reader.js';
import { Pair, Sym, VOID, arrayToList, isList, schemeErrorOf, stringText, callWord } from '../values.js';
import { typeError } from '../primitives/prims-errors.js';
import * as host from './host.js';

const decoder = new TextDecoder('utf-8');

/**
 * A file's text for the expander (include, libraries), or null when it cannot be read.
 * @param {string} path @returns {string|null}
 */
function readTextFile(path) {
  try {
    return decoder.decode(host.readFile(path));
  } catch {
    return null;
  }
}

/**
 * A library some program of this node already loaded is imported as it is (its file need
 * not be found again, and its state is the one the program sees).
 * @param {string} _key @param {any} lib
 */
const sharedLibrary = (_key, lib) => libraryEnvs.has(lib.ns);

/**
 * What the host may set: the directories `environment` and `import` in evaluated code
 * search for library files (besides libraries the node already loaded), and a hook
 * called with every unit instance eval and load create (a code registry, so that
 * procedures made by evaluated code can be serialized).
 * @type {{libraryPath: string[], onUnit: ((inst: any) => void)|null}}
 */
export const evalOptions = { libraryPath: [], onUnit: null };

let envCounter = 0;
/** Environment ids are unique across JS processes too: nodes keep replicas keyed by id. */
const INSTANCE = crypto.getRandomValues(new Uint32Array(2)).join('.');

/** A first-class environment: what `eval` compiles and runs in. */
export class EvalEnvironment {
  /**
   * @param {any[]|null} specs import-set datums; null: every standard library and (termite)
   * @param {string} name how it prints
   */
  constructor(specs, name) {
    this.name = name;
    this.specs = specs;
    this.expandEnv = createEnvironment(specs, { readFile: readTextFile, libraryPath: evalOptions.libraryPath, sharedLibrary });
    this.env = new Environment(`eval:${INSTANCE}:${++envCounter}`);
  }
}

registerPrinter(EvalEnvironment, (e) => `#<environment ${e.name}>`);

/** @type {EvalEnvironment|null} */
let interaction = null;

/** The node's interaction environment (R7RS `interaction-environment`). */
export function interactionEnvironment() {
  if (interaction === null) interaction = new EvalEnvironment(null, 'interaction');
  return interaction;
}

/**
 * Expand, compile and instantiate one datum in `env`. Returns the top-level thunks to
 * run in order: the bodies of user libraries it loaded, then its own.
 * @param {any} datum @param {EvalEnvironment} env
 * @returns {any[]}
 */
function compileIn(datum, env) {
  const { units } = expandInEnvironment(datum, env.expandEnv);
  // the unit's name is the file its source locations refer to
  const file = locationOf(datum)?.file ?? 'eval';
  const tops = [];
  for (const u of units) {
    const { hash, wire } = compileUnitChecked(u.kind === 'library' ? u : { ...u, name: file }, { writeDatum: writeString });
    if (u.kind === 'library') {
      const ns = /** @type {any} */ (u).ns ?? `lib:${u.name}`;
      if (libraryEnvs.has(ns)) continue;
      const lenv = new Environment(ns);
      libraryEnvs.set(ns, lenv);
      const inst = instantiate(wire, hash, lenv);
      if (evalOptions.onUnit) evalOptions.onUnit(inst);
      tops.push(inst.top);
    } else {
      const inst = instantiate(wire, hash, env.env);
      if (evalOptions.onUnit) evalOptions.onUnit(inst);
      tops.push(inst.top);
    }
  }
  return tops;
}

/**
 * Tail-call the thunks in order; the value is the last one's.
 * @param {number} d @param {any[]} tops
 */
function runTops(d, tops) {
  if (tops.length === 0) return VOID;
  if (tops.length === 1) return tops[0][CALL](callWord(d, 0));
  return rtEnv.cell('%run-thunks').v[CALL](callWord(d, 1), arrayToList(tops));
}

/** @param {string} who @param {any} x @returns {EvalEnvironment} */
function checkEnvironment(who, x) {
  if (x instanceof EvalEnvironment) return x;
  return typeError(who, 'an environment', x);
}

/**
 * `(eval expr-or-def [environment])`; without an environment, the interaction environment.
 * @this {any} the eval procedure
 */
function evalCode(/** @type {number} */ d, /** @type {any} */ datum, /** @type {any} */ env) {
  if (arguments.length < 2 || arguments.length > 3) return arity(this, arguments.length - 1);
  const e = arguments.length === 3 ? checkEnvironment('eval', env) : interactionEnvironment();
  return runTops(d, compileIn(datum, e));
}

/**
 * `(environment import-set ...)`. Each import set must be a list (a library name or
 * only/except/prefix/rename); a library that cannot be found is an error.
 * @param {any[]} specs
 */
function makeEnvironment(...specs) {
  for (const s of specs) if (!(s instanceof Pair) || !isList(s)) typeError('environment', 'an import set (a list)', s);
  return new EvalEnvironment(specs, specs.map((s) => writeString(s)).join(' ') || '()');
}

/** @param {string} who @param {any} version */
function checkR5rsVersion(who, version) {
  if (version !== 5) schemeErrorOf('range', who, 'only version 5 is supported', version);
}

/** `(scheme-report-environment 5)`: every binding of (scheme r5rs). */
function schemeReportEnvironment(/** @type {any} */ version) {
  checkR5rsVersion('scheme-report-environment', version);
  return new EvalEnvironment([readAll('(scheme r5rs)')[0]], '(scheme r5rs)');
}

/** `(null-environment 5)`: the syntactic keywords of (scheme r5rs) only. */
function nullEnvironment(/** @type {any} */ version) {
  checkR5rsVersion('null-environment', version);
  const keywords = STANDARD_LIBRARIES['(scheme r5rs)'].syntax.map((k) => Sym.intern(k));
  const spec = new Pair(Sym.intern('only'), new Pair(readAll('(scheme r5rs)')[0], arrayToList(keywords)));
  return new EvalEnvironment([spec], '(null-environment 5)');
}

/**
 * `(load filename [environment])`: evaluate every datum of the file in order.
 * @this {any} the load procedure
 */
function loadCode(/** @type {number} */ d, /** @type {any} */ file, /** @type {any} */ env) {
  if (arguments.length < 2 || arguments.length > 3) return arity(this, arguments.length - 1);
  file = stringText(file);
  if (typeof file !== 'string') typeError('load', 'a file name (a string)', file);
  const e = arguments.length === 3 ? checkEnvironment('load', env) : interactionEnvironment();
  let bytes;
  try {
    bytes = host.readFile(file);
  } catch (err) {
    if (err instanceof host.HostError) schemeErrorOf('file', 'load', `cannot open file (${err.message})`, file);
    throw err;
  }
  const datums = readAll(decoder.decode(bytes), { file });
  const tops = [];
  for (const datum of datums) tops.push(...compileIn(datum, e));
  return runTops(d, tops);
}

/** Install the procedures of (scheme eval), (scheme repl), (scheme load) and the r5rs environments. */
export function installEval() {
  defineBuiltin('eval', evalCode, 1, 1);
  defineBuiltin('load', loadCode, 1, 1);
  defineBuiltin('environment', adapt(makeEnvironment, 0, -1), 0, -1);
  defineBuiltin('interaction-environment', adapt(interactionEnvironment, 0, 0), 0, 0);
  defineBuiltin('scheme-report-environment', adapt(schemeReportEnvironment, 1, 1), 1, 0);
  defineBuiltin('null-environment', adapt(nullEnvironment, 1, 1), 1, 0);
}

/**
 * A builtin's calling convention around a plain JS function (these three never call
 * Scheme code).
 * @param {Function} fn @param {number} min @param {number} max -1: any
 */
function adapt(fn, min, max) {
  /** @this {any} @param {number} _d @param {any[]} args */
  return function (_d, ...args) {
    if (args.length < min || (max >= 0 && args.length > max)) return arity(this, args.length);
    return fn(...args);
  };
}
