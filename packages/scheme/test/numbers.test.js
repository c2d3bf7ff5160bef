// @ts-check
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as N from '../src/numbers.js';
import { Flonum, Ratnum, SchemeError } from '../src/values.js';

const fl = (/** @type {number} */ v) => new Flonum(v);
/** Parse Scheme numeric text (test shorthand). @param {string} s */
const num = (s) => {
  const v = N.parseNumber(s);
  if (v === false) throw new Error(`not a number: ${s}`);
  return v;
};
/** Print a number (test shorthand). @param {any} x */
const str = (x) => N.numberToString(x);

/**
 * Assert that `fn` signals a Scheme error with this who, message (substring) and kind.
 * @param {() => any} fn @param {string} who @param {string} message @param {string} [kind]
 */
function assertSchemeError(fn, who, message, kind) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof SchemeError, `expected a SchemeError, got ${e}`);
    assert.equal(e.payload.who, who);
    assert.ok(e.payload.message.includes(message), `message "${e.payload.message}" lacks "${message}"`);
    if (kind) assert.equal(e.payload.kind, kind);
    return true;
  });
}

describe('representation invariants', () => {
  test('fixnum addition that overflows the safe range becomes a bigint and back', () => {
    const big = N.add(Number.MAX_SAFE_INTEGER, 1);
    assert.equal(typeof big, 'bigint');
    assert.equal(big, 2n ** 53n);
    const back = N.sub(big, 1);
    assert.equal(typeof back, 'number');
    assert.equal(back, Number.MAX_SAFE_INTEGER);
  });

  test('a bigint result in the safe range is normalised to a JS number', () => {
    assert.equal(N.mul(2n ** 60n, 0), 0);
    assert.equal(typeof N.div(2n ** 60n, 2n ** 58n), 'number');
    assert.equal(N.div(2n ** 60n, 2n ** 58n), 4);
    assert.equal(N.normBig(5n), 5);
    assert.equal(N.normBig(-(2n ** 53n)), -(2n ** 53n));
  });

  test('exact zero is never negative zero', () => {
    assert.ok(Object.is(N.mul(0, -5), 0));
    assert.ok(Object.is(N.neg(0), 0));
    assert.ok(Object.is(N.quotient(-1, 5), 0));
    assert.ok(Object.is(N.remainder(-4, 2), 0));
    assert.ok(Object.is(N.modulo(-4, 2), 0));
    assert.ok(Object.is(N.div(0, -3), 0));
    assert.ok(Object.is(N.truncateDiv(-4, 2)[1], 0));
    assert.ok(Object.is(num('-0'), 0));
  });

  test('exact division gives a Ratnum in lowest terms with a positive denominator', () => {
    const r = N.div(6, -4);
    assert.ok(r instanceof Ratnum);
    assert.equal(r.num, -3n);
    assert.equal(r.den, 2n);
    assert.equal(N.div(6, 3), 2);
    assert.equal(N.add(N.div(1, 3), N.div(2, 3)), 1);
  });

  test('inexact contagion: any Flonum argument makes the result a Flonum', () => {
    assert.ok(N.add(1, fl(2)) instanceof Flonum);
    assert.equal(N.add(1, fl(2)).v, 3);
    assert.equal(N.mul(N.div(1, 2), fl(3)).v, 1.5);
    assert.equal(N.sub(2n ** 70n, fl(1)).v, 2 ** 70);
    assert.equal(N.div(1, fl(0)).v, Infinity, 'division by inexact zero gives an infinity');
    assertSchemeError(() => N.div(fl(1), 0), '/', 'division by zero');
  });
});

