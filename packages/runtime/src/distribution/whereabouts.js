// @ts-check
/**
 * Whereabouts: where a process is, as far as this node may believe, and vouching for a
 * process a restricted peer moves in.
 *
 * A restricted peer may migrate a process into this node only from where the process
 * is known to be (capabilities.js, checkRequest): this node's forwarding or location
 * entry names that peer. That knowledge lags behind the process:
 *  - MOVED frames from different nodes race: the node that sent the process on says so
 *    to its birth node, and so does the next one, over other routes — the second may
 *    arrive first, when it is not yet believed (it is not from where this node sends
 *    the process's messages);
 *  - a node the process never went through (it went A → tab → tab → here) hears nothing
 *    of it: only its birth node is told where it went, and only when the node sending
 *    it on can reach the birth node.
 * So a MOVED not believed when it arrives is kept aside (`keepMovedAhead`) and believed
 * as soon as this node's messages for that process go to its sender (`locationChanged`),
 * which is the rule for believing a MOVED, applied late; and a MIGRATE from a restricted
 * peer that this node cannot place there is vouched for by following the process's
 * custody (`vouchMigration`): from its birth node, each node says where it sent the
 * process last (a WHERE request, `answerWhere`), until the walk reaches that peer.
 * Vouched, the process's location here is that peer and checkRequest takes the MIGRATE;
 * not, it refuses it as before and the process stays where it is, with the reason
 * raised in it (messengers.scm puts a messenger back on its logical node then).
 *
 * Invariants:
 *  - a MOVED is believed only from where this node sends that process's messages, now
 *    or later: nothing kept aside is believed before then;
 *  - bounded: at most MAX_AHEAD processes with MOVEDs kept aside, MAX_AHEAD_EACH each
 *    (the oldest forgotten first); a walk asks at most MAX_WALK nodes and ends within
 *    VOUCH_WAIT_MS of the MIGRATE's arrival, well within the mover's request timeout (a MIGRATE answered after
 *    the mover gave up would make two copies); at most MAX_WAITERS waits at once;
 *  - a WHERE is answered to unrestricted peers only (where a process went is not a
 *    restricted peer's to learn); a node answers with its own forwarding entry, never
 *    with what it was told;
 *  - the common paths pay one size test: `locationChanged` is called only when something
 *    is kept aside or waited for.
 *
 * These functions are Distribution's methods (`this` is the Distribution).
 */
import { Pid } from '../termite-values.js';
import { R_WHERE, key } from './frame-vocabulary.js';

/** Processes with MOVEDs kept aside. */
export const MAX_AHEAD = 1024;
/** MOVEDs kept aside for one process. */
export const MAX_AHEAD_EACH = 8;
/** How long a MIGRATE from a restricted peer waits to be vouched for (ms): well within the mover's request timeout. */
export const VOUCH_WAIT_MS = 3000;
/** How long a node waits for a process that is leaving it to be gone, to say where it went (ms). */
export const HOLDER_WAIT_MS = 1000;
/** Nodes a vouching walk asks at most. */
export const MAX_WALK = 32;
/** Waits at once (for entries to change). */
export const MAX_WAITERS = 4096;

/** @typedef {import('../distribution.js').Distribution} Distribution */

/**
 * A MOVED from `from`: process `pn` of `pnode` went on to `to`. Only the node this one
 * would send the process's messages to can say it moved on (it forwarded one, or the
 * process left it); believed from any other peer, a MOVED would let that peer take this
 * node's messages for anyone's processes. A late duplicate from the previous host says
 * what is already known: ignored. Any other is kept aside, for it may be ahead of the
 * one that would make it believed (two hosts told this node over different routes, or
 * the next host told it before it read that host's answer to its MIGRATE), and refused
 * (a log line, an ERROR to the sender) unless the process is still here, leaving.
 * @param {string} from @param {string} pnode @param {number} pn @param {string} to
 * @this {Distribution}
 */
export function processMoved(from, pnode, pn, to) {
  const pid = new Pid(pnode, pn), at = this.whereIs(pid), k = key(pnode, pn);
  if (from === at) {
    this.location.set(k, to);
    if (this.movedAhead.size !== 0 || this.placeWaits.size !== 0) this.locationChanged(k, pid);
  } else if (to !== at) {
    this.keepMovedAhead(k, from, to);
    // a process still here is leaving (its MOVED came before the answer to its
    // MIGRATE was read: a socket's messages that arrive together are handled first)
    if (this.node.local(pid) === null) this.refuse(from, `MOVED for process ${pn} of ${pnode.slice(0, 12)} from ${from.slice(0, 12)}, which is not where this node sends its messages (${at.slice(0, 12)})`);
  }
}

/**
 * A MOVED for process `k` from `from` (to `to`) that is not believed now: kept until this
 * node's messages for that process go to `from`.
 * @param {string} k @param {string} from @param {string} to
 * @this {Distribution}
 */
export function keepMovedAhead(k, from, to) {
  let kept = this.movedAhead.get(k);
  if (kept === undefined) {
    if (this.movedAhead.size >= MAX_AHEAD) this.movedAhead.delete(/** @type {string} */ (this.movedAhead.keys().next().value));
    this.movedAhead.set(k, (kept = new Map()));
  }
  kept.delete(from);
  kept.set(from, to);
  if (kept.size > MAX_AHEAD_EACH) kept.delete(/** @type {string} */ (kept.keys().next().value));
}

