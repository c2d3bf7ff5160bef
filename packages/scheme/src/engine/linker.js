// @ts-check
/**
 * The linker: turns a checked wire unit into running code in a global environment.
 *
 * Global environments: 'rt' (the runtime library: primitives, control procedures and
 * the Scheme prelude), one per library ('lib:(foo bar)'), and the environments that
 * programs and REPLs are instantiated in (the unit's '.' namespace). A global is a
 * Cell; a unit's code holds its cells directly, so a global access is one property
 * load. Instantiation generates JavaScript from the IR (never runs JS received from
 * elsewhere), evaluates it with `new Function`, and fills the unit's LambdaInfo table,
 * which closures and frames reference. Only the fast forms are generated then; a
 * lambda's resume form is generated, evaluated and put in its table entry the first
 * time one of its frames is resumed (until then its `lam.resume` is that step).
 */
import { Cell, Unbound, codeRuntime, EMPTY } from './engine.js';
import { primitives } from './registry.js';
import { Closure, UNIT_HASH, freezeLiteral, schemeErrorOf, CALLING_CONVENTION } from '../values.js';
import { generateJs, generateResumeOf } from '../passes/generate-js.js';
import { internalOps } from '../passes/inline-primitives.js';
import { siteLocation } from '../ir/wire.js';
import { sourceMaps } from './driver.js';
import { registerUnitSource, forgetUnitSources } from './backtrace.js';

/** A global namespace instance: name → Cell. */
export class Environment {
  /** @param {string} id e.g. 'rt', 'lib:(foo bar)', 'prog:<hash>' */
  constructor(id) {
    this.id = id;
    /** @type {Map<string, Cell>} */
    this.cells = new Map();
    /** incremented by every define and set! of one of its globals */
    this.version = 0;
  }
  /** The cell of `name`, created unbound if absent. @param {string} name */
  cell(name) {
    let c = this.cells.get(name);
    if (c === undefined) {
      c = new Cell(this.id, name, this);
      this.cells.set(name, c);
    }
    return c;
  }
  /** Whether `name` is bound. @param {string} name */
  has(name) {
    const c = this.cells.get(name);
    return c !== undefined && !(c.v instanceof Unbound);
  }
}

/** The runtime library's environment. */
export const rtEnv = new Environment('rt');

/** Library environments by namespace id. @type {Map<string, Environment>} */
export const libraryEnvs = new Map();

/** Raised when a unit refers to something this node does not have. */
export class LinkError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'LinkError';
  }
}

/** Generated JS by unit hash (generation is deterministic, so it is shared). */
const sourceCache = new Map();

/**
 * A unit instantiated in an environment.
 * @typedef {object} UnitInstance
 * @property {string} hash
 * @property {any} wire
 * @property {Environment} env
 * @property {any[]} lams LambdaInfo table
 * @property {Closure} top the unit's top-level thunk
 */

/**
 * @param {any} wire a checked wire unit
 * @param {string} hash its content hash
 * @param {Environment} env the environment for namespace '.'
 * @param {{deny?: Set<string>}} [opts] runtime procedures this unit may not call (code
 *   received from another node): they are linked to stand-ins that raise an error
 *   naming the procedure
 * @returns {UnitInstance}
 */
