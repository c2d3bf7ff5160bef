// @ts-check
/**
 * The encoder: JS values to CBOR, written straight into a byte view (the
 * core's transfer area), in the deterministic encoding of RFC 8949 §4.2.1
 * for everything but map key order (the core sorts maps when it
 * canonicalises, so maps take its slow path; everything else is used in
 * place). The mapping of values is stated in codec.js.
 *
 * Invariants:
 *  - Nothing is written past `limit`: a value that does not fit makes
 *    encodeInto return -1 (the caller grows the area and retries, or uses
 *    encode), never a partial length.
 *  - The encoder's state (target, position, depth) is module-level and set
 *    by each encodeInto before anything is written; encoding does not
 *    re-enter itself (the cbor-x fallback writes into its own buffer).
 *  - Nesting deeper than MAX_DEPTH throws EncodeError (a cyclic value).
 */
import { EncodeError } from './errors.js';
import { fallbackEncode } from './fallback.js';
import { FormalCode } from './layout.js';
import { Float, Formal, Simple, Sym, Tag } from './cbor-values.js';

// ---- encoder state: the target view and position ------------------------------

/** Thrown (never escapes this module) when the target is full. */
const FULL = { full: true };
const MAX_DEPTH = 512;

/** @type {Uint8Array} */
let out = new Uint8Array(0);
/** @type {DataView} */
let view = new DataView(out.buffer);
let pos = 0;
let end = 0;
let depth = 0;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const utf8 = new TextEncoder();

/** @param {number} n bytes about to be written */
function room(n) {
  if (pos + n > end) throw FULL;
}

/** @param {number} major @param {number} n an integer 0 <= n < 2^53 */
function head(major, n) {
  const mt = major << 5;
  if (n < 24) { room(1); out[pos++] = mt | n; }
  else if (n < 0x100) { room(2); out[pos++] = mt | 24; out[pos++] = n; }
  else if (n < 0x10000) { room(3); out[pos++] = mt | 25; out[pos++] = n >> 8; out[pos++] = n & 0xff; }
  else if (n < 0x100000000) { room(5); out[pos] = mt | 26; view.setUint32(pos + 1, n); pos += 5; }
  else {
    room(9);
    out[pos] = mt | 27;
    view.setUint32(pos + 1, Math.floor(n / 0x100000000));
    view.setUint32(pos + 5, n >>> 0);
    pos += 9;
  }
}

/** @param {number} major @param {bigint} n 0 <= n < 2^64 */
function bigHead(major, n) {
  if (n < 0x20000000000000n) { head(major, Number(n)); return; }
  room(9);
  out[pos] = (major << 5) | 27;
  view.setBigUint64(pos + 1, n);
  pos += 9;
}

/**
 * binary16 bits of v if v (not NaN) is exactly a half, else -1.
 * @param {number} v
 */
function halfBits(v) {
  f32[0] = v;
  if (f32[0] !== v) return -1; /* not even a float32 */
  const b = u32[0], sign = (b >>> 16) & 0x8000, exp = (b >>> 23) & 0xff, man = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00; /* infinity */
  if (exp === 0) return man === 0 ? sign : -1;
  const e = exp - 127;
  if (e >= -14 && e <= 15) return (man & 0x1fff) === 0 ? sign | ((e + 15) << 10) | (man >>> 13) : -1;
  if (e >= -24 && e < -14) {
    const full = man | 0x800000, shift = -(e + 1);
    return (full & ((1 << shift) - 1)) === 0 ? sign | (full >>> shift) : -1;
  }
  return -1;
}

/** Shortest exact float. @param {number} v */
function encFloat(v) {
  if (v !== v) { room(3); out[pos++] = 0xf9; out[pos++] = 0x7e; out[pos++] = 0; return; }
  const h = halfBits(v);
  if (h >= 0) { room(3); out[pos++] = 0xf9; out[pos++] = h >> 8; out[pos++] = h & 0xff; return; }
  if (Math.fround(v) === v) { room(5); out[pos] = 0xfa; view.setFloat32(pos + 1, v); pos += 5; return; }
  room(9);
  out[pos] = 0xfb;
  view.setFloat64(pos + 1, v);
  pos += 9;
}

/** @param {bigint} v */
function encBigint(v) {
  const neg = v < 0n, n = neg ? -1n - v : v;
  if (n < 0x10000000000000000n) { bigHead(neg ? 1 : 0, n); return; }
  let hex = n.toString(16);
  if (hex.length & 1) hex = `0${hex}`;
  room(3);
  out[pos++] = neg ? 0xc3 : 0xc2;
  head(2, hex.length / 2);
  room(hex.length / 2);
  for (let i = 0; i < hex.length; i += 2) out[pos++] = parseInt(hex.slice(i, i + 2), 16);
}

/** @param {number} v */
function encNumber(v) {
  if (Number.isInteger(v)) {
    if (v >= 0) {
      if (v <= Number.MAX_SAFE_INTEGER) head(0, v);
      else encBigint(BigInt(v));
    } else if (v >= -Number.MAX_SAFE_INTEGER) {
      head(1, -1 - v);
    } else {
      encBigint(BigInt(v));
    }
  } else {
    encFloat(v);
  }
}

