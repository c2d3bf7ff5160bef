// @ts-check
/**
 * The Linda operations of a process on a distributed space (L²imbo's DTS; docs/linda.md,
 * "Distributed spaces"): each runs on this node's replica (dts-replica.js) and speaks the
 * DTS protocol (dts-protocol.js) only when it must.
 *
 *  - `out`: a new id, cached here, one OUT to each member. Its owner is this node — or,
 *    the RPC optimisation, the node whose announced waiting `in` it matches, or else the
 *    member that last withdrew a tuple of its kind;
 *  - `rd`, `rdp`, `rd-timeout`, `space-count`: answered from the replica (a blocking `rd`
 *    that finds nothing asks the members once with RD, then waits in the core);
 *  - `in`, `inp`, `in-timeout`: the oldest match in the replica is withdrawn at once if
 *    this node owns it (a DELETE to each member), else the oldest match it owns (the
 *    replica's owned space); otherwise its owner is asked (CHOWN_REQ with the template,
 *    and up to ASK_AHEAD more of its matches, then of its tuples of the same kind, asked
 *    ahead) and the process waits for the answer, or
 *    for an answer already asked ahead for a match; with no match an `in` announces
 *    itself to the members (IN; a member that joins later is told) and waits in the core
 *    as a reader of the replica, looking again when a matching tuple arrives.
 *
 * Invariants:
 *  - a process withdraws only a tuple this node owns, and only while it still waits for
 *    it (a tuple whose ownership arrives for a process that has gone back stays in the
 *    replica, owned by this node);
 *  - a replica made away from its home is joined before it is used: the first operation
 *    waits for the home's state (REPAIR_ACK), or for the home to be gone;
 *  - no core `in` ever waits on a replica (only readers), so an arriving tuple is never
 *    handed to a process the protocol has not let withdraw it.
 */
import { unwind, PEND_SUSPEND, defineBuiltin, rtEnv } from '@termite/scheme/internal';
import { ErrorObject, SchemeError, arrayToList } from '@termite/scheme';
import { BLOCKED } from '@termite/core';
import { Sym } from '../scheme-data.js';
import { current } from '../prims-processes.js';
import { W_TUPLE } from '../termite-node/process.js';
import { noteWithdrawn, spaceTable } from './space-table.js';
import { deadlineError } from './qos.js';
import { Replica, HELD, LIVE, kindKey } from './dts-replica.js';
import { scratchSpace, clearScratch } from './scratch-space.js';
import { dtsSend } from './dts-batch.js';
import { ensureReplica, toMembers, dtsPeerDown, F_DTS, D_OUT, D_IN, D_RD, D_CHOWN_REQ, D_DELETE } from './dts-protocol.js';

const CLOCK_NEVER = 3;
/** distinguishes this run's tuple ids from those of an earlier run of the same node */
const BOOT = Date.now().toString(36);
/** matches looked at by one withdrawal before it waits (each ends in a withdrawal or a request, so few) */
const MAX_TRIES = 1000;

/**
 * @typedef {object} Take a withdrawal in progress
 * @property {string} who @property {any} ref @property {Uint8Array} bytes
 * @property {boolean} probe inp: never wait for a match
 * @property {number} timeoutAt @property {any} dflt @property {boolean} byDeadline
 * @property {number} req the announced IN's number (0: not announced)
 * @property {(bytes: Uint8Array) => any} decode
 */

/** @param {any} node */
function dtsState(node) {
  if (node.dtsSerial === undefined) node.dtsSerial = { tuple: 0, req: 0 };
  return node.dtsSerial;
}

/** A fresh number for an announced IN of this node. @param {any} node */
export function nextRequest(node) {
  return ++dtsState(node).req;
}

/** A core error as a Scheme error naming the operation. @template T @param {string} who @param {() => T} f @returns {T} */
function coreCall(who, f) {
  try {
    return f();
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new SchemeError(new ErrorObject(msg, null, 'linda', who));
  }
}

