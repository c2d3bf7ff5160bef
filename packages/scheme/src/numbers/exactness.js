// @ts-check
/**
 * The boundary between exact numbers and doubles: exact → inexact correctly rounded
 * (ties to even, for bigints and rationals of any size), and inexact → exact giving the
 * exact value of the double.
 *
 * Invariants: `toDouble` of an exact number is the double nearest to it, never a double
 * rounded twice; `exact` of a finite double is the rational it denotes exactly
 * ((exact 0.1) = 3602879701896397/36028797018963968); an infinite or NaN double has no
 * exact value and is an error of kind 'range'.
 */
import { Flonum, Ratnum, Compnum, schemeErrorOf } from '../values.js';
import { complexExact, complexInexact } from './complex.js';
import { TWO53, tagOf, notNumber } from './representation.js';
import { bitLength } from './rationals.js';

/** An inexact real. @param {number} v */
export function flo(v) {
  return new Flonum(v);
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
export function doubleToExact(v) {
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
  if (x instanceof Compnum) return complexExact(x, who);
  if (tagOf(x) < 0) notNumber(who, x);
  return x;
}

/**
 * R7RS `inexact`: the nearest double, correctly rounded for bigints and ratnums (a
 * Flonum for a real; an inexact Compnum for a complex).
 * @param {any} x @param {string} [who]
 * @returns {any}
 */
export function inexact(x, who = 'inexact') {
  if (x instanceof Flonum) return x;
  if (x instanceof Compnum) return x.im instanceof Flonum && x.re instanceof Flonum ? x : complexInexact(x, who);
  return new Flonum(toDouble(x, who));
}
