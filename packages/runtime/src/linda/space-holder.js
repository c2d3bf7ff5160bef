// @ts-check
/**
 * The holder's side of operations on this node's spaces by other nodes (remote-spaces.js
 * has the requester's side, the frames and their numbers): a SPACE_OP checked and
 * served, a blocking one left as a waiter record (core-records.js) with its timer, a
 * tuple withdrawn for a peer kept until that peer's ACK.
 *
 * Invariants:
 *  - a withdrawn tuple is kept per requesting peer by request number (`unacked`) until
 *    its ACK: #t makes the withdrawal final, #f — or the peer going away — puts it back;
 *  - a record holds no tuple: stopping it (cancel, peer gone, timeout) loses nothing;
 *  - what one peer can make this node keep is bounded: MAX_WAITING waiting records and
 *    MAX_UNACKED withdrawn tuples; refusals are logged at most once a second.
 */
import { SchemeError } from '@termite/scheme';
import { coreSpace, declareSpace, putTuple, putBackTuple, noteWithdrawn, spaceTable, kindOf } from './space-table.js';
import { addRecord, dropRecord } from './core-records.js';
import { state, refuseSpace, OP, F_SPACE_REPLY, S_VALUE, S_TAKEN, S_READ, S_TIMEOUT, S_ERROR } from './remote-spaces.js';

/** @typedef {import('../distribution.js').Distribution} Distribution */

const OP_NAMES = [null, 'out', 'inp', 'rdp', 'in', 'rd', 'count', 'make'];
/** operations (waiter records) a peer may keep waiting on this node */
export const MAX_WAITING = 10000;
/** withdrawn tuples a peer may leave unacknowledged */
export const MAX_UNACKED = 10000;
const MAX_NAME = 256;
/** every process's priority (linda/qos.js), and a request's when it carries none */
const PRIORITY_DEFAULT = 2;

/**
 * A SPACE_OP from `from`: checked, then served; a refusal is answered with its reason.
 * @param {Distribution} d @param {string} from @param {any[]} f the decoded frame, its environment list last
 * @returns {void}
 */
export function onSpaceOp(d, from, f) {
  const [, n, op, name, kind, bytes, timeoutMs] = f;
  const priority = f.length === 9 ? f[7] : PRIORITY_DEFAULT; // the environment list is last
  const why = f.length !== 8 && f.length !== 9 ? 'it is not [30, n, op, name, kind, bytes, timeout(, priority)]'
    : !Number.isInteger(op) || OP_NAMES[op] == null ? `unknown operation ${op}`
    : typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME ? `the space name must be a string of 1 to ${MAX_NAME} characters`
    : kind !== 'local' && kind !== 'central' ? 'the space kind must be local or central'
    : op !== OP.make && !(bytes instanceof Uint8Array) ? 'the tuple or template must be a bytevector'
    : timeoutMs !== false && !(typeof timeoutMs === 'number' && timeoutMs >= 0) ? 'the timeout must be #f or a non-negative number of milliseconds'
    : !Number.isInteger(priority) || priority < 0 || priority > 3 ? 'the priority must be 0, 1, 2 or 3'
    : null;
  if (why !== null) {
    refuseSpace(d, from, `malformed SPACE_OP frame: ${why}`);
    if (n > 0) d.emit(from, [F_SPACE_REPLY, n, S_ERROR, `malformed space request: ${why}`]);
    return;
  }
  if (n === 0 && op !== OP.out) return refuseSpace(d, from, 'malformed SPACE_OP frame: only an out may go unanswered (request number 0)');
  try {
    serve(d, from, n, op, name, kind, bytes, timeoutMs, priority);
  } catch (e) {
    const msg = e instanceof SchemeError ? e.payload?.message ?? String(e) : e instanceof Error ? e.message : String(e);
    if (n === 0) return refuseSpace(d, from, `out to the space ${name} refused: ${msg}`); // logged here, an ERROR frame there
    logRefusal(d, `space request from ${from.slice(0, 12)} refused: ${msg}`);
    d.emit(from, [F_SPACE_REPLY, n, S_ERROR, `${OP_NAMES[op]}: ${msg}`]);
  }
}

/**
 * A SPACE_CANCEL: the requesting process ended, stop waiting for it.
 * @param {Distribution} d @param {string} from @param {any[]} f
 */
export function onSpaceCancel(d, from, f) {
  if (f.length !== 3) return refuseSpace(d, from, 'malformed SPACE_CANCEL frame');
  const st = state(d);
  const k = `${from}/${f[1]}`;
  const job = st.jobs.get(k);
  if (job !== undefined) stopJob(d, st, k, job); // not waiting (answered already): nothing to do
}

