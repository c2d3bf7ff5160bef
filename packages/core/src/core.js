// @ts-check
/**
 * Core: the JS face of one tm_core (a node's tuple spaces and scheduler):
 * creating spaces, and processes with what wakes them — the scheduler,
 * mailboxes and timers. The wasm instance, its memory and the transfer
 * area are CoreInstance's (instance.js); space handles are Space's
 * (space.js).
 *
 * Invariants:
 *  - Message values stay in JavaScript: the core queues handles, indexes
 *    into `values`; a handle is released (its slot back on `free`) exactly
 *    when its value leaves the core (received, taken, drained, cancelled)
 *    or its push failed.
 *  - Every operation is one call into wasm; a failure status throws its
 *    error (errors.js) with the core's message, while "nothing there" and
 *    "now waits" are results (undefined, BLOCKED, TIMED_OUT).
 */
import { BLOCKED, TIMED_OUT, checkClock } from './blocking.js';
import { InvalidArgumentError } from './errors.js';
import { CoreInstance, destroyedExports } from './instance.js';
import { HANDLE_MAX, PRIORITY_DEFAULT, REASONS, STATES, Status, XFER } from './layout.js';
import { Space, spaceRegistry } from './space.js';

/** @typedef {import('./instance.js').CoreOptions} CoreOptions */
/** @typedef {import('./blocking.js').WaitOptions} WaitOptions */

export class Core extends CoreInstance {
  /**
   * Use loadCore() rather than this constructor.
   * @param {WebAssembly.Module} module the compiled termite_core.wasm
   * @param {CoreOptions} [options]
   */
  constructor(module, options = {}) {
    super(module, options);
    /** Message values by handle; handles are reused from `free`. @type {unknown[]} */
    this.values = [];
    /** @type {number[]} */
    this.free = [];
    /** Live Space handles by id. @type {Map<number, WeakRef<Space>>} */
    this.spaces = new Map();
  }

  // ---- spaces ------------------------------------------------------------------

  /** Create a new, empty tuple space. @returns {Space} */
  createSpace() {
    const st = this.ex.tm_space_create(this.p, this.outU32);
    if (st !== 0) this._fail(st);
    return this.space(this._outU32(0));
  }

  /**
   * The handle for a space id (one handle per id while it is reachable).
   * Does not check that the space exists; operations do.
   * @param {number} id
   * @returns {Space}
   */
  space(id) {
    const existing = this.spaces.get(id)?.deref();
    if (existing) return existing;
    const s = new Space(this, id);
    this.spaces.set(id, new WeakRef(s));
    spaceRegistry.register(s, { core: new WeakRef(this), id }, s);
    return s;
  }

  /** A Space handle was collected without destroy(). @param {number} id */
  _collectSpace(id) {
    if (this.spaces.get(id)?.deref() !== undefined) return; /* a newer handle */
    this.spaces.delete(id);
    if (this.ex !== destroyedExports) this.ex.tm_space_destroy(this.p, id);
  }

  // ---- scheduler ------------------------------------------------------------------

  /**
   * Create a ready process.
   * @param {{ priority?: number, deadline?: number }} [options] priority
   *   0 (most urgent) .. 3, default 2; deadline in ms (earliest first
   *   within a priority), default Infinity (none: FIFO after deadlines).
   * @returns {number} the pid
   */
  spawn(options = {}) {
    const pid = this.ex.tm_wasm_spawn(this.p, options.priority ?? PRIORITY_DEFAULT, options.deadline ?? Infinity) >>> 0;
    if (pid === 0) this._fail(this.ex.tm_core_last_status(this.p));
    return pid;
  }

  /**
   * Pick the process to run next and mark it running; `wakeReason` then
   * says why it became ready. 0 if none is ready.
   * @returns {number}
   */
  next() {
    const pid = this.ex.tm_wasm_next(this.p) >>> 0;
    if (pid === 0) {
      const st = this.ex.tm_core_last_status(this.p);
      if (st < 0) this._fail(st);
    }
    return pid;
  }

