// @ts-check
/**
 * No silent loss of one-way frames: what happens when the mesh does not take a frame
 * (docs/mesh.md, "When the mesh cannot take a frame").
 *
 * `mesh.send` returns false when it refuses a frame, the reason going to 'send:error'
 * (kept in `sendError` for the caller that just got the false). By reason:
 *  - the queue to that node is full (QueueFullError): back-pressure. The frame waits
 *    in this node's outbox for the destination (`outboxes`), and so does every later
 *    frame to it, from any sender, until the mesh has taken them all, in order; a 'drain'
 *    for the destination (or a link or path change) sends what the queue has room for.
 *    A Scheme process whose `!` went to an outbox is suspended at its next reduction
 *    (prims-processes.js, scheduler.js holdSender) and resumed when its frames have all
 *    left (`resumeSender`). Bounded: an outbox that makes no progress for `timeoutMs`,
 *    or whose node becomes unreachable, fails (below); an outbox holds at most
 *    `maxOutboxBytes`, beyond which a `!` raises and other frames are dropped;
 *  - the frame can never be sent (larger than the mesh's frame limit): a `!` raises at
 *    once in the sender, naming the destination, the size and the limit; another frame
 *    is dropped;
 *  - the node is unreachable, or the mesh stopped: the frame is dropped ("send and
 *    pray": a process learns that a node is gone from exit signals of its links,
 *    remote-links.js, and from `process-alive?`; raising in every `!` racing with a
 *    node's failure would crash the supervisors that links exist for).
 * Every dropped frame is counted (`stats.dropped`) and logged, once per destination and
 * reason per LOSS_LOG_MS (`noteLoss`: a burst makes one line, then one line with how
 * many more). Frames that failed after waiting in an outbox are reported to each
 * sender that is a live process of this node as an exit signal (an error object of
 * kind `send`, raised where it is suspended, or else as its next slice starts:
 * scheduler.js runProcess; a sender that computes on without receiving learns it too),
 * and to JS senders through `whenSent`. It is not raised by the `!` itself: `!` is a
 * primitive that cannot suspend (it costs a direct call, the hot path), so a sender
 * whose frame waits is held at its next reduction — the first call after the `!` — and
 * the error comes up there, in the handlers in force at that point.
 *
 * The fast path costs one test of `outboxes.size` and the boolean `mesh.send` returns
 * (one-way-frames.js `send`); everything here runs only once the mesh refused a frame.
 *
 * These functions are Distribution's methods (`this` is the Distribution).
 */
import { R } from '@termite/scheme/internal';
import { ErrorObject, SchemeError, arrayToList } from '@termite/scheme';

/** @typedef {import('../distribution.js').Distribution} Distribution */
/** @typedef {import('../termite-values.js').Pid} Pid */
/** @typedef {import('../termite-node/process.js').Process} Process */

/** Window of the loss log: one line per destination and reason at most this often (ms). */
export const LOSS_LOG_MS = 1000;
/** Default bound on the bytes waiting in one destination's outbox. */
export const MAX_OUTBOX_BYTES = 64 * 1024 * 1024;

/**
 * Frames waiting for room in the mesh's queue to one node, in send order.
 * @typedef {object} Outbox
 * @property {string} to the destination node id
 * @property {Uint8Array[]} frames
 * @property {(Process|null)[]} senders the process of each frame's `!`, or null
 * @property {number} head index of the oldest frame not yet taken by the mesh
 * @property {number} bytes bytes in frames[head..]
 * @property {Set<Process>} holding processes with frames here (resumed when it empties)
 * @property {Array<(e: Error | null) => void>} waiters JS senders (whenSent)
 * @property {number} progressAt Date.now() of its creation or last frame taken
 * @property {any} timer the stall check
 * @property {boolean} flushQueued
 */

/** @param {number} n */
const mib = (n) => `${(n / 1048576).toFixed(n < 10 * 1048576 ? 1 : 0)} MiB`;

