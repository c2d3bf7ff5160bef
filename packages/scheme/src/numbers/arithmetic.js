// @ts-check
/**
 * Generic arithmetic and comparison: `+ - * /`, negation, `abs`, the comparisons, `eqv?`
 * on numbers, `max` and `min`.
 *
 * Performance: `add`, `sub`, `mul`, `lt`, `numEq`, ... test `typeof` on both arguments and
 * finish in a few instructions when both are JS numbers (fixnums). Everything else is in a
 * separate `...Slow` function so that the fast entry points stay small enough to inline.
 * `-0` is never returned as an exact integer (`x + 0` turns `-0` into `0`).
 *
 * Invariants: a result is exact when every argument is exact (a rational result is in
 * lowest terms, an integer result normalised); it is inexact when any argument is.
 * Mixed exact/inexact comparisons are exact, so they are transitive.
 */
import { Flonum, Ratnum, Compnum, schemeErrorOf } from '../values.js';
import { T_BIG, T_RAT, T_FLO, tagOf, notNumber, divByZero, normBig, numOf, denOf, heavy } from './representation.js';
import { chargeSince } from '../engine/engine.js';
import { makeRational, fixRational, bitLength } from './rationals.js';
import { toDouble, doubleToExact, inexact } from './exactness.js';
import { complexAdd, complexMul, complexDiv, complexNeg, complexEq, complexEqv } from './complex.js';

// The fast paths' bounds are this module's own constants, not imported bindings: the
// optimiser folds a module's own `const` into the code, an import is a load per call.
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const MIN_SAFE = -MAX_SAFE;

// ---------------------------------------------------------------------------------------
// Arithmetic. Fast path: both JS numbers (fixnums); the result is exact when in range.

/** @param {any} a @param {any} b */
export function add(a, b) {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b;
    if (r <= MAX_SAFE && r >= MIN_SAFE) return r;
  }
  return addSlow(a, b, '+');
}

/** @param {any} a @param {any} b */
export function sub(a, b) {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b;
    if (r <= MAX_SAFE && r >= MIN_SAFE) return r;
  }
  return addSlow(a, neg(b, '-'), '-');
}

/** @param {any} a @param {any} b */
export function mul(a, b) {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * b;
    if (r <= MAX_SAFE && r >= MIN_SAFE) return r + 0; // + 0: no -0 (0 * -5)
  }
  return mulSlow(a, b, '*');
}

/** Exact division gives a Ratnum; division by exact zero is an error. @param {any} a @param {any} b */
export function div(a, b) {
  if (typeof a === 'number' && typeof b === 'number' && b !== 0) {
    if (a % b === 0) return a / b + 0;
    return fixRational(a, b);
  }
  return divSlow(a, b, '/');
}

/** @param {any} a @param {string} [who] */
export function neg(a, who = '-') {
  if (typeof a === 'number') return 0 - a;
  switch (tagOf(a)) {
    case T_BIG:
      return normBig(-/** @type {bigint} */ (a));
    case T_RAT:
      return new Ratnum(-(/** @type {Ratnum} */ (a).num), a.den);
    case T_FLO:
      return new Flonum(-a.v);
  }
  if (a instanceof Compnum) return complexNeg(a);
  return notNumber(who, a);
}

/**
 * `op(a, b, who)`, charged to the running slice by the time it took when an argument
 * is a huge exact number (representation.js heavy), so a slice of bignum arithmetic
 * ends after about a slice's time.
 * @param {(a: any, b: any, who: string) => any} op @param {any} a @param {any} b @param {string} who
 */
export function timedIfHeavy(op, a, b, who) {
  if (!heavy(a) && !heavy(b)) return op(a, b, who);
  if (op === mulExact || ((op === addExact || op === divExact) && (a instanceof Ratnum || b instanceof Ratnum))) checkExactBits(who, a, b);
  const t0 = performance.now();
  const r = op(a, b, who);
  chargeSince(t0);
  return r;
}

/**
 * The most bits an exact result may have (1,048,576, ~315,000 decimal digits):
 * beyond it one multiplication takes over 10 ms and printing one in decimal over 90 ms,
 * so such results are refused ("result too large") rather than computed.
 */
export const MAX_EXACT_BITS = 2 ** 20;