  /** Why the process returned by the last next() became ready:
   * 'spawn', 'yield', 'message', 'tuple', 'timeout' or 'interrupt'. */
  get wakeReason() {
    if (this._stale) this._views();
    return REASONS[/** @type {Uint32Array} */ (this.u32)[(this.xfer + XFER.REASON) >> 2]] ?? 'none';
  }

  /** The running process goes back to the ready queue. @param {number} pid */
  yield(pid) {
    const st = this.ex.tm_proc_yield(this.p, pid);
    if (st !== 0) this._fail(st);
  }

  /**
   * The running process sleeps until `until` (ms) on a clock.
   * @param {number} pid
   * @param {number} until
   * @param {{ clock?: number }} [options]
   * @returns {boolean} true if it now waits, false if `until` has passed
   */
  sleep(pid, until, options = {}) {
    const clock = options.clock ?? 0;
    checkClock(clock, 'sleep');
    const st = this.ex.tm_proc_sleep(this.p, pid, clock, until);
    if (st < 0) this._fail(st);
    return st === Status.BLOCKED;
  }

  /** Wake a waiting process with reason 'interrupt' (cancels its wait).
   * @param {number} pid */
  interrupt(pid) {
    const st = this.ex.tm_proc_interrupt(this.p, pid);
    if (st !== 0) this._fail(st);
  }

  /**
   * End a process: its queued messages and pending sendAfter values are
   * released, its waits and timers cancelled, its slot freed.
   * @param {number} pid
   */
  exit(pid) {
    this.drain(pid);
    const st = this.ex.tm_proc_exit(this.p, pid);
    if (st !== 0) this._fail(st);
  }

  /**
   * Remove and return every message value the core holds for a process
   * (mailbox first, then pending sendAfter values).
   * @param {number} pid
   * @returns {unknown[]}
   */
  drain(pid) {
    const got = [];
    for (let round = 0; round < 1 << 20; round++) {
      if (this._stale) this._views();
      const x = this.xfer >> 2, data = this.u32[x + 2], max = Math.min(this.u32[x + 1] >> 2, 4096);
      const st = this.ex.tm_proc_drain(this.p, pid, data, max, this.outU32);
      if (st !== 0) this._fail(st);
      const n = this._outU32(0);
      for (let i = 0; i < n; i++) got.push(this._release(/** @type {Uint32Array} */ (this.u32)[(data >> 2) + i]));
      if (n < max) break;
    }
    return got;
  }

  /**
   * State of a process: 'ready', 'running', 'waiting-message',
   * 'waiting-tuple', 'waiting-timer' or 'exited'.
   * @param {number} pid
   * @returns {string}
   */
  state(pid) {
    const st = this.ex.tm_proc_state(this.p, pid, this.outU32);
    if (st !== 0) this._fail(st);
    return STATES[this._outU32(0)];
  }

  /** @param {number} pid @param {number} priority 0..3 */
  setPriority(pid, priority) {
    const st = this.ex.tm_proc_set_priority(this.p, pid, priority);
    if (st !== 0) this._fail(st);
  }

  /** @param {number} pid @param {number} deadline ms, Infinity for none */
  setDeadline(pid, deadline) {
    const st = this.ex.tm_proc_set_deadline(this.p, pid, deadline);
    if (st !== 0) this._fail(st);
  }

  /** Bytes the core holds for a process. @param {number} pid @returns {number} */
  processLiveBytes(pid) {
    const st = this.ex.tm_proc_live_bytes(this.p, pid, this.outU32);
    if (st !== 0) this._fail(st);
    return this._outU32(0);
  }

  /** Live and ready process counts. @returns {{ live: number, ready: number }} */
  processStats() {
    this.ex.tm_sched_stats(this.p, this.outU32, this.outU32 + 4);
    return { live: this._outU32(0), ready: this._outU32(1) };
  }

