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
 *  - per-link order is kept: every frame this node gives the mesh for a member goes
 *    through `mesh.send` or `mesh.request` unless it waits in that member's outbox
 *    (send-queue.js), and an outbox is made only by a `mesh.send` the mesh refused. While
 *    a batch is pending, both methods of the node's mesh are wrapped so that the
 *    destination's batch leaves first; while any outbox exists, nothing is batched (a DTS
 *    message goes at once, behind the outbox's frames). So a `!`, a request or any other
 *    frame sent after a DTS operation never overtakes its messages;
 *  - a batch leaves at the latest at the end of the task that made it (queued as a
 *    microtask when it is started: before a request's answer that the same task
 *    resolved), or when it holds MAX_BATCH messages or MAX_BATCH_BYTES tuple bytes;
 *  - a batch of one message leaves as the plain frame (what earlier nodes expect of a
 *    lone message);
 *  - the wrappers are installed only while a batch is pending (the method's own property
 *    is set back to the mesh's own method when the last batch leaves): no cost on the
 *    send path outside a DTS task.
 */

export const F_DTS = 34;
export const D_BATCH = 11;
/** messages in one batch frame (a receiver refuses more) */
export const MAX_BATCH = 512;
/** tuple bytes gathered in one batch before it leaves */
const MAX_BATCH_BYTES = 256 * 1024;

/**
 * @typedef {object} Batches
 * @property {Map<string, {msgs: any[][], bytes: number}>} pending by destination
 * @property {boolean} scheduled whether the end-of-task flush is queued
 * @property {any} mesh @property {Function} send @property {Function} request the mesh's own methods
 */

/** @param {any} d a Distribution @returns {Batches} */
function batches(d) {
  if (d.dtsBatches === undefined) {
    const mesh = d.mesh;
    d.dtsBatches = { pending: new Map(), scheduled: false, mesh, send: mesh.send, request: mesh.request };
  }
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
    if (b.pending.size === 0) install(d, b);
    b.pending.set(to, (q = { msgs: [], bytes: 0 }));
  }
  q.msgs.push(frame);
  for (let i = 3; i < frame.length; i++) if (frame[i] instanceof Uint8Array) q.bytes += frame[i].length;
  if (q.msgs.length >= MAX_BATCH || q.bytes >= MAX_BATCH_BYTES) flushTo(d, b, to);
  if (!b.scheduled) {
    b.scheduled = true;
    queueMicrotask(() => {
      b.scheduled = false;
      flushAll(d);
    });
  }
}

/** While batches are pending, a frame to a member lets that member's batch leave first. @param {any} d @param {Batches} b */
function install(d, b) {
  const mesh = b.mesh;
  mesh.send = function (/** @type {string} */ to, /** @type {Uint8Array} */ payload, /** @type {number} */ spare) {
    if (b.pending.has(to)) flushTo(d, b, to);
    return b.send.call(mesh, to, payload, spare);
  };
  mesh.request = function (/** @type {string} */ to, /** @type {Uint8Array} */ payload, /** @type {any} */ options) {
    if (b.pending.has(to)) flushTo(d, b, to);
    return b.request.call(mesh, to, payload, options);
  };
}

/** @param {Batches} b */
function uninstall(b) {
  b.mesh.send = b.send;
  b.mesh.request = b.request;
}

/** Every pending batch leaves. @param {any} d */
export function flushAll(d) {
  const b = /** @type {Batches | undefined} */ (d.dtsBatches);
  if (b === undefined) return;
  for (const to of [...b.pending.keys()]) flushTo(d, b, to);
}

/** The batch for `to` leaves (before anything else is sent to it). @param {any} d @param {Batches} b @param {string} to */
function flushTo(d, b, to) {
  const q = b.pending.get(to);
  if (q === undefined) return;
  b.pending.delete(to);
  if (b.pending.size === 0) uninstall(b);
  if (q.msgs.length === 1) {
    d.emit(to, q.msgs[0]);
    return;
  }
  d.emit(to, [F_DTS, D_BATCH, '', q.msgs.map((m) => m.slice(1))]);
}
