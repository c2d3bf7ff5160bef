// @ts-check
/**
 * MeshNode: the contract the runtime uses (docs/mesh.md §1). It moves opaque
 * payloads between node ids over admitted links, directly or through a
 * neighbour, and reports peers coming and going.
 *
 * State and invariants:
 * - `#peers`: direct peers, each with ≥ 1 admitted Link. A peer is "up" from
 *   the admission of its first link to the close of its last ('peer:up' and
 *   'peer:down' fire exactly once per such period).
 * - `#dests`: outbound state per destination: the link frames leave on (a
 *   direct link, or the link to the neighbour that forwards), recomputed
 *   lazily when `#topo` (bumped on every topology change) moved on.
 * - Path switch: when a destination's link changes while the old one is
 *   still open, new frames are held (bounded by maxQueueBytes) until the peer
 *   acknowledges a SWITCH sent on the old path — which it receives after
 *   everything sent before it — or until switchTimeoutMs; so messages between
 *   two nodes stay in order across an upgrade.
 * - Every timer is cleared by stop(); every handshake is bounded by
 *   handshakeTimeoutMs; every request by its timeout.
 */
import { Emitter } from './emitter.js';
import { createLogger } from './logger.js';
import { resolveOptions } from './options.js';
import { Link } from './link.js';
import { Router } from './router.js';
import { PendingRequests } from './requests.js';
import { ReassemblyBudget } from './chunking.js';
import { NonceCache, ROLE_DIALER, ROLE_LISTENER, deriveTokenKey, runHandshake } from './admission.js';
import {
  T, ROUTABLE, decodeFrame, encodeError, encodeGossip, encodeIdPayload, encodeMsg, encodeResErr, encodeRoute,
  encodeSignal, encodeSwitch, encodeSwitchAck, msgPayload, peekType, typeName, MAX_GOSSIP_ENTRIES,
} from './frames.js';
import {
  AbortError, FrameTooLargeError, HopLimitError, InvalidArgumentError, MalformedFrameError, NoHandlerError, NotStartedError,
  PeerDownError, QueueFullError, SignallingError, TooManyRequestsError, UnexpectedFrameError, UnreachableError, UpgradeError,
  throwIfAborted,
} from './errors.js';
import { isNodeId } from './identity.js';
import { webSocketTransport } from './transports/websocket.js';
import { webRTCTransport } from './transports/webrtc.js';

/**
 * @typedef {object} LinkInfo
 * @property {'websocket' | 'webrtc'} transport
 * @property {string} address
 * @property {'outbound' | 'inbound'} direction
 * @property {number | null} rttMs smoothed heartbeat round trip
 * @property {number} queuedBytes bytes waiting in the link's send queue
 * @property {number} bufferedBytes bytes in the transport's buffer
 * @property {number} since Date.now() at admission
 */
/**
 * @typedef {object} PeerInfo
 * @property {string} id
 * @property {'websocket' | 'webrtc'} transport transport of the link traffic uses
 * @property {string} address its address
 * @property {number | null} rttMs
 * @property {string | null} listenUrl where the peer says it can be dialled
 * @property {LinkInfo[]} links every open link, the one in use first
 */
/**
 * Events of a MeshNode (node.on(name, handler)):
 * - 'peer:up': the first link to a peer was admitted;
 * - 'peer:down': the last link to a peer closed (reason: 'heartbeat timeout: …',
 *   'peer left: <its reason>', 'closed by peer (code …)', 'node stopping', …);
 * - 'link:up' / 'link:down': any link (also the first / the last);
 * - 'drain': canSend(id) is true again after it was false or a send was refused;
 * - 'send:error': a send() that returned false, and why;
 * - 'peer:error': an ERROR frame from a peer (our input was refused, or a
 *   routed frame could not be delivered: name UnreachableError, HopLimitError,
 *   QueueFullError, message naming the destination);
 * - 'peer:refused': a handshake failed (we refused, or were refused: byPeer);
 * - 'routes': what routes() returns may have changed (a neighbour's gossip, or a
 *   neighbour gone).
 * @typedef {{
 *   'peer:up': {id: string, transport: string, address: string, direction: string},
 *   'peer:down': {id: string, reason: string},
 *   'link:up': {id: string, transport: string, address: string},
 *   'link:down': {id: string, transport: string, reason: string},
 *   'drain': {id: string},
 *   'send:error': {id: string, error: Error},
 *   'peer:error': {id: string, name: string, message: string, fatal: boolean},
 *   'peer:refused': {address: string, transport: string, reason: string, message: string, byPeer: boolean},
 *   'routes': {via: string},
 * }} MeshEvents
 */

/**
 * @typedef {object} Peer
 * @property {string} id
 * @property {Link[]} links open links, in admission order
 * @property {Link | null} best the link outbound frames use
 * @property {string | null} listenUrl
 */
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
 * Create a mesh node (not started).
 * @param {import('./options.js').MeshNodeInit} init
 * @returns {MeshNode}
 */
export function createMeshNode(init) {
  return new MeshNode(init);
}

