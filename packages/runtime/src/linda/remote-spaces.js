// @ts-check
/**
 * Operations on a tuple space held by another node (a central space, or any space
 * reached through its reference): the requester's side and the holder's side of the
 * SPACE frames (docs/linda.md, "Across nodes"; frame-vocabulary.js has the numbers).
 *
 *   SPACE_OP    [30, n, op, name, kind, tuple-or-template bytes | #f, timeout-ms | #f
 *                (, priority 0..3)]        (n = 0: an out that wants no answer; the
 *                                          priority of the requester's with-qos, if any)
 *   SPACE_REPLY [31, n, status, payload]   status: 0 value, 1 withdrawn tuple (ACK it),
 *                                          2 read tuple, 3 timed out, 4 error text
 *   SPACE_ACK   [32, n, taken?(, out)(, op)] the requester kept the tuple, or gives it back
 *                                          (n = 0: no acknowledgement, only what it carries);
 *                                          op: the next SPACE_OP its process sent to the holder
 *                                          in the same task, carried in the same frame; out: an
 *                                          `out` held back until then (flushHeldOut), before it
 *   SPACE_CANCEL [33, n]                   the requesting process ended: stop waiting for it
 *
 * Invariants (the exactly-once withdrawal):
 *  - the holder withdraws a tuple for a remote `in`/`inp` and keeps it (`unacked`) until
 *    the requester's node answers: ACK #t makes the withdrawal final (and drops it from
 *    the log of a durable space), ACK #f — or the requester's node going away — puts it
 *    back into the space;
 *  - the requester's node hands a withdrawn tuple to the process only if that very
 *    process is alive and still waiting in that very request (`proc.waiting.info`), and
 *    ACKs #t only then; otherwise (dead, killed, interrupted, or a reply it cannot
 *    decode) it ACKs #f;
 *  - a blocking `in`/`rd` that cannot be served at once is a waiter record at the
 *    holder (a core record, core-records.js), answered by the matching `out` itself, remote ones by
 *    priority then arrival; its timeout (or deadline) is a timer that drops the record
 *    and answers "timed out" — no process waits for a peer; when the requester's node
 *    goes away, or its process ends, its records and timers are dropped (a record holds
 *    no tuple);
 *  - an acknowledgement leaves in the task its reply arrived in: the woken process runs
 *    first (runArrivedNow), and the acknowledgement rides in the first SPACE_OP it sends
 *    to that holder, or goes alone once it has run — in the same held write either way;
 *  - an `out` to another node's space is held back (not encoded) until the next frame
 *    this node sends anywhere, which it then goes in front of — inside it when that is a
 *    SPACE_OP to the same holder — or until the run loop ends: no frame sent after the
 *    `out` overtakes it, and it never waits past the loop that ran it;
 *  - when the holder goes away, every process waiting on it gets an error raised;
 *  - what a peer can make a holder keep is bounded: MAX_WAITING waiting records and
 *    MAX_UNACKED withdrawn tuples per peer; a malformed frame is refused with its reason.
 *
 * This file is the requester's side and the frames' entry; the holder's side (serving
 * SPACE_OPs, waiter records, withdrawn tuples until their ACK) is space-holder.js.
 * The frame handlers are Distribution's methods (`this` is the Distribution). The DTS
 * frame (34, distributed spaces) arrives here too and goes to dts-protocol.js.
 */
import { unwind, PEND_SUSPEND, R } from '@termite/scheme/internal';
import { ErrorObject, arrayToList } from '@termite/scheme';
import { VOID, schemeErrorOf } from '../scheme-data.js';
import { SpaceRef } from '../termite-values.js';
import { NOT_READY } from '../distribution/frame-vocabulary.js';
import { deadlineError } from './qos.js';
import { F_DTS, onDtsFrame, dtsPeerDown } from './dts-protocol.js';
import { onSpaceOp, onSpaceCancel, onAck, holderPeerDown, holderPeers } from './space-holder.js'; // (it imports this file too: only functions cross, at call time)

