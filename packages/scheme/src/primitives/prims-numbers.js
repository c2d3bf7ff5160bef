// @ts-check
/**
 * R7RS §6.2 numeric procedures: (scheme base), (scheme inexact), and the parts of
 * (scheme complex) that make sense on reals (real-part, imag-part, magnitude, angle,
 * make-rectangular / make-polar with a zero imaginary part or angle). Plus the R5RS names
 * exact->inexact and inexact->exact. Imported for its side effect: it registers them.
 *
 * Every procedure here is a thin wrapper over numbers.js, which does the arithmetic and
 * signals errors naming the procedure. All are pure.
 */
import * as N from '../numbers.js';
import { DEFAULT, Values, MString, Compnum, schemeErrorOf } from '../values.js';
import * as C from '../numbers/complex.js';
import { definePrimitive } from '../engine/registry.js';

const PURE = { pure: true };

/** An optional argument that was not passed. @param {any} x */
const absent = (x) => x === undefined || x === DEFAULT;

// ---------------------------------------------------------------------------------------
// Arithmetic

definePrimitive(
  '+',
  0,
  -1,
  /** @param {...any} xs */
  function plus(...xs) {
    const n = xs.length;
    if (n === 2) return N.add(xs[0], xs[1]);
    if (n === 0) return 0;
    let acc = N.checkNumber(xs[0], '+');
    for (let i = 1; i < n; i++) acc = N.add(acc, xs[i]);
    return acc;
  },
  PURE,
);

definePrimitive(
  '*',
  0,
  -1,
  /** @param {...any} xs */
  function times(...xs) {
    const n = xs.length;
    if (n === 2) return N.mul(xs[0], xs[1]);
    if (n === 0) return 1;
    let acc = N.checkNumber(xs[0], '*');
    for (let i = 1; i < n; i++) acc = N.mul(acc, xs[i]);
    return acc;
  },
  PURE,
);

definePrimitive(
  '-',
  1,
  -1,
  /** @param {...any} xs */
  function minus(...xs) {
    const n = xs.length;
    if (n === 2) return N.sub(xs[0], xs[1]);
    if (n === 1) return N.neg(xs[0], '-');
    let acc = xs[0];
    for (let i = 1; i < n; i++) acc = N.sub(acc, xs[i]);
    return acc;
  },
  PURE,
);

definePrimitive(
  '/',
  1,
  -1,
  /** @param {...any} xs */
  function divide(...xs) {
    const n = xs.length;
    if (n === 2) return N.div(xs[0], xs[1]);
    if (n === 1) return N.div(1, xs[0]);
    let acc = xs[0];
    for (let i = 1; i < n; i++) acc = N.div(acc, xs[i]);
    return acc;
  },
  PURE,
);

// ---------------------------------------------------------------------------------------
// Comparison: every argument is checked, even after the answer is known.

/**
 * @param {string} name @param {(a: any, b: any) => boolean} cmp
 */
function defineComparison(name, cmp) {
  definePrimitive(
    name,
    1,
    -1,
    /** @param {...any} xs */
    (...xs) => {
      const n = xs.length;
      if (n === 2) return cmp(xs[0], xs[1]);
      if (n === 1) {
        N.checkNumber(xs[0], name);
        return true;
      }
      let result = true;
      for (let i = 0; i + 1 < n; i++) if (!cmp(xs[i], xs[i + 1])) result = false;
      return result;
    },
    PURE,
  );
}
defineComparison('=', N.numEq);
defineComparison('<', N.lt);
defineComparison('>', N.gt);
defineComparison('<=', N.le);
defineComparison('>=', N.ge);

// ---------------------------------------------------------------------------------------
// Predicates

