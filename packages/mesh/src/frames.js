// @ts-check
/**
 * Frames: the CBOR envelopes nodes exchange (docs/mesh.md §2 is the table).
 *
 * Every frame is one CBOR array `[version, type, ...fields]`: `version` is {@link VERSION},
 * `type` one of {@link T}, and the fields are fixed per type (count and CBOR
 * major type checked exactly). Payloads are byte strings holding the
 * runtime's CBOR, opaque here: they are returned as views into the received
 * bytes and copied exactly once when a frame is built.
 *
 * Invariants:
 * - encode* functions return a fresh Uint8Array holding exactly one frame;
 * - decodeFrame either returns a frame of a known type with every field of the
 *   documented shape, or throws a named error (MalformedFrameError,
 *   ProtocolVersionError, UnknownFrameTypeError, UnknownTagError) whose
 *   message says which byte and which field were wrong. It never throws
 *   anything else on any input.
 */
import { Reader, Writer, headSize, writeHead, MAJOR_BYTES, MAJOR_TEXT } from './cbor-lite.js';
import { TRANSPORT_HEADROOM, MARK_FROM, markHeadroom } from './headroom.js';
import { MalformedFrameError, ProtocolVersionError, UnknownFrameTypeError } from './errors.js';

/**
 * Envelope version spoken by this implementation; a frame of any other version is
 * refused (ProtocolVersionError), so a node of another release is refused at its HELLO.
 * 2: the meaning of frames changed, not their layout (docs/wire-format.md, "The envelope
 * version"): Linda requests carry an ACK `[32, n, kept?, op]`, request 36 is VOUCH, and
 * `!` is a resumable builtin, not a primitive, in shipped code.
 */
export const VERSION = 2;
/** Envelope versions whose ERROR frame has this version's layout: a refusal of such a peer is written in its own version, so it can read why. */
const READABLE_ERROR_VERSIONS = Object.freeze([1]);

/** Frame type codes. */
export const T = Object.freeze({
  HELLO: 0,
  AUTH: 1,
  ACCEPT: 2,
  ERROR: 3,
  PING: 4,
  PONG: 5,
  MSG: 6,
  REQ: 7,
  RES: 8,
  RES_ERR: 9,
  CHUNK: 10,
  ROUTE: 11,
  GOSSIP: 12,
  SIGNAL: 13,
  SWITCH: 14,
  SWITCH_ACK: 15,
  BYE: 16,
});

/** Names of frame types by code, for logs and error messages. */
export const TYPE_NAMES = Object.freeze(Object.keys(T));

/** @param {number} type */
export function typeName(type) {
  return TYPE_NAMES[type] ?? `type ${type}`;
}

/** Frame types that may travel inside ROUTE (end-to-end frames). */
/** @type {Set<number>} */
export const ROUTABLE = new Set([T.ERROR, T.MSG, T.REQ, T.RES, T.RES_ERR, T.SIGNAL, T.SWITCH, T.SWITCH_ACK]);

/** Lengths fixed by the handshake. */
export const NONCE_BYTES = 32;
export const PUBLIC_KEY_BYTES = 32;
export const MAC_BYTES = 32;
export const SIGNATURE_BYTES = 64;
/** Longest text field accepted in an envelope (error messages, SDP). */
export const MAX_TEXT_BYTES = 65536;
/** Most entries accepted in one GOSSIP frame. */
export const MAX_GOSSIP_ENTRIES = 1024;
/** Most nodes in the path of one GOSSIP entry (the largest hop limit). */
export const MAX_GOSSIP_PATH = 16;

