// @ts-check
/**
 * Paths: how end-to-end frames leave this node for each destination — on a direct
 * link, or wrapped in ROUTE on the link to a neighbour that forwards them (docs/mesh.md
 * §9) — and the path switch that keeps them in order when that link changes (§4).
 *
 * State and invariants:
 * - `#dests`: per destination, the next-hop link and whether frames are routed,
 *   computed at topology version `#topo`; recomputed lazily by the first send after
 *   topologyChanged() (called on every link admitted or closed and on every gossip
 *   that changed what is known). The send path reads a cached entry and allocates
 *   nothing but its result.
 * - Path switch: when a destination's link changes while the old one is still open
 *   and not silent (nothing received for a heartbeat period and SILENCE_MARGIN_MS),
 *   a SWITCH goes out on the old path and new frames are held (bounded by
 *   maxQueueBytes) until the peer acknowledges it — which it receives after
 *   everything sent before it — or until switchTimeoutMs; then the held frames
 *   leave, in order, on the current path. A hold whose old link closes is released
 *   at once. A send refused for lack of room while holding is owed a 'drain'.
 * - Sends are accepted only while open (between MeshNode's start() and stop()).
 * - A neighbour whose link fell silent (nothing received for a heartbeat period and
 *   SILENCE_MARGIN_MS: it may be gone, seconds before the heartbeat timeout says so) is
 *   not chosen while another way exists; a routed path through one is chosen again on
 *   its next send (one clock read per routed send). A neighbour suspected of swallowing
 *   frames for a destination (routed-requests.js) is not chosen for it for
 *   SUSPECT_FOR_MS while another way exists; at most
 *   MAX_SUSPECTS destinations are so marked (the oldest mark goes first).
 * - A destination the routing table does not know is sent toward the neighbour its
 *   routed frames last came from (reverse-paths.js), if that neighbour is still linked:
 *   an answer goes back the way its request came while gossip converges. Learning such
 *   a way for a destination cached as unreachable makes its entry stale.
 */
import { encodeRoute, encodeSwitch, encodeSwitchAck } from './frames.js';
import { FrameTooLargeError, InvalidArgumentError, NotStartedError, QueueFullError, UnreachableError } from './errors.js';
import { ReversePaths } from './reverse-paths.js';

/** Silence on a link, beyond a heartbeat period, after which its peer counts as gone for routing, ms. */
export const SILENCE_MARGIN_MS = 250;
/** How long a neighbour that swallowed a request for a destination is avoided for it, ms. */
export const SUSPECT_FOR_MS = 60_000;
/** Destinations with a neighbour avoided, at most. */
const MAX_SUSPECTS = 1024;

/** @typedef {import('./link.js').Link} Link */

/**
 * @typedef {object} Hold frames held while a destination's path switches
 * @property {number} epoch
 * @property {Uint8Array[]} frames end-to-end frames, in send order
 * @property {number} bytes
 * @property {Link} from the old link (released early if it closes)
 * @property {ReturnType<typeof setTimeout>} timer
 * @property {boolean} refused a send was refused for lack of room (owe a 'drain')
 */
/**
 * @typedef {object} Dest
 * @property {string} id
 * @property {Link | null} link next-hop link, null if unreachable
 * @property {boolean} routed frames are wrapped in ROUTE for `link`'s peer to forward
 * @property {number} version the #topo it was computed at
 * @property {Hold | null} hold
 */

/**
 * @typedef {object} PathsInit
 * @property {import('./options.js').MeshNodeOptions} options
 * @property {string} localId this node's id
 * @property {Map<string, import('./peer-table.js').Peer>} peers direct peers (PeerTable.byId)
 * @property {import('./router.js').Router} router what neighbours announced
 * @property {import('./timer-set.js').TimerSet} timers
 * @property {import('./emitter.js').Emitter<import('./mesh-port.js').MeshEvents>} events
 * @property {import('./logger.js').Logger} logger the route log
 */

export class Paths {
  /** @type {import('./options.js').MeshNodeOptions} */
  #o;
  #localId;
  /** @type {Map<string, Dest>} */
  #dests = new Map();
  #topo = 1;
  #switchEpoch = 0;
  #open = false;
  /** @type {Map<string, import('./peer-table.js').Peer>} */
  #peers;
  /** @type {import('./router.js').Router} */
  #router;
  /** @type {import('./timer-set.js').TimerSet} */
  #timers;
  /** @type {import('./emitter.js').Emitter<import('./mesh-port.js').MeshEvents>} */
  #events;
  /** @type {import('./logger.js').Logger} */
  #log;
  #reverse = new ReversePaths();
  /** destination → neighbour avoided for it, until (performance.now()) @type {Map<string, {hop: string, until: number}>} */
  #suspects = new Map();

