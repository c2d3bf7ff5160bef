// @ts-check
/**
 * The contracts between the mesh node and its transports: Transport, Listener
 * and Connection in one file, every member documented, so that a new transport
 * is written against this file alone and checked by the compliance suite
 * (test/compliance/transport.js).
 * This module holds types only; `connection.js` has a base class that
 * implements the buffering rules stated here.
 *
 * A transport moves *messages* (byte arrays with boundaries preserved),
 * reliably and in order, over one connection. Framing, admission, chunking,
 * routing and heartbeats are the mesh node's business, not the transport's.
 */

/**
 * One open, reliable, ordered, message-oriented link to a remote endpoint.
 *
 * Rules every implementation follows (the compliance suite checks them):
 * - `send` never blocks: it hands the message to the transport's buffer and
 *   returns. It throws FrameTooLargeError if `data.length > maxMessageBytes`
 *   (nothing is sent, the connection stays open) and ConnectionClosedError
 *   if `status !== 'open'`.
 * - Messages arrive whole and in the order sent, to `onmessage`. Messages that
 *   arrive before `onmessage` is assigned are kept (up to 65,536 messages and
 *   64 MiB) and delivered,
 *   in order and synchronously, when it is assigned.
 * - `onclose` is called exactly once, with a reason, whichever side closes or
 *   if the underlying socket fails; if the connection closed before `onclose`
 *   was assigned it is called on assignment. No `onmessage` follows it.
 * - `ondrain` is called when `bufferedAmount` has fallen to `lowWaterMark` or
 *   below after a `send` left it above `lowWaterMark`.
 *
 * @typedef {object} Connection
 * @property {'websocket' | 'webrtc' | 'tcp'} transport name of the transport that made it
 * @property {string} remoteAddress printable address of the other end
 *   (`ws://127.0.0.1:7400/`, `127.0.0.1:50122`, `webrtc:<node id>`)
 * @property {'outbound' | 'inbound'} direction outbound if this side dialled
 * @property {boolean} [fromBrowser] an inbound WebSocket whose upgrade carried an
 *   `Origin` header: a browser page opened it (a browser always sends one; programs
 *   send none). What the listener saw, not what the peer says of itself
 * @property {Uint8Array | null} [channelBinding] bytes exported from the connection's
 *   encryption session (TLS), the same at both ends and different for any other
 *   session: admission signs them, binding the node keys to this session
 * @property {number} maxMessageBytes largest message `send` accepts
 *   (262,144 on data channels; configurable for WebSocket)
 * @property {number} bufferedAmount bytes accepted by `send` and not yet
 *   handed to the operating system / SCTP stack (read-only)
 * @property {(limit: number) => boolean} bufferedBelow whether bufferedAmount is
 *   below `limit`, without asking the transport while a bound kept since its last
 *   reading (what was sent since, plus framing) says so
 * @property {number} lowWaterMark threshold for `ondrain` (writable)
 * @property {'open' | 'closing' | 'closed'} status
 * @property {(data: Uint8Array) => void} send queue one message
 * @property {(reason?: string) => void} close close gracefully (idempotent);
 *   the reason reaches the peer where the transport can carry it
 * @property {((data: Uint8Array, isText: boolean) => void) | null} onmessage
 *   receives each message; `isText` is true for a WebSocket text message or a
 *   data channel string (then `data` holds its UTF-8 bytes) — the mesh refuses
 *   those, but the transport reports rather than hides them
 * @property {((reason: string) => void) | null} onclose
 * @property {(() => void) | null} ondrain
 * @property {Promise<string>} closed resolves with the close reason once the
 *   transport is fully closed (never rejects)
 */

/**
 * Options of every asynchronous transport call.
 * @typedef {object} DialOptions
 * @property {AbortSignal} [signal] abort the dial (rejects with AbortError)
 * @property {number} [timeoutMs] give up after this long (rejects with DialError)
 */

/**
 * Accepts inbound connections for a transport.
 * @typedef {object} Listener
 * @property {(address?: ListenAddress, options?: {signal?: AbortSignal}) => Promise<void>} listen
 *   start accepting; resolves once bound (port 0 picks a free port)
 * @property {() => string[]} addresses the URLs peers can dial (`ws://127.0.0.1:41234/`);
 *   empty before listen() resolves and after close()
 * @property {() => Promise<void>} close stop accepting and close the
 *   connections this listener accepted that are still open; idempotent
 */

/**
 * Where a WebSocket listener binds: a host and port (0 = a free port), or an
 * existing node:http server (the daemon serves pages and the mesh on one
 * port) with the path of the WebSocket endpoint, and the host name it was told to
 * listen on (pages of that name are this node's own: transports/origin-policy.js).
 * @typedef {{host?: string, port?: number, path?: string} | {server: import('node:http').Server, path?: string, host?: string}} ListenAddress
 */

/**
 * @typedef {object} ListenerOptions
 * @property {(connection: Connection) => void} onConnection called for each
 *   accepted connection, before any of its messages is delivered
 * @property {readonly string[]} [allowedOrigins] origins whose pages may connect besides
 *   the node's own (WebSocket: an upgrade with another `Origin` is refused with 403)
 */

/**
 * A transport: dials and listens.
 * @typedef {object} Transport
 * @property {'websocket' | 'webrtc' | 'tcp'} name
 * @property {number} maxMessageBytes largest message its connections carry
 * @property {(address: string, options?: DialOptions) => Promise<Connection>} dial
 *   open a connection: a `ws://` URL for WebSocket, a node id for WebRTC
 *   (signalled through the mesh)
 * @property {(options: ListenerOptions) => Listener} createListener
 * @property {() => Promise<void>} [close] release everything the transport holds
 */

/**
 * Components injected into transport factories (`webSocketTransport(init)(components)`).
 * @typedef {object} TransportComponents
 * @property {import('./logger.js').Logger} logger
 * @property {Signaller} [signaller] how WebRTC sends SDP and ICE to a peer (the mesh)
 */

/**
 * WebRTC signalling through the mesh: the node gives this to the WebRTC
 * transport; the transport gets signals back through `handleSignal`.
 * @typedef {object} Signaller
 * @property {(peerId: string, signal: Signal) => boolean} send deliver a
 *   signal to a peer over any existing path (direct or routed); false if
 *   there is none
 */

/**
 * One signalling message. `session` names one connection attempt;
 * kinds: `offer`/`answer` (`data` = SDP), `candidate` (`data` = candidate
 * line, `mid` = its media id), `bye` (`data` = reason: the attempt is over).
 * @typedef {{session: string, kind: 'offer' | 'answer' | 'candidate' | 'bye', data: string | null, mid: string | null}} Signal
 */

/**
 * The lifecycle every long-lived component follows (js-libp2p's Startable):
 * start() may assume the constructor ran; stop() may be called at any time,
 * even during start(), and leaves nothing running (timers, sockets,
 * processes). Both are idempotent.
 * @typedef {object} Startable
 * @property {(options?: {signal?: AbortSignal}) => Promise<void>} start
 * @property {() => Promise<void>} stop
 * @property {() => boolean} isStarted
 */

export {};