/**
 * @typedef {{type: 0, nodeId: string, publicKey: Uint8Array, nonce: Uint8Array, role: 0 | 1, maxMessageBytes: number, listenUrl: string | null}} HelloFrame
 * @typedef {{type: 1, echoNonce: Uint8Array, mac: Uint8Array, signature: Uint8Array}} AuthFrame
 * @typedef {{type: 2}} AcceptFrame
 * @typedef {{type: 3, name: string, message: string, fatal: boolean, refType: number | null}} ErrorFrame
 * @typedef {{type: 4 | 5, seq: number}} PingFrame
 * @typedef {{type: 6, payload: Uint8Array}} MsgFrame
 * @typedef {{type: 7 | 8, id: number, payload: Uint8Array}} ReqFrame
 * @typedef {{type: 9, id: number, name: string, message: string}} ResErrFrame
 * @typedef {{type: 10, msgId: number, index: number, total: number, part: Uint8Array}} ChunkFrame
 * @typedef {{type: 11, dst: string, src: string, hopsLeft: number, inner: Uint8Array, browser?: boolean}} RouteFrame
 * @typedef {[id: string, url: string | null, costMs?: number, path?: string[], browser?: boolean]} GossipEntry
 * @typedef {{type: 12, seq: number, entries: GossipEntry[]}} GossipFrame
 * @typedef {{type: 13, session: string, kind: string, a: string | null, b: string | null}} SignalFrame
 * @typedef {{type: 14 | 15, epoch: number}} SwitchFrame
 * @typedef {{type: 16, reason: string}} ByeFrame
 * @typedef {HelloFrame | AuthFrame | AcceptFrame | ErrorFrame | PingFrame | MsgFrame | ReqFrame | ResErrFrame
 *   | ChunkFrame | RouteFrame | GossipFrame | SignalFrame | SwitchFrame | ByeFrame} Frame
 */

/** @param {number} type @param {number} fields number of fields after version and type */
function start(type, fields) {
  return new Writer(32).array(2 + fields).uint(VERSION).uint(type);
}

// ---------------------------------------------------------------- encoders

/**
 * @param {{nodeId: string, publicKey: Uint8Array, nonce: Uint8Array, role: 0 | 1, maxMessageBytes: number, listenUrl: string | null}} h
 */
export function encodeHello(h) {
  return start(T.HELLO, 6).text(h.nodeId).bytes(h.publicKey).bytes(h.nonce).uint(h.role)
    .uint(h.maxMessageBytes).textOrNull(h.listenUrl).finish();
}

/** @param {Uint8Array} echoNonce @param {Uint8Array} mac @param {Uint8Array} signature */
export function encodeAuth(echoNonce, mac, signature) {
  return start(T.AUTH, 3).bytes(echoNonce).bytes(mac).bytes(signature).finish();
}

export function encodeAccept() {
  return start(T.ACCEPT, 0).finish();
}

/**
 * @param {string} name error class name (errors.js)
 * @param {string} message
 * @param {boolean} fatal true if the sender closes the connection right after
 * @param {number | null} refType type of the frame that caused it, if known
 */
export function encodeError(name, message, fatal, refType) {
  const w = start(T.ERROR, 4).text(name.slice(0, 256)).text(truncateText(message, 4096)).bool(fatal);
  return (refType === null ? w.null() : w.uint(refType)).finish();
}

/**
 * An ERROR frame refusing a peer of another envelope version, written in that peer's
 * version when its ERROR layout is ours (READABLE_ERROR_VERSIONS), so that an older node
 * reads the reason instead of failing on the version byte; in ours otherwise.
 * @param {unknown} peerVersion @param {string} name @param {string} message
 */
export function encodeVersionRefusal(peerVersion, name, message) {
  const v = READABLE_ERROR_VERSIONS.includes(/** @type {number} */ (peerVersion)) ? /** @type {number} */ (peerVersion) : VERSION;
  return new Writer(32).array(6).uint(v).uint(T.ERROR).text(name.slice(0, 256)).text(truncateText(message, 4096)).bool(true).null().finish();
}

/** @param {number} seq */
export function encodePing(seq) {
  return start(T.PING, 1).uint(seq).finish();
}

/** @param {number} seq */
export function encodePong(seq) {
  return start(T.PONG, 1).uint(seq).finish();
}