  /** @param {PathsInit} init */
  constructor(init) {
    this.#o = init.options;
    this.#localId = init.localId;
    this.#peers = init.peers;
    this.#router = init.router;
    this.#timers = init.timers;
    this.#events = init.events;
    this.#log = init.logger;
  }

  /** Accept sends (the node started). */
  open() {
    this.#open = true;
  }

  /** Refuse sends from now on with NotStartedError (the node is stopping). */
  close() {
    this.#open = false;
  }

  /** Forget every destination and end every hold without sending (the node stopped). */
  clear() {
    for (const d of this.#dests.values()) if (d.hold) clearTimeout(d.hold.timer);
    this.#dests.clear();
    this.#reverse.clear();
    this.#suspects.clear();
  }

  /**
   * Neighbour `hop` swallowed a request for `dst` (it answers heartbeats): avoid it for
   * `dst` while another way exists, for SUSPECT_FOR_MS.
   * @param {string} hop @param {string} dst
   */
  suspect(hop, dst) {
    if (this.#suspects.size >= MAX_SUSPECTS && !this.#suspects.has(dst)) {
      const oldest = this.#suspects.keys().next().value;
      if (oldest !== undefined) this.#suspects.delete(oldest);
    }
    this.#suspects.set(dst, { hop, until: performance.now() + SUSPECT_FOR_MS });
    this.#log.warn('neighbour avoided for a destination: a request through it went unanswered', { hop, dst, forMs: SUSPECT_FOR_MS });
    this.#topo++;
  }

  /**
   * A routed frame from `src` came from neighbour `via` (forwarding.js): remember the way
   * back, for when no route to `src` is known.
   * @param {string} src @param {string} via
   */
  noteReverse(src, via) {
    if (!this.#reverse.note(src, via)) return;
    const d = this.#dests.get(src);
    if (d !== undefined && (d.link === null || d.link.closed)) d.version = 0;
  }

  /** A link came or went, or gossip changed what is known: every path is recomputed when next used. */
  topologyChanged() {
    this.#topo++;
  }

  /**
   * A link closed: the topology changed, and holds waiting on it are released now.
   * @param {Link} link
   */
  linkClosed(link) {
    this.#topo++;
    for (const d of this.#dests.values()) if (d.hold !== null && d.hold.from === link) this.#release(d);
  }

  /**
   * Send an end-to-end frame to `peerId` on its current path. Returns null
   * on success or the error (the hot path allocates nothing else).
   * @param {string} peerId @param {Uint8Array} inner an encoded end-to-end frame
   * @param {boolean} [force] ignore the queue bound (frames released after a path switch)
   * @returns {Error | null}
   */
  trySend(peerId, inner, force = false) {
    if (!this.#open) return new NotStartedError(`node ${this.#localId} is not started`);
    let d = this.#dests.get(peerId);
    // a routed path whose neighbour fell silent is chosen again (around it, if another way exists)
    if (d === undefined || d.version !== this.#topo || (d.routed && d.link !== null && this.#linkSilent(d.link))) d = this.#repath(peerId, d);
    if (d.hold !== null && !force) return this.#holdFrame(d, inner);
    const link = d.link;
    if (link === null) return peerId === this.#localId ? new InvalidArgumentError('cannot send to this node itself') : new UnreachableError(peerId);
    if (inner.length > this.#o.maxFrameBytes) return new FrameTooLargeError(inner.length, this.#o.maxFrameBytes, 'frame');
    const frame = d.routed ? encodeRoute(peerId, this.#localId, this.#o.hopLimit, inner) : inner;
    if (force) link.sendFrame(frame, peerId) || link.forceFrame(frame);
    else if (!link.sendFrame(frame, peerId)) return new QueueFullError(peerId, link.queuedBytes, link.maxQueueBytes);
    return null;
  }

  /**
   * True if a send to `peerId` would be accepted now; if not, the link (or the
   * hold) owes a 'drain' for it.
   * @param {string} peerId
   */
  canSend(peerId) {
    if (!this.#open) return false;
    const d = this.pathTo(peerId);
    if (d.hold !== null) {
      if (d.hold.bytes < this.#o.maxQueueBytes) return true;
      d.hold.refused = true;
      return false;
    }
    if (d.link === null) return false;
    if (d.link.canSend()) return true;
    d.link.wantDrain(peerId);
    return false;
  }

  /**
   * The destination state of `peerId`, up to date with the topology.
   * @param {string} peerId
   */
  pathTo(peerId) {
    const d = this.#dests.get(peerId);
    return d !== undefined && d.version === this.#topo ? d : this.#repath(peerId, d);
  }

  /**
   * Recompute a destination's next hop. If it changes while the old link is
   * open, start a path switch (SWITCH on the old path, hold new frames).
   * @param {string} peerId @param {Dest | undefined} d
   * @returns {Dest}
   */
  #repath(peerId, d) {
    const { link, routed } = this.route(peerId);
    if (d === undefined) {
      d = { id: peerId, link, routed, version: this.#topo, hold: null };
      if (this.#dests.size > 100_000) this.#pruneDests();
      this.#dests.set(peerId, d);
      return d;
    }
    const old = d.link;
    const oldRouted = d.routed;
    d.link = link;
    d.routed = routed;
    d.version = this.#topo;
    // no switch from a silent or suspected link: what went on it is likely lost, and its ack would not come
    if (d.hold === null && old !== null && !old.closed && link !== null && old !== link && !this.#linkSilent(old) && this.#suspects.get(peerId)?.hop !== old.peerId) {
      const epoch = ++this.#switchEpoch;
      const sw = encodeSwitch(epoch);
      old.sendFrame(oldRouted ? encodeRoute(peerId, this.#localId, this.#o.hopLimit, sw) : sw) || old.forceFrame(sw);
      d.hold = {
        epoch, frames: [], bytes: 0, from: old, refused: false,
        timer: this.#timers.after(() => {
          this.#log.info('path switch not acknowledged in time: sending anyway', { peer: peerId, epoch, timeoutMs: this.#o.switchTimeoutMs });
          this.#release(/** @type {Dest} */ (d));
        }, this.#o.switchTimeoutMs),
      };
      this.#log.debug('path switch', { peer: peerId, epoch, from: old.transport, to: link.transport, routed });
    }
    return /** @type {Dest} */ (d);
  }

  /**
   * Best next hop for `peerId`: its best direct link, else the link to the
   * neighbour with the cheapest route to it (router.js; the hop in use is kept
   * unless another is clearly cheaper), else the neighbour its routed frames last came
   * from (reverse-paths.js).
   * @param {string} peerId @param {string} [exclude] neighbour not to route through
   * @returns {{link: Link | null, routed: boolean}}
   */
  route(peerId, exclude) {
    const p = this.#peers.get(peerId);
    if (p && p.best) return { link: p.best, routed: false };
    const d = this.#dests.get(peerId);
    let prefer = d !== undefined && d.routed && d.link !== null && !d.link.closed ? d.link.peerId : null;
    const rttOf = (/** @type {string} */ id) => {
      const b = this.#peers.get(id)?.best;
      return b ? (b.rttMs ?? -1) : null;
    };
    const s = this.#suspects.size === 0 ? undefined : this.#suspects.get(peerId);
    if (s !== undefined && performance.now() > s.until) this.#suspects.delete(peerId);
    const avoid = s !== undefined && this.#suspects.has(peerId) ? s.hop : null;
    if (prefer !== null && (prefer === avoid || this.silent(prefer))) prefer = null;
    // silent neighbours, and the one suspected for this destination, count as unlinked;
    // if no other way is known, they are used after all
    const hop = this.#router.nextHop(peerId, (id) => {
      const b = this.#peers.get(id)?.best;
      return !b || id === avoid || this.#linkSilent(b) ? null : (b.rttMs ?? -1);
    }, exclude, prefer) ?? this.#router.nextHop(peerId, rttOf, exclude, prefer) ?? this.#reverseHop(peerId, exclude);
    const b = hop === null ? null : this.#peers.get(hop)?.best ?? null;
    return { link: b, routed: b !== null };
  }

  /**
   * Whether `peerId` has a direct link or a route from gossip (a reverse path does not
   * count: it only carries answers while gossip converges, and must not keep a node that
   * left looking reachable to those who watch it).
   * @param {string} peerId
   */
  known(peerId) {
    if (this.#peers.get(peerId)?.best) return true;
    return this.#router.nextHop(peerId, (id) => {
      const b = this.#peers.get(id)?.best;
      return b ? (b.rttMs ?? -1) : null;
    }) !== null;
  }

  /**
   * The neighbour routed frames from `peerId` last came from, if it is still linked.
   * @param {string} peerId @param {string} [exclude] @returns {string | null}
   */
  #reverseHop(peerId, exclude) {
    const via = this.#reverse.via(peerId);
    return via === null || via === exclude || via === this.#localId || !this.#peers.get(via)?.best ? null : via;
  }

  /** @param {Dest} d @param {Uint8Array} inner @returns {Error | null} */
  #holdFrame(d, inner) {
    const h = /** @type {Hold} */ (d.hold);
    if (h.bytes >= this.#o.maxQueueBytes) {
      h.refused = true;
      return new QueueFullError(d.id, h.bytes, this.#o.maxQueueBytes);
    }
    h.frames.push(inner);
    h.bytes += inner.length;
    return null;
  }

  /** End a path switch: send the held frames on the (current) path. @param {Dest} d */
  #release(d) {
    const h = d.hold;
    if (h === null) return;
    this.#timers.cancel(h.timer);
    d.hold = null;
    // Recompute without starting another switch: everything sent before is acknowledged.
    const { link, routed } = this.route(d.id);
    d.link = link;
    d.routed = routed;
    d.version = this.#topo;
    for (const f of h.frames) {
      const e = this.trySend(d.id, f, true);
      if (e) this.#events.emit('send:error', { id: d.id, error: e });
    }
    if (h.refused) this.#events.emit('drain', { id: d.id });
  }

  #pruneDests() {
    for (const [id, d] of this.#dests) if (d.hold === null && (d.link === null || d.link.closed)) this.#dests.delete(id);
  }

  /**
   * A SWITCH from `from`: everything it sent on the old path before it has arrived,
   * so acknowledge it (past any hold of ours).
   * @param {string} from @param {number} epoch
   */
  acknowledgeSwitch(from, epoch) {
    this.sendUrgent(from, encodeSwitchAck(epoch));
  }

  /**
   * A SWITCH_ACK from `from`: the frames held for it may leave.
   * @param {string} from @param {number} epoch
   */
  switchAcknowledged(from, epoch) {
    const d = this.#dests.get(from);
    if (d?.hold && d.hold.epoch === epoch) this.#release(d);
  }

  /**
   * Whether direct peer `peerId` has no link, or its link has received nothing (not even
   * a heartbeat) for a heartbeat period and SILENCE_MARGIN_MS: a relay that may be gone,
   * seconds before the heartbeat timeout closes its link.
   * @param {string} peerId
   */
  silent(peerId) {
    const b = this.#peers.get(peerId)?.best;
    return b ? this.#linkSilent(b) : true;
  }

  /** @param {Link} link */
  #linkSilent(link) {
    return Date.now() - link.lastSeen > this.#o.heartbeatIntervalMs + SILENCE_MARGIN_MS;
  }

  /**
   * Send an end-to-end frame to `peerId` on a way that does not go through neighbour
   * `avoid`, regardless of holds (a request sent again: routed-requests.js).
   * @param {string} peerId @param {Uint8Array} inner @param {string} avoid
   * @param {boolean} [orSame] if there is no such way, send it through `avoid` again (a
   *   neighbour further on may have gone around what swallowed it)
   * @returns {string | null} the neighbour it went to, or null if there was no such way
   */
  sendAvoiding(peerId, inner, avoid, orSame = false) {
    if (!this.#open) return null;
    let { link, routed } = this.route(peerId, avoid);
    if ((link === null || link.peerId === avoid) && orSame) ({ link, routed } = this.route(peerId));
    if (link === null || (link.peerId === avoid && !orSame)) return null;
    const frame = routed ? encodeRoute(peerId, this.#localId, this.#o.hopLimit, inner) : inner;
    return link.sendFrame(frame) || link.forceFrame(frame) ? link.peerId : null;
  }

  /**
   * Whether an answer to a request from `src` that came through neighbour `via` should
   * go back through `via` rather than on the current path: the current path goes through
   * the neighbour `src` has just stopped sending through (it went around it).
   * @param {string} src @param {string} via
   */
  answerAround(src, via) {
    const left = this.#reverse.left(src);
    if (left === null || left === via) return false;
    const d = this.pathTo(src);
    return d.link === null || d.link.peerId === left || (d.hold !== null && d.hold.from.peerId === left);
  }

  /**
   * Send an end-to-end frame to `peerId` through neighbour `via` (or directly if `via`
   * is null or `peerId` itself), regardless of holds: an answer going the way its
   * request's latest copy came.
   * @param {string} peerId @param {Uint8Array} inner @param {string | null} via
   * @returns {boolean} false if there is no link to `via` (or to `peerId`) now
   */
  sendVia(peerId, inner, via) {
    if (!this.#open) return false;
    const link = this.#peers.get(via ?? peerId)?.best;
    if (!link) return false;
    const frame = via === null || via === peerId ? inner : encodeRoute(peerId, this.#localId, this.#o.hopLimit, inner);
    return link.sendFrame(frame) || link.forceFrame(frame);
  }

  /**
   * A frame to send on a node's current path regardless of holds (acks,
   * routed errors, signals refused).
   * @param {string} peerId @param {Uint8Array} inner
   */
  sendUrgent(peerId, inner) {
    const { link, routed } = this.route(peerId);
    if (!link) return false;
    const frame = routed ? encodeRoute(peerId, this.#localId, this.#o.hopLimit, inner) : inner;
    return link.sendFrame(frame) || link.forceFrame(frame);
  }
}
