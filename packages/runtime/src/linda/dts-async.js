// @ts-check
/**
 * Asynchronous operations (`in-async`, `rd-async`) on a distributed space: a record of
 * the calling node kept beside its replica (dts-replica.js), with no process behind it
 * (docs/linda.md, "Distributed spaces"). The record looks for a match as a waiting `in`
 * or `rd` of a process would (dts-operations.js) — from the replica, asking the owner of
 * a match for it (CHOWN_REQ) and announcing itself to the members (IN) when there is
 * none — and looks again whenever a tuple becomes live in the replica.
 *
 * Invariants:
 *  - a record withdraws only a tuple this node owns, and only while its owner process
 *    is alive: the tuple is held out of the core, handed to the owner's mailbox, and
 *    only then removed and announced (DELETE); a hand-over that fails (the owner ended,
 *    its mailbox full) puts the tuple back into the replica, still owned by this node —
 *    so a withdrawal is exactly once;
 *  - a record leaves the replica's set exactly once: answered, failed (its error goes to
 *    the owner), or cancelled (`async-cancel`, or its owner ended: core-records.js
 *    cancelRecordsOf); a cancelled record's announced IN is withdrawn, and an ownership
 *    granted to it after it went stays with this node (the tuple is not lost);
 *  - record ids are above 2^32, apart from the core's record ids (below) and the
 *    pending requests on another node's space (negative).
 */
import { ErrorObject, arrayToList } from '@termite/scheme';
import { noteWithdrawn } from './space-table.js';
import { LIVE } from './dts-replica.js';
import { dtsSend } from './dts-batch.js';
import { ensureReplica, toMembers, F_DTS, D_IN, D_RD, D_CHOWN_REQ, D_DELETE } from './dts-protocol.js';
import { armChownRetry, nextRequest } from './dts-operations.js';

/** the first record id: above the core's record ids */
export const DTS_ASYNC_BASE = 2 ** 32;
/** records one node keeps waiting on its distributed spaces */
export const MAX_DTS_ASYNC = 100000;

/**
 * @typedef {object} AsyncRecord
 * @property {number} id @property {any} node @property {any} ref @property {any} rep the replica
 * @property {string} who @property {boolean} remove @property {Uint8Array} bytes the template
 * @property {number} req its announced IN (0: none) @property {boolean} rdSent an `rd` asked the members
 * @property {boolean} done @property {(bytes: Uint8Array) => any} decode
 * @property {(answer: {value?: any, raise?: any}) => boolean} deliver false: nobody took it
 */

/** @param {any} node @returns {{serial: number, byId: Map<number, AsyncRecord>}} */
function recordsOf(node) {
  if (node.dtsAsync === undefined) node.dtsAsync = { serial: 0, byId: new Map() };
  return node.dtsAsync;
}

/**
 * Start an asynchronous `in`/`rd` of the calling process on a distributed space; its
 * answer goes to `deliver`. Returns the record's id (cancelDtsAsync).
 * @param {any} proc @param {string} who @param {any} ref @param {boolean} remove @param {Uint8Array} bytes
 * @param {(bytes: Uint8Array) => any} decode @param {(answer: {value?: any, raise?: any}) => boolean} deliver
 */
export function startDtsAsync(proc, who, ref, remove, bytes, decode, deliver) {
  const node = proc.node;
  const all = recordsOf(node);
  if (all.byId.size >= MAX_DTS_ASYNC) throw new Error(`this node has ${MAX_DTS_ASYNC} asynchronous operations waiting on distributed spaces`);
  const rep = ensureReplica(node, ref.name, ref.node);
  const id = DTS_ASYNC_BASE + ++all.serial;
  /** @type {AsyncRecord} */
  const rec = { id, node, ref, rep, who, remove, bytes, req: 0, rdSent: false, done: false, decode, deliver };
  all.byId.set(id, rec);
  (rep.asyncOps ??= new Set()).add(rec);
  if (usable(rec)) attempt(rec);
  else afterJoin(rec);
  return id;
}

/** Whether the record may look at the replica: joined, or (an `in`) the home has answered. @param {AsyncRecord} rec */
function usable(rec) {
  return rec.rep.ready || (rec.remove && rec.rep.homeAnswered);
}

/** The record looks once the join allows it (dts-operations.js readyReplica's rule), or fails with the join. @param {AsyncRecord} rec */
function afterJoin(rec) {
  rec.rep.joinWaiters.push(() => {
    if (rec.rep.failed !== undefined) fail(rec, `${rec.who}: ${rec.rep.failed}`);
    else if (usable(rec)) attempt(rec);
    else afterJoin(rec);
  });
}

/**
 * Cancel a record (async-cancel, or its owner ended): it stops waiting and its announced
 * IN is withdrawn. False if it had already been answered (or is unknown).
 * @param {any} node @param {number} id
 */
export function cancelDtsAsync(node, id) {
  const rec = node.dtsAsync?.byId.get(id);
  if (rec === undefined) return false;
  finish(rec);
  return true;
}

/** The record leaves the node's set and its replica's; its IN is withdrawn. @param {AsyncRecord} rec */
function finish(rec) {
  if (rec.done) return;
  rec.done = true;
  rec.node.dtsAsync?.byId.delete(rec.id);
  rec.rep.asyncOps?.delete(rec);
  if (rec.req !== 0) {
    rec.rep.myIns.delete(rec.req);
    toMembers(rec.node.remote, rec.rep, [F_DTS, D_DELETE, rec.rep.name, false, rec.req]);
    rec.req = 0;
  }
}

