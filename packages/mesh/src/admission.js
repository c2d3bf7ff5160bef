// @ts-check
/**
 * Admission: the handshake every new connection runs before it carries any
 * other frame, in both directions (docs/mesh.md §3 is the argument).
 *
 *   both → HELLO  [id, publicKey, nonce, role, maxMessageBytes, listenUrl]
 *   both → AUTH   [echo of the peer's nonce, mac, signature]
 *   both → ACCEPT
 *
 *   transcript = "termite-mesh/1 handshake" 0x00 ‖ len ‖ dialer's HELLO bytes ‖ len ‖ listener's HELLO bytes
 *   bound      = transcript [‖ len ‖ channel binding]   (encrypted connections: TLS exporter bytes)
 *   mac        = HMAC-SHA-256(tokenKey, "termite-mesh/1 <role> mac" 0x00 ‖ transcript)
 *   signature  = Ed25519(privateKey, "termite-mesh/1 <role> sig" 0x00 ‖ bound)
 *   tokenKey   = SHA-256("termite-mesh/1 token" 0x00 ‖ UTF-8(token))
 *
 * where <role> is the prover's role (dialer or listener). Each side checks, in
 * this order, and refuses with the reason in brackets: the envelope version
 * [protocol version], the frame shapes and order [malformed handshake,
 * unexpected frame], that the peer is not itself [connected to self], that
 * the id is the hash of the key [node id does not match key], that the
 * peer's nonce is new and that the AUTH echoes *our* nonce [replayed
 * handshake], the mac [bad token], the signature [bad signature]. A refusal
 * sends ERROR {name: 'AdmissionError', message: 'admission refused: <reason>
 * (<detail>)', fatal: true} and closes the connection; the refusal is logged. A peer
 * of another envelope version is sent that ERROR in its own version when it can read
 * it (frames.js encodeVersionRefusal): a node of an older release learns why.
 *
 * Both HELLOs are sent at once, so admission costs 1.5 round trips.
 *
 * Channel binding: on an encrypted connection (TCP in TLS, transports/tcp.js) the
 * transcript ends with keying material exported from the TLS session, which each side
 * computes itself and neither sends. A relay that terminates TLS towards each side
 * holds two sessions with two different values, so the signatures it relays verify
 * over neither: [bad signature], the detail naming the relay. The mac is not bound
 * (a relay can pass it on, and gains nothing: the signature is required too), so a
 * wrong token is still told apart: [bad token]. The TLS certificate proves nothing; this does.
 */
import { AdmissionError, ProtocolVersionError, MalformedFrameError, UnknownFrameTypeError, UnknownTagError, ADMISSION_REASONS, InvalidArgumentError } from './errors.js';
import { T, VERSION, decodeFrame, encodeAccept, encodeAuth, encodeError, encodeHello, encodeVersionRefusal, typeName } from './frames.js';
import { bs, bytesEqual, concatBytes, hex, randomBytes, utf8 } from './bytes.js';
import { nodeIdFromPublicKey, verifySignature } from './identity.js';

const subtle = globalThis.crypto.subtle;
const HMAC = { name: 'HMAC', hash: 'SHA-256' };

/** Roles in the handshake: the side that opened the connection is the dialer. */
export const ROLE_DIALER = 0;
export const ROLE_LISTENER = 1;
const ROLE_NAMES = ['dialer', 'listener'];
/** Bytes of early traffic (after the peer's ACCEPT, before ours is processed) kept for the link. */
const EARLY_TRAFFIC_BYTES = 64 * 1024 * 1024;

/**
 * The HMAC key of a mesh token. The token itself is never sent.
 * @param {string} token non-empty
 * @returns {Promise<CryptoKey>}
 */
export async function deriveTokenKey(token) {
  if (typeof token !== 'string' || token.length === 0) throw new InvalidArgumentError('the mesh token must be a non-empty string');
  const raw = await subtle.digest('SHA-256', bs(concatBytes([utf8('termite-mesh/1 token'), new Uint8Array([0]), utf8(token)])));
  return subtle.importKey('raw', raw, HMAC, false, ['sign', 'verify']);
}

