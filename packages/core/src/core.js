// @ts-check
/**
 * Core: one wasm instance holding one tm_core (a node's tuple spaces and
 * scheduler), and Space handles on its spaces.
 *
 * Every operation is one call into wasm. Values are encoded straight into
 * the core's transfer area (whose address is read from its header before
 * each call, since it may move when it grows) and results are decoded
 * straight out of it; typed-array views are rebuilt only when the wasm
 * memory has grown.
 */
import { Formal, Sym, decodeFrom, encode, encodeInto } from './codec.js';
import { CoreDestroyedError, InvalidArgumentError, errorFor } from './errors.js';
import {
  CLOCKS, HANDLE_MAX, MAX_DEPTH, PRIORITY_DEFAULT, REASONS, STATES, Status, XFER, XFER_KEEP, XFER_MAGIC,
} from './layout.js';

/** Returned by blocking operations whose process now waits. */
export const BLOCKED = Symbol.for('termite.core.blocked');
/** Returned by receiveOrWait when the timeout had already passed. */
export const TIMED_OUT = Symbol.for('termite.core.timed-out');

/**
 * @typedef {object} CoreOptions
 * @property {number} [memoryLimit] most bytes the core may hold; 0 (the
 *   default) means no limit
 * @property {number} [maxDepth] deepest CBOR nesting accepted (default 64,
 *   at most 1024)
 * @property {number} [maxItemBytes] largest tuple or template in bytes
 *   (default 16 MiB)
 * @property {number} [xferBytes] initial transfer area size (default 64 KiB)
 * @property {bigint} [hashSeed] seed of the field index hash (default:
 *   random, from crypto.getRandomValues)
 */

/**
 * @typedef {object} WaitOptions
 * @property {number} [clock] clock id (0..3) the timeout is measured on
 *   (default 0)
 * @property {number} [timeoutAt] absolute time on that clock in ms;
 *   Infinity (the default) waits forever
 */

/** @typedef {{ [name: string]: Function } & { memory: WebAssembly.Memory }} Exports */

/** Templates remembered by _putTemplate, and the bytes of `keep` each may use. */
const TEMPLATE_SLOTS = 4;
const TEMPLATE_SLOT_BYTES = XFER_KEEP / TEMPLATE_SLOTS;

/**
 * Whether a[i] === b[i] for i < n (both have n elements). Short templates
 * are compared without a loop: a loop of === over mixed strings, numbers
 * and formals costs V8 several times the unrolled comparisons.
 * @param {unknown[]} a @param {unknown[]} b @param {number} n
 */
function sameElements(a, b, n) {
  switch (n) {
    case 1: return a[0] === b[0];
    case 2: return a[0] === b[0] && a[1] === b[1];
    case 3: return a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
    case 4: return a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3];
    default:
      for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
      return true;
  }
}

/** Every later call on a destroyed core throws. */
const destroyedExports = /** @type {Exports} */ (/** @type {unknown} */ (new Proxy({}, {
  get() {
    return () => { throw new CoreDestroyedError('the core was destroyed'); };
  },
})));

/** Destroys spaces whose handle was garbage-collected without destroy(). */
const spaceRegistry = new FinalizationRegistry(
  /** @param {{ core: WeakRef<Core>, id: number }} held */
  (held) => held.core.deref()?._collectSpace(held.id),
);

/** @param {unknown} n @param {string} what */
function checkClock(n, what) {
  if (!Number.isInteger(n) || /** @type {number} */ (n) < 0 || /** @type {number} */ (n) >= CLOCKS)
    throw new InvalidArgumentError(`${what}: clock must be an integer 0..${CLOCKS - 1}, got ${String(n)}`);
}

