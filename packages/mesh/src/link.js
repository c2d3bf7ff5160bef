// @ts-check
/**
 * Link: one admitted connection to a direct peer. It owns
 * - the send queue (bounded in bytes, flushed as the transport drains),
 * - chunking out and reassembly in,
 * - liveness (time of the last frame received, ping sequence, RTT),
 * - the per-link error budget for hostile input.
 * It decodes frames and hands them to its owner (the mesh node); it knows
 * nothing of routing, requests or signalling.
 *
 * Send-side invariants:
 * - frames leave in the order sendFrame accepted them; a large frame leaves
 *   as consecutive chunks (ChunkCursor), nothing else of the data path in
 *   between (chunking.js relies on it);
 * - a frame is written to the transport only while its bufferedAmount is
 *   below highWaterMark; otherwise it waits in the queue, and the queue
 *   refuses new frames once it holds maxQueueBytes (so it holds at most
 *   maxQueueBytes plus one frame);
 * - control frames (PING, PONG, link ERROR, BYE) bypass the queue: they are
 *   small, and a heartbeat must not wait behind megabytes of data.
 */
import { T, decodeFrame, encodeBye, encodeError, encodePing, encodePong, msgPayload, idPayloadFrame, peekType, typeName } from './frames.js';
import { ChunkCursor, Reassembler } from './chunking.js';
import { FrameTooLargeError, MalformedFrameError, TooManyErrorsError, UnexpectedFrameError } from './errors.js';

let nextLinkId = 1;

/**
 * What a link needs from its owner.
 * @typedef {object} LinkOwner
 * @property {(from: string, payload: Uint8Array) => void} _deliver a MSG payload from a direct peer (hot path)
 * @property {(link: Link, frame: import('./frames.js').Frame, bytes: Uint8Array) => void} _onFrame any other frame
 * @property {(link: Link, reason: string) => void} _onLinkClosed once, when the connection is gone
 * @property {(link: Link, waiters: string[]) => void} _onLinkDrained the queue fell below half after refusing
 */

/**
 * @typedef {object} LinkOptions
 * @property {LinkOwner} owner
 * @property {string} localId this node's id
 * @property {number} maxFrameBytes
 * @property {number} maxQueueBytes
 * @property {number} highWaterMark transport bufferedAmount above which frames queue
 * @property {import('./chunking.js').ReassemblyBudget} budget
 * @property {number} reassemblyTimeoutMs
 * @property {number} errorBudget bad frames tolerated per errorWindowMs
 * @property {number} errorWindowMs
 * @property {import('./logger.js').Logger} logger
 */

export class Link {
  /** @type {Array<Uint8Array | ChunkCursor>} */
  #queue = [];
  #head = 0;
  #nextChunkId = 1;
  #errors = 0;
  #errorWindowStart = 0;
  /** @type {Set<string>} destinations refused while the queue was full */
  #waiters = new Set();

  /**
   * @param {import('./interfaces.js').Connection} conn an admitted connection
   * @param {import('./admission.js').AdmittedPeer} admitted
   * @param {LinkOptions} o
   */
  constructor(conn, admitted, o) {
    this.id = nextLinkId++;
    this.conn = conn;
    this.owner = o.owner;
    this.peerId = admitted.peerId;
    this.listenUrl = admitted.listenUrl;
    this.transport = conn.transport;
    this.address = conn.remoteAddress;
    this.direction = conn.direction;
    /** Id of the node that dialled (the duplicate-link rule compares them). */
    this.dialerId = admitted.role === 0 ? o.localId : admitted.peerId;
    /** Largest message we send: the transport's and the peer's limits. */
    this.maxOut = Math.min(conn.maxMessageBytes, admitted.maxMessageBytes);
    /** Largest message we accept (what we announced in HELLO). */
    this.maxIn = conn.maxMessageBytes;
    this.maxQueueBytes = o.maxQueueBytes;
    this.highWaterMark = o.highWaterMark;
    this.queuedBytes = 0;
    this.createdAt = Date.now();
    /** Time (Date.now) of the last frame received. */
    this.lastSeen = this.createdAt;
    /** Smoothed round-trip time in ms (null until the first PONG). */
    this.rttMs = /** @type {number | null} */ (null);
    this.pingSeq = 0;
    // The two times below start at -Infinity, not 0: a number field that starts as a
    // small integer and later holds Date.now() changes representation at the link's
    // first PING, which gives every Link a new map and deoptimizes the send path's
    // optimized code in the middle of the traffic (seen in a profile of the daemon).
    /** Date.now() of the PING awaiting its PONG, -Infinity if none. */
    this.pingSentAt = -Infinity;
    /** Date.now() of the last PING sent. */
    this.lastPingAt = -Infinity;
    /** A second link to the same peer on the same transport, to be closed (set by the owner). */
    this.redundant = false;
    this.closed = false;
    /** @type {string | null} reason given by the peer in BYE */
    this.byeReason = null;
    this.log = o.logger;
    this.errorBudget = o.errorBudget;
    this.errorWindowMs = o.errorWindowMs;
    this.reasm = new Reassembler({ maxFrameBytes: o.maxFrameBytes, budget: o.budget, timeoutMs: o.reassemblyTimeoutMs });
  }