/**
 * The transcript both sides prove: both HELLO frames, byte for byte, in role order,
 * then the connection's channel binding if it has one.
 * @param {Uint8Array} dialerHello @param {Uint8Array} listenerHello @param {Uint8Array | null} [binding]
 */
export function buildTranscript(dialerHello, listenerHello, binding = null) {
  const parts = [utf8('termite-mesh/1 handshake'), new Uint8Array([0]), u32(dialerHello.length), dialerHello, u32(listenerHello.length), listenerHello];
  if (binding !== null) parts.push(u32(binding.length), binding);
  return concatBytes(parts);
}

/** @param {number} n */
function u32(n) {
  return new Uint8Array([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
}

/** @param {number} role @param {'mac' | 'sig'} what @param {Uint8Array} transcript */
function proofInput(role, what, transcript) {
  return concatBytes([utf8(`termite-mesh/1 ${ROLE_NAMES[role]} ${what}`), new Uint8Array([0]), transcript]);
}

/**
 * The mac and signature a prover of `role` sends over `transcript` (the signature over
 * `bound`, the transcript with the channel binding, when the connection has one).
 * @param {number} role ROLE_DIALER or ROLE_LISTENER (of the prover)
 * @param {Uint8Array} transcript
 * @param {CryptoKey} tokenKey
 * @param {{sign(data: Uint8Array): Promise<Uint8Array>}} identity
 * @param {Uint8Array} [bound] default: transcript
 */
export async function computeProof(role, transcript, tokenKey, identity, bound = transcript) {
  const [mac, signature] = await Promise.all([
    subtle.sign('HMAC', tokenKey, bs(proofInput(role, 'mac', transcript))).then((b) => new Uint8Array(b)),
    identity.sign(proofInput(role, 'sig', bound)),
  ]);
  return { mac, signature };
}

/**
 * Nonces seen recently (ours and peers'), so that a HELLO sent again is
 * refused as a replay before any crypto runs. Bounded: the oldest entries
 * are forgotten first. Forgetting is safe: a replayed AUTH still fails
 * because it cannot echo the fresh nonce we send on the new connection.
 */
export class NonceCache {
  /** @param {number} [capacity] */
  constructor(capacity = 16384) {
    this.capacity = capacity;
    /** @type {Set<string>} insertion-ordered */
    this.seen = new Set();
  }

  /** @param {Uint8Array} nonce @returns {boolean} true if it was new (and is now remembered) */
  add(nonce) {
    const k = hex(nonce);
    if (this.seen.has(k)) return false;
    this.seen.add(k);
    if (this.seen.size > this.capacity) {
      const oldest = this.seen.values().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    return true;
  }
}

/**
 * @typedef {object} HandshakeOptions
 * @property {import('./identity.js').Identity} identity
 * @property {CryptoKey} tokenKey from deriveTokenKey
 * @property {0 | 1} role ROLE_DIALER if this side opened the connection
 * @property {number} maxMessageBytes the largest message this side accepts on this connection
 * @property {string | null} listenUrl where this node can be dialled, announced to the peer
 * @property {NonceCache} nonceCache the node's replay cache
 * @property {number} timeoutMs bound on the whole handshake
 * @property {number} [helloTimeoutMs] bound on the wait for the peer's first frame
 *   (its HELLO): an inbound connection that sends nothing is dropped sooner than timeoutMs
 * @property {(stage: 1 | 2) => void} [onProgress] told when the peer's HELLO arrived
 *   well-formed (1) and when the peer proved the token and its key (2)
 * @property {AbortSignal} [signal]
 * @property {import('./logger.js').Logger} logger
 * @property {string} [expectedPeerId] refuse unless the peer is this node (WebRTC dials)
 */

/**
 * @typedef {object} AdmittedPeer
 * @property {string} peerId
 * @property {Uint8Array} publicKey
 * @property {number} maxMessageBytes the largest message the peer accepts
 * @property {string | null} listenUrl
 * @property {0 | 1} role this side's role
 */

/**
 * Run the handshake on a fresh connection. Resolves once both sides have
 * accepted each other; rejects with AdmissionError (after sending the
 * refusal, closing the connection and logging) otherwise. While it runs it
 * owns `conn.onmessage`/`onclose`; on success it clears them, and frames
 * that arrived after the peer's ACCEPT stay queued in the connection (the
 * next `onmessage` assignment receives them, in order).
 * @param {import('./interfaces.js').Connection} conn
 * @param {HandshakeOptions} opts
 * @returns {Promise<AdmittedPeer>}
 */
export async function runHandshake(conn, opts) {
  const { identity, role, logger } = opts;
  const inbox = new Inbox(conn, opts.timeoutMs, opts.signal, opts.helloTimeoutMs);
  const nonce = randomBytes(32);
  opts.nonceCache.add(nonce); // our own nonce reflected back is a replay too
  const hello = encodeHello({ nodeId: identity.id, publicKey: identity.publicKey, nonce, role, maxMessageBytes: opts.maxMessageBytes, listenUrl: opts.listenUrl });
  let peerId = null;
  try {
    sendOrClosed(conn, hello, inbox);
    const theirHelloBytes = await inbox.next();
    const h = /** @type {import('./frames.js').HelloFrame} */ (expect(theirHelloBytes, T.HELLO));
    peerId = h.nodeId;
    opts.onProgress?.(1); // at once, before the checks that wait for crypto
    if (h.role === role) throw new AdmissionError('malformed handshake', `both sides claim the ${ROLE_NAMES[role]} role`);
    if (h.nodeId === identity.id) throw new AdmissionError('connected to self', `node ${h.nodeId} dialled itself`);
    const derived = await nodeIdFromPublicKey(h.publicKey);
    if (derived !== h.nodeId) throw new AdmissionError('node id does not match key', `claimed ${h.nodeId}, key hashes to ${derived}`);
    if (!opts.nonceCache.add(h.nonce)) throw new AdmissionError('replayed handshake', 'HELLO nonce seen before');
    if (opts.expectedPeerId && opts.expectedPeerId !== h.nodeId) throw new AdmissionError('unexpected frame', `expected node ${opts.expectedPeerId}, got ${h.nodeId}`);
    const binding = conn.channelBinding ?? null;
    const [dh, lh] = role === ROLE_DIALER ? [hello, theirHelloBytes] : [theirHelloBytes, hello];
    const transcript = buildTranscript(dh, lh);
    const bound = binding === null ? transcript : buildTranscript(dh, lh, binding);
    const proof = await computeProof(role, transcript, opts.tokenKey, identity, bound);
    sendOrClosed(conn, encodeAuth(h.nonce, proof.mac, proof.signature), inbox);

    const a = /** @type {import('./frames.js').AuthFrame} */ (expect(await inbox.next(), T.AUTH));
    if (!bytesEqual(a.echoNonce, nonce)) throw new AdmissionError('replayed handshake', 'the AUTH answers a challenge of another connection');
    const peerRole = role === ROLE_DIALER ? ROLE_LISTENER : ROLE_DIALER;
    const macOk = await subtle.verify('HMAC', opts.tokenKey, bs(a.mac), bs(proofInput(peerRole, 'mac', transcript)));
    if (!macOk) throw new AdmissionError('bad token', `node ${h.nodeId} does not know the mesh token`);
    // over an encrypted connection a relay that re-encrypts fails here: its two sessions differ
    const orRelay = binding !== null ? ', or the TLS session is not end to end: a relay between us' : '';
    if (!(await verifySignature(h.publicKey, a.signature, proofInput(peerRole, 'sig', bound)))) {
      throw new AdmissionError('bad signature', `the signature is not by the key of node ${h.nodeId}${orRelay}`);
    }
    opts.onProgress?.(2);
    sendOrClosed(conn, encodeAccept(), inbox);
    expect(await inbox.next(), T.ACCEPT);
    inbox.detach();
    logger.debug('peer admitted', { peer: h.nodeId, address: conn.remoteAddress, transport: conn.transport, role: ROLE_NAMES[role] });
    return { peerId: h.nodeId, publicKey: h.publicKey, maxMessageBytes: h.maxMessageBytes, listenUrl: h.listenUrl, role };
  } catch (e) {
    inbox.detach();
    const err = toAdmissionError(e);
    const byPeer = /** @type {any} */ (err).byPeer === true;
    if (!byPeer && conn.status === 'open') {
      // a peer of another release is told in its own envelope version, which it can read
      const refusal = e instanceof ProtocolVersionError ? encodeVersionRefusal(e.version, 'AdmissionError', err.message) : encodeError('AdmissionError', err.message, true, null);
      try { conn.send(refusal); } catch { /* closed meanwhile */ }
    }
    conn.close(err.message);
    const quiet = err.reason === 'node stopping' || err.reason === 'connection closed' || err.quiet;
    logger[quiet ? 'info' : 'warn'](byPeer ? 'refused by peer' : quiet ? 'handshake abandoned' : 'admission refused', {
      reason: err.reason, detail: err.message, peer: peerId, address: conn.remoteAddress, transport: conn.transport, role: ROLE_NAMES[role],
    });
    throw err;
  }
}

/**
 * Send a handshake frame; if the connection closed, fail with why (the peer's refusal if it sent one).
 * @param {import('./interfaces.js').Connection} conn @param {Uint8Array} frame @param {Inbox} inbox
 */
function sendOrClosed(conn, frame, inbox) {
  if (inbox.failure) throw inbox.failure; // evicted, timed out or stopped while the crypto ran
  if (conn.status !== 'open') throw new AdmissionError('connection closed', 'closed during the handshake');
  conn.send(frame);
}

/**
 * Decode a handshake frame and check it is of the expected type; a peer's
 * ERROR frame becomes an AdmissionError marked `byPeer`.
 * @param {Uint8Array} bytes @param {number} type
 */
function expect(bytes, type) {
  const f = decodeFrame(bytes);
  if (f.type === T.ERROR) {
    const m = /admission refused: ([^(]+?)(?: \(|$)/.exec(f.message);
    const reason = m && ADMISSION_REASONS.includes(/** @type {any} */ (m[1])) ? /** @type {import('./errors.js').AdmissionReason} */ (m[1]) : 'unexpected frame';
    const err = new AdmissionError(reason, `refused by the peer: ${f.name}: ${f.message}`);
    /** @type {any} */ (err).byPeer = true;
    throw err;
  }
  if (f.type !== type) throw new AdmissionError('unexpected frame', `expected ${typeName(type)}, got ${typeName(f.type)}`);
  return f;
}

/** @param {unknown} e @returns {AdmissionError} */
function toAdmissionError(e) {
  if (e instanceof AdmissionError) return e;
  if (e instanceof ProtocolVersionError) return new AdmissionError('protocol version', e.message);
  if (e instanceof MalformedFrameError || e instanceof UnknownFrameTypeError || e instanceof UnknownTagError) {
    return new AdmissionError('malformed handshake', e.message);
  }
  return new AdmissionError('malformed handshake', e instanceof Error ? `${e.name}: ${e.message}` : String(e));
}

/**
 * Frames received during the handshake, handed out one at a time, each wait
 * bounded by the handshake deadline, the abort signal and the connection's close.
 */
class Inbox {
  /** @type {Uint8Array[]} */
  #queue = [];
  /** @type {{resolve: (b: Uint8Array) => void, reject: (e: Error) => void} | null} */
  #waiter = null;
  /** @type {Error | null} */
  #failure = null;
  #acceptSeen = false;
  #queuedBytes = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #timer;
  /** @type {ReturnType<typeof setTimeout> | undefined} the deadline of the peer's first frame */
  #helloTimer;
  // an abort carrying an AdmissionError (an eviction) fails with it; any other is the node stopping
  #onAbort = () => this.#fail(this.signal?.reason instanceof AdmissionError ? this.signal.reason : new AdmissionError('node stopping', 'handshake aborted'));

  /**
   * @param {import('./interfaces.js').Connection} conn @param {number} timeoutMs @param {AbortSignal} [signal]
   * @param {number} [helloTimeoutMs]
   */
  constructor(conn, timeoutMs, signal, helloTimeoutMs) {
    this.conn = conn;
    this.signal = signal;
    this.#timer = setTimeout(() => this.#fail(new AdmissionError('handshake timeout', `no complete handshake within ${timeoutMs} ms`)), timeoutMs);
    if (helloTimeoutMs !== undefined && helloTimeoutMs < timeoutMs) {
      this.#helloTimer = setTimeout(() => {
        const err = new AdmissionError('handshake timeout', `no HELLO within ${helloTimeoutMs} ms`);
        err.quiet = true;
        this.#fail(err);
      }, helloTimeoutMs);
    }
    signal?.addEventListener('abort', this.#onAbort, { once: true });
    if (signal?.aborted) this.#onAbort();
    conn.onmessage = (data, isText) => {
      clearTimeout(this.#helloTimer);
      // Frames after the peer's ACCEPT are the peer's first traffic, sent as soon
      // as it admitted us: keep them (bounded in bytes) for the link. Before
      // ACCEPT, a handshake has at most 3 frames, so 8 is plenty.
      const afterAccept = this.#acceptSeen;
      if (!afterAccept && data.length === 3 && data[0] === 0x82 && data[1] === VERSION && data[2] === T.ACCEPT) this.#acceptSeen = true;
      if (isText && !afterAccept) this.#fail(new AdmissionError('malformed handshake', `text message (${data.length} bytes) where a binary frame was expected`));
      else if (this.#waiter) {
        const w = this.#waiter;
        this.#waiter = null;
        w.resolve(data);
      } else if (afterAccept ? this.#queuedBytes + data.length <= EARLY_TRAFFIC_BYTES : this.#queue.length < 8) {
        this.#queue.push(data);
        this.#queuedBytes += data.length;
      } else this.#fail(new AdmissionError('unexpected frame', afterAccept ? `more than ${EARLY_TRAFFIC_BYTES} bytes arrived before the handshake finished` : 'more than 8 frames before the handshake completed'));
    };
    conn.onclose = (reason) => this.#fail(this.#refusalQueued() ?? new AdmissionError('connection closed', reason));
  }

  /** Why the handshake failed, once it has. */
  get failure() {
    return this.#failure;
  }

  /** The peer's refusal (an ERROR frame) among the frames not read yet: it says why the peer closed. */
  #refusalQueued() {
    for (const b of this.#queue) {
      try {
        expect(b, T.ERROR);
      } catch (e) {
        if (/** @type {any} */ (e).byPeer === true) return /** @type {AdmissionError} */ (e);
      }
    }
    return null;
  }

  /** @returns {Promise<Uint8Array>} */
  next() {
    if (this.#failure) return Promise.reject(this.#failure);
    const b = this.#queue.shift();
    if (b) {
      this.#queuedBytes -= b.length;
      return Promise.resolve(b);
    }
    return new Promise((resolve, reject) => { this.#waiter = { resolve, reject }; });
  }

  /** @param {Error} e */
  #fail(e) {
    if (this.#failure) return;
    this.#failure = e;
    const w = this.#waiter;
    this.#waiter = null;
    w?.reject(e);
  }

  /** Stop listening; frames still queued are handed back to the connection. */
  detach() {
    clearTimeout(this.#timer);
    clearTimeout(this.#helloTimer);
    this.signal?.removeEventListener('abort', this.#onAbort);
    this.#failure ??= new AdmissionError('connection closed', 'handshake finished');
    this.conn.onmessage = null;
    this.conn.onclose = null;
    const rest = this.#queue;
    this.#queue = [];
    if (rest.length) requeue(this.conn, rest);
  }
}

/**
 * Put frames that arrived after ACCEPT back in front of the connection's
 * early-message buffer (delivered on the next onmessage assignment).
 * @param {import('./interfaces.js').Connection} conn @param {Uint8Array[]} frames
 */
function requeue(conn, frames) {
  const c = /** @type {any} */ (conn);
  if (typeof c._requeue === 'function') c._requeue(frames);
}
