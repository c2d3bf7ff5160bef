// @ts-check
/**
 * Program environments across nodes. A procedure sent to another node names its code
 * and the program environment it belongs to (`prog:<hash>/<nonce>`, program.js); the
 * receiving node keeps a replica of that environment's global definitions, copied from
 * the node that has the original (an ENV request). Every frame and request lists the
 * versions of the environments its procedures come from (encode, one-way-frames.js), so
 * a node whose replica is older than the sender's brings it up to date before handling
 * the frame.
 *
 * Invariants:
 *  - `replicas` holds the version copied of every environment copied here, never
 *    lowered;
 *  - a first copy fills only what is undefined here; a refresh takes every definition
 *    from the original;
 *  - one refresh per environment in flight (`refreshing`): frames that arrive meanwhile
 *    wait for it; refreshing a frame's environments is bounded (4 rounds each);
 *  - a failed copy is logged, not raised: the frame is handled with what is here.
 *
 * These functions are Distribution's methods (`this` is the Distribution), moved here whole.
 */
import { libraryEnvs } from '@termite/scheme/internal';
import { copyMessage } from '../copy.js';
import { R_ENV } from './frame-vocabulary.js';

/** @typedef {import('@termite/scheme/internal').Environment} Environment */
/** @typedef {import('../distribution.js').Distribution} Distribution */

/**
 * Whether a frame names a program environment this node holds a copy of that is
 * older than the sender's.
 * @param {any} frame
 * @this {Distribution}
 */
export function stale(frame) {
  const envs = Array.isArray(frame) ? frame[frame.length - 1] : null;
  if (!Array.isArray(envs) || envs.length === 0) return false;
  for (const e of envs) {
    const r = this.replicas.get(String(e[0]));
    if (r !== undefined && r.version < Number(e[1])) return true;
  }
  return false;
}

/**
 * Bring copies of program environments up to the versions a frame names.
 * @param {string} from @param {any} frame
 * @this {Distribution}
 */
export async function refresh(from, frame) {
  const envs = Array.isArray(frame) ? frame[frame.length - 1] : null;
  if (!Array.isArray(envs)) return;
  for (const [id, version] of envs) {
    // bounded: each round either finds the replica current or waits for one copy
    for (let round = 0; round < 4; round++) {
      const r = this.replicas.get(String(id));
      if (r === undefined || r.version >= Number(version)) break;
      const env = this.node.environments.get(String(id));
      if (!env) break;
      // one copy in flight per environment: frames that arrive meanwhile wait for it
      let p = this.refreshing.get(env.id);
      if (p === undefined) {
        p = this.loadGlobals(from, env, true).finally(() => this.refreshing.delete(env.id));
        this.refreshing.set(env.id, p);
      }
      await p;
    }
  }
}

/**
 * Copy an environment's definitions from the node that has the original. A first
 * load fills what is undefined here; a refresh (the original has changed) takes every
 * definition from the original.
 * @param {string} from @param {Environment} env @param {boolean} [refresh]
 * @this {Distribution}
 */
export async function loadGlobals(from, env, refresh = false) {
  let answer;
  try {
    answer = await this.call(from, [R_ENV, env.id], false);
  } catch (e) {
    this.log(`the definitions of ${env.id} could not be fetched from ${from.slice(0, 12)}: ${e instanceof Error ? e.message : e}`);
    return;
  }
  const [version, globals] = answer;
  for (const [name, value] of globals) {
    const cell = env.cell(name);
    if (refresh || cell.v?.constructor?.name === 'Unbound') cell.v = value;
  }
  const r = this.replicas.get(env.id);
  if (r === undefined) this.replicas.set(env.id, { version: Number(version) });
  else r.version = Math.max(r.version, Number(version));
}

/** The global definitions of an environment: [version, [[name value] ...]]. @param {string} envId @this {Distribution} */
export function envData(envId) {
  const env = envId.startsWith('lib:') ? libraryEnvs.get(envId) : this.node.environments.get(envId);
  if (!env) throw new Error(`this node has no environment ${envId}`);
  const out = [];
  for (const [name, cell] of env.cells) if (cell.v?.constructor?.name !== 'Unbound') out.push([name, copyMessage(cell.v)]);
  return [env.version, out];
}
