// @ts-check
/**
 * The decoder: canonical CBOR (what the core returns) to JS values, read
 * in place without copying more than the values it builds. The mapping of
 * values is stated in codec.js.
 *
 * Invariants:
 *  - Nothing is read outside [start, limit): a truncated item throws
 *    MalformedCborError, as do trailing bytes and heads that are not in
 *    their canonical form where it matters.
 *  - The decoder's state (source view, position) is module-level and set
 *    by each decodeFrom; the view over the core's memory is reused while
 *    it is the same Uint8Array, so a decode allocates only its values.
 *  - The string caches hold only strings equal to the bytes they are keyed
 *    by, so a cache hit returns the string a fresh decode would.
 */
import { MalformedCborError } from './errors.js';
import { FormalCode, TAG_FORMAL, TAG_SYMBOL } from './layout.js';
import { Formal, Simple, Sym, Tag, formal } from './cbor-values.js';

// ---- decoder ------------------------------------------------------------------------

/** @type {Uint8Array} */
let src = new Uint8Array(0);
/** @type {DataView} */
let srcView = new DataView(src.buffer);
let at = 0;
let stop = 0;
const utf8d = new TextDecoder('utf-8', { fatal: true });

function truncated() {
  return new MalformedCborError(`malformed CBOR at byte ${at}: truncated`);
}

/** The argument of a head whose additional info is ai. @param {number} ai */
function arg(ai) {
  if (ai < 24) return ai;
  let v;
  if (ai === 24) { if (at + 1 > stop) throw truncated(); v = src[at]; at += 1; }
  else if (ai === 25) { if (at + 2 > stop) throw truncated(); v = srcView.getUint16(at); at += 2; }
  else if (ai === 26) { if (at + 4 > stop) throw truncated(); v = srcView.getUint32(at); at += 4; }
  else if (ai === 27) {
    if (at + 8 > stop) throw truncated();
    const hi = srcView.getUint32(at), lo = srcView.getUint32(at + 4);
    at += 8;
    v = hi < 0x200000 ? hi * 0x100000000 + lo : (BigInt(hi) << 32n) | BigInt(lo);
  } else {
    throw new MalformedCborError(`CBOR at byte ${at - 1}: additional information ${ai} is not canonical here`);
  }
  return v;
}

/*
 * Short strings repeat (names, tags, keys): a direct-mapped cache of the
 * last string seen per hash slot saves building them again. A slot holds
 * the bytes and the string; a hit compares the bytes.
 */
const CACHE_SLOTS = 512;
const cacheBytes = new Uint8Array(CACHE_SLOTS * 16);
const cacheLen = new Uint8Array(CACHE_SLOTS);
/** @type {string[]} */
const cacheStr = new Array(CACHE_SLOTS).fill('');

/** A short ASCII string (n <= 16) from src[s, s+n), or undefined if not ASCII.
 * @param {number} s @param {number} n */
function shortAscii(s, n) {
  let h = n;
  for (let i = 0; i < n; i++) {
    const ch = src[s + i];
    if (ch >= 0x80) return undefined;
    h = (Math.imul(h, 31) + ch) | 0;
  }
  const slot = (h ^ (h >>> 9)) & (CACHE_SLOTS - 1), base = slot * 16;
  if (cacheLen[slot] === n) {
    let i = 0;
    while (i < n && cacheBytes[base + i] === src[s + i]) i++;
    if (i === n) return cacheStr[slot];
  }
  let r = '';
  for (let i = 0; i < n; i++) r += String.fromCharCode(src[s + i]);
  cacheBytes.set(src.subarray(s, s + n), base);
  cacheLen[slot] = n;
  cacheStr[slot] = r;
  return r;
}

/*
 * Strings of up to 8 bytes (most names and keys) have a second cache that
 * compares two 32-bit words instead of bytes: slot by a hash of the words,
 * hit when length and both words agree.
 */
const WORD_SLOTS = 1024;
const wordLen = new Uint8Array(WORD_SLOTS); /* length + 1; 0 = empty */
const word0 = new Int32Array(WORD_SLOTS);
const word1 = new Int32Array(WORD_SLOTS);
/** @type {string[]} */
const wordStr = new Array(WORD_SLOTS).fill('');

