// @ts-check
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import '../src/primitives/prims-numbers.js';
import { primitives } from '../src/engine/registry.js';
import { Flonum, Values, SchemeError, DEFAULT } from '../src/values.js';
import { numberToString } from '../src/numbers.js';

/** @param {string} name */
function prim(name) {
  const def = primitives.get(name);
  assert.ok(def, `primitive ${name} is registered`);
  return def;
}
/** @param {string} name @param {...any} args */
const call = (name, ...args) => prim(name).fn(...args);

/**
 * @param {() => any} fn @param {string} who @param {string} message
 */
function assertSchemeError(fn, who, message) {
  assert.throws(fn, (e) => e instanceof SchemeError && e.payload.who === who && e.payload.message.includes(message));
}

/** [name, min, max] of every numeric procedure of (scheme base), (scheme inexact), (scheme complex), (scheme r5rs). */
const EXPECTED = [
  ['+', 0, -1], ['-', 1, -1], ['*', 0, -1], ['/', 1, -1],
  ['=', 1, -1], ['<', 1, -1], ['>', 1, -1], ['<=', 1, -1], ['>=', 1, -1],
  ['number?', 1, 1], ['complex?', 1, 1], ['real?', 1, 1], ['rational?', 1, 1], ['integer?', 1, 1],
  ['exact?', 1, 1], ['inexact?', 1, 1], ['exact-integer?', 1, 1], ['nan?', 1, 1], ['infinite?', 1, 1],
  ['finite?', 1, 1], ['zero?', 1, 1], ['positive?', 1, 1], ['negative?', 1, 1], ['odd?', 1, 1], ['even?', 1, 1],
  ['max', 1, -1], ['min', 1, -1], ['abs', 1, 1], ['quotient', 2, 2], ['remainder', 2, 2], ['modulo', 2, 2],
  ['floor/', 2, 2], ['floor-quotient', 2, 2], ['floor-remainder', 2, 2],
  ['truncate/', 2, 2], ['truncate-quotient', 2, 2], ['truncate-remainder', 2, 2],
  ['gcd', 0, -1], ['lcm', 0, -1], ['numerator', 1, 1], ['denominator', 1, 1],
  ['floor', 1, 1], ['ceiling', 1, 1], ['round', 1, 1], ['truncate', 1, 1], ['rationalize', 2, 2],
  ['exp', 1, 1], ['log', 1, 2], ['sin', 1, 1], ['cos', 1, 1], ['tan', 1, 1], ['asin', 1, 1], ['acos', 1, 1],
  ['atan', 1, 2], ['square', 1, 1], ['sqrt', 1, 1], ['exact-integer-sqrt', 1, 1], ['expt', 2, 2],
  ['exact', 1, 1], ['inexact', 1, 1], ['exact->inexact', 1, 1], ['inexact->exact', 1, 1],
  ['number->string', 1, 2], ['string->number', 1, 2],
  ['real-part', 1, 1], ['imag-part', 1, 1], ['magnitude', 1, 1], ['angle', 1, 1],
  ['make-rectangular', 2, 2], ['make-polar', 2, 2],
];

describe('numeric primitive registration', () => {
  test('every R7RS numeric procedure is registered, pure, with its arity', () => {
    for (const [name, min, max] of EXPECTED) {
      const def = prim(/** @type {string} */ (name));
      assert.equal(def.min, min, `${name} min`);
      assert.equal(def.max, max, `${name} max`);
      assert.equal(def.pure, true, `${name} is pure`);
    }
  });
});