/**
 * MSG, REQ and RES frames up to SLAB_MAX_FRAME bytes are carved from a shared slab of
 * SLAB_BYTES (a frame held keeps its slab alive). 4 KiB, not 1 KiB: a 1 KiB bytevector's frame
 * (~1.1 KiB) as an ArrayBuffer of its own cost 0.7–1.4 µs to envelope, 0.16 µs from the slab.
 */
const SLAB_BYTES = 16384;
const SLAB_MAX_FRAME = 4096;
let slab = new ArrayBuffer(SLAB_BYTES);
let slabUsed = 0;

/**
 * A new byte array of n bytes. A small one is a view of a shared slab: creating an
 * ArrayBuffer per frame cost ~1 µs here, more than the rest of encodeMsg. Views are
 * never reused, so a frame a transport still holds is not overwritten; a view keeps
 * its slab alive, as Node's pooled Buffers do.
 * @param {number} n
 */
function frameBytes(n) {
  if (n > SLAB_MAX_FRAME) return new Uint8Array(n);
  if (slabUsed + n > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    slabUsed = 0;
  }
  const out = new Uint8Array(slab, slabUsed, n);
  slabUsed += (n + 7) & ~7;
  return out;
}

/**
 * MSG: the hot path. One allocation (the frame, usually a slab view), one copy (the
 * payload). With `spare` bytes free in front of the payload (its producer's promise) that
 * hold the envelope, the frame is built in place: no allocation, no copy; a large one
 * with room left for a transport's head is marked so (headroom.js).
 * @param {Uint8Array} payload @param {number} [spare]
 */
export function encodeMsg(payload, spare = 0) {
  const n = payload.length;
  const h = headSize(n);
  if (spare >= 3 + h && payload.byteOffset >= 3 + h) {
    const out = new Uint8Array(payload.buffer, payload.byteOffset - 3 - h, 3 + h + n);
    out[0] = 0x83;
    out[1] = VERSION;
    out[2] = T.MSG;
    writeHead(out, 3, MAJOR_BYTES, n);
    if (spare - 3 - h >= TRANSPORT_HEADROOM && n >= MARK_FROM) markHeadroom(out);
    return out;
  }
  const out = frameBytes(3 + h + n);
  out[0] = 0x83; // array(3)
  out[1] = VERSION;
  out[2] = T.MSG;
  writeHead(out, 3, MAJOR_BYTES, n);
  out.set(payload, 3 + h);
  return out;
}

/**
 * The payload of a well-formed MSG frame as a view, or null if `frame` is not
 * exactly one well-formed MSG (the caller then runs the full decoder, which
 * says precisely what is wrong). Allocates only the view.
 * @param {Uint8Array} frame
 * @returns {Uint8Array | null}
 */
export function msgPayload(frame) {
  const len = frame.length;
  if (len < 4 || frame[0] !== 0x83 || frame[1] !== VERSION || frame[2] !== T.MSG) return null;
  const ib = frame[3];
  if (ib >> 5 !== MAJOR_BYTES) return null;
  const info = ib & 31;
  let n;
  let at;
  if (info < 24) { n = info; at = 4; }
  else if (info === 24 && len >= 5) { n = frame[4]; at = 5; }
  else if (info === 25 && len >= 6) { n = (frame[4] << 8) | frame[5]; at = 6; }
  else if (info === 26 && len >= 8) { n = ((frame[4] << 24) >>> 0) + ((frame[5] << 16) | (frame[6] << 8) | frame[7]); at = 8; }
  else return null;
  if (at + n !== len) return null;
  // a plain Uint8Array view, not subarray: on a Node Buffer (what ws and
  // node-datachannel deliver) subarray looks up the species and runs Buffer's
  // constructor, and the decoder would then see two kinds of byte array
  return new Uint8Array(frame.buffer, frame.byteOffset + at, n);
}

/** Where the head smallHead read ends (module scratch: no allocation per frame). */
let headEnd = 0;

/**
 * The argument (below 2^32) of a CBOR head of major type `major` at frame[at], or -1
 * if there is none such there; headEnd is then the byte after it.
 * @param {Uint8Array} frame @param {number} at @param {number} major
 */
