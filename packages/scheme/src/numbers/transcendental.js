// @ts-check
/**
 * Transcendental functions: `exp`, `log`, the trigonometric functions and `angle`.
 *
 * Invariants: results are always inexact (except `(angle x)` of an exact nonnegative x,
 * which is exact 0); logarithms of bigints and rationals beyond the double range are
 * computed from their bit length rather than overflowing to infinity.
 */
import { Flonum } from '../values.js';
import { T_BIG, T_RAT, T_FLO, tagOf, notNumber, noComplex } from './representation.js';
import { bitLength } from './rationals.js';
import { toDouble } from './exactness.js';
import { sign } from './predicates.js';

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
