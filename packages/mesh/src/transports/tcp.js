// @ts-check
/**
 * TCP transport for daemon↔daemon links: length-prefixed messages (tcp-frames.js) on
 * node:net, in TLS 1.3 (node:tls) unless the node runs insecure. Dials `tls://host:port`
 * (encrypted) and `tcp://host:port` (plain). The browser build replaces this file with
 * tcp.browser.js: pages cannot open TCP sockets.
 *
 * Listening shares the daemon's HTTP port: the listener takes the server's
 * 'connection' event and looks at the first bytes of each connection — a TLS
 * handshake record (0x16) or the plain preamble (0x00 "TMESH/1") is a mesh link, any
 * other byte goes, untouched, to the HTTP server (pages, the WebSocket upgrade). One
 * port to open, to announce and to forward; a peer's ws:// URL names it.
 *
 * Browsers on the same port (`certificate`): given a certificate a browser accepts,
 * the listener also terminates TLS for pages — https:// and wss:// on the one port.
 * A TLS session whose client chose ALPN `termite-mesh/1` (every mesh dialler does) is a
 * mesh link; any other (a browser offers `h2`/`http/1.1`) goes, decrypted, to the HTTP
 * server, which serves it as it serves plain connections (pages, the WebSocket
 * upgrade). Mesh links then present that certificate too: their dialler does not
 * check it (admission proves the peer, below). Without `certificate`, a browser's TLS
 * session fails its handshake (the self-signed certificate is for mesh links only).
 *
 * Encrypted links: each TLS connection carries `channelBinding`, 32 bytes exported
 * from the session (RFC 5705/8446 exporter); admission signs it with the node keys, so
 * a relay that terminates TLS on each side cannot pass admission (docs/mesh.md,
 * "Encrypted links"). A listener that requires encryption answers the plain preamble
 * with an ERROR frame ("encryption required") and closes.
 *
 * Backpressure: `bufferedAmount` is the socket's writableLength plus the batch not yet
 * written; `ondrain` follows the socket's 'drain' (as for WebSocket, lowWaterMark ≥
 * the socket's 16 KiB high-water mark).
 */
import net from 'node:net';
import tls from 'node:tls';
import { BaseConnection, holdWrites, releaseWrites } from '../connection.js';
import { DialError, InvalidArgumentError, throwIfAborted } from '../errors.js';
import { encodeError } from '../frames.js';
import { guardedDial } from './ws-common.js';
import { PREAMBLE, TLS_HANDSHAKE_BYTE, TcpFrameReader, TcpFrameWriter, readIntoOwnBuffers } from './tcp-frames.js';
import { selfSignedCertificate } from './tls-certificate.js';

/**
 * Default largest message (larger frames are chunked by the mesh): WebSocket's, so a
 * connection not yet admitted can hold no more here than there (hardLimitBytes each).
 */
export const DEFAULT_TCP_MAX_MESSAGE_BYTES = 1024 * 1024;
/** The ALPN protocol of mesh links; browsers' are HTTP's. */
const MESH_ALPN = 'termite-mesh/1';
/** The exporter label of the channel binding (RFC 8446 §7.5). */
const BINDING_LABEL = 'EXPORTER-termite-mesh/1 channel binding';
const BINDING_BYTES = 32;
/** An accepted connection must finish its TLS handshake and preamble within this. */
const ACCEPT_TIMEOUT_MS = 10_000;
const CLOSE_GRACE_MS = 1000;
const EMPTY = new Uint8Array(0);

/**
 * Options of tcpTransport(init).
 * @typedef {object} TcpInit
 * @property {boolean} [encrypt] require TLS on accepted links (dials use the URL's scheme). (default true)
 * @property {number} [maxMessageBytes] (default 1048576)
 * @property {number} [hardLimitBytes] a message above this closes the connection. (default 4 × maxMessageBytes)
 * @property {number} [dialTimeoutMs] (default 10000)
 * @property {{cert: string | Buffer, key: string | Buffer}} [certificate] PEM certificate (chain)
 *   and key served on TLS connections: browsers then reach the HTTP server of the shared
 *   port over https:// and wss://. (default: a self-signed certificate for mesh links only)
 */

