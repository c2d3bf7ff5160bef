// @ts-check
/**
 * WebRTC data-channel transport: one ordered, reliable data channel per peer
 * connection, signalled (SDP offer/answer, ICE candidates) through a
 * Signaller — in a mesh node, SIGNAL frames over an existing direct or routed
 * path. The same file runs in Node and browsers; only the peer-connection
 * adapter differs (rtc-peer.js: node-datachannel; rtc-peer.browser.js:
 * RTCPeerConnection).
 *
 * Sessions: each dial creates a session with a fresh random id; signals name
 * it, so concurrent attempts between the same two nodes never mix. The
 * dialer is the offerer. A session ends when its channel opens (the
 * connection then lives on its own), fails, times out (connectTimeoutMs), or
 * gets a `bye`; a failed or timed-out session sends `bye` with the reason so
 * the other side gives up at once rather than waiting for its own timeout.
 *
 * Order: the offerer sends its ICE candidates only after it has applied the
 * answer, so the answerer cannot start connectivity checks and DTLS before
 * the offerer knows the answerer's certificate fingerprint (libdatachannel
 * fails the DTLS handshake with "unknown CA" in that race).
 *
 * Bounds: at most maxSessions sessions still signalling; at most 64
 * candidates per session; offers are accepted only while a listener listens.
 */
import { createRtcPeer, RTC_MAX_MESSAGE_BYTES } from './rtc-peer.js';
import { filterCandidate, filterSdp, isCandidatePolicy } from './candidates.js';
import { AbortError, DialError, InvalidArgumentError, SignallingError, throwIfAborted } from '../errors.js';
import { hex, randomBytes } from '../bytes.js';
import { isNodeId } from '../identity.js';

/** @typedef {import('../interfaces.js').Transport} TransportContract */
/** @typedef {import('../interfaces.js').Listener} ListenerContract */

/**
 * Options of webRTCTransport(init).
 * @typedef {object} WebRTCInit
 * @property {import('./candidates.js').CandidatePolicy} [candidatePolicy]
 *   which ICE candidates are announced and accepted. (default 'loopback')
 * @property {string[]} [iceServers] STUN/TURN URLs. (default [])
 * @property {'all' | 'relay'} [iceTransportPolicy] 'relay': gather and use TURN relay
 *   candidates only. (default 'all')
 * @property {string} [bindAddress] Node only: the address libdatachannel
 *   gathers on. (default '127.0.0.1')
 * @property {number} [connectTimeoutMs] bound on signalling + ICE + DTLS +
 *   SCTP until the channel is open. (default 15000)
 * @property {number} [maxSessions] concurrent sessions still signalling. (default 64)
 */

const MAX_CANDIDATES = 64;
const KINDS = new Set(['offer', 'answer', 'candidate', 'bye']);

/**
 * @param {WebRTCInit} [init]
 * @returns {(components: import('../interfaces.js').TransportComponents) => WebRTCTransport}
 */
export function webRTCTransport(init = {}) {
  return (components) => new WebRTCTransport(init, components);
}

/**
 * @typedef {object} Session
 * @property {string} key `<peer id>/<session id>`
 * @property {string} id
 * @property {string} peerId
 * @property {boolean} offerer
 * @property {ReturnType<typeof createRtcPeer>} peer
 * @property {number} candidates remote candidates accepted so far
 * @property {boolean} answered (offerer) the answer has been applied
 * @property {import('../interfaces.js').Signal[]} heldCandidates (offerer) local candidates waiting for the answer
 * @property {ReturnType<typeof setTimeout>} timer
 * @property {(conn: import('../interfaces.js').Connection) => void} opened
 * @property {(reason: string, sendBye: boolean) => void} failed
 */

/** @implements {TransportContract} */
export class WebRTCTransport {
  /** @type {Map<string, Session>} */
  #sessions = new Map();
  /** @type {((conn: import('../interfaces.js').Connection) => void) | null} */
  #onConnection = null;
  /** @type {Set<import('../interfaces.js').Connection>} */
  #open = new Set();