export class Core {
  /**
   * Use loadCore() rather than this constructor.
   * @param {WebAssembly.Module} module the compiled termite_core.wasm
   * @param {CoreOptions} [options]
   */
  constructor(module, options = {}) {
    const holder = { grew: () => {} };
    const instance = new WebAssembly.Instance(module, {
      env: { emscripten_notify_memory_growth: () => holder.grew() },
    });
    holder.grew = () => { this._stale = true; };
    /** @type {Exports} */
    this.ex = /** @type {any} */ (instance.exports);
    this.memory = this.ex.memory;
    this.ex._initialize();
    const depth = options.maxDepth ?? 64;
    if (!Number.isInteger(depth) || depth < 1 || depth > MAX_DEPTH)
      throw new InvalidArgumentError(`maxDepth must be an integer 1..${MAX_DEPTH}, got ${String(options.maxDepth)}`);
    const limit = options.memoryLimit ?? 0;
    if (!(limit >= 0)) throw new InvalidArgumentError(`memoryLimit must be >= 0, got ${String(limit)}`);
    const seed = options.hashSeed ?? randomSeed();
    /** Address of the tm_core. */
    this.p = this.ex.tm_wasm_core_new(
      limit, Number(seed & 0xffffffffn), Number((seed >> 32n) & 0xffffffffn),
      depth, options.maxItemBytes ?? 0, options.xferBytes ?? 0);
    if (this.p === 0) throw errorFor(Status.E_NOMEM, 'out of memory while creating the core');
    /** Address of the transfer area header. */
    this.xfer = this.ex.tm_core_xfer(this.p);
    /** Views on the wasm memory, rebuilt when it grows. */
    this.u8 = new Uint8Array(0);
    this.dv = new DataView(this.u8.buffer);
    this.u32 = new Uint32Array(0);
    this.f64 = new Float64Array(0);
    /** Start of the transfer area's data (as of the last _put). */
    this.data = 0;
    /** Whether the memory grew since the views were made. */
    this._stale = true;
    this._views();
    if (this.u32[(this.xfer + XFER.MAGIC) >> 2] !== XFER_MAGIC)
      throw errorFor(Status.E_CORRUPT, 'transfer area magic mismatch: the .wasm and this package disagree');
    /** Message values by handle; handles are reused from `free`. @type {unknown[]} */
    this.values = [];
    /** @type {number[]} */
    this.free = [];
    /** Live Space handles by id. @type {Map<number, WeakRef<Space>>} */
    this.spaces = new Map();
    /** Scratch out-parameter addresses inside the transfer area header. */
    this.outU32 = this.xfer + XFER.U32;
    this.outF64 = this.xfer + XFER.F64;
    this.outResult = this.xfer + XFER.RESULT_BYTES;
    /**
     * Recently used templates: the array and a copy of its elements when
     * it was encoded; slot k's bytes stay in the transfer area's `keep`
     * field at _tmplAt(k), tmplLen[k] of them. See _putTemplate.
     * @type {(unknown[] | undefined)[]} */
    this.tmplArr = [undefined, undefined, undefined, undefined];
    /** @type {unknown[][]} */
    this.tmplVals = [[], [], [], []];
    this.tmplLen = [0, 0, 0, 0];
    this.tmplNext = 0;
    /** The slot _putTemplate found last (checked first). */
    this.tmplLast = 0;
    this.keep = this.xfer + XFER.KEEP;
    /** The hot exports, loaded once (the exports object has many
     * properties; destroy() replaces these with throwing functions). */
    this.fnOut = this.ex.tm_space_out;
    this.fnInp = this.ex.tm_space_inp;
  }

  /** Rebuild the typed-array views (after the wasm memory grew). */
  _views() {
    const buf = this.memory.buffer;
    this.u8 = new Uint8Array(buf);
    this.dv = new DataView(buf);
    this.u32 = new Uint32Array(buf);
    this.f64 = new Float64Array(buf);
    this._stale = false;
  }

  /**
   * Encode a value into the transfer area; returns its length (its start
   * is this.data).
   * @param {unknown} value
   */
  _put(value) {
    if (this._stale) this._views();
    const u32 = this.u32, x = this.xfer >> 2, data = u32[x + 2];
    this.data = data;
    const endAt = encodeInto(value, this.u8, this.dv, data, data + u32[x + 1]);
    if (endAt >= 0) return endAt - data;
    return this._putBytes(encode(value));
  }

