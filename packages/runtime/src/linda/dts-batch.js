// @ts-check
/**
 * DTS batching (docs/linda.md, "Distributed spaces", batching): the DTS messages this
 * node sends one member during one task — a burst of `out`s, a withdrawal's DELETE and
 * the result's OUT, a request and the ones asked ahead — leave as one frame,
 * [34, 11, "", [[sub, space, ...] ...]], at the end of the task (a microtask), instead of
 * one frame each. The receiver handles the messages in order, as if they had come one
 * by one (dts-protocol.js, D_BATCH).
 *
 * Invariants:
 *  - per-link order is kept: a pending batch is a hold for its member
 *    (distribution/destination-holds.js), so every frame this node sends that member
 *    afterwards — a `!`, a request, a request's answer, a HOP — lets the batch leave
 *    first; while any outbox exists (send-queue.js), nothing is batched (a DTS message
 *    goes at once, behind the outbox's frames). So a frame sent after a DTS operation
 *    never overtakes its messages;
 *  - a batch leaves at the latest at the end of the task that made it (a microtask
 *    queued when it is started), or when it holds MAX_BATCH messages or MAX_BATCH_BYTES
 *    tuple bytes;
 *  - a batch of one message leaves as the plain frame (what earlier nodes expect of a
 *    lone message);
 *  - nothing of the mesh is replaced: outside a DTS task the send path pays only the
 *    holds' count test.
 */

export const F_DTS = 34;
export const D_BATCH = 11;
/** messages in one batch frame (a receiver refuses more) */
export const MAX_BATCH = 512;
/** tuple bytes gathered in one batch before it leaves */
const MAX_BATCH_BYTES = 256 * 1024;

/**
 * @typedef {object} Batch
 * @property {any[][]} msgs @property {number} bytes tuple bytes in msgs
 * @property {import('../distribution/destination-holds.js').Hold} hold
 */
/**
 * @typedef {object} Batches
 * @property {Map<string, Batch>} pending by destination
 * @property {boolean} scheduled whether the end-of-task flush is queued
 */

/** @param {any} d a Distribution @returns {Batches} */
function batches(d) {
  if (d.dtsBatches === undefined) d.dtsBatches = { pending: new Map(), scheduled: false };
  return d.dtsBatches;
}

/**
 * Send a DTS message to `to`, gathered with the others this task sends it.
 * @param {any} d a Distribution @param {string} to @param {any[]} frame [34, sub, space, ...] (no environment list)
 */
export function dtsSend(d, to, frame) {
  if (d.outboxes.size !== 0) {
    if (d.dtsBatches !== undefined && d.dtsBatches.pending.size !== 0) flushAll(d);
    d.emit(to, frame);
    return;
  }
  const b = batches(d);
  let q = b.pending.get(to);
  if (q === undefined) {
    /** @type {Batch} */
    const batch = { msgs: [], bytes: 0, hold: { to, first: false, release: () => sendBatch(d, b, batch) } };
    b.pending.set(to, (q = batch));
    d.addHold(batch.hold);
  }
  q.msgs.push(frame);
  for (let i = 3; i < frame.length; i++) if (frame[i] instanceof Uint8Array) q.bytes += frame[i].length;
  if (q.msgs.length >= MAX_BATCH || q.bytes >= MAX_BATCH_BYTES) d.releaseHoldsTo(to);
  if (!b.scheduled) {
    b.scheduled = true;
    queueMicrotask(() => {
      b.scheduled = false;
      flushAll(d);
    });
  }
}

/** Every pending batch leaves (with what was held for its member before it). @param {any} d */
export function flushAll(d) {
  const b = /** @type {Batches | undefined} */ (d.dtsBatches);
  if (b === undefined) return;
  for (const to of [...b.pending.keys()]) d.releaseHoldsTo(to);
}

/**
 * A batch's release: it leaves as one frame (the hold is already removed, so this
 * emit goes straight to the mesh). @param {any} d @param {Batches} b @param {Batch} q
 */
function sendBatch(d, b, q) {
  const to = q.hold.to;
  if (b.pending.get(to) === q) b.pending.delete(to);
  if (q.msgs.length === 1) {
    d.emit(to, q.msgs[0]);
    return;
  }
  d.emit(to, [F_DTS, D_BATCH, '', q.msgs.map((m) => m.slice(1))]);
}
