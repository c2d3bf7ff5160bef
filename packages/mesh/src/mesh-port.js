// @ts-check
/**
 * The seam between the mesh and what rides on it. `MeshPort` is everything the
 * runtime (`@termite/runtime`'s distribution) may ask of a mesh node; `MeshNode`
 * implements it, and the runtime's distribution names it as the type of the mesh it
 * is given. Nothing else of the mesh is visible to the runtime, so a reader follows a
 * frame across the seam by these names alone: the runtime calls `send` / `request`,
 * the mesh calls back the handlers given to `onMessage` / `onRequest` and reports
 * peers through `on`.
 *
 * Types only; the rules each member follows are stated on `MeshNode`'s methods.
 */

/**
 * One open link to a direct peer.
 * @typedef {object} LinkInfo
 * @property {'websocket' | 'webrtc' | 'tcp'} transport
 * @property {string} address
 * @property {'outbound' | 'inbound'} direction
 * @property {number | null} rttMs smoothed heartbeat round trip
 * @property {number} queuedBytes bytes waiting in the link's send queue
 * @property {number} bufferedBytes bytes in the transport's buffer
 * @property {number} since Date.now() at admission
 */

/**
 * A direct peer.
 * @typedef {object} PeerInfo
 * @property {string} id
 * @property {'websocket' | 'webrtc' | 'tcp'} transport transport of the link traffic uses
 * @property {string} address its address
 * @property {number | null} rttMs
 * @property {string | null} listenUrl where the peer says it can be dialled
 * @property {LinkInfo[]} links every open link, the one in use first
 */

/**
 * A node reachable only through neighbours, as learnt from gossip.
 * @typedef {{id: string, via: string[], url: string | null, hops?: number}} RouteInfo
 */

/**
 * Events of a mesh node (`on(name, handler)`):
 * - 'peer:up': the first link to a peer was admitted;
 * - 'peer:down': the last link to a peer closed (reason: 'heartbeat timeout: …',
 *   'peer left: <its reason>', 'closed by peer (code …)', 'node stopping', …);
 * - 'link:up' / 'link:down': any link (also the first / the last); `browser` on
 *   'peer:up' and 'link:up' says the peer joined from a browser page (MeshNode's
 *   isBrowserPeer: a WebSocket upgrade with `Origin`, or a WebRTC link it opened);
 * - 'drain': canSend(id) is true again after it was false or a send was refused;
 * - 'send:error': a send() that returned false, and why;
 * - 'peer:error': an ERROR frame from a peer (our input was refused, or a
 *   routed frame could not be delivered: name UnreachableError, HopLimitError,
 *   QueueFullError, message naming the destination);
 * - 'peer:refused': a handshake failed (we refused, or were refused: byPeer);
 * - 'routes': what routes() returns may have changed (a neighbour's gossip, or a
 *   neighbour gone);
 * - 'peer:browser': a node with no direct link here (`id`) reached this node through
 *   `via` from a browser (a routed frame marked so by the hop that received it from a
 *   browser peer), emitted before that frame is received (forwarding.js).
 * @typedef {{
 *   'peer:up': {id: string, transport: string, address: string, direction: string, browser?: boolean},
 *   'peer:down': {id: string, reason: string},
 *   'link:up': {id: string, transport: string, address: string, browser?: boolean},
 *   'link:down': {id: string, transport: string, reason: string},
 *   'drain': {id: string},
 *   'send:error': {id: string, error: Error},
 *   'peer:error': {id: string, name: string, message: string, fatal: boolean},
 *   'peer:refused': {address: string, transport: string, reason: string, message: string, byPeer: boolean},
 *   'routes': {via: string},
 *   'peer:browser': {id: string, via: string},
 * }} MeshEvents
 */

/**
 * Receives every payload sent to this node with `send`, synchronously as frames
 * arrive, in order per sender.
 * @typedef {(from: string, payload: Uint8Array) => void} MessageHandler
 */

/**
 * Answers `request` calls: returns the response payload (or a promise of it); a
 * throw becomes a RemoteError at the caller.
 * @typedef {(from: string, payload: Uint8Array, ctx: {signal: AbortSignal}) => Uint8Array | Promise<Uint8Array>} RequestHandler
 */

/**
 * What the runtime may ask of a mesh node.
 * @typedef {object} MeshPort
 * @property {string} id this node's id
 * @property {(peerId: string, payload: Uint8Array, spare?: number) => boolean} send one-way, in order per
 *   destination; false when the frame was not accepted (the reason goes to 'send:error');
 *   `spare`: bytes in front of the payload in its buffer that the node may overwrite
 * @property {(peerId: string) => boolean} canSend whether send would be accepted now;
 *   when false, a 'drain' for peerId follows once there is room (or 'peer:down')
 * @property {(peerId: string, payload: Uint8Array, options?: {timeoutMs?: number, signal?: AbortSignal}) => Promise<Uint8Array>} request
 *   a request answered by the peer's RequestHandler
 * @property {(url: string, options?: {signal?: AbortSignal, timeoutMs?: number}) => Promise<PeerInfo>} connect
 *   dial and admit a node listening at a ws:// URL
 * @property {() => PeerInfo[]} peers direct peers
 * @property {() => RouteInfo[]} routes nodes reachable through neighbours
 * @property {(peerId: string) => boolean} isReachable a direct link or a route exists
 * @property {(handler: MessageHandler) => () => void} onMessage add a message handler; returns its removal
 * @property {(handler: RequestHandler) => () => void} onRequest set the one request handler; returns its removal
 * @property {<K extends keyof MeshEvents>(event: K, handler: (detail: MeshEvents[K]) => void) => () => void} on
 *   subscribe to an event; returns the unsubscribe function
 */

export {};
