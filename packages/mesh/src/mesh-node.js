// @ts-check
/**
 * MeshNode: the mesh as the runtime sees it (`MeshPort`, mesh-port.js; docs/mesh.md
 * §1). It moves opaque payloads between node ids over admitted links, directly or
 * through a neighbour, and reports peers coming and going.
 *
 * This file is the facade and the wiring: the public API, the node's lifecycle, the
 * send and receive paths of messages, and what happens across mechanisms when a
 * link comes or goes. Each mechanism owns its state in a file of its own:
 *   link-admission.js  connections → admitted links (handshakes in progress)
 *   peer-table.js      direct peers, their links, the link each peer's traffic uses
 *   paths.js           the outbound path per destination, path switches
 *   forwarding.js      ROUTE frames: received here or forwarded
 *   gossip.js          GOSSIP frames, what neighbours can reach
 *   request-service.js REQ / RES / RES_ERR, both ways
 *   heartbeats.js      PING and the timeout of silent links
 *   rejoin.js          join URLs dialled again when their peer goes down
 *   webrtc-upgrade.js  upgrade() and its SIGNAL frames
 *   timer-set.js       one-shot timers stop() clears
 *
 * Invariants (the node's; each mechanism states its own):
 * - a peer is "up" from the admission of its first link to the close of its last
 *   ('peer:up' and 'peer:down' fire exactly once per such period); every link
 *   admitted or closed marks the topology changed before any event reports it,
 *   so a handler that sends sees the new paths;
 * - a message is sent with one call into Paths (Paths.trySend), and a well-formed
 *   MSG goes from the Link straight to _deliver (it never reaches _onFrame); these
 *   are the hot paths, kept free of further indirection;
 * - every timer is cleared by stop(); every handshake is bounded by
 *   handshakeTimeoutMs; every request by its timeout.
 *
 * size: this is the facade that wires every mechanism (transports, admission, paths,
 * gossip, forwarding, rejoin, heartbeats, WebRTC upgrades, browser marks) and forwards
 * the public MeshPort API to them; each mechanism is a file of its own.
 */
import { Emitter } from './emitter.js';
import { createLogger } from './logger.js';
import { resolveOptions } from './options.js';
import { Router } from './router.js';
import { TimerSet } from './timer-set.js';
import { PeerTable } from './peer-table.js';
import { Paths } from './paths.js';
import { Forwarding } from './forwarding.js';
import { Gossip } from './gossip.js';
import { RequestService } from './request-service.js';
import { Heartbeats } from './heartbeats.js';
import { LinkAdmission } from './link-admission.js';
import { Rejoin } from './rejoin.js';
import { WebRTCUpgrade } from './webrtc-upgrade.js';
import { ROLE_DIALER } from './admission.js';
import { T, encodeMsg, encodeSignal, typeName } from './frames.js';
import { AbortError, InvalidArgumentError, NotStartedError, UnexpectedFrameError, throwIfAborted } from './errors.js';
import { webSocketTransport } from './transports/websocket.js';
import { webRTCTransport } from './transports/webrtc.js';
import { LinkTransports } from './link-transports.js';
import { BrowserMarks } from './browser-marks.js';

/** Dials connect() makes when the listener answers 'too many handshakes' (its table is flooded). */
const JOIN_ATTEMPTS = 3;

/** @typedef {import('./mesh-port.js').MeshPort} MeshPort */
/** @typedef {import('./mesh-port.js').MeshEvents} MeshEvents */
/** @typedef {import('./mesh-port.js').PeerInfo} PeerInfo */
/** @typedef {import('./mesh-port.js').RouteInfo} RouteInfo */
/** @typedef {import('./mesh-port.js').MessageHandler} MessageHandler */
/** @typedef {import('./mesh-port.js').RequestHandler} RequestHandler */
/** @typedef {import('./link.js').Link} Link */

/**
 * Create a mesh node (not started).
 * @param {import('./options.js').MeshNodeInit} init
 * @returns {MeshNode}
 */
