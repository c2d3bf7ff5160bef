// @ts-check
/**
 * Routing table: which direct peer forwards best toward a node we have no link to
 * (docs/mesh.md §9). A path vector over gossip:
 *
 * - each neighbour announces, in GOSSIP, the routes it uses: its direct peers (path
 *   empty) and the nodes it reaches through others, each with the path of node ids
 *   between it and the destination and the cost of that path (the neighbour's
 *   measured link RTTs summed, heartbeats.js);
 * - a route is taken from a neighbour only if its path does not contain this node
 *   (no loop can form through us) and it is at most `hopLimit` hops long from here;
 * - a node announces to a neighbour only routes that do not go through that
 *   neighbour (split horizon), nearest first;
 * - the next hop for a destination is the neighbour with the lowest cost: the RTT
 *   of our link to it plus the cost it announced; a link not measured yet counts
 *   UNMEASURED_COST_MS. The hop in use is kept unless another is cheaper by more
 *   than a quarter (and 2 ms), so noise in RTTs does not flap paths.
 *
 * Bounds: per neighbour at most MAX_GOSSIP_ENTRIES routes of at most hopLimit (≤ 16)
 * nodes each, so the table is O(degree × min(N, 1,024)) whatever the size of the
 * mesh; a round announces at most MAX_GOSSIP_ENTRIES routes to each neighbour.
 *
 * Invariant: `#heard` holds entries only for peers with a live link; the node calls
 * forget() when the last link to a peer closes.
 */
import { isNodeId } from './identity.js';
import { MAX_GOSSIP_ENTRIES } from './frames.js';

/** Cost of a link whose round trip is not measured yet. */
export const UNMEASURED_COST_MS = 500;

/** What update() found. */
export const CHANGED = Object.freeze({ NOTHING: 0, COSTS: 1, REACH: 2 });

/**
 * @typedef {object} Route a route a neighbour announced
 * @property {string | null} url the destination's listen URL
 * @property {number} cost from the neighbour to the destination, ms
 * @property {string[]} path nodes between the neighbour and the destination
 */

/** @typedef {(peerId: string) => number | null} RttOf RTT of our link to a neighbour (negative: not measured), null if none */

export class Router {
  #localId;
  #hopLimit;
  /** @type {Map<string, {seq: number, entries: Map<string, Route>}>} */
  #heard = new Map();

  /** @param {string} localId @param {number} hopLimit */
  constructor(localId, hopLimit) {
    this.#localId = localId;
    this.#hopLimit = hopLimit;
  }

