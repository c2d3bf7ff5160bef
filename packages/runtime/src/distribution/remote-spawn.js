// @ts-check
/**
 * Remote spawn and services: starting a process on another node (a SPAWN request
 * carrying the thunk and the caller's parameter bindings, so its output comes back to
 * the caller's console), and finding a published service's pid (SERVICE).
 *
 * Invariants: a spawn linked to its caller links both ways, and the caller's node
 * watches the new process (remote-links.js); a spawned process runs after its answer
 * is written, in the same task (remote-requests.js); a spawn on this node starts the
 * process here without a request.
 *
 * These functions are Distribution's methods (`this` is the Distribution), moved here whole.
 */
import { CodecError } from '@termite/scheme/internal';
import { Closure, writeString } from '@termite/scheme';
import { Pid, NodeRef } from '../termite-values.js';
import { R_SPAWN, R_SERVICE } from './frame-vocabulary.js';

/** @typedef {import('../distribution.js').Distribution} Distribution */

/**
 * Start `thunk` on another node (the caller's parameter bindings go with it, so its
 * output comes back to the caller's console); resolves with the new pid.
 * @param {NodeRef} ref @param {any} thunk @param {any} params @param {Pid|false} linkTo
 * @this {Distribution}
 */
export function remoteSpawn(ref, thunk, params, linkTo) {
  // the restricted peer the calling process acts for (capabilities.js), read while it runs
  const owner = this.restricted.size === 0 ? null : this.actingFor(null);
  const to = this.knownNode(ref);
  if (to === null) return this.resolveNode(ref).then((id) => this.spawnOn(id, thunk, params, linkTo, owner));
  return this.spawnOn(to, thunk, params, linkTo, owner);
}

/**
 * @param {string} to @param {any} thunk @param {any} params @param {Pid|false} linkTo
 * @param {string | null} [owner] the restricted peer the caller acts for: the process is its
 * @returns {Promise<Pid>} @this {Distribution}
 */
export function spawnOn(to, thunk, params, linkTo, owner = null) {
  if (to === this.node.id) {
    const p = this.node.spawn(thunk, { params, peer: owner });
    if (linkTo) {
      this.node.addLink(p.pid, linkTo);
      this.node.addLink(linkTo, p.pid);
    }
    return Promise.resolve(p.pid);
  }
  return this.call(to, [R_SPAWN, thunk, params, linkTo], true, owner).then((/** @type {unknown} */ pid) => {
    if (!(pid instanceof Pid)) throw new CodecError('spawn answered something that is not a pid');
    if (linkTo) {
      this.node.addLink(linkTo, pid);
      this.watch(pid, linkTo);
    }
    return pid;
  });
}

/** @param {string} from @param {any} thunk @param {any} params @param {any} linkTo @this {Distribution} */
export function acceptSpawn(from, thunk, params, linkTo) {
  if (!(thunk instanceof Closure)) throw new CodecError(`SPAWN needs a procedure to run, got ${writeString(thunk).slice(0, 100)}`);
  const proc = this.node.spawn(thunk, { params, peer: from });
  if (linkTo instanceof Pid) {
    this.node.addLink(proc.pid, linkTo);
    this.watch(linkTo, proc.pid);
  }
  // run it at the end of this task, after the answer (onRequest's fast path writes it
  // first), not after a turn of the event loop
  this.node.pokeAfterTask();
  void from;
  return proc.pid;
}

/**
 * A service's pid on a node. On this node, for a process that descends from a
 * restricted peer's spawn (`peer`), the rule of a SERVICE request from that peer holds.
 * @param {string} name @param {NodeRef} ref @param {string | null} [peer]
 * @this {Distribution}
 */
export async function remoteService(name, ref, peer = null) {
  const to = await this.resolveNode(ref);
  if (to === this.node.id) {
    if (peer !== null) this.checkRequest(peer, [R_SERVICE, name]);
    const pid = this.services.get(name);
    if (!pid) throw new Error(`no service named ${name} on this node`);
    return pid;
  }
  return this.call(to, [R_SERVICE, name], true, peer !== null && this.restricted.has(peer) ? peer : null);
}
