// @ts-check
/**
 * One-way frames (frame-vocabulary.js): writing them and handling those that arrive.
 *
 * Out: `send` and the other hooks the node calls when a pid is not local (remote-ops.js)
 * encode a frame and hand it to the mesh for the node the pid lives on (`whereIs`: its
 * birth node, or where it was last seen moving to). A SEND's head is encoded once per
 * pid (`sendHead`) and the message written between it and the empty environment list in
 * one pass; anything else goes through `encode`, which lists the program environments
 * of the procedures in the frame (program-environments.js).
 *
 * In: `onFrame` takes every frame from the mesh. Invariants:
 *  - frames from one sender are handled in arrival order: once one of them must wait
 *    (for code, or for an environment's definitions), every later one from that sender
 *    queues behind it (`inbound`, `chain`);
 *  - the commonest frame, a SEND to a live process of this node with no procedure in it,
 *    is delivered without decoding the frame around its message (`deliverLocalSend`);
 *    whatever that path cannot take, it leaves untouched for the general path;
 *  - a frame is refused (logged here, an ERROR frame to its sender) when it does not
 *    decode, is malformed or of an unknown type; an ERROR is logged and never answered,
 *    so two nodes cannot bounce errors;
 *  - a frame for a process that left this node is forwarded where it went, and its
 *    sender told (MOVED); a MOVED is believed only from the node this one sends that
 *    process's messages to, a GONE only from the node it forwards the process to or
 *    sends its messages to (migration.js and whereabouts.js have the rest of location
 *    transparency).
 *
 * These functions are Distribution's methods (`this` is the Distribution), moved here
 * whole: the SEND paths keep the bodies and call depth they were measured with.
 */
import { encodeSmallValue, encodeSmallBetween, encodeAnyValue, encodedSpare } from '@termite/scheme/internal';
import { ErrorObject, SchemeError, arrayToList } from '@termite/scheme';
import { Pid, serialHeadSize, serialAt } from '../termite-values.js';
import {
  F_SEND, F_SIGNAL, F_LINK, F_UNLINK, F_KILL, F_MOVED, F_GONE, F_ERROR, F_EXITED, F_AS, F_HOP, FRAMES, NO_ENVS, NO_ENVS_BYTES, SEND_HEADS,
  NOT_READY, sendHeadBytes, key,
} from './frame-vocabulary.js';
import { F_SPACE_OP } from '../linda/remote-spaces.js';
import { F_DTS } from '../linda/dts-protocol.js';
import { linkedEndedNormally } from '../termite-node/links-and-signals.js';

/** @typedef {import('../distribution.js').Distribution} Distribution */

/** Where to send for a pid. @param {Pid} pid @this {Distribution} */
export function whereIs(pid) {
  // most nodes forward for no process: no key string to build then
  if (this.location.size === 0) return pid.node;
  return this.location.get(key(pid.node, pid.n)) ?? pid.node;
}

/**
 * Encode a frame or request, appending the versions of the program environments its
 * procedures come from (so a node holding a copy of such an environment refreshes it
 * when the original has new definitions).
 * @param {any[]} frame a new array (the environment list is appended to it)
 * @this {Distribution}
 */
export function encode(frame) {
  // a small frame has no procedure, so no environment to list: one pass
  frame.push(NO_ENVS);
  const small = encodeSmallValue(frame);
  if (small !== null) return small;
  /** @type {any[]} */
  const envs = [];
  frame[frame.length - 1] = envs; // filled by encodeOptions.onCode while encoding
  this.encodingEnvs = envs;
  try {
    // a frame with closures over small values (a remote spawn) is still one pass; the
    // closure's code reference is written from its kept bytes
    return encodeSmallValue(frame, this.encodeOptions.onCode) ?? encodeAnyValue(frame, this.encodeOptions);
  } finally {
    this.encodingEnvs = null;
  }
}

/**
 * Encode a frame and give it to the mesh (send-queue.js when the mesh refuses it).
 * True when there is nothing to wait for, false when it waits for room (a `!`'s
 * process should wait). A SEND (`pid`: a `!` by the running code) that cannot be
 * encoded raises in the sender; any other such frame is logged and counted.
 * @param {string} to @param {any[]} frame @param {Pid | null} [pid]
 * @this {Distribution}
 */