/**
 * Suspend the running process until `wake` (returned with the suspension value) is
 * called; `onResume(th)` then sets its thread up.
 * @param {any} proc @param {(th: any, reason: string) => void} onResume
 */
function suspend(proc, onResume) {
  const node = proc.node;
  const w = { kind: W_TUPLE, resume: onResume };
  proc.waiting = w;
  node.core.sleep(proc.cpid, 1e300, { clock: CLOCK_NEVER });
  const wake = () => {
    if (!proc.alive || proc.waiting !== w) return false;
    node.core.interrupt(proc.cpid);
    node.pokeAfterTask();
    return true;
  };
  return { w, wake };
}

/** Call the builtin `name` with `args` when the thread resumes. @param {any} th @param {string} name @param {any[]} args */
function callOnResume(th, name, args) {
  th.act = 0; // ACT_CALL
  th.clo = rtEnv.cell(name).v;
  th.args = args;
}

/** @param {any} th @param {any} value */
function raiseOnResume(th, value) {
  callOnResume(th, 'raise', [value]);
}

/**
 * The replica of a distributed space, ready for the calling process: or, while it joins,
 * the process waits and then calls `who` again with `args` (the value to return then).
 * A withdrawal (`take`) goes on once the home has answered: any tuple it may pick is
 * withdrawn through its owner, who answers DELETE for one already withdrawn; a read
 * waits for every member's answer too (dts-protocol.js, joinAnswered).
 * @param {any} proc @param {any} ref @param {string} who @param {any[]} args
 * @returns {Replica | {suspended: any}}
 */
export function readyReplica(proc, ref, who, args, take = false) {
  let rep;
  try {
    rep = ensureReplica(proc.node, ref.name, ref.node);
  } catch (e) {
    throw new SchemeError(new ErrorObject(`${who}: ${e instanceof Error ? e.message : e}`, arrayToList([ref]), 'linda', who));
  }
  if (rep.ready || (take && rep.homeAnswered)) return rep; // a withdrawal asks the owner: safe once the home answered
  const { wake } = suspend(proc, (th) => {
    if (rep.failed !== undefined) raiseOnResume(th, new ErrorObject(`${who}: ${rep.failed}`, arrayToList([ref]), 'linda', who));
    else callOnResume(th, who, args);
  });
  rep.joinWaiters.push(wake);
  return { suspended: unwind(PEND_SUSPEND, proc.waiting) };
}

/**
 * `out` on a distributed space.
 * @param {any} proc @param {Replica} rep @param {Uint8Array} bytes
 */
export function dtsOut(proc, rep, bytes) {
  const node = proc.node;
  const st = dtsState(node);
  const id = `${node.id}/${BOOT}/${++st.tuple}`;
  const owner = rep.claimRemoteIn(bytes) ?? rep.likelyTaker(bytes) ?? node.id;
  coreCall('out', () => rep.add(id, owner, bytes));
  const info = spaceTable(node).info.get(rep.name);
  if (info !== undefined) info.outs++;
  toMembers(node.remote, rep, [F_DTS, D_OUT, rep.name, id, owner, bytes]);
  node.poke();
}

/**
 * `rd`, `rdp`, `rd-timeout` on a distributed space: from the replica (the value, or the
 * suspension of a process that waits in the core as a reader).
 * @param {any} proc @param {Replica} rep @param {Take} t
 */