export class MeshNode {
  /** @type {import('./options.js').MeshNodeOptions} */
  #o;
  /** @type {Emitter<MeshEvents>} */
  #events;
  /** @type {Map<string, Peer>} */
  #peers = new Map();
  /** @type {Map<string, Dest>} */
  #dests = new Map();
  #router = new Router();
  /** @type {PendingRequests} */
  #requests;
  /** @type {Array<(from: string, payload: Uint8Array) => void>} */
  #msgHandlers = [];
  /** @type {((from: string, payload: Uint8Array, ctx: {signal: AbortSignal}) => Uint8Array | Promise<Uint8Array>) | null} */
  #reqHandler = null;
  #inflight = 0;
  /** @type {Set<import('./interfaces.js').Connection>} */
  #handshaking = new Set();
  /** @type {Map<string, Promise<PeerInfo>>} */
  #upgrading = new Map();
  /** @type {import('./interfaces.js').Listener[]} */
  #listeners = [];
  /** @type {CryptoKey | null} */
  #tokenKey = null;
  #nonces = new NonceCache();
  /** @type {ReassemblyBudget} */
  #budget;
  #topo = 1;
  #switchEpoch = 0;
  #gossipSeq = 0;
  /** @type {ReturnType<typeof setTimeout> | null} */
  #gossipTimer = null;
  /** @type {ReturnType<typeof setInterval> | null} */
  #tick = null;
  #started = false;
  #stopping = false;
  /** @type {AbortController} aborted by stop(): handshakes, joins and request handlers see it */
  #life = new AbortController();
  /** @type {Set<ReturnType<typeof setTimeout>>} */
  #timers = new Set();
  /** @type {import('./transports/websocket.js').WebSocketTransport} */
  #ws;
  /** @type {import('./transports/webrtc.js').WebRTCTransport | null} */
  #rtc;

