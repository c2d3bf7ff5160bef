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
/** @type {Map<number, WorkerChannel>} */
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
 * The worker's view of a data channel. For a channel the worker creates, the real
 * RTCDataChannel arrives from the page a moment later: until then this remembers
 * handlers and settings, then forwards all to it. For any channel, it listens for
 * messages from the moment the channel reaches the worker and keeps them until a
 * `message` handler is set: a channel that arrives open (an inbound one: the peer may
 * send at once) still reports 'connecting' here until its 'open' event, and the mesh's
 * adapter sets its handler only on 'open', so without this the peer's first frames
 * (its HELLO) could be lost.
 */
class WorkerChannel {
  /** @type {RTCDataChannel | null} */
  #real = null;
  /** @type {Array<[string, any, any]>} */
  #listeners = [];
  /** @type {Record<string, any>} */
  #props = {};
  #closed = false;
  /** @type {((e: MessageEvent) => void) | null} */
  #onmessage = null;
  /** @type {MessageEvent[]} */
  #early = [];

  /** @param {string} label @param {RTCDataChannel} [real] */
  constructor(label, real) {
    this.label = label;
    if (real) this._bind(real);
  }

  /** @param {RTCDataChannel} real */
  _bind(real) {
    if (this.#closed) {
      real.close();
      return;
    }
    this.#real = real;
    real.binaryType = 'arraybuffer';
    real.addEventListener('message', (e) => {
      if (this.#onmessage !== null && this.#early.length === 0) this.#onmessage(e);
      else if (this.#early.length < 4096) this.#early.push(e);
    });
    for (const [k, v] of Object.entries(this.#props)) /** @type {any} */ (real)[k] = v;
    for (const [t, f, o] of this.#listeners) real.addEventListener(t, f, o);
    this.#listeners = [];
    // it may have opened before it arrived here
    if (real.readyState === 'open') queueMicrotask(() => real.dispatchEvent(new Event('open')));
  }

  #flush() {
    queueMicrotask(() => {
      while (this.#onmessage !== null && this.#early.length > 0) this.#onmessage(/** @type {MessageEvent} */ (this.#early.shift()));
    });
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

  set onmessage(v) {
    this.#onmessage = v ?? null;
    if (this.#onmessage !== null && this.#early.length > 0) this.#flush();
  }
  get onmessage() { return this.#onmessage; }
  set binaryType(v) { this.#set('binaryType', v); }
  get binaryType() { return this.#get('binaryType') ?? 'arraybuffer'; }
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
    post({ rtc: 'new', pc: this.id, config: { iceServers: config.iceServers ?? [], iceTransportPolicy: config.iceTransportPolicy ?? 'all' } });
  }

  /** @param {string} label @param {RTCDataChannelInit} [options] */
  createDataChannel(label, options = {}) {
    const c = new WorkerChannel(label);
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
    this.ondatachannel?.({ channel: new WorkerChannel(channel.label, channel) });
  }
}