class TcpConnection extends BaseConnection {
  /** @type {string | null} */
  #reason = null;
  /**
   * @param {net.Socket} socket connected (and, for TLS, secure) @param {'outbound' | 'inbound'} direction
   * @param {string} address @param {TcpTransport} transport @param {Buffer | null} rest bytes read past the preamble
   */
  constructor(socket, direction, address, transport, rest) {
    super('tcp', direction, address, transport.maxMessageBytes);
    this.socket = socket;
    this.encrypted = socket instanceof tls.TLSSocket;
    /** Keying material of the TLS session that admission signs; null on plain TCP. @type {Uint8Array | null} */
    this.channelBinding = this.encrypted ? /** @type {tls.TLSSocket} */ (socket).exportKeyingMaterial(BINDING_BYTES, BINDING_LABEL, Buffer.alloc(0)) : null;
    this.writer = new TcpFrameWriter(socket);
    const reader = new TcpFrameReader(transport.hardLimitBytes, (m) => this._receive(m, false), (size) => {
      this.#reason ??= `message too big (${size} bytes announced, limit ${transport.hardLimitBytes})`;
      socket.destroy();
    });
    this.reader = reader;
    socket.setNoDelay(true);
    // what this node writes while it handles a chunk (replies, what the processes it
    // woke sent) leaves in one write per connection (connection.js, holdWrites)
    const onRead = (/** @type {number} */ n) => {
      holdWrites();
      try {
        reader.readDone(n);
      } finally {
        releaseWrites();
      }
    };
    socket.on('drain', () => this._drained());
    socket.on('error', (e) => { this.#reason ??= `connection lost (${e.message})`; });
    socket.on('end', () => { this.#reason ??= 'closed by peer'; socket.end(); });
    socket.on('close', () => {
      reader.stop();
      this._closed(this.#reason ?? 'connection lost');
    });
    // reads go into the reader's buffers (no copy of a message that spans Node's 64 KiB
    // reads; in TLS, the decrypted bytes land there); a Node without that reads 'data' events
    if (!readIntoOwnBuffers(socket, reader, rest ?? EMPTY, onRead)) {
      socket.on('data', (chunk) => {
        holdWrites();
        try {
          reader.push(chunk);
        } finally {
          releaseWrites();
        }
      });
      if (rest !== null && rest.length > 0) reader.push(rest);
    }
    socket.resume();
  }

  get bufferedAmount() {
    return this.socket.writableLength + this.writer.pending;
  }

  /** @param {Uint8Array} data */
  _send(data) {
    this.writer.write(data);
  }

  _corkable = true;

  // held writes are the writer's (tcp-frames.js): one message under a hold needs no cork
  _cork() {
    this.writer.hold();
  }

  _uncork() {
    this.writer.release();
  }

  /** @param {string} reason */
  _close(reason) {
    this.#reason = `closed: ${reason}`;
    this.writer.flush();
    this.socket.end();
    const t = setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS);
    this.socket.once('close', () => clearTimeout(t));
  }
}

/**
 * @param {TcpInit} [init]
 * @returns {(components: import('../interfaces.js').TransportComponents) => TcpTransport}
 */
export function tcpTransport(init = {}) {
  return (components) => new TcpTransport(init, components);
}

export class TcpTransport {
  /** @type {tls.SecureContext | null} made on first use */
  #context = null;

  /** @param {TcpInit} init @param {import('../interfaces.js').TransportComponents} components */
  constructor(init, components) {
    /** @type {'tcp'} */
    this.name = 'tcp';
    this.encrypt = init.encrypt ?? true;
    this.maxMessageBytes = init.maxMessageBytes ?? DEFAULT_TCP_MAX_MESSAGE_BYTES;
    this.hardLimitBytes = init.hardLimitBytes ?? 4 * this.maxMessageBytes;
    this.dialTimeoutMs = init.dialTimeoutMs;
    this.certificate = init.certificate ?? null;
    this.log = components.logger.child('tcp');
  }

  /**
   * The TLS context of accepted connections: the configured certificate, or a fresh
   * self-signed one (tls-certificate.js). Browsers get TLS 1.2 too (some still need it);
   * mesh diallers ask for 1.3 only.
   */
  get secureContext() {
    this.#context ??= this.certificate !== null
      ? tls.createSecureContext({ cert: this.certificate.cert, key: this.certificate.key, minVersion: 'TLSv1.2' })
      : tls.createSecureContext({ ...selfSignedCertificate(), minVersion: 'TLSv1.3' });
    return this.#context;
  }

  /**
   * @param {string} url tls://host:port or tcp://host:port
   * @param {import('../interfaces.js').DialOptions} [options]
   * @returns {Promise<import('../interfaces.js').Connection>}
   */
  async dial(url, options = {}) {
    throwIfAborted(options.signal);
    const u = URL.canParse(url) ? new URL(url) : null;
    if (!u || (u.protocol !== 'tls:' && u.protocol !== 'tcp:') || !u.port) throw new InvalidArgumentError(`not a tls://HOST:PORT or tcp://HOST:PORT URL: ${url}`);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const port = Number(u.port);
    const secure = u.protocol === 'tls:';
    /** @type {net.Socket} */
    let socket;
    return guardedDial(url, (resolve, reject) => {
      // the link is open once the listener's preamble came back: anything else is not a mesh port
      const ready = () => {
        socket.write(PREAMBLE);
        readPreamble(socket, (rest) => {
          socket.removeAllListeners('error');
          socket.removeAllListeners('close');
          resolve(new TcpConnection(socket, 'outbound', url, this, rest));
        }, (got) => reject(new DialError(`${url} is not a mesh link port: it answered ${JSON.stringify(got.toString('latin1').slice(0, 16))}`)));
      };
      socket = secure
        ? tls.connect({ host, port, rejectUnauthorized: false, minVersion: 'TLSv1.3', ALPNProtocols: [MESH_ALPN] }, ready)
        : net.connect({ host, port }, ready);
      socket.once('error', (e) => reject(new DialError(`cannot connect to ${url}: ${e.message}`, { cause: e })));
      socket.once('close', () => reject(new DialError(`connection to ${url} closed before it opened`)));
    }, () => socket.destroy(), { signal: options.signal, timeoutMs: options.timeoutMs ?? this.dialTimeoutMs });
  }

  /** @param {import('../interfaces.js').ListenerOptions} options */
  createListener(options) {
    return new TcpListener(this, options);
  }
}

/** Accepts mesh links on a port it owns or on an HTTP server's port (sniffing the first bytes). */
class TcpListener {
  /** @type {net.Server | null} */
  #server = null;
  /** The HTTP server's own 'connection' listeners, given back on close. @type {Function[] | null} */
  #httpListeners = null;
  /** @type {string[]} */
  #addresses = [];
  /** Accepted sockets, mesh or not yet sorted. @type {Set<net.Socket>} */
  #sockets = new Set();
  #sniff = (/** @type {net.Socket} */ s) => this.#sort(s);

  /** @param {TcpTransport} transport @param {import('../interfaces.js').ListenerOptions} options */
  constructor(transport, options) {
    this.transport = transport;
    this.onConnection = options.onConnection;
  }

  /**
   * Listen on an HTTP server's port (`{server}`: its other traffic is left to it) or on
   * a port of its own (`{host, port}`, 0 = a free one: mesh links only).
   * @param {import('../interfaces.js').ListenAddress} [address]
   * @param {{signal?: AbortSignal}} [options]
   */
  async listen(address = {}, options = {}) {
    throwIfAborted(options.signal);
    if (this.#server) throw new DialError('listener is already listening');
    const scheme = this.transport.encrypt ? 'tls' : 'tcp';
    if ('server' in address) {
      const server = address.server;
      const a = server.address();
      if (!a || typeof a === 'string') throw new DialError('the HTTP server must be listening on a TCP port before the mesh listens on it');
      this.#httpListeners = server.listeners('connection');
      server.removeAllListeners('connection');
      server.on('connection', this.#sniff);
      this.#server = server;
      this.#addresses = [hostUrl(scheme, a.address, a.port)];
    } else {
      const host = address.host ?? '127.0.0.1';
      const server = net.createServer(this.#sniff);
      await new Promise((resolve, reject) => {
        server.once('error', (e) => reject(new DialError(`cannot listen on ${host}:${address.port ?? 0}: ${e.message}`, { cause: e })));
        server.listen(address.port ?? 0, host, () => resolve(undefined));
      });
      this.#server = server;
      this.#addresses = [hostUrl(scheme, host, /** @type {net.AddressInfo} */ (server.address()).port)];
    }
    this.transport.log.info('listening', { addresses: this.#addresses, encrypted: this.transport.encrypt });
  }

  /** Look at the first bytes of an accepted socket: a mesh link, or the HTTP server's. @param {net.Socket} socket */
  #sort(socket) {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    const timer = setTimeout(() => socket.destroy(), ACCEPT_TIMEOUT_MS);
    socket.once('close', () => clearTimeout(timer));
    socket.once('data', (first) => {
      socket.pause();
      socket.unshift(first);
      if (first[0] === TLS_HANDSHAKE_BYTE) this.#acceptTls(socket, timer);
      else if (first[0] === PREAMBLE[0]) this.#acceptPlain(socket, timer);
      else if (this.#httpListeners !== null) {
        clearTimeout(timer);
        this.#sockets.delete(socket);
        for (const l of this.#httpListeners) l.call(this.#server, socket);
        socket.resume();
      } else socket.destroy();
    });
  }

  /** @param {net.Socket} raw @param {ReturnType<typeof setTimeout>} timer */
  #acceptTls(raw, timer) {
    raw.setNoDelay(true); // on the TCP socket itself: the TLS socket above it may not pass it down
    const forPages = this.transport.certificate !== null && this.#httpListeners !== null;
    // the server's preference: a mesh dialler offers only termite-mesh/1, a browser only HTTP's
    const socket = new tls.TLSSocket(raw, { isServer: true, secureContext: this.transport.secureContext, ALPNProtocols: forPages ? [MESH_ALPN, 'http/1.1'] : [MESH_ALPN] });
    const onError = (/** @type {Error} */ e) => { this.transport.log.info('TLS handshake failed', { address: raw.remoteAddress, error: e.message }); raw.destroy(); };
    socket.on('error', onError);
    socket.once('secure', () => {
      if (!forPages || socket.alpnProtocol === MESH_ALPN) return this.#afterPreamble(socket, raw, timer);
      // a page over https:// or wss://: the HTTP server's, decrypted (its own error handling from here)
      clearTimeout(timer);
      socket.removeListener('error', onError);
      this.#sockets.delete(raw);
      for (const l of /** @type {Function[]} */ (this.#httpListeners)) l.call(this.#server, socket);
    });
  }

  /** @param {net.Socket} socket @param {ReturnType<typeof setTimeout>} timer */
  #acceptPlain(socket, timer) {
    this.#afterPreamble(socket, socket, timer);
    socket.resume();
  }

  /**
   * Read the preamble, then hand the link on (or refuse plain TCP when encryption is required).
   * @param {net.Socket} socket what carries the link (TLS or the raw socket) @param {net.Socket} raw
   * @param {ReturnType<typeof setTimeout>} timer
   */
  #afterPreamble(socket, raw, timer) {
    readPreamble(socket, (rest) => {
      clearTimeout(timer);
      const address = `${raw.remoteAddress}:${raw.remotePort}`;
      if (this.transport.encrypt && !(socket instanceof tls.TLSSocket)) return this.#refusePlain(socket, address);
      socket.write(PREAMBLE);
      const conn = new TcpConnection(socket, 'inbound', address, this.transport, rest);
      socket.resume();
      this.onConnection(conn);
    }, () => socket.destroy());
  }

  /** @param {net.Socket} socket @param {string} address */
  #refusePlain(socket, address) {
    this.transport.log.warn('plain TCP link refused: this node requires encryption', { address });
    const e = encodeError('AdmissionError', 'admission refused: encryption required (this node accepts TLS links only; the dialler runs --insecure)', true, null);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(e.length);
    socket.end(Buffer.concat([PREAMBLE, head, e]));
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  }

  addresses() {
    return [...this.#addresses];
  }

  async close() {
    const server = this.#server;
    if (!server) return;
    this.#server = null;
    this.#addresses = [];
    if (this.#httpListeners !== null) {
      server.removeListener('connection', this.#sniff);
      for (const l of this.#httpListeners) server.on('connection', /** @type {any} */ (l));
      this.#httpListeners = null;
    } else await new Promise((resolve) => { server.close(() => resolve(undefined)); for (const s of this.#sockets) s.destroy(); });
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }
}

/**
 * Read the other side's 8-byte preamble; `ok` gets the bytes that followed it (the
 * socket is left paused), `bad` what came instead.
 * @param {net.Socket} socket @param {(rest: Buffer) => void} ok @param {(got: Buffer) => void} bad
 */
function readPreamble(socket, ok, bad) {
  /** @type {Buffer} */
  let got = Buffer.alloc(0);
  const onData = (/** @type {Buffer} */ chunk) => {
    got = got.length === 0 ? chunk : Buffer.concat([got, chunk]);
    const n = Math.min(got.length, PREAMBLE.length);
    if (!got.subarray(0, n).equals(PREAMBLE.subarray(0, n))) {
      socket.removeListener('data', onData);
      return bad(got);
    }
    if (got.length < PREAMBLE.length) return;
    socket.removeListener('data', onData);
    socket.pause();
    ok(got.subarray(PREAMBLE.length));
  };
  socket.on('data', onData);
}

/** @param {string} scheme @param {string} host @param {number} port */
function hostUrl(scheme, host, port) {
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * An HTTP server on host:port for a node that listens on both WebSocket and TCP
 * without a server of its own: both listeners then share its port. Plain requests
 * are answered 426 (what a WebSocket-only listener answers).
 * @param {string} host @param {number} port 0 = a free port
 * @returns {Promise<import('node:http').Server>}
 */
export async function listenSharedServer(host, port) {
  const { createServer } = await import('node:http');
  const server = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' });
    res.end('this port carries Termite Mesh links (WebSocket or TCP)\n');
  });
  await new Promise((resolve, reject) => {
    server.once('error', (e) => reject(new DialError(`cannot listen on ${host}:${port}: ${e.message}`, { cause: e })));
    server.listen(port, host, () => resolve(undefined));
  });
  return server;
}
