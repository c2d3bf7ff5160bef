// @ts-check
/**
 * The execution engine shared by generated code and the driver: the unwind sentinel,
 * the engine registers, frame pushing, suspension, and the procedure-call symbol.
 *
 * Invariants:
 *  - Generated code returns `U` from a function exactly when the JS stack is being
 *    unwound; every activation with a pending return point pushes its Frame (innermost
 *    first) onto the chain R.uhead..R.utail before returning U.
 *  - `R.pend` says why the unwind started; the driver reads it once the stack is empty.
 *  - Every Scheme procedure is called as `f[CALL](word, ...args)` with `this === f`, the
 *    word holding the stack depth and the argument count (values.js CALL, callWord).
 *    Values that are not procedures inherit a [CALL] that signals "not a procedure".
 */
import { Frame, Closure, Box, VOID, UNASSIGNED, Pair, CALL, Flonum, schemeErrorOf, arrayToList } from '../values.js';

export { CALL };

/** The unwind sentinel. */
export const U = Object.freeze({ unwinding: true });

// Why the stack is unwinding (R.pend).
export const PEND_CALL = 1; // call R.pc with R.pargs (depth limit or fuel exhausted)
export const PEND_CAPTURE = 2; // call/cc: the driver hands the whole continuation back
export const PEND_SUSPEND = 3; // the thread blocks; R.presume says how it resumes
export const PEND_EXIT = 4; // the thread ends with R.pval
export const PEND_REINSTATE = 5; // a continuation was invoked: R.pval = [raw, value]; the frames unwound are dropped

/** Engine registers. One set per JS realm: only one thread runs at a time. */
export const R = {
  /** reductions left in this time slice */
  fuel: 0,
  /** reductions charged beyond the slice's fuel (charge keeps fuel >= -1): the scheduler reads and resets it, so a process's work counts a huge primitive whole */
  over: 0,
  /** elements one primitive call may build (`built`): set by the host from its memory limit */
  buildCap: Infinity,
  /** @type {Frame|null} first (innermost) frame pushed by the current unwind */
  uhead: null,
  /** @type {Frame|null} last pushed frame */
  utail: null,
  pend: 0,
  /** @type {any} */ pc: null,
  /** @type {any[]|null} */ pargs: null,
  /** @type {any} */ pval: null,
  /** @type {any} the thread running now (driver.js Thread) */
  thread: null,
};

/**
 * Push the frame of an activation that is being unwound.
 * @param {any} lam @param {number} label @param {any[]} s
 */
export function push(lam, label, s) {
  // a continuation being reinstated abandons the activations it unwinds
  if (R.pend === PEND_REINSTATE) return U;
  const f = new Frame(lam, label, s, null);
  if (R.utail === null) R.uhead = f;
  else R.utail.next = f;
  R.utail = f;
  return U;
}

/**
 * Suspend a call (fuel exhausted or stack too deep): the driver makes it again from an
 * empty JS stack.
 * @param {any} c the closure @param {any[]} args
 */
export function sc(c, args) {
  R.pend = PEND_CALL;
  R.pc = c;
  R.pargs = args;
  return U;
}

/**
 * Start unwinding for a control operation (capture, suspend, exit).
 * @param {number} why a PEND_ code @param {any} [val]
 */
export function unwind(why, val) {
  R.pend = why;
  R.pval = val;
  return U;
}

/**
 * Charge the running slice for the work a primitive did over its data, so that a slice
 * ends after about the same time whatever it runs (docs/processes.md, "Fairness"): a
 * primitive that walks, compares or copies n elements calls `charge(walked(n))` or
 * `charge(built(n))`, and the next procedure entry ends the slice once the fuel is spent.
 * The fuel stays a small integer (never below -1), as generated code expects; what goes
 * beyond is added to `R.over` (the scheduler's measure of a process's work).
 * @param {number} reductions
 */
export function charge(reductions) {
  const f = R.fuel - reductions;
  if (f < -1) {
    R.over += -1 - f;
    R.fuel = -1;
  } else R.fuel = f;
}

/**
 * Reductions for walking or comparing n elements (pairs followed, slots read,
 * characters compared): one per 2 (a walk step costs ~2.5 cheap reductions' time).
 * @param {number} n
 */
export const walked = (n) => n >>> 1;