describe('arithmetic', () => {
  test('bigint arithmetic is exact', () => {
    assert.equal(str(N.mul(12345678901234567890n, 98765432109876543210n)), '1219326311370217952237463801111263526900');
    assert.equal(str(N.sub(0, 2n ** 64n)), '-18446744073709551616');
    assert.equal(N.add(2n ** 64n, -(2n ** 64n)), 0);
  });

  test('rational arithmetic is exact', () => {
    assert.equal(str(N.add(N.div(1, 3), N.div(1, 6))), '1/2');
    assert.equal(str(N.mul(N.div(2, 3), N.div(9, 4))), '3/2');
    assert.equal(str(N.div(N.div(1, 3), N.div(2, 3))), '1/2');
    assert.equal(str(N.sub(N.div(1, 2), N.div(1, 2))), '0');
    assert.equal(str(N.neg(N.div(1, 2))), '-1/2');
  });

  test('division by exact zero is an error naming /', () => {
    assertSchemeError(() => N.div(1, 0), '/', 'division by zero', 'range');
    assertSchemeError(() => N.div(N.div(1, 2), 0), '/', 'division by zero');
    assertSchemeError(() => N.quotient(5, 0), 'quotient', 'division by zero');
    assertSchemeError(() => N.modulo(5n ** 40n, 0), 'modulo', 'division by zero');
    assertSchemeError(() => N.floorDiv(fl(5), fl(0)), 'floor/', 'division by zero');
  });

  test('type errors name the procedure and carry the offending value', () => {
    assert.throws(
      () => N.add(1, 'a'),
      (e) => e instanceof SchemeError && e.payload.who === '+' && e.payload.message === 'expected a number' && e.payload.irritants.car === 'a' && e.payload.kind === 'type',
    );
    assertSchemeError(() => N.sub('x', 1), '-', 'expected a number');
    assertSchemeError(() => N.mul(1, null), '*', 'expected a number');
    assertSchemeError(() => N.lt(1, 'x'), '<', 'expected a number');
    assertSchemeError(() => N.ge(true, 1), '>=', 'expected a number');
    assertSchemeError(() => N.quotient(fl(1.5), 1), 'quotient', 'expected an integer');
    assertSchemeError(() => N.isOdd(N.div(1, 2)), 'odd?', 'expected an integer');
    assertSchemeError(() => N.isZero('0'), 'zero?', 'expected a number');
  });

  test('abs handles the most negative fixnum, bigints, ratnums and -0.0', () => {
    assert.equal(N.abs(-Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
    assert.equal(N.abs(-(2n ** 80n)), 2n ** 80n);
    assert.equal(str(N.abs(N.div(-1, 2))), '1/2');
    assert.equal(str(N.abs(fl(-0))), '0.0');
  });
});

describe('comparison', () => {
  test('mixed exact and inexact comparisons are exact (transitive)', () => {
    const a = N.sub(N.expt(2, 1000), 1);
    const b = N.inexact(N.expt(2, 1000));
    const c = N.add(N.expt(2, 1000), 1);
    assert.equal(N.numEq(a, b), false);
    assert.equal(N.numEq(b, c), false);
    assert.equal(N.lt(a, b), true);
    assert.equal(N.lt(b, c), true);
    // 2^53 + 1 is not a double: it is not = to 2^53 as a double.
    assert.equal(N.numEq(N.add(2 ** 53 - 1, 2), fl(2 ** 53)), false);
    assert.equal(N.numEq(N.add(2 ** 53 - 1, 1), fl(2 ** 53)), true);
    assert.equal(N.lt(N.div(1, 3), fl(1 / 3)), false, '1/3 is greater than the double nearest it');
    assert.equal(N.gt(N.div(1, 3), fl(1 / 3)), true);
    assert.equal(N.numEq(N.div(1, 2), fl(0.5)), true);
  });

  test('NaN compares false every way, infinities compare with everything', () => {
    const nan = fl(NaN);
    for (const op of [N.numEq, N.lt, N.gt, N.le, N.ge]) {
      assert.equal(op(nan, 1), false);
      assert.equal(op(1, nan), false);
      assert.equal(op(nan, nan), false);
      assert.equal(op(N.div(1, 2), nan), false);
    }
    assert.equal(N.lt(2n ** 2000n, fl(Infinity)), true);
    assert.equal(N.gt(N.div(-1, 3), fl(-Infinity)), true);
    assert.equal(N.lt(fl(-Infinity), N.div(-1, 3)), true);
  });

  test('= between 1 and 1.0 is true but eqv is false; 0.0 and -0.0 are = but not eqv', () => {
    assert.equal(N.numEq(1, fl(1)), true);
    assert.equal(N.numEqv(1, fl(1)), false);
    assert.equal(N.numEq(fl(0), fl(-0)), true);
    assert.equal(N.numEqv(fl(0), fl(-0)), false);
    assert.equal(N.numEqv(fl(NaN), fl(NaN)), true);
    assert.equal(N.numEqv(N.div(1, 2), N.div(2, 4)), true);
    assert.equal(N.numEqv(2n ** 70n, 2n ** 70n), true);
    assert.equal(N.numEqv(fl(2.5), fl(2.5)), true);
  });

  test('max and min are inexact when any argument is inexact', () => {
    assert.equal(N.max(3, 4), 4);
    assert.equal(str(N.max(3.9 === 3.9 ? fl(3.9) : 0, 4)), '4.0');
    assert.equal(str(N.min(1, fl(2))), '1.0');
    assert.equal(str(N.max(1, fl(NaN), 3)), '+nan.0');
    assert.equal(str(N.min(N.div(1, 3), N.div(1, 4))), '1/4');
    assertSchemeError(() => N.max(1, 'a'), 'max', 'expected a number');
  });
});

describe('integer division', () => {
  test('floor/ and truncate/ on all sign combinations of fixnums', () => {
    const cases = [
      [5, 2, [2, 1], [2, 1]],
      [-5, 2, [-3, 1], [-2, -1]],
      [5, -2, [-3, -1], [-2, 1]],
      [-5, -2, [2, -1], [2, -1]],
    ];
    for (const [a, b, fd, td] of cases) {
      assert.deepEqual(N.floorDiv(a, b), fd, `floor/ ${a} ${b}`);
      assert.deepEqual(N.truncateDiv(a, b), td, `truncate/ ${a} ${b}`);
      assert.equal(N.floorQuotient(a, b), fd[0]);
      assert.equal(N.floorRemainder(a, b), fd[1]);
      assert.equal(N.truncateQuotient(a, b), td[0]);
      assert.equal(N.truncateRemainder(a, b), td[1]);
    }
  });

  test('floor/ near the edge of the safe range does not lose precision', () => {
    const a = Number.MAX_SAFE_INTEGER;
    const [q, r] = N.floorDiv(a, -3);
    assert.equal(BigInt(q) * -3n + BigInt(r), BigInt(a));
    assert.ok(r <= 0 && r > -3);
    const [q2, r2] = N.floorDiv(-a, 7);
    assert.equal(BigInt(q2) * 7n + BigInt(r2), BigInt(-a));
  });

  test('integer division on bigints agrees with the definition', () => {
    const a = -(10n ** 30n) - 7n;
    const b = 10n ** 12n;
    const [q, r] = N.floorDiv(a, b);
    assert.equal(BigInt(q) * b + BigInt(r), a);
    assert.ok(BigInt(r) >= 0n && BigInt(r) < b);
    assert.equal(N.modulo(-13, 4), 3);
    assert.equal(N.remainder(-13, 4), -1);
    assert.equal(N.modulo(13, -4), -3);
    assert.equal(N.remainder(13, -4), 1);
  });

  test('integer division on inexact integers is inexact', () => {
    const [q, r] = N.truncateDiv(fl(-5), 2);
    assert.equal(str(q), '-2.0');
    assert.equal(str(r), '-1.0');
    assert.equal(str(N.remainder(-13, fl(-4))), '-1.0');
    assert.equal(str(N.modulo(fl(13), 4)), '1.0');
  });

  test('gcd and lcm take any number of integers, exact or inexact', () => {
    assert.equal(N.gcd(32, -36), 4);
    assert.equal(N.gcd(), 0);
    assert.equal(N.gcd(12, 18, 27), 3);
    assert.equal(N.lcm(32, -36), 288);
    assert.equal(N.lcm(), 1);
    assert.equal(N.lcm(0, 5), 0);
    assert.equal(str(N.lcm(fl(32), -36)), '288.0');
    assert.equal(str(N.gcd(fl(12), 18)), '6.0');
    assert.equal(N.gcd(2n ** 100n, 2n ** 80n * 3n), 2n ** 80n);
    assertSchemeError(() => N.gcd(N.div(1, 2)), 'gcd', 'expected an integer');
  });

  test('exact-integer-sqrt gives s and r with s*s + r = n, also for bigints', () => {
    assert.deepEqual(N.exactIntegerSqrt(4), [2, 0]);
    assert.deepEqual(N.exactIntegerSqrt(5), [2, 1]);
    assert.deepEqual(N.exactIntegerSqrt(0), [0, 0]);
    assert.deepEqual(N.exactIntegerSqrt(Number.MAX_SAFE_INTEGER), [94906265, 9007199254740991 - 94906265 * 94906265]);
    for (const n of [10n ** 40n + 7n, 2n ** 2001n - 1n, (3n ** 300n) ** 2n, (3n ** 300n) ** 2n - 1n]) {
      const [s, r] = N.exactIntegerSqrt(n);
      const S = BigInt(s);
      const R = BigInt(r);
      assert.equal(S * S + R, n);
      assert.ok(R >= 0n && R <= 2n * S, 'remainder in range');
    }
    assertSchemeError(() => N.exactIntegerSqrt(-1), 'exact-integer-sqrt', 'exact nonnegative integer');
    assertSchemeError(() => N.exactIntegerSqrt(fl(4)), 'exact-integer-sqrt', 'exact nonnegative integer');
  });
});

describe('rounding and parts of rationals', () => {
  test('round rounds half to even for flonums and ratnums', () => {
    assert.equal(str(N.round(fl(2.5))), '2.0');
    assert.equal(str(N.round(fl(3.5))), '4.0');
    assert.equal(str(N.round(fl(-2.5))), '-2.0');
    assert.equal(str(N.round(fl(-3.5))), '-4.0');
    assert.equal(str(N.round(fl(0.5))), '0.0');
    assert.equal(str(N.round(fl(-0.4))), '-0.0');
    assert.equal(str(N.round(N.div(7, 2))), '4');
    assert.equal(str(N.round(N.div(5, 2))), '2');
    assert.equal(str(N.round(N.div(-5, 2))), '-2');
    assert.equal(str(N.round(N.div(-7, 3))), '-2');
    assert.equal(str(N.round(fl(2 ** 52 + 1))), String(2 ** 52 + 1) + '.0');
  });

  test('floor, ceiling and truncate on negative ratnums', () => {
    const x = N.div(-7, 2);
    assert.equal(N.floor(x), -4);
    assert.equal(N.ceiling(x), -3);
    assert.equal(N.truncate(x), -3);
    assert.equal(N.floor(N.div(7, 2)), 3);
    assert.equal(N.ceiling(N.div(7, 2)), 4);
  });

  test('numerator and denominator work on exact and inexact rationals', () => {
    assert.equal(N.numerator(N.div(6, 4)), 3);
    assert.equal(N.denominator(N.div(6, 4)), 2);
    assert.equal(N.denominator(5), 1);
    assert.equal(str(N.denominator(N.inexact(N.div(6, 4)))), '2.0');
    assert.equal(str(N.numerator(fl(0.75))), '3.0');
    assertSchemeError(() => N.denominator(fl(Infinity)), 'denominator', 'rational');
  });

  test('rationalize finds the simplest rational in the interval', () => {
    assert.equal(str(N.rationalize(N.exact(fl(0.3)), N.div(1, 10))), '1/3');
    assert.equal(str(N.rationalize(fl(0.3), N.div(1, 10))), String(1 / 3));
    assert.equal(str(N.rationalize(N.div(3, 10), 0)), '3/10');
    assert.equal(str(N.rationalize(N.div(-3, 10), N.div(1, 10))), '-1/3');
    assert.equal(str(N.rationalize(N.div(1, 10), N.div(1, 5))), '0');
    assert.equal(str(N.rationalize(fl(Infinity), 3)), '+inf.0');
    assert.equal(str(N.rationalize(3, fl(Infinity))), '0.0');
  });
});

describe('exactness conversion', () => {
  test('exact gives the exact value of a double', () => {
    assert.equal(str(N.exact(fl(0.1))), '3602879701896397/36028797018963968');
    assert.equal(N.exact(fl(2)), 2);
    assert.equal(N.exact(fl(-0)), 0);
    assert.equal(N.exact(fl(1e300)), BigInt(1e300));
    assert.equal(str(N.exact(fl(5e-324))), '1/' + (2n ** 1074n).toString());
    assertSchemeError(() => N.exact(fl(NaN)), 'exact', 'no exact representation');
    assertSchemeError(() => N.exact(fl(Infinity)), 'exact', 'no exact representation');
  });

  test('inexact rounds bigints and ratnums correctly', () => {
    assert.equal(N.inexact(N.div(1, 3)).v, 1 / 3);
    assert.equal(N.inexact(2n ** 53n + 1n).v, 2 ** 53, 'ties to even');
    assert.equal(N.inexact(2n ** 53n + 3n).v, 2 ** 53 + 4, 'ties to even, upwards');
    assert.equal(N.inexact(10n ** 400n).v, Infinity);
    assert.equal(N.inexact(N.makeRational(10n ** 400n + 1n, 3n * 10n ** 399n)).v, 10 / 3);
    assert.equal(N.inexact(N.makeRational(1n, 10n ** 320n)).v, 1e-320, 'subnormal');
    assert.equal(N.inexact(N.makeRational(1n, 2n ** 1075n)).v, 0, 'half the smallest subnormal rounds to even (0)');
    assert.equal(N.inexact(N.makeRational(3n, 2n ** 1076n)).v, 5e-324, 'above half rounds up');
  });

  test('exact and inexact round-trip every double', () => {
    const buf = new Float64Array(1);
    const bits = new BigUint64Array(buf.buffer);
    let seed = 12345n;
    for (let i = 0; i < 3000; i++) {
      seed = (seed * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
      bits[0] = seed;
      const v = buf[0];
      if (!Number.isFinite(v)) continue;
      const e = N.exact(fl(v));
      assert.ok(Object.is(N.inexact(e).v, v === 0 ? 0 : v), `round trip of ${v}`);
    }
  });

  test('ratio to double is correctly rounded against an exact check of the neighbours', () => {
    let seed = 99n;
    const rnd = () => {
      seed = (seed * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
      return seed;
    };
    for (let i = 0; i < 500; i++) {
      const n = (rnd() << 64n) | rnd();
      const d = (rnd() >> BigInt(Number(rnd() % 64n))) + 1n;
      const q = N.makeRational(n, d);
      const x = N.inexact(q).v;
      // x is nearest: the exact distance to x is no more than to its neighbours.
      const up = fl(x * (1 + 2 ** -52));
      const down = fl(x * (1 - 2 ** -53));
      const dx = N.abs(N.sub(q, N.exact(fl(x))));
      assert.ok(N.le(dx, N.abs(N.sub(q, N.exact(up)))), `nearest (up) for ${n}/${d}`);
      assert.ok(N.le(dx, N.abs(N.sub(q, N.exact(down)))), `nearest (down) for ${n}/${d}`);
    }
  });
});

describe('roots, powers and transcendental functions', () => {
  test('sqrt is exact for exact perfect squares', () => {
    assert.equal(N.sqrt(16), 4);
    assert.equal(str(N.sqrt(N.div(1, 4))), '1/2');
    assert.equal(N.sqrt(10n ** 40n), 10n ** 20n);
    assert.equal(str(N.sqrt(2)), '1.4142135623730951');
    assert.equal(str(N.sqrt(fl(16))), '4.0');
    assert.ok(Math.abs(N.sqrt(2n ** 2001n).v / (Math.SQRT2 * 2 ** 1000) - 1) < 1e-15);
  });

  test('sqrt of a negative number is imaginary: exact for an exact perfect square', () => {
    assert.equal(str(N.sqrt(-4)), '+2i');
    assert.equal(str(N.sqrt(N.div(-1, 4))), '+1/2i');
    assert.equal(str(N.sqrt(-(2n ** 100n))), '+1125899906842624i');
    assert.equal(str(N.sqrt(fl(-4))), '+2.0i');
    assert.equal(str(N.sqrt(-2)), '+1.4142135623730951i');
  });

  test('expt with exact integer exponents is exact, with bigints and rationals', () => {
    assert.equal(str(N.expt(2, 100)), '1267650600228229401496703205376');
    assert.equal(str(N.expt(2, -3)), '1/8');
    assert.equal(str(N.expt(N.div(2, 3), 3)), '8/27');
    assert.equal(str(N.expt(N.div(2, 3), -2)), '9/4');
    assert.equal(N.expt(0, 0), 1);
    assert.equal(N.expt(0, 5), 0);
    assert.equal(str(N.expt(fl(0), 0)), '1.0');
    assert.equal(str(N.expt(0, fl(1))), '0.0');
    assert.equal(N.expt(-1, 2n ** 70n + 1n), -1);
    assert.equal(str(N.expt(2, fl(0.5))), '1.4142135623730951');
    assert.equal(str(N.expt(fl(2), 3)), '8.0');
    assert.equal(str(N.expt(4, N.div(1, 2))), '2.0');
    assertSchemeError(() => N.expt(0, -1), 'expt', 'division by zero');
    assert.equal(str(N.expt(-8, N.div(1, 3))), '1.0+1.732050807568877i');
    assertSchemeError(() => N.expt(10, 1e15), 'expt', 'too large');
  });

  test('exp, log, and trigonometric functions return inexact results', () => {
    assert.equal(str(N.exp(0)), '1.0');
    assert.equal(str(N.log(1)), '0.0');
    assert.equal(str(N.log(100, 10)), '2.0');
    assert.equal(str(N.log(4096, 2)), '12.0');
    assert.equal(str(N.log(8, 2)), '3.0');
    assert.equal(N.log(fl(Math.E)).v, 1);
    assert.ok(Math.abs(N.log(10n ** 400n).v - 400 * Math.LN10) < 1e-12, 'log of a bigint beyond the double range');
    assert.ok(Math.abs(N.log(N.makeRational(1n, 10n ** 400n)).v + 400 * Math.LN10) < 1e-9);
    assert.equal(str(N.log(0)), '-inf.0');
    assert.equal(str(N.log(fl(-1))), '0.0+3.141592653589793i');
    assert.equal(str(N.log(-1)), '0.0+3.141592653589793i');
    assert.equal(str(N.sin(0)), '0.0');
    assert.equal(str(N.cos(0)), '1.0');
    assert.equal(str(N.atan(fl(1), fl(1))), String(Math.PI / 4));
    assert.equal(str(N.atan(fl(-0), fl(-1))), String(-Math.PI));
    assert.equal(str(N.asin(1)), String(Math.PI / 2));
    assert.equal(str(N.asin(2)), '1.5707963267948966-1.3169578969248166i');
    assert.equal(str(N.acos(fl(2))), '0.0+1.3169578969248166i');
    assertSchemeError(() => N.exp('x'), 'exp', 'expected a number');
  });
});

describe('number->string', () => {
  test('flonums print in shortest round-trip form with R7RS spelling', () => {
    const cases = [
      [1, '1.0'],
      [-0, '-0.0'],
      [0, '0.0'],
      [Infinity, '+inf.0'],
      [-Infinity, '-inf.0'],
      [NaN, '+nan.0'],
      [1e21, '1e21'],
      [1.5e-7, '1.5e-7'],
      [0.1, '0.1'],
      [123.456, '123.456'],
      [1e20, '100000000000000000000.0'],
      [5e-324, '5e-324'],
      [1.7976931348623157e308, '1.7976931348623157e308'],
      [-2.5, '-2.5'],
    ];
    for (const [v, s] of cases) assert.equal(str(fl(/** @type {number} */ (v))), s);
  });

  test('printed flonums read back to the same double', () => {
    const buf = new Float64Array(1);
    const bits = new BigUint64Array(buf.buffer);
    let seed = 7n;
    for (let i = 0; i < 3000; i++) {
      seed = (seed * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
      bits[0] = seed;
      const v = buf[0];
      const back = num(str(fl(v)));
      assert.ok(back instanceof Flonum);
      assert.ok(Object.is(back.v, v) || (v !== v && back.v !== back.v), `${v} → ${str(fl(v))}`);
    }
  });

  test('exact numbers print in any radix', () => {
    assert.equal(N.numberToString(255, 16), 'ff');
    assert.equal(N.numberToString(-255, 2), '-11111111');
    assert.equal(N.numberToString(2n ** 64n, 16), '10000000000000000');
    assert.equal(N.numberToString(N.div(-1, 8), 8), '-1/10');
    assert.equal(N.numberToString(12345678901234567890n), '12345678901234567890');
  });

  test('inexact numbers in radix 2 read back with the radix-point extension', () => {
    assert.equal(N.numberToString(fl(1.5), 2), '1.1');
    assert.equal(N.numberToString(fl(4), 2), '100.0');
    assert.equal(N.parseNumber('#b1.1').v, 1.5);
    assert.equal(N.parseNumber('#b100.0').v, 4);
    assert.equal(str(N.parseNumber('#e#x.8')), '1/2');
  });
});

describe('string->number (parseNumber)', () => {
  test('radix and exactness prefixes in either order', () => {
    assert.equal(num('#xff'), 255);
    assert.equal(num('#XFF'), 255);
    assert.equal(num('#x-ff'), -255);
    assert.equal(num('#b101'), 5);
    assert.equal(num('#o17'), 15);
    assert.equal(num('#d17'), 17);
    assert.equal(str(num('#e1.5')), '3/2');
    assert.equal(str(num('#i1/3')), String(1 / 3));
    assert.equal(str(num('#x#i10')), '16.0');
    assert.equal(str(num('#i#x10')), '16.0');
    assert.equal(num('#e#x10'), 16);
    assert.equal(N.parseNumber('#x#x10'), false);
    assert.equal(N.parseNumber('#e#i1'), false);
    assert.equal(N.parseNumber('#b2'), false);
    assert.equal(N.parseNumber('#'), false);
    assert.equal(N.parseNumber('#x'), false);
  });

  test('decimals, exponents, signs, and infinities', () => {
    assert.equal(num('.5').v, 0.5);
    assert.equal(num('1.').v, 1);
    assert.equal(num('-1.5e2').v, -150);
    assert.equal(num('+.5e-1').v, 0.05);
    assert.equal(num('1E3').v, 1000);
    assert.ok(Object.is(num('-0.0').v, -0));
    assert.equal(num('1e400').v, Infinity);
    assert.equal(num('+inf.0').v, Infinity);
    assert.equal(num('-inf.0').v, -Infinity);
    assert.ok(Number.isNaN(num('+nan.0').v));
    assert.ok(Number.isNaN(num('-nan.0').v));
    assert.equal(num('+5'), 5);
    assert.equal(num('-17'), -17);
    assert.equal(num('12345678901234567890'), 12345678901234567890n);
    assert.equal(str(num('-6/4')), '-3/2');
    assert.equal(num('#e1e400'), 10n ** 400n);
    assert.equal(str(num('#e1.2e-3')), '3/2500');
    assert.equal(num('#e1e2'), 100);
    assert.equal(num('0.1').v, 0.1);
  });

  test('text that is not a number gives false', () => {
    for (const s of ['', '.', '+', '-', '...', 'abc', '1+', '1a', '--1', '1..2', '1e', 'e1', '1/2/3', '1/2.0', '1/-2', '15##', '#t', 'inf.0', '+inf.1', '1e2.5', '0x10', 'Infinity', ' 1', '1 ']) {
      assert.equal(N.parseNumber(s), false, JSON.stringify(s));
    }
  });

  test('complex syntax gives complex numbers; the exponent markers s f d l are read as e', () => {
    assert.equal(str(N.scanNumber('1+2i')), '1+2i');
    assert.equal(str(N.scanNumber('+i')), '+i');
    assert.equal(str(N.scanNumber('-2.5i')), '-2.5i');
    assert.equal(str(N.scanNumber('1@0')), '1');
    assert.equal(str(N.scanNumber('#e1.5-0.5i')), '3/2-1/2i');
    assert.equal(str(N.scanNumber('1e-5+2e3i')), '1.0e-5+2000.0i'.replace('1.0e-5', String(1e-5)));
    assert.equal(N.scanNumber('1+2'), false);
    for (const [s, v] of [['1s2', 100], ['1f-1', 0.1], ['1d3', 1000], ['1L0', 1], ['2.5S1', 25]]) assert.equal(N.scanNumber(s).v, v, s);
  });

  test('numeric syntax without a representable value is reported by scanNumber and false for parseNumber', () => {
    assert.match(N.scanNumber('1/0'), /division by zero/);
    assert.match(N.scanNumber('#e+inf.0'), /no exact representation/);
    assert.match(N.scanNumber('#e1e1000000'), /exponent too large/);
    assert.equal(N.parseNumber('1/0+2i'), false);
    assert.equal(str(num('#i1/0')), '+inf.0');
  });

  test('a radix given as argument is overridden by a prefix', () => {
    assert.equal(N.parseNumber('100', 16), 256);
    assert.equal(N.parseNumber('#d100', 16), 100);
    assert.equal(N.parseNumber('ff', 16), 255);
    assert.equal(N.parseNumber('1e2', 16), 0x1e2, 'in radix 16, e is a digit');
  });
});

describe('predicates', () => {
  test('the numeric type predicates classify every representation', () => {
    const vals = [
      [5, true, true, true, true],
      [2n ** 70n, true, true, true, true],
      [N.div(1, 2), true, true, false, false],
      [fl(2), true, true, true, false],
      [fl(2.5), true, true, false, false],
      [fl(Infinity), true, false, false, false],
      [fl(NaN), true, false, false, false],
      ['5', false, false, false, false],
    ];
    for (const [x, isNum, isRat, isInt, isExInt] of vals) {
      assert.equal(N.isNumber(x), isNum);
      assert.equal(N.isRational(x), isRat);
      assert.equal(N.isInteger(x), isInt);
      assert.equal(N.isExactInteger(x), isExInt);
    }
    assert.equal(N.isExact(N.div(1, 2)), true);
    assert.equal(N.isInexact(fl(1)), true);
    assertSchemeError(() => N.isExact('x'), 'exact?', 'expected a number');
  });

  test('sign, parity and special-value predicates', () => {
    assert.equal(N.isZero(fl(-0)), true);
    assert.equal(N.isPositive(N.div(1, 2)), true);
    assert.equal(N.isNegative(-(2n ** 70n)), true);
    assert.equal(N.isPositive(fl(NaN)), false);
    assert.equal(N.isNegative(fl(NaN)), false);
    assert.equal(N.isOdd(-1), true);
    assert.equal(N.isOdd(2n ** 70n + 1n), true);
    assert.equal(N.isEven(fl(4)), true);
    assert.equal(N.isNaN(fl(NaN)), true);
    assert.equal(N.isInfinite(fl(-Infinity)), true);
    assert.equal(N.isFinite(2n ** 70n), true);
  });
});