  /** Take over the connection's callbacks (frames queued during the handshake are delivered now). */
  attach() {
    const conn = this.conn;
    conn.lowWaterMark = Math.max(32 * 1024, this.highWaterMark >> 1);
    conn.ondrain = () => this.flush();
    conn.onclose = (reason) => this.#gone(reason);
    conn.onmessage = (data, isText) => this.#receive(data, isText);
  }

  // ------------------------------------------------------------------ sending

  /**
   * Queue a data-path frame (any size up to maxFrameBytes; larger than maxOut
   * is chunked). Returns false, sending nothing, if the link is closed or its
   * queue is full; `waiter` (a destination id) then gets a 'drain' later.
   * @param {Uint8Array} frame @param {string} [waiter]
   */
  sendFrame(frame, waiter) {
    if (this.closed) return false;
    if (this.#head === this.#queue.length && frame.length <= this.maxOut && this.conn.bufferedBelow(this.highWaterMark)) {
      this.conn.send(frame);
      return true;
    }
    if (this.queuedBytes >= this.maxQueueBytes) {
      this.#waiters.add(waiter ?? this.peerId);
      return false;
    }
    this.#queue.push(frame.length > this.maxOut ? new ChunkCursor(frame, this.#nextChunkId++, this.maxOut) : frame);
    this.queuedBytes += frame.length;
    this.flush();
    return true;
  }

  /**
   * Queue a frame even if the queue is full (frames already accepted by the
   * node, released after a path switch; bounded by that hold's own limit).
   * @param {Uint8Array} frame
   */
  forceFrame(frame) {
    if (this.closed) return false;
    this.#queue.push(frame.length > this.maxOut ? new ChunkCursor(frame, this.#nextChunkId++, this.maxOut) : frame);
    this.queuedBytes += frame.length;
    this.flush();
    return true;
  }

  /** True if sendFrame would accept a frame now. */
  canSend() {
    return !this.closed && this.queuedBytes < this.maxQueueBytes;
  }

  /** Register interest in the next drain (canSend was false for `waiter`). @param {string} waiter */
  wantDrain(waiter) {
    this.#waiters.add(waiter);
  }