function smallHead(frame, at, major) {
  const len = frame.length;
  if (at >= len || frame[at] >> 5 !== major) return -1;
  const info = frame[at] & 31;
  if (info < 24) { headEnd = at + 1; return info; }
  if (info === 24 && len >= at + 2) { headEnd = at + 2; return frame[at + 1]; }
  if (info === 25 && len >= at + 3) { headEnd = at + 3; return (frame[at + 1] << 8) | frame[at + 2]; }
  if (info === 26 && len >= at + 5) {
    headEnd = at + 5;
    return ((frame[at + 1] << 24) >>> 0) + ((frame[at + 2] << 16) | (frame[at + 3] << 8) | frame[at + 4]);
  }
  return -1;
}

/**
 * A well-formed REQ or RES frame read without the general decoder (0.2–0.5 µs a frame
 * there: a remote spawn has one of each on its critical path): `{type, id, payload}`
 * as decodeFrame gives it, the payload a view; or null when `frame` is anything else
 * or unusual (an id of 2^32 or more), and the caller runs decodeFrame, which says
 * precisely what is wrong.
 * @param {Uint8Array} frame
 * @returns {ReqFrame | null}
 */
export function idPayloadFrame(frame) {
  if (frame.length < 5 || frame[0] !== 0x84 || frame[1] !== VERSION) return null;
  const type = frame[2];
  if (type !== T.REQ && type !== T.RES) return null;
  const id = smallHead(frame, 3, 0);
  if (id < 0) return null;
  const n = smallHead(frame, headEnd, MAJOR_BYTES);
  if (n < 0 || headEnd + n !== frame.length) return null;
  return { type: /** @type {7 | 8} */ (type), id, payload: new Uint8Array(frame.buffer, frame.byteOffset + headEnd, n) };
}

/**
 * REQ or RES: `[VERSION, type, id, payload]`.
 * @param {7 | 8} type @param {number} id @param {Uint8Array} payload
 */
export function encodeIdPayload(type, id, payload) {
  const n = payload.length;
  const hId = headSize(id);
  const hN = headSize(n);
  // from the slab, as MSG: a remote spawn's request and its answer each paid ~1 µs for
  // an ArrayBuffer of their own
  const out = frameBytes(3 + hId + hN + n);
  out[0] = 0x84; // array(4)
  out[1] = VERSION;
  out[2] = type;
  let at = writeHead(out, 3, 0, id);
  at = writeHead(out, at, MAJOR_BYTES, n);
  out.set(payload, at);
  return out;
}

/** @param {number} id @param {string} name @param {string} message */
export function encodeResErr(id, name, message) {
  return start(T.RES_ERR, 3).uint(id).text(name.slice(0, 256)).text(truncateText(message, 4096)).finish();
}

/** Bytes of a CHUNK envelope around its part, at most (used to size parts). */
export const CHUNK_OVERHEAD = 1 + 1 + 1 + 9 + 9 + 9 + 9;

/**
 * @param {number} msgId @param {number} index @param {number} total bytes of the whole frame
 * @param {Uint8Array} part
 */
export function encodeChunk(msgId, index, total, part) {
  const n = part.length;
  const size = 3 + headSize(msgId) + headSize(index) + headSize(total) + headSize(n) + n;
  const out = new Uint8Array(size);
  out[0] = 0x86; // array(6)
  out[1] = VERSION;
  out[2] = T.CHUNK;
  let at = writeHead(out, 3, 0, msgId);
  at = writeHead(out, at, 0, index);
  at = writeHead(out, at, 0, total);
  at = writeHead(out, at, MAJOR_BYTES, n);
  out.set(part, at);
  return out;
}

const idBytesCache = new Map();
/** UTF-8 of a node id, cached (ids repeat on every routed frame). @param {string} id */
function idBytes(id) {
  let b = idBytesCache.get(id);
  if (b === undefined) {
    b = new TextEncoder().encode(id);
    if (idBytesCache.size > 4096) idBytesCache.clear(); // bounded: a cache, not a registry
    idBytesCache.set(id, b);
  }
  return b;
}

