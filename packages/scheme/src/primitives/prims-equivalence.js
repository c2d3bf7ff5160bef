// @ts-check
/**
 * R7RS §6.1 equivalence predicates: `eq?`, `eqv?`, `equal?`, and the JS equality API
 * (`isEqv`, `isEqual`, `registerEquality`) that the rest of the runtime uses.
 *
 * eq? is JS `===`. Consequences, all allowed by R7RS:
 *  - exact integers are JS numbers or normalised bigints, so `(eq? 100000000000 100000000000)`
 *    and `(eq? (expt 10 30) (expt 10 30))` are #t;
 *  - immutable strings are JS strings, so two of them with the same characters are
 *    indistinguishable and `eq?` on them is #t: no program can observe that they are
 *    "different objects"; a mutable string (`MString`) is an object, eq? only to itself;
 *  - chars and symbols are interned (values.js), so `===` is identity of the character or name;
 *  - inexact reals and rationals are boxed, so eq? on them is object identity.
 *
 * eqv? is eq? plus numbers compared with numbers.numEqv (same exactness, same value; it
 * tells 0.0 from -0.0), plus classes registered with `{eqv: true}`.
 *
 * equal? (its walk here; the Scheme procedure is resumable-equal.js, which runs it a
 * bounded number of steps a call) compares pairs, vectors, strings and bytevectors by content and everything else
 * with eqv? (records, procedures, error objects are compared by identity), except instances of
 * classes registered with `registerEquality`, which compare by what they denote (pids, tags,
 * node references: docs/processes.md § Pids and tags, docs/mesh.md § Pids and node
 * references). It always terminates, even on cyclic data,
 * and never recurses on the JS stack; see `isEqual` for the algorithm.
 */
import { Pair, Char, MString, isString, stringText } from '../values.js';
import { isNumber, numEqv } from '../numbers.js';
import { definePrimitive } from '../engine/registry.js';
import { charge } from '../engine/engine.js';

/**
 * @typedef {object} EqualityEntry
 * @property {Function} cls
 * @property {(a: any, b: any) => boolean} equal
 * @property {boolean} eqv  whether eqv? (and so memv, assv, case) uses it too
 */

/** @type {EqualityEntry[]} */
const registered = [];

/**
 * Make instances of `cls` compare with `equal` under equal? (and under eqv? too when
 * `opts.eqv` is set), so that values that denote the same thing (a pid that travelled to
 * another node and back, a node reference built with make-node) are equal.
 * `equal(a, b)` is called only when both are instances of `cls`; it must be symmetric,
 * must not call Scheme code, and must terminate (it may call isEqual on sub-parts).
 * Registering the same class twice is a programming error.
 * @param {Function} cls
 * @param {(a: any, b: any) => boolean} equal
 * @param {{eqv?: boolean}} [opts]
 */
export function registerEquality(cls, equal, opts = {}) {
  if (registered.some((e) => e.cls === cls)) throw new Error(`registerEquality: ${cls.name} registered twice`);
  registered.push({ cls, equal, eqv: opts.eqv ?? false });
}

/**
 * The registered entry that applies to both `a` and `b`, or undefined.
 * @param {object} a @param {any} b
 */
function entryFor(a, b) {
  for (const e of registered) if (a instanceof e.cls) return b instanceof e.cls ? e : undefined;
  return undefined;
}

/**
 * R7RS eqv?.
 * @param {any} a @param {any} b
 * @returns {boolean}
 */
export function isEqv(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
  // Two distinct objects: boxed numbers, or registered classes; everything else is identity.
  if (a instanceof Pair || a instanceof Char || Array.isArray(a)) return false;
  if (isNumber(a)) return isNumber(b) && numEqv(a, b);
  if (registered.length === 0) return false;
  const e = entryFor(a, b);
  return e !== undefined && e.eqv && e.equal(a, b);
}

/** @param {Uint8Array} a @param {Uint8Array} b */
function bytesEqual(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Compare two values that are not pairs or vectors (or are, but of different kinds).
 * @param {any} a @param {any} b
 */
function leafEqual(a, b) {
  if (a instanceof MString || b instanceof MString) return isString(a) && isString(b) && stringText(a) === stringText(b);
  if (a instanceof Uint8Array) return b instanceof Uint8Array && bytesEqual(a, b);
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && registered.length > 0) {
    const e = entryFor(a, b);
    if (e !== undefined) return e.equal(a, b);
  }
  return isEqv(a, b);
}

// Union-find over the compound nodes visited in "slow" mode (Adams & Dybvig 2008).
/** @typedef {{parent: UfNode|null, size: number}} UfNode */

/** @param {UfNode} n */
function find(n) {
  let root = n;
  while (root.parent !== null) root = root.parent;
  while (n !== root) {
    const next = /** @type {UfNode} */ (n.parent);
    n.parent = root;
    n = next;
  }
  return root;
}