  /** Move queued frames to the transport while it has room. */
  flush() {
    const conn = this.conn;
    const q = this.#queue;
    // Bounded: each pass sends one message, and stops once the transport is full.
    for (let guard = 0; this.#head < q.length && guard < 1_000_000; guard++) {
      if (conn.status !== 'open' || conn.bufferedAmount >= this.highWaterMark) break;
      const item = q[this.#head];
      if (item instanceof Uint8Array) {
        conn.send(item);
        this.queuedBytes -= item.length;
        q[this.#head++] = /** @type {any} */ (undefined);
      } else {
        conn.send(item.next());
        if (item.done) {
          this.queuedBytes -= item.frame.length;
          q[this.#head++] = /** @type {any} */ (undefined);
        }
      }
    }
    if (this.#head === q.length) {
      q.length = 0;
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > q.length) {
      q.splice(0, this.#head);
      this.#head = 0;
    }
    if (this.#waiters.size > 0 && this.queuedBytes <= this.maxQueueBytes / 2) {
      const w = [...this.#waiters];
      this.#waiters.clear();
      this.owner._onLinkDrained(this, w);
    }
  }

  /** A control frame, around the queue. Dropped silently if the link is closed. @param {Uint8Array} frame */
  sendControl(frame) {
    if (this.closed || this.conn.status !== 'open') return;
    try {
      this.conn.send(frame);
    } catch (e) {
      this.log.debug('control frame not sent', { peer: this.peerId, error: /** @type {Error} */ (e).message });
    }
  }

  /** Send a PING and remember when. @param {number} now */
  ping(now) {
    this.pingSeq++;
    this.pingSentAt = now;
    this.lastPingAt = now;
    this.sendControl(encodePing(this.pingSeq));
  }

  /**
   * Close the link, telling the peer why (BYE) first.
   * @param {string} reason
   */
  close(reason) {
    if (this.closed) return;
    this.sendControl(encodeBye(reason));
    this.closed = true;
    this.conn.close(reason);
    this.#gone(reason); // the owner learns now, not when the transport finishes closing
  }

  // ---------------------------------------------------------------- receiving

  /** @param {Uint8Array} data @param {boolean} isText */
  #receive(data, isText) {
    this.lastSeen = Date.now();
    if (isText) {
      this.reportBad(new MalformedFrameError(`text message of ${data.length} bytes where a binary CBOR frame was expected`), null);
      return;
    }
    const payload = msgPayload(data);
    if (payload !== null && data.length <= this.maxIn) {
      this.owner._deliver(this.peerId, payload);
      return;
    }
    // a request or its answer, read directly too (what receiveFrame would pass on)
    const rq = payload === null && data.length <= this.maxIn ? idPayloadFrame(data) : null;
    if (rq !== null) {
      this.owner._onFrame(this, rq, data);
      return;
    }
    this.receiveFrame(data, false);
  }

  /**
   * Decode and dispatch one frame (from the transport, or reassembled).
   * @param {Uint8Array} data @param {boolean} reassembled
   */
  receiveFrame(data, reassembled) {
    if (!reassembled && data.length > this.maxIn) {
      this.reportBad(new FrameTooLargeError(data.length, this.maxIn, `${this.transport} message`), peekType(data));
      return;
    }
    let f;
    try {
      f = decodeFrame(data);
    } catch (e) {
      this.reportBad(/** @type {Error} */ (e), peekType(data));
      return;
    }
    switch (f.type) {
      case T.PING:
        this.sendControl(encodePong(f.seq));
        return;
      case T.PONG:
        if (f.seq === this.pingSeq && this.pingSentAt > 0) {
          const rtt = Date.now() - this.pingSentAt;
          this.rttMs = this.rttMs === null ? rtt : 0.8 * this.rttMs + 0.2 * rtt;
          this.pingSentAt = -Infinity;
        }
        return;
      case T.CHUNK: {
        if (reassembled) {
          this.reportBad(new UnexpectedFrameError('a reassembled frame may not itself be a CHUNK'), T.CHUNK);
          return;
        }
        const whole = this.reasm.push(f, this.lastSeen, (e) => this.reportBad(e, T.CHUNK));
        if (whole !== null) {
          const p = msgPayload(whole);
          if (p !== null) this.owner._deliver(this.peerId, p);
          else this.receiveFrame(whole, true);
        }
        return;
      }
      case T.BYE:
        this.byeReason = f.reason;
        this.closed = true;
        this.conn.close(`peer left: ${f.reason}`);
        this.#gone(`peer left: ${f.reason}`);
        return;
      case T.HELLO:
      case T.AUTH:
      case T.ACCEPT:
        this.reportBad(new UnexpectedFrameError(`${typeName(f.type)} after admission (the handshake is over)`), f.type);
        return;
      default:
        this.owner._onFrame(this, f, data);
    }
  }

  /**
   * Report hostile or broken input: a log line, an ERROR frame back to the
   * peer, and the connection closed once the error budget is spent. Never
   * answers an ERROR with an ERROR (no loops between two confused nodes).
   * @param {Error} e @param {number | null} refType
   */
  reportBad(e, refType) {
    const now = Date.now();
    if (now - this.#errorWindowStart > this.errorWindowMs) {
      this.#errorWindowStart = now;
      this.#errors = 0;
    }
    this.#errors++;
    this.log.warn('bad frame from peer', { peer: this.peerId, transport: this.transport, error: e.name, message: e.message, frameType: refType === null ? null : typeName(refType) });
    if (this.#errors > this.errorBudget) {
      const fatal = new TooManyErrorsError(this.#errors, this.errorWindowMs);
      this.sendControl(encodeError(fatal.name, fatal.message, true, refType));
      this.log.warn('closing link: error budget spent', { peer: this.peerId, errors: this.#errors });
      this.closed = true;
      this.conn.close(fatal.message);
      this.#gone(fatal.message);
      return;
    }
    if (refType !== T.ERROR) this.sendControl(encodeError(e.name, e.message, false, refType));
  }

  /** Periodic housekeeping: drop a stale partial frame. @param {number} now */
  tick(now) {
    const e = this.reasm.expire(now);
    if (e) this.reportBad(e, T.CHUNK);
  }

  #goneReported = false;

  /** Tell the owner, once, that the link is gone. @param {string} reason */
  #gone(reason) {
    if (this.#goneReported) return;
    this.#goneReported = true;
    this.closed = true;
    this.reasm.drop();
    this.#queue = [];
    this.#head = 0;
    this.queuedBytes = 0;
    this.#waiters.clear();
    this.owner._onLinkClosed(this, this.byeReason !== null ? `peer left: ${this.byeReason}` : reason);
  }

  /** Summary for peers() and logs. */
  info() {
    return {
      transport: this.transport,
      address: this.address,
      direction: this.direction,
      rttMs: this.rttMs === null ? null : Math.round(this.rttMs * 100) / 100,
      queuedBytes: this.queuedBytes,
      bufferedBytes: this.closed ? 0 : this.conn.bufferedAmount,
      since: this.createdAt,
    };
  }
}