  /**
   * @param {WebRTCInit} init
   * @param {import('../interfaces.js').TransportComponents} components
   */
  constructor(init, components) {
    /** @type {'webrtc'} */
    this.name = 'webrtc';
    this.maxMessageBytes = RTC_MAX_MESSAGE_BYTES;
    const policy = init.candidatePolicy ?? 'loopback';
    if (!isCandidatePolicy(policy)) throw new InvalidArgumentError(`unknown candidate policy ${JSON.stringify(policy)}`);
    this.policy = policy;
    this.iceServers = init.iceServers ?? [];
    const icePolicy = init.iceTransportPolicy ?? 'all';
    if (icePolicy !== 'all' && icePolicy !== 'relay') throw new InvalidArgumentError(`unknown ICE transport policy ${JSON.stringify(icePolicy)} (expected 'all' or 'relay')`);
    this.iceTransportPolicy = icePolicy;
    this.bindAddress = init.bindAddress;
    this.connectTimeoutMs = init.connectTimeoutMs ?? 15_000;
    this.maxSessions = init.maxSessions ?? 64;
    this.signaller = components.signaller;
    this.log = components.logger.child('webrtc');
  }

  /**
   * Open a data channel to `peerId`, signalling through the signaller.
   * @param {string} peerId
   * @param {import('../interfaces.js').DialOptions} [options]
   * @returns {Promise<import('../interfaces.js').Connection>}
   */
  async dial(peerId, options = {}) {
    throwIfAborted(options.signal);
    if (!isNodeId(peerId)) throw new InvalidArgumentError(`not a node id: ${JSON.stringify(peerId)}`);
    if (!this.signaller) throw new DialError('the WebRTC transport has no signaller (it is created by a mesh node)');
    if (this.#sessions.size >= this.maxSessions) throw new DialError(`${this.#sessions.size} WebRTC sessions are already signalling (limit ${this.maxSessions})`);
    const timeoutMs = options.timeoutMs ?? this.connectTimeoutMs;
    return new Promise((resolve, reject) => {
      const onAbort = () => session.failed('aborted', true);
      const session = this.#createSession(peerId, hex(randomBytes(12)), true, timeoutMs, (conn) => {
        options.signal?.removeEventListener('abort', onAbort);
        resolve(conn);
      }, (reason) => {
        options.signal?.removeEventListener('abort', onAbort);
        reject(reason === 'aborted' ? new AbortError(`WebRTC dial to ${peerId} aborted`) : new DialError(`WebRTC connection to ${peerId} failed: ${reason}`));
      });
      options.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * A signal from `fromId` (the mesh node calls this for each SIGNAL frame).
   * Throws SignallingError for a signal that is malformed or names no session;
   * the node reports it to the sender.
   * @param {string} fromId @param {import('../interfaces.js').Signal} s
   */
  handleSignal(fromId, s) {
    if (!KINDS.has(s.kind)) throw new SignallingError(`unknown signal kind ${JSON.stringify(s.kind)}`);
    const key = `${fromId}/${s.session}`;
    const session = this.#sessions.get(key);
    if (s.kind === 'offer') {
      if (session) throw new SignallingError(`second offer for session ${s.session}`);
      if (typeof s.data !== 'string') throw new SignallingError('offer without SDP');
      this.#accept(fromId, s.session, s.data);
      return;
    }
    if (!session) {
      if (s.kind === 'bye' || s.kind === 'candidate') return; // late signal of a finished session: harmless
      throw new SignallingError(`${s.kind} for unknown session ${s.session}`);
    }
    if (s.kind === 'answer') {
      if (!session.offerer || typeof s.data !== 'string') throw new SignallingError(`unexpected answer in session ${s.session}`);
      session.peer.setRemoteDescription('answer', filterSdp(s.data, this.policy));
      session.answered = true;
      const held = session.heldCandidates;
      session.heldCandidates = [];
      for (const c of held) this.signaller?.send(session.peerId, c);
    } else if (s.kind === 'candidate') {
      if (typeof s.data !== 'string') throw new SignallingError('candidate signal without a candidate');
      if (session.candidates >= MAX_CANDIDATES) return;
      const c = filterCandidate(s.data, this.policy);
      if (c) {
        session.candidates++;
        session.peer.addRemoteCandidate(c, s.mid ?? '0');
      }
    } else {
      session.failed(`peer gave up: ${s.data ?? 'bye'}`, false);
    }
  }

  /** @param {import('../interfaces.js').ListenerOptions} options */
  createListener(options) {
    return {
      listen: async () => { this.#onConnection = options.onConnection; },
      addresses: () => /** @type {string[]} */ ([]),
      close: async () => { this.#onConnection = null; },
    };
  }

  /** Abandon every session and close every connection this transport opened. */
  async close() {
    this.#onConnection = null;
    for (const s of [...this.#sessions.values()]) s.failed('transport closing', true);
    for (const c of [...this.#open]) c.close('transport closing');
  }

  /** @param {string} fromId @param {string} sessionId @param {string} sdp */
  #accept(fromId, sessionId, sdp) {
    const onConnection = this.#onConnection;
    const bye = (/** @type {string} */ why) => this.signaller?.send(fromId, { session: sessionId, kind: 'bye', data: why, mid: null });
    if (!onConnection) {
      bye('not accepting WebRTC connections');
      return;
    }
    if (this.#sessions.size >= this.maxSessions) {
      bye(`too many WebRTC sessions (${this.maxSessions})`);
      return;
    }
    const session = this.#createSession(fromId, sessionId, false, this.connectTimeoutMs, (conn) => onConnection(conn), (reason) => {
      this.log.info('incoming WebRTC session failed', { peer: fromId, session: sessionId, reason });
    });
    session.peer.setRemoteDescription('offer', filterSdp(sdp, this.policy));
  }

  /**
   * @param {string} peerId @param {string} id @param {boolean} offerer @param {number} timeoutMs
   * @param {(conn: import('../interfaces.js').Connection) => void} onOpen
   * @param {(reason: string) => void} onFail
   * @returns {Session}
   */
  #createSession(peerId, id, offerer, timeoutMs, onOpen, onFail) {
    const key = `${peerId}/${id}`;
    const signal = (/** @type {import('../interfaces.js').Signal} */ s) => {
      if (!this.signaller?.send(peerId, s)) session.failed(`no path to ${peerId} for signalling`, false);
    };
    let done = false;
    const end = () => {
      done = true;
      clearTimeout(session.timer);
      this.#sessions.delete(key);
    };
    /** @type {Session} */
    const session = {
      key, id, peerId, offerer, candidates: 0, answered: false, heldCandidates: [],
      timer: setTimeout(() => session.failed(`not open within ${timeoutMs} ms`, true), timeoutMs),
      opened: (conn) => {
        if (done) return;
        end();
        for (const c of this.#open) if (c.status === 'closed') this.#open.delete(c); // prune: bounded by live channels
        this.#open.add(conn);
        this.log.debug('data channel open', { peer: peerId, session: id, offerer });
        onOpen(conn);
      },
      failed: (reason, sendBye) => {
        if (done) return;
        end();
        session.peer.close();
        if (sendBye) this.signaller?.send(peerId, { session: id, kind: 'bye', data: reason, mid: null });
        onFail(reason);
      },
      peer: /** @type {any} */ (null),
    };
    this.#sessions.set(key, session);
    session.peer = createRtcPeer({
      name: `termite-${offerer ? 'out' : 'in'}-${id.slice(0, 8)}`,
      offerer,
      iceServers: this.iceServers,
      iceTransportPolicy: this.iceTransportPolicy,
      bindAddress: this.bindAddress,
      remoteAddress: `webrtc:${peerId}`,
      onLocalDescription: (type, sdp) => signal({ session: id, kind: type === 'offer' ? 'offer' : 'answer', data: filterSdp(sdp, this.policy), mid: null }),
      onLocalCandidate: (cand, mid) => {
        const c = filterCandidate(cand, this.policy);
        if (!c) return;
        /** @type {import('../interfaces.js').Signal} */
        const sig = { session: id, kind: 'candidate', data: c, mid };
        // The offerer holds its candidates until the answer is applied: otherwise the
        // answerer can start ICE and DTLS before the offerer knows the answerer's
        // fingerprint, and libdatachannel then fails the DTLS handshake ("unknown CA").
        if (offerer && !session.answered) {
          if (session.heldCandidates.length < MAX_CANDIDATES) session.heldCandidates.push(sig);
        } else signal(sig);
      },
      onOpen: (conn) => session.opened(conn),
      onFailed: (reason) => session.failed(reason, true),
    });
    return session;
  }
}
