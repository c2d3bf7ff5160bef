// @ts-check
/**
 * Chunking: a frame larger than a connection's message limit travels as
 * CHUNK frames `[1, 10, msgId, index, total, part]` — consecutive slices of
 * the encoded frame, index 0, 1, 2 ..., `total` being the whole frame's size.
 * Chunking is per link (hop by hop): an intermediate node reassembles a
 * routed frame and chunks it again for the next link.
 *
 * Sender invariant (link.js): the chunks of one frame are sent back to back
 * on one connection — only heartbeats, pongs and error frames, which are
 * never chunked, may come between them. So a receiver reassembles at most
 * one frame per link at a time, and anything else is a ChunkOrderError.
 *
 * Assembled once: each part is copied, as it arrives, into the frame's final buffer,
 * sized from chunk 0's declared total; the completed frame is that buffer (no copy
 * of the whole at the end, no list of parts alive beside it). So that a peer cannot
 * make this node reserve much more than it sent (chunk 0 of 10 bytes announcing
 * 64 MiB), the buffer starts at most RESERVE_FACTOR times chunk 0's part and doubles,
 * up to the total, when a part does not fit: with the usual parts (1 MiB over TCP and
 * WebSocket) a frame up to 256 MiB is one buffer from the start.
 *
 * Receiver bounds: the declared total may not exceed maxFrameBytes; the
 * buffers of all partial frames of a node share one budget
 * (maxReassemblyBytes), charged with each buffer's size when it is made or grown; a
 * partial frame older than reassemblyTimeoutMs is dropped (expire()).
 */
import { CHUNK_OVERHEAD, encodeChunk } from './frames.js';
import { ChunkOrderError, FrameTooLargeError, ReassemblyLimitError, ReassemblyTimeoutError } from './errors.js';

/** A partial frame's buffer is at most this many times the bytes received so far (then doubles). */
export const RESERVE_FACTOR = 256;
const EMPTY = new Uint8Array(0);

/** Node-wide count of bytes held by partial frames. */
export class ReassemblyBudget {
  /** @param {number} limit */
  constructor(limit) {
    this.limit = limit;
    this.used = 0;
  }

  /** @param {number} n @returns {boolean} false (nothing charged) if over the limit */
  take(n) {
    if (this.used + n > this.limit) return false;
    this.used += n;
    return true;
  }

  /** @param {number} n */
  release(n) {
    this.used -= n;
  }
}

/**
 * Sends one large frame as chunks, a chunk at a time, so that only the frame
 * itself and the chunk being sent are in memory (no copy of the whole).
 */
export class ChunkCursor {
  /** @param {Uint8Array} frame @param {number} msgId @param {number} maxMessageBytes */
  constructor(frame, msgId, maxMessageBytes) {
    this.frame = frame;
    this.msgId = msgId;
    this.partBytes = maxMessageBytes - CHUNK_OVERHEAD;
    this.offset = 0;
    this.index = 0;
  }

  get done() {
    return this.offset >= this.frame.length;
  }

  /** @returns {Uint8Array} the next CHUNK frame */
  next() {
    const end = Math.min(this.offset + this.partBytes, this.frame.length);
    const chunk = encodeChunk(this.msgId, this.index, this.frame.length, this.frame.subarray(this.offset, end));
    this.offset = end;
    this.index++;
    return chunk;
  }
}

/**
 * Reassembles the chunked frames arriving on one link.
 */
export class Reassembler {
  /** Message id in progress, or -1. */
  #msgId = -1;
  #index = 0;
  #total = 0;
  #received = 0;
  #startedAt = 0;
  /** The frame being assembled (its first #received bytes are filled); its size is charged to the budget. */
  #frame = EMPTY;
  /** Chunks of this message id are ignored (it was refused); -1 if none. */
  #skipId = -1;

  /**
   * @param {{maxFrameBytes: number, budget: ReassemblyBudget, timeoutMs: number}} opts
   */
  constructor(opts) {
    this.maxFrameBytes = opts.maxFrameBytes;
    this.budget = opts.budget;
    this.timeoutMs = opts.timeoutMs;
  }

  /** Bytes received for the frame in progress. */
  get held() {
    return this.#received;
  }

  /** Bytes reserved (charged to the budget) for the frame in progress. */
  get reserved() {
    return this.#frame.length;
  }

