// @ts-check
/**
 * Installing a library on demand: code received from another node (a closure, a
 * continuation, a spawned thunk) whose unit requires a library namespace this node
 * lacks, or whose code is a library's own, makes this node obtain that library:
 *
 *   1. its signed record — from this node's store (installed before a restart), else a
 *      LIB request to the node that sent the code, then (if it does not have it, as a
 *      tab or a node the code came through may not, or gives a record refused here) to
 *      the other nodes this one is linked to, one at a time (`libraryRecordFrom`); the
 *      code and the libraries it requires come from the node that gave the record;
 *   2. the install policy (library-registry.js `admit`): a version, a signature that
 *      verifies, a trusted publisher — else LibraryRefused naming library, version and
 *      publisher, and nothing of it runs;
 *   3. the libraries it requires, the same way (bounded depth);
 *   4. its unit's IR by the code-on-demand path (`fetchWire`: code cache, else CODE),
 *      whose hash must be the one the record signs and which passes the IR checker's
 *      allowlist (a library's code writes only its own globals, and names of other
 *      libraries only what they define: `checkLibraryNames`); compiled here, its top level run once with the denied procedures
 *      linked to stand-ins;
 *   5. the record kept (memory and store).
 *
 * Invariants: one install per library in flight (`libFetching`): every frame that
 * needs it waits for that one, so a library is fetched once per node, never per
 * message; records that require each other in a cycle are refused, and an install
 * ends within INSTALL_MS (plus the approval wait) whatever peers answer; a library's environment exists only once its top level has run to its end
 * (a failure removes it); these are Distribution's methods (`this` is the Distribution).
 */
import { Environment, instantiate, libraryEnvs, LinkError } from '@termite/scheme/internal';
import { registerUnitInstance } from '../code.js';
import { R_LIB } from '../distribution/frame-vocabulary.js';
import { LibraryRefused, versioned, splitKey, recordFromData, recordData } from './library-registry.js';

/** @typedef {import('../distribution.js').Distribution} Distribution */

/** Nodes asked for one library's record at most (the sender first, then linked nodes). */
const MAX_SOURCES = 8;
/** How deep a chain of libraries requiring libraries may go. */
const MAX_DEPTH = 32;
/** How long one install may take (records naming each other from two frames at once must not hang). */
const INSTALL_MS = 120_000;

/**
 * Make library namespace `ns` ("lib:(foo bar)@1.2") available here, from node `from`.
 * `chain`: the libraries whose install needs this one (a cycle among them is refused).
 * @param {string} from @param {string} ns @param {string[]} [chain]
 * @this {Distribution}
 */
export function obtainLibrary(from, ns, chain = []) {
  if (libraryEnvs.has(ns)) return Promise.resolve();
  const key = ns.slice(4);
  if (!versioned(key)) {
    return Promise.reject(new LinkError(`library ${key} has no version: a library without one is local to its program and cannot travel to another node (name it with a version, as in (define-library ${key.replace(/\)$/, '@1.0)')} ...))`));
  }
  if (chain.length > MAX_DEPTH) return Promise.reject(new LibraryRefused(`library ${key}: libraries require each other more than ${MAX_DEPTH} deep`));
  if (chain.includes(ns)) return Promise.reject(new LibraryRefused(`library ${key}: libraries require each other in a cycle (${[...chain, ns].map((n) => n.slice(4)).join(' → ')})`));
  let p = this.libFetching.get(ns);
  if (!p) {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const late = new Promise((_, reject) => {
      // an install may also wait for an operator's approval (library-registry.js `approval`)
      const limit = INSTALL_MS + this.libraries.approvalWaitMs;
      timer = setTimeout(() => reject(new LibraryRefused(`library ${key} was not installed within ${limit / 1000} s`)), limit);
    });
    p = Promise.race([this.installLibrary(from, key, [...chain, ns]), late]).finally(() => clearTimeout(timer));
    this.libFetching.set(ns, p);
    p.finally(() => this.libFetching.delete(ns)).catch(() => {});
  }
  return p;
}

/**
 * Steps 1 to 5 above for library `key`.
 * @param {string} from @param {string} key @param {string[]} chain the libraries being installed that need it, and it
 * @this {Distribution}
 */
