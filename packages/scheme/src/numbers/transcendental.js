// @ts-check
/**
 * Transcendental functions: `exp`, `log`, the trigonometric functions and `angle`.
 *
 * Invariants: results are always inexact (except `(angle x)` of an exact nonnegative x,
 * which is exact 0); a complex argument, or a real one whose result is not real
 * ((log -1), (asin 2)), is handed to complex.js; logarithms of bigints and rationals beyond the double range are
 * computed from their bit length rather than overflowing to infinity.
 */
import { Flonum, Compnum } from '../values.js';
import { complexExp, complexLog, complexTrig, complexAngle } from './complex.js';
import { div } from './arithmetic.js';
import { T_BIG, T_RAT, T_FLO, tagOf, notNumber } from './representation.js';
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
  if (sign(x, who) < 0) return NaN; // the caller takes the complex logarithm
  const d = toDouble(x);
  if (d !== 0 && Number.isFinite(d)) return Math.log(d);
  if (t === T_BIG) return bigLog(x);
  if (t === T_RAT) return bigLog(x.num) - bigLog(x.den);
  return Math.log(d);
}

/** A negative real (exact or not; NaN is not). @param {any} x */
const isNegative = (x) => (typeof x === 'number' ? x < 0 : tagOf(x) >= 0 && sign(x, 'log') < 0);

/** @param {bigint} n > 0 */
function bigLog(n) {
  const d = Number(n);
  if (d !== Infinity) return Math.log(d);
  const shift = bitLength(n) - 64;
  return Math.log(Number(n >> BigInt(shift))) + shift * Math.LN2;
}

/** @param {any} x */
export function exp(x) {
  if (x instanceof Compnum) return complexExp(x);
  return new Flonum(Math.exp(toDouble(x, 'exp')));
}

/** (log z) or (log z base) @param {any} x @param {any} [base] */
export function log(x, base) {
  if (x instanceof Compnum || base instanceof Compnum || isNegative(x) || (base !== undefined && isNegative(base))) {
    return base === undefined ? complexLog(x) : div(complexLog(x), complexLog(base));
  }
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
  if (x instanceof Compnum) return complexTrig('sin', x);
  return new Flonum(Math.sin(toDouble(x, 'sin')));
}
/** @param {any} x */
export function cos(x) {
  if (x instanceof Compnum) return complexTrig('cos', x);
  return new Flonum(Math.cos(toDouble(x, 'cos')));
}
/** @param {any} x */
export function tan(x) {
  if (x instanceof Compnum) return complexTrig('tan', x);
  return new Flonum(Math.tan(toDouble(x, 'tan')));
}
/** @param {any} x */
export function asin(x) {
  if (x instanceof Compnum) return complexTrig('asin', x);
  const d = toDouble(x, 'asin');
  if (d > 1 || d < -1) return complexTrig('asin', x);
  return new Flonum(Math.asin(d));
}
/** @param {any} x */
export function acos(x) {
  if (x instanceof Compnum) return complexTrig('acos', x);
  const d = toDouble(x, 'acos');
  if (d > 1 || d < -1) return complexTrig('acos', x);
  return new Flonum(Math.acos(d));
}
/** (atan z) or (atan y x) @param {any} y @param {any} [x] */
export function atan(y, x) {
  if (x === undefined && y instanceof Compnum) return complexTrig('atan', y);
  if (x === undefined) return new Flonum(Math.atan(toDouble(y, 'atan')));
  return new Flonum(Math.atan2(toDouble(y, 'atan'), toDouble(x, 'atan')));
}

/** (angle x) for a real x: 0 for positive, pi for negative. @param {any} x */
export function angle(x) {
  if (x instanceof Compnum) return complexAngle(x);
  const t = tagOf(x);
  if (t < 0) notNumber('angle', x);
  if (t !== T_FLO) return sign(x, 'angle') < 0 ? new Flonum(Math.PI) : 0;
  return new Flonum(Math.atan2(0, x.v));
}
