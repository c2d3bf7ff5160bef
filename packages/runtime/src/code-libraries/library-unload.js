// @ts-check
/**
 * Unloading old library versions: once a node has a newer version of a library it
 * installed (a hot update brought it), the older one is unloaded when nothing here
 * refers to it — no live process holds its code or code that requires it (its
 * continuation, its pending call, the closures among the values it keeps:
 * library-usage.js), and no library kept here requires it. Its environment, its unit
 * instance and the JavaScript generated for it are dropped (their memory goes at the
 * next collection); its signed record stays in the store, so code that names it again
 * installs it again.
 *
 * Invariants:
 *  - only an installed version older than another version of the same library loaded
 *    here is unloaded: the latest version, and libraries this node publishes, stay
 *    (a library fetched once per node is not fetched again between two calls);
 *  - only after a complete walk of the processes (library-usage.js `libraryUse`)
 *    finds it unused at IDLE_CHECKS checks in a row, CHECK_MS apart, and no install of
 *    it is in flight;
 *  - messages queued in mailboxes are not looked at: a closure of an unloaded version
 *    received later still runs (it holds its code); one decoded later installs it again.
 * These are Distribution's methods (`this` is the Distribution).
 */
import { libraryEnvs, forgetGenerated } from '@termite/scheme/internal';
import { resolveCode, unregisterUnitInstance, unitsByHash } from '../code.js';
import { libraryUse } from './library-usage.js';
import { splitKey } from './library-registry.js';

/** How often the old versions are looked at (ms). */
const CHECK_MS = 1000;
/** Checks in a row that must find an old version unused. */
const IDLE_CHECKS = 3;

/** @typedef {import('../distribution.js').Distribution} Distribution */

/** Start looking for old versions to unload (once per node). @this {Distribution} */
export function watchOldVersions() {
  const reg = this.libraries;
  if (reg.unloadTimer !== null) return;
  reg.unloadTimer = setInterval(() => {
    try {
      this.unloadOldVersions();
    } catch (e) {
      this.log(`unloading old library versions failed: ${e instanceof Error ? e.message : e}`);
    }
  }, CHECK_MS);
  /** @type {any} */ (reg.unloadTimer).unref?.();
}

/** Whether dotted version a is newer than b ("1.10" > "1.9"). @param {string} a @param {string} b */
function newer(a, b) {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  }
  return false;
}

/** One check: unload the old versions unused IDLE_CHECKS times in a row. @this {Distribution} */
export function unloadOldVersions() {
  const reg = this.libraries;
  /** @type {Map<string, string>} library name → its newest version here */
  const newest = new Map();
  for (const key of reg.info.keys()) {
    const [name, version] = splitKey(key);
    const n = newest.get(name);
    if (n === undefined || newer(version, n)) newest.set(name, version);
  }
  const old = [...reg.info].filter(([key, i]) => i.origin !== 'published' && newest.get(splitKey(key)[0]) !== splitKey(key)[1] && libraryEnvs.has(`lib:${key}`));
  if (old.length === 0) return;
  const { users, complete } = libraryUse(this.node);
  if (!complete) return;
  // what the libraries kept here require is kept too (to a fixpoint, bounded by their number)
  const oldKeys = new Set(old.map(([key]) => key));
  const kept = new Set([...reg.info.keys()].filter((key) => !oldKeys.has(key) || users.has(`lib:${key}`)));
  const needed = new Set();
  for (let round = 0, grew = true; grew && round <= reg.info.size; round++) {
    grew = false;
    for (const key of kept) {
      for (const dep of reg.info.get(key)?.requires ?? []) {
        if (needed.has(dep)) continue;
        needed.add(dep);
        kept.add(dep.slice(4));
        grew = true;
      }
    }
  }
  for (const [key, info] of old) {
    const ns = `lib:${key}`;
    if (users.has(ns) || needed.has(ns) || this.libFetching.has(ns)) {
      info.idle = 0;
      continue;
    }
    if (++info.idle >= IDLE_CHECKS) void this.unloadLibrary(key);
  }
}

/** Unload library `key` (checked unused). @param {string} key @this {Distribution} */
export async function unloadLibrary(key) {
  const reg = this.libraries;
  const ns = `lib:${key}`;
  const record = await reg.record(key);
  if (!libraryEnvs.has(ns) || record === null) return;
  libraryEnvs.delete(ns);
  let inst = null;
  try {
    inst = resolveCode(record.unit, ns);
  } catch {
    // not instantiated here (its top level failed): nothing more to drop
  }
  if (inst !== null) {
    unregisterUnitInstance(inst);
    this.guardedUnits.delete(inst);
    if (!unitsByHash.has(record.unit)) forgetGenerated(record.unit);
  }
  reg.forget(key);
  const [name, version] = splitKey(key);
  this.log(`unloaded library ${name} version ${version}: a newer version is loaded here and nothing here refers to this one`);
}
