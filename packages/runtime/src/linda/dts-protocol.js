// @ts-check
/**
 * The DTS protocol (L²imbo's distributed tuple spaces, docs/linda.md "Distributed
 * spaces", docs/wire-format.md): the DTS frame, type 34, between the replicas of a
 * distributed space, and what each replica does on each message. The mesh has no
 * multicast: "to the group" means one frame to each member the replica knows.
 * What a member's going away and coming back does is dts-membership.js.
 *
 *   [34, 1, space, id, owner, tuple]         OUT: a new tuple (owner: who may withdraw it)
 *   [34, 2, space, req, template]            IN: a process of the sender waits for a match
 *                                            (also sent to a joiner after its REPAIR_ACK)
 *   [34, 3, space, template]                 RD: send me a tuple that matches (a REPAIR_ACK)
 *   [34, 4, space, id, template | #f]        CHOWN_REQ: give me the ownership of id (the
 *                                            template it was asked for: if id is gone or
 *                                            another's, a match the owner holds instead;
 *                                            the four-item form of earlier nodes is taken)
 *   [34, 5, space, id, owner | #f]           CHOWN_ACK: its owner now (you, or who I think
 *                                            owns it; #f: the owner has no such tuple)
 *   [34, 6, space, id | #f, req | #f]        DELETE: id was withdrawn (by the IN req)
 *   [34, 7, space, [id ...], reply?]         ACCESS: the ids I hold (after a partition; and
 *                                            a joiner's, to each member the home named)
 *   [34, 8, space, [id ...] | #t]            REPAIR_REQ: send me these tuples (#t: all — a join)
 *   [34, 9, space, [[id owner tuple] ...], [deleted-id ...], [member ...], join?]
 *                                            REPAIR_ACK: tuples, withdrawals and members
 *   [34, 10, space, reason]                  REFUSED: the join of a space that is not here
 *   [34, 11, "", [[sub, space, ...] ...]]    BATCH: the messages of one task, in order
 *                                            (dts-batch.js; handled one by one)
 *
 * Invariants:
 *  - a tuple is withdrawn only by its owner (ownership moves by CHOWN_REQ/ACK, which the
 *    owner answers: an owner hands a tuple to one node at a time);
 *  - a replica only adds tuples (OUT, REPAIR_ACK) and removes withdrawn ones (DELETE,
 *    REPAIR_ACK's deleted ids); ids are never reused, so replicas converge once every
 *    OUT and DELETE has reached every member (repair after a partition sends them again);
 *  - a member that goes away gives its tuples to the space's home (to the member with
 *    the smallest id when the home is the one gone): they stay withdrawable;
 *  - frames about a space that is not a distributed space of this node are refused
 *    (nothing is created for a peer but its membership); a restricted peer (a tab) may
 *    use a distributed space like a central one (capabilities.js maySpace), and may
 *    announce only tuples it made (owned by itself, or by the node it tells), repair only
 *    with those, and withdraw only tuples it owns;
 *  - a joiner reads its replica only once the home and every member the home named
 *    have answered (a member's answer follows its own DELETEs on one link); it may
 *    withdraw once the home has answered (the owner decides);
 *  - a join is bounded: a home that stays reachable but does not answer the join within
 *    JOIN_TIMEOUT_MS fails it (the waiting processes raise a clear error, the half-made
 *    replica is dropped, and the next operation asks again);
 *  - every message leaves through dts-batch.js (dtsSend): one task's messages to one
 *    member go as one BATCH, in order, and no later frame to that member overtakes them;
 *  - an owner that cannot grant a tuple asked for with its template grants another
 *    match it owns instead (substitute), never a tuple it does not own;
 *  - malformed frames are refused with their reason (a log line and an ERROR frame, at
 *    most once a second), and the node keeps serving.
 *
 * The frame handler is a Distribution method (`this` is the Distribution).
 */