  /**
   * Add one chunk. Returns the whole frame when this chunk completes it, else
   * null. Errors are reported through `report` and the offending frame is
   * dropped; a report never prevents a following, well-formed frame.
   * @param {import('./frames.js').ChunkFrame} c
   * @param {number} now ms
   * @param {(e: Error) => void} report
   * @returns {Uint8Array | null}
   */
  push(c, now, report) {
    if (c.index === 0) {
      if (this.#msgId !== -1) {
        report(new ChunkOrderError(`chunk 0 of message ${c.msgId} arrived while message ${this.#msgId} is incomplete (${this.#received} of ${this.#total} bytes); message ${this.#msgId} dropped`));
        this.drop();
      }
      this.#skipId = -1;
      if (c.total > this.maxFrameBytes) {
        this.#skipId = c.msgId;
        report(new FrameTooLargeError(c.total, this.maxFrameBytes, `chunked frame (message ${c.msgId})`));
        return null;
      }
      if (c.total === 0 || c.part.length === 0) {
        report(new ChunkOrderError(`chunk 0 of message ${c.msgId} is empty (total ${c.total})`));
        return null;
      }
      this.#msgId = c.msgId;
      this.#index = 0;
      this.#total = c.total;
      this.#received = 0;
      this.#startedAt = now;
    } else if (c.msgId === this.#skipId) {
      return null; // the rest of a message already refused: one report was enough
    } else if (c.msgId !== this.#msgId || c.index !== this.#index) {
      const expected = this.#msgId === -1 ? 'no chunked message is in progress' : `expected chunk ${this.#index} of message ${this.#msgId}`;
      report(new ChunkOrderError(`chunk ${c.index} of message ${c.msgId} arrived out of order: ${expected}`));
      if (this.#msgId !== -1) this.drop();
      this.#skipId = c.msgId;
      return null;
    }
    const end = this.#received + c.part.length;
    if (c.total !== this.#total || end > this.#total || c.part.length === 0) {
      report(new ChunkOrderError(`chunk ${c.index} of message ${c.msgId} does not fit: ${this.#received} + ${c.part.length} bytes of ${c.total} (declared ${this.#total})`));
      this.#skipId = c.msgId;
      this.drop();
      return null;
    }
    if (end > this.#frame.length && !this.#reserve(end)) {
      report(new ReassemblyLimitError(`reassembly memory is full (${this.budget.used} of ${this.budget.limit} bytes): message ${c.msgId} of ${c.total} bytes dropped`));
      this.#skipId = c.msgId;
      this.drop();
      return null;
    }
    this.#frame.set(c.part, this.#received);
    this.#received = end;
    this.#index++;
    if (end < this.#total) return null;
    const frame = this.#frame;
    this.drop();
    return frame;
  }

  /**
   * Make the frame's buffer hold at least `need` bytes: RESERVE_FACTOR times what has
   * arrived, or double, up to the total; the bytes so far are copied only when it grows
   * (a frame whose total fits the first reservation never is). False if over the budget.
   * @param {number} need
   */
  #reserve(need) {
    const old = this.#frame;
    const size = Math.min(this.#total, Math.max(need * (old.length === 0 ? RESERVE_FACTOR : 1), old.length * 2));
    if (!this.budget.take(size - old.length)) return false;
    const frame = new Uint8Array(size);
    if (this.#received > 0) frame.set(old.subarray(0, this.#received));
    this.#frame = frame;
    return true;
  }

  /**
   * Drop the frame in progress if it is older than the timeout.
   * @param {number} now @returns {Error | null} the error to report, if dropped
   */
  expire(now) {
    if (this.#msgId === -1 || now - this.#startedAt <= this.timeoutMs) return null;
    const e = new ReassemblyTimeoutError(`message ${this.#msgId} incomplete after ${this.timeoutMs} ms (${this.#received} of ${this.#total} bytes): dropped`);
    this.#skipId = this.#msgId;
    this.drop();
    return e;
  }

  /** Forget the frame in progress and return its buffer's bytes to the budget. */
  drop() {
    this.budget.release(this.#frame.length);
    this.#msgId = -1;
    this.#frame = EMPTY;
    this.#received = 0;
    this.#total = 0;
    this.#index = 0;
  }
}