export const F_SPACE_OP = 30, F_SPACE_REPLY = 31, F_SPACE_ACK = 32, F_SPACE_CANCEL = 33;
export const OP = { out: 1, inp: 2, rdp: 3, in: 4, rd: 5, count: 6, make: 7 };
export const S_VALUE = 0, S_TAKEN = 1, S_READ = 2, S_TIMEOUT = 3, S_ERROR = 4;

/** @typedef {import('../distribution.js').Distribution} Distribution */

/**
 * The requester's and the holder's state, on the Distribution (made on first use).
 * @param {any} d a Distribution
 * `perPeer`: each requesting peer's PeerCount; `nunacked`: all the peers' unacked tuples.
 * @returns {{serial: number, requests: Map<number, any>, jobs: Map<string, any>, nunacked: number, perPeer: Map<string, import('./space-holder.js').PeerCount>, ack: any[] | null, held: {to: string, op: any[]} | null, refusals: {since: number, count: number}, answered: {since: number, count: number}}}
 */
export function state(d) {
  if (d.spaceState === undefined) {
    d.spaceState = {
      serial: 0, requests: new Map(), jobs: new Map(), nunacked: 0, perPeer: new Map(), ack: null, held: null,
      refusals: { since: -Infinity, count: 0 }, answered: { since: -Infinity, count: 0 },
    };
  }
  return d.spaceState;
}

/**
 * Refuse a SPACE frame: logged and answered with an ERROR frame at most once a second
 * (a flood costs one line a second; the count of the others comes with the next one).
 * @param {any} d a Distribution @param {string} from @param {string} why
 */
export function refuseSpace(d, from, why) {
  d.refuseOncePerSecond(state(d).refusals, 'space frames refused', from, why);
}

// ------------------------------------------------------------------ the requester

/**
 * Run `op` on the space `ref` held by another node, blocking the calling process until
 * the holder answers. `bytes`: the encoded tuple or template (none for make).
 * @param {any} proc @param {string} who @param {SpaceRef} ref @param {number} op
 * @param {Uint8Array | null} bytes @param {number | false} timeoutMs @param {any} dflt
 * @param {boolean} [byDeadline] the timeout is the process's deadline (linda/qos.js): its end raises
 */
export function requestRemote(proc, who, ref, op, bytes, timeoutMs, dflt, byDeadline = false) {
  const d = proc.node.remote;
  if (d === null) schemeErrorOf('linda', who, `the space ${ref.name} is held by another node, and this node is in no mesh`, ref);
  if (!d.mesh.isReachable(ref.node)) schemeErrorOf('linda', who, `the node holding the space ${ref.name} (${ref.node.slice(0, 12)}) is unreachable`, ref);
  const st = state(d);
  const n = ++st.serial;
  const info = { who, space: ref.name, spaceRequest: n };
  st.requests.set(n, { proc, info, to: ref.node, ref, op, dflt, who, byDeadline });
  proc.node.blockExternal(proc, info);
  const frame = [F_SPACE_OP, n, op, ref.name, ref.kind, bytes ?? false, timeoutMs];
  if (proc.qos !== null && proc.qos !== undefined) frame.push(proc.qos.priority); // QoS travels
  d.emit(ref.node, withAck(d, st, ref.node, frame));
  return unwind(PEND_SUSPEND, proc.waiting);
}

/**
 * An asynchronous `in`/`rd` (`in-async`/`rd-async`) on a space held by another node: a
 * pending request with no process blocked in it and no helper process; the holder keeps
 * it as a waiter record, like a blocking one. Its answer goes to `deliver`, which puts
 * it in the owner's mailbox, or returns false if the owner has ended: an `in`'s tuple
 * then goes back (ACK #f). Returns the request's number (abandonRemoteAsync).
 * @param {any} proc @param {string} who @param {SpaceRef} ref @param {boolean} remove
 * @param {Uint8Array} bytes @param {(answer: {value?: any, raise?: any}) => boolean} deliver
 */