export function dtsRead(proc, rep, t) {
  const node = proc.node;
  const r = coreCall(t.who, () => rep.space.rdpBytes(t.bytes));
  if (r !== undefined) return t.decode(r);
  if (t.probe) return false;
  if (t.timeoutAt <= node.now()) return timedOut(t.who, rep, t.dflt, t.byDeadline);
  toMembers(node.remote, rep, [F_DTS, D_RD, rep.name, t.bytes]);
  const got = rep.space.rdBytes(proc.cpid, t.bytes, { timeoutAt: t.timeoutAt });
  if (got === undefined) return timedOut(t.who, rep, t.dflt, t.byDeadline);
  if (got !== BLOCKED) return t.decode(got);
  proc.waiting = {
    kind: W_TUPLE,
    resume: (/** @type {any} */ th, /** @type {string} */ reason) => {
      if (reason === 'tuple') {
        const bytes = node.core.takeTupleBytes(proc.cpid);
        try {
          th.val = t.decode(bytes);
          th.act = 1; // ACT_RETURN
        } catch (e) {
          raiseOnResume(th, new ErrorObject(`${t.who}: a tuple of the space ${rep.name} could not be decoded here: ${e instanceof Error ? e.message : e}`, arrayToList([t.ref]), 'linda', t.who));
        }
        return;
      }
      if (reason !== 'timeout') return raiseOnResume(th, Sym.intern('interrupted'));
      if (t.byDeadline) return raiseOnResume(th, deadlineError(t.who));
      th.act = 1;
      th.val = t.dflt;
    },
  };
  return unwind(PEND_SUSPEND, proc.waiting);
}

/** The value of an operation that timed out (or raises, at the process's deadline). @param {string} who @param {Replica} rep @param {any} dflt @param {boolean} byDeadline */
function timedOut(who, rep, dflt, byDeadline) {
  if (byDeadline) throw new SchemeError(deadlineError(who));
  return dflt;
}

/**
 * `in`, `inp`, `in-timeout` on a distributed space: the value, or the suspension.
 * @param {any} proc @param {Replica} rep @param {Take} t
 */
export function dtsTake(proc, rep, t) {
  const node = proc.node;
  const d = node.remote;
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const r = coreCall(t.who, () => rep.space.rdpBytes(t.bytes));
    if (r === undefined) break;
    const id = rep.pick(r);
    if (id === null) {
      rep.space.removeExactBytes(r); // a copy nobody accounts for (cannot happen): dropped
      continue;
    }
    const tu = rep.tuples.get(id);
    if (tu?.owner === node.id) return withdraw(proc, rep, id, t);
    // the oldest match is another node's: a match this node owns comes first (no round trip)
    const mine = rep.ownedMatch(t.bytes);
    const own = mine === undefined ? null : rep.pick(mine);
    if (own !== null && rep.tuples.get(own)?.owner === node.id) return withdraw(proc, rep, own, t);
    if (d == null) throw new SchemeError(new ErrorObject(`${t.who}: the owner of a matching tuple of ${rep.name} is another node, and this node is in no mesh`, arrayToList([t.ref]), 'linda', t.who));
    // an owner that cannot be reached is gone: its tuples pass to their heir, maybe this node
    for (let i = 0; i < 3 && !d.mesh.isReachable(rep.tuples.get(id)?.owner) && rep.tuples.get(id)?.owner !== node.id; i++) dtsPeerDown(d, /** @type {string} */ (rep.tuples.get(id)?.owner));
    const owner = rep.tuples.get(id)?.owner;
    if (owner === node.id) return withdraw(proc, rep, id, t);
    if (!d.mesh.isReachable(owner)) throw new SchemeError(new ErrorObject(`${t.who}: the owner of a matching tuple of ${rep.name} (${String(owner).slice(0, 12)}) is unreachable`, arrayToList([t.ref]), 'node-down', t.who));
    const ahead = pendingAhead(node, rep, t.bytes);
    if (ahead !== null) return awaitAhead(proc, rep, t, ahead);
    const kind = t.probe ? null : kindKey(/** @type {any} */ (rep.tuples.get(id)).bytes);
    const suspended = acquire(proc, rep, id, t);
    if (!t.probe) askAhead(node, rep, t.bytes, /** @type {string} */ (owner), kind); // an inp asks for one only
    return suspended;
  }
  if (t.probe) return cancelIn(node, rep, t, false);
  if (t.timeoutAt <= node.now()) return expire(node, rep, t);
  if (t.req === 0) { // announced even with no member yet: a member that joins is told (myIns)
    t.req = nextRequest(node);
    rep.myIns.set(t.req, t.bytes);
    toMembers(d, rep, [F_DTS, D_IN, rep.name, t.req, t.bytes]);
  }
  const got = rep.space.rdBytes(proc.cpid, t.bytes, { timeoutAt: t.timeoutAt });
  if (got === undefined) return expire(node, rep, t);
  if (got !== BLOCKED) return dtsTake(proc, rep, t);
  proc.waiting = {
    kind: W_TUPLE,
    resume: (/** @type {any} */ th, /** @type {string} */ reason) => {
      if (reason === 'tuple') {
        node.core.takeTupleBytes(proc.cpid); // a reader's copy: look again, as a taker
        return callOnResume(th, '%dts-take', [rep, t]);
      }
      cancelIn(node, rep, t, false);
      if (reason !== 'timeout') return raiseOnResume(th, Sym.intern('interrupted'));
      if (t.byDeadline) return raiseOnResume(th, deadlineError(t.who));
      th.act = 1; // ACT_RETURN
      th.val = t.dflt;
    },
  };
  return unwind(PEND_SUSPEND, proc.waiting);
}