/**
 * ROUTE: `[VERSION, 11, dst, src, hopsLeft, inner]`, inner being an encoded frame; `[…,
 * inner, true]` when the frame came into the mesh from a browser (a hop received it
 * from a browser peer: forwarding.js), so the destination knows its source as one.
 * @param {string} dst @param {string} src @param {number} hopsLeft @param {Uint8Array} inner
 * @param {boolean} [browser]
 */
export function encodeRoute(dst, src, hopsLeft, inner, browser = false) {
  const d = idBytes(dst);
  const s = idBytes(src);
  const n = inner.length;
  const size = 3 + headSize(d.length) + d.length + headSize(s.length) + s.length + headSize(hopsLeft) + headSize(n) + n + (browser ? 1 : 0);
  const out = new Uint8Array(size);
  out[0] = browser ? 0x87 : 0x86; // array(7) or array(6)
  out[1] = VERSION;
  out[2] = T.ROUTE;
  let at = writeHead(out, 3, MAJOR_TEXT, d.length);
  out.set(d, at);
  at = writeHead(out, at + d.length, MAJOR_TEXT, s.length);
  out.set(s, at);
  at = writeHead(out, at + s.length, 0, hopsLeft);
  at = writeHead(out, at, MAJOR_BYTES, n);
  out.set(inner, at);
  if (browser) out[at + n] = 0xf5; // true
  return out;
}

/**
 * GOSSIP: `[VERSION, 12, seq, entries]`, each entry `[id, url]` (a direct peer of the sender)
 * or `[id, url, costMs, path(, true)]`: a route of the sender, `path` the nodes between the
 * sender and `id` (empty for a direct peer), `costMs` its measured round trips summed.
 * A fifth field, `true`, marks a node the sender knows joined from a browser (gossip.js).
 * @param {number} seq @param {GossipEntry[]} entries
 */
export function encodeGossip(seq, entries) {
  const w = start(T.GOSSIP, 2).uint(seq).array(entries.length);
  for (const [id, url, cost, path, browser] of entries) {
    if (cost === undefined || path === undefined) {
      w.array(2).text(id).textOrNull(url);
      continue;
    }
    w.array(browser === true ? 5 : 4).text(id).textOrNull(url).uint(Math.max(0, Math.min(0xffffffff, Math.round(cost)))).array(path.length);
    for (const hop of path) w.text(hop);
    if (browser === true) w.bool(true);
  }
  return w.finish();
}

/**
 * @param {string} session @param {string} kind @param {string | null} a @param {string | null} b
 */
export function encodeSignal(session, kind, a, b) {
  return start(T.SIGNAL, 4).text(session).text(kind).textOrNull(a).textOrNull(b).finish();
}

/** @param {number} epoch */
export function encodeSwitch(epoch) {
  return start(T.SWITCH, 1).uint(epoch).finish();
}

/** @param {number} epoch */
export function encodeSwitchAck(epoch) {
  return start(T.SWITCH_ACK, 1).uint(epoch).finish();
}

/** @param {string} reason */
export function encodeBye(reason) {
  return start(T.BYE, 1).text(truncateText(reason, 1024)).finish();
}

/** @param {string} s @param {number} max UTF-16 units kept */
function truncateText(s, max) {
  return s.length > max ? s.slice(0, max) + '…' : s;
}

// ---------------------------------------------------------------- decoder

/**
 * Decode one frame (strictly: exact field counts and types, no trailing bytes).
 * The envelope head is read here; each type's fields by its own decoder below,
 * called directly from the switch (a call V8 can inline, unlike a table lookup).
 * @param {Uint8Array} bytes
 * @returns {Frame}
 */
