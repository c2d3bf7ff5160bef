// @ts-check
/**
 * WebSocket transport for browsers (the page's WebSocket): dial only — a tab
 * cannot listen. Selected instead of websocket.js by package.json "browser".
 *
 * Backpressure: the browser WebSocket has no drain event, so once a send
 * leaves bufferedAmount above lowWaterMark the connection polls it (every
 * POLL_MS, only while armed and open) and fires ondrain when it falls.
 */
import { BaseConnection } from '../connection.js';
import { DialError, TransportUnavailableError, throwIfAborted } from '../errors.js';
import { DEFAULT_WS_MAX_MESSAGE_BYTES, checkWsUrl, closeReasonBytes, describeClose, guardedDial } from './ws-common.js';

/** @typedef {import('../interfaces.js').Transport} TransportContract */
/** @typedef {import('../interfaces.js').Listener} ListenerContract */

const POLL_MS = 4;
const encoder = new TextEncoder();

class BrowserWsConnection extends BaseConnection {
  /** @type {string | null} */
  #localReason = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #poll;

  /** @param {WebSocket} ws @param {string} address @param {number} max */
  constructor(ws, address, max) {
    super('websocket', 'outbound', address, max);
    this.ws = ws;
    ws.binaryType = 'arraybuffer';
    ws.onmessage = (ev) => {
      if (typeof ev.data === 'string') this._receive(encoder.encode(ev.data), true);
      else this._receive(new Uint8Array(ev.data), false);
    };
    ws.onclose = (ev) => {
      clearTimeout(this.#poll);
      this._closed(describeClose(ev.code, ev.reason, this.#localReason, null));
    };
  }

  get bufferedAmount() {
    return this.ws.bufferedAmount;
  }

  /** @param {Uint8Array} data */
  _send(data) {
    this.ws.send(data);
  }

  _armDrain() {
    const check = () => {
      this.#poll = undefined;
      if (this.status !== 'open') return;
      if (this.ws.bufferedAmount <= this.lowWaterMark) this._drained();
      else this.#poll = setTimeout(check, POLL_MS);
    };
    if (this.#poll === undefined) this.#poll = setTimeout(check, POLL_MS);
  }

  /** @param {string} reason */
  _close(reason) {
    this.#localReason = `closed: ${reason}`;
    this.ws.close(1000, closeReasonBytes(reason));
  }
}

/**
 * @param {import('./ws-common.js').WebSocketInit} [init]
 * @returns {(components: import('../interfaces.js').TransportComponents) => BrowserWebSocketTransport}
 */
export function webSocketTransport(init = {}) {
  return (components) => new BrowserWebSocketTransport(init, components);
}

/** @implements {TransportContract} */
export class BrowserWebSocketTransport {
  /**
   * @param {import('./ws-common.js').WebSocketInit} init
   * @param {import('../interfaces.js').TransportComponents} components
   */
  constructor(init, components) {
    /** @type {'websocket'} */
    this.name = 'websocket';
    this.maxMessageBytes = init.maxMessageBytes ?? DEFAULT_WS_MAX_MESSAGE_BYTES;
    this.dialTimeoutMs = init.dialTimeoutMs;
    this.log = components.logger.child('websocket');
  }

  /**
   * @param {string} url
   * @param {import('../interfaces.js').DialOptions} [options]
   * @returns {Promise<import('../interfaces.js').Connection>}
   */
  async dial(url, options = {}) {
    throwIfAborted(options.signal);
    checkWsUrl(url);
    const ws = new WebSocket(url);
    const conn = new BrowserWsConnection(ws, url, this.maxMessageBytes);
    return guardedDial(url, (resolve, reject) => {
      ws.addEventListener('open', () => resolve(conn), { once: true });
      ws.addEventListener('error', () => reject(new DialError(`cannot connect to ${url}`)), { once: true });
    }, () => ws.close(), { signal: options.signal, timeoutMs: options.timeoutMs ?? this.dialTimeoutMs });
  }

  /** @returns {import('../interfaces.js').Listener} */
  createListener() {
    return {
      async listen() { throw new TransportUnavailableError('a browser tab cannot listen for WebSocket connections; dial a daemon instead'); },
      addresses: () => [],
      async close() {},
    };
  }
}