/**
 * A short ASCII string (n <= 8) from b[s, s+n), or undefined if not ASCII.
 * @param {Uint8Array} b @param {number} s @param {number} n
 * @returns {string | undefined}
 */
function tinyAscii(b, s, n) {
  let w0 = 0, w1 = 0;
  const k = n < 4 ? n : 4;
  for (let i = 0; i < k; i++) w0 |= b[s + i] << (i << 3);
  for (let i = 4; i < n; i++) w1 |= b[s + i] << ((i - 4) << 3);
  if (((w0 | w1) & 0x80808080) !== 0) return undefined;
  const slot = (Math.imul(w0 ^ Math.imul(w1 ^ n, 0x9e3779b1), 0x85ebca6b) >>> 22) & (WORD_SLOTS - 1);
  if (wordLen[slot] === n + 1 && word0[slot] === w0 && word1[slot] === w1) return wordStr[slot];
  let r = '';
  for (let i = 0; i < n; i++) r += String.fromCharCode(b[s + i]);
  wordLen[slot] = n + 1;
  word0[slot] = w0;
  word1[slot] = w1;
  wordStr[slot] = r;
  return r;
}

/** @param {number} n */
function text(n) {
  if (at + n > stop) throw truncated();
  const s = at;
  at += n;
  if (n <= 8) {
    const r = tinyAscii(src, s, n);
    if (r !== undefined) return r;
  } else if (n <= 16) {
    const r = shortAscii(s, n);
    if (r !== undefined) return r;
  }
  return utf8d.decode(src.subarray(s, at));
}

/** @param {Uint8Array} b @param {boolean} neg */
function bignum(b, neg) {
  let n = 0n;
  for (const x of b) n = (n << 8n) | BigInt(x);
  return neg ? -1n - n : n;
}

/** @param {number | bigint} t */
function tagged(t) {
  if (t === TAG_SYMBOL) {
    const v = dec();
    return typeof v === 'string' ? Sym.for(v) : new Tag(v, t);
  }
  if (t === TAG_FORMAL) {
    const v = dec();
    if (typeof v === 'number') return new Formal(v);
    if (Array.isArray(v) && v[0] === FormalCode.tagged) return formal.tagged(v[1]);
    return new Tag(v, t);
  }
  if (t === 2 || t === 3) {
    const v = dec();
    if (v instanceof Uint8Array) return bignum(v, t === 3);
    return new Tag(v, t);
  }
  return new Tag(dec(), Number(t));
}

/** @param {number} ai */
function simple(ai) {
  switch (ai) {
    case 20: return false;
    case 21: return true;
    case 22: return null;
    case 23: return undefined;
    case 25: { if (at + 2 > stop) throw truncated(); const h = srcView.getUint16(at); at += 2; return halfValue(h); }
    case 26: { if (at + 4 > stop) throw truncated(); const f = srcView.getFloat32(at); at += 4; return f; }
    case 27: { if (at + 8 > stop) throw truncated(); const d = srcView.getFloat64(at); at += 8; return d; }
    case 24: if (at + 1 > stop) throw truncated(); return new Simple(src[at++]);
    default: return new Simple(ai);
  }
}

