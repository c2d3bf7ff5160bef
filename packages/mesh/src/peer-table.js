// @ts-check
/**
 * PeerTable: a node's direct peers and their admitted links, and which link each
 * peer's traffic uses.
 *
 * Invariants:
 * - every peer in `byId` has ≥ 1 link, except between the removal of its last
 *   link and its deletion (MeshNode reports that link's 'link:down' in between);
 *   its entry is made with its first admitted link, so 'peer:up' and 'peer:down'
 *   mark exactly those two moments;
 * - `links` is in admission order; `best` is recomputed on every add and removal:
 *   WebRTC over WebSocket (an upgrade asked for it), then the oldest, a redundant
 *   link only when no other is open;
 * - a second open link of the same transport to one peer is marked redundant and
 *   closed after duplicateLinkGraceMs: the older one keeps the traffic, and closing
 *   at once could race with the peer, which may already use the new one.
 * The table only changes its own state; MeshNode tells the other mechanisms and
 * emits the events.
 */

/** @typedef {import('./link.js').Link} Link */
/** @typedef {import('./mesh-port.js').PeerInfo} PeerInfo */

/**
 * @typedef {object} Peer
 * @property {string} id
 * @property {Link[]} links open links, in admission order
 * @property {Link | null} best the link outbound frames use
 * @property {string | null} listenUrl
 */

export class PeerTable {
  /**
   * Peers by node id. Paths, gossip and heartbeats read it; only this class writes it.
   * @type {Map<string, Peer>}
   */
  byId = new Map();
  /** @type {import('./timer-set.js').TimerSet} */
  #timers;
  #duplicateLinkGraceMs;

  /** @param {import('./timer-set.js').TimerSet} timers @param {number} duplicateLinkGraceMs */
  constructor(timers, duplicateLinkGraceMs) {
    this.#timers = timers;
    this.#duplicateLinkGraceMs = duplicateLinkGraceMs;
  }

  /**
   * Add an admitted link to its peer (made if absent).
   * @param {Link} link
   * @returns {Peer} its peer
   */
  add(link) {
    let peer = this.byId.get(link.peerId);
    if (peer === undefined) {
      peer = { id: link.peerId, links: [], best: null, listenUrl: link.listenUrl };
      this.byId.set(peer.id, peer);
    }
    peer.listenUrl = link.listenUrl ?? peer.listenUrl;
    peer.links.push(link);
    const dup = peer.links.find((l) => l !== link && l.transport === link.transport && !l.closed);
    if (dup) {
      link.redundant = true;
      this.#timers.after(() => link.close('duplicate link'), this.#duplicateLinkGraceMs);
    }
    peer.best = bestLink(peer);
    return peer;
  }

  /**
   * Remove a closed link from its peer (a peer left without links is deleted by
   * delete(), once its link's departure is reported).
   * @param {Link} link
   * @returns {Peer | null} its peer, or null if the link was not in the table
   */
  remove(link) {
    const peer = this.byId.get(link.peerId);
    if (!peer) return null;
    const i = peer.links.indexOf(link);
    if (i < 0) return null;
    peer.links.splice(i, 1);
    peer.best = bestLink(peer);
    return peer;
  }

  /** @param {string} peerId */
  delete(peerId) {
    this.byId.delete(peerId);
  }

  /** @param {Peer} p @returns {PeerInfo} */
  info(p) {
    const links = [...p.links].sort((a, b) => (a === p.best ? -1 : b === p.best ? 1 : 0));
    const best = p.best ?? links[0];
    return {
      id: p.id,
      transport: best?.transport ?? 'websocket',
      address: best?.address ?? '',
      rttMs: best?.rttMs == null ? null : Math.round(best.rttMs * 100) / 100,
      listenUrl: p.listenUrl,
      links: links.map((l) => l.info()),
    };
  }
}

/** Preference: WebRTC over WebSocket (upgrade asked for it), then the oldest. @param {Peer} peer */
function bestLink(peer) {
  let best = null;
  for (const l of peer.links) {
    if (l.closed || l.redundant) continue;
    if (best === null || (l.transport === 'webrtc' && best.transport !== 'webrtc')) best = l;
  }
  return best ?? peer.links.find((l) => !l.closed) ?? null;
}
