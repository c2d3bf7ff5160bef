// @ts-check
/**
 * Open-coded arithmetic (passes/inline-primitives.js): `+ - * /` and the comparisons
 * of two arguments compiled inline for fixnums and flonums must give exactly what the
 * general procedures give, for every pair of a set of awkward numbers (the safe-integer
 * edges, bigints, ratios, ±0.0, infinities, NaN, complex, a non-number): the same value,
 * exactness and sign of zero (eqv?), or an error on both sides. The inline code is
 * really there (the generated JS tests for Flonum), and a flonum loop long enough to be
 * pre-empted and resumed several times computes what the same loop in JS computes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileProgramText, linkProgram, Thread, runToCompletion } from '../src/index.js';
import { generateJs } from '../src/passes/generate-js.js';
import { writeString } from '../src/printer.js';

/** Run a program; the value of its last expression, written. @param {string} text */
function runProgram(text) {
  const prog = linkProgram(compileProgramText(text, { file: 'open-coded-numbers.scm' }));
  const r = runToCompletion(new Thread(prog.top, []));
  assert.ok(r.ok, r.ok ? '' : writeString(r.error));
  return writeString(r.value);
}

const OPS = ['+', '-', '*', '/', '<', '>', '<=', '>=', '='];

test('open-coded + - * / < > <= >= = agree with the general procedures on every pair', () => {
  const defs = OPS.map((op, i) => `(define (open${i} a b) (${op} a b))`).join('\n');
  const table = OPS.map((op, i) => `(list '${op} open${i} (lambda (a b) (apply ${op} (list a b))))`).join('\n');
  const text = `
    ${defs}
    (define ops (list ${table}))
    (define numbers
      (list 0 1 -1 7 4503599627370495 -4503599627370495 9007199254740993 -9007199254740993
            1/2 -3/4 0.0 -0.0 1.5 -2.25 1e308 -1e308 5e-324 +inf.0 -inf.0 +nan.0 3+4i 'x))
    (define (try f a b) (guard (e (#t 'error)) (f a b)))
    (define (same? x y) (or (eqv? x y) (and (eq? x 'error) (eq? y 'error))))
    (define mismatches '())
    (define checked 0)
    (for-each
      (lambda (op)
        (for-each
          (lambda (a)
            (for-each
              (lambda (b)
                (let ((inline (try (cadr op) a b)) (general (try (caddr op) a b)))
                  (set! checked (+ checked 1))
                  (if (not (same? inline general))
                      (set! mismatches (cons (list (car op) a b inline general) mismatches)))))
              numbers))
          numbers))
      ops)
    (list checked mismatches)`;
  const n = 22;
  assert.equal(runProgram(text), `(${OPS.length * n * n} ())`);
});

test('the generated code tests for flonums inline, and not where an operand is an integer literal', () => {
  const units = compileProgramText('(define (f a b) (* a b)) (define (g a) (+ a 1)) (define (h a b) (< a b))', { file: 'x.scm' });
  const js = units.map((u) => generateJs(/** @type {any} */ (u).wire ?? u)).join('\n');
  assert.match(js, /instanceof Flonum && l1 instanceof Flonum \? new Flonum\(l0\.v \* l1\.v\)/);
  assert.match(js, /instanceof Flonum && l1 instanceof Flonum \? l0\.v < l1\.v/);
  assert.doesNotMatch(js, /[^l]1 instanceof Flonum/);
});

test('a flonum loop pre-empted and resumed many times computes what the same loop in JS computes', () => {
  const text = `
    (define (count cr ci)
      (let loop ((zr cr) (zi ci) (c 0))
        (if (= c 64) c
            (let ((zr2 (* zr zr)) (zi2 (* zi zi)))
              (if (> (+ zr2 zi2) 16.0) c
                  (loop (+ (- zr2 zi2) cr) (+ (* 2.0 (* zr zi)) ci) (+ c 1)))))))
    (let loop ((y 0) (sum 0.0) (total 0))
      (if (= y 60) (list total sum)
          (let inner ((x 0) (sum sum) (total total))
            (if (= x 60) (loop (+ y 1) sum total)
                (let ((c (count (+ -1.0 (* (exact->inexact x) 0.01)) (+ -0.5 (* (exact->inexact y) 0.01)))))
                  (inner (+ x 1) (+ sum (/ (exact->inexact c) 3.0)) (+ total c)))))))`;
  let total = 0;
  let sum = 0.0;
  for (let y = 0; y < 60; y++) {
    for (let x = 0; x < 60; x++) {
      const cr = -1.0 + x * 0.01;
      const ci = -0.5 + y * 0.01;
      let zr = cr;
      let zi = ci;
      let c = 0;
      while (c !== 64) {
        const zr2 = zr * zr;
        const zi2 = zi * zi;
        if (zr2 + zi2 > 16.0) break;
        const nzr = zr2 - zi2 + cr;
        zi = 2.0 * (zr * zi) + ci;
        zr = nzr;
        c++;
      }
      sum += c / 3.0;
      total += c;
    }
  }
  assert.ok(total > 100000, 'long enough to be pre-empted (100,000 reductions a slice)');
  const [gotTotal, gotSum] = runProgram(text).slice(1, -1).split(' ');
  assert.equal(Number(gotTotal), total);
  assert.equal(Number(gotSum), sum);
});

test('an operation with an integer literal tests one bound and agrees with the general procedure', () => {
  // x + c and x - c move towards one bound only, so only that bound is tested: at
  // the edges of the safe integers and of the inline range, the result must still be
  // exactly what the general procedure gives (a bigint past 2^53, a fixnum below it)
  const forms = ['(+ x 1)', '(+ 1 x)', '(- x 1)', '(- 5 x)', '(+ x 1000)', '(- x 1000)', '(+ x 1073741823)', '(- x 1073741823)', '(* x 2)', '(< x 2)', '(= 2 x)'];
  const defs = forms.map((f, i) => `(define (lit${i} x) ${f})`).join('\n');
  const general = forms.map((f) => f.replace(/^\((\S+) /, '(apply $1 (list ').replace(/\)$/, '))'));
  const gdefs = general.map((f, i) => `(define (gen${i} x) ${f})`).join('\n');
  const pairs = forms.map((_, i) => `(cons lit${i} gen${i})`).join(' ');
  const text = `
    ${defs}
    ${gdefs}
    (define numbers
      (list 0 1 -1 4503599627370495 -4503599627370495 4503599627370494 -4503599627370494
            9007199254740991 -9007199254740991 9007199254740990 -9007199254740990 9007199254740993
            1/2 1.5 -0.0 +inf.0 +nan.0 3+4i 'x))
    (define (try f a) (guard (e (#t 'error)) (f a)))
    (define (same? x y) (or (eqv? x y) (and (eq? x 'error) (eq? y 'error))))
    (define bad '())
    (for-each (lambda (p)
                (for-each (lambda (a)
                            (let ((i (try (car p) a)) (g (try (cdr p) a)))
                              (if (not (same? i g)) (set! bad (cons (list a i g) bad)))))
                          numbers))
              (list ${pairs}))
    (list (lit0 9007199254740991) (lit2 -9007199254740991) (lit0 4503599627370495) bad)`;
  assert.equal(runProgram(text), '(9007199254740992 -9007199254740992 4503599627370496 ())');
  const js = generateJs(/** @type {any} */ (compileProgramText('(define (g a) (- a 1))', { file: 'y.scm' }).at(-1)).wire);
  assert.match(js, /\(typeof l0 === 'number' && \(l0 - 1\) >= -4503599627370495 \? l0 - 1 : P\d+\(l0, 1\)\)/);
});
