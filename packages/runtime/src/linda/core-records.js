// @ts-check
/**
 * Waiting operations with no process behind them, kept by the C core (docs/c-api.md,
 * "Waiter records"): an asynchronous `in-async`/`rd-async` on a space of this node
 * waits as a core record, in the space's one waiter list with the waiting processes, and
 * the `out` that serves it answers it from its own path — no helper process.
 *
 * Invariants:
 *  - every record the core holds for a space of this node is in `byId` with its space,
 *    template and answer, and counted in `waiting` (so an `out` asks the core which
 *    records it served only while some wait);
 *  - a record leaves `byId` exactly once: served (its answer gets the out's tuple), or
 *    cancelled (the core says whether it was still waiting: a cancel that finds it
 *    served changes nothing, the answer has been given);
 *  - an `in` record's answer that cannot be delivered (its process ended on this node)
 *    puts the tuple back into the space: no tuple is lost.
 */

/**
 * @typedef {object} CoreRecord
 * @property {string} name its space
 * @property {Uint8Array} template
 * @property {boolean} remove an `in` (else an `rd`)
 * @property {(bytes: Uint8Array) => boolean} answer hands the tuple over; false: nobody took it
 */
import { abandonRemoteAsync } from './remote-spaces.js';
import { cancelDtsAsync, DTS_ASYNC_BASE } from './dts-async.js'; // (it imports this file too: only functions cross, at call time)

let lastId = 0;

/** @param {any} node @returns {{byId: Map<number, CoreRecord>, waiting: number}} */
function recordsOf(node) {
  if (node.coreRecords === undefined) node.coreRecords = { byId: new Map(), waiting: 0 };
  return node.coreRecords;
}

/** A fresh record id, nonzero and not in use (ids wrap at 2^32). @param {Map<number, CoreRecord>} byId */
function freshId(byId) {
  for (let i = 0; i < 1024; i++) {
    lastId = lastId >= 0xffffffff ? 1 : lastId + 1;
    if (!byId.has(lastId)) return lastId;
  }
  throw new Error('too many waiting records');
}

/**
 * Wait on `space` as a record. Returns the matching tuple at once (an `in` took it) or
 * the record's id, to cancel it with.
 * @param {any} node @param {string} name @param {any} space its core space
 * @param {Uint8Array} template @param {boolean} remove @param {number} priority
 * @param {number} deadline @param {(bytes: Uint8Array) => boolean} answer
 * @returns {Uint8Array | number}
 */
export function waitRecord(node, name, space, template, remove, priority, deadline, answer) {
  const r = recordsOf(node);
  const id = freshId(r.byId);
  const got = space.waitRecordBytes(template, id, remove, priority, deadline);
  if (got instanceof Uint8Array) return got;
  r.byId.set(id, { name, template, remove, answer });
  r.waiting++;
  return id;
}

/**
 * Stop waiting record `id`: true if it was still waiting (now gone), false if it was
 * served already (its answer has the tuple) or is unknown.
 * @param {any} node @param {number} id
 */
export function cancelRecord(node, id) {
  const r = node.coreRecords;
  const rec = r?.byId.get(id);
  if (rec === undefined) return false;
  r.byId.delete(id);
  r.waiting--;
  const space = node.spaces.get(rec.name);
  return space !== undefined && space.cancelRecordBytes(rec.template, id);
}

/**
 * After an `out` of `bytes` into `space`: answer the records the core served with it.
 * An `in` whose answer finds nobody puts the tuple back (through putBack).
 * @param {any} node @param {any} space @param {Uint8Array} bytes
 * @param {(node: any, name: string, bytes: Uint8Array) => void} putBack
 */
export function answerServedRecords(node, space, bytes, putBack) {
  const r = node.coreRecords;
  if (r === undefined || r.waiting === 0) return;
  const ids = space.wokenRecords();
  for (const id of ids) {
    const rec = r.byId.get(id);
    if (rec === undefined) continue;
    r.byId.delete(id);
    r.waiting--;
    if (!rec.answer(bytes) && rec.remove) putBack(node, rec.name, bytes);
  }
}

/**
 * Cancel the records a process left waiting when it ends (asynchronous operations it
 * never collected), so they hold no room in the space. A negative id is a pending
 * request on another node's space (its number, negated: linda/remote-spaces.js), which
 * that node is told to drop.
 * @param {any} node @param {any} proc
 */
export function cancelRecordsOf(node, proc) {
  const ids = proc.asyncRecords;
  if (ids === undefined || ids === null) return;
  proc.asyncRecords = null;
  for (const id of ids) {
    if (id < 0) abandonRemoteAsync(node.remote, -id);
    else if (id >= DTS_ASYNC_BASE) cancelDtsAsync(node, id); // a distributed space's (linda/dts-async.js)
    else cancelRecord(node, id);
  }
}

/**
 * A waiting operation from another node (linda/remote-spaces.js) as a core record, so
 * the home serves it in one order with its own waiting processes. The operation found no tuple in this turn, so it waits.
 * @param {any} node @param {{name: string, template: Uint8Array, remove: boolean, priority: number, answer: (bytes: Uint8Array) => void}} r
 * @returns {{id: number}}
 */
export function addRecord(node, r) {
  const space = node.spaces.get(r.name);
  const answer = (/** @type {Uint8Array} */ bytes) => {
    r.answer(bytes);
    return true;
  };
  const got = waitRecord(node, r.name, space, r.template, r.remove, r.priority, Infinity, answer);
  if (got instanceof Uint8Array) {
    answer(got);
    return { id: 0 };
  }
  return { id: got };
}

/** Drop a record made by addRecord (timed out, or its requester gone). @param {any} node @param {{id: number}} rec */
export function dropRecord(node, rec) {
  if (rec !== null && rec.id !== 0) cancelRecord(node, rec.id);
}