/**
 * A peer went away: its waiter records stop, the tuples it withdrew go back.
 * @param {Distribution} d @param {any} st @param {string} id
 */
export function holderPeerDown(d, st, id) {
  for (const [k, job] of st.jobs) if (job.from === id) stopJob(d, st, k, job);
  const c = st.perPeer.get(id);
  st.perPeer.delete(id);
  if (c !== undefined) {
    st.nunacked -= c.unacked.size;
    for (const u of c.unacked.values()) putBackTuple(d.node, u.name, u.bytes);
  }
}

/** Add to `peers` every peer this node serves (waiting records, unacked tuples). @param {any} st @param {Set<string>} peers */
export function holderPeers(st, peers) {
  for (const job of st.jobs.values()) peers.add(job.from);
  for (const [id, c] of st.perPeer) if (c.unacked.size > 0) peers.add(id);
}

/** Log a request refused with an error answer, at most once a second. @param {any} d @param {string} line */
function logRefusal(d, line) {
  const w = state(d).answered;
  const now = Date.now();
  if (now - w.since < 1000) {
    w.count++;
    return;
  }
  if (w.count > 0) d.log(`${w.count} more space requests refused in the last second (not logged one by one)`);
  w.since = now;
  w.count = 0;
  d.log(line);
}

/** A requesting peer's waiting records, and its withdrawn tuples not yet acknowledged by request number (an ACK finds its tuple by number, no key string built per request). @typedef {{waiting: number, unacked: Map<number, {name: string, bytes: Uint8Array}>}} PeerCount */
/** @param {any} st @param {string} peer @returns {PeerCount} */
function peerCount(st, peer) {
  let c = st.perPeer.get(peer);
  if (c === undefined) st.perPeer.set(peer, (c = { waiting: 0, unacked: new Map() }));
  return c;
}

/**
 * Run a request on a space of this node and answer it (or leave a waiter record).
 * @param {Distribution} d @param {string} from @param {number} n @param {number} op @param {string} name
 * @param {string} kind @param {Uint8Array} bytes @param {number | false} timeoutMs @param {number} priority
 */
function serve(d, from, n, op, name, kind, bytes, timeoutMs, priority) {
  const node = d.node;
  const st = state(d);
  // a restricted peer reaches only the spaces it was given or made (distribution/capabilities.js)
  if (d.restricted.size > 0 && d.restricted.has(from)) {
    const allowed = op === OP.make ? d.mayMakeSpace(from, name, spaceTable(node).info.has(name)) : d.maySpace(from, name);
    if (!allowed) throw new Error(`${from.slice(0, 12)} is a restricted peer and the space ${name} was not given to it`);
  }
  if (kindOf(node, name) === 'distributed') throw new Error(`the space ${name} is distributed here: its operations run on each node's replica`);
  if (op === OP.make) {
    const k = declareSpace(node, name, kind);
    d.emit(from, [F_SPACE_REPLY, n, S_VALUE, k]);
    return;
  }
  const space = coreSpace(node, name, kind);
  const c = peerCount(st, from);
  switch (op) {
    case OP.out:
      checkTuple(bytes);
      coreCall(() => putTuple(node, name, space, bytes));
      // a process of this node the tuple woke runs at the end of this frame's task
      // (runArrivedNow), as for a delivered message: its answer — an RPC server's
      // response `out` — then leaves in this task's held write, not a task later
      node.pokeAfterTask();
      if (n > 0) d.emit(from, [F_SPACE_REPLY, n, S_VALUE, true]);
      return;
    case OP.count:
      d.emit(from, [F_SPACE_REPLY, n, S_VALUE, coreCall(() => space.countBytes(bytes))]);
      return;
    case OP.rdp: case OP.rd: {
      const r = coreCall(() => space.rdpBytes(bytes));
      if (r !== undefined) d.emit(from, [F_SPACE_REPLY, n, S_READ, r]);
      else if (op === OP.rdp) d.emit(from, [F_SPACE_REPLY, n, S_VALUE, false]);
      else wait(d, st, c, from, n, false, name, bytes, timeoutMs, priority);
      return;
    }
    default: { // inp, in
      if (c.unacked.size >= MAX_UNACKED) throw new Error(`this peer has ${MAX_UNACKED} withdrawn tuples not yet acknowledged`);
      const r = coreCall(() => space.inpBytes(bytes));
      if (r !== undefined) handOver(d, st, from, n, name, r);
      else if (op === OP.inp) d.emit(from, [F_SPACE_REPLY, n, S_VALUE, false]);
      else wait(d, st, c, from, n, true, name, bytes, timeoutMs, priority);
    }
  }
}

