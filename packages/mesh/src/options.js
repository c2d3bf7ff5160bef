// @ts-check
/**
 * createMeshNode's options: every default in one place, and the checks that
 * turn a bad configuration into an InvalidArgumentError at construction
 * rather than a strange failure later.
 */
import { InvalidArgumentError } from './errors.js';
import { Identity } from './identity.js';

const MiB = 1024 * 1024;

/**
 * Options of createMeshNode(init).
 * @typedef {object} MeshNodeInit
 * @property {Identity} identity this node's key pair and id (createIdentity, loadOrCreateIdentity)
 * @property {string} token the mesh secret; a peer is admitted only if it proves it knows it
 * @property {import('./interfaces.js').ListenAddress} [listen] accept WebSocket
 *   peers here (Node only): `{host, port}` (port 0 = a free port) or
 *   `{server, path}` to share a node:http server. No listening if absent.
 * @property {string[]} [join] ws:// URLs to connect to during start(); while the node
 *   runs, each is dialled again when its peer goes down or a dial fails for a reason
 *   that may pass (rejoin.js)
 * @property {boolean} [rejoin] dial join URLs again as above. (default true)
 * @property {number} [rejoinBaseMs] first delay before dialling a join URL again;
 *   it doubles per failed dial, jittered. (default 250)
 * @property {number} [rejoinMaxMs] largest such delay. (default 5000)
 * @property {string} [announceUrl] URL announced to peers (HELLO, GOSSIP) so they
 *   can dial this node; default: the listener's address
 * @property {number} [heartbeatIntervalMs] PING period per link. (default 1000)
 * @property {number} [peerTimeoutMs] a link that received nothing for this long
 *   is closed ('heartbeat timeout'); detection happens within
 *   peerTimeoutMs + peerTimeoutMs/8. (default 4000)
 * @property {number} [maxFrameBytes] largest frame (payload + envelope) sent or
 *   reassembled. (default 67108864 (64 MiB))
 * @property {number} [maxQueueBytes] per-link (and per-destination while a path
 *   switches) send queue bound; send() returns false beyond it. (default 8388608)
 * @property {number} [sendHighWaterMark] transport bufferedAmount above which
 *   frames wait in the link's queue. (default 1048576)
 * @property {number} [maxReassemblyBytes] bytes all partial chunked frames of
 *   this node may hold. (default 134217728)
 * @property {number} [reassemblyTimeoutMs] a partial chunked frame older than
 *   this is dropped. (default 30000)
 * @property {number} [handshakeTimeoutMs] bound on admission. (default 5000)
 * @property {number} [helloTimeoutMs] an inbound connection that sends no frame
 *   (its HELLO) within this is dropped. (default 2000)
 * @property {number} [maxHandshakes] concurrent inbound handshakes; beyond it a new
 *   connection takes the place of the oldest that has not sent its HELLO (or not
 *   proven the token), or is refused (handshake-table.js). (default 64)
 * @property {number} [maxHandshakesPerAddress] concurrent inbound handshakes from one
 *   IP address (an IPv6 /64); beyond it the same eviction among that address's. (default 16)
 * @property {number} [handshakeGraceMs] a new handshake is not evicted this long; meanwhile more are
 *   placed, up to 4 × the limits above (handshake-table.js). (default min(1000, helloTimeoutMs / 2))
 * @property {string[]} [allowedOrigins] origins (`http://host:port`) whose pages may
 *   open the WebSocket besides this node's own pages; an upgrade carrying any other
 *   `Origin` is refused with 403 (transports/origin-policy.js). (default [])
 * @property {number} [requestTimeoutMs] default timeout of request(). (default 10000)
 * @property {number} [maxPendingRequests] outstanding request() calls. (default 65536)
 * @property {number} [maxInflightRequests] requests being handled at once;
 *   more are answered TooManyRequestsError. (default 1024)
 * @property {number} [hopLimit] hops a routed frame may take, and the longest route
 *   this node takes from gossip. (default 8)
 * @property {number} [switchTimeoutMs] how long a path switch waits for the
 *   peer's SWITCH_ACK before sending anyway. (default 2000)
 * @property {number} [duplicateLinkGraceMs] a redundant second link of the same
 *   transport to a peer carries no new traffic and is closed after this. (default 5000)
 * @property {number} [errorBudget] bad frames tolerated per link and window
 *   before the link is closed. (default 50)
 * @property {number} [errorWindowMs] (default 10000)
 * @property {import('./transports/ws-common.js').WebSocketInit} [websocket] WebSocket transport options
 * @property {import('./transports/tcp.js').TcpInit | false} [tcp] TCP links to daemons (Node only):
 *   listen on TCP at the WebSocket port too, and dial ws:// URLs over TCP, in TLS
 *   unless `{encrypt: false}` (link-transports.js). (default false; termite-node sets it)
 * @property {import('./transports/webrtc.js').WebRTCInit | false} [webrtc] WebRTC
 *   transport options; false disables WebRTC (no upgrade, offers refused)
 * @property {import('./logger.js').Logger} [logger] default createLogger('termite:mesh')
 */

