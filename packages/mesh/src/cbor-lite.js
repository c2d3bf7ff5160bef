// @ts-check
/**
 * A strict, minimal CBOR (RFC 8949) writer and reader for frame envelopes.
 *
 * Why not cbor-x here: envelopes are small fixed shapes (arrays of unsigned
 * integers, byte strings, text strings, booleans, null), and the reader faces
 * hostile bytes. A reader that accepts exactly those shapes — definite lengths
 * only, no tags, no floats, no maps, nesting depth bounded by the caller's
 * shape — gives precise errors ("truncated: byte string of 300 bytes at
 * offset 5, 12 bytes left") and cannot be driven into deep recursion or large
 * allocations: byte strings are returned as views into the input, so decoding
 * allocates nothing proportional to the input. Payloads stay opaque byte
 * strings: the runtime's CBOR is never decoded or re-encoded by the mesh.
 *
 * The writer emits the deterministic encoding of RFC 8949 §4.2.1 (shortest
 * heads, definite lengths), as docs/wire-format.md requires.
 *
 * It is also faster where it matters. Measured with `node bench/mesh-envelope-codec.js`
 * (encode + decode of one frame, median of 9 rounds of 100,000, CPU time, Node 20 on
 * the 2-core development machine; cbor-x 1.6.0 with useRecords, tagUint8Array and
 * pack off, decoding without any shape check), in ns, the range of two runs:
 *
 *   frame               cbor-lite   cbor-x
 *   MSG, 40 B payload      103-158     1226-1249   the message hot path
 *   MSG, 4 KiB payload    1517-1814     1691-1736   (the payload copy dominates)
 *   REQ, 40 B payload      408-410      732-752
 *   RES, 40 B payload      354-510      742-755
 *   HELLO                 3981-4662     1746-2785   once per link, fully validated
 *
 * So the mesh keeps this codec and does not use cbor-x.
 */
import { MalformedFrameError, UnknownTagError } from './errors.js';
import { fromUtf8 } from './bytes.js';

export const MAJOR_UINT = 0;
export const MAJOR_NEGINT = 1;
export const MAJOR_BYTES = 2;
export const MAJOR_TEXT = 3;
export const MAJOR_ARRAY = 4;
export const MAJOR_MAP = 5;
export const MAJOR_TAG = 6;
export const MAJOR_SIMPLE = 7;

const MAJOR_NAMES = ['unsigned integer', 'negative integer', 'byte string', 'text string', 'array', 'map', 'tag', 'simple value or float'];

const textEncoder = new TextEncoder();

/**
 * Number of bytes of the head (initial byte + argument) for `value`.
 * @param {number} value a non-negative safe integer
 */
export function headSize(value) {
  if (value < 24) return 1;
  if (value < 0x100) return 2;
  if (value < 0x10000) return 3;
  if (value < 0x100000000) return 5;
  return 9;
}

/**
 * Write a head into `buf` at `at`; returns the offset after it.
 * @param {Uint8Array} buf @param {number} at @param {number} major @param {number} value
 */
export function writeHead(buf, at, major, value) {
  const m = major << 5;
  if (value < 24) {
    buf[at] = m | value;
    return at + 1;
  }
  if (value < 0x100) {
    buf[at] = m | 24;
    buf[at + 1] = value;
    return at + 2;
  }
  if (value < 0x10000) {
    buf[at] = m | 25;
    buf[at + 1] = value >>> 8;
    buf[at + 2] = value & 0xff;
    return at + 3;
  }
  if (value < 0x100000000) {
    buf[at] = m | 26;
    buf[at + 1] = value >>> 24;
    buf[at + 2] = (value >>> 16) & 0xff;
    buf[at + 3] = (value >>> 8) & 0xff;
    buf[at + 4] = value & 0xff;
    return at + 5;
  }
  buf[at] = m | 27;
  const hi = Math.floor(value / 0x100000000);
  const lo = value >>> 0;
  buf[at + 1] = hi >>> 24;
  buf[at + 2] = (hi >>> 16) & 0xff;
  buf[at + 3] = (hi >>> 8) & 0xff;
  buf[at + 4] = hi & 0xff;
  buf[at + 5] = lo >>> 24;
  buf[at + 6] = (lo >>> 16) & 0xff;
  buf[at + 7] = (lo >>> 8) & 0xff;
  buf[at + 8] = lo & 0xff;
  return at + 9;
}

