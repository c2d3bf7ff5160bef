// @ts-check
/**
 * @packageDocumentation
 * `@termite/mesh` — the networking layer of Termite Mesh: node identity
 * (Ed25519, node id = hash of the public key), admission (mesh token and key
 * proven by challenge and response), WebSocket and WebRTC data-channel
 * transports, CBOR frames with chunking, bounded send queues with
 * backpressure, heartbeats, request/response, and routing through
 * neighbours. It moves opaque payloads (Uint8Array, the runtime's CBOR)
 * between node ids and knows nothing of Scheme. docs/mesh.md is the
 * protocol; this file is the API.
 *
 * The same package runs in Node and browsers: package.json's "browser" field
 * swaps the WebSocket transport (no listener in a tab), the WebRTC adapter
 * (RTCPeerConnection instead of node-datachannel) and the identity store
 * (IndexedDB instead of a file).
 *
 * @example
 * ```js
 * import { createMeshNode, createIdentity } from '@termite/mesh';
 *
 * const token = 'a long random mesh secret';
 * const a = createMeshNode({ identity: await createIdentity(), token, listen: { host: '127.0.0.1', port: 0 } });
 * const b = createMeshNode({ identity: await createIdentity(), token });
 * await a.start();
 * await b.start();
 * a.onMessage((from, payload) => a.send(from, payload));          // echo
 * a.onRequest((from, payload) => payload.slice().reverse());      // reverse
 * const peer = await b.connect(a.addresses()[0]);                 // admitted both ways
 * const got = new Promise((resolve) => b.onMessage((from, p) => resolve(p)));
 * b.send(peer.id, new Uint8Array([1, 2, 3]));                     // true: queued
 * await got;                                                      // Uint8Array [1, 2, 3]
 * await b.request(a.id, new Uint8Array([1, 2, 3]), { timeoutMs: 1000 }); // [3, 2, 1]
 * await b.stop();
 * await a.stop();
 * ```
 */
export { createMeshNode, MeshNode } from './mesh-node.js';
export { DEFAULTS } from './options.js';
export {
  Identity, createIdentity, importIdentity, exportIdentity, identityFromKeys, nodeIdFromPublicKey, isNodeId, verifySignature, NODE_ID_HASH_BYTES,
} from './identity.js';
export { loadOrCreateIdentity } from './identity-store.js';
export { createLogger, createMemoryLogger } from './logger.js';
export { webSocketTransport } from './transports/websocket.js';
export { tcpTransport } from './transports/tcp.js';
export { webRTCTransport } from './transports/webrtc.js';
export { filterCandidate, filterSdp } from './transports/candidates.js';
export { T as FRAME_TYPES, VERSION as PROTOCOL_VERSION } from './frames.js';
export { base64url, fromBase64url } from './bytes.js';
export * from './errors.js';
/** The seam with the runtime (types only): MeshPort, PeerInfo, LinkInfo, RouteInfo, MeshEvents, MessageHandler, RequestHandler. */
export * from './mesh-port.js';