describe('numeric primitives', () => {
  test('variadic arithmetic folds left and names itself in type errors', () => {
    assert.equal(call('+', 1, 2, 3, 4), 10);
    assert.equal(call('-', 10, 1, 2), 7);
    assert.equal(call('*', 2, 3, 4), 24);
    assert.equal(numberToString(call('/', 1, 2, 3)), '1/6');
    assertSchemeError(() => call('+', 1, 2, 'x'), '+', 'expected a number');
    assertSchemeError(() => call('+', 'x'), '+', 'expected a number');
    assertSchemeError(() => call('*', 'x'), '*', 'expected a number');
    assertSchemeError(() => call('-', 'x'), '-', 'expected a number');
    assertSchemeError(() => call('-', 1, 2, 'x'), '-', 'expected a number');
    assertSchemeError(() => call('/', 'x'), '/', 'expected a number');
    assertSchemeError(() => call('/', 1, 0), '/', 'division by zero');
    assertSchemeError(() => call('square', 'x'), 'square', 'expected a number');
  });

  test('comparisons check every argument, even after the answer is known', () => {
    assert.equal(call('<', 1, 2, 3), true);
    assert.equal(call('<', 3, 2, 1), false);
    assertSchemeError(() => call('<', 3, 2, 'x'), '<', 'expected a number');
    assertSchemeError(() => call('=', 'x'), '=', 'expected a number');
    assert.equal(call('=', 1), true);
    assert.equal(call('>=', 3, 3, 2), true);
    assert.equal(call('>', 3, 3), false);
  });

  test('floor/, truncate/ and exact-integer-sqrt return two values', () => {
    const v = call('floor/', -5, 2);
    assert.ok(v instanceof Values);
    assert.deepEqual(v.vals, [-3, 1]);
    assert.deepEqual(call('truncate/', -5, 2).vals, [-2, -1]);
    assert.deepEqual(call('exact-integer-sqrt', 17).vals, [4, 1]);
  });

  test('specific quotient procedures name themselves in errors', () => {
    assertSchemeError(() => call('floor-quotient', 1, 0), 'floor-quotient', 'division by zero');
    assertSchemeError(() => call('truncate-remainder', new Flonum(1.5), 1), 'truncate-remainder', 'expected an integer');
    assertSchemeError(() => call('modulo', 1, 0), 'modulo', 'division by zero');
    assertSchemeError(() => call('exact->inexact', 'x'), 'exact->inexact', 'expected a number');
    assertSchemeError(() => call('inexact->exact', new Flonum(NaN)), 'inexact->exact', 'no exact representation');
  });

  test('optional arguments may be omitted or passed as the default object', () => {
    assert.equal(numberToString(call('log', 100, 10)), '2.0');
    assert.equal(numberToString(call('log', 1, DEFAULT)), '0.0');
    assert.equal(numberToString(call('atan', 1, DEFAULT)), String(Math.PI / 4));
    assert.equal(call('number->string', 255, 16), 'ff');
    assert.equal(call('number->string', 255, DEFAULT), '255');
    assert.equal(call('string->number', 'ff', 16), 255);
    assert.equal(call('string->number', '#b102'), false);
  });

  test('number->string and string->number reject bad radixes and non-strings', () => {
    assertSchemeError(() => call('number->string', 10, 3), 'number->string', 'radix');
    assertSchemeError(() => call('string->number', '10', 7), 'string->number', 'radix');
    assertSchemeError(() => call('string->number', 10), 'string->number', 'expected a string');
    assertSchemeError(() => call('number->string', 'x'), 'number->string', 'expected a number');
  });

  test('predicates: type predicates accept anything, the others require numbers', () => {
    assert.equal(call('number?', 'x'), false);
    assert.equal(call('integer?', 'x'), false);
    assert.equal(call('rational?', new Flonum(Infinity)), false);
    assertSchemeError(() => call('exact?', 'x'), 'exact?', 'expected a number');
    assertSchemeError(() => call('nan?', 'x'), 'nan?', 'expected a number');
    assertSchemeError(() => call('positive?', 'x'), 'positive?', 'expected a number');
    assertSchemeError(() => call('even?', new Flonum(1.5)), 'even?', 'expected an integer');
  });

  test('make-rectangular and make-polar give a real for an exact zero imaginary part or angle, else a complex', () => {
    assert.equal(call('make-rectangular', 3, 0), 3);
    assert.equal(call('make-polar', 3, 0), 3);
    const z = call('make-rectangular', 3, 1);
    assert.equal(call('real-part', z), 3);
    assert.equal(call('imag-part', z), 1);
    assertSchemeError(() => call('make-rectangular', z, 1), 'make-rectangular', 'expected a real number');
    assertSchemeError(() => call('make-polar', 'x', 1), 'make-polar', 'expected a number');
  });
});
