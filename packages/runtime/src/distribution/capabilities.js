// @ts-check
/**
 * Capabilities of restricted peers (docs/security.md, "Trust model by role"). A peer
 * named restricted (`restrictedPeers`: the daemon's `--restricted-peer`) may send to,
 * signal, link to, unlink from and kill only those of this node's processes whose pids
 * it was given — this node wrote the pid in a frame, request or answer to that peer —
 * or that it spawned itself (directly, or a descendant: `proc.peer`).
 *
 * Invariants:
 *  - nothing here runs for an unrestricted peer: the callers test `restricted.size`
 *    first, so the daemon-to-daemon path costs one comparison per frame;
 *  - what a restricted peer was given is a Set of serials per peer, at most MAX_GIVEN
 *    (the oldest forgotten first), kept while the daemon runs (a tab that reconnects
 *    keeps its pids);
 *  - a value is searched for pids to at most WALK_LIMIT values (a bigger value gives
 *    the pids found in its first WALK_LIMIT values);
 *  - a refused frame costs one log line and one ERROR frame a second at most, with the
 *    count refused since then.
 *
 * These functions are Distribution's methods (`this` is the Distribution).
 */
import { Pid } from '../termite-values.js';
import { FRAMES } from './frame-vocabulary.js';

/** Pids one restricted peer keeps from this node (the oldest forgotten first). */
export const MAX_GIVEN = 65536;
/** Values searched for pids in one frame to a restricted peer. */
export const WALK_LIMIT = 100_000;

/** @typedef {import('../distribution.js').Distribution} Distribution */

/**
 * Record the pids of this node's processes that `value` holds as given to `to`, when
 * `to` is a restricted peer.
 * @param {string} to @param {unknown} value
 * @this {Distribution}
 */
export function give(to, value) {
  const given = this.restricted.get(to);
  if (given === undefined) return;
  const self = this.node.id;
  /** @type {unknown[]} */
  const stack = [value];
  const seen = new Set();
  for (let n = 0; stack.length > 0 && n < WALK_LIMIT; n++) {
    const x = stack.pop();
    if (x === null || typeof x !== 'object' || x instanceof Uint8Array || seen.has(x)) continue;
    seen.add(x);
    if (x instanceof Pid) {
      if (x.node !== self) continue;
      given.delete(x.n); // most recently given last
      given.add(x.n);
      if (given.size > MAX_GIVEN) given.delete(/** @type {number} */ (given.values().next().value));
      continue;
    }
    if (Array.isArray(x)) for (const v of x) stack.push(v);
    else if (x instanceof Map || x instanceof Set) for (const v of x.values()) stack.push(v);
    else for (const k in x) stack.push(/** @type {any} */ (x)[k]);
  }
}

/**
 * Whether `from` may act (a frame of this type) on the local process `proc`: it is not
 * restricted, or it was given the pid, or it spawned the process. When not, the frame
 * is refused (refuseUngiven).
 * @param {string} from @param {number} type @param {Pid} pid @param {any} proc
 * @this {Distribution}
 */
export function mayAct(from, type, pid, proc) {
  const given = this.restricted.get(from);
  if (given === undefined || given.has(pid.n) || proc.peer === from) return true;
  this.refuseUngiven(from, type, pid);
  return false;
}

/**
 * Refuse a frame of a restricted peer for a process it was not given: an ERROR frame
 * and a log line, at most once a second (with the count refused since then).
 * @param {string} from @param {number} type @param {Pid} pid
 * @this {Distribution}
 */
export function refuseUngiven(from, type, pid) {
  const why = `${FRAMES[type]?.[0] ?? type} to process ${pid.n} refused: ${from.slice(0, 12)} is a restricted peer and was not given that pid`;
  this.refuseOncePerSecond(this.capabilityRefusals, 'frames from restricted peers refused', from, why);
}
