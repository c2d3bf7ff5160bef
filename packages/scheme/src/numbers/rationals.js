// @ts-check
/**
 * Exact integers as bigints and exact rationals: greatest common divisors, lowest terms,
 * bit length.
 *
 * Invariant: `makeRational` returns a rational in lowest terms with a positive
 * denominator, and an exact integer (normalised) whenever the denominator divides the
 * numerator, so a `Ratnum` is never an integer in disguise; `fixRational` is its shortcut
 * for two fixnums whose quotient is known not to be an integer.
 */
import { Ratnum } from '../values.js';
import { normBig } from './representation.js';

/** @param {bigint} a @param {bigint} b both >= 0 @returns {bigint} */
export function bigGcd(a, b) {
  while (b !== 0n) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/** @param {number} a @param {number} b both >= 0 safe integers @returns {number} */
export function fixGcd(a, b) {
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
export function fixRational(a, b) {
  if (b < 0) {
    a = -a;
    b = -b;
  }
  const g = fixGcd(a < 0 ? -a : a, b);
  return new Ratnum(BigInt(a / g), BigInt(b / g));
}

/** @param {bigint} b > 0 @returns {number} the number of bits of b */
export function bitLength(b) {
  const h = b.toString(16);
  const top = parseInt(h[0], 16);
  return (h.length - 1) * 4 + (32 - Math.clz32(top));
}
