// @ts-check
/**
 * Square roots and powers: `exact-integer-sqrt`, `sqrt`, `expt`.
 *
 * Invariants: an exact argument whose root or power is exact gives the exact result
 * ((sqrt 16) = 4, (sqrt 1/4) = 1/2, (expt 2/3 -2) = 9/4); otherwise the result is
 * inexact. A non-real result is a complex number (complex.js): (sqrt -4) = +2i. Integer square roots are exact for bigints of
 * any size (Newton's method on bigints, not doubles).
 */
import { Flonum, Ratnum, Compnum, schemeErrorOf } from '../values.js';
import {
  TWO53, T_FIX, T_BIG, T_RAT, T_FLO, tagOf, notNumber, divByZero, normBig, numOf, denOf,
} from './representation.js';
import { makeRational, bitLength } from './rationals.js';
import { ratioToDouble, toDouble } from './exactness.js';
import { div, MAX_EXACT_BITS } from './arithmetic.js';
import { complexSqrt, complexExpt } from './complex.js';
import { chargeSince } from '../engine/engine.js';

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
      if (x < 0) return complexSqrt(x); // (sqrt -4) = +2i
      const s = fixIsqrt(x);
      return s * s === x ? s : new Flonum(Math.sqrt(x));
    }
    case T_BIG: {
      if (x < 0n) return complexSqrt(x);
      const s = bigIsqrt(x);
      return s * s === x ? normBig(s) : new Flonum(bigSqrtDouble(x));
    }
    case T_RAT: {
      if (x.num < 0n) return complexSqrt(x);
      const sn = bigIsqrt(x.num);
      const sd = bigIsqrt(x.den);
      if (sn * sn === x.num && sd * sd === x.den) return new Ratnum(sn, sd);
      return new Flonum(Math.sqrt(ratioToDouble(x.num, x.den)));
    }
    case T_FLO:
      return x.v < 0 ? complexSqrt(x) : new Flonum(Math.sqrt(x.v));
  }
  if (x instanceof Compnum) return complexSqrt(x);
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
  if (base instanceof Compnum || e instanceof Compnum) {
    if (tb < 0 && !(base instanceof Compnum)) notNumber(who, base);
    if (te < 0 && !(e instanceof Compnum)) notNumber(who, e);
    return complexExpt(base, e, who);
  }
  if (tb < 0) notNumber(who, base);
  if (te < 0) notNumber(who, e);
  if (te === T_FIX || te === T_BIG) {
    if (tb === T_FLO) return new Flonum(Math.pow(base.v, Number(e)));
    return exactPower(base, e, who);
  }
  // Non-integer or inexact exponent.
  const b = toDouble(base);
  const p = toDouble(e);
  if (b < 0 && !Number.isInteger(p)) return complexExpt(base, e, who);
  if (tb !== T_FLO && b === 0 && te === T_RAT) {
    if (e.num < 0n) divByZero(who, base, e);
    return 0;
  }
  return new Flonum(Math.pow(b, p));
}

/** log2 of |b| (about: the bits of b less one beyond 2^53). @param {bigint} b */
function log2Abs(b) {
  const m = b < 0n ? -b : b;
  return m < TWO53 ? Math.log2(Number(m)) : bitLength(m) - 1;
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
  if (Math.max(log2Abs(numOf(base)), log2Abs(denOf(base))) * n > MAX_EXACT_BITS) return schemeErrorOf('range', who, `result too large (more than ${MAX_EXACT_BITS} bits)`, base, e);
  let r;
  const t0 = performance.now();
  try {
    r = makeRational(numOf(base) ** BigInt(n), denOf(base) ** BigInt(n));
    chargeSince(t0);
  } catch (err) {
    if (err instanceof RangeError) return schemeErrorOf('range', who, 'result too large', base, e);
    throw err;
  }
  return negExp ? div(1, r) : r;
}