export function instantiate(wire, hash, env, opts = {}) {
  const deny = opts.deny ?? null;
  const G = wire.globals.map((/** @type {[string, string]} */ [ns, name]) => (ns === 'rt' && deny?.has(name) ? deniedCell(name) : envOf(ns, env).cell(name)));
  const P = wire.prims.map((/** @type {string} */ name) => {
    if (internalOps.has(name)) return null;
    if (deny?.has(name)) return deniedPrimitive(name);
    const p = primitives.get(name);
    if (!p) throw new LinkError(`unit ${hash.slice(0, 12)} uses primitive ${name}, which this node does not have`);
    return p.fn;
  });
  // literal constants are immutable (R7RS): mutating one is an error, not a silent change
  const K = wire.consts.map((/** @type {any} */ k) => (k === UNIT_HASH ? hash : freezeLiteral(k)));
  const instance = { hash, wire, env, lams: /** @type {any[]} */ ([]), top: /** @type {any} */ (null) };
  const LAM = wire.lambdas.map((/** @type {any} */ lam, /** @type {number} */ index) => {
    const c0 = lam.clauses[0];
    return {
      unit: instance,
      index,
      name: lam.name,
      nreq: c0.nreq,
      nopt: 0,
      rest: lam.clauses.length === 1 ? c0.rest === 1 : true,
      fast: null,
      resume: null,
    };
  });
  const sourceName = `termite:${hash.slice(0, 16)}.js`;
  const source = generated(sourceCache, wire, hash, () => generateJs(wire, 'fast'), sourceName);
  const [fast, closed] = compileFast(source, sourceName, hash)({ ...codeRuntime, K, G, P, LAM });
  // A lambda's resume form is generated when a frame of it is first resumed (only
  // that lambda's: a large unit pre-empted once does not generate all of its own).
  const materialize = function (/** @type {any} */ fr, /** @type {any} */ v) {
    const lam = fr.lam;
    const resumeName = `termite:${hash.slice(0, 16)}$r${lam.index}.js`;
    const rsource = generated(resumeCache, wire, `${hash}:${lam.index}`, () => generateResumeOf(wire, lam.index), resumeName);
    lam.resume = new Function('$', `${rsource}\n//# sourceURL=${resumeName}`)({ ...codeRuntime, K, G, P, LAM, L: fast, S: closed });
    return lam.resume(fr, v);
  };
  LAM.forEach((/** @type {any} */ lam, /** @type {number} */ i) => {
    lam.fast = fast[i];
    lam.resume = materialize;
  });
  instance.lams = LAM;
  instance.top = new Closure(LAM[0].fast, LAM[0], EMPTY);
  return instance;
}

/** @typedef {(source: string, sourceName: string, hash: string) => Function} FastCompiler */
/** @type {FastCompiler} */
const compileWithFunction = (source, sourceName) => new Function('$', `${source}\n//# sourceURL=${sourceName}`);
let compileFast = compileWithFunction;

/**
 * How a unit's fast forms are compiled from their generated JavaScript: with `new
 * Function` unless the host sets its own (null: back to `new Function`), which must
 * give what `new Function('$', source + sourceURL)` gives, line for line (node-daemon
 * compiles the runtime library's this way with V8's code cache).
 * @param {FastCompiler | null} compiler
 */
export function setFastCompiler(compiler) {
  compileFast = compiler ?? compileWithFunction;
}

/** Generated resume forms by "unit hash:lambda index". */
const resumeCache = new Map();

/**
 * What each kept source starts with: the calling convention it was generated for
 * (values.js CALLING_CONVENTION). Code of another convention would call this one's
 * procedures with the wrong call words, so presetFastSources takes only sources that
 * carry this one's mark.
 */
const CONVENTION_MARK = `/* calling convention ${CALLING_CONVENTION} */`;

/**
 * The fast forms' JavaScript of the units with these hashes, as generated here: for a
 * host that keeps it beside the units it came from (node-daemon's start-up cache of the
 * runtime library), to hand back with presetFastSources in a later process. Each source
 * is marked with the calling convention it was generated for.
 * @param {Iterable<string>} hashes
 * @returns {Record<string, string>}
 */
export function fastSourcesOf(hashes) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const h of hashes) {
    const s = sourceCache.get(h);
    if (s !== undefined) out[h] = CONVENTION_MARK + s;
  }
  return out;
}

/** Whether the fast forms' JavaScript of the unit with this hash is at hand. @param {string} hash */
export function hasFastSource(hash) {
  return sourceCache.has(hash);
}

