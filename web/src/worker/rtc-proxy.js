// @ts-check
/**
 * RTCPeerConnection for a Web Worker, which has none (Chromium exposes RTCDataChannel
 * in workers, not RTCPeerConnection). The page owns the real peer connection
 * (page/rtc-host.js); this object forwards every call to it over the worker's message
 * port, and the page *transfers* each data channel into the worker as soon as it exists
 * (transferable RTCDataChannel). So signalling (offer, answer, ICE) crosses the
 * worker boundary, but data does not: messages flow between the remote peer and the
 * worker directly, with no hop through the page's thread.
 *
 * It implements the part of the RTCPeerConnection interface that the mesh's browser
 * adapter (packages/mesh/src/transports/rtc-peer.browser.js) uses:
 * createDataChannel, createOffer, createAnswer, setLocalDescription,
 * setRemoteDescription, localDescription, remoteDescription, addIceCandidate,
 * onicecandidate, ondatachannel, connectionState and its 'connectionstatechange'
 * event, sctp.maxMessageSize, close.
 *
 * Protocol (messages with an `rtc` field, both directions on the worker's port):
 *   worker → page  {rtc:'new', pc, config} {rtc:'dc', pc, dc, label, options}
 *                  {rtc:'call', pc, req, op, arg} {rtc:'close', pc}
 *   page → worker  {rtc:'reply', req, ok, value|error} {rtc:'ice', pc, candidate}
 *                  {rtc:'state', pc, state, maxMessageSize}
 *                  {rtc:'channel', pc, dc, channel}  (dc: the id of a createDataChannel, or 0 for an inbound channel)
 */

/** @type {{postMessage(m: any): void} | null} */
let port = null;
let serial = 0;
/** @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void}>} */
const pending = new Map();
/** @type {Map<number, WorkerPeerConnection>} */
const connections = new Map();
/** @type {Map<number, PendingChannel>} */
const channels = new Map();

/**
 * Install the proxy as the worker's RTCPeerConnection (if it has none), talking to the
 * page through `target` (the worker global: `self`).
 * @param {{postMessage(m: any): void}} target
 * @returns {boolean} whether the proxy was installed
 */
export function installRtcProxy(target) {
  if (typeof (/** @type {any} */ (globalThis).RTCPeerConnection) === 'function') return false;
  port = target;
  /** @type {any} */ (globalThis).RTCPeerConnection = WorkerPeerConnection;
  return true;
}

/**
 * Handle a message from the page; returns false if it is not an RTC message.
 * @param {any} m
 */
export function handleRtcMessage(m) {
  if (!m || typeof m.rtc !== 'string') return false;
  switch (m.rtc) {
    case 'reply': {
      const p = pending.get(m.req);
      if (!p) return true;
      pending.delete(m.req);
      if (m.ok) p.resolve(m.value);
      else p.reject(new Error(String(m.error)));
      return true;
    }
    case 'ice':
      connections.get(m.pc)?._ice(m.candidate);
      return true;
    case 'state':
      connections.get(m.pc)?._state(m.state, m.maxMessageSize);
      return true;
    case 'channel': {
      const pc = connections.get(m.pc);
      if (m.dc) {
        const c = channels.get(m.dc);
        channels.delete(m.dc);
        if (c) c._bind(m.channel);
        else m.channel.close();
      } else if (pc) pc._inbound(m.channel);
      else m.channel.close();
      return true;
    }
    default:
      return true;
  }
}

/** @param {any} m */
function post(m) {
  if (!port) throw new Error('the RTCPeerConnection proxy is not installed');
  port.postMessage(m);
}

/**
 * A data channel created in the worker whose real RTCDataChannel the page transfers a
 * moment later: until then it remembers handlers and settings, then forwards all to it.
 */
class PendingChannel {
  /** @type {RTCDataChannel | null} */
  #real = null;
  /** @type {Array<[string, any, any]>} */
  #listeners = [];
  /** @type {Record<string, any>} */
  #props = {};
  #closed = false;

  /** @param {string} label */
  constructor(label) {
    this.label = label;
  }