definePrimitive('number?', 1, 1, N.isNumber, PURE);
definePrimitive('complex?', 1, 1, N.isNumber, PURE);
definePrimitive('real?', 1, 1, N.isReal, PURE);
definePrimitive('rational?', 1, 1, N.isRational, PURE);
definePrimitive('integer?', 1, 1, N.isInteger, PURE);
definePrimitive('exact-integer?', 1, 1, N.isExactInteger, PURE);
definePrimitive('exact?', 1, 1, /** @param {any} x */ (x) => N.isExact(x, 'exact?'), PURE);
definePrimitive('inexact?', 1, 1, /** @param {any} x */ (x) => N.isInexact(x, 'inexact?'), PURE);
definePrimitive('nan?', 1, 1, /** @param {any} x */ (x) => N.isNaN(x, 'nan?'), PURE);
definePrimitive('infinite?', 1, 1, /** @param {any} x */ (x) => N.isInfinite(x, 'infinite?'), PURE);
definePrimitive('finite?', 1, 1, /** @param {any} x */ (x) => N.isFinite(x, 'finite?'), PURE);
definePrimitive('zero?', 1, 1, /** @param {any} x */ (x) => N.isZero(x, 'zero?'), PURE);
definePrimitive('positive?', 1, 1, /** @param {any} x */ (x) => N.isPositive(x, 'positive?'), PURE);
definePrimitive('negative?', 1, 1, /** @param {any} x */ (x) => N.isNegative(x, 'negative?'), PURE);
definePrimitive('odd?', 1, 1, /** @param {any} x */ (x) => N.isOdd(x, 'odd?'), PURE);
definePrimitive('even?', 1, 1, /** @param {any} x */ (x) => N.isEven(x, 'even?'), PURE);

// ---------------------------------------------------------------------------------------
// max/min, abs, integer division

definePrimitive('max', 1, -1, N.max, PURE);
definePrimitive('min', 1, -1, N.min, PURE);
definePrimitive('abs', 1, 1, /** @param {any} x */ (x) => N.abs(x, 'abs'), PURE);

definePrimitive('quotient', 2, 2, N.quotient, PURE);
definePrimitive('remainder', 2, 2, N.remainder, PURE);
definePrimitive('modulo', 2, 2, N.modulo, PURE);
definePrimitive(
  'floor/',
  2,
  2,
  /** @param {any} a @param {any} b */ (a, b) => new Values(N.floorDiv(a, b, 'floor/')),
  PURE,
);
definePrimitive('floor-quotient', 2, 2, /** @param {any} a @param {any} b */ (a, b) => N.floorQuotient(a, b), PURE);
definePrimitive('floor-remainder', 2, 2, /** @param {any} a @param {any} b */ (a, b) => N.floorRemainder(a, b), PURE);
definePrimitive(
  'truncate/',
  2,
  2,
  /** @param {any} a @param {any} b */ (a, b) => new Values(N.truncateDiv(a, b, 'truncate/')),
  PURE,
);
definePrimitive('truncate-quotient', 2, 2, /** @param {any} a @param {any} b */ (a, b) => N.truncateQuotient(a, b), PURE);
definePrimitive('truncate-remainder', 2, 2, /** @param {any} a @param {any} b */ (a, b) => N.truncateRemainder(a, b), PURE);

definePrimitive('gcd', 0, -1, N.gcd, PURE);
definePrimitive('lcm', 0, -1, N.lcm, PURE);
definePrimitive('numerator', 1, 1, /** @param {any} x */ (x) => N.numerator(x), PURE);
definePrimitive('denominator', 1, 1, /** @param {any} x */ (x) => N.denominator(x), PURE);

// ---------------------------------------------------------------------------------------
// Rounding

definePrimitive('floor', 1, 1, /** @param {any} x */ (x) => N.floor(x), PURE);
definePrimitive('ceiling', 1, 1, /** @param {any} x */ (x) => N.ceiling(x), PURE);
definePrimitive('round', 1, 1, /** @param {any} x */ (x) => N.round(x), PURE);
definePrimitive('truncate', 1, 1, /** @param {any} x */ (x) => N.truncate(x), PURE);
definePrimitive('rationalize', 2, 2, N.rationalize, PURE);

// ---------------------------------------------------------------------------------------
// (scheme inexact), powers and roots