/** @param {number} h */
function halfValue(h) {
  const e = (h >> 10) & 31, m = h & 1023, s = h & 0x8000 ? -1 : 1;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m === 0 ? s * Infinity : NaN;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/**
 * One item. The common cases are decided on the first byte; the rest go
 * through decRest.
 * @returns {unknown}
 */
function dec() {
  if (at >= stop) throw truncated();
  const ib = src[at++];
  if (ib < 0x18) return ib; /* small unsigned integer */
  if (ib >= 0x60 && ib < 0x78) return text(ib & 31); /* short text */
  if (ib >= 0x80 && ib < 0x98) return array(ib & 31); /* short array */
  return decRest(ib);
}

/** @param {number} len @returns {unknown[]} */
function array(len) {
  if (len > stop - at) throw truncated();
  const a = new Array(len);
  for (let i = 0; i < len; i++) a[i] = dec();
  return a;
}

/** @param {number} ib the initial byte (already consumed) @returns {unknown} */
function decRest(ib) {
  const major = ib >> 5, ai = ib & 31;
  if (major === 7) return simple(ai);
  const n = arg(ai);
  switch (major) {
    case 0: return n;
    case 1: return typeof n === 'number' && n < Number.MAX_SAFE_INTEGER ? -1 - n : -1n - BigInt(n);
    case 2: {
      const len = Number(n);
      if (at + len > stop) throw truncated();
      at += len;
      return src.slice(at - len, at);
    }
    case 3: return text(Number(n));
    case 4: return array(Number(n));
    case 5: {
      const len = Number(n), m = new Map();
      if (len > stop - at) throw truncated();
      for (let i = 0; i < len; i++) { const k = dec(); m.set(k, dec()); }
      return m;
    }
    default: return tagged(n);
  }
}

/**
 * The common result on its own: an array (fewer than 24 elements) of
 * integers below 2^32 in magnitude, short ASCII strings, booleans and null,
 * decoded in one loop. Returns undefined (having changed nothing) when some
 * element needs the general decoder, which then decodes the whole item.
 * @param {Uint8Array} b
 * @param {number} p the array's initial byte, 0x80..0x97
 * @param {number} limit
 * @returns {unknown[] | undefined}
 */
function decodeFlat(b, p, limit) {
  const n = b[p++] & 31;
  if (n > limit - p) return undefined;
  const a = new Array(n);
  for (let i = 0; i < n; i++) {
    if (p >= limit) return undefined;
    const ib = b[p];
    if (ib < 0x18) { a[i] = ib; p++; continue; }
    if (ib >= 0x60 && ib <= 0x68) { /* text of up to 8 bytes */
      const m = ib - 0x60;
      if (p + 1 + m > limit) return undefined;
      const t = tinyAscii(b, p + 1, m);
      if (t === undefined) return undefined;
      a[i] = t;
      p += 1 + m;
      continue;
    }
    const major = ib >> 5, ai = ib & 31;
    if (major <= 1) { /* integers */
      let v;
      if (ai < 24) { v = ai; p += 1; }
      else if (ai === 24) { if (p + 2 > limit) return undefined; v = b[p + 1]; p += 2; }
      else if (ai === 25) { if (p + 3 > limit) return undefined; v = (b[p + 1] << 8) | b[p + 2]; p += 3; }
      else if (ai === 26) {
        if (p + 5 > limit) return undefined;
        v = b[p + 1] * 0x1000000 + ((b[p + 2] << 16) | (b[p + 3] << 8) | b[p + 4]);
        p += 5;
      } else return undefined;
      a[i] = major === 0 ? v : -1 - v;
      continue;
    }
    if (ib === 0xf4) a[i] = false;
    else if (ib === 0xf5) a[i] = true;
    else if (ib === 0xf6) a[i] = null;
    else return undefined;
    p++;
  }
  return p === limit ? a : undefined;
}

/**
 * Decode the canonical CBOR item in bytes[start, limit).
 * @param {Uint8Array} bytes
 * @param {number} [start]
 * @param {number} [limit]
 * @returns {unknown}
 */
export function decodeFrom(bytes, start = 0, limit = bytes.length) {
  const ib = bytes[start];
  if (ib >= 0x80 && ib < 0x98 && start < limit) {
    const a = decodeFlat(bytes, start, limit);
    if (a !== undefined) return a;
  }
  if (src !== bytes) { /* the core passes the same view each time: no allocation */
    srcView = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    src = bytes;
  }
  at = start;
  stop = limit;
  const v = dec();
  if (at !== limit) throw new MalformedCborError(`CBOR: ${limit - at} trailing bytes after the item`);
  return v;
}

/**
 * Decode canonical CBOR bytes (as returned by the core's byte-level calls).
 * @param {Uint8Array} bytes
 * @returns {unknown}
 */
export function decode(bytes) {
  return decodeFrom(bytes, 0, bytes.length);
}