/** A withdrawal whose time is up: the default, or the deadline's error. @param {any} node @param {Replica} rep @param {Take} t */
function expire(node, rep, t) {
  cancelIn(node, rep, t, false);
  return timedOut(t.who, rep, t.dflt, t.byDeadline);
}

/** The announced IN is withdrawn (members drop it); returns `value`. @param {any} node @param {Replica} rep @param {Take} t @param {any} value */
function cancelIn(node, rep, t, value) {
  if (t.req !== 0) {
    rep.myIns.delete(t.req);
    toMembers(node.remote, rep, [F_DTS, D_DELETE, rep.name, false, t.req]);
  }
  t.req = 0;
  return value;
}

/**
 * Withdraw tuple `id`, owned by this node: decoded (if it cannot be, it stays), removed
 * from the replica, a DELETE to each member.
 * @param {any} proc @param {Replica} rep @param {string} id @param {Take} t
 */
function withdraw(proc, rep, id, t) {
  const node = proc.node;
  const tu = rep.hold(id);
  let value;
  try {
    value = t.decode(tu.bytes);
  } catch (e) {
    rep.release(id);
    throw new SchemeError(new ErrorObject(`${t.who}: a tuple of the space ${rep.name} could not be decoded here (left in the space): ${e instanceof Error ? e.message : e}`, arrayToList([t.ref]), 'linda', t.who));
  }
  rep.remove(id);
  noteWithdrawn(node, rep.name, tu.bytes);
  if (t.req !== 0) rep.myIns.delete(t.req);
  toMembers(node.remote, rep, [F_DTS, D_DELETE, rep.name, id, t.req === 0 ? false : t.req]);
  t.req = 0;
  return value;
}

/**
 * Ask the owner of tuple `id` for it; the process waits. Granted while the process still
 * waits: it withdraws the tuple; granted after it went back: the tuple stays here,
 * owned by this node; refused (withdrawn elsewhere, or owned by a node that cannot be
 * reached): the process looks again.
 * @param {any} proc @param {Replica} rep @param {string} id @param {Take} t
 */