/**
 * Follow what the mesh says about frames it refused, and whatever may make room for an
 * outbox. @param {import('@termite/mesh').MeshPort} mesh @this {Distribution}
 */
export function watchRefusals(mesh) {
  mesh.on('send:error', (e) => this.meshRefused(e.id, e.error));
  mesh.on('peer:error', (e) => this.relayRefused(e.id, e.name, e.message));
  mesh.on('drain', (e) => this.outboxMayMove(e.id));
  mesh.on('link:down', (e) => this.outboxMayMove(e.id));
  mesh.on('peer:down', (e) => this.outboxMayMove(e.id));
  mesh.on('routes', () => {
    for (const to of this.outboxes.keys()) this.outboxMayMove(to);
  });
}

/**
 * The mesh's 'send:error': kept for the caller whose `mesh.send` just returned false
 * (refused, flushOutbox read and clear it). One nobody read by the end of the task was
 * not a refusal of a call of ours (the mesh gave up a frame it had accepted: one held
 * during a path switch): still counted and logged.
 * @param {string} to @param {Error} err
 * @this {Distribution}
 */
export function meshRefused(to, err) {
  this.sendError = err;
  queueMicrotask(() => {
    if (this.sendError !== err) return;
    this.sendError = null;
    this.noteLoss(to, err.name, err.message, 1);
  });
}

/** The mesh errors a relay returns for a routed frame it could not deliver. */
const RELAY_ERRORS = new Set(['UnreachableError', 'HopLimitError', 'QueueFullError']);

/**
 * A mesh ERROR from a peer: when it is a relay's report that a routed frame of ours
 * was not delivered, the frame is counted and logged as dropped (the mesh does not say
 * which frame, so no process can be told). @param {string} via @param {string} name
 * @param {string} message @this {Distribution}
 */
export function relayRefused(via, name, message) {
  if (RELAY_ERRORS.has(name)) this.noteLoss(via, name, `a routed frame was not delivered by ${via.slice(0, 12)}: ${message}`, 1);
}

/**
 * A frame to `to` when an outbox exists for some node: queue it behind that
 * destination's outbox if it has one (false), else give it to the mesh.
 * @param {string} to @param {Uint8Array} bytes
 * @this {Distribution}
 */
export function sendBehind(to, bytes) {
  if (this.outboxes.has(to)) return false;
  return this.mesh.send(to, bytes);
}

/**
 * The mesh did not take a frame (or an outbox for `to` exists): queue it, drop it or
 * raise. Returns false when it waits in the outbox (a `!`'s process should wait),
 * true when there is nothing to wait for. Throws a SchemeError for a `!` (`pid` given)
 * that can never be sent.
 * @param {string} to @param {Uint8Array} bytes
 * @param {Pid | null} pid the destination process of a `!` by the running code, else null
 * @this {Distribution}
 */
export function refused(to, bytes, pid) {
  const box = this.outboxes.get(to);
  const err = this.sendError;
  this.sendError = null;
  if (box !== undefined) return this.enqueue(box, bytes, pid);
  const name = err?.name ?? 'Error';
  if (name === 'QueueFullError') return this.enqueue(this.openOutbox(to), bytes, pid);
  const reason = err?.message ?? 'the mesh did not take it';
  this.noteLoss(to, name, reason, 1);
  if (pid !== null && name === 'FrameTooLargeError') {
    const limit = /** @type {any} */ (err).limit;
    throw new SchemeError(new ErrorObject(
      `message to process ${pid.n} on node ${to.slice(0, 12)} not sent: its frame of ${bytes.length} bytes (${mib(bytes.length)}) exceeds the mesh's limit of ${limit} bytes (${mib(limit)})`,
      arrayToList([pid]), 'send', '!'));
  }
  return true;
}