export function decodeFrame(bytes) {
  if (bytes.length === 0) throw new MalformedFrameError('empty frame');
  const r = new Reader(bytes);
  const count = r.array('frame envelope', 2, 8);
  const version = r.uint('frame version');
  if (version !== VERSION) throw new ProtocolVersionError(version, VERSION);
  const type = r.uint('frame type');
  const fields = count - 2;
  /** @type {Frame} */
  let f;
  switch (type) {
    case T.HELLO: f = decodeHello(r, fields); break;
    case T.AUTH: f = decodeAuth(r, fields); break;
    case T.ACCEPT:
      expectFields(type, fields, 0);
      f = { type };
      break;
    case T.ERROR: f = decodeError(r, fields); break;
    case T.PING:
    case T.PONG:
      expectFields(type, fields, 1);
      f = { type, seq: r.uint(`${typeName(type)} sequence number`) };
      break;
    case T.MSG:
      expectFields(type, fields, 1);
      f = { type, payload: r.bytes('MSG payload') };
      break;
    case T.REQ:
    case T.RES:
      expectFields(type, fields, 2);
      f = { type, id: r.uint(`${typeName(type)} id`), payload: r.bytes(`${typeName(type)} payload`) };
      break;
    case T.RES_ERR: f = decodeResErr(r, fields); break;
    case T.CHUNK: f = decodeChunk(r, fields); break;
    case T.ROUTE: f = decodeRoute(r, fields); break;
    case T.GOSSIP: f = decodeGossip(r, fields); break;
    case T.SIGNAL: f = decodeSignal(r, fields); break;
    case T.SWITCH:
    case T.SWITCH_ACK:
      expectFields(type, fields, 1);
      f = { type, epoch: r.uint(`${typeName(type)} epoch`) };
      break;
    case T.BYE:
      expectFields(type, fields, 1);
      f = { type, reason: r.text('BYE reason', 4096) };
      break;
    default:
      throw new UnknownFrameTypeError(type);
  }
  r.expectEnd(`${typeName(type)} frame`);
  return f;
}

// Field decoders, one per frame type of more than one or two fields: each reads
// `fields` fields from `r` (positioned after the type) and returns the frame.

/** @param {Reader} r @param {number} fields @returns {HelloFrame} */
function decodeHello(r, fields) {
  expectFields(T.HELLO, fields, 6);
  const nodeId = r.text('HELLO node id', 128);
  const publicKey = fixed(r.bytes('HELLO public key'), PUBLIC_KEY_BYTES, 'HELLO public key');
  const nonce = fixed(r.bytes('HELLO nonce'), NONCE_BYTES, 'HELLO nonce');
  const role = r.uint('HELLO role');
  if (role !== 0 && role !== 1) throw new MalformedFrameError(`HELLO role ${role} is neither 0 (dialer) nor 1 (listener)`);
  const maxMessageBytes = r.uint('HELLO max message bytes');
  if (maxMessageBytes < 1024) throw new MalformedFrameError(`HELLO max message bytes ${maxMessageBytes} is below the minimum of 1024`);
  const listenUrl = r.textOrNull('HELLO listen url', 2048);
  return { type: T.HELLO, nodeId, publicKey, nonce, role, maxMessageBytes, listenUrl };
}

/** @param {Reader} r @param {number} fields @returns {AuthFrame} */
function decodeAuth(r, fields) {
  expectFields(T.AUTH, fields, 3);
  const echoNonce = fixed(r.bytes('AUTH echoed nonce'), NONCE_BYTES, 'AUTH echoed nonce');
  const mac = fixed(r.bytes('AUTH mac'), MAC_BYTES, 'AUTH mac');
  const signature = fixed(r.bytes('AUTH signature'), SIGNATURE_BYTES, 'AUTH signature');
  return { type: T.AUTH, echoNonce, mac, signature };
}

/** @param {Reader} r @param {number} fields @returns {ErrorFrame} */
function decodeError(r, fields) {
  expectFields(T.ERROR, fields, 4);
  const name = r.text('ERROR name', 256);
  const message = r.text('ERROR message', MAX_TEXT_BYTES);
  const fatal = r.bool('ERROR fatal flag');
  const refType = r.peekNull() ? (r.pos++, null) : r.uint('ERROR frame type');
  return { type: T.ERROR, name, message, fatal, refType };
}