  /** @param {RTCDataChannel} real */
  _bind(real) {
    if (this.#closed) {
      real.close();
      return;
    }
    this.#real = real;
    for (const [k, v] of Object.entries(this.#props)) /** @type {any} */ (real)[k] = v;
    for (const [t, f, o] of this.#listeners) real.addEventListener(t, f, o);
    this.#listeners = [];
    // it may have opened before it arrived here
    if (real.readyState === 'open') real.dispatchEvent(new Event('open'));
  }

  get readyState() {
    return this.#closed ? 'closed' : this.#real?.readyState ?? 'connecting';
  }

  get bufferedAmount() {
    return this.#real?.bufferedAmount ?? 0;
  }

  /** @param {string} type @param {any} f @param {any} [o] */
  addEventListener(type, f, o) {
    if (this.#real) this.#real.addEventListener(type, f, o);
    else this.#listeners.push([type, f, o]);
  }

  /** @param {string} type @param {any} f */
  removeEventListener(type, f) {
    if (this.#real) this.#real.removeEventListener(type, f);
    else this.#listeners = this.#listeners.filter((l) => l[0] !== type || l[1] !== f);
  }

  /** @param {any} data */
  send(data) {
    if (!this.#real) throw new Error('the data channel is not open');
    this.#real.send(data);
  }

  close() {
    this.#closed = true;
    this.#real?.close();
  }

  /** @param {string} k @param {any} v */
  #set(k, v) {
    if (this.#real) /** @type {any} */ (this.#real)[k] = v;
    else this.#props[k] = v;
  }

  /** @param {string} k */
  #get(k) {
    return this.#real ? /** @type {any} */ (this.#real)[k] : this.#props[k];
  }

  set binaryType(v) { this.#set('binaryType', v); }
  get binaryType() { return this.#get('binaryType') ?? 'arraybuffer'; }
  set onmessage(v) { this.#set('onmessage', v); }
  get onmessage() { return this.#get('onmessage') ?? null; }
  set onclose(v) { this.#set('onclose', v); }
  get onclose() { return this.#get('onclose') ?? null; }
  set onbufferedamountlow(v) { this.#set('onbufferedamountlow', v); }
  get onbufferedamountlow() { return this.#get('onbufferedamountlow') ?? null; }
  set bufferedAmountLowThreshold(v) { this.#set('bufferedAmountLowThreshold', v); }
  get bufferedAmountLowThreshold() { return this.#get('bufferedAmountLowThreshold') ?? 0; }
}

/** The worker's stand-in for RTCPeerConnection. */
class WorkerPeerConnection extends EventTarget {
  /** @param {RTCConfiguration} [config] */
  constructor(config = {}) {
    super();
    this.id = ++serial;
    /** @type {RTCPeerConnectionState} */
    this.connectionState = 'new';
    /** @type {{type: RTCSdpType, sdp: string} | null} */
    this.localDescription = null;
    /** @type {{type: RTCSdpType, sdp: string} | null} */
    this.remoteDescription = null;
    /** @type {{maxMessageSize: number} | null} */
    this.sctp = null;
    /** @type {((e: {candidate: {candidate: string, sdpMid: string | null} | null}) => void) | null} */
    this.onicecandidate = null;
    /** @type {((e: {channel: any}) => void) | null} */
    this.ondatachannel = null;
    this.closed = false;
    connections.set(this.id, this);
    post({ rtc: 'new', pc: this.id, config: { iceServers: config.iceServers ?? [] } });
  }

  /** @param {string} label @param {RTCDataChannelInit} [options] */
  createDataChannel(label, options = {}) {
    const c = new PendingChannel(label);
    const dc = ++serial;
    channels.set(dc, c);
    post({ rtc: 'dc', pc: this.id, dc, label, options: { ordered: options.ordered ?? true } });
    return c;
  }

  /** @param {string} op @param {any} [arg] */
  #call(op, arg) {
    if (this.closed) return Promise.reject(new Error('the peer connection is closed'));
    const req = ++serial;
    return new Promise((resolve, reject) => {
      pending.set(req, { resolve, reject });
      post({ rtc: 'call', pc: this.id, req, op, arg });
    });
  }

  createOffer() {
    return this.#call('createOffer');
  }

  createAnswer() {
    return this.#call('createAnswer');
  }

  /** @param {{type: RTCSdpType, sdp: string}} desc */
  async setLocalDescription(desc) {
    this.localDescription = await this.#call('setLocalDescription', { type: desc.type, sdp: desc.sdp });
  }

  /** @param {{type: RTCSdpType, sdp: string}} desc */
  async setRemoteDescription(desc) {
    await this.#call('setRemoteDescription', { type: desc.type, sdp: desc.sdp });
    this.remoteDescription = { type: desc.type, sdp: desc.sdp };
  }

  /** @param {{candidate: string, sdpMid?: string | null}} c */
  async addIceCandidate(c) {
    await this.#call('addIceCandidate', { candidate: c.candidate, sdpMid: c.sdpMid ?? '0' });
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this.connectionState = 'closed';
    connections.delete(this.id);
    post({ rtc: 'close', pc: this.id });
  }

  /** @param {{candidate: string, sdpMid: string | null} | null} candidate */
  _ice(candidate) {
    if (!this.closed) this.onicecandidate?.({ candidate });
  }

  /** @param {RTCPeerConnectionState} state @param {number | undefined} maxMessageSize */
  _state(state, maxMessageSize) {
    if (this.closed) return;
    if (maxMessageSize) this.sctp = { maxMessageSize };
    if (state === this.connectionState) return;
    this.connectionState = state;
    this.dispatchEvent(new Event('connectionstatechange'));
    if (state === 'closed') connections.delete(this.id);
  }

  /** @param {RTCDataChannel} channel */
  _inbound(channel) {
    if (this.closed) {
      channel.close();
      return;
    }
    this.ondatachannel?.({ channel });
  }
}