/** @param {string} s */
function encString(s) {
  const n = s.length;
  if (n < 24) { /* optimistic ASCII: one-byte head, one byte per char */
    room(1 + n);
    let p = pos + 1, i = 0;
    for (; i < n; i++) {
      const ch = s.charCodeAt(i);
      if (ch >= 0x80) break;
      out[p++] = ch;
    }
    if (i === n) { out[pos] = 0x60 | n; pos = p; return; }
  }
  /* general case: reserve the widest head the bytes may need, then close
   * the gap if the real head is shorter */
  const max = 3 * n, hw = max < 24 ? 1 : max < 0x100 ? 2 : max < 0x10000 ? 3 : 5;
  room(hw + max);
  const { written } = utf8.encodeInto(s, out.subarray(pos + hw, pos + hw + max));
  const start = pos;
  head(3, written);
  if (pos !== start + hw) out.copyWithin(pos, start + hw, start + hw + written);
  pos += written;
}

/** @param {Uint8Array} b */
function encBytes(b) {
  head(2, b.length);
  room(b.length);
  out.set(b, pos);
  pos += b.length;
}

/** @param {Formal} f */
function encFormal(f) {
  room(3);
  out[pos++] = 0xd9; out[pos++] = 0xa0; out[pos++] = 0x20;
  /* a tagged formal without a tag stays malformed: the core says so */
  if (f.code !== FormalCode.tagged || f.tag === undefined) { head(0, f.code); return; }
  room(2);
  out[pos++] = 0x82;
  out[pos++] = FormalCode.tagged;
  const t = f.tag;
  if (typeof t === 'bigint') bigHead(0, t);
  else head(0, t);
}

/** @param {unknown[]} a */
function encArray(a) {
  head(4, a.length);
  for (let i = 0; i < a.length; i++) enc(a[i]);
}

/** @param {Map<unknown, unknown>} m */
function encMap(m) {
  head(5, m.size);
  for (const [k, v] of m) { enc(k); enc(v); }
}

/** @param {Record<string, unknown>} o */
function encObject(o) {
  const keys = Object.keys(o);
  head(5, keys.length);
  for (const k of keys) { encString(k); enc(o[k]); }
}

/** Objects the fast path does not know: cbor-x encodes them. @param {object} v */
function encOther(v) {
  const bytes = fallbackEncode(v);
  room(bytes.length);
  out.set(bytes, pos);
  pos += bytes.length;
}

/** @param {object} v */
function encObjectish(v) {
  if (Array.isArray(v)) return encArray(v);
  if (v instanceof Sym) { room(3); out[pos++] = 0xd9; out[pos++] = 0xa0; out[pos++] = 0; return encString(v.name); }
  if (v instanceof Formal) return encFormal(v);
  if (v instanceof Uint8Array) return encBytes(v);
  if (v instanceof Float) return encFloat(v.value);
  if (v instanceof Simple) return head(7, v.value);
  if (v instanceof Map) return encMap(v);
  if (v instanceof Tag) {
    const t = /** @type {number | bigint} */ (/** @type {any} */ (v).tag);
    if (typeof t === 'bigint') bigHead(6, t);
    else head(6, t);
    return enc(v.value);
  }
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) return encObject(/** @type {Record<string, unknown>} */ (v));
  return encOther(v);
}

/** @param {unknown} v */
function enc(v) {
  switch (typeof v) {
    case 'number': return encNumber(v);
    case 'string': return encString(v);
    case 'boolean': room(1); out[pos++] = v ? 0xf5 : 0xf4; return;
    case 'bigint': return encBigint(v);
    case 'undefined': room(1); out[pos++] = 0xf7; return;
    case 'object':
      if (v === null) { room(1); out[pos++] = 0xf6; return; }
      if (++depth > MAX_DEPTH) throw new EncodeError(`value nested deeper than ${MAX_DEPTH} levels (is it cyclic?)`);
      encObjectish(v);
      depth--;
      return;
    default:
      throw new EncodeError(`cannot encode a ${typeof v} as CBOR`);
  }
}

/**
 * The common case on its own: an array of small integers, short ASCII
 * strings, formals, booleans and null, written inline without calls.
 * Returns the end offset, or -1 if some element needs the general encoder
 * or the target is too small (the caller then uses encodeInto).
 * @param {unknown[]} a
 * @param {Uint8Array} t
 * @param {number} p
 * @param {number} limit
 * @returns {number}
 */