/** The bits of an exact number's numerator and denominator. @param {any} x */
const exactBits = (x) => (typeof x === 'bigint' ? bitLength(x < 0n ? -x : x) : x instanceof Ratnum ? bitLength(x.num < 0n ? -x.num : x.num) + bitLength(x.den) : 64);

/**
 * Refuse a product (or a sum of rationals, which multiplies denominators) whose size
 * could pass MAX_EXACT_BITS. Only called for heavy arguments.
 * @param {string} who @param {any} a @param {any} b
 */
function checkExactBits(who, a, b) {
  if (exactBits(a) + exactBits(b) > MAX_EXACT_BITS) schemeErrorOf('range', who, `result too large (more than ${MAX_EXACT_BITS} bits)`, a, b);
}

/** @param {any} a @param {any} b @param {string} who */
function addSlow(a, b, who) {
  return timedIfHeavy(addExact, a, b, who);
}

/** @param {any} a @param {any} b @param {string} who */
function addExact(a, b, who) {
  const ta = tagOf(a);
  const tb = tagOf(b);
  if ((ta < 0 || tb < 0) && eitherComplex(a, b, ta, tb, who)) return complexAdd(a, b);
  if (ta < 0) notNumber(who, a);
  if (tb < 0) notNumber(who, b);
  if (ta === T_FLO || tb === T_FLO) return new Flonum(toDouble(a) + toDouble(b));
  if (ta === T_RAT || tb === T_RAT) {
    const ad = denOf(a);
    const bd = denOf(b);
    return makeRational(numOf(a) * bd + numOf(b) * ad, ad * bd);
  }
  return normBig(BigInt(a) + BigInt(b));
}

/** @param {any} a @param {any} b @param {string} who */
function mulSlow(a, b, who) {
  return timedIfHeavy(mulExact, a, b, who);
}

/** @param {any} a @param {any} b @param {string} who */
function mulExact(a, b, who) {
  const ta = tagOf(a);
  const tb = tagOf(b);
  if ((ta < 0 || tb < 0) && eitherComplex(a, b, ta, tb, who)) return complexMul(a, b);
  if (ta < 0) notNumber(who, a);
  if (tb < 0) notNumber(who, b);
  if (ta === T_FLO || tb === T_FLO) return new Flonum(toDouble(a) * toDouble(b));
  if (ta === T_RAT || tb === T_RAT) return makeRational(numOf(a) * numOf(b), denOf(a) * denOf(b));
  return normBig(BigInt(a) * BigInt(b));
}

/** @param {any} a @param {any} b @param {string} who */
function divSlow(a, b, who) {
  return timedIfHeavy(divExact, a, b, who);
}

/** @param {any} a @param {any} b @param {string} who */
function divExact(a, b, who) {
  const ta = tagOf(a);
  const tb = tagOf(b);
  if ((ta < 0 || tb < 0) && eitherComplex(a, b, ta, tb, who)) return complexDiv(a, b, who);
  if (ta < 0) notNumber(who, a);
  if (tb < 0) notNumber(who, b);
  if (b === 0) divByZero(who, a, b);
  if (ta === T_FLO || tb === T_FLO) return new Flonum(toDouble(a) / toDouble(b));
  return makeRational(numOf(a) * denOf(b), denOf(a) * numOf(b));
}

/**
 * Whether an operation on a and b (one of which is not a real) is complex arithmetic:
 * both numbers, one a Compnum. Signals "expected a number" for a non-number.
 * @param {any} a @param {any} b @param {number} ta @param {number} tb @param {string} who
 */
function eitherComplex(a, b, ta, tb, who) {
  if (ta < 0 && !(a instanceof Compnum)) notNumber(who, a);
  if (tb < 0 && !(b instanceof Compnum)) notNumber(who, b);
  return true;
}

/** @param {any} x @param {string} [who] */
export function abs(x, who = 'abs') {
  if (typeof x === 'number') return x < 0 ? -x : x;
  switch (tagOf(x)) {
    case T_BIG:
      return x < 0n ? -x : x;
    case T_RAT:
      return x.num < 0n ? new Ratnum(-(/** @type {Ratnum} */ (x).num), x.den) : x;
    case T_FLO:
      return x.v < 0 || Object.is(x.v, -0) ? new Flonum(-x.v) : x;
  }
  return notNumber(who, x);
}

