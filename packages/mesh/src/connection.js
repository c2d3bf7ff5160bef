// @ts-check
/**
 * Base class of every transport's Connection (interfaces.js states the
 * contract). It owns the rules that do not depend on the transport:
 * - messages that arrive before `onmessage` is assigned are kept (at most
 *   EARLY_LIMIT messages and EARLY_LIMIT_BYTES bytes; beyond that the
 *   connection is closed, since a peer that floods before anyone listens is
 *   misbehaving) and delivered on assignment;
 * - `onclose` runs exactly once, even if assigned after the close;
 * - `ondrain` is armed by a send that leaves bufferedAmount above
 *   lowWaterMark and fired once when the transport reports it fell below.
 *
 * - while writes are held (holdWrites … releaseWrites, nested), a connection
 *   whose transport can cork (a stream socket: `_corkable`) is corked at its
 *   first send, and every connection corked so is uncorked when the outermost
 *   hold ends: the messages a node writes while it handles one received chunk
 *   (a reply, an acknowledgement, what the processes it woke sent) leave in one
 *   write per connection, not one system call each; a request answered at once
 *   extends the hold through the task's microtasks (holdWritesThroughMicrotasks).
 *
 * Subclasses call `_receive(data, isText)` for each message, `_closed(reason)`
 * once the transport is closed, `_drained()` when their buffer fell, and
 * implement `_send(data)`, `_close(reason)` and the `bufferedAmount` getter
 * (and `_cork()`/`_uncork()` with `_corkable = true` where they can).
 */
import { ConnectionClosedError, FrameTooLargeError } from './errors.js';

/** Messages, and bytes, kept while no onmessage handler is set. */
export const EARLY_LIMIT = 65536;
export const EARLY_LIMIT_BYTES = 64 * 1024 * 1024;

/** Bytes a transport may add to a message in its buffer (a WebSocket frame head is ≤ 14). */
const FRAMING_BOUND = 64;

/** The initial bound of bufferedAmount: above any threshold, below 2^30 (a V8 small integer). */
const UNREAD_BOUND = 1 << 29;

/** @typedef {import('./interfaces.js').Connection} Connection */

/** Holds in force (holdWrites), and the connections corked under them. */
let holds = 0;
/** @type {BaseConnection[]} */
const corked = [];

/**
 * Hold writes: until the matching releaseWrites, messages sent on a corkable
 * connection wait in its socket and leave together. Every hold must be released
 * (try/finally): a hold never released would keep every socket corked.
 */
export function holdWrites() {
  holds++;
}

const SETTLED = Promise.resolve();

/**
 * Hold writes until the microtasks queued so far have run (then release). A request
 * answered in the task it arrived in calls it after writing its answer: what the request
 * started and the node runs at the end of the task (a spawned process and the first
 * messages it sends) then leaves in the same write as the answer, and the asker is
 * woken once, not once for the answer and again for the message.
 */
export function holdWritesThroughMicrotasks() {
  holds++;
  // a reaction of a settled promise: queued behind what the task already queued
  SETTLED.then(releaseWrites);
}

/** End a hold; the outermost one writes out every connection corked under it. */
export function releaseWrites() {
  if (holds > 0) holds--;
  if (holds > 0 || corked.length === 0) return;
  // bounded by the connections that sent under the hold; an uncork that throws (a
  // socket torn down meanwhile) must not leave the others corked
  for (let i = 0; i < corked.length; i++) {
    const c = corked[i];
    c._held = false;
    try {
      c._uncork();
    } catch { /* the connection's own error path reports it */ }
  }
  corked.length = 0;
}

/** @implements {Connection} */
export class BaseConnection {
  /** @type {((data: Uint8Array, isText: boolean) => void) | null} */
  #onmessage = null;
  /** @type {((reason: string) => void) | null} */
  #onclose = null;
  /** @type {Array<[Uint8Array, boolean]>} */
  #early = [];
  #earlyBytes = 0;
  /** @type {string | null} set once closed; the reason given to onclose */
  #closeReason = null;
  #closeDelivered = false;
  /** True after a send left bufferedAmount above lowWaterMark. */
  _drainArmed = false;
  /** Whether the transport can cork its writes (_cork/_uncork). */
  _corkable = false;
  /** Corked under the current hold (holdWrites). */
  _held = false;
  /**
   * An upper bound of bufferedAmount: its last reading plus what was sent since, with
   * room for each message's framing. The buffer only shrinks by itself, so while the
   * bound is under a threshold the transport need not be asked: on a data channel each
   * reading is a call into libdatachannel that takes its lock (~2 µs a message on a
   * busy daemon, twice per send).
   * It starts above any threshold, so the first send and the first bufferedBelow read
   * the transport: the reading's code then has run before V8 optimizes these methods,
   * which otherwise deoptimize the first time it runs (after ~2,800 small messages,
   * seen in the middle of a benchmark). A small integer, so the field keeps its
   * representation: a bound never grows past a threshold plus one message.
   */
  #bufferedBound = UNREAD_BOUND;
  /** @type {((reason: string) => void) | undefined} */
  _resolveClosed;