function acquire(proc, rep, id, t) {
  const node = proc.node;
  const tu = rep.hold(id);
  /** @type {{done: boolean, value: any, error: any}} */
  const result = { done: false, value: undefined, error: undefined };
  const { w, wake } = suspend(proc, (th) => {
    if (!result.done) return callOnResume(th, '%dts-take', [rep, t]);
    if (result.error !== undefined) return raiseOnResume(th, result.error);
    th.act = 1; // ACT_RETURN
    th.val = result.value;
  });
  const a = {
    asked: tu.owner,
    hops: 0,
    retries: 0,
    template: t.bytes,
    /** @type {any} */
    timer: null,
    settle: (/** @type {boolean} */ granted) => {
      if (a.timer !== null) clearTimeout(a.timer);
      a.timer = null;
      if (!granted) return void wake();
      const t2 = rep.tuples.get(id);
      if (t2 === undefined || t2.state !== HELD) return void wake();
      rep.setOwner(t2, node.id);
      if (!proc.alive || proc.waiting !== w) return rep.release(id);
      result.done = true;
      try {
        result.value = withdraw(proc, rep, id, t);
      } catch (e) {
        result.error = e instanceof SchemeError ? e.payload : e;
      }
      wake();
    },
  };
  rep.acquiring.set(id, a);
  dtsSend(node.remote, tu.owner, [F_DTS, D_CHOWN_REQ, rep.name, id, t.bytes]);
  armChownRetry(node.remote, rep, id, a);
  return unwind(PEND_SUSPEND, w);
}

/** matches of the same owner asked for beside the one a process waits for */
export const ASK_AHEAD = 3;

/** tuples of the asked one's kind looked at for asking ahead (the oldest first) */
const KIND_SCAN = 512;

/**
 * Ownership asked ahead: beside the match a process waits for, up to ASK_AHEAD more
 * tuples owned by the same node are asked for in the same turn, with no process behind
 * them — matches of the template first, then (filling up) tuples of the asked one's kind
 * (same length, same first field: a collector taking ("c" 0 ?any), then ("c" 1 ?any),
 * gets the next results in the same round trip). Each granted one stays in the replica,
 * owned by this node, so the next `in`s here withdraw it without a round trip (a worker
 * that joined after the tasks were made takes its share of them a few at a time); a
 * refused one goes back, or goes, as for any acquisition. Only a node that owns such
 * tuples is asked, and only for those: the grant is its CHOWN_ACK, so ownership stays
 * unique.
 * @param {any} node @param {Replica} rep @param {Uint8Array} template @param {string} owner
 * @param {string | null} kind the kindKey of the tuple asked for
 */
function askAhead(node, rep, template, owner, kind) {
  let asked = 0;
  for (; asked < ASK_AHEAD; asked++) {
    let r;
    try {
      r = rep.space.rdpBytes(template);
    } catch {
      break;
    }
    if (r === undefined) break;
    const id = rep.pick(r);
    const tu = id === null ? undefined : rep.tuples.get(id);
    if (id === null || tu === undefined || tu.owner !== owner || rep.acquiring.has(id)) break;
    requestAhead(node, rep, id, owner, template);
  }
  if (asked >= ASK_AHEAD || kind === null) return;
  let seen = 0;
  for (const [id, tu] of rep.tuples) {
    if (asked >= ASK_AHEAD || ++seen > KIND_SCAN) return;
    if (tu.state !== LIVE || tu.owner !== owner || rep.acquiring.has(id) || kindKey(tu.bytes) !== kind) continue;
    requestAhead(node, rep, id, owner, null);
    asked++;
  }
}

/**
 * Ask `owner` for tuple `id` with no process behind the request (askAhead).
 * @param {any} node @param {Replica} rep @param {string} id @param {string} owner
 * @param {Uint8Array | null} template the template it matched (sent, for a substitute), or null
 */
function requestAhead(node, rep, id, owner, template) {
  rep.hold(id);
  const a = {
    asked: owner,
    hops: 0,
    retries: 0,
    ahead: true,
    template: template ?? undefined,
    /** @type {any} */
    timer: null,
    /** @type {(() => void) | null} a process that waits for this answer rather than ask for another match */
    waiter: null,
    settle: (/** @type {boolean} */ granted) => {
      if (a.timer !== null) clearTimeout(a.timer);
      a.timer = null;
      const t2 = rep.tuples.get(id);
      if (t2 !== undefined && t2.state === HELD) {
        if (granted) rep.setOwner(t2, node.id);
        rep.release(id);
      }
      const wake = a.waiter;
      a.waiter = null;
      wake?.(); // it looks again: the tuple is its node's now, or gone
    },
  };
  rep.acquiring.set(id, a);
  dtsSend(node.remote, owner, [F_DTS, D_CHOWN_REQ, rep.name, id, template ?? false]);
  armChownRetry(node.remote, rep, id, a);
}

