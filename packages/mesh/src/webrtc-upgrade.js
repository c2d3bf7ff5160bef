// @ts-check
/**
 * WebRTCUpgrade: moving a pair of nodes onto a direct WebRTC data channel
 * (docs/mesh.md §4). The offer, answer, candidates and bye travel as SIGNAL frames
 * over the mesh — directly, or routed through a neighbour — between this node and
 * the WebRTC transport; the data channel, once open, is admitted like any
 * connection, and PeerTable prefers it, so the paths switch to it (in order: see
 * paths.js).
 *
 * Invariants:
 * - at most one upgrade attempt per peer at a time; concurrent calls share it;
 * - an attempt that fails leaves traffic where it was and rejects with UpgradeError
 *   (AbortError as itself);
 * - a SIGNAL that cannot be handled is answered: 'bye' when WebRTC is disabled here,
 *   an ERROR (or the link's error budget) when malformed.
 */
import { T, encodeError, encodeSignal } from './frames.js';
import { AbortError, InvalidArgumentError, SignallingError, UpgradeError, throwIfAborted } from './errors.js';
import { ROLE_DIALER } from './admission.js';
import { isNodeId } from './identity.js';

/**
 * @typedef {object} WebRTCUpgradeInit
 * @property {import('./transports/webrtc.js').WebRTCTransport | null} rtc null when WebRTC is disabled
 * @property {import('./link-admission.js').LinkAdmission} admission
 * @property {import('./peer-table.js').PeerTable} peers
 * @property {import('./paths.js').Paths} paths
 * @property {import('./logger.js').Logger} logger
 */

export class WebRTCUpgrade {
  /** @type {import('./transports/webrtc.js').WebRTCTransport | null} */
  #rtc;
  /** @type {import('./link-admission.js').LinkAdmission} */
  #admission;
  /** @type {import('./peer-table.js').PeerTable} */
  #peers;
  /** @type {import('./paths.js').Paths} */
  #paths;
  /** @type {import('./logger.js').Logger} */
  #log;
  /** @type {Map<string, Promise<import('./mesh-port.js').PeerInfo>>} */
  #upgrading = new Map();

  /** @param {WebRTCUpgradeInit} init */
  constructor(init) {
    this.#rtc = init.rtc;
    this.#admission = init.admission;
    this.#peers = init.peers;
    this.#paths = init.paths;
    this.#log = init.logger;
  }

  /**
   * Open, admit and switch to a WebRTC link to `peerId` (MeshNode.upgrade states
   * the rules; the node is known to be started).
   * @param {string} peerId @param {'webrtc'} transport
   * @param {{signal?: AbortSignal, timeoutMs?: number}} options
   * @returns {Promise<import('./mesh-port.js').PeerInfo>}
   */
  upgrade(peerId, transport, options) {
    try {
      throwIfAborted(options.signal);
      if (transport !== 'webrtc') throw new InvalidArgumentError(`cannot upgrade to ${JSON.stringify(transport)}: only 'webrtc'`);
      if (!isNodeId(peerId)) throw new InvalidArgumentError(`not a node id: ${JSON.stringify(peerId)}`);
      if (!this.#rtc) throw new UpgradeError('WebRTC is disabled on this node (init.webrtc = false)');
    } catch (e) {
      return Promise.reject(e);
    }
    const peer = this.#peers.byId.get(peerId);
    if (peer?.links.some((l) => l.transport === 'webrtc' && !l.closed)) return Promise.resolve(this.#peers.info(peer));
    const running = this.#upgrading.get(peerId);
    if (running) return running;
    const attempt = this.#attempt(this.#rtc, peerId, options);
    this.#upgrading.set(peerId, attempt);
    const clear = () => { this.#upgrading.delete(peerId); };
    attempt.then(clear, clear);
    return attempt;
  }

  /**
   * @param {import('./transports/webrtc.js').WebRTCTransport} rtc @param {string} peerId
   * @param {{signal?: AbortSignal, timeoutMs?: number}} options
   * @returns {Promise<import('./mesh-port.js').PeerInfo>}
   */
  async #attempt(rtc, peerId, options) {
    if (this.#paths.pathTo(peerId).link === null) throw new UpgradeError(`cannot upgrade: ${peerId} is unreachable (no path for signalling)`);
    try {
      const conn = await rtc.dial(peerId, options);
      const link = await this.#admission.admit(conn, ROLE_DIALER, options.signal, peerId);
      this.#log.info('upgraded', { peer: peerId, transport: link.transport });
      return this.#peers.info(/** @type {import('./peer-table.js').Peer} */ (this.#peers.byId.get(peerId)));
    } catch (e) {
      if (e instanceof AbortError) throw e;
      throw new UpgradeError(`upgrade to WebRTC with ${peerId} failed: ${/** @type {Error} */ (e).message}`, { cause: e });
    }
  }

  /**
   * A SIGNAL frame from `from` (direct, or the source of a ROUTE).
   * @param {string} from @param {import('./frames.js').SignalFrame} f @param {import('./link.js').Link | null} link
   */
  onSignal(from, f, link) {
    if (!this.#rtc) {
      this.#paths.sendUrgent(from, encodeSignal(f.session, 'bye', 'WebRTC is disabled on this node', null));
      return;
    }
    try {
      this.#rtc.handleSignal(from, { session: f.session, kind: /** @type {any} */ (f.kind), data: f.a, mid: f.b });
    } catch (e) {
      const err = e instanceof SignallingError ? e : new SignallingError(String(e));
      this.#log.warn('bad signal', { from, error: err.message });
      if (link) link.reportBad(err, T.SIGNAL);
      else this.#paths.sendUrgent(from, encodeError(err.name, err.message, false, T.SIGNAL));
    }
  }
}
