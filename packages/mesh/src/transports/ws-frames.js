// @ts-check
/**
 * RFC 6455 binary data frames, written and read straight on the TCP socket of
 * a WebSocket that `ws` has opened: the hot path of the Node WebSocket
 * transport (websocket.js), which carries nothing but whole binary messages.
 *
 * Why not `ws` for these too: its Sender builds an options object, a mask and
 * two buffers per message and writes them corked; its Receiver is a Writable
 * stream with a state machine behind it. On a daemon those cost several µs a
 * message, and for a 64 KiB message ws's JavaScript masking loop is most of the
 * round trip (bare `ws` 1,550 round trips/s, these frames 6,300 here).
 *
 * What stays with `ws`: the HTTP upgrade, the close handshake, ping/pong, text
 * and fragmented messages, and every protocol error. The reader hands the
 * stream over to ws's Receiver, from a frame boundary and for good, at the
 * first frame that is anything but a final unfragmented binary frame of an
 * allowed size with the mask bit the direction requires. ws then answers it as
 * it always would (a pong, a close, error 1002 or 1009).
 *
 * Masks: a client's frames carry a fresh key from a pool of random bytes, as
 * RFC 6455 §5.3 asks (a key of zero would put payload bytes on the wire as the
 * sender's program chose them, which is what masking exists to prevent).
 */
import { randomFillSync } from 'node:crypto';

/** First byte of a final binary frame: FIN, no RSV bits, opcode 2. */
const FIN_BINARY = 0x82;
/** Payloads up to this many bytes are copied into the frame's buffer; larger ones are written after their head, uncopied (unmasked frames only). */
const COPY_LIMIT = 16 * 1024;

// -------------------------------------------------------------------- masks

/** Random mask keys, 4 bytes each; refilled when used up. */
const maskPool = Buffer.alloc(4096);
let maskAt = maskPool.length;

/** @returns {number} offset in maskPool of a fresh 4-byte key */
function nextMask() {
  if (maskAt === maskPool.length) {
    randomFillSync(maskPool);
    maskAt = 0;
  }
  const at = maskAt;
  maskAt += 4;
  return at;
}

const word = new Uint8Array(4);
const word32 = new Uint32Array(word.buffer);

/**
 * XOR `n` bytes of `b` from `at` with the key k0..k3 (byte i of the payload
 * with k[i mod 4]). Short payloads go four bytes a step; longer ones one byte at a time
 * up to a 4-byte boundary of memory, then a 32-bit word at a time.
 * @param {Uint8Array} b @param {number} at @param {number} n
 * @param {number} k0 @param {number} k1 @param {number} k2 @param {number} k3
 */
export function applyMask(b, at, n, k0, k1, k2, k3) {
  let i = 0;
  if (n < 256) {
    // a message's worth (a SEND frame is ~100 bytes): four bytes a step, no branch per
    // byte and no word view to make
    for (; i + 4 <= n; i += 4) {
      b[at + i] ^= k0;
      b[at + i + 1] ^= k1;
      b[at + i + 2] ^= k2;
      b[at + i + 3] ^= k3;
    }
  } else {
    const lead = (4 - ((b.byteOffset + at) & 3)) & 3;
    for (; i < lead; i++) b[at + i] ^= keyByte(i, k0, k1, k2, k3);
    // the key as it falls on aligned words from payload index `lead` on
    word[0] = keyByte(lead, k0, k1, k2, k3);
    word[1] = keyByte(lead + 1, k0, k1, k2, k3);
    word[2] = keyByte(lead + 2, k0, k1, k2, k3);
    word[3] = keyByte(lead + 3, k0, k1, k2, k3);
    const k = word32[0];
    const words = (n - lead) >>> 2;
    const w = new Uint32Array(b.buffer, b.byteOffset + at + lead, words);
    for (let j = 0; j < words; j++) w[j] ^= k;
    i = lead + words * 4;
  }
  for (; i < n; i++) b[at + i] ^= keyByte(i, k0, k1, k2, k3);
}

