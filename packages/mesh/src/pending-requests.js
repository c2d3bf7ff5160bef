// @ts-check
/**
 * Outstanding requests of a node: id → the promise waiting for its RES or
 * RES_ERR. Every entry has a deadline (timeoutMs) and is removed exactly
 * once: on response, timeout, abort, failure of its peer, or stop. The table
 * is bounded (maxPending); ids are never reused within a node's life (a late
 * response to a timed-out request finds nothing and is dropped), and start at a
 * random point in each life (a receiver that remembers a routed request's id,
 * request-dedup.js, does not take a restarted node's new request for a copy).
 *
 * One timer serves the whole table, armed for the earliest deadline: a
 * setTimeout and a clearTimeout per request cost more than the rest of the
 * request's bookkeeping. The timer is kept when the table empties (unref'd,
 * so it never keeps a process alive) and reused by the next request whose
 * deadline is no earlier; when it fires it times out what is due and re-arms
 * for the next deadline.
 */
import { AbortError, RemoteError, RequestTimeoutError, TooManyRequestsError } from './errors.js';

/**
 * @typedef {object} Pending
 * @property {string} peerId
 * @property {(p: Uint8Array) => void} resolve
 * @property {(e: Error) => void} reject
 * @property {number} deadline performance.now() when it times out
 * @property {number} timeoutMs
 * @property {AbortSignal | undefined} signal
 * @property {(() => void) | null} onAbort
 */

export class PendingRequests {
  /** @type {Map<number, Pending>} */
  #pending = new Map();
  #nextId = 1 + Math.floor(Math.random() * 2 ** 30);
  /** @type {ReturnType<typeof setTimeout> | null} */
  #timer = null;
  /** The deadline #timer was armed for (Infinity without a timer). */
  #timerAt = Infinity;

  /** @type {(id: number) => void} */
  #onSettle;

  /** @param {number} maxPending @param {(id: number) => void} [onSettle] told of each request settled */
  constructor(maxPending, onSettle = () => {}) {
    this.maxPending = maxPending;
    this.#onSettle = onSettle;
  }

  get size() {
    return this.#pending.size;
  }

  /**
   * Register a request; returns its id and the promise of its response.
   * @param {string} peerId @param {number} timeoutMs @param {AbortSignal} [signal]
   * @returns {{id: number, promise: Promise<Uint8Array>}}
   */
  add(peerId, timeoutMs, signal) {
    if (this.#pending.size >= this.maxPending) throw new TooManyRequestsError(this.maxPending);
    const id = this.#nextId++;
    const deadline = performance.now() + timeoutMs;
    /** @type {Pending} */
    let entry = /** @type {any} */ (null);
    const promise = new Promise((resolve, reject) => {
      entry = { peerId, resolve, reject, deadline, timeoutMs, signal, onAbort: null };
    });
    this.#pending.set(id, entry);
    if (signal !== undefined) {
      entry.onAbort = () => this.#settle(id, new AbortError(`request ${id} to ${peerId} aborted`));
      signal.addEventListener('abort', entry.onAbort, { once: true });
    }
    this.#armFor(deadline);
    return { id, promise: /** @type {Promise<Uint8Array>} */ (promise) };
  }

  /** Make sure the timer fires by `deadline`. @param {number} deadline */
  #armFor(deadline) {
    const timer = this.#timer;
    if (timer !== null && this.#timerAt <= deadline) {
      timer.ref?.();
      return;
    }
    if (timer !== null) clearTimeout(timer);
    this.#timerAt = deadline;
    this.#timer = setTimeout(this.#expire, Math.max(0, Math.ceil(deadline - performance.now())));
  }

  /** The timer fired: time out every request that is due, re-arm for the next. */
  #expire = () => {
    this.#timer = null;
    this.#timerAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    // bounded by maxPending; deleting the visited entry while iterating a Map is safe
    for (const [id, e] of this.#pending) {
      if (e.deadline <= now) this.#settle(id, new RequestTimeoutError(e.peerId, e.timeoutMs));
      else if (e.deadline < next) next = e.deadline;
    }
    if (next !== Infinity) this.#armFor(next);
  };

  /**
   * A response arrived from `from`. Ignored unless it answers a pending
   * request sent to that same node.
   * @param {string} from @param {number} id @param {Uint8Array} payload
   * @returns {boolean} whether it matched
   */
  resolve(from, id, payload) {
    const e = this.#pending.get(id);
    if (!e || e.peerId !== from) return false;
    this.#settle(id, null, payload);
    return true;
  }

  /**
   * @param {string} from @param {number} id @param {string} name @param {string} message
   * @returns {boolean}
   */
  reject(from, id, name, message) {
    const e = this.#pending.get(id);
    if (!e || e.peerId !== from) return false;
    this.#settle(id, new RemoteError(name, message));
    return true;
  }

  /** Fail one request with a local error (send failed). @param {number} id @param {Error} err */
  fail(id, err) {
    this.#settle(id, err);
  }

  /** Fail every request to `peerId`. @param {string} peerId @param {Error} err */
  failPeer(peerId, err) {
    for (const [id, e] of [...this.#pending]) if (e.peerId === peerId) this.#settle(id, err);
  }

  /** @param {Error} err */
  failAll(err) {
    for (const id of [...this.#pending.keys()]) this.#settle(id, err);
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAt = Infinity;
  }

  /**
   * @param {number} id @param {Error | null} err @param {Uint8Array} [payload]
   */
  #settle(id, err, payload) {
    const e = this.#pending.get(id);
    if (!e) return;
    this.#pending.delete(id);
    this.#onSettle(id);
    if (this.#pending.size === 0) this.#timer?.unref?.();
    if (e.onAbort !== null) e.signal?.removeEventListener('abort', e.onAbort);
    if (err) e.reject(err);
    else e.resolve(/** @type {Uint8Array} */ (payload));
  }
}