/**
 * Take the fast forms' JavaScript of units by hash instead of generating it. Only for
 * JavaScript this installation generated itself from the same IR with the same
 * generator (never JavaScript from a peer): the caller vouches for that. A source
 * without this calling convention's mark (fastSourcesOf) is ignored: its unit is
 * generated as usual.
 * @param {Record<string, string>} sources
 * @returns {string[]} the hashes whose source was taken
 */
export function presetFastSources(sources) {
  const taken = [];
  for (const [h, s] of Object.entries(sources)) {
    if (typeof s !== 'string' || !s.startsWith(CONVENTION_MARK) || sourceCache.has(h)) continue;
    sourceCache.set(h, s.slice(CONVENTION_MARK.length));
    taken.push(h);
  }
  return taken;
}

/**
 * A part of a unit's JavaScript (passes/generate-js.js), generated once per key (the
 * unit hash; with a lambda index for a resume form) and registered for backtraces and
 * source locations under `sourceName`.
 * @param {Map<string, string>} cache @param {any} wire @param {string} key
 * @param {() => string} generate @param {string} sourceName
 */
function generated(cache, wire, key, generate, sourceName) {
  let source = cache.get(key);
  if (source === undefined) {
    source = generate();
    cache.set(key, source);
  }
  if (wire.debug) registerSourceMap(sourceName, source, wire.debug);
  registerUnitSource(sourceName, source, wire);
  return source;
}

/**
 * Drop what was generated for unit `hash` (its library was unloaded): its JavaScript,
 * its resume forms, their source maps and backtrace tables. Instantiating it again
 * generates them again.
 * @param {string} hash
 */
export function forgetGenerated(hash) {
  sourceCache.delete(hash);
  for (const key of [...resumeCache.keys()]) if (key.startsWith(`${hash}:`)) resumeCache.delete(key);
  const prefix = `termite:${hash.slice(0, 16)}`;
  for (const name of [...sourceMaps.keys()]) if (name.startsWith(prefix)) sourceMaps.delete(name);
  forgetUnitSources(prefix);
}

/** Lines `new Function` puts before the body ("function anonymous($\n) {"). */
const FUNCTION_PROLOGUE_LINES = 2;

/** @param {string} name */
function deniedPrimitive(name) {
  return () => schemeErrorOf('denied', name, `${name} is not allowed for code received from another node`);
}

/**
 * A cell holding a procedure that refuses to run.
 * @param {string} name
 */
function deniedCell(name) {
  const cell = new Cell('rt', name);
  const fn = function () {
    return schemeErrorOf('denied', name, `${name} is not allowed for code received from another node`);
  };
  cell.v = new Closure(fn, { unit: null, index: 0, name, nreq: 0, nopt: 0, rest: true, fast: fn, resume: null }, null);
  return cell;
}

/**
 * @param {string} ns @param {Environment} self
 * @returns {Environment}
 */
function envOf(ns, self) {
  if (ns === '.') return self;
  if (ns === 'rt') return rtEnv;
  const lib = libraryEnvs.get(ns);
  if (!lib) throw new LinkError(`library ${ns.slice(4)} is not loaded`);
  return lib;
}

/**
 * Map the generated source's lines (by their `//@lam:site` markers) to source locations.
 * @param {string} sourceName @param {string} source @param {any} debug
 */
function registerSourceMap(sourceName, source, debug) {
  // built on the first lookup (an error's location), not at instantiation: most units never need it
  /** @type {(string|null)[]|null} */
  let byLine = null;
  sourceMaps.set(sourceName, (line) => {
    if (byLine === null) {
      const lines = /** @type {(string|null)[]} */ ([]);
      source.split('\n').forEach((text, i) => {
        const m = /\/\/@(\d+):(\d+)$/.exec(text);
        if (m) lines[i + 1 + FUNCTION_PROLOGUE_LINES] = siteLocation(debug, Number(m[1]), Number(m[2]));
      });
      byLine = lines;
    }
    return byLine[line] ?? null;
  });
}