/**
 * Reductions for allocating n elements (pairs, slots, characters copied): 4 each, since
 * allocation and the garbage collection it causes cost ~10-25 cheap reductions' time.
 * More than `R.buildCap` elements is refused with a `resource-limit` error.
 * @param {number} n
 */
export const built = (n) => {
  if (n > R.buildCap) buildTooBig(n);
  return n > 0x1fffffff ? 0x7fffffff : n * 4;
};

/**
 * A primitive was asked to build more elements than the host allows in one call
 * (`R.buildCap`): refused before it allocates (`make-list`, `make-vector` charge first),
 * so one call cannot exhaust the heap before a memory check can run.
 * @param {number} n @returns {never}
 */
function buildTooBig(n) {
  return schemeErrorOf('resource-limit', 'heap', `cannot build ${n} elements in one call: at most ${R.buildCap} (the process heap limit over 40 bytes an element)`, n);
}

/** Cheap reductions in a millisecond (a reduction of a tight loop takes ~3.3 ns). */
const REDUCTIONS_PER_MS = 300_000;

/**
 * Charge the running slice for the time spent since `t0` (performance.now()): for work
 * whose cost is not a simple count, such as arithmetic on huge exact numbers.
 * @param {number} t0
 */
export function chargeSince(t0) {
  charge(Math.ceil((performance.now() - t0) * REDUCTIONS_PER_MS));
}

/** @param {any} c @param {number} got */
export function arity(c, got) {
  const lam = c.lam;
  const want = lam.rest ? `at least ${lam.nreq}` : String(lam.nreq);
  schemeErrorOf('arity', lam.name, `expected ${want} argument${want === '1' ? '' : 's'}, got ${got}`);
}

/** @param {any[]} arr */
export const mklist = (arr) => arrayToList(arr);

/** A global variable's storage. */
export class Cell {
  /** @param {string} ns @param {string} name @param {{version: number}|null} [owner] the environment */
  constructor(ns, name, owner = null) {
    this.ns = ns;
    this.name = name;
    /** @type {any} */
    this.v = new Unbound(this);
    /** the environment, whose version counts definitions (so copies elsewhere know they are stale) */
    this.owner = owner;
  }
}

/** The value of a global that has not been defined; calling it signals the error. */
export class Unbound {
  /** @param {Cell} cell */
  constructor(cell) {
    this.cell = cell;
  }
}
/** @this {Unbound} */
Object.defineProperty(Unbound.prototype, CALL, {
  value: function unboundCall() {
    return unboundVariable(this.cell);
  },
});

/** @param {Cell} cell @returns {never} */
export function unboundVariable(cell) {
  schemeErrorOf('unbound', cell.name, `unbound variable ${cell.name}`);
}

/** Read a global, signalling an error if it is unbound. @param {Cell} cell */
export function gv(cell) {
  const v = cell.v;
  if (v instanceof Unbound) unboundVariable(cell);
  return v;
}

/** `set!` of a global. @param {Cell} cell @param {any} x */
export function gset(cell, x) {
  if (cell.v instanceof Unbound) schemeErrorOf('unbound', 'set!', `cannot set! ${cell.name}: it is not defined`);
  cell.v = x;
  if (cell.owner !== null) cell.owner.version++;
  return VOID;
}

/** `define` of a global. @param {Cell} cell @param {any} x */
export function gdef(cell, x) {
  cell.v = x;
  if (cell.owner !== null) cell.owner.version++;
  return VOID;
}

/** @param {string} name */
export function unassigned(name) {
  return schemeErrorOf('unbound', name, `${name} is used before its definition`);
}

/** @param {any} x @param {string} name */
export function checkBound(x, name) {
  return x === UNASSIGNED ? unassigned(name) : x;
}

// Every value that is not a procedure is "called" through Object.prototype's [CALL].
Object.defineProperty(Object.prototype, CALL, {
  value: function notAProcedure() {
    schemeErrorOf('type', 'application', 'not a procedure', this === undefined ? VOID : this.valueOf());
  },
  writable: true,
  configurable: true,
});

/** The free values of a closure that has none; frozen, typed as any closure's fv (free values are never written in place). */
export const EMPTY = /** @type {any[]} */ (Object.freeze(/** @type {any[]} */ ([])));

/** What generated code receives as `$` (with the unit's own tables added). */
export const codeRuntime = {
  U, R, CALL, Closure, Box, Pair, VOID, UNASSIGNED, push, sc, arity, mklist, gv, gset, gdef, unassigned, checkBound, EMPTY, Flonum,
};