/** @param {number} i @param {number} k0 @param {number} k1 @param {number} k2 @param {number} k3 */
function keyByte(i, k0, k1, k2, k3) {
  const r = i & 3;
  return r === 0 ? k0 : r === 1 ? k1 : r === 2 ? k2 : k3;
}

// ------------------------------------------------------------------ writing

/**
 * Write `payload` as one final binary frame, masked when `masked` (a client's
 * frames must be, a server's must not be).
 * @param {import('node:net').Socket} socket @param {Uint8Array} payload @param {boolean} masked
 */
export function writeBinaryFrame(socket, payload, masked) {
  const whole = frameBinary(payload, masked);
  if (whole !== null) {
    socket.write(whole);
    return;
  }
  const n = payload.length;
  const lenBytes = n < 65536 ? 2 : 8;
  const h = Buffer.allocUnsafe(2 + lenBytes);
  putHead(h, n, lenBytes, false);
  socket.cork();
  socket.write(h);
  socket.write(payload);
  socket.uncork();
}

/**
 * `payload` as one final binary frame in one buffer of its own (head, mask key, masked
 * payload), ready for one `socket.write`; null for an unmasked payload above
 * COPY_LIMIT, which is written after its head uncopied (writeBinaryFrame).
 * @param {Uint8Array} payload @param {boolean} masked @returns {Buffer | null}
 */
export function frameBinary(payload, masked) {
  const n = payload.length;
  if (!masked && n > COPY_LIMIT) return null;
  const lenBytes = n < 126 ? 0 : n < 65536 ? 2 : 8;
  const head = 2 + lenBytes + (masked ? 4 : 0);
  const out = Buffer.allocUnsafe(head + n);
  putHead(out, n, lenBytes, masked);
  if (!masked) {
    out.set(payload, head);
    return out;
  }
  const k = nextMask();
  const k0 = maskPool[k], k1 = maskPool[k + 1], k2 = maskPool[k + 2], k3 = maskPool[k + 3];
  out[head - 4] = k0;
  out[head - 3] = k1;
  out[head - 2] = k2;
  out[head - 1] = k3;
  if (n < 256) {
    // copy and mask in one pass
    let i = 0;
    for (; i + 4 <= n; i += 4) {
      out[head + i] = payload[i] ^ k0;
      out[head + i + 1] = payload[i + 1] ^ k1;
      out[head + i + 2] = payload[i + 2] ^ k2;
      out[head + i + 3] = payload[i + 3] ^ k3;
    }
    for (; i < n; i++) out[head + i] = payload[i] ^ (i % 4 === 0 ? k0 : i % 4 === 1 ? k1 : k2);
  } else {
    out.set(payload, head);
    applyMask(out, head, n, k0, k1, k2, k3);
  }
  return out;
}

/** @param {Buffer} b @param {number} n @param {number} lenBytes @param {boolean} masked */
function putHead(b, n, lenBytes, masked) {
  b[0] = FIN_BINARY;
  const m = masked ? 0x80 : 0;
  if (lenBytes === 0) b[1] = m | n;
  else if (lenBytes === 2) {
    b[1] = m | 126;
    b.writeUInt16BE(n, 2);
  } else {
    b[1] = m | 127;
    b.writeUInt32BE(Math.floor(n / 2 ** 32), 2);
    b.writeUInt32BE(n >>> 0, 6);
  }
}

// ------------------------------------------------------------------ reading

/**
 * Splits the bytes of a socket into binary messages, until a frame it does not
 * carry itself: from then on `onHandOver` gets that frame's bytes and the reader
 * takes no more (its owner routes the socket to ws's Receiver).
 */
export class FrameReader {
  /** Bytes of an incomplete frame head, held until the rest arrives. @type {Buffer | null} */
  #head = null;
  /** The payload of a frame being filled across chunks. @type {Buffer | null} */
  #body = null;
  #filled = 0;
  /** Mask key of #body's frame, or -1 when it has none. */
  #k0 = -1;
  #k1 = 0;
  #k2 = 0;
  #k3 = 0;
  /** True once the stream went to ws. */
  handedOver = false;

