// @ts-check
/**
 * Routed requests, the receiver's side (docs/mesh.md §10, "A relay that leaves"): every
 * request that arrived through a relay is remembered by (source, id), so that the copy
 * its sender sends again when that relay goes (routed-requests.js) is not run a second
 * time: a copy of a request still being handled makes its answer go the copy's way; a
 * copy of one already answered gets the kept answer again, the copy's way.
 *
 * Invariants:
 * - a request id is run at most once per source while its entry lives; an entry lives
 *   DONE_TTL_MS after its answer, and at most MAX_ENTRIES entries live (the oldest go
 *   first);
 * - a copy that arrives after its entry was dropped (more than MAX_ENTRIES routed requests
 *   later, or DONE_TTL_MS after its answer) would be run again: senders send copies only
 *   within a few seconds (the heartbeat timeout bounds when a relay is found gone);
 * - request ids start at a random point in each node's life (pending-requests.js), so a
 *   node restarted with the same identity does not meet its former life's entries;
 * - answers kept for copies total at most MAX_REPLY_BYTES, each at most
 *   MAX_KEPT_REPLY_BYTES; a copy of a request whose answer was not kept is refused with
 *   ReplyLostError (its sender is told, nothing is run twice);
 * - a request that came directly, from a source with no entry, costs one Map lookup.
 */

/** Requests remembered at most. */
export const MAX_ENTRIES = 8192;
/** How long an answered request is remembered, ms. */
export const DONE_TTL_MS = 30_000;
/** Bytes of answers kept for copies, in all. */
export const MAX_REPLY_BYTES = 8 * 1024 * 1024;
/** The largest answer kept for a copy, bytes. */
export const MAX_KEPT_REPLY_BYTES = 256 * 1024;

/**
 * @typedef {object} Seen
 * @property {string} src
 * @property {number} id
 * @property {string | null} via the neighbour the latest copy came through (null: direct)
 * @property {boolean} copied a copy arrived while it was handled
 * @property {number} doneAt performance.now() when answered, 0 while handled
 * @property {Uint8Array | null} reply the encoded answer, if kept
 */

/** What arrived() found: run it, or it is a copy (its answer goes the copy's way). */
export const ARRIVAL = Object.freeze({ NEW: 0, COPY: 1 });

export class RequestDedup {
  /** @type {Map<string, Seen>} key `${src} ${id}`, oldest first */
  #seen = new Map();
  /** per source: entries alive @type {Map<string, number>} */
  #sources = new Map();
  #replyBytes = 0;

  get size() {
    return this.#seen.size;
  }

  /**
   * A REQ arrived from `src` (through neighbour `via`, or directly: null).
   * @param {string} src @param {number} id @param {string | null} via
   * @returns {{arrival: number, seen: Seen | null}} NEW: handle it; COPY: `seen` says how to answer
   */
  arrived(src, id, via) {
    const alive = this.#sources.get(src);
    if (alive === undefined && via === null) return { arrival: ARRIVAL.NEW, seen: null };
    const key = `${src} ${id}`;
    const e = this.#seen.get(key);
    if (e !== undefined) {
      e.via = via;
      e.copied = true;
      return { arrival: ARRIVAL.COPY, seen: e };
    }
    if (via === null) return { arrival: ARRIVAL.NEW, seen: null };
    this.#sweep();
    /** @type {Seen} */
    const n = { src, id, via, copied: false, doneAt: 0, reply: null };
    this.#seen.set(key, n);
    this.#sources.set(src, (alive ?? 0) + 1);
    return { arrival: ARRIVAL.NEW, seen: n };
  }

  /**
   * The answer to a remembered request was made.
   * @param {string} src @param {number} id @param {Uint8Array} reply the encoded RES or RES_ERR
   * @returns {Seen | null} its entry, if remembered (its `via` and `copied` say where the answer goes)
   */
  answered(src, id, reply) {
    if (this.#sources.get(src) === undefined) return null;
    const e = this.#seen.get(`${src} ${id}`);
    if (e === undefined) return null;
    e.doneAt = performance.now();
    if (reply.length <= MAX_KEPT_REPLY_BYTES && this.#replyBytes + reply.length <= MAX_REPLY_BYTES) {
      e.reply = reply;
      this.#replyBytes += reply.length;
    }
    return e;
  }

  /** Drop entries answered longer ago than DONE_TTL_MS, and the oldest beyond MAX_ENTRIES. */
  #sweep() {
    const now = performance.now();
    for (const [key, e] of this.#seen) {
      const expired = e.doneAt !== 0 && now - e.doneAt > DONE_TTL_MS;
      if (!expired && this.#seen.size < MAX_ENTRIES) break;
      this.#drop(key, e);
    }
  }

  /** @param {string} key @param {Seen} e */
  #drop(key, e) {
    this.#seen.delete(key);
    if (e.reply !== null) this.#replyBytes -= e.reply.length;
    const alive = this.#sources.get(e.src) ?? 1;
    if (alive <= 1) this.#sources.delete(e.src);
    else this.#sources.set(e.src, alive - 1);
  }

  /** Forget everything (the node stopped). */
  clear() {
    this.#seen.clear();
    this.#sources.clear();
    this.#replyBytes = 0;
  }
}