export function emit(to, frame, pid = null) {
  if (this.spaceState !== undefined && this.spaceState.held !== null) this.flushHeldOut(); // an out held back leaves first (linda/remote-spaces.js)
  let bytes;
  if (this.restricted.size !== 0) {
    this.give(to, frame);
    frame = this.actFrame(to, frame); // a restricted peer's process acts as that peer (capabilities.js)
  }
  try {
    bytes = this.encode(frame);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    this.noteLoss(to, 'EncodeError', why, 1);
    if (pid !== null) throw new SchemeError(new ErrorObject(`message to process ${pid.n} on node ${to.slice(0, 12)} not sent: ${why}`, arrayToList([pid]), 'send', '!'));
    return true;
  }
  if (this.restricted.size !== 0) this.giveEnvs(to, frame);
  this.stats.sent++;
  if (this.outboxes.size === 0 ? this.mesh.send(to, bytes, encodedSpare(bytes)) : this.sendBehind(to, bytes)) return true;
  return this.refused(to, bytes, pid);
}

/**
 * `!` to a process elsewhere. False when the frame waits for room in the mesh's queue
 * to its node (send-queue.js: the calling process is suspended until it has left);
 * raises when it can never be sent.
 * @param {Pid} pid @param {any} msg
 * @this {Distribution}
 */
export function send(pid, msg) {
  if (this.spaceState !== undefined && this.spaceState.held !== null) this.flushHeldOut(); // an out held back leaves first (linda/remote-spaces.js)
  const to = this.whereIs(pid);
  if (this.restricted.size !== 0) {
    this.give(to, msg);
    if (this.actingFor(null) !== null) return this.emit(to, [F_SEND, pid.node, pid.n, msg], pid); // wrapped there
  }
  // the common case in one pass, the pid's part of the frame encoded once per pid
  let bytes = null;
  const head = this.sendHead(pid);
  if (head !== null) {
    try {
      bytes = encodeSmallBetween(head, msg, NO_ENVS_BYTES);
    } catch {
      bytes = null; // emit says why, through its general path
    }
  }
  if (bytes === null) return this.emit(to, [F_SEND, pid.node, pid.n, msg], pid);
  this.stats.sent++;
  // the fast path: no outbox anywhere, and the mesh took the frame (a large encoding has
  // free bytes in front, where the mesh writes the envelope instead of copying it)
  if (this.outboxes.size === 0 ? this.mesh.send(to, bytes, encodedSpare(bytes)) : this.sendBehind(to, bytes)) return true;
  return this.refused(to, bytes, pid);
}

/** The encoded head of a SEND frame to `pid` (sendHeadBytes), cached. @param {Pid} pid @this {Distribution} */
export function sendHead(pid) {
  const slot = pid.n & (SEND_HEADS - 1);
  const c = this.sendHeads[slot];
  if (c !== undefined && c.n === pid.n && c.node === pid.node) return c.head;
  const head = sendHeadBytes(pid);
  this.sendHeads[slot] = { node: pid.node, n: pid.n, head };
  return head;
}

/** @param {Pid} pid @param {any} payload @this {Distribution} */
export function signal(pid, payload) {
  this.emit(this.whereIs(pid), [F_SIGNAL, pid.node, pid.n, payload]);
}

/**
 * `from`, a process of this node linked to `to` (elsewhere), returned normally: `to`'s
 * node tells a monitor's relay and nothing else (linkedEndedNormally).
 * @param {Pid} to @param {Pid} from @this {Distribution}
 */
export function exited(to, from) {
  this.emit(this.whereIs(to), [F_EXITED, to.node, to.n, from]);
}

/** `from` (remote) gets an outbound link to `to`. @param {Pid} from @param {Pid} to @this {Distribution} */
export function link(from, to) {
  this.watch(from, to);
  this.emit(this.whereIs(from), [F_LINK, from.node, from.n, to]);
}

/** @param {Pid} from @param {Pid} to @this {Distribution} */
export function unlink(from, to) {
  this.watchers.get(key(from.node, from.n))?.delete(key(to.node, to.n));
  this.emit(this.whereIs(from), [F_UNLINK, from.node, from.n, to]);
}

/**
 * An EXITED: `from`, elsewhere, linked to the local `proc`, returned normally. `proc`
 * need not hear of `from`'s node any more; a monitor's relay gives its notice, any other
 * process is left alone (linkedEndedNormally).
 * @param {Distribution} d @param {Pid} from @param {import('../termite-node/process.js').Process} proc
 */
function linkedExited(d, from, proc) {
  const k = key(from.node, from.n);
  const set = d.watchers.get(k);
  if (set !== undefined) {
    set.delete(key(proc.pid.node, proc.pid.n));
    if (set.size === 0) d.watchers.delete(k);
  }
  linkedEndedNormally(d.node, proc);
}

/** @param {Pid} pid @this {Distribution} */
export function terminate(pid) {
  this.emit(this.whereIs(pid), [F_KILL, pid.node, pid.n]);
}