  /**
   * _put for a template. Loops pass the same template array again and
   * again: an array seen recently whose elements are still the same (===)
   * is not encoded again; its bytes from last time are still in the
   * transfer area's `keep` field, which the core never writes, and are
   * passed from there without a copy. Only arrays whose elements are all
   * immutable (primitives, Formal, Sym) are remembered, so equal elements
   * mean equal bytes; the core still validates what it receives.
   * @param {unknown[]} template
   */
  _putTemplate(template) {
    const arrs = this.tmplArr;
    let k = this.tmplLast;
    if (arrs[k] !== template) {
      k = 0;
      while (k < TEMPLATE_SLOTS && arrs[k] !== template) k++;
    }
    if (k < TEMPLATE_SLOTS) {
      const vals = this.tmplVals[k], n = vals.length;
      if (template.length === n && sameElements(template, vals, n)) {
        this.tmplLast = k;
        this.data = this.keep + k * TEMPLATE_SLOT_BYTES;
        return this.tmplLen[k];
      }
    }
    const len = this._put(template);
    if (len <= TEMPLATE_SLOT_BYTES && Array.isArray(template) && template.length <= 8) {
      for (let i = 0; i < template.length; i++) {
        const v = template[i];
        if (typeof v === 'object' ? v !== null && !(v instanceof Formal) && !(v instanceof Sym)
          : typeof v === 'function') return len;
      }
      const k = this.tmplNext;
      this.tmplNext = (k + 1) % TEMPLATE_SLOTS;
      arrs[k] = template;
      this.tmplVals[k] = template.slice();
      this.tmplLen[k] = len;
      /** @type {Uint8Array} */ (this.u8).copyWithin(this._tmplAt(k), this.data, this.data + len);
    }
    return len;
  }

  /** Where template slot k's bytes are kept (inside the transfer area's `keep`). @param {number} k */
  _tmplAt(k) {
    return this.keep + k * TEMPLATE_SLOT_BYTES;
  }

  /** Copy encoded bytes into the transfer area. @param {Uint8Array} bytes */
  _putBytes(bytes) {
    if (this._stale) this._views();
    const x = this.xfer >> 2;
    if (bytes.length > this.u32[x + 1]) {
      const st = this.ex.tm_core_xfer_reserve(this.p, bytes.length);
      if (st !== 0) this._fail(st);
      if (this._stale) this._views();
    }
    this.data = this.u32[x + 2];
    /** @type {Uint8Array} */ (this.u8).set(bytes, this.data);
    return bytes.length;
  }

  /** Decode the result bytes the last call left in the transfer area. */
  _result() {
    if (this._stale) this._views();
    const r = this.outResult >> 2, ptr = this.u32[r], len = this.u32[r + 1];
    return decodeFrom(/** @type {Uint8Array} */ (this.u8), ptr, ptr + len);
  }

  /** A copy of the result bytes. */
  _resultBytes() {
    if (this._stale) this._views();
    const r = this.outResult >> 2, ptr = this.u32[r], len = this.u32[r + 1];
    return /** @type {Uint8Array} */ (this.u8).slice(ptr, ptr + len);
  }

  /** The n-th scratch u32 out-parameter. @param {number} n */
  _outU32(n) {
    if (this._stale) this._views();
    return /** @type {Uint32Array} */ (this.u32)[(this.outU32 >> 2) + n];
  }

  /** The core's message for its last failure. */
  errorMessage() {
    if (this._stale) this._views();
    const u8 = /** @type {Uint8Array} */ (this.u8);
    const at = this.ex.tm_core_errmsg(this.p);
    let e = at;
    while (e < at + 256 && u8[e] !== 0) e++;
    return new TextDecoder().decode(u8.subarray(at, e));
  }

  /** Throw the error for status st with the core's message. @param {number} st @returns {never} */
  _fail(st) {
    throw errorFor(st, this.errorMessage());
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

  /**
   * Validate CBOR bytes and return their canonical form (RFC 8949 §4.2.1).
   * @param {Uint8Array} bytes
   * @returns {Uint8Array}
   */
  canonicalize(bytes) {
    const len = this._putBytes(bytes);
    const st = this.ex.tm_cbor_canonicalize(this.p, this.data, len, this.outResult, 0);
    if (st !== 0) this._fail(st);
    return this._resultBytes();
  }

  /** Bytes the core holds in total. */
  get liveBytes() { return this.ex.tm_core_live_bytes(this.p) >>> 0; }

  /** Change the memory limit (0: none). @param {number} bytes */
  setMemoryLimit(bytes) { this.ex.tm_core_set_memory_limit(this.p, bytes); }

  /** Run every consistency check; throws CorruptionError on a violation. */
  check() {
    const st = this.ex.tm_core_check(this.p);
    if (st !== 0) this._fail(st);
  }

  /** Digest of the scheduler's observable state (processes, queues,
   * mailboxes, timers). @returns {bigint} */
  schedulerDigest() {
    return BigInt.asUintN(64, this.ex.tm_sched_digest(this.p));
  }

  /** Whether destroy() was called. */
  get destroyed() { return this.ex === destroyedExports; }

  /** Free the core and its memory. Idempotent; later calls throw
   * CoreDestroyedError. */
  destroy() {
    if (this.ex === destroyedExports) return;
    this.ex.tm_core_destroy(this.p);
    this.ex = destroyedExports;
    this.fnOut = this.fnInp = destroyedExports.tm_space_out;
    this.values = [];
    this.free = [];
  }
}

export class Space {
  /**
   * Use core.createSpace() or core.space(id).
   * @param {Core} core
   * @param {number} id
   */
  constructor(core, id) {
    /** The core holding this space. */
    this.core = core;
    /** The space's id in the core. */
    this.id = id;
  }