  /**
   * Record a neighbour's routes. Entries that are not node ids, that loop through
   * this node or the neighbour, or that are longer than the hop limit are ignored.
   * @param {string} peerId @param {number} seq @param {import('./frames.js').GossipEntry[]} entries
   * @returns {number} a CHANGED value: REACH if the set of destinations it offers changed
   */
  update(peerId, seq, entries) {
    const prev = this.#heard.get(peerId);
    if (prev && seq <= prev.seq) return CHANGED.NOTHING; // stale or repeated
    /** @type {Map<string, Route>} */
    const m = new Map();
    for (const [id, url, cost, path = []] of entries) {
      if (!isNodeId(id) || id === this.#localId || id === peerId || m.has(id)) continue;
      if (path.length + 2 > this.#hopLimit) continue;
      if (path.some((n) => n === this.#localId || n === peerId || n === id || !isNodeId(n))) continue;
      m.set(id, { url, cost: cost ?? UNMEASURED_COST_MS, path });
    }
    this.#heard.set(peerId, { seq, entries: m });
    if (!prev || prev.entries.size !== m.size) return CHANGED.REACH;
    let costs = false;
    for (const [id, r] of m) {
      const o = prev.entries.get(id);
      if (o === undefined) return CHANGED.REACH;
      if (o.cost !== r.cost || o.path.length !== r.path.length || o.path.some((n, i) => n !== r.path[i])) costs = true;
    }
    return costs ? CHANGED.COSTS : CHANGED.NOTHING;
  }

  /** @param {string} peerId @returns {boolean} true if something was known about it */
  forget(peerId) {
    return this.#heard.delete(peerId);
  }

  /**
   * The neighbour to forward to for `dst`, or null.
   * @param {string} dst
   * @param {RttOf} rttOf
   * @param {string} [exclude] never this neighbour (where the frame came from)
   * @param {string | null} [prefer] the hop in use: kept unless another is clearly cheaper
   */
  nextHop(dst, rttOf, exclude, prefer = null) {
    const best = this.#best(dst, rttOf, exclude);
    if (best === null || prefer === null || prefer === best.peer || prefer === exclude) return best?.peer ?? null;
    const kept = this.#costVia(prefer, dst, rttOf);
    return kept !== null && kept <= best.cost * 1.25 + 2 ? prefer : best.peer;
  }

  /**
   * @param {string} dst @param {RttOf} rttOf @param {string} [exclude]
   * @returns {{peer: string, cost: number, route: Route} | null}
   */
  #best(dst, rttOf, exclude) {
    /** @type {{peer: string, cost: number, route: Route} | null} */
    let best = null;
    for (const [peer, h] of this.#heard) {
      if (peer === exclude || peer === dst) continue;
      const route = h.entries.get(dst);
      if (route === undefined) continue;
      const link = linkCost(rttOf(peer));
      if (link === null) continue;
      const cost = link + route.cost;
      if (best === null || cost < best.cost || (cost === best.cost && (route.path.length < best.route.path.length
        || (route.path.length === best.route.path.length && peer < best.peer)))) best = { peer, cost, route };
    }
    return best;
  }

  /** @param {string} peer @param {string} dst @param {RttOf} rttOf */
  #costVia(peer, dst, rttOf) {
    const route = this.#heard.get(peer)?.entries.get(dst);
    const link = linkCost(rttOf(peer));
    return route === undefined || link === null ? null : link + route.cost;
  }

  /**
   * The routes to announce to neighbour `to`: our direct peers, then the nodes we reach
   * through others — none whose best path goes through `to` (split horizon), none that
   * `to` could not use within the hop limit — nearest first, at most MAX_GOSSIP_ENTRIES.
   * @param {string} to
   * @param {Iterable<{id: string, listenUrl: string | null}>} direct our direct peers
   * @param {RttOf} rttOf
   * @returns {import('./frames.js').GossipEntry[]}
   */
  announce(to, direct, rttOf) {
    /** @type {import('./frames.js').GossipEntry[]} */
    const out = [];
    /** @type {Set<string>} */
    const seen = new Set([to, this.#localId]);
    for (const p of direct) {
      if (seen.has(p.id)) continue;
      seen.add(p.id);
      out.push([p.id, p.listenUrl, linkCost(rttOf(p.id)) ?? UNMEASURED_COST_MS, []]);
    }
    /** @type {import('./frames.js').GossipEntry[]} */
    const routed = [];
    for (const h of this.#heard.values()) {
      for (const dst of h.entries.keys()) {
        if (seen.has(dst)) continue;
        seen.add(dst);
        const best = this.#best(dst, rttOf);
        if (best === null || best.peer === to || best.route.path.includes(to)) continue;
        if (best.route.path.length + 3 > this.#hopLimit) continue;
        routed.push([dst, best.route.url, best.cost, [best.peer, ...best.route.path]]);
      }
    }
    routed.sort((a, b) => /** @type {string[]} */ (a[3]).length - /** @type {string[]} */ (b[3]).length);
    for (const e of routed) out.push(e);
    return out.slice(0, MAX_GOSSIP_ENTRIES);
  }

  /**
   * Every node known only through a neighbour, with the neighbours that offer a route
   * to it, the URL announced, and the fewest hops from here.
   * @returns {Map<string, {via: string[], url: string | null, hops: number}>}
   */
  known() {
    /** @type {Map<string, {via: string[], url: string | null, hops: number}>} */
    const out = new Map();
    for (const [peer, h] of this.#heard) {
      for (const [id, r] of h.entries) {
        const e = out.get(id);
        if (e) {
          e.via.push(peer);
          e.url ??= r.url;
          e.hops = Math.min(e.hops, r.path.length + 2);
        } else out.set(id, { via: [peer], url: r.url, hops: r.path.length + 2 });
      }
    }
    return out;
  }
}

/** @param {number | null} rtt @returns {number | null} */
function linkCost(rtt) {
  return rtt === null ? null : rtt < 0 ? UNMEASURED_COST_MS : rtt;
}