import { Replica, LIVE, MAX_MEMBERS } from './dts-replica.js';
import { coreSpace, declareSpace, kindOf } from './space-table.js';
import { dtsSend, D_BATCH, MAX_BATCH } from './dts-batch.js';
import { countDts } from './dts-counters.js';
import { dtsPeerDown, dtsPeerUp, welcomeBack, claimAdopted } from './dts-membership.js'; // (it imports this file too: only functions cross, at call time)

export { dtsPeerDown };

export const F_DTS = 34;
export const D_OUT = 1, D_IN = 2, D_RD = 3, D_CHOWN_REQ = 4, D_CHOWN_ACK = 5, D_DELETE = 6, D_ACCESS = 7, D_REPAIR_REQ = 8, D_REPAIR_ACK = 9, D_REFUSED = 10;
/** each message's length on the wire (the environment list included) */
const LENGTHS = [0, 7, 6, 5, 6, 6, 6, 6, 5, 8, 5];
const NAMES = ['', 'OUT', 'IN', 'RD', 'CHOWN_REQ', 'CHOWN_ACK', 'DELETE', 'ACCESS', 'REPAIR_REQ', 'REPAIR_ACK', 'REFUSED'];
const MAX_ID = 400;
/** how long a join waits for the home's answer before it fails */
export const JOIN_TIMEOUT_MS = 10000;
/** ownership redirections followed for one request */
export const MAX_HOPS = 4;

/** @typedef {import('../distribution.js').Distribution} Distribution */

/** The node's replicas, by space name. @param {any} node @returns {Map<string, Replica>} */
export function replicas(node) {
  if (node.dtsReplicas === undefined) node.dtsReplicas = new Map();
  return node.dtsReplicas;
}

/**
 * The replica of the distributed space `name` whose home is `home`, made on first use
 * (a replica made away from its home asks the home for its state: the join).
 * @param {any} node @param {string} name @param {string} home
 */
export function ensureReplica(node, name, home) {
  const all = replicas(node);
  const had = all.get(name);
  if (had !== undefined) return had;
  const kind = kindOf(node, name);
  if (node.spaces.has(name) && kind !== 'distributed') throw new Error(`this node has a ${kind} space named ${name}; a distributed space needs another name`);
  const mine = home === node.id;
  if (!mine && node.remote == null) throw new Error(`the distributed space ${name} was made by another node, and this node is in no mesh`);
  if (!mine && !node.remote.mesh.isReachable(home)) throw new Error(`the home of the distributed space ${name} (${home.slice(0, 12)}) is unreachable: a node joins a distributed space there`);
  declareSpace(node, name, 'distributed');
  const d = node.remote;
  if (d != null && d.dtsListening !== true) {
    d.dtsListening = true;
    d.mesh.on('peer:up', (/** @type {any} */ e) => dtsPeerUp(d, e.id));
  }
  const rep = new Replica(node, name, home, coreSpace(node, name));
  all.set(name, rep);
  if (!mine) {
    rep.members.add(home);
    dtsSend(node.remote, home, [F_DTS, D_REPAIR_REQ, name, true]);
    const ms = JOIN_TIMEOUT_MS;
    rep.joinTimer = setTimeout(() => joinTimedOut(node, rep, ms), ms);
    if (typeof rep.joinTimer === 'object' && rep.joinTimer !== null && 'unref' in rep.joinTimer) rep.joinTimer.unref();
  }
  return rep;
}

/**
 * The home did not answer a join in time: the join fails with a clear error for every
 * process waiting on it, and the half-made replica is dropped (any tuple it cached taken
 * out of the core), so the next operation joins afresh.
 * @param {any} node @param {Replica} rep @param {number} ms
 */
function joinTimedOut(node, rep, ms) {
  rep.joinTimer = undefined;
  if (rep.ready || rep.failed !== undefined || replicas(node).get(rep.name) !== rep) return;
  if (rep.homeAnswered) { // the home answered; a member stayed silent: go on with what came
    rep.ready = true;
    node.remote?.log(`the join of the distributed space ${rep.name}: ${rep.joinPending.size} member(s) did not answer within ${ms / 1000} s`);
    return wakeJoiners(rep);
  }
  replicas(node).delete(rep.name);
  for (const t of rep.tuples.values()) if (t.state === LIVE) rep.space.removeExactBytes(t.bytes);
  rep.dispose();
  rep.failed = `the distributed space ${rep.name} cannot be joined: its home ${rep.home.slice(0, 12)} did not answer within ${ms / 1000} s`;
  node.remote?.log(rep.failed);
  wakeJoiners(rep);
}

