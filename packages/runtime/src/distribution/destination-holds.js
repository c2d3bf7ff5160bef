// @ts-check
/**
 * Frames this node holds back for a destination node, and the one rule that keeps
 * per-link order with them: what is held for a node leaves before anything else sent
 * to it (docs/architecture.md, "A message's journey", step 3).
 *
 * Two things hold frames back: an `out` to another node's space, held until the next
 * frame this node sends so that it can ride inside it (linda/remote-spaces.js), and a
 * DTS batch, the DTS messages of one task to one member gathered into one frame
 * (linda/dts-batch.js). Each registers a hold here with its own release (what it sends,
 * and how: the held `out` alone, the batch as one frame). Every path that gives the mesh
 * a frame for a node first releases the holds for that node: `emit` and `send`
 * (one-way-frames.js), `call` (remote-requests.js), a request's answer
 * (remote-requests.js onRequest, onRequestAsync), a forwarded frame, a HOP
 * (one-way-migration.js); and the run loop's end releases the held `out`
 * (scheduler.js).
 *
 * Invariants:
 *  - the holds of one destination are released in the order they were made, each once,
 *    after it has been removed (so the frames a release sends find nothing held for
 *    that node, and go straight to the mesh);
 *  - a hold marked `first` (the held `out`; at most one at a time) also leaves before a
 *    frame to any other node, and at the end of the run loop: no frame this node sends
 *    after the `out` overtakes it, wherever it goes;
 *  - a hold whose content left another way (the held `out` carried inside the next
 *    request to the same holder) is dropped without release (`dropHold`);
 *  - when nothing is held, every send path pays one test of `holdCount` (a number
 *    field): no Map lookup, no call.
 *
 * These functions are Distribution's methods (`this` is the Distribution).
 */

/** @typedef {import('../distribution.js').Distribution} Distribution */

/**
 * What a destination's hold keeps back, and how it leaves.
 * @typedef {object} Hold
 * @property {string} to the destination node id
 * @property {boolean} first whether it also leaves before a frame to any other node and at the end of the run loop
 * @property {() => void} release send what it holds (called once, after the hold is removed)
 */

/**
 * Hold frames for `hold.to` until the next frame to that node (or to any node, for a
 * `first` hold). @param {Hold} hold @this {Distribution}
 */
export function addHold(hold) {
  let list = this.holds.get(hold.to);
  if (list === undefined) this.holds.set(hold.to, (list = []));
  list.push(hold);
  this.holdCount++;
  if (hold.first) this.firstHold = hold;
}

/**
 * Forget a hold without releasing it (what it held left another way). False when it
 * was not held (already released). @param {Hold} hold @this {Distribution}
 */
export function dropHold(hold) {
  const list = this.holds.get(hold.to);
  const i = list === undefined ? -1 : list.indexOf(hold);
  if (i < 0) return false;
  /** @type {Hold[]} */ (list).splice(i, 1);
  if (/** @type {Hold[]} */ (list).length === 0) this.holds.delete(hold.to);
  this.holdCount--;
  if (this.firstHold === hold) this.firstHold = null;
  return true;
}

/**
 * A frame is about to be given to the mesh for `to`: what is held for it leaves first,
 * and before it the `first` hold, wherever it goes. Callers test `holdCount !== 0`
 * before calling (the send path's whole cost when nothing is held).
 * @param {string} to @this {Distribution}
 */
export function releaseHolds(to) {
  const first = this.firstHold;
  if (first !== null && first.to !== to) this.releaseHoldsTo(first.to);
  this.releaseHoldsTo(to);
}

/** Every hold for `to` leaves, in the order they were made. @param {string} to @this {Distribution} */
export function releaseHoldsTo(to) {
  const list = this.holds.get(to);
  if (list === undefined) return;
  this.holds.delete(to);
  this.holdCount -= list.length;
  for (const hold of list) {
    if (hold === this.firstHold) this.firstHold = null;
    hold.release();
  }
}

/**
 * The run loop ended: the `first` hold (a held `out`) leaves, with the other holds for
 * the same node in their order, so it never waits past the loop that made it.
 * @this {Distribution}
 */
export function releaseFirstHold() {
  const first = this.firstHold;
  if (first !== null) this.releaseHoldsTo(first.to);
}
