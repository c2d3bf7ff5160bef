// @ts-check
/**
 * The code this JS realm has: unit instances by hash, so that closures and
 * continuations decoded from bytes (tuples, snapshots, messages from other nodes) find
 * their code. Runtime units (builtins, prelude, Termite library) are always present;
 * program and library units are registered when a node loads them. A hash nobody here
 * has is an error naming it (the mesh fetches missing code before decoding).
 */
import { resolveRuntimeCode } from '@termite/scheme';
import { CodecError } from '@termite/scheme/internal';

/** @type {Map<string, any>} unit instances by `${hash} ${envId}` and by hash */
const instances = new Map();

/** @param {any} inst a unit instance (hash, env, lams) */
export function registerUnitInstance(inst) {
  instances.set(`${inst.hash} ${inst.env.id}`, inst);
  if (!instances.has(inst.hash)) instances.set(inst.hash, inst);
}

/**
 * @param {string} hash @param {string} env
 * @returns {any}
 */
export function resolveCode(hash, env) {
  const rt = resolveRuntimeCode(hash, env);
  if (rt) return rt;
  const inst = instances.get(`${hash} ${env}`) ?? instances.get(hash);
  if (inst) return inst;
  throw new CodecError(`unknown code ${hash.slice(0, 16)} (environment ${env})`);
}

/** Whether this realm has the unit. @param {string} hash */
export function hasCode(hash) {
  return resolveRuntimeCode(hash, '') !== null || instances.has(hash);
}