/**
 * Record that `a` and `b` are assumed equal. Returns true when they already were (so the
 * pair need not be compared again), false after merging their classes.
 * @param {Map<object, UfNode>} sets @param {object} a @param {object} b
 */
function unionFind(sets, a, b) {
  const na = sets.get(a);
  const nb = sets.get(b);
  if (na === undefined && nb === undefined) {
    const n = { parent: null, size: 2 };
    sets.set(a, n);
    sets.set(b, n);
    return false;
  }
  if (na === undefined) {
    const rb = find(/** @type {UfNode} */ (nb));
    rb.size++;
    sets.set(a, rb);
    return false;
  }
  if (nb === undefined) {
    const ra = find(na);
    ra.size++;
    sets.set(b, ra);
    return false;
  }
  const ra = find(na);
  const rb = find(nb);
  if (ra === rb) return true;
  if (ra.size < rb.size) {
    ra.parent = rb;
    rb.size += ra.size;
  } else {
    rb.parent = ra;
    ra.size += rb.size;
  }
  return false;
}

/** Steps compared in fast mode before switching to slow mode (Adams & Dybvig's k0). */
export const FAST_BUDGET = 400;
/** Steps compared in slow mode before returning to fast mode (their kb, negated). */
export const SLOW_STEPS = 40;
/** The pseudo-random seed of the fast budgets drawn after slow steps. */
export const SEED = 0x2545f491;
/** Vectors longer than this are compared a run of this many elements at a time (`runs`). */
const VECTOR_RUN = 64;

/** The steps the last bounded comparison took (equalStepsUsed). */
let used = 0;

/** How many steps the last call of equalWithin took (what a caller's own bound counts). */
export const equalStepsUsed = () => used;

/**
 * What a bounded comparison (equalWithin, spineWithin, stackWithin) left to do when its
 * budget ran out and it answered null: the resumable equal? keeps it in its step's
 * state. `spine` true: the spine walk at x, y (tortoise `slow`, n pairs walked so far);
 * false: the general walk's work stack, vector runs, union-find sets and mode counter.
 */
export const pending = {
  spine: false,
  /** @type {any} */ x: null,
  /** @type {any} */ y: null,
  /** @type {any} */ slow: null,
  n: 0,
  /** @type {any[]} */ stack: [],
  /** @type {any[][]|null} */ runs: null,
  /** @type {Map<object, UfNode>|null} */ sets: null,
  k: 0,
  seed: 0,
};

/**
 * R7RS equal?: a bisimulation check, so it terminates on cyclic data, on an explicit stack.
 *
 * Algorithm (Adams & Dybvig, "Efficient nondestructive equality checking for trees and
 * graphs", ICFP 2008, the "interleave" variant): compound pairs (pair/pair, vector/vector)
 * are compared depth-first, car before cdr. A step counter `k` alternates two modes:
 *  - fast (k > 0): compare without bookkeeping, as for a tree;
 *  - slow (k <= 0): before descending into two nodes, union their equivalence classes
 *    (union-find keyed by object); if they were already in the same class, the pair is
 *    already being (or has been) compared, so it is skipped and k resets to 0, staying
 *    slow while cycles are found. After SLOW_STEPS slow steps, fast mode resumes with a
 *    budget drawn from [0, 2·FAST_BUDGET) (pseudo-random but deterministic per call).
 * Trees and DAGs run almost entirely in fast mode; cycles are cut by the slow steps. Any
 * leaf mismatch answers #f at once. Pending work is a JS array (a, b, a, b, ...), so
 * 1,000,000-element lists and 100,000-deep nesting use heap memory, not the JS stack.
 * This is the unbounded form, for JS callers; Scheme's equal? is the resumable one
 * (resumable-equal.js), the same walk at most CHUNK steps a call.
 * @param {any} a @param {any} b
 * @returns {boolean}
 */
export function isEqual(a, b) {
  return /** @type {boolean} */ (equalWithin(a, b, Infinity));
}

/**
 * equal? of a and b in at most `budget` steps (charged to the running slice): the
 * answer, or null when the budget ran out first (what is left is in `pending`).
 * @param {any} a @param {any} b @param {number} budget
 * @returns {boolean|null}
 */
export function equalWithin(a, b, budget) {
  if (a === b) {
    used = 0;
    return true;
  }
  // the commonest big case, two lists of numbers, symbols, ...: their spines first
  if (a instanceof Pair) return spineWithin(a, b, a, 0, budget);
  return stackWithin([a, b], null, null, FAST_BUDGET, SEED, budget);
}