/** Send a DTS frame to every member. @param {any} d a Distribution @param {Replica} rep @param {any[]} frame */
export function toMembers(d, rep, frame) {
  if (d == null) return;
  for (const m of rep.members) dtsSend(d, m, frame.slice()); // a frame sent alone gets the environment list appended
}

/** @param {Replica} rep @param {string} id */
function refuseWhy(rep, id) {
  return `${rep.name}: ${id.slice(0, 40)}`;
}

/**
 * A DTS frame from `from` (one-way-frames.js hands type 34 here through remote-spaces.js).
 * @param {string} from @param {any[]} f the decoded frame, its environment list last
 * @this {Distribution}
 */
export function onDtsFrame(from, f) {
  const sub = f[1];
  if (sub !== D_BATCH) countDts(sub, f);
  const name = f[2];
  const d = /** @type {any} */ (this);
  const refuse = (/** @type {string} */ why) => d.refuseOncePerSecond(dtsRefusals(d), 'DTS frames refused', from, why);
  if (sub === D_BATCH) return onBatch(d, from, f, refuse);
  if (!Number.isInteger(sub) || sub < D_OUT || sub > D_REFUSED) return refuse(`malformed DTS frame: unknown message ${String(sub).slice(0, 20)}`);
  if (f.length !== LENGTHS[sub] && !(sub === D_CHOWN_REQ && f.length === LENGTHS[sub] - 1)) return refuse(`malformed DTS ${NAMES[sub]} frame: ${f.length - 1} items, expected ${LENGTHS[sub] - 1}`);
  if (typeof name !== 'string' || name.length === 0 || name.length > 256) return refuse(`malformed DTS ${NAMES[sub]} frame: the space name must be a string of 1 to 256 characters`);
  const rep = replicas(d.node).get(name);
  if (rep === undefined) {
    if (sub === D_REPAIR_REQ && f[3] === true) dtsSend(d, from, [F_DTS, D_REFUSED, name, `this node holds no distributed space named ${name}`]);
    return refuse(`DTS ${NAMES[sub]} for ${name}, which is not a distributed space of this node`);
  }
  if (d.restricted.size > 0 && d.restricted.has(from) && !d.maySpace(from, name)) return refuse(`${from.slice(0, 12)} is a restricted peer and the space ${name} was not given to it`);
  const why = checkShape(sub, f);
  if (why !== null) return refuse(`malformed DTS ${NAMES[sub]} frame: ${why}`);
  if (!rep.members.has(from) && sub !== D_REFUSED) {
    if (rep.members.size >= MAX_MEMBERS) return refuse(`the space ${name} has ${MAX_MEMBERS} members`);
    if (rep.departed.has(from)) welcomeBack(d, rep, from); // its frame came before its peer:up
    else rep.members.add(from);
  }
  try {
    handle(d, rep, from, sub, f, refuse);
  } catch (e) {
    refuse(`DTS ${NAMES[sub]} on ${name} refused: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * A BATCH: each message handled in order, as if it had come alone (a malformed one is
 * refused with its reason and the others still handled).
 * @param {any} d @param {string} from @param {any[]} f @param {(why: string) => void} refuse
 */
function onBatch(d, from, f, refuse) {
  if (f.length !== 5 || !Array.isArray(f[3])) return refuse('malformed DTS BATCH frame: [34, 11, "", [message ...]] expected');
  if (f[3].length > MAX_BATCH) return refuse(`malformed DTS BATCH frame: ${f[3].length} messages, at most ${MAX_BATCH}`);
  for (const m of f[3]) {
    if (!Array.isArray(m) || m.length < 2 || m[0] === D_BATCH) refuse('malformed DTS BATCH frame: a message is [sub, space, ...], not a batch');
    else onDtsFrame.call(d, from, [F_DTS, ...m, f[4]]);
  }
}

/** @param {any} d */
function dtsRefusals(d) {
  if (d.dtsRefusals === undefined) d.dtsRefusals = { since: -Infinity, count: 0 };
  return d.dtsRefusals;
}

/** @param {any} x */
const isId = (x) => typeof x === 'string' && x.length > 0 && x.length <= MAX_ID;
/** @param {any} x */
const isNode = (x) => typeof x === 'string' && x.length > 0 && x.length <= 256;
/** @param {any} x a tuple or template: the bytes of a CBOR array */
const isTuple = (x) => x instanceof Uint8Array && x.length > 0 && (x[0] & 0xe0) === 0x80;

/** Why a message's items are not what they should be, or null. @param {number} sub @param {any[]} f */
function checkShape(sub, f) {
  switch (sub) {
    case D_OUT: return !isId(f[3]) ? 'a tuple id is a string' : !isNode(f[4]) ? 'an owner is a node id' : !isTuple(f[5]) ? 'a tuple is a CBOR array' : null;
    case D_IN: return !Number.isSafeInteger(f[3]) || f[3] <= 0 ? 'a request number is a positive integer' : !isTuple(f[4]) ? 'a template is a CBOR array' : null;
    case D_RD: return !isTuple(f[3]) ? 'a template is a CBOR array' : null;
    case D_CHOWN_REQ: return !isId(f[3]) ? 'a tuple id is a string' : f.length === LENGTHS[sub] && f[4] !== false && !isTuple(f[4]) ? 'a template is a CBOR array or #f' : null;
    case D_CHOWN_ACK: return !isId(f[3]) ? 'a tuple id is a string' : f[4] !== false && !isNode(f[4]) ? 'an owner is a node id or #f' : null;
    case D_DELETE: return f[3] !== false && !isId(f[3]) ? 'a tuple id is a string or #f' : f[4] !== false && !(Number.isSafeInteger(f[4]) && f[4] > 0) ? 'a request number is a positive integer or #f' : null;
    case D_ACCESS: return !Array.isArray(f[3]) || !f[3].every(isId) ? 'ACCESS carries a vector of tuple ids' : typeof f[4] !== 'boolean' ? 'reply? is a boolean' : null;
    case D_REPAIR_REQ: return f[3] !== true && (!Array.isArray(f[3]) || !f[3].every(isId)) ? 'REPAIR_REQ carries #t or a vector of tuple ids' : null;
    case D_REPAIR_ACK:
      return !Array.isArray(f[3]) || !f[3].every((/** @type {any} */ t) => Array.isArray(t) && t.length === 3 && isId(t[0]) && isNode(t[1]) && isTuple(t[2])) ? 'tuples are [id owner tuple] vectors'
        : !Array.isArray(f[4]) || !f[4].every(isId) ? 'deleted ids are a vector of ids'
        : !Array.isArray(f[5]) || !f[5].every(isNode) || f[5].length > MAX_MEMBERS ? 'members are a vector of node ids'
        : typeof f[6] !== 'boolean' ? 'join? is a boolean' : null;
    default: return typeof f[3] !== 'string' ? 'a reason is a string' : null;
  }
}

/** The node that made tuple `id` (ids are `node/boot/serial`). @param {string} id */
export function creatorOf(id) {
  const i = id.indexOf('/');
  return i < 0 ? '' : id.slice(0, i);
}

/**
 * Act on one well-formed DTS message.
 * @param {any} d @param {Replica} rep @param {string} from @param {number} sub @param {any[]} f
 * @param {(why: string) => void} refuse
 */
function handle(d, rep, from, sub, f, refuse) {
  const self = d.node.id;
  const restricted = d.restricted.size > 0 && d.restricted.has(from);
  switch (sub) {
    case D_OUT:
      if (creatorOf(f[3]) !== from) return refuse(`OUT of ${refuseWhy(rep, f[3])}: only the node that made a tuple announces it`);
      // a restricted peer may name this node the owner (the RPC optimisation) or itself;
      // another owner it names is not believed: the tuple is taken as its own
      learn(d, rep, f[3], restricted && f[4] !== self ? from : f[4], f[5]);
      return;
    case D_IN:
      rep.noteRemoteIn(from, f[3], f[4]);
      return;
    case D_RD: {
      const r = rep.space.rdpBytes(f[3]);
      const id = r === undefined ? null : rep.pick(r);
      if (id !== null) dtsSend(d, from, [F_DTS, D_REPAIR_ACK, rep.name, [[id, rep.tuples.get(id)?.owner, r]], [], [], false]);
      return;
    }
    case D_CHOWN_REQ:
      return chownRequested(d, rep, from, f[3], f.length === LENGTHS[sub] && f[4] !== false ? f[4] : null);
    case D_CHOWN_ACK:
      return chownAnswered(d, rep, from, f[3], f[4]);
    case D_DELETE: {
      const [, , , id, req] = f;
      if (req !== false) rep.dropRemoteIn(`${from}/${req}`);
      if (id === false) return;
      const t = rep.tuples.get(id);
      if (restricted && t !== undefined && t.owner !== from) return refuse(`DELETE of ${refuseWhy(rep, id)}: a restricted peer withdraws only tuples it owns`);
      if (t !== undefined) rep.noteTaker(from, t.bytes);
      deleted(rep, id);
      return;
    }
    case D_ACCESS: {
      claimAdopted(d, rep, from); // first: what follows on this link finds the owners agreed
      const unknown = f[3].filter((/** @type {string} */ id) => !rep.tuples.has(id) && !rep.deleted.has(id));
      const gone = f[3].filter((/** @type {string} */ id) => rep.deleted.has(id));
      if (unknown.length > 0) dtsSend(d, from, [F_DTS, D_REPAIR_REQ, rep.name, unknown]);
      if (gone.length > 0) dtsSend(d, from, [F_DTS, D_REPAIR_ACK, rep.name, [], gone, [], false]);
      if (f[4]) dtsSend(d, from, [F_DTS, D_ACCESS, rep.name, [...rep.tuples.keys()], false]);
      else if (rep.joinPending.has(from)) joinAnswered(rep, from); // its withdrawals came before it (same link)
      return;
    }
    case D_REPAIR_REQ: {
      if (f[3] === true) {
        dtsSend(d, from, [F_DTS, D_REPAIR_ACK, rep.name, rep.liveTuples(), [...rep.deleted], [...rep.members].filter((m) => m !== from), true]);
        for (const [req, template] of rep.myIns) dtsSend(d, from, [F_DTS, D_IN, rep.name, req, template]); // the joiner learns who waits here (the RPC optimisation)
        return;
      }
      /** @type {any[]} */
      const have = [];
      for (const id of f[3]) {
        const t = rep.tuples.get(id);
        if (t !== undefined) have.push([id, t.owner, t.bytes]);
      }
      const gone = f[3].filter((/** @type {string} */ id) => rep.deleted.has(id));
      if (have.length > 0 || gone.length > 0) dtsSend(d, from, [F_DTS, D_REPAIR_ACK, rep.name, have, gone, [], false]);
      return;
    }
    case D_REPAIR_ACK:
      return repaired(d, rep, from, f, restricted, refuse);
    default: // D_REFUSED: the join of a space its home does not hold
      if (from !== rep.home && !rep.ready) return joinAnswered(rep, from); // a member that left it: not waited for
      if (from !== rep.home || rep.ready) return;
      replicas(d.node).delete(rep.name);
      rep.dispose();
      rep.failed = `the distributed space ${rep.name} cannot be joined: ${String(f[3]).slice(0, 200)}`;
      wakeJoiners(rep);
  }
}

/**
 * A tuple this replica hears of (OUT, REPAIR_ACK): cached, and an ownership request
 * that waited for it is answered.
 * @param {any} d @param {Replica} rep @param {string} id @param {string} owner @param {Uint8Array} bytes
 */
function learn(d, rep, id, owner, bytes) {
  if (rep.add(id, owner, bytes)) d.node.pokeAfterTask(); // a waiter woken by a frame runs at the end of this task
  const waiting = rep.pendingChown.get(id);
  if (waiting !== undefined) {
    rep.pendingChown.delete(id);
    for (const who of waiting) chownRequested(d, rep, who, id);
  }
}

/** @param {Replica} rep @param {string} id */
function deleted(rep, id) {
  const a = rep.acquiring.get(id);
  rep.remove(id);
  if (a !== undefined) {
    rep.acquiring.delete(id);
    a.settle(false);
  }
}

/**
 * A member asks for the ownership of `id`: granted if this node owns it (and has not
 * withdrawn it), else answered with the owner this node knows; an id not known yet is
 * asked for (REPAIR_REQ) and the request answered when it comes. When this node cannot
 * grant `id` (withdrawn, or handed on) and the request names its
 * template, another match this node owns is granted instead (substitute): workers that
 * ask for the same oldest tasks each get one, rather than a redirection each.
 * @param {any} d @param {Replica} rep @param {string} from @param {string} id
 * @param {Uint8Array | null} [template]
 */
function chownRequested(d, rep, from, id, template = null) {
  const self = d.node.id;
  if (rep.deleted.has(id)) {
    if (template !== null) substitute(d, rep, from, template); // first: it arrives before the answer
    return dtsSend(d, from, [F_DTS, D_DELETE, rep.name, id, false]);
  }
  const t = rep.tuples.get(id);
  if (t === undefined) {
    const q = rep.pendingChown.get(id) ?? [];
    if (q.length === 0) dtsSend(d, from, [F_DTS, D_REPAIR_REQ, rep.name, [id]]);
    if (q.length < 64 && rep.pendingChown.size < 10000) q.push(from);
    rep.pendingChown.set(id, q);
    return;
  }
  if (t.owner !== self || t.state !== LIVE) {
    if (template !== null) substitute(d, rep, from, template);
    return dtsSend(d, from, [F_DTS, D_CHOWN_ACK, rep.name, id, t.owner]);
  }
  rep.setOwner(t, from);
  t.adoptedFrom = undefined;
  rep.noteTaker(from, t.bytes); // it takes tuples of this kind: the next ones made here go to it
  dtsSend(d, from, [F_DTS, D_CHOWN_ACK, rep.name, id, from]);
}

/**
 * Grant `from` a live match of `template` that this node owns, in place of a tuple it
 * asked for and this node cannot give: a REPAIR_ACK naming it the owner (it carries the
 * tuple, so a member whose OUT has not arrived yet learns it too). Sent before the
 * answer about the tuple asked for, on the same link, so the requester that looks again
 * finds the match its own. A restricted peer is handed nothing it did not ask for.
 * @param {any} d @param {Replica} rep @param {string} from @param {Uint8Array} template
 */
function substitute(d, rep, from, template) {
  if (rep.restricted(from)) return;
  let r;
  try {
    r = rep.ownedMatch(template);
  } catch {
    return; // a template the core refuses matches nothing
  }
  const id = r === undefined ? null : rep.pick(r);
  const t = id === null ? undefined : rep.tuples.get(id);
  if (id === null || t === undefined || t.owner !== d.node.id || t.state !== LIVE) return;
  rep.setOwner(t, from);
  t.adoptedFrom = undefined;
  rep.noteTaker(from, t.bytes);
  dtsSend(d, from, [F_DTS, D_REPAIR_ACK, rep.name, [[id, from, t.bytes]], [], [], false]);
}

/**
 * The answer to this node's ownership request: the waiting process takes the tuple
 * (owner is this node), asks the owner named (at most MAX_HOPS times), or looks again.
 * @param {any} d @param {Replica} rep @param {string} from @param {string} id @param {string | false} owner
 */
function chownAnswered(d, rep, from, id, owner) {
  const self = d.node.id;
  const t = rep.tuples.get(id);
  const a = rep.acquiring.get(id);
  if (t !== undefined && owner !== false) rep.setOwner(t, owner);
  if (a === undefined || a.asked !== from) return;
  if (owner === self) {
    rep.acquiring.delete(id);
    return a.settle(true);
  }
  if (owner === false || a.hops >= MAX_HOPS || !d.mesh.isReachable(owner)) {
    rep.acquiring.delete(id);
    if (owner === false) rep.remove(id); // its owner has no such tuple: it was withdrawn
    else rep.release(id);
    return a.settle(false);
  }
  if (a.template !== undefined && ownsMatch(rep, a.template)) {
    // a substitute arrived (or another grant): the waiting process takes it, no hop
    rep.acquiring.delete(id);
    rep.release(id);
    return a.settle(false);
  }
  a.hops++;
  a.asked = owner;
  dtsSend(d, owner, [F_DTS, D_CHOWN_REQ, rep.name, id, a.template ?? false]);
}

/** Whether this node owns a live match of the template. @param {Replica} rep @param {Uint8Array} template */
function ownsMatch(rep, template) {
  try {
    return rep.ownedMatch(template) !== undefined;
  } catch {
    return false;
  }
}

/**
 * A REPAIR_ACK: unknown tuples cached, withdrawn ones dropped, members met (a joiner
 * asks each new member for its state too: they learn of it that way), the join done.
 * @param {any} d @param {Replica} rep @param {string} from @param {any[]} f @param {boolean} restricted
 * @param {(why: string) => void} refuse
 */
function repaired(d, rep, from, f, restricted, refuse) {
  for (const [id, owner, bytes] of f[3]) {
    if (restricted && !(creatorOf(id) === from && owner === from) && !(owner === d.node.id && rep.tuples.get(id)?.owner === from)) {
      refuse(`REPAIR_ACK of ${refuseWhy(rep, id)}: a restricted peer repairs only its own tuples`);
      continue;
    }
    learn(d, rep, id, owner, bytes);
  }
  if (!restricted) for (const id of f[4]) deleted(rep, id);
  for (const m of f[5]) {
    if (m === d.node.id || rep.members.size >= MAX_MEMBERS || !d.mesh.isReachable(m)) continue;
    const known = rep.members.has(m);
    rep.members.add(m);
    if (!rep.ready && !rep.joinAsked.has(m)) {
      // joining: the member is told which tuples came from the home (ACCESS), and answers
      // with the ones of those it knows withdrawn, then with its own ids (the ones the
      // joiner lacks are asked for): not every tuple again from every member
      rep.joinAsked.add(m);
      rep.joinPending.add(m);
      dtsSend(d, m, [F_DTS, D_ACCESS, rep.name, [...rep.tuples.keys()], true]);
      continue;
    }
    if (known) continue;
    dtsSend(d, m, [F_DTS, D_REPAIR_REQ, rep.name, true]);
  }
  if (f[6]) joinAnswered(rep, from);
}

/**
 * A join answer (or a refusal, or a departure) from `from`. Withdrawals go on once the
 * home has answered; the joiner is ready once the home and every member the home named
 * have answered: a member's answer carries the
 * tuples it withdrew (its tombstones), which the home's answer may predate — a process
 * that learned of a withdrawal (from the member that made it) and then joins never
 * finds the tuple in its fresh replica.
 * @param {Replica} rep @param {string} from
 */
export function joinAnswered(rep, from) {
  if (rep.ready) return;
  rep.joinPending.delete(from);
  const first = from === rep.home && !rep.homeAnswered;
  if (from === rep.home) rep.homeAnswered = true;
  if (rep.homeAnswered && rep.joinPending.size === 0) {
    rep.ready = true;
    wakeJoiners(rep);
  } else if (first) { // withdrawals go on now (dts-operations.js readyReplica); reads wait again
    const w = rep.joinWaiters;
    rep.joinWaiters = [];
    for (const wake of w) wake();
  }
}

/** The processes that waited for the join go on. @param {Replica} rep */
export function wakeJoiners(rep) {
  if (rep.joinTimer !== undefined) clearTimeout(rep.joinTimer);
  rep.joinTimer = undefined;
  const w = rep.joinWaiters;
  rep.joinWaiters = [];
  for (const wake of w) wake();
}
