// @ts-check
/**
 * The code this JS realm has: unit instances by hash, so that closures and
 * continuations decoded from bytes (tuples, snapshots, messages from other nodes) find
 * their code. Runtime units (builtins, prelude, Termite library) are always present;
 * program and library units are registered when a node loads them. A hash nobody here
 * has is an error naming it (the mesh fetches missing code before decoding).
 */
import { resolveRuntimeCode } from '@termite/scheme';

/** @type {Map<string, any>} unit instances by `${hash} ${envId}` */
const instances = new Map();
/** One instance of each unit this realm has, by hash (to serve its IR to other nodes). @type {Map<string, any>} */
export const unitsByHash = new Map();

/** Raised by resolveCode for a unit (or a unit in an environment) this realm lacks. */
export class MissingCode extends Error {
  /** @param {string} hash @param {string} env */
  constructor(hash, env) {
    super(`unknown code ${hash.slice(0, 16)} (environment ${env})`);
    this.name = 'MissingCode';
    this.hash = hash;
    this.env = env;
  }
}

/** @param {any} inst a unit instance (hash, env, lams) */
export function registerUnitInstance(inst) {
  instances.set(`${inst.hash} ${inst.env.id}`, inst);
  if (!unitsByHash.has(inst.hash)) unitsByHash.set(inst.hash, inst);
}

/**
 * Forget a unit instance (its library was unloaded): a later reference to it fetches or
 * installs it again.
 * @param {any} inst
 */
export function unregisterUnitInstance(inst) {
  instances.delete(`${inst.hash} ${inst.env.id}`);
  if (unitsByHash.get(inst.hash) !== inst) return;
  unitsByHash.delete(inst.hash);
  for (const other of instances.values()) {
    if (other.hash === inst.hash) {
      unitsByHash.set(inst.hash, other);
      break;
    }
  }
}

/**
 * @param {string} hash @param {string} env
 * @returns {any}
 */
export function resolveCode(hash, env) {
  const rt = resolveRuntimeCode(hash, env);
  if (rt) return rt;
  const inst = instances.get(`${hash} ${env}`);
  if (inst) return inst;
  throw new MissingCode(hash, env);
}

/** Whether this realm has the unit (in some environment). @param {string} hash */
export function hasCode(hash) {
  return resolveRuntimeCode(hash, '') !== null || unitsByHash.has(hash);
}
