// @ts-check
/**
 * The representation of Scheme numbers, and the checks every other file of the tower
 * builds on: the type tags of the slow paths, the error signallers, the normalisation of
 * exact integers, and the numerator/denominator view of an exact number.
 *
 * Invariants (values.js, followed exactly):
 *  - exact integer: a JS `number` when it is a safe integer, else a `bigint`. A bigint is
 *    never in the safe range (`normBig` makes it so), so an exact integer has exactly one
 *    representation and `===` is its equality;
 *  - exact non-integer rational: `Ratnum` (bigint num/den, den > 1, lowest terms);
 *  - inexact real: `Flonum` (a boxed double). A JS `number` is ALWAYS exact.
 *  - every error names the Scheme procedure (`who`) and carries the offending value as
 *    irritant; division by exact zero is kind 'range'. `tagOf` knows the reals only: a
 *    complex argument where a real is needed is "expected a real number" (notNumber).
 */
import { Flonum, Ratnum, Compnum, schemeErrorOf } from '../values.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const BIG_MAX_SAFE = BigInt(MAX_SAFE);
const BIG_MIN_SAFE = -BIG_MAX_SAFE;
export const TWO53 = 2n ** 53n;

// Type tags used by the slow paths.
export const T_FIX = 0; // JS number (safe integer)
export const T_BIG = 1; // bigint
export const T_RAT = 2; // Ratnum
export const T_FLO = 3; // Flonum

/** @param {any} x @returns {number} a type tag, or -1 when x is not a number */
export function tagOf(x) {
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
export function notNumber(who, x) {
  // a complex number where a real is needed (tagOf knows only the reals)
  if (x instanceof Compnum) return schemeErrorOf('type', who, 'expected a real number', x);
  return schemeErrorOf('type', who, 'expected a number', x);
}
/** @param {string} who @param {any} x @returns {never} */
export function notInteger(who, x) {
  return schemeErrorOf('type', who, 'expected an integer', x);
}
/** @param {string} who @param {...any} xs @returns {never} */
export function divByZero(who, ...xs) {
  return schemeErrorOf('range', who, 'division by zero', ...xs);
}

/**
 * Check that x is a number; returns it.
 * @param {any} x @param {string} [who] @returns {any}
 */
export function checkNumber(x, who = 'number') {
  if (tagOf(x) < 0 && !(x instanceof Compnum)) notNumber(who, x);
  return x;
}

/**
 * An exact integer from a bigint, normalised: a JS number when it is a safe integer.
 * @param {bigint} b @returns {number|bigint}
 */
export function normBig(b) {
  return b >= BIG_MIN_SAFE && b <= BIG_MAX_SAFE ? Number(b) : b;
}

/** Exact numbers beyond 8,192 bits: arithmetic on them is timed and charged to the slice. */
const HEAVY = 1n << 8192n;

/**
 * Whether an exact number is big enough that arithmetic on it is timed and charged to
 * the running slice (engine.js chargeSince): a few comparisons, no walk over its digits.
 * @param {any} x @returns {boolean}
 */
export function heavy(x) {
  if (typeof x === 'bigint') return x >= HEAVY || x <= -HEAVY;
  return x instanceof Ratnum && (heavy(x.num) || heavy(x.den));
}

/** @param {any} x an exact integer or Ratnum @returns {bigint} */
export const numOf = (x) => (x instanceof Ratnum ? x.num : BigInt(x));
/** @param {any} x an exact integer or Ratnum @returns {bigint} */
export const denOf = (x) => (x instanceof Ratnum ? x.den : 1n);
