// @ts-check
/**
 * The examples of R7RS §6.2.6 (numerical operations) and §6.2.7 (numerical input and
 * output), as Scheme text with the written form of the expected result. Each example is
 * read with the reader, evaluated by a tiny evaluator that applies the registered numeric
 * primitives (nested calls only), and the result is printed with `write`, so exactness is
 * checked too ("4.0" is not "4"). Multiple values print separated by spaces.
 *
 * `EXAMPLES` is exported so that a later suite can run the same text as real Scheme.
 * Examples that need complex numbers are listed in `COMPLEX_EXAMPLES` with the error we
 * give instead (Termite Scheme has no complex numbers).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import '../src/primitives/prims-numbers.js';
import { primitives } from '../src/engine/registry.js';
import { readAll } from '../src/reader.js';
import { writeString } from '../src/printer.js';
import { Pair, Sym, SchemeError } from '../src/values.js';

/** [Scheme expression, expected written result] from R7RS §6.2.6 and §6.2.7. */
export const EXAMPLES = [
  ['(complex? 3)', '#t'],
  ['(real? 3)', '#t'],
  ['(real? #e1e10)', '#t'],
  ['(real? +inf.0)', '#t'],
  ['(real? +nan.0)', '#t'],
  ['(rational? -inf.0)', '#f'],
  ['(rational? 3.5)', '#t'],
  ['(rational? 6/10)', '#t'],
  ['(rational? 6/3)', '#t'],
  ['(integer? 3.0)', '#t'],
  ['(integer? 8/4)', '#t'],
  ['(exact? 3.0)', '#f'],
  ['(exact? #e3.0)', '#t'],
  ['(inexact? 3.)', '#t'],
  ['(exact-integer? 32)', '#t'],
  ['(exact-integer? 32.0)', '#f'],
  ['(exact-integer? 32/5)', '#f'],
  ['(finite? 3)', '#t'],
  ['(finite? +inf.0)', '#f'],
  ['(infinite? 3)', '#f'],
  ['(infinite? +inf.0)', '#t'],
  ['(infinite? +nan.0)', '#f'],
  ['(nan? +nan.0)', '#t'],
  ['(nan? 32)', '#f'],
  ['(max 3 4)', '4'],
  ['(max 3.9 4)', '4.0'],
  ['(+ 3 4)', '7'],
  ['(+ 3)', '3'],
  ['(+)', '0'],
  ['(* 4)', '4'],
  ['(*)', '1'],
  ['(- 3 4)', '-1'],
  ['(- 3 4 5)', '-6'],
  ['(- 3)', '-3'],
  ['(/ 3 4 5)', '3/20'],
  ['(/ 3)', '1/3'],
  ['(abs -7)', '7'],
  ['(floor/ 5 2)', '2 1'],
  ['(floor/ -5 2)', '-3 1'],
  ['(floor/ 5 -2)', '-3 -1'],
  ['(floor/ -5 -2)', '2 -1'],
  ['(truncate/ 5 2)', '2 1'],
  ['(truncate/ -5 2)', '-2 -1'],
  ['(truncate/ 5 -2)', '-2 1'],
  ['(truncate/ -5 -2)', '2 -1'],
  ['(truncate/ -5.0 2)', '-2.0 -1.0'],
  ['(gcd 32 -36)', '4'],
  ['(gcd)', '0'],
  ['(lcm 32 -36)', '288'],
  ['(lcm 32.0 -36)', '288.0'],
  ['(lcm)', '1'],
  ['(numerator (/ 6 4))', '3'],
  ['(denominator (/ 6 4))', '2'],
  ['(denominator (inexact (/ 6 4)))', '2.0'],
  ['(floor -4.3)', '-5.0'],
  ['(ceiling -4.3)', '-4.0'],
  ['(truncate -4.3)', '-4.0'],
  ['(round -4.3)', '-4.0'],
  ['(floor 3.5)', '3.0'],
  ['(ceiling 3.5)', '4.0'],
  ['(truncate 3.5)', '3.0'],
  ['(round 3.5)', '4.0'],
  ['(round 7/2)', '4'],
  ['(round 7)', '7'],
  ['(rationalize (exact .3) 1/10)', '1/3'],
  ['(rationalize .3 1/10)', '0.3333333333333333'], // #i1/3
  ['(square 42)', '1764'],
  ['(square 2.0)', '4.0'],
  ['(sqrt 9)', '3'],
  ['(sqrt 2)', '1.4142135623730951'],
  ['(exact-integer-sqrt 4)', '2 0'],
  ['(exact-integer-sqrt 5)', '2 1'],
  ['(string->number "100")', '100'],
  ['(string->number "100" 16)', '256'],
  ['(string->number "1e2")', '100.0'],
];

