// @ts-check
/**
 * Routed requests, the sender's side (docs/mesh.md §10, "A relay that leaves"): a request
 * that went out through a neighbour (ROUTE) is kept until it is answered, so that when
 * that neighbour goes — its link closes, or falls silent for longer than a heartbeat
 * period plus a margin (Paths.silent; a killed relay is noticed by the heartbeat timeout only seconds
 * later) — the request is sent again on another way, and the caller still gets its one
 * answer. The receiver runs it at most once (request-dedup.js).
 *
 * Invariants:
 * - an entry exists only while its request is pending (PendingRequests calls settled());
 * - a request is sent again at most MAX_RESENDS times, each time avoiding the neighbour
 *   it last went through; for want of an answer alone, at most once, and only if its
 *   frame is at most SUSPECT_MAX_BYTES (a large one is not copied on a guess);
 * - when its neighbour's link closed and no other way is known, the request fails at once
 *   with UnreachableError (the sender is told: nothing is lost in silence); a silent
 *   neighbour with no other way known is left to answer or to time out;
 * - bounded memory: the frames kept for a resend total at most MAX_KEPT_BYTES; a request
 *   whose frame does not fit is kept without it and, when its neighbour goes, fails with
 *   UnreachableError instead of being sent again;
 * - the check timer runs only while entries exist, and one check period after (it is not
 *   made and cleared per request), and never holds the process open.
 */
import { UnreachableError } from './errors.js';

/** Times a request may be sent again. */
export const MAX_RESENDS = 2;
/** Bytes of request frames kept for a resend, at most, in all. */
export const MAX_KEPT_BYTES = 16 * 1024 * 1024;
/** A routed request unanswered this long through a neighbour that is not silent is sent again around it, ms. */
export const SUSPECT_MS = 1300;
/** The largest request copied for want of an answer alone, bytes. */
const SUSPECT_MAX_BYTES = 64 * 1024;
/** Period of the check for silent neighbours while routed requests are pending, ms. */
const CHECK_MS = 100;

/**
 * @typedef {object} Routed
 * @property {string} peerId the destination
 * @property {Uint8Array | null} frame the encoded REQ (null: too big to keep)
 * @property {string} hop the neighbour it last went through
 * @property {number} resends
 * @property {number} sentAt performance.now() when it last left
 * @property {boolean} suspected sent again for want of an answer already
 */

/**
 * @typedef {object} RoutedRequestsInit
 * @property {import('./paths.js').Paths} paths
 * @property {(id: number, err: Error) => void} fail fail a pending request
 * @property {import('./logger.js').Logger} logger
 */

export class RoutedRequests {
  /** @type {Map<number, Routed>} */
  #entries = new Map();
  #keptBytes = 0;
  /** @type {import('./paths.js').Paths} */
  #paths;
  /** @type {RoutedRequestsInit['fail']} */
  #fail;
  /** @type {import('./logger.js').Logger} */
  #log;
  /** @type {ReturnType<typeof setInterval> | null} */
  #timer = null;

  /** @param {RoutedRequestsInit} init */
  constructor(init) {
    this.#paths = init.paths;
    this.#fail = init.fail;
    this.#log = init.logger;
  }

  get size() {
    return this.#entries.size;
  }

  /**
   * Request `id` to `peerId` left through neighbour `hop` (wrapped in ROUTE).
   * @param {number} id @param {string} peerId @param {Uint8Array} frame the encoded REQ @param {string} hop
   */
  sent(id, peerId, frame, hop) {
    const keep = this.#keptBytes + frame.length <= MAX_KEPT_BYTES;
    if (keep) this.#keptBytes += frame.length;
    this.#entries.set(id, { peerId, frame: keep ? frame : null, hop, resends: 0, sentAt: performance.now(), suspected: false });
    // one timer while routed requests come and go; it stops itself when it finds none
    if (this.#timer === null) {
      this.#timer = setInterval(() => this.#check(), CHECK_MS);
      this.#timer.unref?.();
    }
  }

  /** Request `id` was answered, failed or timed out. @param {number} id */
  settled(id) {
    const e = this.#entries.get(id);
    if (e === undefined) return;
    this.#entries.delete(id);
    if (e.frame !== null) this.#keptBytes -= e.frame.length;
  }

  /** The last link to neighbour `hop` closed: what went through it goes another way. @param {string} hop */
  hopDown(hop) {
    if (this.#entries.size === 0) return;
    for (const [id, e] of [...this.#entries]) if (e.hop === hop) this.#resend(id, e, true);
  }

  /** Requests whose neighbour fell silent, or swallowed them, go another way. */
  #check() {
    if (this.#entries.size === 0) {
      if (this.#timer !== null) clearInterval(this.#timer);
      this.#timer = null;
      return;
    }
    const now = performance.now();
    for (const [id, e] of [...this.#entries]) {
      if (this.#paths.silent(e.hop)) this.#resend(id, e, false);
      else if (!e.suspected && e.frame !== null && e.frame.length <= SUSPECT_MAX_BYTES && now - e.sentAt > SUSPECT_MS) {
        e.suspected = true;
        this.#paths.suspect(e.hop, e.peerId);
        this.#resend(id, e, false, true);
      }
    }
  }

  /**
   * @param {number} id @param {Routed} e @param {boolean} down the neighbour's link closed
   * @param {boolean} [orSame] with no other way, send it through the same neighbour (no answer came)
   */
  #resend(id, e, down, orSame = false) {
    const other = e.frame === null || e.resends >= MAX_RESENDS ? null : this.#paths.sendAvoiding(e.peerId, e.frame, e.hop, orSame);
    if (other === null) {
      if (down) this.#fail(id, new UnreachableError(e.peerId, `the way through ${e.hop.slice(0, 12)} went down with request ${id} on it, and ${e.frame === null ? 'the request was too large to keep for sending again' : e.resends >= MAX_RESENDS ? `it was sent again ${MAX_RESENDS} times already` : 'no other way is known'}`));
      return;
    }
    this.#log.info('routed request sent again', { to: e.peerId, id, avoiding: e.hop, via: other, why: down ? 'link closed' : e.suspected && !this.#paths.silent(e.hop) ? 'no answer' : 'neighbour silent' });
    e.hop = other;
    e.resends++;
    e.sentAt = performance.now();
  }

  /** The node stopped. */
  clear() {
    this.#entries.clear();
    this.#keptBytes = 0;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}
