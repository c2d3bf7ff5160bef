// @ts-check
/**
 * Non-real complex numbers (`Compnum`, values.js): construction, arithmetic through the
 * tower, and the transcendental functions on complex arguments, for the generic
 * operations of the other files, which call in here only from their slow paths when an
 * argument is a Compnum or a real argument has a non-real result ((sqrt -4), (log -1)).
 *
 * Invariants: `makeRectangular` is the only constructor (values.js states the form it
 * keeps: an exact 0 imaginary part gives a real; an exact complex has exact parts; an
 * inexact one inexact parts, except an exact 0 real part). Exact complex arithmetic
 * (+ - * /, expt to an exact integer, sqrt of an exact perfect square) stays exact;
 * everything else is computed in doubles and inexact. Branch cuts follow R7RS §6.2.6
 * (the principal values of Common Lisp, as `atan` and `log` in the report).
 */
import { Compnum, Flonum, schemeErrorOf } from '../values.js';
import { add, sub, mul, div, neg, numEq, numEqv } from './arithmetic.js';
import { toDouble, exact } from './exactness.js';
import { sqrt as realSqrt } from './powers.js';
import { notNumber, tagOf } from './representation.js';

/**
 * The complex number re + im·i in canonical form (a real when im is exact 0).
 * @param {any} re a real @param {any} im a real
  * @returns {any}
 */
export function makeRectangular(re, im) {
  if (im === 0) return re;
  const reExact = !(re instanceof Flonum);
  const imExact = !(im instanceof Flonum);
  if (imExact && !reExact) return new Compnum(re, new Flonum(toDouble(im)));
  if (!imExact && reExact && re !== 0) return new Compnum(new Flonum(toDouble(re)), im);
  return new Compnum(re, im);
}

/** An inexact complex from two doubles. @param {number} x @param {number} y */
const fromDoubles = (x, y) => new Compnum(new Flonum(x), new Flonum(y));

/** The real part of any number. @param {any} z @returns {any} */
export const realPart = (z) => (z instanceof Compnum ? z.re : z);
/** The imaginary part of any number (exact 0 for a real). @param {any} z @returns {any} */
export const imagPart = (z) => (z instanceof Compnum ? z.im : 0);

/**
 * A number's parts as doubles. @param {any} z @param {string} who
 * @returns {[number, number]}
 */
function parts(z, who) {
  if (z instanceof Compnum) return [toDouble(z.re), toDouble(z.im)];
  if (tagOf(z) < 0) notNumber(who, z);
  return [toDouble(z), 0];
}

// ---------------------------------------------------------------------------------------
// Arithmetic (an argument is a Compnum; both are numbers, checked by the caller).

/** @param {any} a @param {any} b @returns {any} */
export const complexAdd = (a, b) => makeRectangular(add(realPart(a), realPart(b)), add(imagPart(a), imagPart(b)));

/** @param {any} a @param {any} b @returns {any} */
export function complexMul(a, b) {
  const ar = realPart(a);
  const ai = imagPart(a);
  const br = realPart(b);
  const bi = imagPart(b);
  return makeRectangular(sub(mul(ar, br), mul(ai, bi)), add(mul(ar, bi), mul(ai, br)));
}

/** @param {any} a @param {any} b @param {string} who @returns {any} */
export function complexDiv(a, b, who) {
  const ar = realPart(a);
  const ai = imagPart(a);
  const br = realPart(b);
  const bi = imagPart(b);
  const d = add(mul(br, br), mul(bi, bi));
  if (d === 0) schemeErrorOf('range', who, 'division by zero', a, b);
  return makeRectangular(div(add(mul(ar, br), mul(ai, bi)), d), div(sub(mul(ai, br), mul(ar, bi)), d));
}

/** @param {Compnum} z @returns {any} */
export const complexNeg = (z) => makeRectangular(neg(z.re), neg(z.im));

/** `=` when an argument is a Compnum. @param {any} a @param {any} b @returns {boolean} */
export const complexEq = (a, b) => numEq(realPart(a), realPart(b)) && numEq(imagPart(a), imagPart(b));

/** `eqv?` on two Compnums: the same parts, exactly. @param {Compnum} a @param {Compnum} b @returns {boolean} */
export const complexEqv = (a, b) => numEqv(a.re, b.re) && numEqv(a.im, b.im);

/** `exact` of a Compnum. @param {Compnum} z @param {string} who @returns {any} */
export const complexExact = (z, who) => makeRectangular(exact(z.re, who), exact(z.im, who));
/** `inexact` of a Compnum. @param {Compnum} z @param {string} who @returns {any} */
export const complexInexact = (z, who) => fromDoubles(toDouble(z.re, who), toDouble(z.im, who));

// ---------------------------------------------------------------------------------------
// Magnitude, angle, polar form.

/** (magnitude z): exact when z is exact and its magnitude a perfect square's root. @param {Compnum} z @returns {any} */
export function magnitude(z) {
  if (!(z.im instanceof Flonum)) return realSqrt(add(mul(z.re, z.re), mul(z.im, z.im)));
  return new Flonum(Math.hypot(toDouble(z.re), z.im.v));
}

/** (angle z) of a Compnum. @param {Compnum} z @returns {any} */
export const complexAngle = (z) => new Flonum(Math.atan2(toDouble(z.im), toDouble(z.re)));

/** (make-polar magnitude angle). @param {any} m @param {any} a @returns {any} */
export function makePolar(m, a) {
  if (a === 0) return m;
  const r = toDouble(m, 'make-polar');
  const t = toDouble(a, 'make-polar');
  return fromDoubles(r * Math.cos(t), r * Math.sin(t));
}