export function createMeshNode(init) {
  return new MeshNode(init);
}

/** @implements {MeshPort} (tsc checks that MeshNode is assignable to the seam) */
export class MeshNode {
  /** @type {import('./options.js').MeshNodeOptions} */
  #o;
  /** @type {Emitter<MeshEvents>} */
  #events;
  /** @type {MessageHandler[]} */
  #msgHandlers = [];
  /** @type {import('./interfaces.js').Listener[]} */
  #listeners = [];
  #started = false;
  #stopping = false;
  /** @type {AbortController} aborted by stop(): handshakes, joins and request handlers see it */
  #life = new AbortController();
  #timers = new TimerSet();
  /** @type {PeerTable} */
  #peers;
  /** @type {Paths} */
  #paths;
  /** @type {Forwarding} */
  #forwarding;
  /** @type {Gossip} */
  #gossip;
  /** @type {RequestService} */
  #requests;
  /** @type {Heartbeats} */
  #heartbeats;
  /** @type {LinkAdmission} */
  #admission;
  /** @type {Rejoin} */
  #rejoin;
  /** @type {WebRTCUpgrade} */
  #upgrades;
  /** Which nodes joined from a browser: direct peers and reported origins. @type {BrowserMarks} */
  #browser;
  /** WebSocket, and TCP when init.tcp: which one a link dials and where they listen. @type {LinkTransports} */
  #links;
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
    // each mechanism gets what it reads and whom it tells
    const o = this.#o;
    const events = this.#events;
    const isStarted = () => this.#started;
    const lifeSignal = () => this.#life.signal;
    const router = new Router(this.id, o.hopLimit);
    this.#peers = new PeerTable(this.#timers, o.duplicateLinkGraceMs);
    this.#browser = new BrowserMarks(this.id);
    const peers = this.#peers.byId;
    this.#paths = new Paths({ options: o, localId: this.id, peers, router, timers: this.#timers, events, logger: this.routeLog });
    this.#forwarding = new Forwarding({
      localId: this.id, hopLimit: o.hopLimit, paths: this.#paths, receiver: this, logger: this.routeLog,
      isBrowserPeer: (id) => this.#browser.direct.has(id),
      // a peer linked only over WebRTC may be a tab (tabs link to each other so): not known as a daemon
      isDaemonPeer: (id) => !this.#browser.direct.has(id) && (peers.get(id)?.links.some((l) => l.transport !== 'webrtc') ?? false),
      onBrowserOrigin: (id, via) => this.#browserOrigin(id, via),
      receiveEndToEnd: (from, f, link, via) => this.#onEndToEnd(from, f, link, via),
    });
    this.#gossip = new Gossip({
      localId: this.id, peers, router, paths: this.#paths, events, isStarted,
      isBrowserPeer: (id) => this.#browser.direct.has(id), onBrowserOrigin: (id, via) => this.#browserOrigin(id, via),
      isBrowser: (id) => this.#browser.isBrowser(id),
    });
    this.#requests = new RequestService({ localId: this.id, options: o, paths: this.#paths, lifeSignal, logger: this.log });
    this.#heartbeats = new Heartbeats({ peers, options: o, logger: this.log });
    this.#admission = new LinkAdmission({
      identity: this.identity, options: o, owner: this, events, isStarted, lifeSignal,
      listenUrl: () => o.announceUrl ?? this.addresses()[0] ?? null,
      onAdmitted: (link) => this.#linkAdmitted(link),
      logger: this.admissionLog, linkLogger: this.linkLog,
    });
    this.#rejoin = new Rejoin({
      baseMs: o.rejoinBaseMs, maxMs: o.rejoinMaxMs, timers: this.#timers, logger: this.log, isStarted, lifeSignal,
      connect: (url, signal) => this.connect(url, { signal }),
      isUp: (peerId) => this.#peers.byId.has(peerId),
    });
    const components = {
      logger: root,
      signaller: { send: (/** @type {string} */ peerId, /** @type {import('./interfaces.js').Signal} */ s) => this.#paths.trySend(peerId, encodeSignal(s.session, s.kind, s.data, s.mid)) === null },
    };
    this.#links = new LinkTransports(/** @type {any} */ (webSocketTransport(this.#o.websocket ?? {})(components)), this.#o.tcp, components);
    this.#rtc = this.#o.webrtc === false ? null : webRTCTransport(this.#o.webrtc ?? {})(components);
    this.#upgrades = new WebRTCUpgrade({ rtc: this.#rtc, admission: this.#admission, peers: this.#peers, paths: this.#paths, logger: this.log });
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
    await this.#admission.start();
    this.#life = new AbortController();
    this.#stopping = false;
    try {
      await this.#listen(options);
    } catch (e) {
      await this.#closeListeners();
      throw e;
    }
    this.#started = true;
    this.#paths.open();
    this.#heartbeats.start();
    this.#gossip.start();
    this.log.info('started', { id: this.id, listen: this.addresses() });
    return this.#join(options);
  }

  /** @param {{signal?: AbortSignal}} options */
  async #listen(options) {
    if (this.#o.listen) {
      await this.#links.listen(this.#o.listen, { onConnection: (c) => this.#admission.inbound(c), allowedOrigins: this.#o.allowedOrigins }, this.#listeners, options);
    }
    if (this.#rtc) {
      const l = this.#rtc.createListener({ onConnection: (c) => this.#admission.inbound(c) });
      this.#listeners.push(l);
      await l.listen();
    }
  }

  /**
   * Connect to every init.join URL; a failure is logged and listed, not thrown.
   * @param {{signal?: AbortSignal}} options
   */
  async #join(options) {
    /** @type {PeerInfo[]} */
    const joined = [];
    /** @type {Array<{url: string, error: Error}>} */
    const failed = [];
    await Promise.all(this.#o.join.map(async (url) => {
      try {
        const peer = await this.connect(url, { signal: options.signal });
        joined.push(peer);
        if (this.#o.rejoin) this.#rejoin.joined(url, peer.id);
      } catch (e) {
        failed.push({ url, error: /** @type {Error} */ (e) });
        this.log.warn('join failed', { url, error: /** @type {Error} */ (e).message });
        if (this.#o.rejoin) this.#rejoin.failed(url, /** @type {Error} */ (e));
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
    this.#paths.close();
    this.#stopping = true;
    this.#life.abort();
    this.#heartbeats.stop();
    this.#gossip.stop();
    this.#timers.clear();
    this.#rejoin.stop();
    /** @type {Promise<string>[]} */
    const closing = [];
    this.#admission.abandon(closing);
    for (const p of [...this.#peers.byId.values()]) {
      for (const l of [...p.links]) {
        l.close('node stopping');
        closing.push(l.conn.closed);
      }
    }
    await this.#closeListeners(); // after the links, so peers hear 'node stopping', not 'listener closing'
    this.#paths.clear();
    this.#requests.stop();
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
   * @param {MessageHandler} handler
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
   * @param {RequestHandler} handler
   * @returns {() => void} unset (only if still the current handler)
   */
  onRequest(handler) {
    return this.#requests.setHandler(handler);
  }

  // ============================================================ peers

  /**
   * Connect to a node listening at `url` (ws://host:port/path; over TCP when init.tcp,
   * link-transports.js) and run admission. Resolves with the peer once both sides admitted each other;
   * rejects with DialError, AdmissionError (reason says why), AbortError or
   * NotStartedError. Connecting to a peer already connected adds a second
   * link, which is closed after duplicateLinkGraceMs (the first is kept).
   * A listener whose handshake table is full of unauthenticated connections evicts
   * the oldest to let a new one in, and may evict this one before its HELLO arrives:
   * refused with 'too many handshakes', the dial is made again, at most
   * JOIN_ATTEMPTS times in all.
   * @param {string} url
   * @param {{signal?: AbortSignal, timeoutMs?: number}} [options] timeoutMs bounds each dial; admission has handshakeTimeoutMs
   * @returns {Promise<PeerInfo>}
   */
  async connect(url, options = {}) {
    this.#requireStarted();
    for (let attempt = 1; ; attempt++) {
      const conn = await this.#links.dial(url, options);
      try {
        const link = await this.#admission.admit(conn, ROLE_DIALER, options.signal);
        return this.#peers.info(this.#peers.byId.get(link.peerId) ?? { id: link.peerId, links: [link], best: link, listenUrl: link.listenUrl });
      } catch (e) {
        if (attempt >= JOIN_ATTEMPTS || /** @type {any} */ (e)?.reason !== 'too many handshakes' || !this.#started) throw e;
        this.log.info('handshake table of the peer full: dialling again', { url, attempt });
      }
    }
  }

  /**
   * Open a direct WebRTC data channel to a peer already reachable (directly
   * or through a neighbour: signalling travels over the mesh), admit it, and
   * move this pair's traffic to it once open (in order: see the path switch,
   * paths.js). If it fails, traffic stays where it was and the promise rejects
   * with UpgradeError. Resolves at once if a WebRTC link already exists;
   * concurrent calls for one peer share one attempt.
   * @param {string} peerId
   * @param {'webrtc'} transport
   * @param {{signal?: AbortSignal, timeoutMs?: number}} [options] timeoutMs bounds signalling + ICE + DTLS (default 15 s)
   * @returns {Promise<PeerInfo>}
   */
  upgrade(peerId, transport, options = {}) {
    if (!this.#started) return Promise.reject(new NotStartedError(`node ${this.id} is not started`));
    return this.#upgrades.upgrade(peerId, transport, options);
  }

  /**
   * Close every link to a peer (it gets BYE with the reason). No-op if not connected.
   * @param {string} peerId @param {string} [reason]
   */
  disconnect(peerId, reason = 'disconnected') {
    this.#rejoin.giveUp(peerId);
    const p = this.#peers.byId.get(peerId);
    if (p) for (const l of [...p.links]) l.close(reason);
  }

  /** Direct peers, each with its links (the one in use first). @returns {PeerInfo[]} */
  peers() {
    return [...this.#peers.byId.values()].map((p) => this.#peers.info(p));
  }

  /**
   * Nodes reachable only through a neighbour, as learnt from gossip.
   * @returns {RouteInfo[]}
   */
  routes() {
    return this.#gossip.routes();
  }

  /**
   * Whether a direct peer joined from a browser: one of its links since it came up was
   * a WebSocket whose upgrade carried an `Origin` header, or a WebRTC link it opened
   * to this node (daemons never open one). Known while the peer is up; also on the
   * 'peer:up' and 'link:up' events (`browser`).
   * @param {string} peerId
   */
  isBrowserPeer(peerId) {
    return this.#browser.direct.has(peerId);
  }

  /**
   * Join URLs being dialled again (their peer went down, or a dial failed for a
   * reason that may pass), with the dials made since the last admission.
   * @returns {Array<{url: string, peerId: string | null, attempts: number}>}
   */
  rejoining() {
    return this.#rejoin.pending();
  }

  /**
   * A node reached this one from a browser through `via` (a marked ROUTE, or a
   * neighbour's gossip): 'peer:browser', once per node. Not for this node, nor for a
   * node linked here as a daemon (what this node saw itself wins).
   * @param {string} id @param {string} via
   */
  #browserOrigin(id, via) {
    if (!this.#browser.note(id, (p) => this.#peers.byId.has(p))) return;
    this.routeLog.info('browser origin', { id, via });
    this.#events.emit('peer:browser', { id, via });
  }

  /** @param {string} peerId true if a direct link or a route from gossip exists (not a reverse path alone) */
  isReachable(peerId) {
    return this.#paths.known(peerId);
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
   * Uint8Array. `spare`: bytes in front of the payload, in its buffer, that the node may
   * overwrite (the envelope and a transport's head are then written there: no copy).
   * @param {string} peerId @param {Uint8Array} payload @param {number} [spare]
   */
  send(peerId, payload, spare = 0) {
    if (!(payload instanceof Uint8Array)) throw new InvalidArgumentError(`payload must be a Uint8Array, got ${typeof payload}`);
    const err = this.#paths.trySend(peerId, encodeMsg(payload, spare));
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
    return this.#paths.canSend(peerId);
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
    return this.#requests.request(peerId, payload, options);
  }

  // ============================================================ links coming and going

  /** A link was admitted (before it is attached). @param {Link} link */
  #linkAdmitted(link) {
    const first = !this.#peers.byId.has(link.peerId);
    const peer = this.#peers.add(link);
    // a peer joined from a browser while any of its links did (a WebRTC link is
    // accepted only from a page: daemons never dial one)
    if (link.conn.fromBrowser === true || (link.transport === 'webrtc' && link.direction === 'inbound')) this.#browser.direct.add(peer.id);
    const browser = this.#browser.direct.has(peer.id);
    this.#paths.topologyChanged();
    this.log.info(first ? 'peer up' : 'link up', { peer: peer.id, transport: link.transport, address: link.address, direction: link.direction, browser });
    this.#events.emit('link:up', { id: peer.id, transport: link.transport, address: link.address, browser });
    if (first) this.#events.emit('peer:up', { id: peer.id, transport: link.transport, address: link.address, direction: link.direction, browser });
    this.#gossip.schedule();
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
        this.#forwarding.onRoute(link, f);
        return;
      case T.GOSSIP:
        this.#gossip.onGossip(link, f);
        return;
      default:
        this.#onEndToEnd(link.peerId, f, link);
    }
  }

  /** @param {Link} link @param {string} reason */
  _onLinkClosed(link, reason) {
    const peer = this.#peers.remove(link);
    if (peer === null) return;
    this.#paths.linkClosed(link);
    this.#events.emit('link:down', { id: peer.id, transport: link.transport, reason });
    if (peer.links.length > 0) {
      this.log.info('link down', { peer: peer.id, transport: link.transport, reason });
      return;
    }
    this.#peers.delete(peer.id);
    this.#browser.direct.delete(peer.id);
    this.#gossip.forget(peer.id);
    this.log.info('peer down', { peer: peer.id, reason });
    this.#requests.peerDown(peer.id, reason);
    this.#events.emit('peer:down', { id: peer.id, reason });
    this.#rejoin.peerDown(peer.id);
    this.#gossip.schedule();
  }

  /** @param {Link} _link @param {string[]} waiters */
  _onLinkDrained(_link, waiters) {
    for (const id of waiters) this.#events.emit('drain', { id });
  }

  // ============================================================ receiving

  /**
   * An end-to-end frame from node `from` (direct, or the source of a ROUTE):
   * each type goes to the mechanism that owns it.
   * @param {string} from @param {import('./frames.js').Frame} f @param {Link | null} link the link it came on, if direct
   * @param {string | null} [via] the neighbour it came from, if routed
   */
  #onEndToEnd(from, f, link, via = null) {
    switch (f.type) {
      case T.MSG:
        this._deliver(from, f.payload);
        return;
      case T.REQ:
        this.#requests.onRequest(from, f.id, f.payload, via);
        return;
      case T.RES:
        this.#requests.onResponse(from, f.id, f.payload);
        return;
      case T.RES_ERR:
        this.#requests.onErrorResponse(from, f.id, f.name, f.message);
        return;
      case T.SIGNAL:
        this.#upgrades.onSignal(from, f, link);
        return;
      case T.SWITCH:
        this.#paths.acknowledgeSwitch(from, f.epoch);
        return;
      case T.SWITCH_ACK:
        this.#paths.switchAcknowledged(from, f.epoch);
        return;
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

  #requireStarted() {
    if (!this.#started) throw new NotStartedError(`node ${this.id} is not started`);
  }
}
