// @ts-check
/**
 * Gossip: what this node tells its neighbours and learns from them (docs/mesh.md
 * §9). Each direct peer gets, in a GOSSIP frame, the list of this node's direct
 * peers (id and listen URL); what neighbours send goes into the Router, which the
 * paths consult for nodes with no direct link.
 *
 * Invariants:
 * - at most one GOSSIP round is pending; a round is scheduled on every link
 *   admitted or peer gone, 10 ms later, so a burst of changes costs one round;
 * - rounds carry increasing sequence numbers, so a neighbour drops stale ones;
 * - no round is scheduled or sent while the node is stopped, and stop() cancels
 *   the pending one;
 * - a gossip that changes what is known, or a neighbour forgotten, marks the
 *   topology changed and emits 'routes';
 * - the browser mark: an entry for a direct peer that joined from a browser says so (a
 *   third field, true), and a neighbour's such entry is reported as a browser origin
 *   before 'routes' (so the node knows a tab as one before it can send to it), unless
 *   the neighbour is itself a browser (a page's word about others counts for nothing).
 */
import { encodeGossip, MAX_GOSSIP_ENTRIES } from './frames.js';

/**
 * @typedef {object} GossipInit
 * @property {string} localId this node's id
 * @property {Map<string, import('./peer-table.js').Peer>} peers direct peers (PeerTable.byId)
 * @property {import('./router.js').Router} router written only here
 * @property {import('./paths.js').Paths} paths told when the topology changed
 * @property {import('./emitter.js').Emitter<import('./mesh-port.js').MeshEvents>} events
 * @property {() => boolean} isStarted
 * @property {(peerId: string) => boolean} isBrowserPeer whether a direct peer joined from a browser
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
  /** @type {GossipInit['onBrowserOrigin']} */
  #onBrowserOrigin;
  #seq = 0;
  /** @type {ReturnType<typeof setTimeout> | null} */
  #timer = null;

  /** @param {GossipInit} init */
  constructor(init) {
    this.#localId = init.localId;
    this.#peers = init.peers;
    this.#router = init.router;
    this.#paths = init.paths;
    this.#events = init.events;
    this.#isStarted = init.isStarted;
    this.#isBrowserPeer = init.isBrowserPeer;
    this.#onBrowserOrigin = init.onBrowserOrigin;
  }

  /** Tell every neighbour our direct peers, soon (one round for a burst of changes). */
  schedule() {
    if (this.#timer !== null || !this.#isStarted()) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (!this.#isStarted()) return;
      /** @type {import('./frames.js').GossipEntry[]} */
      const entries = [...this.#peers.values()].slice(0, MAX_GOSSIP_ENTRIES).map((p) => (this.#isBrowserPeer(p.id) ? [p.id, p.listenUrl, true] : [p.id, p.listenUrl]));
      const frame = encodeGossip(++this.#seq, entries);
      for (const p of this.#peers.values()) p.best?.sendControl(frame);
    }, 10);
  }

  /** Cancel the pending round. */
  stop() {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /**
   * A neighbour's GOSSIP.
   * @param {import('./link.js').Link} link @param {import('./frames.js').GossipFrame} f
   */
  onGossip(link, f) {
    if (!this.#isBrowserPeer(link.peerId)) for (const e of f.entries) if (e[2] === true) this.#onBrowserOrigin(e[0], link.peerId);
    if (this.#router.update(link.peerId, f.seq, f.entries)) {
      this.#paths.topologyChanged();
      this.#events.emit('routes', { via: link.peerId });
    }
  }

  /**
   * The last link to a neighbour closed: what it announced no longer holds.
   * @param {string} peerId
   */
  forget(peerId) {
    if (this.#router.forget(peerId)) this.#events.emit('routes', { via: peerId });
  }

  /**
   * Nodes reachable only through a neighbour, as learnt from gossip.
   * @returns {import('./mesh-port.js').RouteInfo[]}
   */
  routes() {
    const out = [];
    for (const [id, r] of this.#router.known()) if (id !== this.#localId && !this.#peers.has(id)) out.push({ id, ...r });
    return out;
  }
}
