// @ts-check
/**
 * Message framing of the TCP transport (plain or inside TLS): after an 8-byte preamble
 * each way (the dialler's first; the listener answers with its own), each message is a 4-byte big-endian length and the message bytes.
 *
 * Writing (TcpFrameWriter): the first DIRECT_PER_TICK messages of a tick are written at
 * once (a reply, or the few frames of a remote spawn, must not wait for the rest of the
 * task: the runtime's scheduler may keep running processes in it, measured at ~1 ms a
 * round trip when every message but the first waited). The following small messages
 * of the same tick are copied, with their heads, into one batch buffer written once on
 * the next tick (`process.nextTick`); a large message flushes the batch with its head
 * and is written as it is (no copy), both in one corked write (a writev): a head
 * written alone would leave as a 4-byte segment (no-delay) and wake the reader for it.
 * A large frame built with headroom (../headroom.js: the node wrote its envelope in
 * front of the encoded payload) gets its head written in front of it too, and leaves as
 * one buffer. So a stream of small messages costs a write call per batch, and a large
 * message is never copied here.
 *
 * Held writes (hold … release: the connection's part of connection.js's holdWrites):
 * the first small message of a hold is kept, framed, in a buffer of its own, and written
 * by release with one plain `socket.write`; only a second message under the same hold
 * (or a flush) corks the socket, writes the kept one into it and lets release uncork.
 * The usual hold carries one message (a reply to what a received chunk brought), and a
 * corked write costs ~1 µs more than a plain one on the round trip's critical path
 * (Node's cork bookkeeping and the writev request); what leaves, and its order, is the
 * same either way: everything written under a hold leaves in one write at release.
 *
 * Reading (TcpFrameReader), the transport's way (readIntoOwnBuffers: Node's `onread`):
 * each read goes into a buffer of the reader's. Into a 68 KiB read buffer when no
 * message is in progress: a 64 KiB payload's frame lands whole there (Node's own reads
 * are 64 KiB, so that frame always spanned two and was copied once more) and is handed
 * out as a view of it; the buffer is then never written again (a fresh one follows).
 * Messages under a quarter of it are copied out (into Node's pool for the small ones)
 * and the buffer is reused, so a small message kept in a mailbox does not pin 68 KiB.
 * A message larger than the buffer's room gets a buffer of its own with its head: the
 * bytes already read are copied into it, the rest is read straight into it, each read
 * at most what is missing. Reading 'data' events instead (push: a Node without
 * `onread` state on sockets, and the tests): a message within one chunk is a view of it;
 * one that spans chunks gets, with its head, a buffer of its own into which each
 * chunk's bytes are copied as they arrive — one copy, while the rest is on its way.
 * Both ways: buffers are allocUnsafe, and a message is delivered only when every one of
 * its bytes was written from the stream; what the reader reserves follows the bytes
 * received, not only the size a head announces: a message's own buffer is at most
 * RESERVE_FACTOR times the bytes received (at least RESERVE_FROM) and doubles up to the
 * announced size, never above `hardLimit`; so a few bytes announcing the hard limit
 * reserve 64 KiB. A head that announces more than `hardLimit` bytes ends the reading
 * (onTooLarge) without buffering anything of it. A message handed out is never written
 * again and no two overlap: the received-bytevectors-as-views rule (docs/mesh.md)
 * depends on it.
 */

import { hasHeadroom } from '../headroom.js';

/** What a dialler sends first: a zero byte (no HTTP method, no TLS record starts so), then the protocol name. */
export const PREAMBLE = Buffer.from([0x00, 0x54, 0x4d, 0x45, 0x53, 0x48, 0x2f, 0x31]); // \0 TMESH/1
/** The first byte of a TLS record carrying a handshake (a ClientHello). */
export const TLS_HANDSHAKE_BYTE = 0x16;
/** Bytes of a message head. */
const HEAD = 4;
/** Messages of a tick written at once before the rest of the tick is coalesced. */
const DIRECT_PER_TICK = 16;
/** Messages up to this size are copied into the batch; larger ones are written as they are. */
const COPY_LIMIT = 8 * 1024;
/** Size of a batch buffer (a larger burst fills several). */
const BATCH_BYTES = 64 * 1024;
/**
 * A message spanning chunks gets a buffer of its announced size up to this many times
 * the bytes of it received so far, and at least RESERVE_FROM (then doubles as more
 * arrives): a 64 KiB or 1 MiB message, whose first chunk is most of a socket read, is
 * one buffer from its first byte; a peer announcing the hard limit with a few bytes
 * makes the reader reserve RESERVE_FROM.
 */