/** A tuple is a CBOR array (the core checks its fields, formals included: S/Net allows them in tuples). @param {Uint8Array} bytes */
function checkTuple(bytes) {
  if (bytes.length < 1 || (bytes[0] & 0xe0) !== 0x80) throw new Error('a tuple is a CBOR array of its fields');
}

/** Core errors (a malformed template) as Errors with the core's message. @template T @param {() => T} f @returns {T} */
function coreCall(f) {
  try {
    return f();
  } catch (e) {
    if (e && typeof e === 'object' && 'status' in e) throw new Error(String(/** @type {any} */ (e).message));
    throw e;
  }
}

/**
 * A tuple withdrawn for a remote requester: kept until its node acknowledges it.
 * @param {Distribution} d @param {any} st @param {string} from @param {number} n @param {string} name @param {Uint8Array} bytes
 */
function handOver(d, st, from, n, name, bytes) {
  peerCount(st, from).unacked.set(n, { name, bytes });
  st.nunacked++;
  d.emit(from, [F_SPACE_REPLY, n, S_TAKEN, bytes]);
}

/** @param {Distribution} d @param {string} from @param {number} n @param {boolean} taken */
export function onAck(d, from, n, taken) {
  const st = state(d);
  const c = st.perPeer.get(from);
  const u = c?.unacked.get(n);
  if (c === undefined || u === undefined) return refuseSpace(d, from, `SPACE_ACK for request ${n}, which has no tuple waiting for it`);
  c.unacked.delete(n);
  st.nunacked--;
  if (taken) noteWithdrawn(d.node, u.name, u.bytes);
  else putBackTuple(d.node, u.name, u.bytes) // it is still in the log of a durable space;
}

/** the longest a timer may be armed for at once (setTimeout's limit): a longer wait re-arms */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Leave a waiter record at the home (core-records.js), at the requester's priority:
 * the matching `out` answers it from its own path; a timeout (or a deadline) is a timer
 * that drops the record and answers "timed out". No process waits for a remote peer.
 * @param {Distribution} d @param {any} st @param {{waiting: number}} c @param {string} from @param {number} n
 * @param {boolean} remove @param {string} name @param {Uint8Array} bytes @param {number | false} timeoutMs
 * @param {number} priority
 */
function wait(d, st, c, from, n, remove, name, bytes, timeoutMs, priority) {
  if (timeoutMs === 0) {
    d.emit(from, [F_SPACE_REPLY, n, S_TIMEOUT, false]);
    return;
  }
  if (c.waiting >= MAX_WAITING) throw new Error(`this peer has ${MAX_WAITING} operations waiting on this node's spaces`);
  const k = `${from}/${n}`;
  const job = { from, n, remove, name, record: /** @type {any} */ (null), timer: /** @type {any} */ (null) };
  st.jobs.set(k, job);
  c.waiting++;
  job.record = addRecord(d.node, {
    name, template: bytes, remove, priority,
    answer: (r) => {
      endJob(st, k, job);
      if (remove) handOver(d, st, from, n, name, r);
      else d.emit(from, [F_SPACE_REPLY, n, S_READ, r]);
    },
  });
  if (timeoutMs !== false) armTimeout(d, st, k, job, Date.now() + timeoutMs);
}

/**
 * The timeout of a waiting record: at `at` (wall-clock ms) the record is dropped and the
 * requester told "timed out"; a wait longer than a timer can hold re-arms.
 * @param {Distribution} d @param {any} st @param {string} k @param {any} job @param {number} at
 */
function armTimeout(d, st, k, job, at) {
  const left = at - Date.now();
  job.timer = setTimeout(() => {
    job.timer = null;
    if (st.jobs.get(k) !== job) return; // answered or stopped meanwhile
    if (left > MAX_TIMER_MS) return armTimeout(d, st, k, job, at);
    endJob(st, k, job);
    dropRecord(d.node, job.record);
    d.emit(job.from, [F_SPACE_REPLY, job.n, S_TIMEOUT, false]);
  }, Math.max(0, Math.min(left, MAX_TIMER_MS)));
  job.timer.unref?.(); // a peer's wait does not keep this node's process alive
}

/** @param {any} st @param {string} k @param {any} job */
function endJob(st, k, job) {
  st.jobs.delete(k);
  if (job.timer !== null) clearTimeout(job.timer);
  job.timer = null;
  const c = st.perPeer.get(job.from);
  if (c !== undefined) c.waiting--;
}

/**
 * Stop waiting for a requester that went away or cancelled (a record holds no tuple).
 * @param {Distribution} d @param {any} st @param {string} k @param {any} job
 */
function stopJob(d, st, k, job) {
  endJob(st, k, job);
  dropRecord(d.node, job.record);
}