export function requestRemoteAsync(proc, who, ref, remove, bytes, deliver) {
  const d = proc.node.remote;
  if (d === null) schemeErrorOf('linda', who, `the space ${ref.name} is held by another node, and this node is in no mesh`, ref);
  if (!d.mesh.isReachable(ref.node)) schemeErrorOf('linda', who, `the node holding the space ${ref.name} (${ref.node.slice(0, 12)}) is unreachable`, ref);
  const st = state(d);
  const n = ++st.serial;
  const op = remove ? OP.in : OP.rd;
  st.requests.set(n, { proc, info: null, to: ref.node, ref, op, dflt: false, who, byDeadline: false, deliver });
  const frame = [F_SPACE_OP, n, op, ref.name, ref.kind, bytes, false];
  if (proc.qos !== null && proc.qos !== undefined) frame.push(proc.qos.priority);
  d.emit(ref.node, withAck(d, st, ref.node, frame));
  return n;
}

/**
 * Abandon an asynchronous request (cancelled, or its owner ended): the holder drops its
 * record; a tuple already on its way is refused on arrival (ACK #f) and goes back.
 * @param {any} d a Distribution (or null: no mesh, nothing pending) @param {number} n
 */
export function abandonRemoteAsync(d, n) {
  const st = d?.spaceState;
  const req = st?.requests.get(n);
  if (req === undefined || req.deliver === undefined) return;
  st.requests.delete(n);
  d.emit(req.to, [F_SPACE_CANCEL, n]);
}

/**
 * `out` on a space held by another node: sent, not answered (request number 0). Frames
 * from one node are handled in the order they were sent, so the tuple is in the space
 * before any later operation of this node on it is served. When the mesh's queue to
 * the holder is full, the process is held until its frames have left, like a `!`.
 * @param {any} proc @param {SpaceRef} ref @param {Uint8Array} bytes
 */
export function sendRemoteOut(proc, ref, bytes) {
  const node = proc.node;
  const d = node.remote;
  if (d === null) schemeErrorOf('linda', 'out', `the space ${ref.name} is held by another node, and this node is in no mesh`, ref);
  if (!d.mesh.isReachable(ref.node)) schemeErrorOf('linda', 'out', `the node holding the space ${ref.name} (${ref.node.slice(0, 12)}) is unreachable`, ref);
  const st = state(d);
  if (st.held !== null) d.releaseFirstHold();
  const op = [F_SPACE_OP, 0, OP.out, ref.name, ref.kind, bytes, false];
  // held until the next frame this node sends (a `first` hold, destination-holds.js) or
  // the end of the run loop; not while the link to the holder is backed up, where the
  // process must wait for room as for a `!`, nor while some peer is restricted (a frame
  // of a restricted peer's process is wrapped as it is sent: capabilities.js)
  if (node.looping && d.restricted.size === 0 && !d.outboxes.has(ref.node)) {
    const hold = { to: ref.node, first: true, op, release: () => flushHeldOut.call(d) };
    d.addHold((st.held = hold));
    return VOID;
  }
  if (d.emit(ref.node, withAck(d, st, ref.node, op)) === false) {
    proc.sendBlocked = true; // see `!` in prims-processes.js
    R.fuel = 0;
  }
  return VOID;
}

/**
 * Send the `out` held back by sendRemoteOut, if any: its hold's release, before any
 * other frame this node sends and when the run loop ends (destination-holds.js).
 * @this {Distribution}
 */
export function flushHeldOut() {
  const st = /** @type {any} */ (this).spaceState;
  const held = st?.held;
  if (held == null) return;
  st.held = null;
  this.emit(held.to, withAck(this, st, held.to, held.op));
}

/**
 * A SPACE_OP to `to`, carrying what waits for that node: the acknowledgement, if any,
 * and the `out` held back before it (one frame, one message on the link, instead of up
 * to three): [32, n | 0, taken?, held-out?, op] (n = 0: no acknowledgement). Not while
 * some peer is restricted: a carrier is not wrapped for the process it is sent for
 * (capabilities.js wraps SPACE_OPs), so the acknowledgement then goes alone.
 * @param {Distribution} d @param {any} st @param {string} to @param {any[]} frame
 */
function withAck(d, st, to, frame) {
  if (d.restricted.size !== 0) return frame;
  const ack = st.ack !== null && st.ack[0] === to ? st.ack : null;
  // the held out rides inside unless something held for `to` before it must leave first
  const held = st.held !== null && st.held.to === to && d.holds.get(to)?.[0] === st.held ? st.held : null;
  if (ack === null && held === null) return frame;
  if (ack !== null) st.ack = null;
  if (held === null) return [F_SPACE_ACK, ack[1], ack[2], frame];
  st.held = null;
  d.dropHold(held); // it leaves inside this frame
  return [F_SPACE_ACK, ack === null ? 0 : ack[1], ack === null ? true : ack[2], held.op, frame];
}