  // ---- mailboxes -------------------------------------------------------------------

  /** @param {unknown} value @returns {number} */
  _handle(value) {
    const h = this.free.length > 0 ? /** @type {number} */ (this.free.pop()) : this.values.length;
    if (h > HANDLE_MAX) throw new InvalidArgumentError('too many messages in flight');
    this.values[h] = value;
    return h;
  }

  /** @param {number} h */
  _release(h) {
    const v = this.values[h];
    this.values[h] = undefined;
    this.free.push(h);
    return v;
  }

  /**
   * Append a message to a process's mailbox (waking it if it waits for
   * mail). Values stay in JavaScript; the core queues a handle.
   * @param {number} pid
   * @param {unknown} value anything but undefined
   */
  send(pid, value) {
    if (value === undefined) throw new InvalidArgumentError('send: a message cannot be undefined');
    const h = this._handle(value);
    const st = this.ex.tm_mbox_push(this.p, pid, h);
    if (st !== 0) {
      this._release(h);
      this._fail(st);
    }
  }

  /**
   * Take the oldest message, or undefined if the mailbox is empty.
   * @param {number} pid
   * @returns {unknown}
   */
  receive(pid) {
    const h = this.ex.tm_wasm_take_first(this.p, pid);
    if (h >= 0) return this._release(h);
    if (h === -1) return undefined;
    return this._fail(this.ex.tm_core_last_status(this.p));
  }

  /**
   * `?` in one call: take the oldest message, or if the mailbox is empty make the
   * running process wait for one until `timeoutAt` (ms on clock 0).
   * @param {number} pid
   * @param {number} [timeoutAt] default Infinity
   * @returns {unknown} the message; BLOCKED if the process now waits; TIMED_OUT if
   *   the mailbox is empty and timeoutAt has already passed
   */
  receiveOrWait(pid, timeoutAt = Infinity) {
    const h = this.ex.tm_wasm_receive_or_wait(this.p, pid, 0, timeoutAt);
    if (h >= 0) return this._release(h);
    if (h === -1) return BLOCKED;
    if (h === -3) return TIMED_OUT;
    return this._fail(this.ex.tm_core_last_status(this.p));
  }

  /**
   * The oldest message with sequence number >= cursor (0: the oldest),
   * without removing it: for selective receive.
   * @param {number} pid
   * @param {number} [cursor]
   * @returns {{ seq: number, value: unknown } | undefined}
   */
  peek(pid, cursor = 0) {
    const st = this.ex.tm_mbox_peek(this.p, pid, cursor, this.outU32, this.outU32 + 4);
    if (st === Status.NOMATCH) return undefined;
    if (st !== 0) this._fail(st);
    return { seq: this._outU32(0), value: this.values[this._outU32(1)] };
  }

  /**
   * Remove the message with this sequence number; its value, or undefined.
   * @param {number} pid
   * @param {number} seq
   */
  take(pid, seq) {
    const st = this.ex.tm_mbox_take(this.p, pid, seq, this.outU32);
    if (st === Status.NOMATCH) return undefined;
    if (st !== 0) this._fail(st);
    return this._release(this._outU32(0));
  }

  /**
   * The running process waits for a message with sequence >= cursor.
   * @param {number} pid
   * @param {WaitOptions & { cursor?: number }} [options]
   * @returns {'ready' | 'blocked' | 'timeout'} 'ready': such a message is
   *   already there; 'timeout': none, and timeoutAt has passed.
   */
  waitMessage(pid, options = {}) {
    const clock = options.clock ?? 0;
    checkClock(clock, 'waitMessage');
    const st = this.ex.tm_mbox_wait(this.p, pid, options.cursor ?? 0, clock, options.timeoutAt ?? Infinity);
    if (st < 0) this._fail(st);
    return st === 0 ? 'ready' : st === Status.BLOCKED ? 'blocked' : 'timeout';
  }