// ---------------------------------------------------------------------------------------
// Roots, powers, exponentials and logarithms.

/**
 * sqrt of a Compnum, or of a negative real: exact when the argument is exact and its
 * root is ((sqrt -4) = +2i, (sqrt -3+4i) = 1+2i), otherwise the principal root in doubles.
 * @param {any} z
  * @returns {any}
 */
export function complexSqrt(z) {
  const re = realPart(z);
  const im = imagPart(z);
  if (im === 0) {
    // a negative real: i·sqrt(-x)
    return makeRectangular(0, realSqrt(neg(re)));
  }
  if (!(im instanceof Flonum)) {
    const m = magnitude(/** @type {Compnum} */ (z));
    if (!(m instanceof Flonum)) {
      const x = realSqrt(div(add(m, re), 2));
      const y = realSqrt(div(sub(m, re), 2));
      if (!(x instanceof Flonum) && !(y instanceof Flonum)) return makeRectangular(x, toDouble(im) < 0 ? neg(y) : y);
    }
  }
  const [a, b] = parts(z, 'sqrt');
  return fromDoubles(...csqrt(a, b));
}

/** Principal square root in doubles. @param {number} a @param {number} b @returns {[number, number]} */
function csqrt(a, b) {
  const m = Math.hypot(a, b);
  const x = Math.sqrt((m + a) / 2);
  const y = Math.sqrt((m - a) / 2);
  return [x, b < 0 ? -y : y];
}

/** @param {number} a @param {number} b @returns {[number, number]} */
const clog = (a, b) => [Math.log(Math.hypot(a, b)), Math.atan2(b, a)];
/** @param {number} a @param {number} b @returns {[number, number]} */
const cexp = (a, b) => {
  const e = Math.exp(a);
  return b === 0 ? [e, 0] : [e * Math.cos(b), e * Math.sin(b)];
};
/** @param {number} a @param {number} b @param {number} c @param {number} d @returns {[number, number]} */
const cmul = (a, b, c, d) => [a * c - b * d, a * d + b * c];
/** @param {number} a @param {number} b @param {number} c @param {number} d @returns {[number, number]} */
const cdiv = (a, b, c, d) => {
  const n = c * c + d * d;
  return [(a * c + b * d) / n, (b * c - a * d) / n];
};

/** (exp z) of a Compnum. @param {any} z @returns {any} */
export const complexExp = (z) => fromDoubles(...cexp(...parts(z, 'exp')));

/** (log z) of a Compnum or a negative real: ln|z| + i·angle(z). @param {any} z @returns {any} */
export const complexLog = (z) => fromDoubles(...clog(...parts(z, 'log')));

/**
 * (expt base e) when either is a Compnum or a negative base has a non-integer exponent:
 * exact for an exact base and an exact integer exponent (repeated squaring), otherwise
 * exp(e·log(base)).
 * @param {any} base @param {any} e @param {string} who
  * @returns {any}
 */
export function complexExpt(base, e, who) {
  if (typeof e === 'number' && Number.isInteger(e) && Math.abs(e) <= 1 << 20 && !(imagPart(base) instanceof Flonum)) {
    let result = /** @type {any} */ (1);
    let b = base;
    for (let n = Math.abs(e); n > 0; n >>>= 1) {
      if (n & 1) result = mul(result, b);
      if (n > 1) b = mul(b, b);
    }
    return e < 0 ? div(1, result) : result;
  }
  const [a, b] = parts(base, who);
  const [c, d] = parts(e, who);
  if (a === 0 && b === 0) return c > 0 ? (e instanceof Flonum || base instanceof Flonum ? new Flonum(0) : 0) : schemeErrorOf('range', who, 'zero to a non-positive power', base, e);
  const [lr, li] = clog(a, b);
  return fromDoubles(...cexp(...cmul(c, d, lr, li)));
}

// ---------------------------------------------------------------------------------------
// Trigonometry on complex arguments (and asin/acos of reals beyond [-1, 1]).

/** @param {number} a @param {number} b @returns {[number, number]} */
const csin = (a, b) => [Math.sin(a) * Math.cosh(b), Math.cos(a) * Math.sinh(b)];
/** @param {number} a @param {number} b @returns {[number, number]} */
const ccos = (a, b) => [Math.cos(a) * Math.cosh(b), -Math.sin(a) * Math.sinh(b)];

/** asin z = -i·log(iz + sqrt(1 - z²)) @param {number} a @param {number} b @returns {[number, number]} */
function casin(a, b) {
  const [sa, sb] = csqrt(1 - (a * a - b * b), -2 * a * b);
  const [la, lb] = clog(sa - b, sb + a);
  return [lb, -la];
}

/** @param {string} name @param {any} z @returns {any} */
export function complexTrig(name, z) {
  const [a, b] = parts(z, name);
  switch (name) {
    case 'sin':
      return fromDoubles(...csin(a, b));
    case 'cos':
      return fromDoubles(...ccos(a, b));
    case 'tan': {
      const [s1, s2] = csin(a, b);
      const [c1, c2] = ccos(a, b);
      return fromDoubles(...cdiv(s1, s2, c1, c2));
    }
    case 'asin':
      return fromDoubles(...casin(a, b));
    case 'acos': {
      const [x, y] = casin(a, b);
      return fromDoubles(Math.PI / 2 - x, -y);
    }
    default: {
      // atan z = (log(1 + iz) - log(1 - iz)) / 2i
      const [p1, p2] = clog(1 - b, a);
      const [q1, q2] = clog(1 + b, -a);
      return fromDoubles(...cdiv(p1 - q1, p2 - q2, 0, 2));
    }
  }
}
