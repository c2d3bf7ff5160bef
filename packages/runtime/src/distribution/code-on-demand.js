// @ts-check
/**
 * Code on demand: decoding a value whose code (unit hash) this node lacks stops with
 * MissingCode (code.js); the unit's IR is fetched from the sender (a CODE request), its
 * hash recomputed, checked against this node's allowed library (received-code.js,
 * ir/check-wire.js), compiled here, cached (memory, and the code cache: disk under
 * --data, IndexedDB in a tab), and decoding starts again. A peer never runs JavaScript
 * it received: it only ever receives IR.
 *
 * Invariants:
 *  - one fetch per (unit, environment) in flight (`fetching`); every frame that needs
 *    the unit waits for that one;
 *  - a unit is instantiated only after its IR matched its hash and passed checkWire;
 *  - decoding is bounded (256 rounds of missing units per value);
 *  - a unit that requires a library, or is a library's code, runs only once that library
 *    was installed by code-libraries/ (signed, trusted, checked);
 *  - a value whose code belongs to a program environment still being copied here is
 *    not ready until the copy is (program-environments.js), except for the answer that
 *    brings that copy (`wait` false), which must not wait for itself;
 *  - `decodeReady` is the synchronous decode of the fast paths: the value, or NOT_READY
 *    when it needs code or definitions first (never fetches).
 *
 * These functions are Distribution's methods (`this` is the Distribution), moved here whole.
 */
import {
  encodeValue, decodeValue, CodecError, Environment, instantiate, libraryEnvs, runSlice, LinkError, SLICE_DONE, SLICE_DIED,
  Thread, checkWire,
} from '@termite/scheme/internal';
import { wireToData, wireFromData, hashWire } from '@termite/scheme';
import { registerUnitInstance, unitsByHash, MissingCode } from '../code.js';
import { R_CODE, NOT_READY } from './frame-vocabulary.js';
import { checkLibraryNames } from '../code-libraries/library-install.js';

/** @typedef {import('../distribution.js').Distribution} Distribution */

/**
 * The value in bytes[start, end).
 * @param {Uint8Array} bytes
 * @param {Set<string>} [loading] collects the environments the value's code belongs to
 *   whose definitions are still being copied here
 * @param {number} [start] @param {number} [end]
 * @this {Distribution}
 */
export function decode(bytes, loading, start = 0, end = bytes.length) {
  if (loading === undefined || this.envLoading.size === 0) return decodeValue(bytes, this.decodeOptions, start, end);
  return decodeValue(bytes, {
    resolveCode: (hash, env) => {
      const unit = this.receivedCode(hash, env);
      if (this.envLoading.has(env)) loading.add(env);
      return unit;
    },
    viewBytes: true,
  }, start, end);
}

/**
 * `bytes` decoded now, or NOT_READY if that needs code this node does not have yet or
 * environments still being copied here (decodeFetching then waits for them). A
 * malformed value throws, as decodeFetching would.
 * @param {Uint8Array} bytes @param {number} [start] @param {number} [end] the value's bytes
 * @this {Distribution}
 */
export function decodeReady(bytes, start = 0, end = bytes.length) {
  // decode fills it only while environments are being copied here (rarely); it is
  // read before anything can decode again
  const loading = this.loadingScratch;
  if (loading.size !== 0) loading.clear(); // clear() allocates a new table even when empty
  let value;
  try {
    value = this.decode(bytes, loading, start, end);
  } catch (e) {
    if (e instanceof MissingCode) return NOT_READY;
    throw e;
  }
  return loading.size === 0 ? value : NOT_READY;
}

/**
 * Decode, fetching missing code from `from` (bounded number of rounds), then wait
 * until the environments of that code have their definitions (unless `wait` is false:
 * the answer that brings those definitions must not wait for itself).
 * @param {string} from @param {Uint8Array} bytes @param {boolean} [wait]
 * @this {Distribution}
 */
export async function decodeFetching(from, bytes, wait = true) {
  for (let round = 0; round < 256; round++) {
    /** @type {Set<string>} */
    const loading = new Set();
    let value;
    try {
      value = this.decode(bytes, loading);
    } catch (e) {
      if (!(e instanceof MissingCode)) throw e;
      await this.obtainUnit(from, e.hash, e.env);
      continue;
    }
    if (wait) for (const env of loading) await this.envLoading.get(env);
    return value;
  }
  throw new CodecError('too many units missing to decode a frame');
}

/**
 * Make unit `hash` available in environment `envId`: from the caches, or from node
 * `from`; checked, compiled and instantiated here.
 * @param {string} from @param {string} hash @param {string} envId
 * @this {Distribution}
 */
export async function obtainUnit(from, hash, envId) {
  const k = `${hash} ${envId}`;
  let p = this.fetching.get(k);
  if (!p) {
    p = this.fetchAndInstantiate(from, hash, envId).catch((e) => {
      // the refusal names the unit (the sender sees this message)
      if (e instanceof Error && !e.message.includes(hash.slice(0, 12))) e.message = `unit ${hash.slice(0, 16)}: ${e.message}`;
      throw e;
    });
    this.fetching.set(k, p);
    p.finally(() => this.fetching.delete(k)).catch(() => {});
  }
  return p;
}