  /** Messages queued for a process. @param {number} pid @returns {number} */
  mailboxSize(pid) {
    const st = this.ex.tm_mbox_count(this.p, pid, this.outU32);
    if (st !== 0) this._fail(st);
    return this._outU32(0);
  }

  // ---- timers -----------------------------------------------------------------------

  /**
   * Deliver `value` to the process's mailbox when `clock` reaches `when`.
   * @param {number} pid
   * @param {unknown} value
   * @param {number} when absolute ms on the clock
   * @param {{ clock?: number }} [options]
   * @returns {number} the timer id
   */
  sendAfter(pid, value, when, options = {}) {
    const clock = options.clock ?? 0;
    checkClock(clock, 'sendAfter');
    const h = this._handle(value);
    const st = this.ex.tm_timer_add(this.p, pid, clock, when, h, this.outU32);
    if (st !== 0) {
      this._release(h);
      this._fail(st);
    }
    return this._outU32(0);
  }

  /**
   * Cancel a sendAfter timer; returns its value, or undefined if it has
   * already fired or was cancelled.
   * @param {number} timer
   */
  cancelTimer(timer) {
    const st = this.ex.tm_timer_cancel(this.p, timer, this.outU32);
    if (st === Status.E_NO_TIMER) return undefined;
    if (st !== 0) this._fail(st);
    return this._release(this._outU32(0));
  }

  /**
   * Move a clock to `now` (ms), firing due timers: timed-out waits wake
   * with reason 'timeout', sendAfter values are delivered.
   * @param {number} clock
   * @param {number} now
   * @returns {number} timers fired
   */
  advance(clock, now) {
    checkClock(clock, 'advance');
    const st = this.ex.tm_clock_advance(this.p, clock, now, this.outU32);
    if (st !== 0) this._fail(st);
    return this._outU32(0);
  }

  /** The clock's current time. @param {number} clock @returns {number} */
  now(clock) {
    checkClock(clock, 'now');
    this.ex.tm_clock_now(this.p, clock, this.outF64);
    if (this._stale) this._views();
    return /** @type {Float64Array} */ (this.f64)[this.outF64 >> 3];
  }

  /** The earliest pending timer on a clock (Infinity if none).
   * @param {number} clock @returns {number} */
  nextTimer(clock) {
    checkClock(clock, 'nextTimer');
    this.ex.tm_clock_next(this.p, clock, this.outF64);
    if (this._stale) this._views();
    return /** @type {Float64Array} */ (this.f64)[this.outF64 >> 3];
  }

  // ---- tuples delivered by wake-ups, bytes, accounting -----------------------------------

  /**
   * The tuple delivered to a process woken with reason 'tuple', or
   * undefined if it holds none.
   * @param {number} pid
   */
  takeTuple(pid) {
    const st = this.ex.tm_proc_take_tuple(this.p, pid, this.outResult);
    if (st === Status.NOMATCH) return undefined;
    if (st !== 0) this._fail(st);
    return this._result();
  }

  /** takeTuple, as canonical CBOR bytes. @param {number} pid @returns {Uint8Array | undefined} */
  takeTupleBytes(pid) {
    const st = this.ex.tm_proc_take_tuple(this.p, pid, this.outResult);
    if (st === Status.NOMATCH) return undefined;
    if (st !== 0) this._fail(st);
    return this._resultBytes();
  }

  /** Digest of the scheduler's observable state (processes, queues,
   * mailboxes, timers). @returns {bigint} */
  schedulerDigest() {
    return BigInt.asUintN(64, this.ex.tm_sched_digest(this.p));
  }

  /** Free the core and its memory, and the message values it held.
   * Idempotent; later calls throw CoreDestroyedError. */
  destroy() {
    super.destroy();
    this.values = [];
    this.free = [];
  }
}
