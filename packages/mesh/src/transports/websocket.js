// @ts-check
/**
 * WebSocket transport for Node (`ws`): dials ws:// URLs and listens on a host
 * and port (port 0 = a free port) or on an existing HTTP server's path.
 * The browser build replaces this file with websocket.browser.js.
 *
 * Backpressure: `bufferedAmount` is ws's (socket write buffer + sender
 * queue); `ondrain` follows the socket's 'drain' event, which Node emits once
 * the write buffer is empty after a write returned false. That holds when
 * lowWaterMark ≥ the socket's writableHighWaterMark (16 KiB), as the mesh's
 * are (docs/mesh.md §6).
 *
 * Browsers: an upgrade whose `Origin` is not this node's own page nor allowed is
 * answered 403 before the upgrade (origin-policy.js); refusals are logged, at most one
 * line per ORIGIN_LOG_MS with the count.
 */
import { WebSocket, WebSocketServer } from 'ws';
import { BaseConnection, holdWrites, releaseWrites } from '../connection.js';
import { DialError, throwIfAborted } from '../errors.js';
import { DEFAULT_WS_MAX_MESSAGE_BYTES, checkWsUrl, closeReasonBytes, describeClose, guardedDial } from './ws-common.js';
import { FrameReader, frameBinary, writeBinaryFrame } from './ws-frames.js';
import { checkOrigin, originPolicy } from './origin-policy.js';

/** @typedef {import('../interfaces.js').Transport} TransportContract */
/** @typedef {import('../interfaces.js').Listener} ListenerContract */

/** Seconds a graceful close may take before the socket is destroyed. */
const CLOSE_GRACE_MS = 1000;
/** Minimum time between two log lines about refused origins. */
const ORIGIN_LOG_MS = 10_000;

class WsConnection extends BaseConnection {
  /** @type {string | null} */
  #localReason = null;
  /** @type {Error | null} */
  #error = null;
  /** The socket, once its binary frames are written here rather than by ws (ws-frames.js). @type {import('node:net').Socket | null} */
  #socket = null;
  /** @type {FrameReader | null} */
  #reader = null;
  /** Whether this end masks its frames (it dialled: it is the WebSocket client). */
  #masks;
  /** Writes held (connection.js holdWrites), and whether the socket is corked for them. */
  #held = false;
  #corked = false;
  /** The first message of a hold, framed, not yet written (release writes it). @type {Buffer | null} */
  #kept = null;