/** @param {string} from @param {string} hash @param {string} envId @this {Distribution} */
export async function fetchAndInstantiate(from, hash, envId) {
  if (envId.startsWith('lib:')) {
    // a library's own code: installed whole, policy first (code-libraries/), or not at all
    if (libraryEnvs.has(envId)) {
      // loaded here, yet not this unit: one name and version must name one content
      const here = await this.libraryRecordOf(envId);
      throw new LinkError(`library ${envId.slice(4)} here is other code${here ? ` (unit ${here.unit.slice(0, 12)})` : ''} than the code received (unit ${hash.slice(0, 12)}): a name and version must name one content`);
    }
    await this.obtainLibrary(from, envId);
    const rec = await this.libraryRecordOf(envId);
    if (rec === null || rec.unit !== hash) throw new LinkError(`unit ${hash.slice(0, 12)} is not the code of library ${envId.slice(4)}`);
    return;
  }
  const wire = await this.fetchWire(from, hash);
  // a library it needs is installed first (code-libraries/: signed record, policy)
  for (const ns of wire.requires) if (ns.startsWith('lib:') && !libraryEnvs.has(ns)) await this.obtainLibrary(from, ns);
  checkLibraryNames(wire, hash, null);
  const environments = this.node.environments;
  let env = environments.get(envId);
  const fresh = env === undefined;
  if (fresh) {
    env = new Environment(envId);
    environments.set(envId, env);
  }
  const inst = instantiate(wire, hash, /** @type {Environment} */ (env), { deny: this.denied });
  registerUnitInstance(inst);
  if (fresh) {
    // until the definitions are here, frames using this environment's code wait
    const loaded = this.loadGlobals(from, /** @type {Environment} */ (env));
    this.envLoading.set(envId, loaded);
    try {
      await loaded;
    } finally {
      this.envLoading.delete(envId);
    }
  }
}

/**
 * The checked IR of a unit: memory, then the code cache, then node `from`.
 * @param {string} from @param {string} hash
 * @param {string|null} [own] the library namespace whose code it is to be (null: a program's)
 * @this {Distribution}
 */
export async function fetchWire(from, hash, own = null) {
  const known = unitsByHash.get(hash);
  if (known) {
    // checked (or compiled here) as the runtime's or a library's code: not another environment's
    const id = known.env.id;
    if ((id === 'rt' || id.startsWith('lib:')) && id !== own) throw new LinkError(`unit ${hash.slice(0, 16)} is the code of ${id === 'rt' ? 'the runtime' : `library ${id.slice(4)}`}, not of ${own === null ? 'a program' : `library ${own.slice(4)}`}`);
    return known.wire;
  }
  let bytes = this.codeCache ? await this.codeCache.get(hash) : null;
  let shipped;
  if (bytes !== null) {
    shipped = decodeValue(bytes);
  } else {
    try {
      shipped = await this.call(from, [R_CODE, hash]);
    } catch (e) {
      throw new CodecError(`unit ${hash.slice(0, 16)} could not be fetched from ${from.slice(0, 12)}: ${e instanceof Error ? e.message : e}`);
    }
    this.stats.codeFetched++;
  }
  if (!Array.isArray(shipped) || shipped.length !== 3) throw new CodecError(`malformed unit ${hash.slice(0, 16)}`);
  const [name, data, debug] = shipped;
  const wire = wireFromData(data, String(name));
  checkWire(wire, this.policy(own));
  const actual = hashWire(wire);
  if (actual !== hash) throw new CodecError(`unit ${hash.slice(0, 16)} does not match its hash (got ${actual.slice(0, 16)})`);
  if (Array.isArray(debug)) /** @type {any} */ (wire).debug = { file: String(debug[0]), sites: debug[1] };
  if (bytes === null && this.codeCache) await this.codeCache.put(hash, encodeValue(shipped));
  return wire;
}

/**
 * Run a thunk to its end outside the scheduler (library initialisation).
 * @param {any} thunk @param {string} what
 * @this {Distribution}
 */
export async function runToEnd(thunk, what) {
  const th = new Thread(thunk, []);
  for (let i = 0; i < 100000; i++) {
    const r = runSlice(th, 100000);
    if (r === SLICE_DONE) return;
    if (r === SLICE_DIED) throw new Error(`${what} failed to load`);
  }
}

/** The unit's shippable form: [name, data, debug]. @param {string} hash @this {Distribution} */
export function unitData(hash) {
  const inst = unitsByHash.get(hash);
  if (!inst) throw new Error(`this node does not have unit ${hash.slice(0, 16)}`);
  return [inst.wire.name ?? '', wireToData(inst.wire), inst.wire.debug ? [inst.wire.debug.file, inst.wire.debug.sites] : false];
}
