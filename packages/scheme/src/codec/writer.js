// @ts-check
/**
 * The CBOR writer of the value codec: a growable byte buffer with the CBOR primitives
 * (RFC 8949) in deterministic form — shortest argument encoding, definite lengths,
 * floats in their shortest exact width — and SlabWriter, which writes many short-lived
 * encodings into one shared buffer. Used by the codec's encoders (encode.js, emit.js),
 * and by the runtime for the cached heads of its SEND frames.
 *
 * Invariants: the same calls always write the same bytes, so the same value always
 * gives the same encoding (hashes of IR depend on it); integers given to head() are
 * non-negative safe integers; a SlabWriter's encoding is a view of its slab that stays
 * valid after later encodings (they are written after it, or in a new slab); one that
 * outgrew the slab has a buffer of its own with HEADROOM free bytes in front of it, which
 * its holder may overwrite (spareBefore).
 */

const f32 = new Float32Array(1);
const f64 = new Float64Array(1);
const f64bytes = new Uint8Array(f64.buffer);
const textEncoder = new TextEncoder();

export class CborWriter {
  constructor(initial = 256) {
    this.buf = new Uint8Array(initial);
    this.pos = 0;
  }

  /** @param {number} n bytes about to be written */
  ensure(n) {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** The bytes written so far (a copy). */
  bytes() {
    return this.buf.slice(0, this.pos);
  }

  /** A position to take the bytes written after it from (since), valid while the buffer grows. */
  mark() {
    return this.pos;
  }

  /** A copy of the bytes written after `mark`. @param {number} mark */
  since(mark) {
    return this.buf.slice(mark, this.pos);
  }

  /**
   * Major type + argument, shortest form. `n` is a non-negative safe integer.
   * @param {number} major 0..7 @param {number} n
   */
  head(major, n) {
    const m = major << 5;
    this.ensure(9);
    const b = this.buf;
    if (n < 24) {
      b[this.pos++] = m | n;
    } else if (n < 0x100) {
      b[this.pos++] = m | 24;
      b[this.pos++] = n;
    } else if (n < 0x10000) {
      b[this.pos++] = m | 25;
      b[this.pos++] = n >>> 8;
      b[this.pos++] = n & 0xff;
    } else if (n < 0x100000000) {
      b[this.pos++] = m | 26;
      b[this.pos++] = n >>> 24;
      b[this.pos++] = (n >>> 16) & 0xff;
      b[this.pos++] = (n >>> 8) & 0xff;
      b[this.pos++] = n & 0xff;
    } else {
      b[this.pos++] = m | 27;
      const hi = Math.floor(n / 0x100000000);
      const lo = n >>> 0;
      b[this.pos++] = hi >>> 24;
      b[this.pos++] = (hi >>> 16) & 0xff;
      b[this.pos++] = (hi >>> 8) & 0xff;
      b[this.pos++] = hi & 0xff;
      b[this.pos++] = lo >>> 24;
      b[this.pos++] = (lo >>> 16) & 0xff;
      b[this.pos++] = (lo >>> 8) & 0xff;
      b[this.pos++] = lo & 0xff;
    }
  }

  /** An exact integer that is a JS safe integer. @param {number} n */
  int(n) {
    if (n >= 0) this.head(0, n);
    else this.head(1, -1 - n);
  }

  /**
   * An exact integer given as a bigint: plain major type 0/1 when it fits in 64 bits,
   * otherwise a bignum (tag 2/3) without leading zero bytes.
   * @param {bigint} n
   */
  bigint(n) {
    const neg = n < 0n;
    const mag = neg ? -1n - n : n;
    if (mag < 0x10000000000000000n) {
      this.ensure(9);
      this.buf[this.pos++] = ((neg ? 1 : 0) << 5) | 27;
      for (let shift = 56n; shift >= 0n; shift -= 8n) this.buf[this.pos++] = Number((mag >> shift) & 0xffn);
      // shortest form: re-encode through head when it fits in a safe integer
      if (mag <= BigInt(Number.MAX_SAFE_INTEGER)) {
        this.pos -= 9;
        this.head(neg ? 1 : 0, Number(mag));
      }
      return;
    }
    let hex = mag.toString(16);
    if (hex.length & 1) hex = '0' + hex;
    const bytes = new Uint8Array(hex.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    this.tag(neg ? 3 : 2);
    this.byteString(bytes);
  }

  /** A float in the shortest width that holds it exactly (NaN as f16 0x7e00). @param {number} x */
  float(x) {
    this.ensure(9);
    const b = this.buf;
    if (Number.isNaN(x)) {
      b[this.pos++] = 0xf9; b[this.pos++] = 0x7e; b[this.pos++] = 0x00;
      return;
    }
    const h = toHalf(x);
    if (h !== -1) {
      b[this.pos++] = 0xf9; b[this.pos++] = h >>> 8; b[this.pos++] = h & 0xff;
      return;
    }
    f32[0] = x;
    if (f32[0] === x) {
      const dv = new DataView(b.buffer, b.byteOffset + this.pos + 1, 4);
      b[this.pos] = 0xfa;
      dv.setFloat32(0, x);
      this.pos += 5;
      return;
    }
    f64[0] = x;
    b[this.pos++] = 0xfb;
    for (let i = 7; i >= 0; i--) b[this.pos++] = f64bytes[i];
  }

  /** @param {string} s */
  text(s) {
    const n = s.length;
    if (n < 256) {
      // ASCII text under 256 characters (symbols, node ids, code hashes, environment
      // ids, most strings): one pass, no TextEncoder, a head of one or two bytes
      this.ensure(n + 2);
      const b = this.buf;
      let pos = this.pos + (n < 24 ? 1 : 2);
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        b[pos++] = c;
      }
      if (i === n) {
        if (n < 24) b[this.pos] = 0x60 | n;
        else {
          b[this.pos] = 0x78;
          b[this.pos + 1] = n;
        }
        this.pos = pos;
        return;
      }
    }
    const bytes = textEncoder.encode(s);
    this.head(3, bytes.length);
    this.raw(bytes);
  }

  /** @param {Uint8Array} bytes */
  byteString(bytes) {
    this.head(2, bytes.length);
    this.raw(bytes);
  }

  /** @param {Uint8Array} bytes */
  raw(bytes) {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** @param {number} n */
  tag(n) {
    this.head(6, n);
  }

  /** @param {number} n */
  array(n) {
    this.head(4, n);
  }

  /** @param {number} n */
  map(n) {
    this.head(5, n);
  }

  /** @param {boolean} b */
  bool(b) {
    this.ensure(1);
    this.buf[this.pos++] = b ? 0xf5 : 0xf4;
  }

  nil() {
    this.ensure(1);
    this.buf[this.pos++] = 0xf6;
  }
}

/**
 * The IEEE half-precision bits of x if x is exactly representable as a half, else -1.
 * @param {number} x
 */
function toHalf(x) {
  if (x === 0) return Object.is(x, -0) ? 0x8000 : 0;
  if (!Number.isFinite(x)) return x > 0 ? 0x7c00 : 0xfc00;
  const sign = x < 0 ? 0x8000 : 0;
  const a = Math.abs(x);
  // normal halves: 2^-14 .. 65504 with 10 fraction bits; subnormals: multiples of 2^-24
  if (a >= 2 ** -14 && a <= 65504) {
    const e = Math.floor(Math.log2(a));
    const exp = Math.pow(2, e) > a ? e - 1 : Math.pow(2, e + 1) <= a ? e + 1 : e;
    const mant = a / Math.pow(2, exp) - 1;
    const frac = mant * 1024;
    if (!Number.isInteger(frac)) return -1;
    return sign | ((exp + 15) << 10) | frac;
  }
  if (a < 2 ** -14) {
    const frac = a / 2 ** -24;
    if (!Number.isInteger(frac) || frac === 0) return -1;
    return sign | frac;
  }
  return -1;
}

/** The size of a SlabWriter's buffers. */
const SLAB_BYTES = 16384;
/**
 * Bytes left free in front of an encoding that outgrew the slab (it then has a buffer of
 * its own): a transport writes its envelope and frame head there instead of copying the
 * encoding behind them (spareBefore).
 */
export const HEADROOM = 16;
/** Room after a single write that outgrew the slab, for what the encoding writes after it. */
const TAIL_ROOM = 1024;

/**
 * A writer for many short-lived encodings in a row (messages): each one is written
 * straight into a shared buffer (a slab) after the previous one, and handed out as a
 * view of it, so an encoding costs neither a buffer of its own nor a copy. Creating an
 * ArrayBuffer costs about as much as encoding a small message (~1 µs here, against
 * ~0.3 µs for a view). A view keeps its slab alive, as Node's pooled Buffers do; an
 * encoding that outgrows the slab moves to a buffer of its own.
 */
export class SlabWriter extends CborWriter {
  constructor() {
    super(SLAB_BYTES);
    /** Where the encoding in progress starts in buf. */
    this.start = 0;
    /** The last encoding handed out with HEADROOM free bytes in front of it, until the next begins. @type {Uint8Array | null} */
    this.roomy = null;
  }

  /** Start an encoding (aligned after the previous one; a fresh slab when little is left). */
  begin() {
    this.roomy = null;
    const at = (this.pos + 7) & ~7;
    if (this.buf.length - at < 256) {
      this.buf = new Uint8Array(SLAB_BYTES);
      this.pos = this.start = 0;
      return;
    }
    this.pos = this.start = at;
  }

  /** @param {number} n */
  ensure(n) {
    if (this.pos + n <= this.buf.length) return;
    const used = this.pos - this.start;
    // doubling for many writes; one large write (a bytevector) gets what it needs and a
    // little more, not the next power of two (a new buffer is zero-filled: 128 KiB for a
    // 64 KiB bytevector cost as much as the copy)
    const need = HEADROOM + used + n;
    let size = Math.max(SLAB_BYTES, this.buf.length);
    if (size < need) {
      size *= 2;
      if (size < need) size = need + TAIL_ROOM;
    }
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(this.start, this.pos), HEADROOM);
    this.buf = next;
    this.start = HEADROOM;
    this.pos = HEADROOM + used;
  }

  /** The encoding just written, as a view; the next one starts after it. */
  end() {
    const out = this.buf.subarray(this.start, this.pos);
    // a buffer grown for one large encoding is that encoding's alone, HEADROOM included
    if (this.buf.length > SLAB_BYTES) {
      this.roomy = out;
      this.buf = new Uint8Array(SLAB_BYTES);
      this.pos = this.start = 0;
    }
    return out;
  }

  /**
   * How many bytes in front of `bytes` its holder may overwrite: HEADROOM for the
   * encoding this writer handed out last when it had a buffer of its own, else 0.
   * @param {Uint8Array} bytes
   */
  spareBefore(bytes) {
    return bytes === this.roomy ? HEADROOM : 0;
  }

  /** Drop the encoding in progress (after an error). */
  abandon() {
    this.pos = this.start;
  }

  /** Relative to the encoding's start: ensure() may move the encoding to a new buffer. */
  mark() {
    return this.pos - this.start;
  }

  /** @param {number} mark */
  since(mark) {
    return this.buf.slice(this.start + mark, this.pos);
  }

  bytes() {
    return this.buf.slice(this.start, this.pos);
  }
}
