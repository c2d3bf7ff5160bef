// @ts-check
/**
 * LinkAdmission: turns connections into links. Every connection, dialled or
 * accepted, runs the admission handshake (admission.js, docs/mesh.md §3); one that
 * passes becomes a Link, handed to the node, then attached (so frames that came
 * during the handshake are received after the node knows the link).
 *
 * Invariants:
 * - at most maxHandshakes inbound handshakes run at once, at most
 *   maxHandshakesPerAddress from one address; a connection beyond either takes the
 *   place of the oldest that has not sent its HELLO (or not proven the token), or is
 *   closed at once with the reason (handshake-table.js);
 * - an inbound connection must send its first frame within helloTimeoutMs;
 * - a connection is in `#handshaking` exactly while its handshake runs, so stop()
 *   can abandon each (every handshake is bounded by handshakeTimeoutMs, and
 *   aborted by the node's life signal);
 * - a refused handshake is reported as 'peer:refused' (byPeer when the peer refused);
 * - no link is made once the node stopped, even if the handshake passed.
 */
import { Link } from './link.js';
import { ReassemblyBudget } from './chunking.js';
import { NonceCache, ROLE_LISTENER, deriveTokenKey, runHandshake } from './admission.js';
import { HandshakeTable, STAGE_WAITING } from './handshake-table.js';
import { NotStartedError } from './errors.js';
import { encodeError } from './frames.js';

/** @typedef {import('./interfaces.js').Connection} Connection */

/**
 * @typedef {object} LinkAdmissionInit
 * @property {import('./identity.js').Identity} identity
 * @property {import('./options.js').MeshNodeOptions} options
 * @property {import('./link.js').LinkOwner} owner receives the frames of every link made here
 * @property {import('./emitter.js').Emitter<import('./mesh-port.js').MeshEvents>} events
 * @property {() => boolean} isStarted
 * @property {() => AbortSignal} lifeSignal the signal stop() aborts (a new one per start)
 * @property {() => string | null} listenUrl what HELLO announces
 * @property {(link: Link) => void} onAdmitted a new link, before it is attached
 * @property {import('./logger.js').Logger} logger the admission log
 * @property {import('./logger.js').Logger} linkLogger given to every link
 */

export class LinkAdmission {
  /** @type {LinkAdmissionInit} */
  #in;
  /** @type {import('./options.js').MeshNodeOptions} */
  #o;
  /** @type {Set<Connection>} */
  #handshaking = new Set();
  /** @type {HandshakeTable} the inbound ones, with their limits */
  #table;
  /** @type {CryptoKey | null} */
  #tokenKey = null;
  #nonces = new NonceCache();
  /** @type {ReassemblyBudget} shared by every link: bytes all partial chunked frames may hold */
  #budget;

  /** @param {LinkAdmissionInit} init */
  constructor(init) {
    this.#in = init;
    this.#o = init.options;
    this.#budget = new ReassemblyBudget(this.#o.maxReassemblyBytes);
    this.#table = new HandshakeTable(this.#o, init.logger);
  }

  /** Derive the token key (before the node listens or dials). */
  async start() {
    this.#tokenKey = await deriveTokenKey(this.#o.token);
  }

  /**
   * Close every connection still in its handshake.
   * @param {Promise<string>[]} closing receives the promise of each one's close
   */
  abandon(closing) {
    for (const c of this.#handshaking) {
      c.close('node stopping');
      closing.push(c.closed);
    }
  }

  /** An accepted connection (a listener's onConnection). @param {Connection} conn */
  inbound(conn) {
    if (!this.#in.isStarted()) {
      conn.close('node not started');
      return;
    }
    const place = this.#table.claim(conn);
    if (typeof place === 'string') {
      try { conn.send(encodeError('AdmissionError', `admission refused: too many handshakes (${place})`, true, null)); } catch { /* closed meanwhile */ }
      conn.close(place);
      return;
    }
    const expected = conn.transport === 'webrtc' && conn.remoteAddress.startsWith('webrtc:') ? conn.remoteAddress.slice(7) : undefined;
    const table = this.#table;
    this.admit(conn, ROLE_LISTENER, place.controller.signal, expected, {
      helloTimeoutMs: this.#o.helloTimeoutMs,
      onProgress: (stage) => table.advance(conn, stage),
    }).catch((/** @type {any} */ e) => {
      if (e?.reason === 'handshake timeout' && place.stage === STAGE_WAITING) table.helloTimeout(conn.remoteAddress);
    }).finally(() => table.release(conn));
  }

  /**
   * Run admission on a connection and, on success, make it a link.
   * @param {Connection} conn @param {0 | 1} role
   * @param {AbortSignal} [signal] @param {string} [expectedPeerId]
   * @param {Pick<import('./admission.js').HandshakeOptions, 'helloTimeoutMs' | 'onProgress'>} [inbound] an inbound connection's deadline and progress
   * @returns {Promise<Link>}
   */
  async admit(conn, role, signal, expectedPeerId, inbound = {}) {
    this.#handshaking.add(conn);
    const life = this.#in.lifeSignal();
    const signals = signal ? AbortSignal.any([signal, life]) : life;
    let admitted;
    try {
      admitted = await runHandshake(conn, {
        identity: this.#in.identity, tokenKey: /** @type {CryptoKey} */ (this.#tokenKey), role,
        maxMessageBytes: conn.maxMessageBytes, listenUrl: this.#in.listenUrl(),
        nonceCache: this.#nonces, timeoutMs: this.#o.handshakeTimeoutMs, signal: signals,
        logger: this.#in.logger, expectedPeerId, ...inbound,
      });
    } catch (e) {
      const err = /** @type {import('./errors.js').AdmissionError} */ (e);
      this.#in.events.emit('peer:refused', {
        address: conn.remoteAddress, transport: conn.transport, reason: err.reason ?? 'malformed handshake', message: err.message,
        byPeer: /** @type {any} */ (err).byPeer === true,
      });
      throw e;
    } finally {
      this.#handshaking.delete(conn);
    }
    if (!this.#in.isStarted()) {
      conn.close('node stopping');
      throw new NotStartedError('node stopped during the handshake');
    }
    const link = new Link(conn, admitted, {
      owner: this.#in.owner, localId: this.#in.identity.id, maxFrameBytes: this.#o.maxFrameBytes, maxQueueBytes: this.#o.maxQueueBytes,
      highWaterMark: this.#o.sendHighWaterMark, budget: this.#budget, reassemblyTimeoutMs: this.#o.reassemblyTimeoutMs,
      errorBudget: this.#o.errorBudget, errorWindowMs: this.#o.errorWindowMs, logger: this.#in.linkLogger,
    });
    this.#in.onAdmitted(link);
    link.attach();
    return link;
  }
}
