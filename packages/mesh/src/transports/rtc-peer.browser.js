// @ts-check
/**
 * The WebRTC peer-connection adapter for browsers (RTCPeerConnection), with
 * the interface of rtc-peer.js. Remote candidates that arrive before the
 * remote description are kept (bounded) and added after it.
 */
import { BaseConnection } from '../connection.js';

export const RTC_MAX_MESSAGE_BYTES = 262144;
const LABEL = 'termite-mesh';
const MAX_PENDING_CANDIDATES = 64;
const encoder = new TextEncoder();

class BrowserRtcConnection extends BaseConnection {
  /** @type {string | null} */
  #localReason = null;

  /**
   * @param {RTCDataChannel} dc @param {RTCPeerConnection} pc
   * @param {'outbound' | 'inbound'} direction @param {string} address
   */
  constructor(dc, pc, direction, address) {
    const max = pc.sctp?.maxMessageSize;
    super('webrtc', direction, address, Math.min(RTC_MAX_MESSAGE_BYTES, max && Number.isFinite(max) ? max : RTC_MAX_MESSAGE_BYTES));
    this.dc = dc;
    this.pc = pc;
    dc.binaryType = 'arraybuffer';
    dc.onmessage = (ev) => {
      if (typeof ev.data === 'string') this._receive(encoder.encode(ev.data), true);
      else this._receive(new Uint8Array(ev.data), false);
    };
    dc.bufferedAmountLowThreshold = this.lowWaterMark;
    dc.onbufferedamountlow = () => this._drained();
    dc.onclose = () => this.#shut(this.#localReason ?? 'data channel closed by peer');
    pc.addEventListener('connectionstatechange', () => {
      if (pc.connectionState === 'failed' || pc.connectionState === 'closed') this.#shut(this.#localReason ?? `peer connection ${pc.connectionState}`);
    });
  }

  get bufferedAmount() {
    return this.dc.bufferedAmount;
  }

  /** @param {Uint8Array} data */
  _send(data) {
    this.dc.send(/** @type {Uint8Array<ArrayBuffer>} */ (data));
  }

  _armDrain() {
    this.dc.bufferedAmountLowThreshold = this.lowWaterMark;
  }

  /** @param {string} reason */
  _close(reason) {
    this.#localReason = `closed: ${reason}`;
    try { this.dc.close(); } catch { /* already closed */ }
    this.#shut(this.#localReason);
  }

  /** @param {string} reason */
  #shut(reason) {
    if (this.status === 'closed') return;
    this._closed(reason);
    try { this.pc.close(); } catch { /* already closed */ }
  }
}

/**
 * @param {import('./rtc-peer.js').RtcPeerOptions} o
 */
export function createRtcPeer(o) {
  const pc = new RTCPeerConnection({ iceServers: o.iceServers.map(iceServer), iceTransportPolicy: o.iceTransportPolicy ?? 'all' });
  let closed = false;
  /** @type {BrowserRtcConnection | null} */
  let conn = null;
  /** @type {Array<[string, string]>} */
  let pending = [];
  const fail = (/** @type {unknown} */ e) => { if (!closed && !conn) o.onFailed(e instanceof Error ? e.message : String(e)); };

  pc.onicecandidate = (e) => {
    if (!closed && e.candidate && e.candidate.candidate) o.onLocalCandidate(e.candidate.candidate, e.candidate.sdpMid ?? '0');
  };
  pc.addEventListener('connectionstatechange', () => {
    if (!conn && (pc.connectionState === 'failed' || pc.connectionState === 'closed')) fail(`peer connection ${pc.connectionState} before the data channel opened`);
  });
  /** @param {RTCDataChannel} dc @param {'outbound' | 'inbound'} dir */
  const whenOpen = (dc, dir) => {
    const go = () => {
      if (closed || conn) return;
      conn = new BrowserRtcConnection(dc, pc, dir, o.remoteAddress);
      o.onOpen(conn);
    };
    if (dc.readyState === 'open') go();
    else dc.addEventListener('open', go, { once: true });
  };
  if (o.offerer) {
    const dc = pc.createDataChannel(LABEL, { ordered: true });
    whenOpen(dc, 'outbound');
    pc.createOffer()
      .then((offer) => pc.setLocalDescription(offer))
      .then(() => { if (!closed && pc.localDescription) o.onLocalDescription('offer', pc.localDescription.sdp); })
      .catch(fail);
  } else {
    pc.ondatachannel = (e) => whenOpen(e.channel, 'inbound');
  }

  const flush = async () => {
    const p = pending;
    pending = [];
    for (const [candidate, sdpMid] of p) await pc.addIceCandidate({ candidate, sdpMid });
  };
  return {
    /** @param {string} type @param {string} sdp */
    setRemoteDescription(type, sdp) {
      if (closed) return;
      pc.setRemoteDescription({ type: /** @type {RTCSdpType} */ (type), sdp })
        .then(flush)
        .then(async () => {
          if (type !== 'offer' || closed) return;
          await pc.setLocalDescription(await pc.createAnswer());
          if (!closed && pc.localDescription) o.onLocalDescription('answer', pc.localDescription.sdp);
        })
        .catch(fail);
    },
    /** @param {string} candidate @param {string} mid */
    addRemoteCandidate(candidate, mid) {
      if (closed) return;
      if (!pc.remoteDescription) {
        if (pending.length < MAX_PENDING_CANDIDATES) pending.push([candidate, mid]);
        return;
      }
      pc.addIceCandidate({ candidate, sdpMid: mid }).catch(fail);
    },
    close() {
      if (closed) return;
      closed = true;
      if (!conn) pc.close();
    },
  };
}

/**
 * A STUN/TURN URL as RTCPeerConnection takes it. TURN credentials may be written in the
 * URL as node-datachannel takes them (`turn:USER:PASSWORD@HOST:PORT`), so one list
 * configures daemons and tabs alike; a browser wants them as fields.
 * @param {string} url @returns {RTCIceServer}
 */
export function iceServer(url) {
  const m = /^(turns?):([^:@/]+):([^@/]+)@(.+)$/.exec(url);
  return m ? { urls: `${m[1]}:${m[4]}`, username: decodeURIComponent(m[2]), credential: decodeURIComponent(m[3]) } : { urls: url };
}
