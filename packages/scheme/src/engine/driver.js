// @ts-check
/**
 * The driver: runs a Scheme thread (one computation, with its own continuation and
 * dynamic state) from an empty JS stack, one time slice at a time.
 *
 * A thread is always in one of two states between slices:
 *   ACT_CALL    call `clo` with `args`            (a start, or a suspended call)
 *   ACT_RETURN  return `val` to the frame `k`     (k === null: the thread is finished)
 * and its whole state — continuation frames, dynamic-wind list, exception handlers,
 * parameter bindings, pending action — is data, so a thread between slices can be
 * serialized, shipped and resumed elsewhere.
 *
 * The time slice is counted in reductions (procedure entries, loop iterations and
 * resumed frames); when the fuel runs out the slice ends at the next safe point with
 * the thread in ACT_CALL or ACT_RETURN, ready to continue. The process scheduler
 * (another package) decides which thread runs next; there is no scheduler here.
 */
import { R, U, CALL, PEND_CALL, PEND_CAPTURE, PEND_SUSPEND, PEND_EXIT, PEND_REINSTATE } from './engine.js';
import { SchemeError, ErrorObject, Values, arrayToList, MAX_CALL_ARGUMENTS, schemeErrorOf } from '../values.js';
import { ErrorOrigin } from './backtrace.js';

export const ACT_CALL = 0;
export const ACT_RETURN = 1;

// What runSlice reports.
export const SLICE_YIELD = 0; // fuel exhausted; run again later
export const SLICE_DONE = 1; // the thread returned; thread.val is its value
export const SLICE_SUSPENDED = 2; // the thread blocked; thread.suspension says on what
export const SLICE_DIED = 3; // an uncaught exception; thread.val is the payload

/** Thrown (not returned) to abandon the JS stack: an uncaught raise. */
export const DIE = Object.freeze({ die: true });

/** A Scheme computation. */
export class Thread {
  /** @param {any} clo a procedure @param {any[]} args */
  constructor(clo, args) {
    this.act = ACT_CALL;
    /** @type {any} */ this.clo = clo;
    /** @type {any[]|null} */ this.args = args;
    /** @type {any} value being returned, or the result, or the uncaught payload */
    this.val = null;
    /** @type {import('../values.js').Frame|null} the heap continuation, innermost first */
    this.k = null;
    /** dynamic state: each an immutable Scheme list */
    /** @type {any} */ this.winders = null;
    /** @type {any} */ this.handlers = null;
    /** @type {any} */ this.params = null;
    /** @type {any} what a suspended thread waits for (set by the suspending primitive) */
    this.suspension = null;
    /** @type {any} the process this thread belongs to, if any */
    this.owner = null;
    /** @type {ErrorOrigin|null} where an uncaught value that is not an error object was raised */
    this.uncaughtOrigin = null;
  }
}

/**
 * Hooks the driver needs from the runtime library (installed once the prelude is loaded).
 * A raw continuation is the vector #(frames winders handlers params).
 * @type {{ raise: any, makeRawContinuation: (th: Thread) => any[] }}
 */
export const driverHooks = {
  raise: null,
  makeRawContinuation: (th) => [th.k, th.winders, th.handlers, th.params],
};

/**
 * Run `th` until it yields, suspends, finishes or dies.
 * @param {Thread} th @param {number} fuel reductions for this slice
 * @returns {number} a SLICE_ code
 */
export function runSlice(th, fuel) {
  const saved = R.thread;
  R.thread = th;
  R.fuel = fuel;
  try {
    return loop(th);
  } finally {
    R.thread = saved;
  }
}