/** @param {string} to @returns {Outbox} @this {Distribution} */
export function openOutbox(to) {
  /** @type {Outbox} */
  const box = {
    to, frames: [], senders: [], head: 0, bytes: 0, holding: new Set(), waiters: [],
    progressAt: Date.now(), timer: null, flushQueued: false,
  };
  box.timer = setTimeout(() => this.outboxStalled(box), this.timeoutMs);
  box.timer.unref?.();
  this.outboxes.set(to, box);
  this.stats.backPressured++;
  return box;
}

/**
 * @param {Outbox} box @param {Uint8Array} bytes @param {Pid | null} pid as for refused
 * @this {Distribution}
 */
export function enqueue(box, bytes, pid) {
  if (box.bytes + bytes.length > this.maxOutboxBytes) {
    const reason = `${box.bytes} bytes already wait for room in the send queue to it (limit ${this.maxOutboxBytes})`;
    this.noteLoss(box.to, 'OutboxFullError', reason, 1);
    if (pid !== null) {
      throw new SchemeError(new ErrorObject(`message to process ${pid.n} on node ${box.to.slice(0, 12)} not sent: ${reason}`, arrayToList([pid]), 'send', '!'));
    }
    return true;
  }
  const owner = pid === null ? null : R.thread?.owner ?? null;
  const sender = owner !== null && owner.node === this.node ? /** @type {Process} */ (owner) : null;
  box.frames.push(bytes);
  box.senders.push(sender);
  box.bytes += bytes.length;
  this.stats.queued++;
  if (sender !== null) box.holding.add(sender);
  return false;
}

/**
 * Whether a process has frames waiting in an outbox (the scheduler then keeps it
 * suspended until they have left). @param {Process} proc @this {Distribution}
 */
export function mustWait(proc) {
  for (const box of this.outboxes.values()) if (box.holding.has(proc)) return true;
  return false;
}

/**
 * Something may have made room for `to` ('drain', a link or a path change): send what
 * its outbox can, in a microtask (never inside the mesh call that emitted the event).
 * @param {string} to @this {Distribution}
 */
export function outboxMayMove(to) {
  const box = this.outboxes.get(to);
  if (box === undefined || box.flushQueued) return;
  box.flushQueued = true;
  queueMicrotask(() => {
    box.flushQueued = false;
    if (this.outboxes.get(to) === box) this.flushOutbox(box);
  });
}

/**
 * Give the mesh the outbox's frames, oldest first, while it takes them. Empty: the
 * outbox closes and its senders resume. A refusal other than a full queue fails it.
 * @param {Outbox} box @this {Distribution}
 */
export function flushOutbox(box) {
  const frames = box.frames;
  let moved = false;
  for (; box.head < frames.length; box.head++) {
    const f = frames[box.head];
    if (!this.mesh.send(box.to, f)) {
      const err = this.sendError;
      this.sendError = null;
      if (err?.name === 'QueueFullError') break; // a 'drain' follows
      if (err?.name === 'FrameTooLargeError') {
        this.dropFrames(box, box.head, box.head + 1, err.name, err.message);
        continue;
      }
      this.failOutbox(box, err?.name ?? 'Error', err?.message ?? 'the mesh did not take it');
      return;
    }
    box.bytes -= f.length;
    frames[box.head] = /** @type {any} */ (undefined);
    box.senders[box.head] = null;
    moved = true;
  }
  if (moved) box.progressAt = Date.now();
  if (box.head === frames.length) {
    this.closeOutbox(box, null);
  } else if (box.head > 1024 && box.head * 2 > frames.length) {
    // an outbox under pressure for long: drop the slots already sent
    frames.splice(0, box.head);
    box.senders.splice(0, box.head);
    box.head = 0;
  }
}

/** The stall check: no progress for timeoutMs fails the outbox. @param {Outbox} box @this {Distribution} */
export function outboxStalled(box) {
  if (this.outboxes.get(box.to) !== box) return;
  this.flushOutbox(box);
  if (this.outboxes.get(box.to) !== box) return;
  const idle = Date.now() - box.progressAt;
  if (idle < this.timeoutMs) {
    box.timer = setTimeout(() => this.outboxStalled(box), this.timeoutMs - idle);
    box.timer.unref?.();
    return;
  }
  this.failOutbox(box, 'SendTimeoutError', `the send queue to it had no room for ${this.timeoutMs} ms`);
}

