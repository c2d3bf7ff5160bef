// @ts-check
/**
 * Gossip: what this node tells its neighbours and learns from them (docs/mesh.md
 * §9). Each direct peer gets, in a GOSSIP frame, the routes this node uses (its
 * direct peers, and the nodes it reaches through others, with their paths and
 * costs: Router.announce, split horizon per neighbour); what neighbours send goes
 * into the Router, which the paths consult for nodes with no direct link.
 *
 * Invariants:
 * - at most one GOSSIP round is pending; a round is scheduled on every link
 *   admitted or peer gone, and on every gossip received that changed which nodes
 *   a neighbour offers, 10 ms later, so a burst of changes costs one round;
 * - every REFRESH_MS while started, a round goes out if costs moved since the last one
 *   (a link's RTT by more than a fifth and 2 ms, or a neighbour announced other costs),
 *   carrying the costs as measured now; a change of cost alone schedules nothing sooner
 *   (RTTs move all the time), and a quiet mesh sends no GOSSIP at all;
 * - rounds carry increasing sequence numbers, so a neighbour drops stale ones;
 * - no round is scheduled or sent while the node is stopped, and stop() cancels
 *   the pending one and the refresh;
 * - a gossip that changes which nodes are reachable, or a neighbour forgotten,
 *   marks the topology changed and emits 'routes'; one that changes costs only
 *   marks the topology changed (paths are chosen again on their next use).
 * - the browser mark: an entry for a node this one knows joined from a browser (a
 *   direct peer that did, or one reported so: isBrowser) says so (a fifth field, true),
 *   and a neighbour's such entry is reported as a browser origin before 'routes' (so the
 *   node knows a tab as one before it can send to it), unless the neighbour is itself a
 *   browser (a page's word about others counts for nothing).
 */
import { encodeGossip } from './frames.js';
import { CHANGED } from './router.js';

/** Period of the rounds that refresh costs, ms. */
export const REFRESH_MS = 2000;

/**
 * @typedef {object} GossipInit
 * @property {string} localId this node's id
 * @property {Map<string, import('./peer-table.js').Peer>} peers direct peers (PeerTable.byId)
 * @property {import('./router.js').Router} router written only here
 * @property {import('./paths.js').Paths} paths told when the topology changed
 * @property {import('./emitter.js').Emitter<import('./mesh-port.js').MeshEvents>} events
 * @property {() => boolean} isStarted
 * @property {(peerId: string) => boolean} isBrowserPeer whether a direct peer joined from a browser
 * @property {(id: string) => boolean} isBrowser whether a node is known to have joined from a browser
 *   (a direct browser peer, or one reported as a browser origin)
 * @property {(id: string, via: string) => void} onBrowserOrigin a neighbour says `id` joined it from a browser
 */

export class Gossip {
  #localId;
  /** @type {Map<string, import('./peer-table.js').Peer>} */
  #peers;
  /** @type {import('./router.js').Router} */
  #router;
  /** @type {import('./paths.js').Paths} */
  #paths;
  /** @type {import('./emitter.js').Emitter<import('./mesh-port.js').MeshEvents>} */
  #events;
  /** @type {() => boolean} */
  #isStarted;
  /** @type {GossipInit['isBrowserPeer']} */
  #isBrowserPeer;
  /** @type {GossipInit['isBrowser']} */
  #isBrowser;
  /** @type {GossipInit['onBrowserOrigin']} */
  #onBrowserOrigin;
  #seq = 0;
  /** @type {ReturnType<typeof setTimeout> | null} */
  #timer = null;
  /** @type {ReturnType<typeof setInterval> | null} */
  #refresh = null;
  /** Link RTTs as the last round announced them. @type {Map<string, number>} */
  #sentRtt = new Map();
  /** A neighbour announced other costs since the last round. */
  #costsMoved = false;

  /** @param {GossipInit} init */
  constructor(init) {
    this.#localId = init.localId;
    this.#peers = init.peers;
    this.#router = init.router;
    this.#paths = init.paths;
    this.#events = init.events;
    this.#isStarted = init.isStarted;
    this.#isBrowserPeer = init.isBrowserPeer;
    this.#isBrowser = init.isBrowser;
    this.#onBrowserOrigin = init.onBrowserOrigin;
  }

  /** Send a round every REFRESH_MS from now on (the node started). */
  start() {
    if (this.#refresh === null) this.#refresh = setInterval(() => { if (this.#costsMoved || this.#linksMoved()) this.schedule(); }, REFRESH_MS);
  }

  /** Tell every neighbour our routes, soon (one round for a burst of changes). */
  schedule() {
    if (this.#timer !== null || !this.#isStarted()) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#isStarted()) this.#round();
    }, 10);
  }

  /** One GOSSIP to each neighbour: the routes it may use through us. */
  #round() {
    const seq = ++this.#seq;
    const rttOf = (/** @type {string} */ id) => {
      const b = this.#peers.get(id)?.best;
      return b ? (b.rttMs ?? -1) : null;
    };
    const direct = [...this.#peers.values()];
    this.#costsMoved = false;
    this.#sentRtt.clear();
    for (const p of direct) this.#sentRtt.set(p.id, p.best?.rttMs ?? -1);
    for (const p of direct) {
      if (p.best === null) continue;
      const entries = this.#router.announce(p.id, direct, rttOf);
      for (const e of entries) if (this.#isBrowser(e[0])) e.push(true); // the browser mark
      p.best.sendControl(encodeGossip(seq, entries));
    }
  }

  /** Whether a link's RTT moved by more than a fifth (and 2 ms) since the last round. */
  #linksMoved() {
    for (const p of this.#peers.values()) {
      const now = p.best?.rttMs ?? -1;
      const sent = this.#sentRtt.get(p.id);
      if (sent === undefined || Math.abs(now - sent) > Math.max(2, 0.2 * Math.max(now, sent))) return true;
    }
    return false;
  }

  /** Cancel the pending round and the refresh. */
  stop() {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#refresh) clearInterval(this.#refresh);
    this.#refresh = null;
  }

  /**
   * A neighbour's GOSSIP.
   * @param {import('./link.js').Link} link @param {import('./frames.js').GossipFrame} f
   */
  onGossip(link, f) {
    if (!this.#isBrowserPeer(link.peerId)) for (const e of f.entries) if (e[4] === true) this.#onBrowserOrigin(e[0], link.peerId);
    // a browser is never a relay: every tab is linked to a daemon, which reaches it and
    // what lies behind it, and a frame a browser forwards from a daemon is refused by the
    // next daemon (forwarding.js): a route through one would lose frames
    const changed = this.#router.update(link.peerId, f.seq, this.#isBrowserPeer(link.peerId) ? [] : f.entries);
    if (changed === CHANGED.NOTHING) return;
    this.#paths.topologyChanged();
    if (changed === CHANGED.COSTS) {
      this.#costsMoved = true;
      return;
    }
    this.#events.emit('routes', { via: link.peerId });
    this.schedule();
  }

  /**
   * The last link to a neighbour closed: what it announced no longer holds.
   * @param {string} peerId
   */
  forget(peerId) {
    if (this.#router.forget(peerId)) {
      this.#paths.topologyChanged();
      this.#events.emit('routes', { via: peerId });
    }
  }

  /**
   * Nodes reachable only through a neighbour, as learnt from gossip.
   * @returns {import('./mesh-port.js').RouteInfo[]}
   */
  routes() {
    const out = [];
    for (const [id, r] of this.#router.known()) if (id !== this.#localId && !this.#peers.has(id)) out.push({ id, via: r.via, url: r.url, hops: r.hops });
    return out;
  }
}