/** The record fails with an error its owner's handle raises. @param {AsyncRecord} rec @param {string} msg */
function fail(rec, msg) {
  if (rec.done) return;
  finish(rec);
  rec.deliver({ raise: new ErrorObject(msg, arrayToList([rec.ref]), 'linda', rec.who) });
}

/**
 * Tuples became live in the replica: each waiting record looks again (after the task
 * that brought them, so a frame's handling is never interleaved with a withdrawal).
 * @param {any} rep
 */
export function wakeDtsAsync(rep) {
  if (rep.asyncWake === true) return;
  rep.asyncWake = true;
  queueMicrotask(() => {
    rep.asyncWake = false;
    for (const rec of [...(rep.asyncOps ?? [])]) attempt(rec);
  });
}

/**
 * Look for a match: an `rd` is answered with it; an `in` withdraws it if this node owns
 * it (or another match it owns), else asks its owner; with none, the record waits
 * (announced to the members, as a waiting `in` is).
 * @param {AsyncRecord} rec
 */
function attempt(rec) {
  if (rec.done || !usable(rec)) return; // (a tuple arriving during the join: the join's waiter looks)
  const { rep, node } = rec;
  let r;
  try {
    r = rep.space.rdpBytes(rec.bytes);
  } catch (e) {
    return fail(rec, `${rec.who}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (r !== undefined && !rec.remove) return answer(rec, r, null);
  if (r === undefined) return waitForMatch(rec);
  const id = rep.pick(r);
  if (id === null) return;
  const mine = rep.tuples.get(id)?.owner === node.id ? id : ownedId(rep, rec.bytes, node.id);
  if (mine !== null) return answer(rec, rep.tuples.get(mine).bytes, mine);
  const owner = rep.tuples.get(id)?.owner;
  const d = node.remote;
  if (d == null || !d.mesh.isReachable(owner)) return fail(rec, `${rec.who}: the owner of a matching tuple of ${rep.name} (${String(owner).slice(0, 12)}) is unreachable`);
  if (rep.acquiring.has(id)) return waitForMatch(rec);
  ask(rec, id, /** @type {string} */ (owner));
}

/** The id of a live match this node owns, or null. @param {any} rep @param {Uint8Array} template @param {string} self */
function ownedId(rep, template, self) {
  let m;
  try {
    m = rep.ownedMatch(template);
  } catch {
    return null;
  }
  const id = m === undefined ? null : rep.pick(m);
  return id !== null && rep.tuples.get(id)?.owner === self ? id : null;
}

/** No match yet: an `in` is announced (once), an `rd` asks the members (once). @param {AsyncRecord} rec */
function waitForMatch(rec) {
  const { rep, node } = rec;
  if (rec.remove && rec.req === 0) {
    rec.req = nextRequest(node);
    rep.myIns.set(rec.req, rec.bytes);
    toMembers(node.remote, rep, [F_DTS, D_IN, rep.name, rec.req, rec.bytes]);
  } else if (!rec.remove && !rec.rdSent) {
    rec.rdSent = true;
    toMembers(node.remote, rep, [F_DTS, D_RD, rep.name, rec.bytes]);
  }
}

/**
 * Hand the tuple to the owner: an `rd` a copy; an `in` the tuple `id` this node owns,
 * removed and announced only once the owner has it (else it stays in the replica).
 * @param {AsyncRecord} rec @param {Uint8Array} bytes @param {string | null} id
 */
function answer(rec, bytes, id) {
  let value;
  try {
    value = rec.decode(bytes);
  } catch (e) {
    return fail(rec, `${rec.who}: a tuple of the space ${rec.rep.name} could not be decoded here (left in the space): ${e instanceof Error ? e.message : e}`);
  }
  const rep = rec.rep;
  if (id !== null) rep.hold(id);
  const req = rec.req;
  rec.req = 0; // the DELETE below names it: not withdrawn twice
  if (req !== 0) rep.myIns.delete(req);
  finish(rec);
  if (!rec.deliver({ value })) {
    if (id !== null) rep.release(id); // its owner ended: the tuple goes back
    if (req !== 0) toMembers(rec.node.remote, rep, [F_DTS, D_DELETE, rep.name, false, req]);
    return;
  }
  if (id === null) return;
  rep.remove(id);
  noteWithdrawn(rec.node, rep.name, bytes);
  toMembers(rec.node.remote, rep, [F_DTS, D_DELETE, rep.name, id, req === 0 ? false : req]);
}

/**
 * Ask the owner of tuple `id` for it (with the template, for a substitute); the answer
 * puts the tuple back into the replica — owned by this node if granted — and the
 * record looks again.
 * @param {AsyncRecord} rec @param {string} id @param {string} owner
 */
function ask(rec, id, owner) {
  const { rep, node } = rec;
  rep.hold(id);
  const a = {
    asked: owner,
    hops: 0,
    retries: 0,
    template: rec.bytes,
    /** @type {any} */
    timer: null,
    settle: (/** @type {boolean} */ granted) => {
      if (a.timer !== null) clearTimeout(a.timer);
      a.timer = null;
      const t2 = rep.tuples.get(id);
      if (t2 !== undefined && t2.state !== LIVE) {
        if (granted) rep.setOwner(t2, node.id);
        rep.release(id); // wakes the records (and the processes) that wait
      }
      wakeDtsAsync(rep);
    },
  };
  rep.acquiring.set(id, a);
  dtsSend(node.remote, owner, [F_DTS, D_CHOWN_REQ, rep.name, id, rec.bytes]);
  armChownRetry(node.remote, rep, id, a);
}
