// @ts-check
/**
 * Outstanding requests of a node: id → the promise waiting for its RES or
 * RES_ERR. Every entry has a timer (timeoutMs) and is removed exactly once:
 * on response, timeout, abort, failure of its peer, or stop. The table is
 * bounded (maxPending); ids are never reused within a node's life (a late
 * response to a timed-out request finds nothing and is dropped).
 */
import { AbortError, RemoteError, RequestTimeoutError, TooManyRequestsError } from './errors.js';

/**
 * @typedef {object} Pending
 * @property {string} peerId
 * @property {(p: Uint8Array) => void} resolve
 * @property {(e: Error) => void} reject
 * @property {ReturnType<typeof setTimeout>} timer
 * @property {AbortSignal | undefined} signal
 * @property {() => void} onAbort
 */

export class PendingRequests {
  /** @type {Map<number, Pending>} */
  #pending = new Map();
  #nextId = 1;

  /** @param {number} maxPending */
  constructor(maxPending) {
    this.maxPending = maxPending;
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
    /** @type {Pending} */
    let entry = /** @type {any} */ (null);
    const promise = new Promise((resolve, reject) => {
      entry = {
        peerId, resolve, reject, signal,
        timer: setTimeout(() => this.#settle(id, new RequestTimeoutError(peerId, timeoutMs)), timeoutMs),
        onAbort: () => this.#settle(id, new AbortError(`request ${id} to ${peerId} aborted`)),
      };
    });
    this.#pending.set(id, entry);
    signal?.addEventListener('abort', entry.onAbort, { once: true });
    return { id, promise: /** @type {Promise<Uint8Array>} */ (promise) };
  }

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
  }

  /**
   * @param {number} id @param {Error | null} err @param {Uint8Array} [payload]
   */
  #settle(id, err, payload) {
    const e = this.#pending.get(id);
    if (!e) return;
    this.#pending.delete(id);
    clearTimeout(e.timer);
    e.signal?.removeEventListener('abort', e.onAbort);
    if (err) e.reject(err);
    else e.resolve(/** @type {Uint8Array} */ (payload));
  }
}