/**
 * Drop every frame still in the outbox, tell their senders, close it.
 * @param {Outbox} box @param {string} name @param {string} reason
 * @this {Distribution}
 */
export function failOutbox(box, name, reason) {
  const err = this.dropFrames(box, box.head, box.frames.length, name, reason);
  this.closeOutbox(box, err);
}

/**
 * Drop frames [from, to) of an outbox: counted, logged, and each live sending process
 * gets an exit signal saying how many of its messages were not sent.
 * @param {Outbox} box @param {number} from @param {number} to @param {string} name @param {string} reason
 * @this {Distribution}
 */
export function dropFrames(box, from, to, name, reason) {
  /** @type {Map<Process, number>} */
  const bySender = new Map();
  for (let i = from; i < to; i++) {
    const s = box.senders[i];
    if (s !== null) bySender.set(s, (bySender.get(s) ?? 0) + 1);
    box.bytes -= box.frames[i].length;
    box.frames[i] = /** @type {any} */ (undefined);
    box.senders[i] = null;
  }
  this.noteLoss(box.to, name, reason, to - from);
  const node12 = box.to.slice(0, 12);
  for (const [proc, n] of bySender) {
    if (!proc.alive) continue;
    const msg = `${n} message${n === 1 ? '' : 's'} to node ${node12} not sent: ${reason}`;
    // raised where it waits for room, or as its next slice starts (scheduler.js: a
    // sender that runs on may never reach a receive)
    this.node.signal(proc.pid, new ErrorObject(msg, arrayToList([this.nodeRefOf(box.to)]), 'send', '!'));
  }
  return new Error(`${to - from} frame${to - from === 1 ? '' : 's'} to node ${node12} not sent: ${reason}`);
}

/**
 * The outbox is empty (err null) or failed: forget it, resume its senders.
 * @param {Outbox} box @param {Error | null} err
 * @this {Distribution}
 */
export function closeOutbox(box, err) {
  if (this.outboxes.get(box.to) === box) this.outboxes.delete(box.to);
  clearTimeout(box.timer);
  for (const proc of box.holding) this.node.resumeSender(proc);
  box.holding.clear();
  for (const w of box.waiters) w(err);
  box.waiters.length = 0;
}

/**
 * A promise that settles once every frame now waiting for the node of `pid` has left
 * (at once when none waits), rejected if they were dropped: how a JS sender waits
 * after a send returned false. @param {Pid} pid @returns {Promise<void>} @this {Distribution}
 */
export function whenSent(pid) {
  const box = this.outboxes.get(this.whereIs(pid));
  if (box === undefined) return Promise.resolve();
  return new Promise((resolve, reject) => box.waiters.push((e) => (e === null ? resolve() : reject(e))));
}

/**
 * Count dropped frames and log them: the first of a burst at once, the rest of the
 * window in one line at its end.
 * @param {string} to @param {string} name @param {string} reason @param {number} n
 * @this {Distribution}
 */
export function noteLoss(to, name, reason, n) {
  this.stats.dropped += n;
  const k = `${name} ${to}`;
  const seen = this.losses.get(k);
  if (seen !== undefined) {
    seen.count += n;
    return;
  }
  this.log(`${n} frame${n === 1 ? '' : 's'} to node ${to.slice(0, 12)} not sent (${name}): ${reason}`);
  const entry = { count: 0 };
  this.losses.set(k, entry);
  const t = setTimeout(() => {
    this.losses.delete(k);
    if (entry.count > 0) this.log(`${entry.count} more frame${entry.count === 1 ? '' : 's'} to node ${to.slice(0, 12)} not sent (${name}) in the last ${LOSS_LOG_MS} ms`);
  }, LOSS_LOG_MS);
  /** @type {any} */ (t).unref?.();
}
