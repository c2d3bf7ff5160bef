// @ts-check
/**
 * Which nodes joined the mesh from a browser, as far as this node knows: its direct
 * peers that did (their WebSocket upgrade carried `Origin`, or they opened a WebRTC
 * link here), and nodes other nodes reported so (a marked ROUTE or GOSSIP entry:
 * forwarding.js, gossip.js).
 *
 * Invariants:
 * - `direct` holds only peers that are up (the node deletes one when it goes);
 * - a node is reported as a browser origin once (note() returns true once per node),
 *   never this node and never a node linked here as a daemon: what this node saw
 *   itself wins over what others say;
 * - at most MAX_ORIGINS reported nodes are remembered; beyond, all are forgotten and
 *   reported again (a report restricts, so reporting twice is harmless).
 */

/** Browser origins remembered (beyond, forgotten and reported again). */
export const MAX_ORIGINS = 4096;

export class BrowserMarks {
  /** Direct peers that joined from a browser, while they are up. @type {Set<string>} */
  direct = new Set();
  /** Nodes reported as browser origins. @type {Set<string>} */
  #origins = new Set();
  #localId;

  /** @param {string} localId */
  constructor(localId) {
    this.#localId = localId;
  }

  /** Whether `id` is known to be a browser: a direct browser peer, or one reported so. @param {string} id */
  isBrowser(id) {
    return this.direct.has(id) || this.#origins.has(id);
  }

  /**
   * A node said to have joined from a browser. True if it is to be reported now
   * (first time; not this node; not a node linked here as a daemon).
   * @param {string} id @param {(id: string) => boolean} isDirectPeer
   */
  note(id, isDirectPeer) {
    if (this.#origins.has(id) || id === this.#localId || (isDirectPeer(id) && !this.direct.has(id))) return false;
    if (this.#origins.size >= MAX_ORIGINS) this.#origins.clear();
    this.#origins.add(id);
    return true;
  }
}