/** @typedef {Required<Omit<MeshNodeInit, 'listen' | 'announceUrl' | 'websocket' | 'webrtc' | 'tcp' | 'logger'>> & Pick<MeshNodeInit, 'listen' | 'announceUrl' | 'websocket' | 'webrtc' | 'tcp' | 'logger'>} MeshNodeOptions */

export const DEFAULTS = Object.freeze({
  join: /** @type {string[]} */ ([]),
  rejoin: true,
  rejoinBaseMs: 250,
  rejoinMaxMs: 5000,
  allowedOrigins: /** @type {string[]} */ ([]),
  heartbeatIntervalMs: 1000,
  peerTimeoutMs: 4000,
  maxFrameBytes: 64 * MiB,
  maxQueueBytes: 8 * MiB,
  sendHighWaterMark: 1 * MiB,
  maxReassemblyBytes: 128 * MiB,
  reassemblyTimeoutMs: 30_000,
  handshakeTimeoutMs: 5000,
  helloTimeoutMs: 2000,
  maxHandshakes: 64,
  maxHandshakesPerAddress: 16,
  requestTimeoutMs: 10_000,
  maxPendingRequests: 65536,
  maxInflightRequests: 1024,
  hopLimit: 8,
  switchTimeoutMs: 2000,
  duplicateLinkGraceMs: 5000,
  errorBudget: 50,
  errorWindowMs: 10_000,
});

/**
 * @param {MeshNodeInit} init
 * @returns {MeshNodeOptions}
 */
export function resolveOptions(init) {
  if (!init || typeof init !== 'object') throw new InvalidArgumentError('createMeshNode needs an init object');
  if (!(init.identity instanceof Identity)) throw new InvalidArgumentError('init.identity must be an Identity (createIdentity or loadOrCreateIdentity)');
  if (typeof init.token !== 'string' || init.token.length === 0) throw new InvalidArgumentError('init.token must be a non-empty string');
  const o = /** @type {MeshNodeOptions} */ ({ ...DEFAULTS, ...stripUndefined(init) });
  for (const k of /** @type {(keyof typeof DEFAULTS)[]} */ (Object.keys(DEFAULTS))) {
    if (k === 'join' || k === 'allowedOrigins' || k === 'rejoin') continue;
    const v = o[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new InvalidArgumentError(`init.${k} must be a positive number, got ${String(v)}`);
  }
  if (!Array.isArray(o.join) || o.join.some((u) => typeof u !== 'string')) throw new InvalidArgumentError('init.join must be an array of ws:// URLs');
  if (typeof o.rejoin !== 'boolean') throw new InvalidArgumentError(`init.rejoin must be a boolean, got ${String(o.rejoin)}`);
  o.allowedOrigins = checkOrigins(o.allowedOrigins);
  if (o.peerTimeoutMs <= o.heartbeatIntervalMs) {
    throw new InvalidArgumentError(`init.peerTimeoutMs (${o.peerTimeoutMs}) must exceed init.heartbeatIntervalMs (${o.heartbeatIntervalMs})`);
  }
  if (o.maxFrameBytes < 1024) throw new InvalidArgumentError(`init.maxFrameBytes ${o.maxFrameBytes} is below 1024`);
  if (o.hopLimit > 16) throw new InvalidArgumentError(`init.hopLimit ${o.hopLimit} is above 16`);
  return o;
}

/**
 * Each allowed origin as the browser sends it (`new URL(u).origin`: scheme, host, port).
 * @param {unknown} list @returns {string[]}
 */
function checkOrigins(list) {
  if (!Array.isArray(list)) throw new InvalidArgumentError('init.allowedOrigins must be an array of http(s)://HOST[:PORT] origins');
  return list.map((u) => {
    const url = typeof u === 'string' && URL.canParse(u) ? new URL(u) : null;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search || url.hash || url.username) {
      throw new InvalidArgumentError(`init.allowedOrigins: ${JSON.stringify(u)} is not an origin such as http://example.org:8080`);
    }
    return url.origin;
  });
}

/** @template {object} T @param {T} o @returns {Partial<T>} */
function stripUndefined(o) {
  return /** @type {Partial<T>} */ (Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
}