/**
 * A SPACE_REPLY: hand the answer to the process still waiting for it; a withdrawn tuple
 * is acknowledged (#t: kept, #f: put it back).
 * @param {string} from @param {any[]} f
 * @this {Distribution}
 */
function onReply(from, f) {
  const [, n, status, payload] = f;
  const st = state(this);
  const req = st.requests.get(n);
  if (req === undefined || req.to !== from) {
    // nobody waits for it (the holder was given up for gone): a tuple goes back
    if (status === S_TAKEN) this.emit(from, [F_SPACE_ACK, n, false]);
    if (req === undefined && status !== S_TAKEN) refuseSpace(this, from, `SPACE_REPLY for unknown request ${n}`);
    return;
  }
  st.requests.delete(n);
  const proc = req.proc;
  const waiting = req.deliver === undefined && proc.alive && proc.waiting !== null && proc.waiting.info === req.info;
  /** @type {{value?: any, raise?: any}} */
  let answer;
  if (status === S_TAKEN || status === S_READ) {
    let tuple;
    try {
      tuple = this.decodeReady(payload);
      if (tuple === NOT_READY || !Array.isArray(tuple)) throw new Error('it names code this node does not have');
    } catch (e) {
      if (status === S_TAKEN) this.emit(from, [F_SPACE_ACK, n, false]);
      const raise = new ErrorObject(`a tuple of the space ${req.ref.name} could not be decoded here (left in the space): ${e instanceof Error ? e.message : e}`, arrayToList([req.ref]), 'linda', req.who);
      if (req.deliver !== undefined) req.deliver({ raise });
      else if (waiting) this.node.resumeExternal(proc, { raise });
      return;
    }
    answer = { value: arrayToList(tuple) };
  } else if (status === S_VALUE && req.op === OP.make) {
    answer = payload === 'local' || payload === 'central'
      ? { value: new SpaceRef(from, req.ref.name, payload) }
      : { raise: new ErrorObject('the holder answered an unknown space kind', arrayToList([req.ref]), 'linda', req.who) };
  } else if (status === S_VALUE) {
    answer = { value: payload };
  } else if (status === S_TIMEOUT) {
    answer = req.byDeadline ? { raise: deadlineError(req.who, req.ref) } : { value: req.dflt };
  } else {
    answer = { raise: new ErrorObject(String(payload), arrayToList([req.ref]), 'linda', req.who) };
  }
  const delivered = req.deliver !== undefined ? req.deliver(answer) : waiting && this.node.resumeExternal(proc, answer);
  if (status !== S_TAKEN) return;
  if (!delivered || st.ack !== null) {
    this.emit(from, [F_SPACE_ACK, n, delivered]);
    return;
  }
  // the process runs now, in this task (as it would right after this frame); its next
  // SPACE_OP to the holder carries the acknowledgement (withAck), else it goes alone
  st.ack = [from, n, true];
  try {
    this.node.runArrivedNow();
  } finally {
    const ack = st.ack;
    st.ack = null;
    if (ack !== null) this.emit(from, [F_SPACE_ACK, n, true]);
  }
}

/**
 * A process ended while waiting for a space request (links-and-signals.js `finish`):
 * the holder stops waiting for it. A tuple already on its way is refused on arrival
 * (onReply: ACK #f), so it goes back either way.
 * @param {{spaceRequest: number}} info the process's waiting info
 * @this {Distribution}
 */
export function spaceRequestAbandoned(info) {
  const st = this.spaceState;
  const req = st?.requests.get(info.spaceRequest);
  if (st === undefined || req === undefined || req.info !== info) return;
  st.requests.delete(info.spaceRequest);
  this.emit(req.to, [F_SPACE_CANCEL, info.spaceRequest]);
}