/** @param {any} x */
export function square(x) {
  return mul(x, x);
}

// ---------------------------------------------------------------------------------------
// Comparison. Mixed exact/inexact comparisons are exact, so they are transitive.
// JS compares a bigint with a double exactly, so only a Ratnum against a Flonum needs
// converting (the double to its exact value).

/** @param {any} a @param {any} b */
export function numEq(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (a instanceof Compnum || b instanceof Compnum) return eitherComplex(a, b, tagOf(a), tagOf(b), '=') && complexEq(a, b);
  return compareSlow(a, b, '=') === 0;
}
/** @param {any} a @param {any} b */
export function lt(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return a < b;
  return compareSlow(a, b, '<') < 0;
}
/** @param {any} a @param {any} b */
export function gt(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return a > b;
  return compareSlow(a, b, '>') > 0;
}
/** @param {any} a @param {any} b */
export function le(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return a <= b;
  return compareSlow(a, b, '<=') <= 0;
}
/** @param {any} a @param {any} b */
export function ge(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return a >= b;
  return compareSlow(a, b, '>=') >= 0;
}

/**
 * Compare two real numbers: -1, 0, 1, or NaN when unordered (a NaN is involved).
 * @param {any} a @param {any} b @param {string} [who]
 * @returns {number}
 */
export function compare(a, b, who = 'compare') {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  return compareSlow(a, b, who);
}

/** @param {any} a @param {any} b @param {string} who @returns {number} */
function compareSlow(a, b, who) {
  const ta = tagOf(a);
  const tb = tagOf(b);
  if (ta < 0) notNumber(who, a);
  if (tb < 0) notNumber(who, b);
  if (ta !== T_RAT && tb !== T_RAT) {
    const x = ta === T_FLO ? a.v : a;
    const y = tb === T_FLO ? b.v : b;
    // eslint-disable-next-line eqeqeq
    return x < y ? -1 : x > y ? 1 : x == y ? 0 : NaN;
  }
  if (ta === T_FLO) {
    const v = a.v;
    if (!Number.isFinite(v)) return v !== v ? NaN : v > 0 ? 1 : -1;
    a = doubleToExact(v);
  }
  if (tb === T_FLO) {
    const v = b.v;
    if (!Number.isFinite(v)) return v !== v ? NaN : v > 0 ? -1 : 1;
    b = doubleToExact(v);
  }
  const l = numOf(a) * denOf(b);
  const r = numOf(b) * denOf(a);
  return l < r ? -1 : l > r ? 1 : 0;
}

/**
 * eqv? on numbers: same exactness and same value. (eqv? 0.0 -0.0) is #f; NaN is eqv to NaN.
 * Non-numbers are compared with ===.
 * @param {any} a @param {any} b
 */
export function numEqv(a, b) {
  if (a === b) return true;
  if (a instanceof Flonum) return b instanceof Flonum && Object.is(a.v, b.v);
  if (a instanceof Ratnum) return b instanceof Ratnum && a.num === b.num && a.den === b.den;
  if (a instanceof Compnum) return b instanceof Compnum && complexEqv(a, b);
  return false;
}

/**
 * max of one or more reals: inexact if any argument is inexact; NaN if any is NaN.
 * @param {...any} xs
 */
export function max(...xs) {
  return extremum(xs, 1, 'max');
}
/** @param {...any} xs */
export function min(...xs) {
  return extremum(xs, -1, 'min');
}

/** @param {any[]} xs @param {number} dir @param {string} who */
function extremum(xs, dir, who) {
  if (xs.length === 0) return schemeErrorOf('arity', who, 'expected at least one argument');
  let best = xs[0];
  let inexactSeen = tagOf(best) === T_FLO;
  if (tagOf(best) < 0) notNumber(who, best);
  let nan = inexactSeen && best.v !== best.v;
  for (let i = 1; i < xs.length; i++) {
    const x = xs[i];
    const t = tagOf(x);
    if (t < 0) notNumber(who, x);
    if (t === T_FLO) {
      inexactSeen = true;
      if (x.v !== x.v) nan = true;
    }
    if (!nan && compareSlow(x, best, who) * dir > 0) best = x;
  }
  if (nan) return new Flonum(NaN);
  return inexactSeen ? inexact(best) : best;
}