  /**
   * Add a tuple (an array of values). Waiting rd templates it matches get
   * a copy; the first waiting in takes it.
   * @param {unknown[]} tuple
   */
  out(tuple) {
    const c = this.core, len = c._put(tuple);
    const st = c.fnOut(c.p, this.id, c.data, len, 0);
    if (st !== 0) c._fail(st);
  }

  /**
   * Remove and return the oldest tuple matching the template, or
   * undefined if none does.
   * @param {unknown[]} template values and formals
   * @returns {unknown[] | undefined}
   */
  inp(template) {
    const c = this.core, len = c._putTemplate(template);
    const st = c.fnInp(c.p, this.id, c.data, len, c.outResult);
    if (st === 0) return /** @type {unknown[]} */ (c._result());
    if (st === Status.NOMATCH) return undefined;
    return c._fail(st);
  }

  /**
   * Return a copy of the oldest matching tuple, or undefined.
   * @param {unknown[]} template
   * @returns {unknown[] | undefined}
   */
  rdp(template) {
    const c = this.core, len = c._putTemplate(template);
    const st = c.ex.tm_space_rdp(c.p, this.id, c.data, len, c.outResult);
    if (st === 0) return /** @type {unknown[]} */ (c._result());
    if (st === Status.NOMATCH) return undefined;
    return c._fail(st);
  }

  /**
   * Blocking in for the running process `pid`: the tuple if one matches
   * now; BLOCKED if the process now waits (after next() reports it with
   * reason 'tuple', collect the tuple with core.takeTuple(pid)); undefined
   * if the timeout has already passed.
   * @param {number} pid
   * @param {unknown[]} template
   * @param {WaitOptions} [options]
   * @returns {unknown[] | typeof BLOCKED | undefined}
   */
  in(pid, template, options = {}) {
    return this._wait(pid, template, options, true);
  }

  /**
   * Blocking rd for the running process `pid` (as in(), without removal).
   * @param {number} pid
   * @param {unknown[]} template
   * @param {WaitOptions} [options]
   * @returns {unknown[] | typeof BLOCKED | undefined}
   */
  rd(pid, template, options = {}) {
    return this._wait(pid, template, options, false);
  }

  /**
   * @param {number} pid @param {unknown[]} template @param {WaitOptions} options
   * @param {boolean} remove
   * @returns {unknown[] | typeof BLOCKED | undefined}
   */
  _wait(pid, template, options, remove) {
    const c = this.core, clock = options.clock ?? 0;
    checkClock(clock, remove ? 'in' : 'rd');
    const len = c._putTemplate(template);
    const fn = remove ? c.ex.tm_space_in : c.ex.tm_space_rd;
    const st = fn(c.p, this.id, c.data, len, pid, clock, options.timeoutAt ?? Infinity, c.outResult);
    if (st === 0) return /** @type {unknown[]} */ (c._result());
    if (st === Status.BLOCKED) return BLOCKED;
    if (st === Status.NOMATCH) return undefined;
    return c._fail(st);
  }

  /**
   * Number of tuples matching the template (all tuples of an arity with
   * formal.any in every field).
   * @param {unknown[]} template
   * @returns {number}
   */
  count(template) {
    const c = this.core, len = c._putTemplate(template);
    const st = c.ex.tm_space_count(c.p, this.id, c.data, len, c.outU32);
    if (st !== 0) c._fail(st);
    return c._outU32(0);
  }

  /** @returns {{ tuples: number, waiters: number, liveBytes: number }} */
  stats() {
    const c = this.core, o = c.outU32;
    const st = c.ex.tm_space_stats(c.p, this.id, o, o + 4, o + 8);
    if (st !== 0) c._fail(st);
    return { tuples: c._outU32(0), waiters: c._outU32(1), liveBytes: c._outU32(2) };
  }