  /**
   * @param {WebSocket} ws @param {'outbound' | 'inbound'} direction @param {string} address
   * @param {number} max largest message sent or accepted @param {number} hardLimit larger frames close the connection (1009)
   */
  constructor(ws, direction, address, max, hardLimit) {
    super('websocket', direction, address, max);
    this.ws = ws;
    this.#masks = direction === 'outbound';
    ws.binaryType = 'nodebuffer';
    ws.on('message', (data, isBinary) => this._receive(/** @type {Buffer} */ (data), !isBinary));
    ws.on('error', (e) => { this.#error = e; });
    ws.on('close', (code, reason) => {
      this.#socket = null;
      this._closed(describeClose(code, reason.toString(), this.#localReason, this.#error));
    });
    const opened = () => {
      /** @type {any} */ (ws)._socket?.on('drain', () => this._drained());
      this.#takeFrames(hardLimit);
    };
    if (ws.readyState === WebSocket.OPEN) opened();
    else ws.once('open', opened);
  }

  /**
   * Read and write binary frames on the socket directly (ws-frames.js says why), ws
   * keeping everything else. Done in the same task as ws's 'open' or 'connection',
   * before the socket delivers any data; if ws is not in the state this relies on
   * (another version, an extension negotiated, bytes already read), it keeps the socket.
   * @param {number} hardLimit
   */
  #takeFrames(hardLimit) {
    const w = /** @type {any} */ (this.ws);
    const socket = w._socket;
    const receiver = w._receiver;
    const wsOnData = socket?.listeners('data').find((/** @type {Function} */ f) => f.name === 'socketOnData');
    if (!wsOnData || !receiver || receiver._bufferedBytes !== 0 || Object.keys(w._extensions ?? {}).length > 0) return;
    /** @param {Buffer} chunk */
    const onData = (chunk) => {
      // replies written while the chunk is handled leave together (connection.js, holdWrites)
      holdWrites();
      try {
        reader.push(chunk);
      } finally {
        releaseWrites();
      }
    };
    const reader = new FrameReader(!this.#masks, hardLimit,
      (payload) => this._receive(payload, false),
      (rest) => {
        // From here on ws reads the socket, starting at this frame; what ws writes in
        // answer (a pong, a close) must follow what this node already sent
        this.#spill();
        socket.removeListener('data', onData);
        socket.on('data', wsOnData);
        wsOnData.call(socket, rest);
      });
    socket.removeListener('data', wsOnData);
    socket.on('data', onData);
    this.#socket = socket;
    this.#reader = reader;
    this._corkable = true;
  }

  // A hold's first message is kept framed and written by one plain write at release;
  // a second one (or anything ws writes itself) corks the socket behind it (#spill).
  // The usual hold carries one reply, and a corked write costs more on the round trip
  // (Node's cork bookkeeping and a writev request). Either way, what is sent under a
  // hold leaves in one write at release, in order.
  _cork() {
    this.#held = true;
  }

  _uncork() {
    this.#held = false;
    const k = this.#kept;
    const socket = this.#socket;
    if (k !== null) {
      this.#kept = null;
      if (socket !== null && !socket.destroyed) socket.write(k);
    }
    if (this.#corked) {
      this.#corked = false;
      socket?.uncork();
    }
  }

  /** Under a hold: cork the socket, the kept message in it first. */
  #spill() {
    if (!this.#held || this.#corked || this.#socket === null) return;
    this.#socket.cork();
    this.#corked = true;
    const k = this.#kept;
    if (k === null) return;
    this.#kept = null;
    this.#socket.write(k);
  }

  /** Who frames this connection's binary messages: here (ws-frames.js) or ws; reads go to ws for good at the first frame of another kind. */
  get framing() {
    return { writes: this.#socket !== null ? 'here' : 'ws', reads: this.#reader !== null && !this.#reader.handedOver ? 'here' : 'ws' };
  }

  get bufferedAmount() {
    return this.ws.bufferedAmount + (this.#kept === null ? 0 : this.#kept.length);
  }

  /** @param {Uint8Array} data */
  _send(data) {
    // After a close frame (either side's) ws refuses data frames; so do we.
    if (this.#socket !== null && this.ws.readyState === WebSocket.OPEN) {
      if (this.#held && !this.#corked) {
        if (this.#kept === null && (this.#kept = frameBinary(data, this.#masks)) !== null) return;
        this.#spill();
      }
      writeBinaryFrame(this.#socket, data, this.#masks);
    } else {
      this.#spill();
      this.ws.send(data);
    }
  }

  /** @param {string} reason */
  _close(reason) {
    this.#localReason = `closed: ${reason}`;
    this.#spill(); // the close frame follows what was sent before it
    if (this.ws.readyState === WebSocket.CONNECTING) {
      this.ws.terminate();
      return;
    }
    this.ws.close(1000, closeReasonBytes(reason));
    const t = setTimeout(() => this.ws.terminate(), CLOSE_GRACE_MS);
    this.ws.once('close', () => clearTimeout(t));
  }
}

/**
 * @param {import('./ws-common.js').WebSocketInit} [init]
 * @returns {(components: import('../interfaces.js').TransportComponents) => WebSocketTransport}
 */
export function webSocketTransport(init = {}) {
  return (components) => new WebSocketTransport(init, components);
}

/** @implements {TransportContract} */
export class WebSocketTransport {
  /**
   * @param {import('./ws-common.js').WebSocketInit} init
   * @param {import('../interfaces.js').TransportComponents} components
   */
  constructor(init, components) {
    /** @type {'websocket'} */
    this.name = 'websocket';
    this.maxMessageBytes = init.maxMessageBytes ?? DEFAULT_WS_MAX_MESSAGE_BYTES;
    this.hardLimitBytes = init.hardLimitBytes ?? 4 * this.maxMessageBytes;
    this.dialTimeoutMs = init.dialTimeoutMs;
    this.origin = init.origin;
    this.log = components.logger.child('websocket');
  }

  /**
   * @param {string} url ws:// or wss://
   * @param {import('../interfaces.js').DialOptions} [options]
   * @returns {Promise<import('../interfaces.js').Connection>}
   */
  async dial(url, options = {}) {
    throwIfAborted(options.signal);
    checkWsUrl(url);
    const ws = new WebSocket(url, { maxPayload: this.hardLimitBytes, perMessageDeflate: false, ...(this.origin === undefined ? {} : { origin: this.origin }) });
    const conn = new WsConnection(ws, 'outbound', url, this.maxMessageBytes, this.hardLimitBytes);
    return guardedDial(url, (resolve, reject) => {
      ws.once('open', () => resolve(conn));
      ws.once('error', (e) => reject(new DialError(`cannot connect to ${url}: ${e.message}`, { cause: e })));
      ws.once('close', (code) => reject(new DialError(`connection to ${url} closed before it opened (code ${code})`)));
    }, () => ws.terminate(), { signal: options.signal, timeoutMs: options.timeoutMs ?? this.dialTimeoutMs });
  }

  /** @param {import('../interfaces.js').ListenerOptions} options */
  createListener(options) {
    return new WebSocketListener(this, options);
  }
}

/** @implements {ListenerContract} */
class WebSocketListener {
  /** @type {WebSocketServer | null} */
  #wss = null;
  /** @type {string[]} */
  #addresses = [];
  /** @type {Set<WsConnection>} */
  #accepted = new Set();
  #refusedOrigins = { count: 0, lastLog: -Infinity };

  /** @param {WebSocketTransport} transport @param {import('../interfaces.js').ListenerOptions} options */
  constructor(transport, options) {
    this.transport = transport;
    this.onConnection = options.onConnection;
    this.allowedOrigins = options.allowedOrigins ?? [];
  }

  /**
   * ws's verifyClient: refuse (403) an upgrade from a page that is not allowed.
   * @param {import('./origin-policy.js').OriginPolicy} policy
   * @param {{req: import('node:http').IncomingMessage}} info
   * @param {(ok: boolean, code?: number, message?: string) => void} done
   */
  #verify(policy, info, done) {
    const h = info.req.headers;
    const why = checkOrigin(policy, h.origin ?? /** @type {string | undefined} */ (h['sec-websocket-origin']), h.host);
    if (why === null) return done(true);
    const r = this.#refusedOrigins;
    r.count++;
    if (Date.now() - r.lastLog >= ORIGIN_LOG_MS) {
      this.transport.log.warn('WebSocket upgrade refused (403)', { reason: why, address: info.req.socket.remoteAddress, refused: r.count, sinceMs: ORIGIN_LOG_MS });
      r.count = 0;
      r.lastLog = Date.now();
    }
    done(false, 403, why);
  }

  /**
   * @param {import('../interfaces.js').ListenAddress} [address] default 127.0.0.1, port 0
   * @param {{signal?: AbortSignal}} [options]
   */
  async listen(address = {}, options = {}) {
    throwIfAborted(options.signal);
    if (this.#wss) throw new DialError('listener is already listening');
    const policy = originPolicy(this.allowedOrigins, [address.host]);
    const common = {
      maxPayload: this.transport.hardLimitBytes, perMessageDeflate: false, clientTracking: false,
      verifyClient: (/** @type {any} */ info, /** @type {any} */ done) => this.#verify(policy, info, done),
    };
    const path = address.path ?? '/';
    /** @type {WebSocketServer} */
    let wss;
    if ('server' in address) {
      wss = new WebSocketServer({ ...common, server: address.server, path });
      const a = address.server.address();
      if (!a || typeof a === 'string') throw new DialError('the HTTP server must be listening on a TCP port before the mesh listens on it');
      this.#addresses = [wsUrl(a.address, a.port, path)];
    } else {
      const host = address.host ?? '127.0.0.1';
      wss = new WebSocketServer({ ...common, host, port: address.port ?? 0, path });
      await new Promise((resolve, reject) => {
        wss.once('listening', () => resolve(undefined));
        wss.once('error', (e) => reject(new DialError(`cannot listen on ${host}:${address.port ?? 0}: ${e.message}`, { cause: e })));
      });
      const a = /** @type {import('node:net').AddressInfo} */ (wss.address());
      this.#addresses = [wsUrl(host, a.port, path)];
    }
    wss.on('error', (e) => this.transport.log.error('listener error', { error: e.message }));
    wss.on('connection', (ws, req) => {
      const remote = `${req.socket.remoteAddress}:${req.socket.remotePort}`;
      const conn = new WsConnection(ws, 'inbound', remote, this.transport.maxMessageBytes, this.transport.hardLimitBytes);
      // a browser always sends Origin with a WebSocket upgrade; a page cannot leave it out
      if (req.headers.origin !== undefined || req.headers['sec-websocket-origin'] !== undefined) conn.fromBrowser = true;
      this.#accepted.add(conn);
      ws.once('close', () => this.#accepted.delete(conn));
      this.onConnection(conn);
    });
    this.#wss = wss;
    this.transport.log.info('listening', { addresses: this.#addresses });
  }

  addresses() {
    return [...this.#addresses];
  }

  async close() {
    const wss = this.#wss;
    if (!wss) return;
    this.#wss = null;
    this.#addresses = [];
    for (const c of this.#accepted) c.close('listener closing');
    await new Promise((resolve) => wss.close(() => resolve(undefined)));
    // Bounded wait for accepted sockets to finish their close handshake; then destroy.
    for (const c of this.#accepted) c.ws.terminate();
    this.#accepted.clear();
  }
}

/** @param {string} host @param {number} port @param {string} path */
function wsUrl(host, port, path) {
  const h = host.includes(':') ? `[${host}]` : host;
  return `ws://${h}:${port}${path}`;
}
