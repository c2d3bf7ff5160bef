// @ts-check
/**
 * The builtin procedures as Scheme values, in the runtime environment 'rt':
 *  - every registered primitive, wrapped in a Closure so it can be passed around
 *    (`(map car l)`); compiled code calls primitives directly instead;
 *  - the control procedures that manipulate the engine itself (apply, %capture,
 *    %reinstate, %uncaught, %exit).
 * All of them belong to one pseudo-unit, "builtin", and are named on the wire by
 * their names, so a closure over a builtin serializes as ("builtin", name).
 */
import { primitives } from './registry.js';
import { rtEnv } from './linker.js';
import { R, CALL, arity, unwind, charge, built, PEND_CAPTURE, PEND_EXIT, PEND_REINSTATE } from './engine.js';
import { DIE, driverHooks } from './driver.js';
import { Closure, ErrorObject, Pair, schemeErrorOf, callWord, ARGC_MASK } from '../values.js';
import { originHere } from './backtrace.js';
import { parameterLambda, parameterCode } from '../primitives/prims-control.js';

/** The pseudo-unit every builtin LambdaInfo belongs to. */
export const builtinUnit = {
  hash: 'builtin',
  env: rtEnv,
  /** @type {any[]} */
  lams: [],
  /** @type {Map<string, any>} */
  lamsByName: new Map(),
};

/**
 * @param {string} name @param {Function} fast @param {number} nreq @param {number} nopt -1: rest
 */
function builtinLambda(name, fast, nreq, nopt) {
  const lam = { unit: builtinUnit, index: name, name, nreq, nopt: Math.max(nopt, 0), rest: nopt < 0, fast, resume: null };
  builtinUnit.lamsByName.set(name, lam);
  return lam;
}

/**
 * Define a builtin procedure in 'rt'.
 * @param {string} name @param {Function} fast @param {number} nreq @param {number} nopt -1 for rest
 */
export function defineBuiltin(name, fast, nreq, nopt) {
  const lam = builtinLambda(name, fast, nreq, nopt);
  rtEnv.cell(name).v = new Closure(fast, lam, null);
  return lam;
}

/**
 * The calling-convention adapter of a primitive: checks arity (the count in the call
 * word, values.js CALL), calls the JS function.
 * @param {import('./registry.js').PrimitiveDef} p
 * @returns {Function}
 */
function adapter(p) {
  const { fn, min, max } = p;
  if (min === max) {
    switch (min) {
      case 0: return /** @this {Closure} */ function (/** @type {number} */ d) { return (d & ARGC_MASK) !== 0 ? arity(this, d & ARGC_MASK) : fn(); };
      case 1: return /** @this {Closure} */ function (/** @type {number} */ d, /** @type {any} */ a) { return (d & ARGC_MASK) !== 1 ? arity(this, d & ARGC_MASK) : fn(a); };
      case 2: return /** @this {Closure} */ function (/** @type {number} */ d, /** @type {any} */ a, /** @type {any} */ b) { return (d & ARGC_MASK) !== 2 ? arity(this, d & ARGC_MASK) : fn(a, b); };
      case 3: return /** @this {Closure} */ function (/** @type {number} */ d, /** @type {any} */ a, /** @type {any} */ b, /** @type {any} */ c) { return (d & ARGC_MASK) !== 3 ? arity(this, d & ARGC_MASK) : fn(a, b, c); };
    }
  }
  return /** @this {Closure} */ function (/** @type {number} */ _d, /** @type {any[]} */ ...args) {
    if (args.length < min || (max >= 0 && args.length > max)) return arity(this, args.length);
    return fn(...args);
  };
}

/** Wrap every registered primitive not yet wrapped. Idempotent. */
export function installPrimitives() {
  for (const p of primitives.values()) {
    if (builtinUnit.lamsByName.has(p.name)) continue;
    defineBuiltin(p.name, adapter(p), p.min, p.max < 0 ? -1 : p.max - p.min);
  }
}

// ------------------------------------------------------------------ control procedures

/**
 * The most arguments `apply` passes. Procedures receive their arguments on the JS stack,
 * which holds somewhat more than this even at the deepest Scheme call depth; beyond it
 * `apply` signals a clear error instead of a JS stack overflow.
 */