function encodeFlat(a, t, p, limit) {
  const n = a.length;
  if (n >= 24 || p + 1 + n * 25 > limit) return -1;
  t[p++] = 0x80 | n;
  for (let i = 0; i < n; i++) {
    const v = a[i];
    if (typeof v === 'string') {
      const len = v.length;
      if (len >= 24) return -1;
      t[p++] = 0x60 | len;
      if (len <= 8 && len > 0) {
        const slot = (len << 3 ^ v.charCodeAt(0)) & (ENC_SLOTS - 1);
        if (encStr[slot] !== v && !encRemember(v, len, slot)) return -1;
        const w0 = encW0[slot], w1 = encW1[slot];
        t[p] = w0; t[p + 1] = w0 >>> 8; t[p + 2] = w0 >>> 16; t[p + 3] = w0 >>> 24;
        if (len > 4) { t[p + 4] = w1; t[p + 5] = w1 >>> 8; t[p + 6] = w1 >>> 16; t[p + 7] = w1 >>> 24; }
        p += len;
        continue;
      }
      for (let j = 0; j < len; j++) {
        const ch = v.charCodeAt(j);
        if (ch >= 0x80) return -1;
        t[p++] = ch;
      }
    } else if (typeof v === 'number' && v >= 0 && v < 0x100 && (v | 0) === v) {
      if (v < 24) t[p++] = v;
      else { t[p++] = 0x18; t[p++] = v; }
    } else {
      p = flatRest(v, t, p);
      if (p < 0) return -1;
    }
  }
  return p;
}

/*
 * Short strings repeat (names, tags): encodeFlat keeps the bytes of the
 * last ASCII string of up to 8 characters per slot (by length and first
 * character) as two words, so writing one again needs no charCodeAt loop.
 * Bytes past the string's length are written too (from the word) and then
 * overwritten or left past the end.
 */
const ENC_SLOTS = 64;
/** @type {string[]} */
const encStr = new Array(ENC_SLOTS).fill('');
const encW0 = new Int32Array(ENC_SLOTS);
const encW1 = new Int32Array(ENC_SLOTS);

/** Remember ASCII v (1..8 chars) in slot; false if v is not ASCII.
 * @param {string} v @param {number} len @param {number} slot */
function encRemember(v, len, slot) {
  let w0 = 0, w1 = 0;
  for (let j = 0; j < len; j++) {
    const ch = v.charCodeAt(j);
    if (ch >= 0x80) return false;
    if (j < 4) w0 |= ch << (j << 3);
    else w1 |= ch << ((j - 4) << 3);
  }
  encStr[slot] = v;
  encW0[slot] = w0;
  encW1[slot] = w1;
  return true;
}

/**
 * encodeFlat's less common elements (kept apart so encodeFlat stays small
 * enough for V8 to inline): wider and negative integers, formals, booleans,
 * null. Returns the new offset, or -1 for anything else.
 * @param {unknown} v @param {Uint8Array} t @param {number} p
 * @returns {number}
 */
function flatRest(v, t, p) {
  if (typeof v === 'number') {
    if (v >= 0 && v < 0x10000 && (v | 0) === v) {
      if (v < 24) t[p++] = v;
      else if (v < 0x100) { t[p++] = 0x18; t[p++] = v; }
      else { t[p++] = 0x19; t[p++] = v >> 8; t[p++] = v & 0xff; }
    } else if (v < 0 && v >= -0x10000 && (v | 0) === v) {
      const m = -1 - v;
      if (m < 24) t[p++] = 0x20 | m;
      else if (m < 0x100) { t[p++] = 0x38; t[p++] = m; }
      else { t[p++] = 0x39; t[p++] = m >> 8; t[p++] = m & 0xff; }
    } else {
      return -1;
    }
  } else if (v instanceof Formal) {
    if (v.code >= 24 || v.code === FormalCode.tagged) return -1;
    t[p++] = 0xd9; t[p++] = 0xa0; t[p++] = 0x20; t[p++] = v.code;
  } else if (v === true) { t[p++] = 0xf5; }
  else if (v === false) { t[p++] = 0xf4; }
  else if (v === null) { t[p++] = 0xf6; }
  else { return -1; }
  return p;
}

/**
 * Encode `value` into target[start, limit). Returns the end offset, or -1
 * if it does not fit (nothing useful is left in the target then).
 * @param {unknown} value
 * @param {Uint8Array} target
 * @param {DataView} targetView a DataView over target's buffer
 * @param {number} start
 * @param {number} limit
 * @returns {number}
 */
export function encodeInto(value, target, targetView, start, limit) {
  if (Array.isArray(value)) {
    const e = encodeFlat(value, target, start, limit);
    if (e >= 0) return e;
  }
  out = target;
  view = targetView;
  pos = start;
  end = limit;
  depth = 0;
  try {
    enc(value);
    return pos;
  } catch (e) {
    if (e === FULL) return -1;
    throw e;
  }
}

/**
 * Encode a value into a new Uint8Array (any size).
 * @param {unknown} value
 * @returns {Uint8Array}
 */
export function encode(value) {
  for (let size = 256; ; size *= 4) {
    const buf = new Uint8Array(size);
    const n = encodeInto(value, buf, new DataView(buf.buffer), 0, size);
    if (n >= 0) return buf.slice(0, n);
    if (size > 1 << 30) throw new EncodeError('value too large to encode');
  }
}