  /**
   * @param {boolean} masked whether frames must be masked (a server reads a client's frames)
   * @param {number} maxPayload a larger frame goes to ws, which closes with 1009
   * @param {(payload: Uint8Array) => void} onMessage a whole binary message (a view of the socket's bytes)
   * @param {(rest: Buffer) => void} onHandOver the stream's bytes from the first frame not carried here
   */
  constructor(masked, maxPayload, onMessage, onHandOver) {
    this.masked = masked;
    this.maxPayload = maxPayload;
    this.onMessage = onMessage;
    this.onHandOver = onHandOver;
  }

  /** @param {Buffer} chunk bytes as they came off the socket */
  push(chunk) {
    if (this.handedOver) throw new Error('FrameReader: push after the stream was handed over');
    let b = chunk;
    let at = 0;
    if (this.#body !== null) {
      at = this.#fill(b);
      if (this.#body !== null) return;
    } else if (this.#head !== null) {
      b = Buffer.concat([this.#head, chunk]);
      this.#head = null;
    }
    // Bounded: every pass consumes a whole frame head or returns.
    while (at < b.length) {
      const avail = b.length - at;
      if (avail < 2) return this.#holdHead(b, at);
      const b1 = b[at + 1];
      let n = b1 & 0x7f;
      let head = 2;
      if (n === 126) {
        if (avail < 4) return this.#holdHead(b, at);
        n = b.readUInt16BE(at + 2);
        head = 4;
      } else if (n === 127) {
        if (avail < 10) return this.#holdHead(b, at);
        const hi = b.readUInt32BE(at + 2);
        n = hi > 0x1fffff ? Infinity : hi * 2 ** 32 + b.readUInt32BE(at + 6); // above 2^53: refused below
        head = 10;
      }
      const hasMask = (b1 & 0x80) !== 0;
      if (b[at] !== FIN_BINARY || hasMask !== this.masked || n > this.maxPayload) return this.#handOver(b, at);
      if (hasMask) {
        if (avail < head + 4) return this.#holdHead(b, at);
        head += 4;
      }
      const start = at + head;
      if (b.length - start >= n) {
        at = start + n;
        if (hasMask) applyMask(b, start, n, b[start - 4], b[start - 3], b[start - 2], b[start - 1]);
        // a plain view: Buffer's subarray looks up the species and runs Buffer's constructor
        this.onMessage(new Uint8Array(b.buffer, b.byteOffset + start, n));
        continue;
      }
      // The payload continues in later chunks: gather it in a buffer of its size.
      this.#body = Buffer.allocUnsafe(n);
      this.#filled = 0;
      this.#k0 = hasMask ? b[start - 4] : -1;
      if (hasMask) {
        this.#k1 = b[start - 3];
        this.#k2 = b[start - 2];
        this.#k3 = b[start - 1];
      }
      this.#fill(b.subarray(start));
      return;
    }
  }

  /**
   * Copy what `b` holds of the pending payload; deliver it once whole.
   * @param {Buffer} b @returns {number} bytes of `b` used
   */
  #fill(b) {
    const body = /** @type {Buffer} */ (this.#body);
    const take = Math.min(body.length - this.#filled, b.length);
    b.copy(body, this.#filled, 0, take);
    this.#filled += take;
    if (this.#filled < body.length) return take;
    this.#body = null;
    if (this.#k0 >= 0) applyMask(body, 0, body.length, this.#k0, this.#k1, this.#k2, this.#k3);
    this.onMessage(body);
    return take;
  }

  /** @param {Buffer} b @param {number} at */
  #holdHead(b, at) {
    // fewer bytes than the largest head (2 + 8 of length + 4 of mask); a copy, so the chunk is not kept
    this.#head = Buffer.from(b.subarray(at));
  }

  /** @param {Buffer} b @param {number} at */
  #handOver(b, at) {
    this.handedOver = true;
    this.onHandOver(b.subarray(at));
  }
}
