// @ts-check
/**
 * Resumable builtins: procedures over data of any size (length, append, make-vector, ...)
 * that do at most one chunk of work per call, so no single call holds the node's event
 * loop longer than a chunk takes (docs/processes.md, "Fairness").
 *
 * A resumable builtin is called through the closure protocol (it is not a primitive:
 * compiled code cannot call it directly, and received code cannot name it as one). Its
 * entry checks the arguments and runs a step function on the initial state. A step does
 * up to CHUNK elements of work; if the work is finished it returns the answer, otherwise
 * it returns `more(step, state)`, a tail call to the step's own builtin closure with the
 * remaining state. That call goes back to the driver (PEND_CALL), which ends the slice
 * there when the fuel is spent: every chunk boundary is an ordinary call, where the
 * scheduler may preempt, and the state lives in the call's arguments — Scheme values
 * (pairs, vectors, numbers), so a thread stopped between chunks serializes and migrates
 * like any other.
 *
 * Invariants:
 *  - a step never does more than CHUNK units of work (elements walked or compared), or
 *    BUILD_CHUNK elements allocated, before returning; it charges the fuel for what it did (charge/walked/built);
 *  - step builtins are named `%<name>/step` and take the state as their arguments; they
 *    trust their state only as far as the state's own type checks go (a program may call
 *    them by name with anything): every step re-checks what it dereferences;
 *  - a small input is finished by the entry's first step: one JS call, no extra allocation.
 */
import { Closure, SchemeError, schemeErrorOf, ARGC_MASK } from '../values.js';
import { Thread, runToCompletion } from './driver.js';
import { rtEnv } from './linker.js';
import { sc, arity } from './engine.js';
import { defineBuiltin } from './builtins.js';

/** Elements of work one call does at most (walk steps, elements compared or written in place). */
export const CHUNK = 65536;

/**
 * Elements one call of a builder allocates at most (pairs consed, slots pushed): a
 * quarter of CHUNK, since allocating an element (and collecting it later) costs ~4
 * walk steps' time, so a chunk of either takes about as long (~0.3 ms alone).
 */
export const BUILD_CHUNK = 16384;

/**
 * Continue `step` with `state` from an empty JS stack (the driver makes the call, and may
 * end the slice first).
 * @param {Closure} step @param {any[]} state
 */
export const more = (step, state) => sc(step, state);

/**
 * Define a resumable builtin `name` (arguments checked against nreq/nopt, nopt -1 for a
 * rest list) whose entry is `entry(...args)`.
 * @param {string} name @param {number} nreq @param {number} nopt @param {Function} entry
 */
export function defineResumable(name, nreq, nopt, entry) {
  defineBuiltin(name, entryAdapter(nreq, nopt, entry), nreq, nopt);
}

/**
 * The calling-convention adapter of an entry: a fixed arity of 1 to 3 gets a function of
 * its own (no rest array: small inputs keep a cheap call).
 * @param {number} nreq @param {number} nopt @param {Function} entry
 * @returns {Function}
 */
function entryAdapter(nreq, nopt, entry) {
  if (nopt === 0) {
    switch (nreq) {
      case 1: return /** @this {Closure} */ function (/** @type {number} */ d, /** @type {any} */ a) { return (d & ARGC_MASK) !== 1 ? arity(this, d & ARGC_MASK) : entry(a); };
      case 2: return /** @this {Closure} */ function (/** @type {number} */ d, /** @type {any} */ a, /** @type {any} */ b) { return (d & ARGC_MASK) !== 2 ? arity(this, d & ARGC_MASK) : entry(a, b); };
      case 3: return /** @this {Closure} */ function (/** @type {number} */ d, /** @type {any} */ a, /** @type {any} */ b, /** @type {any} */ c) { return (d & ARGC_MASK) !== 3 ? arity(this, d & ARGC_MASK) : entry(a, b, c); };
    }
  }
  const max = nopt < 0 ? Infinity : nreq + nopt;
  return /** @this {Closure} */ function (/** @type {number} */ _d, /** @type {any[]} */ ...args) {
    if (args.length < nreq || args.length > max) return arity(this, args.length);
    return entry(...args);
  };
}

/**
 * Define the step builtin `%<name>/step` of `nstate` state values and return its closure
 * (what `more` calls; a builtin closure serializes by its name).
 * @param {string} name @param {number} nstate @param {Function} step
 * @returns {Closure}
 */
export function defineStep(name, nstate, step) {
  /** @this {Closure} @param {number} _d @param {any[]} state */
  const fast = function (_d, ...state) {
    if (state.length !== nstate) return arity(this, state.length);
    return step(...state);
  };
  const lam = defineBuiltin(`%${name}/step`, fast, nstate, 0);
  return new Closure(fast, lam, null);
}

/**
 * A state value a step expects to be a non-negative fixnum (counts and indexes).
 * @param {string} who @param {any} k
 * @returns {number}
 */
export function stateCount(who, k) {
  if (typeof k === 'number' && Number.isInteger(k) && k >= 0) return k;
  return schemeErrorOf('type', who, 'bad resumption state', k);
}

/**
 * Call the builtin `name` on `args` to completion from JS (its chunks run as one thread on
 * this stack): for tests and JS callers that need the answer now. A Scheme error is thrown
 * as a SchemeError.
 * @param {string} name @param {any[]} args
 */
export function runBuiltin(name, args) {
  const r = runToCompletion(new Thread(rtEnv.cell(name).v, args));
  if (r.ok) return r.value;
  throw new SchemeError(r.error);
}
