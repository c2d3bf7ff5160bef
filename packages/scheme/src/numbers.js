// @ts-check
/**
 * The numeric tower: every arithmetic operation on Scheme numbers.
 *
 * Representation (values.js, followed exactly):
 *  - exact integer: a JS `number` when it is a safe integer, else a `bigint`. A bigint is
 *    never in the safe range ("normalised"), so an exact integer has exactly one representation;
 *  - exact non-integer rational: `Ratnum` (bigint num/den, den > 1, lowest terms);
 *  - inexact real: `Flonum` (a boxed double). A JS `number` is ALWAYS exact.
 *  - no complex numbers: an operation whose exact arguments would give a non-real result
 *    signals "complex numbers are not supported"; with an inexact argument it gives +nan.0.
 *
 * Performance: `add`, `sub`, `mul`, `lt`, `numEq`, ... test `typeof` on both arguments and
 * finish in a few instructions when both are JS numbers (fixnums). Everything else is in a
 * separate `...Slow` function so that the fast entry points stay small enough to inline.
 * `-0` is never returned as an exact integer (`x + 0` turns `-0` into `0`).
 *
 * Errors: every function signals a type error naming the Scheme procedure it implements
 * (`who`, overridable by the last optional parameter), with the offending value as
 * irritant: (+ 1 "a") → who "+", message "expected a number", irritant "a".
 * Division by exact zero is kind 'range', message "division by zero".
 */
import { Flonum, Ratnum, schemeErrorOf } from './values.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const MIN_SAFE = -MAX_SAFE;
const BIG_MAX_SAFE = BigInt(MAX_SAFE);
const BIG_MIN_SAFE = -BIG_MAX_SAFE;
const TWO53 = 2n ** 53n;

// Type tags used by the slow paths.
const T_FIX = 0; // JS number (safe integer)
const T_BIG = 1; // bigint
const T_RAT = 2; // Ratnum
const T_FLO = 3; // Flonum