/**
 * An ownership request asked ahead, still unanswered, for a tuple that matches the
 * template and that no process waits for yet; null if none.
 * @param {any} node @param {Replica} rep @param {Uint8Array} template
 */
function pendingAhead(node, rep, template) {
  for (const [id, a] of rep.acquiring) {
    if (a.ahead !== true || a.waiter !== null) continue;
    const bytes = rep.tuples.get(id)?.bytes;
    if (bytes !== undefined && matches(node, bytes, template)) return a;
  }
  return null;
}

/** Whether the tuple matches the template (the core's matcher, in the scratch space). @param {any} node @param {Uint8Array} bytes @param {Uint8Array} template */
function matches(node, bytes, template) {
  const scratch = scratchSpace(node);
  scratch.outBytes(bytes);
  try {
    return scratch.rdpBytes(template) !== undefined;
  } catch {
    return false;
  } finally {
    clearScratch(node, scratch, bytes);
  }
}

/**
 * The process waits for the answer to an ownership request asked ahead (one more
 * request would cost another round trip, and the tuple asked for is older), then looks
 * again. @param {any} proc @param {Replica} rep @param {Take} t @param {any} a
 */
function awaitAhead(proc, rep, t, a) {
  const { w, wake } = suspend(proc, (th) => callOnResume(th, '%dts-take', [rep, t]));
  a.waiter = wake;
  return unwind(PEND_SUSPEND, w);
}

/** how long an ownership request waits for its answer before it is looked at again */
export const CHOWN_RETRY_MS = 1000;
/** requests sent again to an owner that stays reachable and silent, before the process looks again */
const CHOWN_RETRIES = 5;

/**
 * An ownership request unanswered after CHOWN_RETRY_MS: if the node asked is no longer
 * reachable it is gone (its tuples pass to their heir, who is asked, or this node
 * withdraws), even when its departure has not been announced here; if it is reachable
 * the request is sent again (a frame routed towards a node that just left is lost),
 * CHOWN_RETRIES times, and then the process looks again.
 * @param {any} d @param {Replica} rep @param {string} id @param {any} a the acquisition
 */
export function armChownRetry(d, rep, id, a) {
  a.timer = setTimeout(() => {
    a.timer = null;
    if (rep.acquiring.get(id) !== a) return;
    if (!d.mesh.isReachable(a.asked)) dtsPeerDown(d, a.asked);
    else if (a.retries++ < CHOWN_RETRIES) dtsSend(d, a.asked, [F_DTS, D_CHOWN_REQ, rep.name, id, a.template ?? false]);
    else {
      rep.acquiring.delete(id);
      rep.release(id);
      return a.settle(false);
    }
    if (rep.acquiring.get(id) === a && a.timer === null) armChownRetry(d, rep, id, a);
  }, CHOWN_RETRY_MS);
  a.timer.unref?.();
}

/** `(%dts-take replica take)`: a withdrawal looking again (after a wake-up). */
defineBuiltin('%dts-take', function (/** @type {number} */ _d, /** @type {any} */ rep, /** @type {any} */ t) {
  const proc = current(t.who);
  if (proc.signalled) throw new SchemeError(proc.takeSignal());
  return dtsTake(proc, rep, t);
}, 2, 0);

/** The distributed spaces' counters for the node's snapshot. @param {any} node */
export function dtsStats(node) {
  const all = node.dtsReplicas;
  if (all === undefined) return { replicas: 0, tuples: 0, acquiring: 0 };
  let tuples = 0, acquiring = 0;
  for (const rep of all.values()) {
    tuples += rep.size;
    acquiring += rep.acquiring.size;
  }
  return { replicas: all.size, tuples, acquiring };
}
