// @ts-check
/**
 * The WebRTC peer-connection adapter for Node (node-datachannel, i.e.
 * libdatachannel). webrtc.js drives it; the browser build swaps in
 * rtc-peer.browser.js (RTCPeerConnection) with the same interface:
 *
 *   createRtcPeer(options) → { setRemoteDescription(type, sdp), addRemoteCandidate(candidate, mid), close() }
 *
 * options: name, offerer (creates the data channel and the offer), iceServers,
 * bindAddress (Node: '127.0.0.1' keeps gathering on loopback), and callbacks
 * onLocalDescription(type, sdp), onLocalCandidate(candidate, mid),
 * onOpen(connection) once the data channel is open, onFailed(reason).
 * Every callback runs at most once per event; none runs after close().
 * Remote candidates that arrive before the remote description are kept
 * (at most 64) and added right after it, in both adapters.
 */
import nodeDataChannel from 'node-datachannel';
import { BaseConnection } from '../connection.js';

/** The data-channel message limit both Chromium and libdatachannel advertise. */
export const RTC_MAX_MESSAGE_BYTES = 262144;
const LABEL = 'termite-mesh';
const encoder = new TextEncoder();

/**
 * @typedef {object} RtcPeerOptions
 * @property {string} name for logs
 * @property {boolean} offerer
 * @property {string[]} iceServers
 * @property {'all' | 'relay'} [iceTransportPolicy] (default 'all')
 * @property {string} [bindAddress]
 * @property {string} remoteAddress printable address for the connection
 * @property {(type: string, sdp: string) => void} onLocalDescription
 * @property {(candidate: string, mid: string) => void} onLocalCandidate
 * @property {(conn: import('../interfaces.js').Connection) => void} onOpen
 * @property {(reason: string) => void} onFailed
 */

/**
 * A Connection over a node-datachannel DataChannel. Closing it closes the
 * peer connection too (one channel per peer connection).
 */
class NdcConnection extends BaseConnection {
  /** @type {string | null} */
  #localReason = null;
  /** @type {string | null} */
  #error = null;

  /**
   * @param {import('node-datachannel').DataChannel} dc @param {import('node-datachannel').PeerConnection} pc
   * @param {'outbound' | 'inbound'} direction @param {string} address
   */
  constructor(dc, pc, direction, address) {
    super('webrtc', direction, address, Math.min(RTC_MAX_MESSAGE_BYTES, dc.maxMessageSize() || RTC_MAX_MESSAGE_BYTES));
    this.dc = dc;
    this.pc = pc;
    dc.onMessage((m) => {
      if (typeof m === 'string') this._receive(encoder.encode(m), true);
      else this._receive(m instanceof ArrayBuffer ? new Uint8Array(m) : m, false);
    });
    dc.onError((e) => { this.#error = e; });
    dc.onClosed(() => this.#shut(this.#localReason ?? `data channel closed by peer${this.#error ? ' (' + this.#error + ')' : ''}`));
    dc.setBufferedAmountLowThreshold(this.lowWaterMark);
    dc.onBufferedAmountLow(() => this._drained());
  }

  get bufferedAmount() {
    return this.status === 'closed' ? 0 : this.dc.bufferedAmount();
  }

  /** @param {Uint8Array} data */
  _send(data) {
    try {
      this.dc.sendMessageBinary(data);
    } catch (e) {
      // libdatachannel closed the channel before its onClosed callback (from its own
      // thread) reached us. The message is lost with the channel, as on any close; an
      // exception here would unwind into a node-datachannel callback (a frame routed on
      // from another channel) and abort the process (std::terminate on Napi::Error).
      this.#error ??= e instanceof Error ? e.message : String(e);
      queueMicrotask(() => this.#shut(`data channel closed (${this.#error})`));
    }
  }

  _armDrain() {
    this.dc.setBufferedAmountLowThreshold(this.lowWaterMark);
  }

  /** @param {string} reason */
  _close(reason) {
    this.#localReason = `closed: ${reason}`;
    try { this.dc.close(); } catch { /* already closed */ }
    this.#shut(this.#localReason);
  }

  /** Peer connection state went to failed/closed. @param {string} state */
  _peerState(state) {
    if (state === 'failed' || state === 'closed') this.#shut(this.#localReason ?? `peer connection ${state}`);
  }

  /** @param {string} reason */
  #shut(reason) {
    if (this.status === 'closed') return;
    this._closed(reason);
    try { this.pc.close(); } catch { /* already closed */ }
  }
}

/**
 * @param {RtcPeerOptions} o
 */
export function createRtcPeer(o) {
  const pc = new nodeDataChannel.PeerConnection(o.name, {
    iceServers: o.iceServers,
    iceTransportPolicy: o.iceTransportPolicy ?? 'all',
    bindAddress: o.bindAddress ?? '127.0.0.1',
    maxMessageSize: RTC_MAX_MESSAGE_BYTES,
  });
  let closed = false;
  /** @type {NdcConnection | null} */
  let conn = null;
  pc.onLocalDescription((sdp, type) => { if (!closed) o.onLocalDescription(type, sdp); });
  pc.onLocalCandidate((cand, mid) => { if (!closed) o.onLocalCandidate(cand, mid); });
  pc.onStateChange((state) => {
    if (closed) return;
    if (conn) conn._peerState(state);
    else if (state === 'failed' || state === 'closed') o.onFailed(`peer connection ${state} before the data channel opened`);
  });
  /** @param {import('node-datachannel').DataChannel} dc @param {'outbound' | 'inbound'} dir */
  const opened = (dc, dir) => {
    if (closed || conn) return;
    conn = new NdcConnection(dc, pc, dir, o.remoteAddress);
    o.onOpen(conn);
  };
  if (o.offerer) {
    const dc = pc.createDataChannel(LABEL);
    dc.onOpen(() => opened(dc, 'outbound'));
  } else {
    pc.onDataChannel((dc) => {
      if (dc.isOpen()) opened(dc, 'inbound');
      else dc.onOpen(() => opened(dc, 'inbound'));
    });
  }
  // libdatachannel refuses a remote candidate before the remote description
  // ("Got a remote candidate without ICE transport"), and node-datachannel's
  // callbacks do not keep the description-before-candidates order across its
  // threads, so a peer's candidates may arrive first: keep them until then.
  let haveRemote = false;
  /** @type {Array<[string, string]>} */
  let pending = [];
  return {
    /** @param {string} type @param {string} sdp */
    setRemoteDescription(type, sdp) {
      if (closed) return;
      pc.setRemoteDescription(sdp, /** @type {any} */ (type));
      haveRemote = true;
      const p = pending;
      pending = [];
      for (const [c, m] of p) pc.addRemoteCandidate(c, m);
    },
    /** @param {string} candidate @param {string} mid */
    addRemoteCandidate(candidate, mid) {
      if (closed) return;
      if (haveRemote) pc.addRemoteCandidate(candidate, mid);
      else if (pending.length < 64) pending.push([candidate, mid]);
    },
    /** Abandon the attempt (a connection already handed out is closed by its owner). */
    close() {
      if (closed) return;
      closed = true;
      if (!conn) {
        try { pc.close(); } catch { /* already closed */ }
      }
    },
  };
}
