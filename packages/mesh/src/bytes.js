// @ts-check
/**
 * Byte helpers shared by Node and browsers (Uint8Array only; Node's Buffer is
 * a Uint8Array, so everything here accepts it).
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** @param {string} s @returns {Uint8Array} */
export function utf8(s) {
  return encoder.encode(s);
}

/**
 * Decode UTF-8, throwing a TypeError on invalid sequences (fatal decoder).
 * @param {Uint8Array} b @returns {string}
 */
export function fromUtf8(b) {
  return decoder.decode(b);
}

/**
 * The same bytes typed for WebCrypto (TypeScript's DOM types want an
 * ArrayBuffer-backed view; ours always are).
 * @param {Uint8Array} b @returns {Uint8Array<ArrayBuffer>}
 */
export function bs(b) {
  return /** @type {Uint8Array<ArrayBuffer>} */ (b);
}

/** @param {number} n @returns {Uint8Array} n cryptographically random bytes */
export function randomBytes(n) {
  return globalThis.crypto.getRandomValues(new Uint8Array(n));
}

/**
 * Equality of two byte arrays. Not constant-time: never use it to compare
 * secrets (MACs are checked with crypto.subtle.verify).
 * @param {Uint8Array} a @param {Uint8Array} b
 */
export function bytesEqual(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** @param {Uint8Array[]} parts @returns {Uint8Array} */
export function concatBytes(parts) {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const B32 = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * RFC 4648 base32, lowercase, without padding.
 * @param {Uint8Array} b @returns {string}
 */
export function base32(b) {
  let out = '';
  let bits = 0;
  let value = 0;
  for (let i = 0; i < b.length; i++) {
    value = (value << 8) | b[i];
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= 0xff; // keep at most the 8 bits not yet consumed (bits < 5 here)
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

/** @param {Uint8Array} b @returns {string} */
export function hex(b) {
  let s = '';
  for (let i = 0; i < b.length; i++) s += b[i].toString(16).padStart(2, '0');
  return s;
}

/**
 * Base64url without padding (JWK fields).
 * @param {Uint8Array} b @returns {string}
 */
export function base64url(b) {
  let bin = '';
  for (let i = 0; i < b.length; i++) bin += String.fromCharCode(b[i]);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** @param {string} s @returns {Uint8Array} */
export function fromBase64url(s) {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * A short printable preview of bytes for log lines and error messages.
 * @param {Uint8Array} b @param {number} [max]
 */
export function preview(b, max = 16) {
  return hex(b.subarray(0, max)) + (b.length > max ? `… (${b.length} bytes)` : '');
}