/** @param {any} x @returns {number} a type tag, or -1 when x is not a number */
function tagOf(x) {
  switch (typeof x) {
    case 'number':
      return T_FIX;
    case 'bigint':
      return T_BIG;
    case 'object':
      if (x instanceof Flonum) return T_FLO;
      if (x instanceof Ratnum) return T_RAT;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------
// Errors

/** @param {string} who @param {any} x @returns {never} */
function notNumber(who, x) {
  return schemeErrorOf('type', who, 'expected a number', x);
}
/** @param {string} who @param {any} x @returns {never} */
function notInteger(who, x) {
  return schemeErrorOf('type', who, 'expected an integer', x);
}
/** @param {string} who @param {...any} xs @returns {never} */
function divByZero(who, ...xs) {
  return schemeErrorOf('range', who, 'division by zero', ...xs);
}
/** @param {string} who @param {any} x @returns {never} */
function noComplex(who, x) {
  return schemeErrorOf('range', who, 'complex numbers are not supported', x);
}

/**
 * Check that x is a number; returns it.
 * @param {any} x @param {string} [who] @returns {any}
 */
export function checkNumber(x, who = 'number') {
  if (tagOf(x) < 0) notNumber(who, x);
  return x;
}

// ---------------------------------------------------------------------------------------
// Constructors and conversions

/**
 * An exact integer from a bigint, normalised: a JS number when it is a safe integer.
 * @param {bigint} b @returns {number|bigint}
 */
export function normBig(b) {
  return b >= BIG_MIN_SAFE && b <= BIG_MAX_SAFE ? Number(b) : b;
}

/** @param {bigint} a @param {bigint} b both >= 0 @returns {bigint} */
function bigGcd(a, b) {
  while (b !== 0n) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/** @param {number} a @param {number} b both >= 0 safe integers @returns {number} */
function fixGcd(a, b) {
  while (b !== 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/**
 * The exact rational n/d in lowest terms (an exact integer when d divides n).
 * @param {bigint} n @param {bigint} d nonzero
 * @returns {number|bigint|Ratnum}
 */
export function makeRational(n, d) {
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const g = bigGcd(n < 0n ? -n : n, d);
  if (g !== 1n) {
    n /= g;
    d /= g;
  }
  if (d === 1n) return normBig(n);
  return new Ratnum(n, d);
}

/** @param {number} a @param {number} b fixnums, b != 0, a not divisible by b */
function fixRational(a, b) {
  if (b < 0) {
    a = -a;
    b = -b;
  }
  const g = fixGcd(a < 0 ? -a : a, b);
  return new Ratnum(BigInt(a / g), BigInt(b / g));
}

/** An inexact real. @param {number} v */
export function flo(v) {
  return new Flonum(v);
}

/** @param {bigint} b > 0 @returns {number} the number of bits of b */
function bitLength(b) {
  const h = b.toString(16);
  const top = parseInt(h[0], 16);
  return (h.length - 1) * 4 + (32 - Math.clz32(top));
}

/**
 * x * 2^e, exact whenever the result is representable (x a nonnegative integer <= 2^53).
 * @param {number} x @param {number} e
 */
function scale2(x, e) {
  while (e > 1023) {
    x *= 2 ** 1023;
    e -= 1023;
  }
  if (e < -1022) {
    x *= 2 ** -1022;
    e += 1022;
  }
  return x * 2 ** e;
}

/**
 * n/d correctly rounded to the nearest double (ties to even), for any bigints.
 * @param {bigint} n @param {bigint} d > 0
 * @returns {number}
 */
export function ratioToDouble(n, d) {
  const neg = n < 0n;
  if (neg) n = -n;
  if (n <= TWO53 && d <= TWO53) {
    // Both exact as doubles; IEEE division rounds correctly.
    const q = Number(n) / Number(d);
    return neg ? -q : q;
  }
  if (n === 0n) return neg ? -0 : 0;
  const e0 = bitLength(n) - bitLength(d); // n/d in (2^(e0-1), 2^(e0+1))
  let k = 53 - e0;
  /** @type {bigint} */ let q = 0n;
  /** @type {bigint} */ let r = 0n;
  /** @type {bigint} */ let den = 0n;
  const divide = () => {
    let num = n;
    den = d;
    if (k >= 0) num <<= BigInt(k);
    else den <<= BigInt(-k);
    q = num / den;
    r = num - q * den;
  };
  divide();
  if (q >= TWO53) {
    k--;
    divide();
  }
  if (k > 1074) {
    // Subnormal result: the grid is 2^-1074.
    k = 1074;
    divide();
  }
  const twice = r * 2n;
  if (twice > den || (twice === den && (q & 1n) === 1n)) q++;
  const v = scale2(Number(q), -k);
  return neg ? -v : v;
}

/**
 * The JS double nearest to a real number (exact values rounded correctly).
 * @param {any} x @param {string} [who]
 * @returns {number}
 */
export function toDouble(x, who = 'inexact') {
  switch (typeof x) {
    case 'number':
      return x;
    case 'bigint':
      return Number(x); // correctly rounded by the spec
    case 'object':
      if (x instanceof Flonum) return x.v;
      if (x instanceof Ratnum) return ratioToDouble(x.num, x.den);
  }
  return notNumber(who, x);
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/**
 * The exact value of a finite double.
 * @param {number} v @returns {number|bigint|Ratnum}
 */
function doubleToExact(v) {
  if (Number.isInteger(v)) return Number.isSafeInteger(v) ? v + 0 : BigInt(v);
  f64[0] = v;
  const bits = u64[0];
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & 0xfffffffffffffn;
  let e;
  if (biased === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = biased - 1075;
  }
  // v = ±mant * 2^e with e < 0 (v is not an integer): strip common factors of two.
  while ((mant & 1n) === 0n) {
    mant >>= 1n;
    e++;
  }
  return new Ratnum(v < 0 ? -mant : mant, 1n << BigInt(-e));
}

/**
 * R7RS `exact`: the exact number nearest x ((exact 0.1) = 3602879701896397/36028797018963968).
 * @param {any} x @param {string} [who]
 */
export function exact(x, who = 'exact') {
  if (x instanceof Flonum) {
    const v = x.v;
    if (!Number.isFinite(v)) return schemeErrorOf('range', who, 'no exact representation', x);
    return doubleToExact(v);
  }
  if (tagOf(x) < 0) notNumber(who, x);
  return x;
}

/**
 * R7RS `inexact`: the nearest double, correctly rounded for bigints and ratnums.
 * @param {any} x @param {string} [who]
 * @returns {Flonum}
 */
export function inexact(x, who = 'inexact') {
  if (x instanceof Flonum) return x;
  return new Flonum(toDouble(x, who));
}

/** @param {any} x an exact integer or Ratnum @returns {bigint} */
const numOf = (x) => (x instanceof Ratnum ? x.num : BigInt(x));
/** @param {any} x an exact integer or Ratnum @returns {bigint} */
const denOf = (x) => (x instanceof Ratnum ? x.den : 1n);

// ---------------------------------------------------------------------------------------
// Predicates

/** @param {any} x */
export function isNumber(x) {
  return typeof x === 'number' || typeof x === 'bigint' || x instanceof Flonum || x instanceof Ratnum;
}
export const isComplex = isNumber;
export const isReal = isNumber;

/** @param {any} x */
export function isRational(x) {
  if (x instanceof Flonum) return Number.isFinite(x.v);
  return typeof x === 'number' || typeof x === 'bigint' || x instanceof Ratnum;
}

/** R7RS `integer?`: true for 2 and for 2.0. @param {any} x */
export function isInteger(x) {
  if (typeof x === 'number' || typeof x === 'bigint') return true;
  return x instanceof Flonum && Number.isInteger(x.v);
}

/** @param {any} x */
export function isExactInteger(x) {
  return typeof x === 'number' || typeof x === 'bigint';
}

/** Exact integer or exact rational (not a predicate of R7RS). @param {any} x */
export function isExactRational(x) {
  return typeof x === 'number' || typeof x === 'bigint' || x instanceof Ratnum;
}

/** @param {any} x @param {string} [who] */
export function isExact(x, who = 'exact?') {
  if (typeof x === 'number') return true;
  const t = tagOf(x);
  if (t < 0) notNumber(who, x);
  return t !== T_FLO;
}

/** @param {any} x @param {string} [who] */
export function isInexact(x, who = 'inexact?') {
  if (typeof x === 'number') return false;
  const t = tagOf(x);
  if (t < 0) notNumber(who, x);
  return t === T_FLO;
}

/** @param {any} x @param {string} [who] */
export function isNaN(x, who = 'nan?') {
  if (x instanceof Flonum) return x.v !== x.v;
  if (tagOf(x) < 0) notNumber(who, x);
  return false;
}

/** @param {any} x @param {string} [who] */
export function isFinite(x, who = 'finite?') {
  if (x instanceof Flonum) return Number.isFinite(x.v);
  if (tagOf(x) < 0) notNumber(who, x);
  return true;
}

/** @param {any} x @param {string} [who] */
export function isInfinite(x, who = 'infinite?') {
  if (x instanceof Flonum) return x.v === Infinity || x.v === -Infinity;
  if (tagOf(x) < 0) notNumber(who, x);
  return false;
}

/** @param {any} x @param {string} [who] */
export function isZero(x, who = 'zero?') {
  if (typeof x === 'number') return x === 0;
  if (x instanceof Flonum) return x.v === 0;
  if (tagOf(x) < 0) notNumber(who, x);
  return false; // bigints and ratnums are never zero
}

/** @param {any} x @param {string} [who] */
export function isPositive(x, who = 'positive?') {
  if (typeof x === 'number') return x > 0;
  return sign(x, who) > 0;
}

/** @param {any} x @param {string} [who] */
export function isNegative(x, who = 'negative?') {
  if (typeof x === 'number') return x < 0;
  return sign(x, who) < 0;
}

/** -1, 0, 1, or NaN for +nan.0. @param {any} x @param {string} who */
function sign(x, who) {
  switch (tagOf(x)) {
    case T_FIX:
      return Math.sign(x);
    case T_BIG:
      return x > 0n ? 1 : -1;
    case T_RAT:
      return x.num > 0n ? 1 : -1;
    case T_FLO:
      return x.v > 0 ? 1 : x.v < 0 ? -1 : x.v === 0 ? 0 : NaN;
  }
  return notNumber(who, x);
}

/** @param {any} x @param {string} [who] */
export function isOdd(x, who = 'odd?') {
  if (typeof x === 'number') return x % 2 !== 0;
  if (typeof x === 'bigint') return x % 2n !== 0n;
  if (x instanceof Flonum && Number.isInteger(x.v)) return x.v % 2 !== 0;
  return notInteger(who, x);
}

/** @param {any} x @param {string} [who] */
export function isEven(x, who = 'even?') {
  return !isOdd(x, who);
}

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
  return notNumber(who, a);
}

/** @param {any} a @param {any} b @param {string} who */
function addSlow(a, b, who) {
  const ta = tagOf(a);
  const tb = tagOf(b);
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
  const ta = tagOf(a);
  const tb = tagOf(b);
  if (ta < 0) notNumber(who, a);
  if (tb < 0) notNumber(who, b);
  if (ta === T_FLO || tb === T_FLO) return new Flonum(toDouble(a) * toDouble(b));
  if (ta === T_RAT || tb === T_RAT) return makeRational(numOf(a) * numOf(b), denOf(a) * denOf(b));
  return normBig(BigInt(a) * BigInt(b));
}

/** @param {any} a @param {any} b @param {string} who */
function divSlow(a, b, who) {
  const ta = tagOf(a);
  const tb = tagOf(b);
  if (ta < 0) notNumber(who, a);
  if (tb < 0) notNumber(who, b);
  if (b === 0) divByZero(who, a, b);
  if (ta === T_FLO || tb === T_FLO) return new Flonum(toDouble(a) / toDouble(b));
  return makeRational(numOf(a) * denOf(b), denOf(a) * numOf(b));
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

// ---------------------------------------------------------------------------------------
// Integer division: quotient/remainder/modulo, floor/ and truncate/.

/** @param {any} x @param {string} who @returns {number} the tag; x must be an integer */
function intTag(x, who) {
  const t = tagOf(x);
  if (t === T_FIX || t === T_BIG) return t;
  if (t === T_FLO && Number.isInteger(x.v)) return t;
  return notInteger(who, x);
}

/**
 * [quotient, remainder] for integer arguments, truncating (floor = false) or flooring.
 * @param {any} a @param {any} b @param {string} who @param {boolean} floor
 * @returns {[any, any]}
 */
function divRemSlow(a, b, who, floor) {
  const ta = intTag(a, who);
  const tb = intTag(b, who);
  if (ta === T_FLO || tb === T_FLO) {
    const x = toDouble(a);
    const y = toDouble(b);
    if (y === 0) divByZero(who, a, b);
    let r = x % y;
    let q = (x - r) / y;
    if (floor && r !== 0 && r < 0 !== y < 0) {
      r += y;
      q -= 1;
    }
    return [new Flonum(q), new Flonum(r)];
  }
  if (b === 0) divByZero(who, a, b);
  const x = BigInt(a);
  const y = BigInt(b);
  let q = x / y;
  let r = x % y;
  if (floor && r !== 0n && r < 0n !== y < 0n) {
    r += y;
    q -= 1n;
  }
  return [normBig(q), normBig(r)];
}

/** R7RS truncate/: [q, r]. @param {any} a @param {any} b @param {string} [who] @returns {[any, any]} */
export function truncateDiv(a, b, who = 'truncate/') {
  if (typeof a === 'number' && typeof b === 'number' && b !== 0) {
    const r = a % b;
    return [(a - r) / b + 0, r + 0];
  }
  return divRemSlow(a, b, who, false);
}

/** R7RS floor/: [q, r]. @param {any} a @param {any} b @param {string} [who] @returns {[any, any]} */
export function floorDiv(a, b, who = 'floor/') {
  if (typeof a === 'number' && typeof b === 'number' && b !== 0) {
    const r = a % b;
    const q = (a - r) / b; // exact: a - r is a multiple of b no larger than a
    if (r !== 0 && r < 0 !== b < 0) return [q - 1, r + b];
    return [q + 0, r + 0];
  }
  return divRemSlow(a, b, who, true);
}

/** @param {any} a @param {any} b @param {string} [who] */
export function truncateQuotient(a, b, who = 'truncate-quotient') {
  if (typeof a === 'number' && typeof b === 'number' && b !== 0) return (a - (a % b)) / b + 0;
  return divRemSlow(a, b, who, false)[0];
}

/** @param {any} a @param {any} b @param {string} [who] */
export function truncateRemainder(a, b, who = 'truncate-remainder') {
  if (typeof a === 'number' && typeof b === 'number' && b !== 0) return (a % b) + 0;
  return divRemSlow(a, b, who, false)[1];
}

/** @param {any} a @param {any} b @param {string} [who] */
export function floorQuotient(a, b, who = 'floor-quotient') {
  return floorDiv(a, b, who)[0];
}

/** @param {any} a @param {any} b @param {string} [who] */
export function floorRemainder(a, b, who = 'floor-remainder') {
  if (typeof a === 'number' && typeof b === 'number' && b !== 0) {
    const r = a % b;
    return r !== 0 && r < 0 !== b < 0 ? r + b : r + 0;
  }
  return divRemSlow(a, b, who, true)[1];
}

/** Alias of floorRemainder (R7RS floor-remainder). */
export const floorRem = floorRemainder;
/** Alias of truncateRemainder (R7RS truncate-remainder). */
export const truncateRem = truncateRemainder;

/** @param {any} a @param {any} b */
export function quotient(a, b) {
  return truncateQuotient(a, b, 'quotient');
}
/** @param {any} a @param {any} b */
export function remainder(a, b) {
  return truncateRemainder(a, b, 'remainder');
}
/** @param {any} a @param {any} b */
export function modulo(a, b) {
  return floorRemainder(a, b, 'modulo');
}

/**
 * gcd of two integers (exact or inexact); the result is nonnegative.
 * @param {any} a @param {any} b @param {string} who
 */
function gcd2(a, b, who) {
  if (typeof a === 'number' && typeof b === 'number') return fixGcd(a < 0 ? -a : a, b < 0 ? -b : b);
  const ta = intTag(a, who);
  const tb = intTag(b, who);
  const x = BigInt(ta === T_FLO ? a.v : a);
  const y = BigInt(tb === T_FLO ? b.v : b);
  const g = normBig(bigGcd(x < 0n ? -x : x, y < 0n ? -y : y));
  return ta === T_FLO || tb === T_FLO ? inexact(g) : g;
}

/** @param {any} a @param {any} b @param {string} who */
function lcm2(a, b, who) {
  const inex = intTag(a, who) === T_FLO || intTag(b, who) === T_FLO;
  if (isZero(a) || isZero(b)) return inex ? new Flonum(0) : 0;
  const g = gcd2(a, b, who);
  const r = abs(mul(quotient(exact(a), exact(g)), exact(b)));
  return inex ? inexact(r) : r;
}

/** R7RS gcd: any number of integers; (gcd) = 0. @param {...any} xs */
export function gcd(...xs) {
  /** @type {any} */
  let acc = 0;
  for (const x of xs) acc = gcd2(acc, x, 'gcd');
  return acc;
}

/** R7RS lcm: any number of integers; (lcm) = 1. @param {...any} xs */
export function lcm(...xs) {
  let acc = 1;
  for (const x of xs) acc = lcm2(acc, x, 'lcm');
  return acc;
}

// ---------------------------------------------------------------------------------------
// Rounding, numerator/denominator, rationalize

/** @param {any} x @param {string} [who] */
export function floor(x, who = 'floor') {
  switch (tagOf(x)) {
    case T_FIX:
    case T_BIG:
      return x;
    case T_RAT: {
      const r = /** @type {Ratnum} */ (x);
      const q = r.num / r.den;
      return normBig(r.num < 0n ? q - 1n : q);
    }
    case T_FLO:
      return new Flonum(Math.floor(x.v));
  }
  return notNumber(who, x);
}

/** @param {any} x @param {string} [who] */
export function ceiling(x, who = 'ceiling') {
  switch (tagOf(x)) {
    case T_FIX:
    case T_BIG:
      return x;
    case T_RAT: {
      const r = /** @type {Ratnum} */ (x);
      const q = r.num / r.den;
      return normBig(r.num < 0n ? q : q + 1n);
    }
    case T_FLO:
      return new Flonum(Math.ceil(x.v));
  }
  return notNumber(who, x);
}

/** @param {any} x @param {string} [who] */
export function truncate(x, who = 'truncate') {
  switch (tagOf(x)) {
    case T_FIX:
    case T_BIG:
      return x;
    case T_RAT:
      return normBig(/** @type {Ratnum} */ (x).num / x.den);
    case T_FLO:
      return new Flonum(Math.trunc(x.v));
  }
  return notNumber(who, x);
}

/** Round to nearest, ties to even. @param {any} x @param {string} [who] */
export function round(x, who = 'round') {
  switch (tagOf(x)) {
    case T_FIX:
    case T_BIG:
      return x;
    case T_RAT: {
      const r = /** @type {Ratnum} */ (x);
      let fl = r.num / r.den;
      if (r.num < 0n) fl -= 1n;
      const twice = (r.num - fl * r.den) * 2n; // 2 * fractional part * den
      if (twice > r.den || (twice === r.den && (fl & 1n) === 1n)) fl += 1n;
      return normBig(fl);
    }
    case T_FLO:
      return new Flonum(roundEven(x.v));
  }
  return notNumber(who, x);
}

/** @param {number} v */
function roundEven(v) {
  const r = Math.round(v);
  if (Math.abs(v % 1) === 0.5) return 2 * Math.round(v / 2);
  return r;
}

/** @param {any} x @param {string} [who] @returns {any} */
export function numerator(x, who = 'numerator') {
  switch (tagOf(x)) {
    case T_FIX:
    case T_BIG:
      return x;
    case T_RAT:
      return normBig(x.num);
    case T_FLO:
      if (!Number.isFinite(x.v)) break;
      return inexact(numerator(doubleToExact(x.v)));
  }
  return schemeErrorOf('type', who, 'expected a rational number', x);
}

/** @param {any} x @param {string} [who] @returns {any} */
export function denominator(x, who = 'denominator') {
  switch (tagOf(x)) {
    case T_FIX:
    case T_BIG:
      return 1;
    case T_RAT:
      return normBig(x.den);
    case T_FLO:
      if (!Number.isFinite(x.v)) break;
      return inexact(denominator(doubleToExact(x.v)));
  }
  return schemeErrorOf('type', who, 'expected a rational number', x);
}

/**
 * The simplest rational differing from x by no more than y (R7RS rationalize).
 * @param {any} x @param {any} y
 */
export function rationalize(x, y) {
  const who = 'rationalize';
  const tx = tagOf(x);
  const ty = tagOf(y);
  if (tx < 0) notNumber(who, x);
  if (ty < 0) notNumber(who, y);
  const inex = tx === T_FLO || ty === T_FLO;
  if (inex) {
    const xv = toDouble(x);
    const yv = Math.abs(toDouble(y));
    if (xv !== xv || yv !== yv) return new Flonum(NaN);
    if (yv === Infinity) return new Flonum(Number.isFinite(xv) ? 0 : NaN);
    if (!Number.isFinite(xv)) return new Flonum(xv);
  }
  const ex = exact(x, who);
  const ey = abs(exact(y, who));
  const r = simplestBetween(sub(ex, ey), add(ex, ey));
  return inex ? inexact(r) : r;
}

/** The simplest rational in [lo, hi] (exact, lo <= hi). @param {any} lo @param {any} hi */
function simplestBetween(lo, hi) {
  if (gt(lo, 0)) return simplestPositive(lo, hi);
  if (lt(hi, 0)) return neg(simplestPositive(neg(hi), neg(lo)));
  return 0;
}

/** Continued-fraction search, iterative. @param {any} lo @param {any} hi 0 < lo <= hi */
function simplestPositive(lo, hi) {
  /** @type {any[]} */
  const terms = [];
  for (;;) {
    const fl = floor(lo);
    if (numEq(fl, lo)) {
      terms.push(fl);
      break;
    }
    if (lt(fl, floor(hi))) {
      terms.push(add(fl, 1));
      break;
    }
    terms.push(fl);
    const nlo = div(1, sub(hi, fl));
    hi = div(1, sub(lo, fl));
    lo = nlo;
  }
  let r = terms[terms.length - 1];
  for (let i = terms.length - 2; i >= 0; i--) r = add(terms[i], div(1, r));
  return r;
}

// ---------------------------------------------------------------------------------------
// Square roots and powers

/** floor(sqrt(n)) for a safe integer n >= 0 @param {number} n */
function fixIsqrt(n) {
  let s = Math.floor(Math.sqrt(n));
  while (s * s > n) s--;
  while ((s + 1) * (s + 1) <= n) s++;
  return s;
}

/** floor(sqrt(n)) for a bigint n >= 0 @param {bigint} n @returns {bigint} */
function bigIsqrt(n) {
  if (n < TWO53) return BigInt(fixIsqrt(Number(n)));
  const bits = bitLength(n);
  let shift = Math.max(0, bits - 100);
  if (shift & 1) shift++;
  let x = BigInt(Math.floor(Math.sqrt(Number(n >> BigInt(shift))))) << BigInt(shift / 2);
  if (x === 0n) x = 1n;
  // One Newton step from any positive x lands at or above floor(sqrt(n)); then descend.
  x = (x + n / x) >> 1n;
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/**
 * R7RS exact-integer-sqrt: [s, r] with s*s + r = n.
 * @param {any} n @param {string} [who] @returns {[any, any]}
 */
export function exactIntegerSqrt(n, who = 'exact-integer-sqrt') {
  if (typeof n === 'number' && n >= 0) {
    const s = fixIsqrt(n);
    return [s, n - s * s];
  }
  if (typeof n === 'bigint' && n > 0n) {
    const s = bigIsqrt(n);
    return [normBig(s), normBig(n - s * s)];
  }
  return schemeErrorOf('type', who, 'expected an exact nonnegative integer', n);
}

/** sqrt of a nonnegative bigint as a double @param {bigint} n */
function bigSqrtDouble(n) {
  const d = Number(n);
  if (d !== Infinity) return Math.sqrt(d);
  let shift = bitLength(n) - 1000;
  if (shift & 1) shift++;
  return Math.sqrt(Number(n >> BigInt(shift))) * 2 ** (shift / 2);
}

/**
 * sqrt: exact for exact perfect squares ((sqrt 16) = 4, (sqrt 1/4) = 1/2), otherwise inexact.
 * Negative exact argument: error (no complex numbers); negative inexact: +nan.0.
 * @param {any} x @param {string} [who]
 */
export function sqrt(x, who = 'sqrt') {
  switch (tagOf(x)) {
    case T_FIX: {
      if (x < 0) return noComplex(who, x);
      const s = fixIsqrt(x);
      return s * s === x ? s : new Flonum(Math.sqrt(x));
    }
    case T_BIG: {
      if (x < 0n) return noComplex(who, x);
      const s = bigIsqrt(x);
      return s * s === x ? normBig(s) : new Flonum(bigSqrtDouble(x));
    }
    case T_RAT: {
      if (x.num < 0n) return noComplex(who, x);
      const sn = bigIsqrt(x.num);
      const sd = bigIsqrt(x.den);
      if (sn * sn === x.num && sd * sd === x.den) return new Ratnum(sn, sd);
      return new Flonum(Math.sqrt(ratioToDouble(x.num, x.den)));
    }
    case T_FLO:
      return new Flonum(Math.sqrt(x.v));
  }
  return notNumber(who, x);
}

/**
 * expt: exact for an exact base and an exact integer exponent (negative exponents give
 * exact rationals); inexact otherwise. (expt 0 0) = 1, (expt 0.0 0) = 1.0.
 * @param {any} base @param {any} e @param {string} [who]
 */
export function expt(base, e, who = 'expt') {
  const tb = tagOf(base);
  const te = tagOf(e);
  if (tb < 0) notNumber(who, base);
  if (te < 0) notNumber(who, e);
  if (te === T_FIX || te === T_BIG) {
    if (tb === T_FLO) return new Flonum(Math.pow(base.v, Number(e)));
    return exactPower(base, e, who);
  }
  // Non-integer or inexact exponent.
  const b = toDouble(base);
  const p = toDouble(e);
  if (tb !== T_FLO && te !== T_FLO && b < 0) return noComplex(who, base);
  if (tb !== T_FLO && b === 0 && te === T_RAT) {
    if (e.num < 0n) divByZero(who, base, e);
    return 0;
  }
  return new Flonum(Math.pow(b, p));
}

/** exact base ^ exact integer exponent @param {any} base @param {number|bigint} e @param {string} who */
function exactPower(base, e, who) {
  const negExp = e < 0;
  if (base === 0) {
    if (negExp) divByZero(who, base, e);
    return e == 0 ? 1 : 0; // eslint-disable-line eqeqeq
  }
  if (base === 1) return 1;
  if (base === -1) return (typeof e === 'bigint' ? e % 2n === 0n : e % 2 === 0) ? 1 : -1;
  if (typeof e === 'bigint') return schemeErrorOf('range', who, 'exponent too large', e);
  const n = negExp ? -e : e;
  let r;
  try {
    r = makeRational(numOf(base) ** BigInt(n), denOf(base) ** BigInt(n));
  } catch (err) {
    if (err instanceof RangeError) return schemeErrorOf('range', who, 'result too large', base, e);
    throw err;
  }
  return negExp ? div(1, r) : r;
}

// ---------------------------------------------------------------------------------------
// Transcendental functions: results are always inexact.

/**
 * Natural log of a real as a double; handles bigints and ratnums beyond the double range.
 * @param {any} x @param {string} who
 */
function ln(x, who) {
  const t = tagOf(x);
  if (t < 0) notNumber(who, x);
  if (t !== T_FLO && sign(x, who) < 0) return noComplex(who, x);
  const d = toDouble(x);
  if (d !== 0 && Number.isFinite(d)) return Math.log(d);
  if (t === T_BIG) return bigLog(x);
  if (t === T_RAT) return bigLog(x.num) - bigLog(x.den);
  return Math.log(d);
}

/** @param {bigint} n > 0 */
function bigLog(n) {
  const d = Number(n);
  if (d !== Infinity) return Math.log(d);
  const shift = bitLength(n) - 64;
  return Math.log(Number(n >> BigInt(shift))) + shift * Math.LN2;
}

/** @param {any} x */
export function exp(x) {
  return new Flonum(Math.exp(toDouble(x, 'exp')));
}

/** (log z) or (log z base) @param {any} x @param {any} [base] */
export function log(x, base) {
  if (base === undefined) return new Flonum(ln(x, 'log'));
  if (base === 2 && tagOf(x) !== T_RAT) {
    const d = toDouble(x, 'log');
    if (d > 0 && Number.isFinite(d)) return new Flonum(Math.log2(d));
  }
  if (base === 10 && tagOf(x) !== T_RAT) {
    const d = toDouble(x, 'log');
    if (d > 0 && Number.isFinite(d)) return new Flonum(Math.log10(d));
  }
  return new Flonum(ln(x, 'log') / ln(base, 'log'));
}

/** @param {any} x */
export function sin(x) {
  return new Flonum(Math.sin(toDouble(x, 'sin')));
}
/** @param {any} x */
export function cos(x) {
  return new Flonum(Math.cos(toDouble(x, 'cos')));
}
/** @param {any} x */
export function tan(x) {
  return new Flonum(Math.tan(toDouble(x, 'tan')));
}
/** @param {any} x */
export function asin(x) {
  const d = toDouble(x, 'asin');
  if ((d > 1 || d < -1) && tagOf(x) !== T_FLO) return noComplex('asin', x);
  return new Flonum(Math.asin(d));
}
/** @param {any} x */
export function acos(x) {
  const d = toDouble(x, 'acos');
  if ((d > 1 || d < -1) && tagOf(x) !== T_FLO) return noComplex('acos', x);
  return new Flonum(Math.acos(d));
}
/** (atan z) or (atan y x) @param {any} y @param {any} [x] */
export function atan(y, x) {
  if (x === undefined) return new Flonum(Math.atan(toDouble(y, 'atan')));
  return new Flonum(Math.atan2(toDouble(y, 'atan'), toDouble(x, 'atan')));
}

/** (angle x) for a real x: 0 for positive, pi for negative. @param {any} x */
export function angle(x) {
  const t = tagOf(x);
  if (t < 0) notNumber('angle', x);
  if (t !== T_FLO) return sign(x, 'angle') < 0 ? new Flonum(Math.PI) : 0;
  return new Flonum(Math.atan2(0, x.v));
}

// ---------------------------------------------------------------------------------------
// Printing

/**
 * A double in R7RS syntax: shortest form that reads back to the same double,
 * "1.0" (never "1"), "-0.0", "+inf.0", "-inf.0", "+nan.0", exponents as "1e21" / "1.5e-7".
 * @param {number} v @param {number} [radix]
 */
export function flonumToString(v, radix = 10) {
  if (v !== v) return '+nan.0';
  if (v === Infinity) return '+inf.0';
  if (v === -Infinity) return '-inf.0';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  let s = radix === 10 ? String(v) : v.toString(radix);
  const e = s.indexOf('e');
  if (e >= 0) {
    if (s.charCodeAt(e + 1) === 43 /* + */) s = s.slice(0, e + 1) + s.slice(e + 2);
    return s;
  }
  return s.indexOf('.') >= 0 ? s : s + '.0';
}

/**
 * number->string: exact integers in any radix, rationals "n/d", doubles in R7RS style.
 * @param {any} x @param {number} [radix] 2, 8, 10 or 16
 */
export function numberToString(x, radix = 10) {
  if (typeof x === 'number') return radix === 10 ? String(x) : x.toString(radix);
  if (typeof x === 'bigint') return x.toString(radix);
  if (x instanceof Flonum) return flonumToString(x.v, radix);
  if (x instanceof Ratnum) return x.num.toString(radix) + '/' + x.den.toString(radix);
  return notNumber('number->string', x);
}

// ---------------------------------------------------------------------------------------
// Parsing: the whole R7RS numeric syntax (R7RS 7.1.1), real numbers only.

/** The largest decimal exponent accepted for an exact number (#e1e400 is fine). */
const MAX_EXACT_EXPONENT = 100000;

const DIGITS = {
  2: /^[01]+$/,
  8: /^[0-7]+$/,
  10: /^[0-9]+$/,
  16: /^[0-9a-fA-F]+$/,
};
const DECIMAL = /^([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/;

/**
 * Parse a numeric token. Returns the number; `false` when the text is not numeric syntax
 * at all; or a string, the reason, when the text is numeric syntax that denotes no number
 * we support ("complex numbers are not supported", "division by zero", ...). The reader
 * reports such strings as errors; string->number returns #f for them.
 * @param {string} s
 * @param {number} [radix] default radix (2, 8, 10 or 16), overridden by a prefix
 * @returns {any}
 */
export function scanNumber(s, radix = 10) {
  const len = s.length;
  // Fast path: a short decimal integer.
  if (radix === 10 && len > 0 && len <= 15) {
    let i = 0;
    let c = s.charCodeAt(0);
    const negative = c === 45 && len > 1;
    if (negative) i = 1;
    let v = 0;
    for (; i < len; i++) {
      c = s.charCodeAt(i);
      if (c < 48 || c > 57) break;
      v = v * 10 + (c - 48);
    }
    if (i === len) return negative ? 0 - v : v;
  }
  let i = 0;
  let exactness = '';
  let radixSeen = false;
  while (i + 1 < len && s.charCodeAt(i) === 35 /* # */) {
    const c = s[i + 1].toLowerCase();
    if (c === 'x' || c === 'b' || c === 'o' || c === 'd') {
      if (radixSeen) return false;
      radixSeen = true;
      radix = c === 'x' ? 16 : c === 'b' ? 2 : c === 'o' ? 8 : 10;
    } else if (c === 'e' || c === 'i') {
      if (exactness) return false;
      exactness = c;
    } else return false;
    i += 2;
  }
  if (i >= len) return false;
  const body = i === 0 ? s : s.slice(i);
  const v = parseReal(body, radix, exactness);
  if (v !== false) return v;
  if (looksComplex(body, radix)) return 'complex numbers are not supported';
  return false;
}

/**
 * string->number: the number, or false (also for syntax we cannot represent).
 * @param {string} s @param {number} [radix]
 */
export function parseNumber(s, radix = 10) {
  const v = scanNumber(s, radix);
  return typeof v === 'string' ? false : v;
}

/**
 * <real R> with exactness applied. @param {string} s @param {number} radix @param {string} exactness
 * @returns {any} number, false, or an error string
 */
function parseReal(s, radix, exactness) {
  let j = 0;
  let negative = false;
  const c0 = s.charCodeAt(0);
  if (c0 === 43 || c0 === 45) {
    negative = c0 === 45;
    j = 1;
    const rest = s.slice(1).toLowerCase();
    if (rest === 'inf.0' || rest === 'nan.0') {
      if (exactness === 'e') return `no exact representation for ${s}`;
      return new Flonum(rest === 'nan.0' ? NaN : negative ? -Infinity : Infinity);
    }
  }
  const u = j === 0 ? s : s.slice(j);
  if (u.length === 0) return false;
  const slash = u.indexOf('/');
  if (slash >= 0) {
    const n = parseUInteger(u.slice(0, slash), radix);
    const d = parseUInteger(u.slice(slash + 1), radix);
    if (n === false || d === false) return false;
    const sn = negative ? -n : n;
    if (d === 0n) {
      if (exactness !== 'i') return `division by zero in ${s}`;
      return new Flonum(sn === 0n ? NaN : negative ? -Infinity : Infinity);
    }
    if (exactness === 'i') return new Flonum(n === 0n && negative ? -0 : ratioToDouble(sn, d));
    return makeRational(sn, d);
  }
  const n = parseUInteger(u, radix);
  if (n !== false) {
    if (exactness === 'i') return new Flonum(n === 0n && negative ? -0 : Number(negative ? -n : n));
    return normBig(negative ? -n : n);
  }
  return radix === 10 ? parseDecimal(s, u, negative, exactness) : parseRadixPoint(u, radix, negative, exactness);
}

/** @param {string} s @param {number} radix @returns {bigint|false} */
function parseUInteger(s, radix) {
  // @ts-ignore radix is one of the keys
  if (s.length === 0 || !DIGITS[radix].test(s)) return false;
  switch (radix) {
    case 10:
      return BigInt(s);
    case 16:
      return BigInt('0x' + s);
    case 8:
      return BigInt('0o' + s);
    default:
      return BigInt('0b' + s);
  }
}

/**
 * <decimal 10>: digits with a point and/or an exponent.
 * @param {string} whole the token (with sign) @param {string} u unsigned part
 * @param {boolean} negative @param {string} exactness
 */
function parseDecimal(whole, u, negative, exactness) {
  const m = DECIMAL.exec(u);
  if (m === null) return false;
  const intDigits = m[1];
  const fracDigits = m[2] ?? '';
  if (intDigits.length === 0 && fracDigits.length === 0) return false;
  if (exactness !== 'e') return new Flonum(Number(whole)); // JS rounds decimal text correctly
  let e = m[3] === undefined ? 0 : Number(m[3]);
  e -= fracDigits.length;
  if (Math.abs(e) > MAX_EXACT_EXPONENT) return `exponent too large for an exact number in ${whole}`;
  let mant = BigInt(intDigits + fracDigits);
  if (negative) mant = -mant;
  if (e >= 0) return normBig(mant * 10n ** BigInt(e));
  return makeRational(mant, 10n ** BigInt(-e));
}

/**
 * Extension: a radix point in radix 2, 8 or 16 ("#b1.1" is 1.5), no exponent. This is what
 * number->string produces for an inexact number in those radixes.
 * @param {string} u @param {number} radix @param {boolean} negative @param {string} exactness
 */
function parseRadixPoint(u, radix, negative, exactness) {
  const dot = u.indexOf('.');
  if (dot < 0) return false;
  const ip = u.slice(0, dot);
  const fp = u.slice(dot + 1);
  if (ip.length + fp.length === 0) return false;
  const i = ip.length === 0 ? 0n : parseUInteger(ip, radix);
  const f = fp.length === 0 ? 0n : parseUInteger(fp, radix);
  if (i === false || f === false) return false;
  const scale = BigInt(radix) ** BigInt(fp.length);
  let n = i * scale + f;
  if (negative) n = -n;
  if (exactness === 'e') return makeRational(n, scale);
  return new Flonum(n === 0n && negative ? -0 : ratioToDouble(n, scale));
}

/**
 * Whether s is R7RS complex syntax (rectangular or polar) over reals we can parse.
 * @param {string} s @param {number} radix
 */
function looksComplex(s, radix) {
  const last = s[s.length - 1];
  if (last === 'i' || last === 'I') {
    const inner = s.slice(0, -1);
    if (inner === '+' || inner === '-') return true;
    const c0 = inner[0];
    if ((c0 === '+' || c0 === '-') && parseReal(inner, radix, '') !== false) return true;
    for (let k = inner.length - 1; k > 0; k--) {
      const c = inner[k];
      if (c !== '+' && c !== '-') continue;
      const im = inner.slice(k);
      if (parseReal(inner.slice(0, k), radix, '') === false) continue;
      if (im === '+' || im === '-' || parseReal(im, radix, '') !== false) return true;
    }
  }
  const at = s.indexOf('@');
  return at > 0 && parseReal(s.slice(0, at), radix, '') !== false && parseReal(s.slice(at + 1), radix, '') !== false;
}
