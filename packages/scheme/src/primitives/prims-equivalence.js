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
 * equal? compares pairs, vectors, strings and bytevectors by content and everything else
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
const FAST_BUDGET = 400;
/** Steps compared in slow mode before returning to fast mode (their kb, negated). */
const SLOW_STEPS = 40;

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
 * @param {any} a @param {any} b
 * @returns {boolean}
 */
export function isEqual(a, b) {
  if (a === b) return true;
  let steps = 0;
  if (a instanceof Pair) {
    // the commonest big case, two lists of numbers, symbols, ...: their spines first
    steps = spinePrefix(a, b);
    a = restA;
    b = restB;
    restA = restB = null;
    if (a === b) return compared(true, steps);
  }
  /** @type {any[]} */
  const stack = [a, b];
  /** @type {Map<object, UfNode>|null} */
  let sets = null;
  let k = FAST_BUDGET;
  let seed = 0x2545f491;
  while (stack.length > 0) {
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
    } else if (k === -SLOW_STEPS) {
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
    } else {
      for (let i = x.length - 1; i >= 0; i--) stack.push(x[i], y[i]);
    }
  }
  return compared(true, steps);
}

/** Where spinePrefix stopped: the first positions of the two lists it did not settle. */
/** @type {any} */ let restA = null;
/** @type {any} */ let restB = null;

/**
 * Walk two lists' spines while their cars are the same value or eqv? non-objects
 * (numbers, strings, booleans): such a prefix is equal whatever follows, so isEqual
 * goes on from where it stops (restA, restB), with no stack and no bookkeeping.
 * Stops at a cycle in `a` (tortoise and hare), so it always ends. Returns the steps.
 * @param {Pair} a @param {any} b
 */
function spinePrefix(a, b) {
  /** @type {any} */ let x = a;
  /** @type {any} */ let y = b;
  /** @type {any} */ let slow = a;
  let n = 0;
  while (x instanceof Pair && y instanceof Pair && x !== y) {
    const xa = x.car;
    const ya = y.car;
    if (xa !== ya && (typeof xa === 'object' || typeof ya === 'object' || !isEqv(xa, ya))) break;
    x = x.cdr;
    y = y.cdr;
    n++;
    if ((n & 1) === 0) {
      slow = slow.cdr;
      if (slow === x) break;
    }
  }
  restA = x;
  restB = y;
  return n;
}

/**
 * equal?'s answer, after charging the running slice for the steps it took (a step:
 * two values popped and compared, ~2 cheap reductions' time).
 * @param {boolean} answer @param {number} steps
 */
function compared(answer, steps) {
  charge(steps);
  return answer;
}

definePrimitive('eq?', 2, 2, (/** @type {any} */ a, /** @type {any} */ b) => a === b, { pure: true });
definePrimitive('eqv?', 2, 2, isEqv, { pure: true });
definePrimitive('equal?', 2, 2, isEqual, { pure: true });