  /**
   * @param {'websocket' | 'webrtc' | 'tcp'} transport
   * @param {'outbound' | 'inbound'} direction
   * @param {string} remoteAddress
   * @param {number} maxMessageBytes
   */
  constructor(transport, direction, remoteAddress, maxMessageBytes) {
    this.transport = transport;
    this.direction = direction;
    this.remoteAddress = remoteAddress;
    this.maxMessageBytes = maxMessageBytes;
    /** An inbound WebSocket opened by a browser page (its upgrade carried Origin; set by the listener). */
    this.fromBrowser = false;
    /** @type {'open' | 'closing' | 'closed'} */
    this.status = 'open';
    this.lowWaterMark = 256 * 1024;
    /** @type {(() => void) | null} */
    this.ondrain = null;
    /** Resolves (never rejects) once the transport is closed. */
    this.closed = new Promise((resolve) => { this._resolveClosed = resolve; });
  }

  /** @returns {number} */
  get bufferedAmount() {
    return 0;
  }

  get onmessage() {
    return this.#onmessage;
  }

  set onmessage(fn) {
    this.#onmessage = fn;
    if (fn === null || this.#early.length === 0) return;
    const early = this.#early;
    this.#early = [];
    this.#earlyBytes = 0;
    for (let i = 0; i < early.length && this.#onmessage === fn; i++) fn(early[i][0], early[i][1]);
    this.#deliverClose();
  }

  /** Run onclose once, after any kept messages were delivered. */
  #deliverClose() {
    const h = this.#onclose;
    if (h === null || this.#closeReason === null || this.#closeDelivered || this.#early.length > 0) return;
    this.#closeDelivered = true;
    h(this.#closeReason);
  }

  get onclose() {
    return this.#onclose;
  }

  set onclose(fn) {
    this.#onclose = fn;
    this.#deliverClose();
  }

  /** @param {Uint8Array} data */
  send(data) {
    if (this.status !== 'open') throw new ConnectionClosedError(`cannot send on a ${this.status} ${this.transport} connection to ${this.remoteAddress}`);
    if (data.length > this.maxMessageBytes) throw new FrameTooLargeError(data.length, this.maxMessageBytes, `${this.transport} message`);
    if (holds > 0 && this._corkable && !this._held) {
      this._held = true;
      corked.push(this);
      this._cork();
    }
    this._send(data);
    this.#bufferedBound += data.length + FRAMING_BOUND;
    if (!this._drainArmed && this.#bufferedBound > this.lowWaterMark && (this.#bufferedBound = this.bufferedAmount) > this.lowWaterMark) {
      this._drainArmed = true;
      this._armDrain();
    }
  }

  /**
   * Whether bufferedAmount is below `limit`; the transport is read only when the bound
   * kept since its last reading does not already say so.
   * @param {number} limit
   */
  bufferedBelow(limit) {
    return this.#bufferedBound < limit || (this.#bufferedBound = this.bufferedAmount) < limit;
  }

  /** @param {string} [reason] */
  close(reason = 'closed') {
    if (this.status !== 'open') return;
    this.status = 'closing';
    this._close(reason);
  }

  /**
   * Put messages back in front of the kept-message buffer: the handshake
   * hands frames that followed the peer's ACCEPT back to the connection, so
   * the link's onmessage receives them first and in order.
   * @param {Uint8Array[]} frames
   */
  _requeue(frames) {
    if (this.#closeReason !== null && this.#closeDelivered) return;
    this.#early.unshift(...frames.map((f) => /** @type {[Uint8Array, boolean]} */ ([f, false])));
    for (const f of frames) this.#earlyBytes += f.length;
    const h = this.#onmessage;
    if (h !== null) this.onmessage = h; // flush now if a handler is already there
  }

  // ------------------------------------------------------------ for subclasses

  /** @param {Uint8Array} _data @protected */
  _send(_data) {
    throw new Error('subclass must implement _send');
  }

  /** @param {string} _reason @protected */
  _close(_reason) {
    throw new Error('subclass must implement _close');
  }

  /** Make the transport keep what is written until _uncork (corkable transports). @protected */
  _cork() {}

  /** Write out what _cork kept (releaseWrites calls it). */
  _uncork() {}

  /** Called when the drain is armed (transports that poll start polling). @protected */
  _armDrain() {}

  /**
   * Deliver one received message.
   * @param {Uint8Array} data @param {boolean} isText @protected
   */
  _receive(data, isText) {
    if (this.#closeReason !== null) return; // nothing is delivered after the close
    const h = this.#onmessage;
    if (h !== null) {
      h(data, isText);
      return;
    }
    if (this.#early.length >= EARLY_LIMIT || this.#earlyBytes + data.length > EARLY_LIMIT_BYTES) {
      this.close(`more than ${EARLY_LIMIT} messages or ${EARLY_LIMIT_BYTES} bytes arrived before the connection was attached`);
      return;
    }
    this.#early.push([data, isText]);
    this.#earlyBytes += data.length;
  }

  /** The transport's buffer fell; fire ondrain if armed and low enough. @protected */
  _drained() {
    if (!this._drainArmed || this.bufferedAmount > this.lowWaterMark) return;
    this._drainArmed = false;
    this.ondrain?.();
  }

  /**
   * The transport is closed (by either side or by failure). Idempotent.
   * @param {string} reason @protected
   */
  _closed(reason) {
    if (this.#closeReason !== null) return;
    this.status = 'closed';
    this.#closeReason = reason;
    this._resolveClosed?.(reason);
    this.#deliverClose(); // waits for kept messages to be delivered first
  }
}
