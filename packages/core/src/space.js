// @ts-check
/**
 * Space: the handle on one tuple space of a core — out, inp, rdp, count,
 * and in/rd for a running process, on JS values or on encoded CBOR bytes.
 *
 * Invariants:
 *  - A core holds at most one reachable handle per space id (Core.space);
 *    a handle collected without destroy() destroys its space
 *    (spaceRegistry), unless a newer handle for the id exists.
 *  - Every operation is one call into wasm through the core's transfer
 *    area (instance.js); results are decoded from it before the next call.
 */
import { BLOCKED, checkClock } from './blocking.js';
import { Status } from './layout.js';

/** @typedef {import('./core.js').Core} Core */
/** @typedef {import('./blocking.js').WaitOptions} WaitOptions */

/** Destroys spaces whose handle was garbage-collected without destroy(). */
export const spaceRegistry = new FinalizationRegistry(
  /** @param {{ core: WeakRef<Core>, id: number }} held */
  (held) => held.core.deref()?._collectSpace(held.id),
);

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

  /**
   * Remove one tuple whose bytes are exactly these, formals included (by what it is, not
   * what it matches: an S/Net tuple never takes an actual it would match); whether one was.
   * @param {Uint8Array} bytes @returns {boolean}
   */
  removeExactBytes(bytes) {
    const c = this.core, len = c._putBytes(bytes);
    const st = c.ex.tm_space_remove_exact(c.p, this.id, c.data, len);
    if (st === 0) return true;
    if (st === Status.NOMATCH) return false;
    return c._fail(st);
  }

  /**
   * An in (remove) or rd with no process behind it: a waiter record named `record` (a
   * nonzero number, unique among the space's waiting records), served by an out in one
   * order with the waiting processes (priority 0 first, then deadline, then arrival).
   * The matching tuple now, or BLOCKED: the record waits (wokenRecords after an out).
   * @param {Uint8Array} bytes the template @param {number} record @param {boolean} remove
   * @param {number} [priority] 0..3 @param {number} [deadline] ms, Infinity for none
   * @returns {Uint8Array | typeof BLOCKED}
   */
  waitRecordBytes(bytes, record, remove, priority = 0, deadline = Infinity) {
    const c = this.core, len = c._putBytes(bytes);
    const st = c.ex.tm_space_wait_record(c.p, this.id, c.data, len, record, remove ? 1 : 2, priority, deadline, c.outResult);
    if (st === 0) return c._resultBytes();
    if (st === Status.BLOCKED) return BLOCKED;
    return c._fail(st);
  }

  /** Drop waiting record `record` of this template; false if it is not waiting. @param {Uint8Array} bytes @param {number} record @returns {boolean} */
  cancelRecordBytes(bytes, record) {
    const c = this.core, len = c._putBytes(bytes);
    const st = c.ex.tm_space_cancel_record(c.p, this.id, c.data, len, record);
    if (st === 0) return true;
    if (st === Status.NOMATCH) return false;
    return c._fail(st);
  }

  /** The records the core's last out served (its tuple is theirs), in arrival order. @returns {number[]} */
  wokenRecords() {
    const c = this.core;
    const st = c.ex.tm_space_woken_records(c.p, c.outResult);
    if (st !== 0) c._fail(st);
    const b = c._resultBytes();
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const ids = [];
    for (let i = 0; i + 4 <= b.length; i += 4) ids.push(dv.getUint32(i, true));
    return ids;
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
