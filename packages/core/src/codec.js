// @ts-check
/**
 * The JS <-> CBOR codec of @termite/core.
 *
 * The encoder writes straight into a byte view (the core's transfer area)
 * and produces the deterministic encoding of RFC 8949 §4.2.1 for
 * everything but map key order (the core sorts maps when it
 * canonicalises, so maps take its slow path; everything else is used in
 * place). It handles numbers, bigints, strings, booleans, null, undefined,
 * Uint8Array, arrays, Maps, plain objects, Sym, Formal, Float and cbor-x
 * Tag; any other object (Date, Set, typed arrays, ...) is handed to cbor-x.
 *
 * The decoder reads canonical CBOR (what the core returns) without copying
 * more than the values it builds.
 *
 * JS -> CBOR: integral numbers -> integers (beyond 2^53 via bigint, so
 * exact), other numbers -> the shortest float that holds them exactly,
 * Float(x) -> float, bigint -> integer or bignum (tags 2/3), string ->
 * text, Uint8Array -> bytes, Array -> array, Map / plain object -> map,
 * Sym -> tag 40960, Formal -> tag 40992, Tag(v, n) -> tag n,
 * true/false/null/undefined -> simple values.
 * CBOR -> JS: integers -> number when safe, else bigint; floats -> number;
 * text -> string; bytes -> Uint8Array (a copy); arrays -> Array; maps ->
 * Map; tag 40960 -> Sym; tag 40992 -> Formal; tags 2/3 -> bigint; other
 * tags -> Tag.
 */
import { Encoder, Tag } from 'cbor-x';
import { EncodeError, MalformedCborError } from './errors.js';
import { FormalCode, TAG_FORMAL, TAG_SYMBOL } from './layout.js';

export { Tag };

/** A Scheme-style symbol (CBOR tag 40960 around its name). Interned. */
export class Sym {
  /** @param {string} name */
  constructor(name) {
    /** The symbol's name. */
    this.name = name;
    Object.freeze(this);
  }

  /**
   * The one Sym with this name.
   * @param {string} name
   * @returns {Sym}
   */
  static for(name) {
    let s = symbols.get(name);
    if (s === undefined) {
      s = new Sym(String(name));
      /* bounded, so peers cannot grow it without limit; compare by name */
      if (symbols.size < 65536) symbols.set(name, s);
    }
    return s;
  }

  toString() { return this.name; }
}

/** @type {Map<string, Sym>} */
const symbols = new Map();

/** A Linda formal: matches any field of its type (CBOR tag 40992). */
export class Formal {
  /**
   * @param {number} code a FormalCode
   * @param {number | bigint} [tag] for code 11 (tagged): the tag number
   */
  constructor(code, tag) {
    /** The type code (docs/wire-format.md). */
    this.code = code;
    /** For `tagged` formals, the tag number; otherwise undefined. */
    this.tag = tag;
    Object.freeze(this);
  }
}

/** Forces a number to be encoded as a float (for integral values). */
export class Float {
  /** @param {number} value */
  constructor(value) {
    /** The number. */
    this.value = Number(value);
    Object.freeze(this);
  }
}

/** @param {number} value @returns {Float} a number that encodes as a float */
export function float(value) { return new Float(value); }

/** An unassigned CBOR simple value (major type 7), kept as a number. */
export class Simple {
  /** @param {number} value 0..19 or 32..255 */
  constructor(value) {
    /** The simple value. */
    this.value = value;
    Object.freeze(this);
  }
}

/** @type {Map<number | bigint, Formal>} */
const taggedFormals = new Map();

/**
 * Formals for templates: `space.inp(['point', formal.integer, formal.any])`.
 * `formal.tagged(n)` matches any value carrying CBOR tag n.
 */
export const formal = Object.freeze({
  any: new Formal(FormalCode.any),
  integer: new Formal(FormalCode.integer),
  number: new Formal(FormalCode.number),
  float: new Formal(FormalCode.float),
  string: new Formal(FormalCode.string),
  symbol: new Formal(FormalCode.symbol),
  bytes: new Formal(FormalCode.bytes),
  boolean: new Formal(FormalCode.boolean),
  array: new Formal(FormalCode.array),
  map: new Formal(FormalCode.map),
  null: new Formal(FormalCode.null),
  /** @param {number | bigint} n @returns {Formal} */
  tagged(n) {
    let f = taggedFormals.get(n);
    if (f === undefined) {
      f = new Formal(FormalCode.tagged, n);
      if (taggedFormals.size < 1024) taggedFormals.set(n, f);
    }
    return f;
  },
});

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
const fallback = new Encoder({ useRecords: false, tagUint8Array: false, mapsAsObjects: false, pack: false });

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
  let bytes;
  try {
    bytes = fallback.encode(v);
  } catch (e) {
    throw new EncodeError(`cannot encode ${Object.prototype.toString.call(v)} as CBOR: ${/** @type {Error} */ (e).message}`);
  }
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