/**
 * A node went away: processes waiting on a space it holds get an error; what it was
 * waiting for here (waiter records) is stopped and what it had withdrawn is put back.
 * @param {string} id @param {string} reason
 * @this {Distribution}
 */
export function spacesPeerDown(id, reason) {
  dtsPeerDown(this, id); // distributed spaces: its tuples pass to their heir
  const st = this.spaceState;
  if (st === undefined) return;
  for (const [n, req] of st.requests) {
    if (req.to !== id) continue;
    st.requests.delete(n);
    const raise = new ErrorObject(`the node holding the space ${req.ref.name} is unreachable (${reason})`, arrayToList([req.ref]), 'node-down', req.who);
    if (req.deliver !== undefined) req.deliver({ raise }); // an asynchronous operation: its owner's handle fails
    else if (req.proc.alive && req.proc.waiting !== null && req.proc.waiting.info === req.info) this.node.resumeExternal(req.proc, { raise });
  }
  holderPeerDown(this, st, id); // what it waited for here stops, what it withdrew goes back
}

/**
 * Routes changed: a node this one waits on, or serves, that is no longer reachable at
 * all (it was reached through others) is treated as gone (spacesPeerDown).
 * @this {Distribution}
 */
export function spacesRoutesChanged() {
  const all = /** @type {any} */ (this.node).dtsReplicas;
  if (all !== undefined) {
    for (const rep of all.values()) for (const m of [...rep.members]) if (!this.mesh.isReachable(m)) dtsPeerDown(this, m);
  }
  const st = this.spaceState;
  if (st === undefined) return;
  /** @type {Set<string>} */
  const peers = new Set();
  for (const req of st.requests.values()) peers.add(req.to);
  holderPeers(st, peers);
  for (const id of peers) if (!this.mesh.isReachable(id)) this.spacesPeerDown(id, 'no route to it any more');
}

// ------------------------------------------------------------------ the frames

/**
 * A SPACE frame from `from` (types 30–32; one-way-frames.js hands them here).
 * @param {string} from @param {any[]} f the decoded frame, its environment list last
 * @returns {void}
 * @this {Distribution}
 */
export function onSpaceFrame(from, f) {
  const type = f[0];
  if (type === F_DTS) return onDtsFrame.call(this, from, f); // distributed spaces: dts-protocol.js
  if (!Number.isSafeInteger(f[1]) || f[1] < 0) return refuseSpace(this, from, 'malformed SPACE frame: its request number is not a non-negative integer');
  if (type === F_SPACE_REPLY) {
    if (f.length !== 5 || !Number.isInteger(f[2]) || f[2] < S_VALUE || f[2] > S_ERROR || ((f[2] === S_TAKEN || f[2] === S_READ) && !(f[3] instanceof Uint8Array))) {
      return refuseSpace(this, from, 'malformed SPACE_REPLY frame');
    }
    return onReply.call(this, from, f);
  }
  if (type === F_SPACE_ACK) {
    if (f.length < 4 || f.length > 6 || typeof f[2] !== 'boolean' || (f[1] === 0 && f.length === 4)) return refuseSpace(this, from, 'malformed SPACE_ACK frame');
    // the SPACE_OPs that came with it (an out held back, then a request), handled in order as the frames after it
    const env = f[f.length - 1];
    for (let i = 3; i < f.length - 1; i++) {
      const op = f[i];
      if (!Array.isArray(op) || op[0] !== F_SPACE_OP) return refuseSpace(this, from, 'malformed SPACE_ACK frame: what it carries is not a SPACE_OP');
    }
    if (f[1] !== 0) onAck(this, from, f[1], f[2]); // 0: no acknowledgement, only operations
    for (let i = 3; i < f.length - 1; i++) {
      const op = f[i];
      op.push(env); // its environment list is the carrier's
      // what the previous one woke runs first, as between two frames: an RPC server's
      // response is then in the space when the request after its `out` looks
      if (i > 3) this.node.runArrivedNow();
      onSpaceFrame.call(this, from, op);
    }
    return;
  }
  if (type === F_SPACE_CANCEL) return onSpaceCancel(this, from, f);
  if (type !== F_SPACE_OP) return refuseSpace(this, from, `unknown frame type ${type}`);
  onSpaceOp(this, from, f);
}