/** @param {Pid} pid @this {Distribution} */
export function isAlive(pid) {
  return this.mesh.isReachable(this.whereIs(pid));
}

/**
 * Frames from one sender are handled in arrival order, even when one of them must
 * wait for code to be fetched.
 * @param {string} from @param {Uint8Array} bytes
 * @this {Distribution}
 */
export function onFrame(from, bytes) {
  this.stats.received++;
  const prev = this.inbound.get(from);
  if (prev === undefined) {
    try {
      // a restricted peer's frames take the general path, where its rights are checked
      if ((this.restricted.size === 0 || !this.restricted.has(from)) && this.deliverLocalSend(bytes)) return;
    } catch (e) {
      this.refuseDelivery(from, e); // the mailbox could not take it (its limit)
      return;
    }
    // fast path: decode synchronously when all code is present and ready
    let frame;
    try {
      frame = this.decodeReady(bytes);
    } catch (e) {
      this.refuse(from, e);
      return;
    }
    if (frame !== NOT_READY && !this.stale(frame)) {
      this.handleFrame(from, frame, bytes);
      this.node.runArrivedNow();
      return;
    }
  }
  this.chain(from, () => this.decodeFetching(from, bytes).then((f) => this.refresh(from, f).then(() => this.handleFrame(from, f, bytes))));
}

/**
 * The commonest frame, handled without decoding the frame around its message: a SEND
 * to a live process of this node, [1, this node's id, n, msg, []] (no procedure in it,
 * so no environment list). False, having done nothing, for any other frame, for a
 * message that needs code or environments first, and for one that does not decode:
 * onFrame then decodes the whole frame, which fetches the code or refuses the frame
 * with its reason.
 * @param {Uint8Array} bytes
 * @this {Distribution}
 */
export function deliverLocalSend(bytes) {
  const len = bytes.length;
  const self = this.selfText;
  let at = 2 + self.length;
  if (len < at + 2 || bytes[0] !== 0x85 || bytes[1] !== F_SEND || bytes[len - 1] !== 0x80) return false;
  for (let i = 0; i < self.length; i++) if (bytes[2 + i] !== self[i]) return false;
  // the serial: an unsigned integer below 2^32
  const size = serialHeadSize(bytes, at);
  if (size === 0 || at + size >= len - 1) return false;
  const n = serialAt(bytes, at);
  at += size;
  const proc = this.node.bySerialNumber(n);
  if (proc === null) return false; // gone, or moved on: the general path forwards or drops
  if (proc.peer !== null && this.restricted.size !== 0 && this.restricted.has(proc.peer)) return false; // a restricted peer's process: the general path vouches (capabilities.js giveToProcessOf)
  let msg;
  try {
    msg = this.decodeReady(bytes, at, len - 1);
  } catch {
    return false; // the general path decodes the whole frame and says what is wrong
  }
  if (msg === NOT_READY) return false; // it fetches the code, or waits for the environments
  // just decoded: no one else holds this value, so it is delivered without a copy
  this.node.stats.messages++;
  this.node.deliver(proc, msg);
  this.node.runDelivered();
  return true;
}

/** @param {string} from @param {() => Promise<void>} step @this {Distribution} */
export function chain(from, step) {
  const prev = this.inbound.get(from) ?? Promise.resolve();
  const next = prev.then(step).catch((e) => this.refuse(from, e));
  this.inbound.set(from, next);
  next.then(() => {
    if (this.inbound.get(from) === next) this.inbound.delete(from);
  });
}

/**
 * @param {string} from @param {any} f the decoded frame @param {Uint8Array} bytes its encoding (for forwarding)
 * @returns {void | Promise<void>} a promise only for a HOP handled inside the sender's chain, which waits for it
 * @this {Distribution}
 */
