// @ts-check
/**
 * Reverse paths: for each node whose routed frames passed through or reached this one,
 * the neighbour they last came from (docs/mesh.md §9, "Replies before gossip"). Paths
 * uses it only for a destination the routing table does not know yet, so an answer goes
 * back the way its request came while gossip is still carrying the routes across the mesh.
 *
 * Invariants:
 * - bounded: at most `maxEntries` sources; the one noted longest ago is dropped first;
 * - an entry older than `ttlMs` is never used (and is dropped when looked at);
 * - noting is the cost of a Map lookup when the entry is unchanged (every routed frame
 *   notes its source: this is on the forwarding path); the clock is read once in
 *   REFRESH_EVERY such frames, so a source heard rarely may expire while it still sends
 *   (its next frame notes it again);
 * - an entry names a neighbour, not a link: the link in use to that neighbour at send
 *   time carries the frame, and no entry is used once that neighbour is gone;
 * - when a source's frames start coming through another neighbour, the one it left is
 *   remembered for LEFT_MS (`left`): a source that sent a request again around a relay
 *   it found gone is answered around it too (request-service.js).
 */

/** Sources remembered at most. */
export const REVERSE_MAX_ENTRIES = 4096;
/** How long an entry may be used after the last frame that noted it, ms. */
export const REVERSE_TTL_MS = 60_000;
/** How long the neighbour a source stopped sending through is remembered, ms. */
export const LEFT_MS = 10_000;
/** An unchanged entry is re-noted (its time refreshed) at most this often, ms. */
const REFRESH_MS = 1000;
/** An unchanged entry looks at the clock once in this many frames (a power of two). */
const REFRESH_EVERY = 16;

export class ReversePaths {
  /** @type {Map<string, {via: string, at: number, left: string | null, leftAt: number, hits: number}>} */
  #entries = new Map();
  #max;
  #ttlMs;

  /** @param {number} [maxEntries] @param {number} [ttlMs] */
  constructor(maxEntries = REVERSE_MAX_ENTRIES, ttlMs = REVERSE_TTL_MS) {
    this.#max = maxEntries;
    this.#ttlMs = ttlMs;
  }

  get size() {
    return this.#entries.size;
  }

  /**
   * A routed frame from `src` arrived from neighbour `via`.
   * @param {string} src @param {string} via
   * @returns {boolean} true if this is news (a new source, or another neighbour)
   */
  note(src, via) {
    const e = this.#entries.get(src);
    // the same way again: the clock is read only every REFRESH_EVERY frames
    if (e !== undefined && e.via === via && (++e.hits & (REFRESH_EVERY - 1)) !== 0) return false;
    const now = performance.now();
    if (e !== undefined && e.via === via) {
      if (now - e.at > REFRESH_MS) {
        // re-inserted so the Map's order stays oldest-noted first
        this.#entries.delete(src);
        e.at = now;
        this.#entries.set(src, e);
      }
      return false;
    }
    if (e !== undefined) this.#entries.delete(src);
    else if (this.#entries.size >= this.#max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(src, { via, at: now, left: e?.via ?? null, leftAt: now, hits: 0 });
    return true;
  }

  /**
   * The neighbour frames from `src` last came from, if noted within the TTL.
   * @param {string} src @returns {string | null}
   */
  via(src) {
    const e = this.#entries.get(src);
    if (e === undefined) return null;
    if (performance.now() - e.at > this.#ttlMs) {
      this.#entries.delete(src);
      return null;
    }
    return e.via;
  }

  /**
   * The neighbour `src`'s frames stopped coming through (for another) within LEFT_MS, or null.
   * @param {string} src @returns {string | null}
   */
  left(src) {
    const e = this.#entries.get(src);
    return e === undefined || e.left === null || performance.now() - e.leftAt > LEFT_MS ? null : e.left;
  }

  /** Forget everything (the node stopped). */
  clear() {
    this.#entries.clear();
  }
}