/**
 * This node's entries for process `k` changed (a MOVED believed, the process sent on):
 * MOVEDs kept aside from where it now sends are believed in turn, and the waits on
 * these entries are told.
 * @param {string} k @param {Pid} pid
 * @this {Distribution}
 */
export function locationChanged(k, pid) {
  const kept = this.movedAhead.get(k);
  if (kept !== undefined) {
    for (let n = 0; n < MAX_AHEAD_EACH && kept.size !== 0; n++) {
      const at = this.whereIs(pid), to = kept.get(at);
      if (to === undefined) break;
      kept.delete(at);
      this.location.set(k, to);
    }
    if (kept.size === 0) this.movedAhead.delete(k);
  }
  const waits = this.placeWaits.get(k);
  if (waits !== undefined) for (const w of [...waits]) w();
}

/** This node keeps nothing for process `k` any more (it arrived, or ended). @param {string} k @this {Distribution} */
export function forgetWhereabouts(k) {
  if (this.movedAhead.size !== 0) this.movedAhead.delete(k);
}

/**
 * Wait at most `ms` for `check` to hold, re-asked at each change of this node's entries
 * for process `k` (locationChanged). False when it did not, or too many wait already.
 * @param {string} k @param {() => boolean} check @param {number} ms
 * @returns {Promise<boolean>}
 * @this {Distribution}
 */
export function awaitEntry(k, check, ms) {
  if (check()) return Promise.resolve(true);
  if (this.placeWaitCount >= MAX_WAITERS || ms <= 0) return Promise.resolve(false);
  return new Promise((resolve) => {
    let waits = this.placeWaits.get(k);
    if (waits === undefined) this.placeWaits.set(k, (waits = new Set()));
    const set = waits;
    this.placeWaitCount++;
    const done = (/** @type {boolean} */ ok) => {
      clearTimeout(timer);
      this.placeWaitCount--;
      set.delete(recheck);
      if (set.size === 0 && this.placeWaits.get(k) === set) this.placeWaits.delete(k);
      resolve(ok);
    };
    const recheck = () => {
      if (check()) done(true);
    };
    const timer = setTimeout(() => done(false), ms);
    set.add(recheck);
  });
}

/**
 * Whether a MIGRATE from the restricted peer `from` must wait to be vouched for: it moves
 * in a process born elsewhere than that peer that this node cannot place there.
 * @param {string} from @param {any[]} req
 * @this {Distribution}
 */
export function needsVouching(from, req) {
  const pid = Array.isArray(req[1]) ? req[1][0] : null;
  if (!(pid instanceof Pid) || pid.node === from) return false;
  const k = key(pid.node, pid.n);
  return this.forwarding.get(k) !== from && this.location.get(k) !== from;
}

/**
 * Vouch, within VOUCH_WAIT_MS, for the process a restricted peer moves in: follow its
 * custody from its birth node — each node on the way says where it sent the process
 * last (WHERE), as a MOVED from it would — to that peer. Reached, this node's location
 * for the process is that peer (what checkRequest asks); not, nothing changes and
 * checkRequest refuses the MIGRATE. The walk is believed as MOVEDs are: the birth node
 * is the authority on its pids, and each next node is the one the previous one sent
 * the process to; it ends because each node's last departure is later than the one
 * that brought the process there.
 * @param {string} from @param {any[]} req @param {number} arrived when the MIGRATE arrived (ms): the wait counts from then, code fetched for it included
 * @this {Distribution}
 */
export async function vouchMigration(from, req, arrived) {
  const pid = /** @type {Pid} */ (req[1][0]);
  const deadline = arrived + VOUCH_WAIT_MS;
  let at = pid.node;
  for (let step = 0; step < MAX_WALK && at !== from; step++) {
    const left = deadline - Date.now();
    if (left <= 0) return;
    /** @type {unknown} */
    let next;
    try {
      next = at === this.node.id ? await this.lastSentTo(pid, Math.min(left, HOLDER_WAIT_MS))
        : await this.call(at, [R_WHERE, pid], true, null, left);
    } catch (e) {
      this.log(`where process ${pid.n} of ${pid.node.slice(0, 12)} went from ${at.slice(0, 12)} could not be asked: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    if (typeof next !== 'string') return;
    at = next;
  }
  if (at === from && this.node.local(pid) === null) this.location.set(key(pid.node, pid.n), from);
}

/**
 * Where this node sent process `pid` last (its forwarding entry), or false when it
 * never did or has it now. A process still here but leaving (its new node took it, the
 * answer is on its way) is waited for, at most `ms`.
 * @param {Pid} pid @param {number} ms
 * @returns {Promise<string | false>}
 * @this {Distribution}
 */
export async function lastSentTo(pid, ms) {
  const k = key(pid.node, pid.n);
  if (this.node.local(pid) !== null) await this.awaitEntry(k, () => this.node.local(pid) === null, ms);
  return this.forwarding.get(k) ?? false;
}

/**
 * The answer to a WHERE from `from`: where this node sent the process last, or #f
 * (lastSentTo). Only to unrestricted peers.
 * @param {string} from @param {any[]} req
 * @this {Distribution}
 */
export function answerWhere(from, req) {
  if (this.restricted.has(from)) throw new Error(`WHERE refused: ${from.slice(0, 12)} is a restricted peer`);
  const pid = req[1];
  if (!(pid instanceof Pid)) throw new Error('malformed WHERE request');
  return this.lastSentTo(pid, HOLDER_WAIT_MS);
}