export const MAX_APPLY_ARGUMENTS = 50000;

/** `(apply f a ... list)` — a tail call, so it needs no frame of its own. @this {Closure} the apply procedure */
function applyCode(/** @type {number} */ d, /** @type {any} */ f, /** @type {any[]} */ ...rest) {
  if ((d & ARGC_MASK) < 2) return arity(this, d & ARGC_MASK);
  if (!(f instanceof Closure)) schemeErrorOf('type', 'apply', 'not a procedure', f);
  const last = rest.pop();
  const args = spreadArguments(rest, last);
  charge(built(args.length)); // spreading them, and the callee's work over them
  return f[CALL](callWord(d, args.length), ...args);
}

/**
 * The arguments of `apply`: `first` then the elements of the list `last`. The list is
 * walked no further than MAX_APPLY_ARGUMENTS elements, so a huge list is refused after a
 * bounded walk; cyclic and improper lists are errors as for list->vector.
 * @param {any[]} first @param {any} last
 */
function spreadArguments(first, last) {
  const args = first;
  let slow = last;
  let l = last;
  let n = 0;
  while (l instanceof Pair) {
    if (args.length === MAX_APPLY_ARGUMENTS) schemeErrorOf('range', 'apply', `too many arguments (at most ${MAX_APPLY_ARGUMENTS})`, MAX_APPLY_ARGUMENTS + 1);
    args.push(l.car);
    l = l.cdr;
    if ((++n & 1) === 0) {
      slow = slow.cdr;
      if (slow === l && l instanceof Pair) schemeErrorOf('type', 'apply', 'expected a proper list, got a cyclic list', last);
    }
  }
  if (l !== null) schemeErrorOf('type', 'apply', 'expected a proper list', last);
  return args;
}

/** `(%capture)` → the raw continuation of its caller's caller, once the stack is unwound. */
function captureCode(/** @type {number} */ _d) {
  return unwind(PEND_CAPTURE);
}

/**
 * `(%reinstate raw value)` abandons the JS stack and returns value to raw's frames. It
 * unwinds by returning (the activations it passes drop themselves: engine.js push), not
 * by throwing: a JS throw cost about 2 µs here, most of a call/cc-heavy program's time.
 */
function reinstateCode(/** @type {number} */ _d, /** @type {any} */ raw, /** @type {any} */ value) {
  if (!Array.isArray(raw) || raw.length !== 4) schemeErrorOf('type', '%reinstate', 'expected a raw continuation', raw);
  return unwind(PEND_REINSTATE, [raw, value]);
}

/** `(%uncaught obj)`: the thread dies with obj. */
function uncaughtCode(/** @type {number} */ _d, /** @type {any} */ obj) {
  // an error object knows where it was signalled; anything else is placed here
  const th = R.thread;
  if (th !== null) {
    if (obj instanceof ErrorObject) {
      if (obj.origin === null) obj.origin = originHere(th.k);
    } else {
      th.uncaughtOrigin = originHere(th.k);
    }
  }
  R.pval = obj;
  throw DIE;
}

/** `(%exit code)`: the thread (program) ends; the host decides what exiting means. */
function exitCode(/** @type {number} */ _d, /** @type {any} */ code) {
  if (R.thread) R.thread.exitCode = code;
  return unwind(PEND_EXIT, code);
}

/** Install the control procedures and the driver hooks that refer to them. */
export function installControl() {
  defineBuiltin('apply', applyCode, 2, -1);
  defineBuiltin('%capture', captureCode, 0, 0);
  defineBuiltin('%reinstate', reinstateCode, 2, 0);
  defineBuiltin('%uncaught', uncaughtCode, 1, 0);
  defineBuiltin('%exit', exitCode, 1, 0);
  parameterLambda.lam = builtinLambda('parameter', parameterCode, 0, 0);
  driverHooks.makeRawContinuation = (th) => {
    // the capturing procedure (call/cc) is the innermost frame; its caller's
    // continuation is what the program captures
    const frames = th.k === null ? null : th.k.next;
    return [frames, th.winders, th.handlers, th.params];
  };
}

