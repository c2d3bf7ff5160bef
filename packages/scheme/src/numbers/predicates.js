// @ts-check
/**
 * The numeric predicates of R7RS §6.2.6 (`number?` … `even?`) and the sign of a real.
 *
 * Invariants: the type predicates (`isNumber`, `isInteger`, ...) accept any value and
 * never signal; the others signal "expected a number" (or "expected an integer") naming
 * their procedure. The common case (a fixnum; a flonum for `nan?`, `finite?` and
 * `infinite?`) is answered before the type tag is computed.
 */
import { Flonum, Ratnum, Compnum } from '../values.js';
import { T_FIX, T_BIG, T_RAT, T_FLO, tagOf, notNumber, notInteger } from './representation.js';

/** @param {any} x */
export function isNumber(x) {
  return typeof x === 'number' || typeof x === 'bigint' || x instanceof Flonum || x instanceof Ratnum || x instanceof Compnum;
}
export const isComplex = isNumber;
/** @param {any} x */
export function isReal(x) {
  return typeof x === 'number' || typeof x === 'bigint' || x instanceof Flonum || x instanceof Ratnum;
}

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
  if (x instanceof Compnum) return !(x.im instanceof Flonum);
  const t = tagOf(x);
  if (t < 0) notNumber(who, x);
  return t !== T_FLO;
}

/** @param {any} x @param {string} [who] */
export function isInexact(x, who = 'inexact?') {
  if (typeof x === 'number') return false;
  if (x instanceof Compnum) return x.im instanceof Flonum;
  const t = tagOf(x);
  if (t < 0) notNumber(who, x);
  return t === T_FLO;
}

/** @param {any} x @param {string} [who] @returns {boolean} */
export function isNaN(x, who = 'nan?') {
  if (x instanceof Flonum) return x.v !== x.v;
  if (x instanceof Compnum) return isNaN(x.re) || isNaN(x.im);
  if (tagOf(x) < 0) notNumber(who, x);
  return false;
}

/** @param {any} x @param {string} [who] @returns {boolean} */
export function isFinite(x, who = 'finite?') {
  if (x instanceof Flonum) return Number.isFinite(x.v);
  if (x instanceof Compnum) return isFinite(x.re) && isFinite(x.im);
  if (tagOf(x) < 0) notNumber(who, x);
  return true;
}

/** @param {any} x @param {string} [who] @returns {boolean} */
export function isInfinite(x, who = 'infinite?') {
  if (x instanceof Flonum) return x.v === Infinity || x.v === -Infinity;
  if (x instanceof Compnum) return isInfinite(x.re) || isInfinite(x.im);
  if (tagOf(x) < 0) notNumber(who, x);
  return false;
}

/** @param {any} x @param {string} [who] @returns {boolean} */
export function isZero(x, who = 'zero?') {
  if (typeof x === 'number') return x === 0;
  if (x instanceof Flonum) return x.v === 0;
  if (x instanceof Compnum) return isZero(x.re) && isZero(x.im);
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
export function sign(x, who) {
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