  /** Number of stored tuples. */
  get size() { return this.stats().tuples; }
  /** Number of waiting templates. */
  get waiters() { return this.stats().waiters; }
  /** Bytes held by the space (tuples and index). */
  get liveBytes() { return this.stats().liveBytes; }

  // ---- byte-level variants: already-encoded CBOR in, canonical CBOR out ----

  /** out() for an encoded tuple. @param {Uint8Array} bytes */
  outBytes(bytes) {
    const c = this.core, len = c._putBytes(bytes);
    const st = c.ex.tm_space_out(c.p, this.id, c.data, len, 0);
    if (st !== 0) c._fail(st);
  }

  /** inp() for an encoded template. @param {Uint8Array} bytes @returns {Uint8Array | undefined} */
  inpBytes(bytes) { return this._findBytes(bytes, true); }

  /** rdp() for an encoded template. @param {Uint8Array} bytes @returns {Uint8Array | undefined} */
  rdpBytes(bytes) { return this._findBytes(bytes, false); }

  /** @param {Uint8Array} bytes @param {boolean} remove */
  _findBytes(bytes, remove) {
    const c = this.core, len = c._putBytes(bytes);
    const fn = remove ? c.ex.tm_space_inp : c.ex.tm_space_rdp;
    const st = fn(c.p, this.id, c.data, len, c.outResult);
    if (st === 0) return c._resultBytes();
    if (st === Status.NOMATCH) return undefined;
    return c._fail(st);
  }

  /** in() for an encoded template.
   * @param {number} pid @param {Uint8Array} bytes @param {WaitOptions} [options]
   * @returns {Uint8Array | typeof BLOCKED | undefined} */
  inBytes(pid, bytes, options = {}) { return this._waitBytes(pid, bytes, options, true); }

  /** rd() for an encoded template.
   * @param {number} pid @param {Uint8Array} bytes @param {WaitOptions} [options]
   * @returns {Uint8Array | typeof BLOCKED | undefined} */
  rdBytes(pid, bytes, options = {}) { return this._waitBytes(pid, bytes, options, false); }

  /** @param {number} pid @param {Uint8Array} bytes @param {WaitOptions} options @param {boolean} remove */
  _waitBytes(pid, bytes, options, remove) {
    const c = this.core, clock = options.clock ?? 0;
    checkClock(clock, remove ? 'in' : 'rd');
    const len = c._putBytes(bytes);
    const fn = remove ? c.ex.tm_space_in : c.ex.tm_space_rd;
    const st = fn(c.p, this.id, c.data, len, pid, clock, options.timeoutAt ?? Infinity, c.outResult);
    if (st === 0) return c._resultBytes();
    if (st === Status.BLOCKED) return BLOCKED;
    if (st === Status.NOMATCH) return undefined;
    return c._fail(st);
  }

  /** count() for an encoded template. @param {Uint8Array} bytes @returns {number} */
  countBytes(bytes) {
    const c = this.core, len = c._putBytes(bytes);
    const st = c.ex.tm_space_count(c.p, this.id, c.data, len, c.outU32);
    if (st !== 0) c._fail(st);
    return c._outU32(0);
  }

  /** Run the space's consistency check; throws CorruptionError. */
  check() {
    const st = this.core.ex.tm_space_check(this.core.p, this.id);
    if (st !== 0) this.core._fail(st);
  }

  /** Order-sensitive digest of the contents. @returns {bigint} */
  digest() {
    const c = this.core;
    const st = c.ex.tm_space_digest(c.p, this.id, c.outF64);
    if (st !== 0) c._fail(st);
    if (c._stale) c._views();
    return /** @type {DataView} */ (c.dv).getBigUint64(c.outF64, true);
  }

  /** Destroy the space (waiting processes wake with 'interrupt'). Idempotent. */
  destroy() {
    const c = this.core;
    if (c.destroyed || c.spaces.get(this.id)?.deref() !== this) return;
    c.spaces.delete(this.id);
    spaceRegistry.unregister(this);
    const st = c.ex.tm_space_destroy(c.p, this.id);
    if (st !== 0 && st !== Status.E_NO_SPACE) c._fail(st);
  }

  /** Alias of destroy(). */
  free() { this.destroy(); }
}

/** A random 64-bit seed for the field index hash. */
function randomSeed() {
  const w = new Uint32Array(2);
  globalThis.crypto.getRandomValues(w);
  return (BigInt(w[1]) << 32n) | BigInt(w[0]);
}