/** @param {Reader} r @param {number} fields @returns {ResErrFrame} */
function decodeResErr(r, fields) {
  expectFields(T.RES_ERR, fields, 3);
  return { type: T.RES_ERR, id: r.uint('RES_ERR id'), name: r.text('RES_ERR name', 256), message: r.text('RES_ERR message', MAX_TEXT_BYTES) };
}

/** @param {Reader} r @param {number} fields @returns {ChunkFrame} */
function decodeChunk(r, fields) {
  expectFields(T.CHUNK, fields, 4);
  return { type: T.CHUNK, msgId: r.uint('CHUNK message id'), index: r.uint('CHUNK index'), total: r.uint('CHUNK total'), part: r.bytes('CHUNK part') };
}

/** @param {Reader} r @param {number} fields @returns {RouteFrame} */
function decodeRoute(r, fields) {
  if (fields !== 5) expectFields(T.ROUTE, fields, 4); // the fifth: from a browser
  const f = { type: T.ROUTE, dst: r.text('ROUTE destination', 128), src: r.text('ROUTE source', 128), hopsLeft: r.uint('ROUTE hops left'), inner: r.bytes('ROUTE inner frame') };
  return /** @type {RouteFrame} */ (fields === 5 ? { ...f, browser: r.bool('ROUTE browser flag') } : f);
}

/** @param {Reader} r @param {number} fields @returns {GossipFrame} */
function decodeGossip(r, fields) {
  expectFields(T.GOSSIP, fields, 2);
  const seq = r.uint('GOSSIP sequence number');
  const n = r.array('GOSSIP entries', 0, MAX_GOSSIP_ENTRIES);
  /** @type {GossipEntry[]} */
  const entries = [];
  for (let i = 0; i < n; i++) {
    const len = r.array(`GOSSIP entry ${i}`, 2, 5);
    if (len === 3) throw new MalformedFrameError(`GOSSIP entry ${i} has 3 fields (2, 4 or 5 expected)`);
    const id = r.text(`GOSSIP entry ${i} node id`, 128);
    const url = r.textOrNull(`GOSSIP entry ${i} url`, 2048);
    if (len === 2) {
      entries.push([id, url]);
      continue;
    }
    const cost = r.uint(`GOSSIP entry ${i} cost`);
    const hops = r.array(`GOSSIP entry ${i} path`, 0, MAX_GOSSIP_PATH);
    /** @type {string[]} */
    const path = [];
    for (let k = 0; k < hops; k++) path.push(r.text(`GOSSIP entry ${i} path node`, 128));
    entries.push(len === 5 ? [id, url, cost, path, r.bool(`GOSSIP entry ${i} browser flag`)] : [id, url, cost, path]);
  }
  return { type: T.GOSSIP, seq, entries };
}

/** @param {Reader} r @param {number} fields @returns {SignalFrame} */
function decodeSignal(r, fields) {
  expectFields(T.SIGNAL, fields, 4);
  return {
    type: T.SIGNAL, session: r.text('SIGNAL session', 128), kind: r.text('SIGNAL kind', 32),
    a: r.textOrNull('SIGNAL data', MAX_TEXT_BYTES), b: r.textOrNull('SIGNAL extra', 1024),
  };
}

/**
 * The type code of a frame if its first bytes are a readable envelope head,
 * else null; used to name the offending frame type in error frames.
 * @param {Uint8Array} bytes
 * @returns {number | null}
 */
export function peekType(bytes) {
  try {
    const r = new Reader(bytes);
    r.array('frame envelope', 2, 8);
    r.uint('frame version');
    return r.uint('frame type');
  } catch {
    return null;
  }
}

/** @param {number} type @param {number} got @param {number} want */
function expectFields(type, got, want) {
  if (got !== want) throw new MalformedFrameError(`${typeName(type)} frame has ${got} fields, expected ${want}`);
}

/** @param {Uint8Array} b @param {number} n @param {string} what */
function fixed(b, n, what) {
  if (b.length !== n) throw new MalformedFrameError(`${what} is ${b.length} bytes, expected ${n}`);
  return b;
}
