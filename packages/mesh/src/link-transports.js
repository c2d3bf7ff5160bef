// @ts-check
/**
 * Which transport a link uses. A node listens on WebSocket (browsers, and daemons
 * without TCP) and, when TCP links are on (`init.tcp`, which daemons set), on TCP at
 * the same port (transports/tcp.js sorts connections by their first bytes). A dial to
 * a `ws://` URL then goes over TCP — TLS unless the node runs insecure — and to
 * `wss://` over WebSocket (a TLS proxy in front of a daemon speaks only HTTP);
 * `tls://` and `tcp://` URLs name TCP directly.
 *
 * Invariant: a node with encrypted links never falls back to a plaintext link by
 * itself: if the TLS dial fails, the dial fails (an attacker who blocks TLS must not
 * get plaintext). An insecure node whose TCP dial finds no mesh link port (an older
 * daemon that speaks only WebSocket) dials the WebSocket URL instead.
 */
import { DialError } from './errors.js';
import { listenSharedServer, tcpTransport } from './transports/tcp.js';

/** @typedef {import('./interfaces.js').Listener} Listener */

export class LinkTransports {
  /**
   * @param {import('./transports/websocket.js').WebSocketTransport} ws
   * @param {import('./transports/tcp.js').TcpInit | false | undefined} tcpInit
   * @param {import('./interfaces.js').TransportComponents} components
   */
  constructor(ws, tcpInit, components) {
    this.ws = ws;
    /** @type {import('./transports/tcp.js').TcpTransport | null} */
    this.tcp = tcpInit ? tcpTransport(tcpInit)(components) : null;
    this.log = components.logger.child('node');
  }

  /**
   * Listen at `address` on WebSocket, and on TCP too when TCP links are on (then a
   * `{host, port}` address gets an HTTP server both share, listed first and
   * without an address). The WebSocket listener comes before the TCP one: its ws://
   * address is the one announced.
   * @param {import('./interfaces.js').ListenAddress} address
   * @param {import('./interfaces.js').ListenerOptions} options
   * @param {Listener[]} into receives each listener as soon as it exists (closed on failure)
   * @param {{signal?: AbortSignal}} [signal]
   */
  async listen(address, options, into, signal) {
    let shared = address;
    if (this.tcp !== null && !('server' in address)) {
      const server = await listenSharedServer(address.host ?? '127.0.0.1', address.port ?? 0);
      into.push(serverCloser(server));
      shared = { server, path: address.path, host: address.host ?? '127.0.0.1' };
    }
    const w = this.ws.createListener(options);
    into.push(w);
    await w.listen(shared, signal);
    if (this.tcp === null) return;
    const t = this.tcp.createListener(options);
    into.push(t);
    await t.listen(shared, signal);
  }

  /**
   * Open a connection to `url` (see the file's head for which transport).
   * @param {string} url @param {import('./interfaces.js').DialOptions} options
   * @returns {Promise<import('./interfaces.js').Connection>}
   */
  async dial(url, options) {
    const tcp = this.tcp;
    const u = tcp !== null && URL.canParse(url) ? new URL(url) : null;
    if (tcp === null || u === null || u.protocol === 'wss:' || !['ws:', 'tls:', 'tcp:'].includes(u.protocol)) return this.ws.dial(url, options);
    const secure = tcp.encrypt || u.protocol === 'tls:';
    const target = `${secure ? 'tls' : 'tcp'}://${u.hostname}:${u.port || 80}`;
    if (u.protocol !== 'ws:') return tcp.dial(target, options);
    try {
      return await tcp.dial(target, options);
    } catch (e) {
      if (!(e instanceof DialError) || secure || options.signal?.aborted) throw e;
      this.log.info('no TCP link port: dialling WebSocket', { url, error: e.message });
      return this.ws.dial(url, options);
    }
  }
}

/** The shared HTTP server as a Listener: closed after the listeners that use it. @param {import('node:http').Server} server @returns {Listener} */
function serverCloser(server) {
  return {
    async listen() {},
    addresses: () => [],
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve(undefined));
    }),
  };
}