/** Examples beyond R7RS's own, on points R7RS specifies in prose (and chibi's suite tests). */
export const MORE_EXAMPLES = [
  ['(= 1 1.0)', '#t'],
  ['(< 1 2 3)', '#t'],
  ['(< 1 1 2)', '#f'],
  ['(> 3.0 2.0 1.0)', '#t'],
  ['(<= 1 1 2)', '#t'],
  ['(>= 1 2 1)', '#f'],
  ['(modulo -13 4)', '3'],
  ['(remainder -13 4)', '-1'],
  ['(modulo 13 -4)', '-3'],
  ['(remainder 13 -4)', '1'],
  ['(remainder -13 -4.0)', '-1.0'],
  ['(expt 3 3)', '27'],
  ['(expt 0 0)', '1'],
  ['(expt 0 1)', '0'],
  ['(expt 0.0 0)', '1.0'],
  ['(expt 0 1.0)', '0.0'],
  ['(expt 2 -2)', '1/4'],
  ['(exact 2.0)', '2'],
  ['(exact 0.1)', '3602879701896397/36028797018963968'],
  ['(inexact 1)', '1.0'],
  ['(exact->inexact 1/4)', '0.25'],
  ['(inexact->exact 0.25)', '1/4'],
  ['(exp 0)', '1.0'],
  ['(log 100 10)', '2.0'],
  ['(log 4096 2)', '12.0'],
  ['(atan 1.0 0.0)', '1.5707963267948966'],
  ['(number->string 100)', '"100"'],
  ['(number->string 256 16)', '"100"'],
  ['(number->string 1.0)', '"1.0"'],
  ['(number->string 1/3 2)', '"1/11"'],
  ['(string->number "#xff")', '255'],
  ['(string->number "#e1.5")', '3/2'],
  ['(string->number "abc")', '#f'],
  ['(string->number "1/0")', '#f'],
  ['(sqrt 1/4)', '1/2'],
  ['(sqrt 16.0)', '4.0'],
  ['(expt 2 100)', '1267650600228229401496703205376'],
  ['(* 99999999999 99999999999)', '9999999999800000000001'],
  ['(- (expt 2 62) (expt 2 62))', '0'],
  ['(exact-integer? (- (expt 2 62) (expt 2 62)))', '#t'],
  ['(+ 1/3 2/3)', '1'],
  ['(max 1 2.0 3)', '3.0'],
  ['(magnitude -5)', '5'],
  ['(real-part 2.5)', '2.5'],
  ['(imag-part 2.5)', '0'],
  ['(angle -1)', '3.141592653589793'],
  ['(angle 1)', '0'],
];

/** R7RS examples whose results are or involve complex numbers. [expression, printed result] */
export const COMPLEX_EXAMPLES = [
  ['(sqrt -1)', '+i'],
  ['(complex? 3+4i)', '#t'],
  ['(real? -2.5+0i)', '#t'],
  ['(real? -2.5+0.0i)', '#f'],
  ['(integer? 3+0i)', '#t'],
  ['(finite? 3.0+inf.0i)', '#f'],
  ['(nan? +nan.0+5.0i)', '#t'],
  ['(infinite? 3.0+inf.0i)', '#t'],
];

/**
 * Evaluate a form made of primitive applications and self-evaluating data.
 * @param {any} form @returns {any}
 */
function evaluate(form) {
  if (!(form instanceof Pair)) return form;
  const op = form.car;
  if (!(op instanceof Sym)) throw new Error(`not a primitive application: ${writeString(form)}`);
  if (op.name === 'quote') return form.cdr.car;
  const def = primitives.get(op.name);
  if (def === undefined) throw new Error(`no primitive ${op.name}`);
  const args = [];
  for (let p = form.cdr; p !== null; p = p.cdr) args.push(evaluate(p.car));
  assert.ok(args.length >= def.min && (def.max < 0 || args.length <= def.max), `arity of ${op.name}`);
  return def.fn(...args);
}

/** @param {string} text */
const run = (text) => writeString(evaluate(readAll(text)[0]));

describe('R7RS 6.2.6 and 6.2.7 examples', () => {
  for (const [expr, expected] of EXAMPLES) {
    test(`${expr} evaluates to ${expected}`, () => {
      assert.equal(run(expr), expected);
    });
  }
});

describe('more numeric examples (R7RS prose)', () => {
  for (const [expr, expected] of MORE_EXAMPLES) {
    test(`${expr} evaluates to ${expected}`, () => {
      assert.equal(run(expr), expected);
    });
  }
});

describe('R7RS examples with complex results', () => {
  for (const [expr, expected] of COMPLEX_EXAMPLES) {
    test(`${expr} is ${expected}`, () => {
      assert.equal(run(expr), expected);
    });
  }
});

describe('transitivity of numeric comparison (R7RS 6.2.6)', () => {
  test("Alan Bawden's example: (= a b) and (= b c) do not both hold, so (= a c) cannot be wrongly implied", () => {
    const a = evaluate(readAll('(- (expt 2 1000) 1)')[0]);
    const b = evaluate(readAll('(inexact (expt 2 1000))')[0]);
    const c = evaluate(readAll('(+ (expt 2 1000) 1)')[0]);
    const eq = primitives.get('=')?.fn;
    assert.ok(eq);
    assert.equal(eq(a, b) && eq(b, c), false);
    assert.equal(eq(a, c), false);
  });

  test('the CLtL example: (<= a j), (< j (+ j 1)) and not (<= (+ j 1) a)', () => {
    const a = evaluate(readAll('(/ 10.0 9007199254740992.0)')[0]);
    const j = evaluate(readAll('(exact (/ 10.0 9007199254740992.0))')[0]);
    const le = /** @type {Function} */ (primitives.get('<=')?.fn);
    const lt = /** @type {Function} */ (primitives.get('<')?.fn);
    const plus = /** @type {Function} */ (primitives.get('+')?.fn);
    assert.equal(le(a, j), true);
    assert.equal(lt(j, plus(j, 1)), true);
    assert.equal(le(plus(j, 1), a), false);
  });
});