definePrimitive('exp', 1, 1, N.exp, PURE);
definePrimitive(
  'log',
  1,
  2,
  /** @param {any} x @param {any} [b] */ (x, b) => (absent(b) ? N.log(x) : N.log(x, b)),
  PURE,
);
definePrimitive('sin', 1, 1, N.sin, PURE);
definePrimitive('cos', 1, 1, N.cos, PURE);
definePrimitive('tan', 1, 1, N.tan, PURE);
definePrimitive('asin', 1, 1, N.asin, PURE);
definePrimitive('acos', 1, 1, N.acos, PURE);
definePrimitive(
  'atan',
  1,
  2,
  /** @param {any} y @param {any} [x] */ (y, x) => (absent(x) ? N.atan(y) : N.atan(y, x)),
  PURE,
);
definePrimitive('square', 1, 1, /** @param {any} x */ (x) => N.mul(N.checkNumber(x, 'square'), x), PURE);
definePrimitive('sqrt', 1, 1, /** @param {any} x */ (x) => N.sqrt(x), PURE);
definePrimitive(
  'exact-integer-sqrt',
  1,
  1,
  /** @param {any} x */ (x) => new Values(N.exactIntegerSqrt(x)),
  PURE,
);
definePrimitive('expt', 2, 2, /** @param {any} a @param {any} b */ (a, b) => N.expt(a, b), PURE);

// ---------------------------------------------------------------------------------------
// Exactness

definePrimitive('exact', 1, 1, /** @param {any} x */ (x) => N.exact(x, 'exact'), PURE);
definePrimitive('inexact', 1, 1, /** @param {any} x */ (x) => N.inexact(x, 'inexact'), PURE);
definePrimitive('inexact->exact', 1, 1, /** @param {any} x */ (x) => N.exact(x, 'inexact->exact'), PURE);
definePrimitive('exact->inexact', 1, 1, /** @param {any} x */ (x) => N.inexact(x, 'exact->inexact'), PURE);

// ---------------------------------------------------------------------------------------
// (scheme complex)

/** @param {any} x @param {string} who */
function checkReal(x, who) {
  if (!N.isReal(x)) N.checkNumber(x, who) && schemeErrorOf('type', who, 'expected a real number', x);
  return x;
}

definePrimitive('real-part', 1, 1, /** @param {any} x */ (x) => C.realPart(N.checkNumber(x, 'real-part')), PURE);
definePrimitive('imag-part', 1, 1, /** @param {any} x */ (x) => C.imagPart(N.checkNumber(x, 'imag-part')), PURE);
definePrimitive('magnitude', 1, 1, /** @param {any} x */ (x) => (x instanceof Compnum ? C.magnitude(x) : N.abs(x, 'magnitude')), PURE);
definePrimitive('angle', 1, 1, N.angle, PURE);
definePrimitive(
  'make-rectangular',
  2,
  2,
  /** @param {any} re @param {any} im */ (re, im) => C.makeRectangular(checkReal(re, 'make-rectangular'), checkReal(im, 'make-rectangular')),
  PURE,
);
definePrimitive(
  'make-polar',
  2,
  2,
  /** @param {any} m @param {any} a */ (m, a) => C.makePolar(checkReal(m, 'make-polar'), checkReal(a, 'make-polar')),
  PURE,
);

// ---------------------------------------------------------------------------------------
// Conversion to and from text

/** @param {string} who @param {any} radix */
function checkRadix(who, radix) {
  if (absent(radix)) return 10;
  if (radix === 2 || radix === 8 || radix === 10 || radix === 16) return radix;
  return schemeErrorOf('range', who, 'expected a radix of 2, 8, 10 or 16', radix);
}

definePrimitive(
  'number->string',
  1,
  2,
  /** @param {any} z @param {any} [radix] */ (z, radix) => N.numberToString(N.checkNumber(z, 'number->string'), checkRadix('number->string', radix)),
  PURE,
);
definePrimitive(
  'string->number',
  1,
  2,
  /** @param {any} s @param {any} [radix] */ (s, radix) => {
    if (s instanceof MString) s = s.text();
    if (typeof s !== 'string') return schemeErrorOf('type', 'string->number', 'expected a string', s);
    return N.parseNumber(s, checkRadix('string->number', radix));
  },
  PURE,
);
