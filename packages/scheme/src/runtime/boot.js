// @ts-check
/**
 * Start-up of the runtime library: register every primitive, install the builtin
 * closures and control procedures in 'rt', create the standard port parameters, and
 * compile and run the Scheme prelude into 'rt'. Idempotent; the first call does the
 * work (about as long as compiling a few hundred lines of Scheme).
 */
import './prims-numbers.js';
import './prims-equivalence.js';
import './prims-lists.js';
import './prims-chars.js';
import './prims-strings.js';
import './prims-vectors.js';
import './prims-errors.js';
import './ports.js';
import './prims-control.js';
import { Port } from './ports.js';
import { consolePorts } from './port-codec.js';
import { installPrimitives, installControl, builtinUnit } from './builtins.js';
import { installEval } from './eval.js';
import { makeParameter, parameterValue } from './prims-control.js';
import { current } from './current.js';
import { rtEnv, instantiate } from './linker.js';
import { driverHooks, Thread, runToCompletion } from './driver.js';
import { preludeSource } from './prelude-source.js';
import { readAll } from '../reader.js';
import { expandProgram, STANDARD_LIBRARIES } from '../expand/index.js';
import { compileUnit } from '../pipeline.js';
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
  const { hash, wire } = compileUnit({ ...core, body, name });
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

export { builtinUnit };
