// @ts-check
/**
 * Node identity: an Ed25519 key pair (WebCrypto `crypto.subtle`, the same API
 * in Node 20 and Chromium) and the node id derived from its public key.
 *
 * Node id derivation (a contract: pids and node references carry it):
 *
 *     id = base32(SHA-256(publicKey)[0..20])
 *
 * where publicKey is the raw 32-byte Ed25519 public key and base32 is
 * RFC 4648's alphabet in lowercase without padding, so an id is 32
 * characters of [a-z2-7] (160 bits). A peer proves it owns an id by signing
 * with the key whose hash it is (admission.js); forging an id means finding a
 * second preimage of 160 bits of SHA-256.
 *
 * Persistence is elsewhere: identity-store.js (a JSON file, mode 0600, in
 * Node) and identity-store.browser.js (IndexedDB, non-extractable key).
 */
import { base32, bs, fromBase64url, base64url } from './bytes.js';
import { IdentityError, InvalidArgumentError } from './errors.js';

const subtle = globalThis.crypto.subtle;
const ED25519 = { name: 'Ed25519' };
const NODE_ID_RE = /^[a-z2-7]{32}$/;

/** Number of SHA-256 bytes kept in a node id. */
export const NODE_ID_HASH_BYTES = 20;

/**
 * @param {unknown} s
 * @returns {s is string} true if `s` has the shape of a node id
 */
export function isNodeId(s) {
  return typeof s === 'string' && NODE_ID_RE.test(s);
}

/**
 * The node id of a raw Ed25519 public key.
 * @param {Uint8Array} publicKey 32 bytes
 * @returns {Promise<string>}
 */
export async function nodeIdFromPublicKey(publicKey) {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) {
    throw new InvalidArgumentError(`an Ed25519 public key is 32 bytes, got ${publicKey instanceof Uint8Array ? publicKey.length + ' bytes' : typeof publicKey}`);
  }
  const digest = new Uint8Array(await subtle.digest('SHA-256', bs(publicKey)));
  return base32(digest.subarray(0, NODE_ID_HASH_BYTES));
}

/** Imported verification keys by public key hex; bounded (a cache). */
const verifyKeys = new Map();

/**
 * Verify an Ed25519 signature by a raw public key. Returns false (never
 * throws) for a malformed key or signature.
 * @param {Uint8Array} publicKey @param {Uint8Array} signature @param {Uint8Array} data
 */
export async function verifySignature(publicKey, signature, data) {
  try {
    const k = String.fromCharCode(...publicKey);
    let key = verifyKeys.get(k);
    if (!key) {
      key = await subtle.importKey('raw', bs(publicKey), ED25519, false, ['verify']);
      if (verifyKeys.size > 1024) verifyKeys.clear();
      verifyKeys.set(k, key);
    }
    return await subtle.verify(ED25519, key, bs(signature), bs(data));
  } catch {
    return false;
  }
}

/**
 * A node's key pair and id. The private key never leaves the object (it is a
 * CryptoKey; `exportable` says whether it can be written to disk).
 */
export class Identity {
  /** @type {CryptoKey} */
  #privateKey;

  /**
   * Use createIdentity / importIdentity, not this constructor.
   * @param {string} id @param {Uint8Array} publicKey @param {CryptoKey} privateKey
   */
  constructor(id, publicKey, privateKey) {
    /** The node id (see the derivation above). */
    this.id = id;
    /** Raw 32-byte Ed25519 public key. */
    this.publicKey = publicKey;
    this.#privateKey = privateKey;
  }

  /** True if the private key can be exported (Node file store); false for browser keys. */
  get exportable() {
    return this.#privateKey.extractable;
  }

  /** The private CryptoKey (identity stores persist it; nothing else should touch it). */
  get privateKey() {
    return this.#privateKey;
  }

  /**
   * Ed25519 signature of `data`.
   * @param {Uint8Array} data @returns {Promise<Uint8Array>} 64 bytes
   */
  async sign(data) {
    return new Uint8Array(await subtle.sign(ED25519, this.#privateKey, bs(data)));
  }

  toJSON() {
    return { id: this.id };
  }
}

/**
 * A fresh identity in memory.
 * @param {{extractable?: boolean}} [options] extractable (default true) lets a
 *   file store export the private key; browsers pass false.
 * @returns {Promise<Identity>}
 */
export async function createIdentity(options = {}) {
  const pair = /** @type {CryptoKeyPair} */ (await subtle.generateKey(ED25519, options.extractable ?? true, ['sign', 'verify']));
  const publicKey = new Uint8Array(await subtle.exportKey('raw', pair.publicKey));
  return new Identity(await nodeIdFromPublicKey(publicKey), publicKey, pair.privateKey);
}

/**
 * An identity from a private key (a CryptoKey, as browsers keep in
 * IndexedDB) and its raw public key; checks that they belong together.
 * @param {CryptoKey} privateKey @param {Uint8Array} publicKey
 */
export async function identityFromKeys(privateKey, publicKey) {
  const id = await nodeIdFromPublicKey(publicKey);
  const probe = new TextEncoder().encode('termite-mesh identity check');
  const sig = new Uint8Array(await subtle.sign(ED25519, privateKey, probe));
  if (!(await verifySignature(publicKey, sig, probe))) throw new IdentityError(`the private key does not match public key of node ${id}`);
  return new Identity(id, publicKey, privateKey);
}

/**
 * An identity from a private Ed25519 JWK (`{kty: 'OKP', crv: 'Ed25519', x, d}`).
 * @param {JsonWebKey} jwk
 * @returns {Promise<Identity>}
 */
export async function importIdentity(jwk) {
  if (!jwk || jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string' || typeof jwk.d !== 'string') {
    throw new IdentityError(`not a private Ed25519 JWK (kty ${jwk?.kty}, crv ${jwk?.crv})`);
  }
  let privateKey;
  try {
    privateKey = await subtle.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d }, ED25519, true, ['sign']);
  } catch (e) {
    throw new IdentityError(`cannot import the Ed25519 private key: ${/** @type {Error} */ (e).message}`, { cause: e });
  }
  return identityFromKeys(privateKey, fromBase64url(jwk.x));
}

/**
 * The private JWK of an exportable identity (for the file store).
 * @param {Identity} identity @returns {Promise<JsonWebKey>}
 */
export async function exportIdentity(identity) {
  if (!identity.exportable) throw new IdentityError(`the private key of node ${identity.id} is not extractable`);
  const jwk = await subtle.exportKey('jwk', identity.privateKey);
  if (jwk.x !== base64url(identity.publicKey)) throw new IdentityError('exported key does not match the public key');
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d };
}
