// @ts-check
/**
 * The numeric tower: every arithmetic operation on Scheme numbers, one mechanism per file
 * under numbers/. This module is the tower's public face: it only re-exports, so every
 * importer names one module and the bindings it gets are the defining modules' own (a
 * re-export adds no indirection to a call).
 *
 * Representation (values.js, followed exactly; numbers/representation.js):
 *  - exact integer: a JS `number` when it is a safe integer, else a `bigint`. A bigint is
 *    never in the safe range ("normalised"), so an exact integer has exactly one representation;
 *  - exact non-integer rational: `Ratnum` (bigint num/den, den > 1, lowest terms);
 *  - inexact real: `Flonum` (a boxed double). A JS `number` is ALWAYS exact.
 *  - non-real complex: `Compnum` (numbers/complex.js), real and imaginary parts as above;
 *    a real argument with a non-real result ((sqrt -4), (log -1)) gives one.
 *
 * Performance: `add`, `sub`, `mul`, `lt`, `numEq`, ... test `typeof` on both arguments and
 * finish in a few instructions when both are JS numbers (fixnums); the rest is in separate
 * `...Slow` functions (numbers/arithmetic.js).
 *
 * Errors: every function signals a type error naming the Scheme procedure it implements
 * (`who`, overridable by the last optional parameter), with the offending value as
 * irritant: (+ 1 "a") → who "+", message "expected a number", irritant "a".
 * Division by exact zero is kind 'range', message "division by zero".
 *
 * The files:
 *   numbers/representation.js  type tags, error signallers, normalisation of exact integers
 *   numbers/rationals.js       gcd, lowest terms, bit length
 *   numbers/exactness.js       exact ↔ inexact, correctly rounded
 *   numbers/predicates.js      number? … even?
 *   numbers/arithmetic.js      + - * /, comparison, max/min (the fixnum fast paths)
 *   numbers/integer-division.js  floor/ truncate/ quotient remainder modulo gcd lcm
 *   numbers/rounding.js        floor ceiling truncate round, numerator, rationalize
 *   numbers/powers.js          sqrt, exact-integer-sqrt, expt
 *   numbers/transcendental.js  exp log sin … atan angle
 *   numbers/complex.js         complex numbers: construction, arithmetic, transcendental functions
 *   numbers/syntax.js          number->string, string->number and the reader's numbers
 */
export { checkNumber, normBig } from './numbers/representation.js';
export { makeRational } from './numbers/rationals.js';
export { flo, ratioToDouble, toDouble, exact, inexact } from './numbers/exactness.js';
export {
  isNumber, isComplex, isReal, isRational, isInteger, isExactInteger, isExactRational, isExact, isInexact,
  isNaN, isFinite, isInfinite, isZero, isPositive, isNegative, isOdd, isEven,
} from './numbers/predicates.js';
export {
  add, sub, mul, div, neg, abs, square, numEq, lt, gt, le, ge, compare, numEqv, max, min,
} from './numbers/arithmetic.js';
export {
  truncateDiv, floorDiv, truncateQuotient, truncateRemainder, floorQuotient, floorRemainder, floorRem,
  truncateRem, quotient, remainder, modulo, gcd, lcm,
} from './numbers/integer-division.js';
export { floor, ceiling, truncate, round, numerator, denominator, rationalize } from './numbers/rounding.js';
export { exactIntegerSqrt, sqrt, expt } from './numbers/powers.js';
export { exp, log, sin, cos, tan, asin, acos, atan, angle } from './numbers/transcendental.js';
export { flonumToString, numberToString, scanNumber, parseNumber, checkNumeralSize, MAX_DECIMAL_BITS } from './numbers/syntax.js';
export { makeRectangular, makePolar, realPart, imagPart, magnitude } from './numbers/complex.js';
