// @ts-check
/**
 * Integer division (R7RS floor/ and truncate/ and their halves, quotient, remainder,
 * modulo) and `gcd` / `lcm`.
 *
 * Invariants: the arguments are integers, exact or inexact (2.0 is an integer); the
 * results are inexact when any argument is. Two fixnums are divided without leaving JS
 * numbers; `-0` is never returned as an exact result. Division by zero is an error.
 */
import { Flonum } from '../values.js';
import { T_FIX, T_BIG, T_FLO, tagOf, notInteger, divByZero, normBig } from './representation.js';
import { bigGcd, fixGcd } from './rationals.js';
import { toDouble, exact, inexact } from './exactness.js';
import { isZero } from './predicates.js';
import { mul, abs, timedIfHeavy } from './arithmetic.js';

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
  return timedIfHeavy(floor ? floorDivRem : truncateDivRem, a, b, who);
}

/** @param {any} a @param {any} b @param {string} who @returns {[any, any]} */
const floorDivRem = (a, b, who) => divRem(a, b, who, true);
/** @param {any} a @param {any} b @param {string} who @returns {[any, any]} */
const truncateDivRem = (a, b, who) => divRem(a, b, who, false);

/** divRemSlow's work. @param {any} a @param {any} b @param {string} who @param {boolean} floor @returns {[any, any]} */
function divRem(a, b, who, floor) {
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
  return timedIfHeavy(gcdSlow, a, b, who);
}

/** gcd2 of integers that are not both fixnums. @param {any} a @param {any} b @param {string} who */
function gcdSlow(a, b, who) {
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