export function handleFrame(from, f, bytes) {
  if (!Array.isArray(f) || typeof f[0] !== 'number') {
    this.refuse(from, 'malformed frame: not a vector that starts with a frame type');
    return;
  }
  const [type, pnode, pn] = f;
  if (type === F_ERROR) return void this.log(`${from.slice(0, 12)} refused a frame from this node: ${String(f[1]).slice(0, 1000)}`);
  if (type >= F_SPACE_OP && type <= F_DTS) {
    if (this.restricted.size !== 0 && this.restricted.has(from) && this.holdSpaceOp(from, f, bytes)) return; // held for a vouch (vouching.js)
    return this.onSpaceFrame(from, f); // linda/remote-spaces.js (34: dts-protocol.js)
  }
  if (type === F_AS) return void this.onActedFrame(from, f, bytes); // for a restricted peer's process: capabilities.js
  if (type === F_HOP) return this.onHopFrame(from, f); // a process moving here one way: one-way-migration.js
  const shape = FRAMES[type];
  if (!Number.isInteger(type) || shape == null) {
    this.refuse(from, `unknown frame type ${type}`);
    return;
  }
  if (f.length !== shape[1] || typeof pnode !== 'string' || !Number.isInteger(pn) ||
      ((type === F_LINK || type === F_UNLINK || type === F_EXITED) && !(f[3] instanceof Pid)) || (type === F_MOVED && typeof f[3] !== 'string')) {
    this.refuse(from, `malformed ${shape[0]} frame`);
    return;
  }
  if (type === F_MOVED) {
    this.processMoved(from, pnode, pn, String(f[3])); // whereabouts.js
    return;
  }
  if (type === F_GONE) {
    this.processGone(from, pnode, pn);
    return;
  }
  const pid = new Pid(String(pnode), Number(pn));
  const proc = this.node.local(pid);
  if (proc === null) {
    const to = this.forwarding.get(key(pid.node, pid.n));
    if (to !== undefined) {
      this.stats.forwarded++;
      if (this.outboxes.size === 0 ? !this.mesh.send(to, bytes) : !this.sendBehind(to, bytes)) this.refused(to, bytes, null);
      if (from !== to) this.emit(from, [F_MOVED, pid.node, pid.n, to]);
      return;
    }
    if (type === F_LINK) {
      // linking to a process that does not exist: tell the other side at once
      const payload = new ErrorObject('linked process is not alive', arrayToList([pid]), 'noproc', 'link');
      this.node.signal(f[3], payload);
    }
    return; // a message to a process that is gone is dropped (send and pray)
  }
  if (this.restricted.size !== 0 && this.restricted.has(from) && !this.mayTake(from, type, pid, proc, f, bytes)) return; // capabilities.js (held for a vouch: vouching.js)
  if (type === F_EXITED) return linkedExited(this, f[3], proc);
  switch (type) {
    case F_SEND:
      // just decoded: no one else holds this value, so it is delivered without a copy
      this.node.stats.messages++;
      if (proc.peer !== null && this.restricted.size !== 0) this.giveToProcessOf(proc.peer, f[3], this.actedOwner ?? from); // capabilities.js
      try {
        this.node.deliver(proc, f[3]);
      } catch (e) {
        this.refuseDelivery(from, e); // the mailbox could not take it (its limit)
        return;
      }
      this.node.pokeAfterTask();
      return;
    case F_SIGNAL:
      this.node.signal(pid, f[3]);
      return;
    case F_LINK:
      this.node.addLink(pid, f[3]);
      return;
    case F_UNLINK:
      this.node.removeLink(pid, f[3]);
      return;
    case F_KILL:
      this.node.terminate(pid);
      return;
  }
}

/**
 * Refuse a frame from `from`: a log line here and an ERROR frame to the sender, which
 * logs it (an ERROR is never answered, so two nodes cannot bounce errors).
 * @param {string} from @param {unknown} why an error or a message
 * @this {Distribution}
 */
export function refuse(from, why) {
  const msg = why instanceof Error ? `${why.name}: ${why.message}` : String(why);
  this.log(`frame from ${from.slice(0, 12)} refused: ${msg}`);
  this.emit(from, [F_ERROR, msg.slice(0, 1000)]);
}

/**
 * Refuse a frame like `refuse`, at most once a second per kind of refusal: a flood costs
 * one log line and one ERROR frame a second, and the number refused in between is logged
 * with the next one. Every call counts a dropped frame.
 * @param {{since: number, count: number}} window this kind's last logged refusal and the count since
 * @param {string} what what was refused, for the count line ("messages refused by full mailboxes")
 * @param {string} from @param {unknown} why
 * @this {Distribution}
 */
export function refuseOncePerSecond(window, what, from, why) {
  this.stats.dropped++;
  const now = Date.now();
  if (now - window.since < 1000) {
    window.count++;
    return;
  }
  if (window.count > 0) this.log(`${window.count} more ${what} in the last second (not logged one by one)`);
  window.since = now;
  window.count = 0;
  this.refuse(from, why);
}

/**
 * A message from `from` that a local mailbox refused (it is at its limit: an error of
 * kind `resource-limit`): dropped, counted, and refused to its sender's node once a
 * second (refuseOncePerSecond).
 * @param {string} from @param {unknown} err
 * @this {Distribution}
 */
export function refuseDelivery(from, err) {
  this.refuseOncePerSecond(this.deliveryRefusals, 'messages refused by full mailboxes', from, err);
}