/**
 * Walk two lists' spines while their cars are the same value or eqv? non-objects
 * (numbers, strings, booleans): such a prefix is equal whatever follows, so the
 * comparison goes on from where the walk stops with the general walk, with no stack
 * and no bookkeeping. Stops at a cycle in the first list (the tortoise `slow` meets
 * it), so it always ends; a tortoise that is not a pair (a forged state) just ends it.
 * @param {any} x @param {any} y @param {any} slow @param {number} n pairs walked so far
 * @param {number} budget
 * @returns {boolean|null}
 */
export function spineWithin(x, y, slow, n, budget) {
  const n0 = n;
  const stop = n + budget;
  while (x instanceof Pair && y instanceof Pair && x !== y) {
    const xa = x.car;
    const ya = y.car;
    if (xa !== ya && (typeof xa === 'object' || typeof ya === 'object' || !isEqv(xa, ya))) break;
    if (n === stop) {
      charge(n - n0);
      used = n - n0;
      pending.spine = true;
      pending.x = x;
      pending.y = y;
      pending.slow = slow;
      pending.n = n;
      return null;
    }
    x = x.cdr;
    y = y.cdr;
    n++;
    if ((n & 1) === 0) {
      slow = slow.cdr;
      if (slow === x || !(slow instanceof Pair)) break;
    }
  }
  charge(n - n0);
  if (x === y) {
    used = n - n0;
    return true;
  }
  const answer = stackWithin([x, y], null, null, FAST_BUDGET, SEED, budget - (n - n0));
  used += n - n0;
  return answer;
}

/**
 * The general walk, at most `budget` steps: `stack` the pairs of values still to compare
 * (a, b, a, b, ...), `runs` the long vectors compared a run at a time ([x, y, next
 * index]), `sets` the union-find of slow mode, `k` and `seed` the mode counter and its
 * generator.
 * @param {any[]} stack @param {any[][]|null} runs @param {Map<object, UfNode>|null} sets
 * @param {number} k @param {number} seed @param {number} budget
 * @returns {boolean|null}
 */
export function stackWithin(stack, runs, sets, k, seed, budget) {
  let steps = 0;
  for (;;) {
    if (stack.length === 0) {
      if (runs === null || runs.length === 0) return compared(true, steps);
      nextRun(stack, runs);
      continue;
    }
    if (steps >= budget) {
      charge(steps);
      used = steps;
      pending.spine = false;
      pending.stack = stack;
      pending.runs = runs;
      pending.sets = sets;
      pending.k = k;
      pending.seed = seed;
      return null;
    }
    steps++;
    const y = stack.pop();
    const x = stack.pop();
    if (x === y) continue;
    const xPair = x instanceof Pair;
    if (!xPair && !Array.isArray(x)) {
      if (!leafEqual(x, y)) return compared(false, steps);
      continue;
    }
    if (xPair ? !(y instanceof Pair) : !Array.isArray(y) || x.length !== y.length) return compared(false, steps);
    if (k > 0) {
      k--;
    } else if (k <= -SLOW_STEPS) {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      k = (seed >>> 0) % (2 * FAST_BUDGET);
    } else {
      if (sets === null) sets = new Map();
      if (unionFind(sets, x, y)) {
        k = 0;
        continue;
      }
      k--;
    }
    if (xPair) {
      stack.push(x.cdr, y.cdr, x.car, y.car);
    } else if (x.length <= VECTOR_RUN) {
      for (let i = x.length - 1; i >= 0; i--) stack.push(x[i], y[i]);
    } else {
      (runs ??= []).push([x, y, 0]);
    }
  }
}

/**
 * Move the next run of the last vector pair in `runs` onto `stack` (the entry dropped
 * once finished). An entry that is not [vector, vector of the same length, index within
 * them] (a forged state) is dropped and compares as unequal (a vector against #f).
 * @param {any[]} stack @param {any[][]} runs
 */
function nextRun(stack, runs) {
  const r = runs[runs.length - 1];
  const ok = Array.isArray(r) && r.length === 3 && Array.isArray(r[0]) && Array.isArray(r[1]) && r[0].length === r[1].length &&
    typeof r[2] === 'number' && Number.isInteger(r[2]) && r[2] >= 0 && r[2] <= r[0].length;
  if (!ok) {
    runs.pop();
    stack.push(runs, false);
    return;
  }
  const x = r[0];
  const y = r[1];
  const i = r[2];
  const end = Math.min(x.length, i + VECTOR_RUN);
  for (let j = end - 1; j >= i; j--) stack.push(x[j], y[j]);
  if (end === x.length) runs.pop();
  else r[2] = end;
}

/**
 * equal?'s answer, after charging the running slice for the steps it took (a step:
 * two values popped and compared, ~2 cheap reductions' time).
 * @param {boolean} answer @param {number} steps
 */
function compared(answer, steps) {
  charge(steps);
  used = steps;
  return answer;
}

definePrimitive('eq?', 2, 2, (/** @type {any} */ a, /** @type {any} */ b) => a === b, { pure: true });
definePrimitive('eqv?', 2, 2, isEqv, { pure: true });