/** @param {Thread} th */
function loop(th) {
  for (;;) {
    let r;
    try {
      if (th.act === ACT_CALL) {
        const c = th.clo;
        const args = /** @type {any[]} */ (th.args);
        th.clo = null;
        th.args = null;
        // depth 0 and the argument count (values.js CALL): a pending call decoded from
        // another node may carry any number of arguments, more than a call word holds
        if (args.length > MAX_CALL_ARGUMENTS) schemeErrorOf('range', 'apply', `too many arguments (at most ${MAX_CALL_ARGUMENTS})`, args.length);
        r = c[CALL](args.length, ...args);
      } else {
        const fr = th.k;
        if (fr === null) return SLICE_DONE;
        if (--R.fuel < 0) return SLICE_YIELD;
        th.k = fr.next;
        // frames are pushed only by compiled code, whose lambdas the linker gave a resume
        r = /** @type {Function} */ (fr.lam.resume)(fr, th.val);
      }
    } catch (e) {
      R.uhead = R.utail = null;
      const outcome = caught(th, e);
      if (outcome !== null) return outcome;
      continue;
    }
    if (r !== U) {
      th.act = ACT_RETURN;
      th.val = r;
      continue;
    }
    // The stack has unwound: splice the reified frames in front of the continuation.
    if (R.uhead !== null) {
      /** @type {any} */ (R.utail).next = th.k;
      th.k = R.uhead;
      R.uhead = R.utail = null;
    }
    switch (R.pend) {
      case PEND_CALL:
        th.act = ACT_CALL;
        th.clo = R.pc;
        th.args = R.pargs;
        R.pc = R.pargs = null;
        if (R.fuel < 0) return SLICE_YIELD;
        continue;
      case PEND_CAPTURE:
        // call/cc: the continuation of the capturing primitive's caller is now th.k
        th.act = ACT_RETURN;
        th.val = driverHooks.makeRawContinuation(th);
        continue;
      case PEND_REINSTATE: {
        // a continuation was invoked: R.pval = [raw, value], raw = #(frames winders handlers params)
        const [raw, value] = R.pval;
        R.pval = null;
        th.k = raw[0];
        th.handlers = raw[2];
        th.params = raw[3];
        th.act = ACT_RETURN;
        th.val = value;
        continue;
      }
      case PEND_SUSPEND:
        th.suspension = R.pval;
        R.pval = null;
        return SLICE_SUSPENDED;
      case PEND_EXIT:
        th.val = R.pval;
        th.k = null;
        th.act = ACT_RETURN;
        R.pval = null;
        return SLICE_DONE;
      default:
        throw new Error(`driver: unknown unwind reason ${R.pend}`);
    }
  }
}

/**
 * A JS exception escaped the running code. Returns a SLICE_ code to stop the slice, or
 * null when the thread continues (the error is now being raised in Scheme).
 * @param {Thread} th @param {any} e
 * @returns {number|null}
 */
function caught(th, e) {
  if (e === DIE) {
    th.val = R.pval;
    R.pval = null;
    th.k = null;
    return SLICE_DIED;
  }
  const payload = e instanceof SchemeError ? e.payload : jsErrorToScheme(e);
  // where it was signalled — its location and backtrace — is worked out only if
  // someone asks (engine/backtrace.js): a caught error costs no stack formatting
  if (payload instanceof ErrorObject && payload.origin === null) payload.origin = new ErrorOrigin(e instanceof SchemeError ? e : null, th.k);
  if (driverHooks.raise === null) {
    th.val = payload;
    return SLICE_DIED;
  }
  // Raise it in Scheme, in the thread's current dynamic state. The JS frames between
  // the last reified point and the error are gone, which is why errors signalled by
  // primitives are not continuable (R7RS `raise`, not `raise-continuable`).
  th.act = ACT_CALL;
  th.clo = driverHooks.raise;
  th.args = [payload];
  return null;
}

/** @param {any} e */
function jsErrorToScheme(e) {
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    return new ErrorObject('JavaScript stack overflow in a primitive', null, 'resource', null);
  }
  const message = e instanceof Error ? e.message : String(e);
  const err = new ErrorObject(`internal error: ${message}`, null, 'internal', null);
  if (e instanceof Error && e.stack) err.loc = locateError(e.stack);
  return err;
}

/**
 * Source locations of generated code: every unit registers a resolver for its
 * JS source name, mapping a JS line number to "file:line:col".
 * @type {Map<string, (line: number) => string|null>}
 */
export const sourceMaps = new Map();

/** @param {string} stack */
function locateError(stack) {
  const re = /(termite:[^\s:)]+):(\d+):\d+/g;
  let m;
  while ((m = re.exec(stack)) !== null) {
    const resolve = sourceMaps.get(m[1]);
    if (resolve) {
      const loc = resolve(Number(m[2]));
      if (loc) return loc;
    }
  }
  return null;
}

/**
 * Run a thread to completion on this JS stack (no scheduler): for tests, `eval` at
 * load time and `runProgramText`, the single-threaded entry point that runs a program
 * without processes. Suspensions are not allowed.
 * @param {Thread} th
 * @returns {{ok: true, value: any} | {ok: false, error: any}}
 */
export function runToCompletion(th) {
  for (let slices = 0; ; slices++) {
    const r = runSlice(th, 100000);
    if (r === SLICE_DONE) return { ok: true, value: th.val };
    if (r === SLICE_DIED) return { ok: false, error: th.val };
    if (r === SLICE_SUSPENDED) {
      return { ok: false, error: new ErrorObject('the computation blocked, but nothing can wake it here', arrayToList([th.suspension?.kind ?? 'unknown']), 'deadlock', null) };
    }
  }
}

export { Values };