  /** @param {import('./options.js').MeshNodeInit} init */
  constructor(init) {
    this.#o = resolveOptions(init);
    /** This node's identity. */
    this.identity = this.#o.identity;
    /** This node's id (the hash of its public key, identity.js). */
    this.id = this.identity.id;
    const root = this.#o.logger ?? createLogger('termite:mesh');
    this.log = root.child('node');
    this.admissionLog = root.child('admission');
    this.linkLog = root.child('link');
    this.routeLog = root.child('route');
    this.#events = new Emitter((e, ev) => this.log.error('event handler threw', { event: ev, error: String(e) }));
    this.#requests = new PendingRequests(this.#o.maxPendingRequests);
    this.#budget = new ReassemblyBudget(this.#o.maxReassemblyBytes);
    const components = {
      logger: root,
      signaller: { send: (/** @type {string} */ peerId, /** @type {import('./interfaces.js').Signal} */ s) => this.#trySend(peerId, encodeSignal(s.session, s.kind, s.data, s.mid)) === null },
    };
    this.#ws = /** @type {any} */ (webSocketTransport(this.#o.websocket ?? {})(components));
    this.#rtc = this.#o.webrtc === false ? null : webRTCTransport(this.#o.webrtc ?? {})(components);
  }

  // ============================================================ lifecycle

  isStarted() {
    return this.#started;
  }

  /**
   * Start: derive the token key, listen (if init.listen), accept WebRTC
   * offers (unless init.webrtc is false), start heartbeats, then connect to
   * every init.join URL. A join that fails is logged and reported as
   * 'peer:refused' or in the returned list; it does not fail start().
   * Rejects (and leaves nothing running) if listening fails.
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{joined: PeerInfo[], failed: Array<{url: string, error: Error}>}>}
   */
  async start(options = {}) {
    throwIfAborted(options.signal);
    if (this.#started) return { joined: [], failed: [] };
    this.#tokenKey = await deriveTokenKey(this.#o.token);
    this.#life = new AbortController();
    this.#stopping = false;
    try {
      if (this.#o.listen) {
        const l = this.#ws.createListener({ onConnection: (c) => this.#inbound(c) });
        this.#listeners.push(l);
        await l.listen(this.#o.listen, options);
      }
      if (this.#rtc) {
        const l = this.#rtc.createListener({ onConnection: (c) => this.#inbound(c) });
        this.#listeners.push(l);
        await l.listen();
      }
    } catch (e) {
      await this.#closeListeners();
      throw e;
    }
    this.#started = true;
    const checkMs = Math.min(this.#o.heartbeatIntervalMs, Math.max(20, this.#o.peerTimeoutMs / 8));
    this.#tick = setInterval(() => this.#heartbeat(), checkMs);
    this.log.info('started', { id: this.id, listen: this.addresses() });
    /** @type {PeerInfo[]} */
    const joined = [];
    /** @type {Array<{url: string, error: Error}>} */
    const failed = [];
    await Promise.all(this.#o.join.map(async (url) => {
      try {
        joined.push(await this.connect(url, { signal: options.signal }));
      } catch (e) {
        failed.push({ url, error: /** @type {Error} */ (e) });
        this.log.warn('join failed', { url, error: /** @type {Error} */ (e).message });
      }
    }));
    return { joined, failed };
  }

  /**
   * Stop: close listeners and every link (peers get BYE 'node stopping' and
   * 'peer:down' fires for each), abandon handshakes and WebRTC sessions,
   * fail outstanding requests with NotStartedError, clear every timer.
   * Waits (at most 2 s) for transports to finish closing.
   */
  async stop() {
    if (!this.#started && !this.#stopping) return;
    this.#started = false;
    this.#stopping = true;
    this.#life.abort();
    if (this.#tick) clearInterval(this.#tick);
    this.#tick = null;
    if (this.#gossipTimer) clearTimeout(this.#gossipTimer);
    this.#gossipTimer = null;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    /** @type {Promise<string>[]} */
    const closing = [];
    for (const c of this.#handshaking) {
      c.close('node stopping');
      closing.push(c.closed);
    }
    for (const p of [...this.#peers.values()]) {
      for (const l of [...p.links]) {
        l.close('node stopping');
        closing.push(l.conn.closed);
      }
    }
    await this.#closeListeners(); // after the links, so peers hear 'node stopping', not 'listener closing'
    for (const d of this.#dests.values()) if (d.hold) clearTimeout(d.hold.timer);
    this.#dests.clear();
    this.#requests.failAll(new NotStartedError('node stopped'));
    await this.#rtc?.close();
    let t;
    await Promise.race([Promise.all(closing), new Promise((r) => { t = setTimeout(r, 2000); })]);
    clearTimeout(t);
    this.#stopping = false;
    this.log.info('stopped', { id: this.id });
  }

  async #closeListeners() {
    const ls = this.#listeners;
    this.#listeners = [];
    await Promise.all(ls.map((l) => l.close().catch((e) => this.log.warn('listener close failed', { error: String(e) }))));
  }

  /** URLs peers can dial this node at (empty without a listener). */
  addresses() {
    return this.#listeners.flatMap((l) => l.addresses());
  }

  // ============================================================ events and handlers

  /**
   * Subscribe to an event (see MeshEvents); returns the unsubscribe function.
   * @template {keyof MeshEvents} K
   * @param {K} event @param {(detail: MeshEvents[K]) => void} handler
   */
  on(event, handler) {
    return this.#events.on(event, handler);
  }

  /**
   * @template {keyof MeshEvents} K
   * @param {K} event @param {(detail: MeshEvents[K]) => void} handler
   */
  off(event, handler) {
    this.#events.off(event, handler);
  }

  /**
   * @template {keyof MeshEvents} K
   * @param {K} event @param {(detail: MeshEvents[K]) => void} handler
   */
  once(event, handler) {
    return this.#events.once(event, handler);
  }

  /**
   * Receive every message sent to this node with send(): `handler(fromId,
   * payload)`, called synchronously as frames arrive, in order per sender.
   * `payload` is a view of the received bytes that nothing else will
   * modify. A handler that throws is logged; delivery goes on.
   * @param {(from: string, payload: Uint8Array) => void} handler
   * @returns {() => void} unsubscribe
   */
  onMessage(handler) {
    this.#msgHandlers = [...this.#msgHandlers, handler];
    return () => { this.#msgHandlers = this.#msgHandlers.filter((h) => h !== handler); };
  }

  /**
   * Answer request() calls: `handler(fromId, payload, {signal})` returns the
   * response payload (or a promise of it); a throw becomes a RemoteError at
   * the caller with the error's name and message. `signal` aborts when the
   * node stops. One handler per node: setting another replaces it.
   * @param {(from: string, payload: Uint8Array, ctx: {signal: AbortSignal}) => Uint8Array | Promise<Uint8Array>} handler
   * @returns {() => void} unset (only if still the current handler)
   */
  onRequest(handler) {
    this.#reqHandler = handler;
    return () => { if (this.#reqHandler === handler) this.#reqHandler = null; };
  }

  // ============================================================ peers

  /**
   * Connect to a node listening at `url` (ws://host:port/path) and run
   * admission. Resolves with the peer once both sides admitted each other;
   * rejects with DialError, AdmissionError (reason says why), AbortError or
   * NotStartedError. Connecting to a peer already connected adds a second
   * link, which is closed after duplicateLinkGraceMs (the first is kept).
   * @param {string} url
   * @param {{signal?: AbortSignal, timeoutMs?: number}} [options] timeoutMs bounds the dial; admission has handshakeTimeoutMs
   * @returns {Promise<PeerInfo>}
   */
  async connect(url, options = {}) {
    this.#requireStarted();
    const conn = await this.#ws.dial(url, options);
    const link = await this.#admit(conn, ROLE_DIALER, options.signal);
    return this.#peerInfo(this.#peers.get(link.peerId) ?? { id: link.peerId, links: [link], best: link, listenUrl: link.listenUrl });
  }

  /**
   * Open a direct WebRTC data channel to a peer already reachable (directly
   * or through a neighbour: signalling travels over the mesh), admit it, and
   * move this pair's traffic to it once open (in order: see the path switch).
   * If it fails, traffic stays where it was and the promise rejects with
   * UpgradeError. Resolves at once if a WebRTC link already exists; concurrent
   * calls for one peer share one attempt.
   * @param {string} peerId
   * @param {'webrtc'} transport
   * @param {{signal?: AbortSignal, timeoutMs?: number}} [options] timeoutMs bounds signalling + ICE + DTLS (default 15 s)
   * @returns {Promise<PeerInfo>}
   */
  upgrade(peerId, transport, options = {}) {
    try {
      this.#requireStarted();
      throwIfAborted(options.signal);
      if (transport !== 'webrtc') throw new InvalidArgumentError(`cannot upgrade to ${JSON.stringify(transport)}: only 'webrtc'`);
      if (!isNodeId(peerId)) throw new InvalidArgumentError(`not a node id: ${JSON.stringify(peerId)}`);
      if (!this.#rtc) throw new UpgradeError('WebRTC is disabled on this node (init.webrtc = false)');
    } catch (e) {
      return Promise.reject(e);
    }
    const peer = this.#peers.get(peerId);
    if (peer?.links.some((l) => l.transport === 'webrtc' && !l.closed)) return Promise.resolve(this.#peerInfo(peer));
    const running = this.#upgrading.get(peerId);
    if (running) return running;
    const rtc = /** @type {import('./transports/webrtc.js').WebRTCTransport} */ (this.#rtc);
    const attempt = (async () => {
      if (this.#pathTo(peerId).link === null) throw new UpgradeError(`cannot upgrade: ${peerId} is unreachable (no path for signalling)`);
      try {
        const conn = await rtc.dial(peerId, options);
        const link = await this.#admit(conn, ROLE_DIALER, options.signal, peerId);
        this.log.info('upgraded', { peer: peerId, transport: link.transport });
        return this.#peerInfo(/** @type {Peer} */ (this.#peers.get(peerId)));
      } catch (e) {
        if (e instanceof AbortError) throw e;
        throw new UpgradeError(`upgrade to WebRTC with ${peerId} failed: ${/** @type {Error} */ (e).message}`, { cause: e });
      }
    })();
    this.#upgrading.set(peerId, attempt);
    const clear = () => { this.#upgrading.delete(peerId); };
    attempt.then(clear, clear);
    return attempt;
  }

  /**
   * Close every link to a peer (it gets BYE with the reason). No-op if not connected.
   * @param {string} peerId @param {string} [reason]
   */
  disconnect(peerId, reason = 'disconnected') {
    const p = this.#peers.get(peerId);
    if (p) for (const l of [...p.links]) l.close(reason);
  }

  /** Direct peers, each with its links (the one in use first). @returns {PeerInfo[]} */
  peers() {
    return [...this.#peers.values()].map((p) => this.#peerInfo(p));
  }

  /**
   * Nodes reachable only through a neighbour, as learnt from gossip.
   * @returns {Array<{id: string, via: string[], url: string | null}>}
   */
  routes() {
    const out = [];
    for (const [id, r] of this.#router.known()) if (id !== this.id && !this.#peers.has(id)) out.push({ id, ...r });
    return out;
  }

  /** @param {string} peerId true if a direct link or a route exists */
  isReachable(peerId) {
    return this.#pathTo(peerId).link !== null;
  }

  // ============================================================ sending

  /**
   * Send `payload` to node `peerId`: direct if linked, else through a
   * neighbour that knows it. Never blocks, never throws for network
   * conditions: returns true if the frame was accepted (queued or written;
   * delivery is not acknowledged — "send and pray"), false if it was not, the
   * reason going to 'send:error' (UnreachableError, QueueFullError,
   * FrameTooLargeError, NotStartedError). Messages to one peer arrive in the
   * order sent. Throws InvalidArgumentError only for a payload that is not a
   * Uint8Array.
   * @param {string} peerId @param {Uint8Array} payload
   */
  send(peerId, payload) {
    if (!(payload instanceof Uint8Array)) throw new InvalidArgumentError(`payload must be a Uint8Array, got ${typeof payload}`);
    const err = this.#trySend(peerId, encodeMsg(payload));
    if (err === null) return true;
    this.#events.emit('send:error', { id: peerId, error: err });
    return false;
  }

  /**
   * True if send(peerId, ...) would be accepted now. When it returns false, a
   * 'drain' event for peerId follows once there is room again (or 'peer:down'
   * if the peer goes away first) — so a fast sender waits instead of
   * filling memory.
   * @param {string} peerId
   */
  canSend(peerId) {
    if (!this.#started) return false;
    const d = this.#pathTo(peerId);
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
   * Send a request and wait for the response payload. Rejects with
   * RequestTimeoutError (after timeoutMs), AbortError, RemoteError (the
   * peer's handler threw: `remoteName`, `remoteMessage`), NoHandlerError via
   * RemoteError, PeerDownError (the direct link to the peer closed),
   * UnreachableError / QueueFullError (not sent) or NotStartedError.
   * @param {string} peerId @param {Uint8Array} payload
   * @param {{timeoutMs?: number, signal?: AbortSignal}} [options] timeoutMs default init.requestTimeoutMs
   * @returns {Promise<Uint8Array>}
   */
  request(peerId, payload, options = {}) {
    if (!(payload instanceof Uint8Array)) return Promise.reject(new InvalidArgumentError(`payload must be a Uint8Array, got ${typeof payload}`));
    if (options.signal?.aborted) return Promise.reject(new AbortError());
    if (!this.#started) return Promise.reject(new NotStartedError(`node ${this.id} is not started`));
    let r;
    try {
      r = this.#requests.add(peerId, options.timeoutMs ?? this.#o.requestTimeoutMs, options.signal);
    } catch (e) {
      return Promise.reject(e);
    }
    const err = this.#trySend(peerId, encodeIdPayload(T.REQ, r.id, payload));
    if (err !== null) this.#requests.fail(r.id, err);
    return r.promise;
  }

  /**
   * Send an end-to-end frame to `peerId` on its current path. Returns null
   * on success or the error (the hot path allocates nothing else).
   * @param {string} peerId @param {Uint8Array} inner an encoded end-to-end frame
   * @param {boolean} [force] ignore the queue bound (frames released after a path switch)
   * @returns {Error | null}
   */
  #trySend(peerId, inner, force = false) {
    if (!this.#started) return new NotStartedError(`node ${this.id} is not started`);
    let d = this.#dests.get(peerId);
    if (d === undefined || d.version !== this.#topo) d = this.#repath(peerId, d);
    if (d.hold !== null && !force) return this.#holdFrame(d, inner);
    const link = d.link;
    if (link === null) return peerId === this.id ? new InvalidArgumentError('cannot send to this node itself') : new UnreachableError(peerId);
    if (inner.length > this.#o.maxFrameBytes) return new FrameTooLargeError(inner.length, this.#o.maxFrameBytes, 'frame');
    const frame = d.routed ? encodeRoute(peerId, this.id, this.#o.hopLimit, inner) : inner;
    if (force) link.sendFrame(frame, peerId) || link.forceFrame(frame);
    else if (!link.sendFrame(frame, peerId)) return new QueueFullError(peerId, link.queuedBytes, link.maxQueueBytes);
    return null;
  }

  /**
   * The destination state of `peerId`, up to date with the topology.
   * @param {string} peerId
   */
  #pathTo(peerId) {
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
    const { link, routed } = this.#route(peerId);
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
    if (d.hold === null && old !== null && !old.closed && link !== null && old !== link) {
      const epoch = ++this.#switchEpoch;
      const sw = encodeSwitch(epoch);
      old.sendFrame(oldRouted ? encodeRoute(peerId, this.id, this.#o.hopLimit, sw) : sw) || old.forceFrame(sw);
      d.hold = {
        epoch, frames: [], bytes: 0, from: old, refused: false,
        timer: this.#timer(() => {
          this.routeLog.info('path switch not acknowledged in time: sending anyway', { peer: peerId, epoch, timeoutMs: this.#o.switchTimeoutMs });
          this.#release(d);
        }, this.#o.switchTimeoutMs),
      };
      this.routeLog.debug('path switch', { peer: peerId, epoch, from: old.transport, to: link.transport, routed });
    }
    return /** @type {Dest} */ (d);
  }

  /**
   * Best next hop for `peerId`: its best direct link, else the best link to
   * a neighbour that announced it.
   * @param {string} peerId @param {string} [exclude] neighbour not to route through
   * @returns {{link: Link | null, routed: boolean}}
   */
  #route(peerId, exclude) {
    const p = this.#peers.get(peerId);
    if (p && p.best) return { link: p.best, routed: false };
    const hop = this.#router.nextHop(peerId, (id) => {
      const b = this.#peers.get(id)?.best;
      return b ? (b.rttMs ?? -1) : null;
    }, exclude);
    const b = hop === null ? null : this.#peers.get(hop)?.best ?? null;
    return { link: b, routed: b !== null };
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
    clearTimeout(h.timer);
    this.#timers.delete(h.timer);
    d.hold = null;
    // Recompute without starting another switch: everything sent before is acknowledged.
    const { link, routed } = this.#route(d.id);
    d.link = link;
    d.routed = routed;
    d.version = this.#topo;
    for (const f of h.frames) {
      const e = this.#trySend(d.id, f, true);
      if (e) this.#events.emit('send:error', { id: d.id, error: e });
    }
    if (h.refused) this.#events.emit('drain', { id: d.id });
  }

  #pruneDests() {
    for (const [id, d] of this.#dests) if (d.hold === null && (d.link === null || d.link.closed)) this.#dests.delete(id);
  }

  /**
   * A frame to send on a node's current path regardless of holds (acks,
   * routed errors).
   * @param {string} peerId @param {Uint8Array} inner
   */
  #sendUrgent(peerId, inner) {
    const { link, routed } = this.#route(peerId);
    if (!link) return false;
    const frame = routed ? encodeRoute(peerId, this.id, this.#o.hopLimit, inner) : inner;
    return link.sendFrame(frame) || link.forceFrame(frame);
  }

  // ============================================================ admission

  /** @param {import('./interfaces.js').Connection} conn */
  #inbound(conn) {
    if (!this.#started) {
      conn.close('node not started');
      return;
    }
    if (this.#handshaking.size >= this.#o.maxHandshakes) {
      this.admissionLog.warn('too many handshakes in progress: connection refused', { address: conn.remoteAddress, limit: this.#o.maxHandshakes });
      conn.close(`too many handshakes in progress (${this.#o.maxHandshakes})`);
      return;
    }
    const expected = conn.transport === 'webrtc' && conn.remoteAddress.startsWith('webrtc:') ? conn.remoteAddress.slice(7) : undefined;
    this.#admit(conn, ROLE_LISTENER, undefined, expected).catch(() => { /* logged and reported by #admit */ });
  }

  /**
   * Run admission on a connection and, on success, make it a link.
   * @param {import('./interfaces.js').Connection} conn @param {0 | 1} role
   * @param {AbortSignal} [signal] @param {string} [expectedPeerId]
   * @returns {Promise<Link>}
   */
  async #admit(conn, role, signal, expectedPeerId) {
    this.#handshaking.add(conn);
    const signals = signal ? AbortSignal.any([signal, this.#life.signal]) : this.#life.signal;
    let admitted;
    try {
      admitted = await runHandshake(conn, {
        identity: this.identity, tokenKey: /** @type {CryptoKey} */ (this.#tokenKey), role,
        maxMessageBytes: conn.maxMessageBytes, listenUrl: this.#o.announceUrl ?? this.addresses()[0] ?? null,
        nonceCache: this.#nonces, timeoutMs: this.#o.handshakeTimeoutMs, signal: signals,
        logger: this.admissionLog, expectedPeerId,
      });
    } catch (e) {
      const err = /** @type {import('./errors.js').AdmissionError} */ (e);
      this.#events.emit('peer:refused', {
        address: conn.remoteAddress, transport: conn.transport, reason: err.reason ?? 'malformed handshake', message: err.message,
        byPeer: /** @type {any} */ (err).byPeer === true,
      });
      throw e;
    } finally {
      this.#handshaking.delete(conn);
    }
    if (!this.#started) {
      conn.close('node stopping');
      throw new NotStartedError('node stopped during the handshake');
    }
    const link = new Link(conn, admitted, {
      owner: this, localId: this.id, maxFrameBytes: this.#o.maxFrameBytes, maxQueueBytes: this.#o.maxQueueBytes,
      highWaterMark: this.#o.sendHighWaterMark, budget: this.#budget, reassemblyTimeoutMs: this.#o.reassemblyTimeoutMs,
      errorBudget: this.#o.errorBudget, errorWindowMs: this.#o.errorWindowMs, logger: this.linkLog,
    });
    this.#addLink(link);
    link.attach();
    return link;
  }

  /** @param {Link} link */
  #addLink(link) {
    let peer = this.#peers.get(link.peerId);
    const first = peer === undefined;
    if (peer === undefined) {
      peer = { id: link.peerId, links: [], best: null, listenUrl: link.listenUrl };
      this.#peers.set(peer.id, peer);
    }
    peer.listenUrl = link.listenUrl ?? peer.listenUrl;
    peer.links.push(link);
    const dup = peer.links.find((l) => l !== link && l.transport === link.transport && !l.closed);
    if (dup) {
      // Keep the older link; the new one carries nothing and is closed after a grace
      // period (closing at once could race with the peer, which may already use it).
      link.redundant = true;
      this.#timer(() => link.close('duplicate link'), this.#o.duplicateLinkGraceMs);
    }
    peer.best = this.#bestLink(peer);
    this.#topo++;
    this.log.info(first ? 'peer up' : 'link up', { peer: peer.id, transport: link.transport, address: link.address, direction: link.direction });
    this.#events.emit('link:up', { id: peer.id, transport: link.transport, address: link.address });
    if (first) this.#events.emit('peer:up', { id: peer.id, transport: link.transport, address: link.address, direction: link.direction });
    this.#scheduleGossip();
  }

  /** Preference: WebRTC over WebSocket (upgrade asked for it), then the oldest. @param {Peer} peer */
  #bestLink(peer) {
    let best = null;
    for (const l of peer.links) {
      if (l.closed || l.redundant) continue;
      if (best === null || (l.transport === 'webrtc' && best.transport !== 'webrtc')) best = l;
    }
    return best ?? peer.links.find((l) => !l.closed) ?? null;
  }

  // ============================================================ LinkOwner (called by links)

  /** @param {string} from @param {Uint8Array} payload */
  _deliver(from, payload) {
    const hs = this.#msgHandlers;
    for (let i = 0; i < hs.length; i++) {
      try {
        hs[i](from, payload);
      } catch (e) {
        this.log.error('message handler threw', { from, error: String(e) });
      }
    }
  }

  /**
   * @param {Link} link @param {import('./frames.js').Frame} f @param {Uint8Array} _bytes
   */
  _onFrame(link, f, _bytes) {
    switch (f.type) {
      case T.ROUTE:
        this.#onRoute(link, f);
        return;
      case T.GOSSIP:
        if (this.#router.update(link.peerId, f.seq, f.entries)) {
          this.#topo++;
          this.#events.emit('routes', { via: link.peerId });
        }
        return;
      default:
        this.#onEndToEnd(link.peerId, f, link);
    }
  }

  /** @param {Link} link @param {string} reason */
  _onLinkClosed(link, reason) {
    const peer = this.#peers.get(link.peerId);
    if (!peer) return;
    const i = peer.links.indexOf(link);
    if (i < 0) return;
    peer.links.splice(i, 1);
    peer.best = this.#bestLink(peer);
    this.#topo++;
    for (const d of this.#dests.values()) if (d.hold !== null && d.hold.from === link) this.#release(d);
    this.#events.emit('link:down', { id: peer.id, transport: link.transport, reason });
    if (peer.links.length > 0) {
      this.log.info('link down', { peer: peer.id, transport: link.transport, reason });
      return;
    }
    this.#peers.delete(peer.id);
    if (this.#router.forget(peer.id)) this.#events.emit('routes', { via: peer.id });
    this.log.info('peer down', { peer: peer.id, reason });
    this.#requests.failPeer(peer.id, new PeerDownError(peer.id, reason));
    this.#events.emit('peer:down', { id: peer.id, reason });
    this.#scheduleGossip();
  }

  /** @param {Link} _link @param {string[]} waiters */
  _onLinkDrained(_link, waiters) {
    for (const id of waiters) this.#events.emit('drain', { id });
  }

  // ============================================================ receiving

  /**
   * An end-to-end frame from node `from` (direct, or the source of a ROUTE).
   * @param {string} from @param {import('./frames.js').Frame} f @param {Link | null} link the link it came on, if direct
   */
  #onEndToEnd(from, f, link) {
    switch (f.type) {
      case T.MSG:
        this._deliver(from, f.payload);
        return;
      case T.REQ:
        this.#onRequestFrame(from, f.id, f.payload);
        return;
      case T.RES:
        if (!this.#requests.resolve(from, f.id, f.payload)) this.log.debug('late or unknown response', { from, id: f.id });
        return;
      case T.RES_ERR:
        if (!this.#requests.reject(from, f.id, f.name, f.message)) this.log.debug('late or unknown error response', { from, id: f.id });
        return;
      case T.SIGNAL:
        this.#onSignal(from, f, link);
        return;
      case T.SWITCH:
        this.#sendUrgent(from, encodeSwitchAck(f.epoch));
        return;
      case T.SWITCH_ACK: {
        const d = this.#dests.get(from);
        if (d?.hold && d.hold.epoch === f.epoch) this.#release(d);
        return;
      }
      case T.ERROR:
        this.log.warn('error frame from peer', { from, name: f.name, message: f.message, fatal: f.fatal, frameType: f.refType === null ? null : typeName(f.refType) });
        this.#events.emit('peer:error', { id: from, name: f.name, message: f.message, fatal: f.fatal });
        return;
      default: {
        const e = new UnexpectedFrameError(`${typeName(f.type)} is not an end-to-end frame`);
        if (link) link.reportBad(e, f.type);
        else this.routeLog.warn('unexpected routed frame', { from, type: typeName(f.type) });
      }
    }
  }

  /**
   * @param {string} from @param {import('./frames.js').SignalFrame} f @param {Link | null} link
   */
  #onSignal(from, f, link) {
    if (!this.#rtc) {
      this.#sendUrgent(from, encodeSignal(f.session, 'bye', 'WebRTC is disabled on this node', null));
      return;
    }
    try {
      this.#rtc.handleSignal(from, { session: f.session, kind: /** @type {any} */ (f.kind), data: f.a, mid: f.b });
    } catch (e) {
      const err = e instanceof SignallingError ? e : new SignallingError(String(e));
      this.log.warn('bad signal', { from, error: err.message });
      if (link) link.reportBad(err, T.SIGNAL);
      else this.#sendUrgent(from, encodeError(err.name, err.message, false, T.SIGNAL));
    }
  }

  /** @param {string} from @param {number} id @param {Uint8Array} payload */
  #onRequestFrame(from, id, payload) {
    const h = this.#reqHandler;
    const fail = (/** @type {{name?: string, message?: string}} */ e) => this.#trySend(from, encodeResErr(id, String(e?.name ?? 'Error'), String(e?.message ?? e)));
    if (h === null) {
      fail(new NoHandlerError(this.id));
      return;
    }
    if (this.#inflight >= this.#o.maxInflightRequests) {
      fail(new TooManyRequestsError(this.#o.maxInflightRequests));
      return;
    }
    let r;
    try {
      r = h(from, payload, { signal: this.#life.signal });
    } catch (e) {
      fail(/** @type {Error} */ (e));
      return;
    }
    if (r instanceof Uint8Array) {
      this.#reply(from, id, r);
      return;
    }
    this.#inflight++;
    Promise.resolve(r).then((res) => this.#reply(from, id, res), fail).finally(() => { this.#inflight--; });
  }

  /** @param {string} from @param {number} id @param {unknown} res */
  #reply(from, id, res) {
    if (!(res instanceof Uint8Array)) {
      this.#trySend(from, encodeResErr(id, 'InvalidArgumentError', `the request handler returned ${typeof res}, not a Uint8Array`));
      return;
    }
    const e = this.#trySend(from, encodeIdPayload(T.RES, id, res));
    if (e) this.log.warn('response not sent', { to: from, id, error: e.message });
  }

  // ============================================================ routing

  /**
   * A ROUTE frame: deliver it here, or forward it one hop closer.
   * @param {Link} link @param {import('./frames.js').RouteFrame} f
   */
  #onRoute(link, f) {
    if (!isNodeId(f.dst) || !isNodeId(f.src)) {
      link.reportBad(new MalformedFrameError(`ROUTE with an invalid node id (dst ${JSON.stringify(f.dst).slice(0, 80)}, src ${JSON.stringify(f.src).slice(0, 80)})`), T.ROUTE);
      return;
    }
    if (f.dst === this.id) {
      const p = msgPayload(f.inner);
      if (p !== null) {
        this._deliver(f.src, p);
        return;
      }
      let inner;
      try {
        inner = decodeFrame(f.inner);
      } catch (e) {
        this.routeLog.warn('bad routed frame', { from: f.src, via: link.peerId, error: /** @type {Error} */ (e).message });
        if (peekType(f.inner) !== T.ERROR) this.#sendUrgent(f.src, encodeError(/** @type {Error} */ (e).name, /** @type {Error} */ (e).message, false, peekType(f.inner)));
        return;
      }
      if (!ROUTABLE.has(inner.type)) {
        this.#sendUrgent(f.src, encodeError('UnexpectedFrameError', `${typeName(inner.type)} cannot be routed`, false, inner.type));
        return;
      }
      this.#onEndToEnd(f.src, inner, null);
      return;
    }
    if (f.hopsLeft <= 1) {
      this.#routeError(f, new HopLimitError(f.dst, this.#o.hopLimit));
      return;
    }
    const { link: next } = this.#route(f.dst, link.peerId);
    if (next === null) {
      this.#routeError(f, new UnreachableError(f.dst, `no route from ${this.id}`));
      return;
    }
    if (!next.sendFrame(encodeRoute(f.dst, f.src, f.hopsLeft - 1, f.inner), f.src)) {
      this.#routeError(f, new QueueFullError(f.dst, next.queuedBytes, next.maxQueueBytes));
    }
  }

  /**
   * Tell the source of a routed frame that it was not delivered: a RES_ERR
   * for a request (so request() fails at once), an ERROR otherwise, never
   * anything for an error.
   * @param {import('./frames.js').RouteFrame} f @param {Error} err
   */
  #routeError(f, err) {
    this.routeLog.warn('routed frame not delivered', { from: f.src, to: f.dst, error: err.message });
    const t = peekType(f.inner);
    if (t === T.ERROR || t === T.RES_ERR || t === null) return;
    let reply;
    if (t === T.REQ) {
      try {
        const req = /** @type {import('./frames.js').ReqFrame} */ (decodeFrame(f.inner));
        reply = encodeResErr(req.id, err.name, err.message);
      } catch {
        return;
      }
    } else reply = encodeError(err.name, err.message, false, t);
    if (f.src !== this.id) this.#sendUrgent(f.src, reply);
  }

  #scheduleGossip() {
    if (this.#gossipTimer !== null || !this.#started) return;
    this.#gossipTimer = setTimeout(() => {
      this.#gossipTimer = null;
      if (!this.#started) return;
      /** @type {Array<[string, string | null]>} */
      const entries = [...this.#peers.values()].slice(0, MAX_GOSSIP_ENTRIES).map((p) => [p.id, p.listenUrl]);
      const frame = encodeGossip(++this.#gossipSeq, entries);
      for (const p of this.#peers.values()) p.best?.sendControl(frame);
    }, 10);
  }

  // ============================================================ heartbeats

  #heartbeat() {
    const now = Date.now();
    const { heartbeatIntervalMs: every, peerTimeoutMs: timeout } = this.#o;
    for (const p of [...this.#peers.values()]) {
      for (const l of [...p.links]) {
        const silent = now - l.lastSeen;
        if (silent > timeout) {
          this.log.warn('heartbeat timeout', { peer: p.id, transport: l.transport, silentMs: silent });
          l.close(`heartbeat timeout: nothing received for ${silent} ms`);
          continue;
        }
        if (now - l.lastPingAt >= every) l.ping(now);
        l.tick(now);
      }
    }
  }

  // ============================================================ helpers

  /** @param {() => void} fn @param {number} ms */
  #timer(fn, ms) {
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, ms);
    this.#timers.add(t);
    return t;
  }

  #requireStarted() {
    if (!this.#started) throw new NotStartedError(`node ${this.id} is not started`);
  }

  /** @param {Peer} p @returns {PeerInfo} */
  #peerInfo(p) {
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