export async function installLibrary(from, key, chain) {
  const reg = this.libraries;
  const started = Date.now();
  const [name, version] = splitKey(key);
  const stored = await reg.stored(key);
  /** @type {{record: import('./library-registry.js').LibraryRecord, publisher: string, source: string}} */
  const got = stored !== null ? { record: stored, publisher: await reg.admit(stored, key), source: from } : await this.libraryRecordFrom(from, key);
  const { record, publisher, source } = got;
  const fromStore = stored !== null;
  for (const dep of record.requires) await this.obtainLibrary(source, dep, chain);
  const wire = await this.fetchWire(source, record.unit, `lib:${key}`);
  if (!sameList(wire.requires, record.requires)) throw new LibraryRefused(`library ${name} version ${version}: its code requires other libraries than its record says`);
  const ns = `lib:${key}`;
  checkLibraryNames(wire, record.unit, ns);
  // checking a large library's IR and compiling it each hold the event loop for a while
  // (about a second each for 400K of source): let heartbeats and frames be read between
  // (setImmediate runs after the event loop polled for I/O; a timer may run before it)
  await new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)));
  if (libraryEnvs.has(ns)) return;
  const env = new Environment(ns);
  libraryEnvs.set(ns, env);
  try {
    const inst = instantiate(wire, record.unit, env, { deny: this.denied });
    registerUnitInstance(inst);
    await this.runToEnd(inst.top, `library ${key}`);
  } catch (e) {
    libraryEnvs.delete(ns);
    throw e;
  }
  await reg.keep(record, publisher, fromStore ? null : source, fromStore);
  this.watchOldVersions(); // a newer version may make an older one unloadable (library-unload.js)
  this.log(`installed library ${name} version ${version} (publisher ${publisher}, ${fromStore ? "from this node's store" : `fetched from ${source.slice(0, 12)}${source === from ? '' : `, as ${from.slice(0, 12)} did not give it`}`}) in ${Date.now() - started} ms`);
}

/**
 * Library `key`'s signed record, admitted by the install policy: asked of `from` (the
 * node whose code needs it), then, if it does not have it (a tab, a node the code
 * reached through) or gives a record this node refuses, of each node this one is linked
 * to, one at a time (at most MAX_SOURCES in all). Returns the record, its publisher and
 * the node that gave it (asked for the library's code next); if none does, the refusal
 * says why the first node's answer was not enough.
 * @param {string} from @param {string} key
 * @this {Distribution}
 */
export async function libraryRecordFrom(from, key) {
  const [name, version] = splitKey(key);
  const others = this.mesh.peers().map((/** @type {{id: string}} */ p) => p.id).filter((/** @type {string} */ id) => id !== from);
  const sources = [from, ...others].slice(0, MAX_SOURCES);
  /** @type {Error|null} */
  let first = null;
  for (const source of sources) {
    try {
      let data;
      try {
        data = await this.call(source, [R_LIB, key]);
      } catch (e) {
        throw new LibraryRefused(`library ${name} version ${version} could not be fetched from ${source.slice(0, 12)}: ${e instanceof Error ? e.message : e}`);
      }
      const record = recordFromData(data);
      this.libraries.fetched++;
      return { record, publisher: await this.libraries.admit(record, key), source };
    } catch (e) {
      if (!(e instanceof LibraryRefused)) throw e;
      first ??= e;
    }
  }
  throw /** @type {Error} */ (first);
}

/**
 * The answer to LIB [key]: the signed record of a library this node has.
 * @param {string} key
 * @this {Distribution}
 */
export async function libraryData(key) {
  const rec = this.libraries.record(key);
  if (rec === null) throw new Error(`this node does not have library ${key.slice(0, 200)}${versioned(key) ? '' : ' (a library without a version cannot travel)'}`);
  return recordData(await rec);
}

/**
 * The record of the library whose code a unit is, when the unit's environment is a
 * library's: null when this node did not install or publish one by that key.
 * @param {string} ns
 * @this {Distribution}
 */
export function libraryRecordOf(ns) {
  return this.libraries.record(ns.slice(4));
}

/**
 * A received unit (a program's, or library `own`'s code) names of other libraries only
 * what they define: each such library must be one the unit requires (installed here
 * first, its top level run) and the name bound in it. So received code cannot create
 * globals in a library's environment, which every program on this node shares, nor
 * name a library it did not declare. (Writing them is refused earlier, by the IR
 * checker: `policy`'s globalAssignable.)
 * @param {any} wire @param {string} hash @param {string|null} own
 */
export function checkLibraryNames(wire, hash, own) {
  /** @type {Set<string>|null} */
  let required = null;
  for (const [ns, name] of wire.globals) {
    if (!ns.startsWith('lib:') || ns === own) continue;
    required ??= new Set(wire.requires);
    const lib = libraryEnvs.get(ns);
    if (!required.has(ns) || lib === undefined) throw new LinkError(`unit ${hash.slice(0, 16)} names ${name} of library ${ns.slice(4)}, which it does not require`);
    if (!lib.has(name)) throw new LinkError(`unit ${hash.slice(0, 16)} names ${name}, which library ${ns.slice(4)} does not define`);
  }
}

/** @param {any} a @param {string[]} b */
const sameList = (a, b) => Array.isArray(a) && a.length === b.length && a.every((x, i) => x === b[i]);
