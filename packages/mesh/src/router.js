// @ts-check
/**
 * Routing table: which direct peer can forward to a node we have no link to.
 *
 * Every node tells each direct peer, in GOSSIP frames, the list of *its*
 * direct peers (id and listen URL). So a node knows its neighbours'
 * neighbours: a destination two hops away is reached through any neighbour
 * that announced it, preferring the lowest measured RTT. A forwarding node
 * applies the same rule with its own table, so longer paths form hop by hop
 * while each hop knows a neighbour that lists the destination; the hop limit
 * in ROUTE frames (default 4) ends any loop. This is sized for a small mesh
 * (a daemon and its tabs, a handful of daemons): gossip is O(degree) per
 * change and the table O(degree²).
 *
 * Invariant: `#heard` holds entries only for peers with a live link; the
 * node calls forget() when the last link to a peer closes.
 */
import { isNodeId } from './identity.js';

export class Router {
  /** @type {Map<string, {seq: number, entries: Map<string, string | null>}>} */
  #heard = new Map();

  /**
   * Record a neighbour's list. Entries that are not node ids are ignored.
   * @param {string} peerId @param {number} seq @param {import('./frames.js').GossipEntry[]} entries
   * @returns {boolean} true if it changed what we know
   */
  update(peerId, seq, entries) {
    const prev = this.#heard.get(peerId);
    if (prev && seq <= prev.seq) return false; // stale or repeated
    /** @type {Map<string, string | null>} */
    const m = new Map();
    for (const [id, url] of entries) if (isNodeId(id)) m.set(id, url);
    const changed = !prev || prev.entries.size !== m.size || [...m.keys()].some((k) => !prev.entries.has(k));
    this.#heard.set(peerId, { seq, entries: m });
    return changed;
  }

  /** @param {string} peerId @returns {boolean} true if something was known about it */
  forget(peerId) {
    return this.#heard.delete(peerId);
  }

  /**
   * The neighbour to forward to for `dst`, or null.
   * @param {string} dst
   * @param {(peerId: string) => number | null} rttOf RTT of our link to a neighbour, null if none
   * @param {string} [exclude] never this neighbour (where the frame came from)
   */
  nextHop(dst, rttOf, exclude) {
    let best = null;
    let bestRtt = Infinity;
    for (const [peer, h] of this.#heard) {
      if (peer === exclude || peer === dst || !h.entries.has(dst)) continue;
      const rtt = rttOf(peer);
      if (rtt === null) continue;
      const r = rtt < 0 ? 1e9 : rtt;
      if (r < bestRtt || (r === bestRtt && best !== null && peer < best)) {
        best = peer;
        bestRtt = r;
      }
    }
    return best;
  }

  /**
   * Every node known only through a neighbour, with the neighbours that list it
   * and the URL they announced.
   * @returns {Map<string, {via: string[], url: string | null}>}
   */
  known() {
    /** @type {Map<string, {via: string[], url: string | null}>} */
    const out = new Map();
    for (const [peer, h] of this.#heard) {
      for (const [id, url] of h.entries) {
        const e = out.get(id);
        if (e) {
          e.via.push(peer);
          e.url ??= url;
        } else out.set(id, { via: [peer], url });
      }
    }
    return out;
  }
}