const RESERVE_FACTOR = 64;
const RESERVE_FROM = 64 * 1024;
/**
 * Reading into the reader's own buffers: the size of a read buffer — a 64 KiB payload's
 * frame (its envelope and encoding's head included) lands whole in one; a larger frame
 * gets a buffer of its own and the rest of it is read straight into that.
 */
const READ_BYTES = 68 * 1024;
/** Messages from this size are handed out as views of the read buffer (which is then not reused); smaller ones are copied out. */
const VIEW_FROM = READ_BYTES / 4;
/** A read buffer with less free room than this after its last message starts afresh. */
const MIN_TAIL = 2048;
const NO_BYTES = Buffer.alloc(0);

/** Coalescing writer of framed messages on one stream socket. */
export class TcpFrameWriter {
  /** @type {Buffer | null} */
  #batch = null;
  #used = 0;
  #scheduled = false;
  /** Under hold(): whether release must write, and whether it must uncork. */
  #held = false;
  #corked = false;
  /** The first small message of a hold, framed, not yet written. @type {Buffer | null} */
  #kept = null;
  /** Messages written at once in this tick. */
  #direct = 0;
  #flush = () => {
    this.#scheduled = false;
    this.#direct = 0;
    this.flush();
  };

  /** @param {import('node:net').Socket} socket */
  constructor(socket) {
    this.socket = socket;
  }

  /** Bytes accepted and not yet handed to the socket. */
  get pending() {
    return this.#used + (this.#kept === null ? 0 : this.#kept.length);
  }

  /** Whether writes are held (hold … release). */
  get held() {
    return this.#held;
  }

  /** Hold what is written until release: it then leaves in one write. */
  hold() {
    this.#held = true;
  }

  /** End the hold: the kept message, or the corked socket's contents, leave now. */
  release() {
    this.#held = false;
    const k = this.#kept;
    if (k !== null) {
      this.#kept = null;
      if (!this.socket.destroyed) this.socket.write(k);
    }
    if (this.#corked) {
      this.#corked = false;
      this.socket.uncork();
    }
  }

  /** More than one message under the hold: cork the socket, the kept message in it first. */
  #cork() {
    this.socket.cork();
    this.#corked = true;
    const k = this.#kept;
    if (k === null) return;
    this.#kept = null;
    this.socket.write(k);
  }

  /** @param {Uint8Array} data */
  write(data) {
    const n = data.length;
    // under a hold only the first small message, written at once, is kept uncorked
    if (this.#held && !this.#corked && (this.#kept !== null || n > COPY_LIMIT || this.#used > 0 || this.#direct >= DIRECT_PER_TICK)) this.#cork();
    if (n > COPY_LIMIT && hasHeadroom(data)) {
      // the head goes into the free bytes in front of the frame: one buffer, no copy
      const whole = Buffer.from(data.buffer, data.byteOffset - HEAD, HEAD + n);
      whole.writeUInt32BE(n, 0);
      if (this.#used === 0) {
        this.socket.write(whole);
        return;
      }
      this.socket.cork();
      this.flush();
      this.socket.write(whole);
      this.socket.uncork();
      return;
    }
    if (n > COPY_LIMIT) {
      const b = this.#room(HEAD);
      b.writeUInt32BE(n, this.#used);
      this.#used += HEAD;
      // one writev for the batch (with this head) and the message: written apart, the
      // head would leave as a segment of its own and wake the reader for 4 bytes
      this.socket.cork();
      this.flush();
      this.socket.write(data);
      this.socket.uncork();
      return;
    }
    if (this.#used === 0 && this.#direct < DIRECT_PER_TICK) {
      // among the first of this tick: out now, in one buffer with its head
      this.#direct++;
      const one = Buffer.allocUnsafe(HEAD + n);
      one.writeUInt32BE(n, 0);
      one.set(data, HEAD);
      if (this.#held && !this.#corked) this.#kept = one;
      else this.socket.write(one);
      this.#schedule();
      return;
    }
    const b = this.#room(HEAD + n);
    const at = this.#used;
    b[at] = n >>> 24;
    b[at + 1] = (n >>> 16) & 0xff;
    b[at + 2] = (n >>> 8) & 0xff;
    b[at + 3] = n & 0xff;
    b.set(data, at + HEAD);
    this.#used = at + HEAD + n;
    this.#schedule();
  }

  /** Hand the batch to the socket now. */
  flush() {
    if (this.#held && !this.#corked && (this.#kept !== null || this.#used > 0)) this.#cork();
    const b = this.#batch;
    if (b === null || this.#used === 0) return;
    const n = this.#used;
    this.#batch = null; // the socket may hold the buffer until written: never reuse it
    this.#used = 0;
    if (!this.socket.destroyed) this.socket.write(n === b.length ? b : b.subarray(0, n));
  }

  /** A batch with `n` bytes free (flushing a full one). @param {number} n */
  #room(n) {
    if (this.#batch !== null && this.#used + n <= this.#batch.length) return this.#batch;
    this.flush();
    this.#batch = Buffer.allocUnsafe(Math.max(BATCH_BYTES, n));
    return this.#batch;
  }

  #schedule() {
    if (this.#scheduled) return;
    this.#scheduled = true;
    process.nextTick(this.#flush);
  }
}

/** Splits a byte stream into messages. */
export class TcpFrameReader {
  /** Bytes of the current head received so far (0..3) and the head itself. */
  #headHave = 0;
  #head = Buffer.alloc(HEAD);
  /** The buffer of the message spanning chunks (its first #have bytes filled), or null. @type {Buffer | null} */
  #frame = null;
  #size = 0;
  #have = 0;
  #stopped = false;
  /** Reading into own buffers: the read buffer, its unread part's start and its end. */
  #rb = NO_BYTES;
  #rbStart = 0;
  #rbEnd = 0;
  /** Whether a message was handed out as a view of #rb (its bytes before #rbEnd are then never written again). */
  #rbGiven = false;

  /**
   * @param {number} hardLimit larger announced messages stop the reader
   * @param {(message: Buffer) => void} onMessage
   * @param {(size: number) => void} onTooLarge
   */
  constructor(hardLimit, onMessage, onTooLarge) {
    this.hardLimit = hardLimit;
    this.onMessage = onMessage;
    this.onTooLarge = onTooLarge;
  }

  /** Whether this reader reads into its own buffers (startOwnBuffers). */
  get ownBuffers() {
    return this.#rb !== NO_BYTES;
  }

  /** Bytes reserved for the message in progress (its buffer), 0 if none. */
  get reserved() {
    return this.#frame === null ? 0 : this.#frame.length;
  }

  /**
   * size: one state machine over a chunk (head bytes, a body spanning chunks, whole
   * messages inside the chunk); split, the hot path would call through three functions.
   * @param {Buffer} chunk
   */
  push(chunk) {
    let at = 0;
    const end = chunk.length;
    while (at < end && !this.#stopped) {
      if (this.#frame !== null) {
        const take = Math.min(this.#size - this.#have, end - at);
        const need = this.#have + take;
        if (need > this.#frame.length) this.#grow(need);
        const frame = /** @type {Buffer} */ (this.#frame);
        frame.set(take === end - at && at === 0 ? chunk : chunk.subarray(at, at + take), this.#have);
        this.#have = need;
        at += take;
        if (need === this.#size) {
          this.#frame = null;
          this.onMessage(frame);
        }
        continue;
      }
      let size;
      if (this.#headHave === 0 && end - at >= HEAD) {
        size = chunk.readUInt32BE(at);
        at += HEAD;
      } else {
        while (this.#headHave < HEAD && at < end) this.#head[this.#headHave++] = chunk[at++];
        if (this.#headHave < HEAD) return;
        this.#headHave = 0;
        size = this.#head.readUInt32BE(0);
      }
      if (size > this.hardLimit) {
        this.#stopped = true;
        this.onTooLarge(size);
        return;
      }
      if (end - at >= size) {
        const m = chunk.subarray(at, at + size);
        at += size;
        this.onMessage(m);
      } else {
        // the message's own buffer, filled as its bytes arrive: one copy, no list of parts
        const first = end - at;
        this.#size = size;
        this.#frame = Buffer.allocUnsafe(Math.min(size, Math.max(RESERVE_FROM, first * RESERVE_FACTOR)));
        this.#frame.set(chunk.subarray(at), 0);
        this.#have = first;
        at = end;
      }
    }
  }

  /**
   * The message's buffer is too small for `need` bytes: double it (at least to `need`),
   * up to the announced size, the bytes so far copied. Only a message announced larger
   * than its first reservation grows.
   * @param {number} need
   */
  #grow(need) {
    const old = /** @type {Buffer} */ (this.#frame);
    const frame = Buffer.allocUnsafe(Math.min(this.#size, Math.max(need, old.length * 2)));
    frame.set(old.subarray(0, this.#have), 0);
    this.#frame = frame;
  }

  /**
   * Read into this reader's own buffers from now on (readTarget, readDone); `first` are
   * bytes already received (copied in).
   * @param {Uint8Array} first
   */
  startOwnBuffers(first) {
    this.#rb = Buffer.allocUnsafe(Math.max(READ_BYTES, first.length + MIN_TAIL));
    this.#rb.set(first, 0);
    this.#rbStart = 0;
    this.#rbEnd = first.length;
    this.#rbGiven = false;
    this.#parse();
  }

  /**
   * Where the next read goes: the rest of the message that has a buffer of its own
   * (exactly its missing bytes at most), else the read buffer's free room. Never empty.
   * @returns {Buffer}
   */
  readTarget() {
    if (this.#frame !== null) {
      if (this.#have === this.#frame.length) this.#grow(this.#have + 1);
      return /** @type {Buffer} */ (this.#frame).subarray(this.#have);
    }
    return this.#rb.subarray(this.#rbEnd);
  }

  /** `n` bytes were read into readTarget(). @param {number} n */
  readDone(n) {
    if (this.#stopped) return;
    const f = this.#frame;
    if (f === null) {
      this.#rbEnd += n;
      this.#parse();
      return;
    }
    this.#have += n;
    if (this.#have < this.#size) return;
    this.#frame = null;
    this.onMessage(f);
  }

  /**
   * size: one loop over the read buffer's whole messages and what it does with the rest
   * (read on into it, a buffer of its own, or a fresh read buffer); split, each part
   * would need the loop's state.
   * Deliver the read buffer's whole messages (small ones copied out, large ones as views)
   * and leave room for the next read.
   */
  #parse() {
    const rb = this.#rb;
    const end = this.#rbEnd;
    let at = this.#rbStart;
    while (end - at >= HEAD && !this.#stopped) {
      const size = rb.readUInt32BE(at);
      if (size > this.hardLimit) {
        this.#stopped = true;
        this.onTooLarge(size);
        return;
      }
      const body = at + HEAD;
      if (end - body >= size) {
        at = body + size;
        if (size >= VIEW_FROM) {
          this.#rbGiven = true;
          this.onMessage(rb.subarray(body, at));
        } else {
          const m = Buffer.allocUnsafe(size);
          rb.copy(m, 0, body, at);
          this.onMessage(m);
        }
        continue;
      }
      if (body + size <= rb.length) break; // the rest of it is read on into this buffer
      // larger than the read buffer's room: a buffer of its own, the rest read straight into it
      const first = end - body;
      const frame = Buffer.allocUnsafe(Math.min(size, Math.max(RESERVE_FROM, first * RESERVE_FACTOR)));
      rb.copy(frame, 0, body, end);
      this.#frame = frame;
      this.#size = size;
      this.#have = first;
      at = end;
      break;
    }
    if (this.#stopped) return;
    const left = end - at;
    if (left === 0 && !this.#rbGiven) {
      this.#rbStart = this.#rbEnd = 0; // all copied out: the same buffer again
    } else if (left > 0 && (end - at >= HEAD || rb.length - end >= MIN_TAIL)) {
      this.#rbStart = at; // a message (or its head) in progress, room behind it
    } else {
      // nothing of this buffer may be written again, or too little room: a fresh one
      const next = Buffer.allocUnsafe(READ_BYTES);
      if (left > 0) rb.copy(next, 0, at, end);
      this.#rb = next;
      this.#rbStart = 0;
      this.#rbEnd = left;
      this.#rbGiven = false;
    }
  }

  /** Stop delivering (the connection closed). */
  stop() {
    this.#stopped = true;
  }
}

/**
 * Make a TCP socket (plain, or TLS: its decrypted bytes) read into `reader`'s own buffers
 * (readTarget, readDone) instead of emitting 'data': a 64 KiB message then arrives in one
 * buffer (Node's reads are 64 KiB, so with its head and envelope it always spanned two,
 * and was copied), and the rest of a larger one is read straight into its buffer. This is Node's `onread`
 * (documented for net.connect), set on a socket that already exists (an accepted one,
 * or after the preamble): through net.Socket's own onread state, found by its symbols'
 * names, and the handle's useUserBuffer. False (nothing changed: read 'data' events)
 * where this Node lacks them, or when bytes are already buffered in the stream.
 * The socket must be paused; `onRead(n)` is called for each read and must call
 * reader.readDone(n).
 * @param {import('node:net').Socket} socket @param {TcpFrameReader} reader
 * @param {Uint8Array} first bytes already received @param {(n: number) => void} onRead
 */
export function readIntoOwnBuffers(socket, reader, first, onRead) {
  const handle = /** @type {any} */ (socket)._handle;
  if (socket.readableLength > 0 || !handle || typeof handle.useUserBuffer !== 'function') return false;
  const by = new Map(Object.getOwnPropertySymbols(socket).map((k) => [k.description, k]));
  const buffer = by.get('kBuffer');
  const callback = by.get('kBufferCb');
  const generate = by.get('kBufferGen');
  if (buffer === undefined || callback === undefined || generate === undefined) return false;
  const s = /** @type {any} */ (socket);
  if (s[buffer] !== null || s[callback] !== null || s[generate] !== null) return false; // not the state it is made with
  reader.startOwnBuffers(first);
  const target = reader.readTarget();
  s[buffer] = target;
  s[callback] = onRead;
  s[generate] = () => reader.readTarget();
  handle.useUserBuffer(target);
  return true;
}