/**
 * A growable writer for envelopes that are not on the hot path (handshake,
 * control frames). Invariant: `buf[0..pos)` holds the bytes written so far.
 */
export class Writer {
  /** @param {number} [capacity] */
  constructor(capacity = 64) {
    this.buf = new Uint8Array(capacity);
    this.pos = 0;
  }

  /** @param {number} n bytes about to be written */
  #ensure(n) {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** @param {number} major @param {number} value */
  head(major, value) {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`CBOR head argument ${value} is not a non-negative safe integer`);
    this.#ensure(9);
    this.pos = writeHead(this.buf, this.pos, major, value);
    return this;
  }

  /** @param {number} n */
  array(n) { return this.head(MAJOR_ARRAY, n); }

  /** @param {number} v */
  uint(v) { return this.head(MAJOR_UINT, v); }

  /** @param {Uint8Array} b */
  bytes(b) {
    this.head(MAJOR_BYTES, b.length);
    this.#ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  /** @param {string} s */
  text(s) {
    const b = textEncoder.encode(s);
    this.head(MAJOR_TEXT, b.length);
    this.#ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  /** @param {boolean} v */
  bool(v) {
    this.#ensure(1);
    this.buf[this.pos++] = v ? 0xf5 : 0xf4;
    return this;
  }

  null() {
    this.#ensure(1);
    this.buf[this.pos++] = 0xf6;
    return this;
  }

  /** @param {string | null} s */
  textOrNull(s) { return s === null ? this.null() : this.text(s); }

  /** @returns {Uint8Array} exactly the bytes written (a copy sized to fit) */
  finish() {
    return this.buf.slice(0, this.pos);
  }
}

/**
 * A strict reader over `buf[start..end)`. Every method either returns a value
 * of the asked shape and advances, or throws MalformedFrameError /
 * UnknownTagError naming the offset and what was expected. `what` names the
 * field for the message ("HELLO nonce").
 */
export class Reader {
  /** @param {Uint8Array} buf @param {number} [start] @param {number} [end] */
  constructor(buf, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  atEnd() { return this.pos >= this.end; }

  /** Major type of the next item, without consuming it. */
  peekMajor() {
    if (this.pos >= this.end) throw new MalformedFrameError(`truncated frame: expected another item at byte ${this.pos}`);
    return this.buf[this.pos] >> 5;
  }

  /** True if the next item is null (0xf6). */
  peekNull() {
    return this.pos < this.end && this.buf[this.pos] === 0xf6;
  }

  /**
   * Read a head of the given major type; returns its argument.
   * @param {number} major @param {string} what
   */
  head(major, what) {
    const at = this.pos;
    if (at >= this.end) throw new MalformedFrameError(`truncated frame: ${what} expected at byte ${at}, no bytes left`);
    const ib = this.buf[at];
    const got = ib >> 5;
    const info = ib & 31;
    if (got === MAJOR_TAG) {
      // Read the tag number for the message, then refuse: envelopes carry no tags.
      this.pos = at + 1;
      const tag = info < 24 ? info : this.#argument(info, at, 'tag number');
      throw new UnknownTagError(tag, at);
    }
    if (got !== major) {
      throw new MalformedFrameError(`${what}: expected ${MAJOR_NAMES[major]} at byte ${at}, found ${MAJOR_NAMES[got]} (0x${ib.toString(16).padStart(2, '0')})`);
    }
    this.pos = at + 1;
    if (info < 24) return info;
    return this.#argument(info, at, what);
  }

  /** @param {number} info @param {number} at @param {string} what */
  #argument(info, at, what) {
    if (info === 31) throw new MalformedFrameError(`${what}: indefinite length at byte ${at} (frames use definite lengths only)`);
    if (info > 27) throw new MalformedFrameError(`${what}: reserved additional information ${info} at byte ${at}`);
    const n = 1 << (info - 24); // 1, 2, 4 or 8 bytes
    if (this.pos + n > this.end) throw new MalformedFrameError(`truncated frame: ${what} head at byte ${at} needs ${n} more bytes, ${this.end - this.pos} left`);
    const b = this.buf;
    const p = this.pos;
    let v;
    if (n === 1) v = b[p];
    else if (n === 2) v = (b[p] << 8) | b[p + 1];
    else if (n === 4) v = ((b[p] << 24) >>> 0) + ((b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]);
    else {
      const hi = ((b[p] << 24) >>> 0) + ((b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]);
      const lo = ((b[p + 4] << 24) >>> 0) + ((b[p + 5] << 16) | (b[p + 6] << 8) | b[p + 7]);
      if (hi > 0x1fffff) throw new MalformedFrameError(`${what}: integer at byte ${at} exceeds 2^53 - 1`);
      v = hi * 0x100000000 + lo;
    }
    this.pos = p + n;
    return v;
  }

  /** @param {string} what @returns {number} */
  uint(what) { return this.head(MAJOR_UINT, what); }

  /**
   * A byte string, returned as a view into the input (no copy).
   * @param {string} what @returns {Uint8Array}
   */
  bytes(what) {
    const at = this.pos;
    const n = this.head(MAJOR_BYTES, what);
    if (n > this.end - this.pos) throw new MalformedFrameError(`truncated frame: ${what} at byte ${at} declares ${n} bytes, ${this.end - this.pos} left`);
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  /**
   * A text string of at most `maxBytes` UTF-8 bytes.
   * @param {string} what @param {number} [maxBytes] @returns {string}
   */
  text(what, maxBytes = 65536) {
    const at = this.pos;
    const n = this.head(MAJOR_TEXT, what);
    if (n > this.end - this.pos) throw new MalformedFrameError(`truncated frame: ${what} at byte ${at} declares ${n} bytes, ${this.end - this.pos} left`);
    if (n > maxBytes) throw new MalformedFrameError(`${what} at byte ${at} is ${n} bytes long, the limit is ${maxBytes}`);
    let s;
    try {
      s = fromUtf8(this.buf.subarray(this.pos, this.pos + n));
    } catch {
      throw new MalformedFrameError(`${what} at byte ${at} is not valid UTF-8`);
    }
    this.pos += n;
    return s;
  }

  /** @param {string} what @param {number} [maxBytes] @returns {string | null} */
  textOrNull(what, maxBytes) {
    if (this.peekNull()) {
      this.pos++;
      return null;
    }
    return this.text(what, maxBytes);
  }

  /** @param {string} what @returns {boolean} */
  bool(what) {
    const at = this.pos;
    if (at >= this.end) throw new MalformedFrameError(`truncated frame: ${what} expected at byte ${at}, no bytes left`);
    const b = this.buf[at];
    if (b === 0xf5 || b === 0xf4) {
      this.pos++;
      return b === 0xf5;
    }
    if (b >> 5 === MAJOR_TAG) this.head(MAJOR_SIMPLE, what); // throws UnknownTagError
    throw new MalformedFrameError(`${what}: expected true or false at byte ${at}, found 0x${b.toString(16).padStart(2, '0')}`);
  }

  /**
   * An array head; returns the element count, checked against [min, max].
   * @param {string} what @param {number} min @param {number} max
   */
  array(what, min, max) {
    const at = this.pos;
    const n = this.head(MAJOR_ARRAY, what);
    if (n < min || n > max) {
      throw new MalformedFrameError(`${what} at byte ${at} has ${n} elements, expected ${min === max ? min : `${min} to ${max}`}`);
    }
    return n;
  }

  /** Fail unless every byte was consumed. @param {string} what */
  expectEnd(what) {
    if (this.pos !== this.end) throw new MalformedFrameError(`${what}: ${this.end - this.pos} trailing bytes after byte ${this.pos}`);
  }
}
