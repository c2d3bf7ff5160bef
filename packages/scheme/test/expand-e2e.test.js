// @ts-check
// End to end: programs expanded by the expander, compiled and run through the package
// API (runProgramText), checking what they print. These pin the meaning of the
// expansions, not just their shape.
import test from 'node:test';
import assert from 'node:assert/strict';
import { runProgramText } from '../src/index.js';
import { FIXTURES, diskReadFile, memoryReadFile } from './fixtures/expand/helpers.js';

/**
 * Run `src`; its output, or "ERROR: message".
 * @param {string} src @param {{file?: string, libraryPath?: string[], readFile?: (p: string) => string|null}} [opts]
 */
function run(src, opts = {}) {
  const out = [];
  const r = runProgramText(src, { file: 'e2e.scm', ...opts, stdout: (s) => out.push(s) });
  return r.ok ? out.join('') : `${out.join('')}ERROR: ${r.message}`;
}

test('hygiene: swap! with a variable named tmp, my-or with a variable named t, a shadowed if', () => {
  assert.equal(run('(define-syntax swap! (syntax-rules () ((_ a b) (let ((tmp a)) (set! a b) (set! b tmp))))) (define tmp 1) (define y 2) (swap! tmp y) (display (list tmp y))'), '(2 1)');
  assert.equal(run('(define-syntax my-or (syntax-rules () ((_) #f) ((_ e) e) ((_ e r ...) (let ((t e)) (if t t (my-or r ...)))))) (define t 5) (display (my-or #f t))'), '5');
  assert.equal(run('(define-syntax my-if (syntax-rules () ((_ c a b) (cond (c a) (else b))))) (display (let ((if list) (else #f)) (list (if 1 2 3) (my-if #f 1 2))))'), '((1 2 3) 2)');
});

test('hygiene at top level: each use of a helper-defining macro has its own helper', () => {
  assert.equal(
    run('(define-syntax def-counter (syntax-rules () ((_ get) (begin (define n 0) (define (get) (set! n (+ n 1)) n))))) (define n 99) (def-counter a) (def-counter b) (a) (a) (display (list n (a) (b)))'),
    '(99 3 1)',
  );
});

test('internal definitions have letrec* semantics and an early reference is a runtime error', () => {
  assert.equal(run('(define (f) (define a 1) (display a) (define b (+ a 1)) b) (display (f))'), '12');
  assert.match(run('(define (g) (define a b) (define b 1) a) (g)'), /^ERROR: b: b is used before its definition/);
});

test('records, define-values, let-values, do, case, named let', () => {
  assert.equal(
    run('(define-record-type <point> (make-point x y) point? (x point-x) (y point-y set-point-y!) (z point-z)) (define p (make-point 1 2)) (set-point-y! p 5) (display (list (point? p) (point-x p) (point-y p) (point-z p) (point? 5)))'),
    '(#t 1 5 #f #f)',
  );
  assert.equal(run('(define-values (a b . c) (values 1 2 3 4)) (define (f) (define-values (x y) (values 10 20)) (+ x y)) (display (list a b c (f)))'), '(1 2 (3 4) 30)');
  assert.equal(run('(display (let*-values (((a b) (values 1 2)) ((c) (values (+ a b)))) (list a b c)))'), '(1 2 3)');
  assert.equal(run("(display (do ((i 0 (+ i 1)) (acc '() (cons i acc))) ((= i 3) acc)))"), '(2 1 0)');
  assert.equal(run("(display (list (case 6 ((2 3 5 7) 'prime) ((1 4 6 8 9) 'composite)) (case 99 ((1) 'a) (else => (lambda (x) (* x 2))))))"), '(composite 198)');
  assert.equal(run('(display (let loop ((i 0) (acc 1)) (if (= i 5) acc (loop (+ i 1) (* acc 2)))))'), '32');
});

test('quasiquote, nested levels and vectors', () => {
  assert.equal(run("(define x 5) (define l '(1 2)) (write `(a ,x ,@l . end)) (write `#(1 ,x ,@l)) (write `(1 `(2 ,(3 ,x))))"), '(a 5 1 2 . end)#(1 5 1 2)(1 (quasiquote (2 (unquote (3 5)))))');
});

test('guard: clauses with =>, re-raise to an outer guard when no clause matches', () => {
  assert.equal(run("(display (guard (e ((symbol? e) (list 'caught e)) ((assq 'a e) => cdr)) (raise (list (cons 'a 42)))))"), '42');
  assert.equal(run("(display (guard (outer (#t (list 'outer outer))) (guard (inner ((number? inner) 'num)) (raise 'sym))))"), '(outer sym)');
  assert.equal(run('(write (with-exception-handler (lambda (e) 10) (lambda () (+ 1 (guard (e (#f 0)) (+ 100 (raise-continuable 5)))))))'), '111', 're-raised in the dynamic environment of the raise, so the raise continues');
});

test('parameterize, delay, delay-force and case-lambda', () => {
  assert.equal(run('(define p (make-parameter 1)) (display (list (p) (parameterize ((p 2)) (p)) (p)))'), '(1 2 1)');
  assert.equal(run('(display (list (force (delay (+ 1 2))) (force (delay-force (delay 7)))))'), '(3 7)');
  assert.equal(run("(define f (case-lambda ((x) (list 'one x)) ((x y) (list 'two x y)) ((x . r) (list 'many x r)))) (display (list (f 1) (f 1 2) (f 1 2 3)))"), '((one 1) (two 1 2) (many 1 (2 3)))');
});

test('macro-defining macros and nested ellipses run as expected', () => {
  assert.equal(run('(define-syntax def-seq (syntax-rules () ((_ name) (define-syntax name (syntax-rules () ((_ e (... ...)) (begin e (... ...)))))))) (def-seq my-begin) (my-begin (display 1) (display 2))'), '12');
  assert.equal(run("(define-syntax my-let* (syntax-rules () ((_ () body ...) (let () body ...)) ((_ ((x v) rest ...) body ...) (let ((x v)) (my-let* (rest ...) body ...))))) (display (my-let* ((a 1) (b (+ a 1))) (list a b)))"), '(1 2)');
});

test('a program importing user libraries from files: private state behind an exported macro', () => {
  const opts = { file: `${FIXTURES}/app/main.scm`, libraryPath: [`${FIXTURES}/libs`], readFile: diskReadFile };
  assert.equal(
    run('(import (scheme base) (scheme write) (prefix (mesh counter) c:) (util)) (c:inc! 5) (c:inc! 2) (display (list (c:current) start-value (twice (lambda (x) (* x 3)) 1)))', opts),
    '(7 0 9)',
  );
});

test('include and cond-expand in a running program', () => {
  const files = { 'dir/defs.scm': '(define (double x) (* 2 x))' };
  assert.equal(run("(include \"defs.scm\") (cond-expand (termite (display (double 21))) (else (display 'no)))", { file: 'dir/main.scm', readFile: memoryReadFile(files) }), '42');
});

test('R7RS §4 examples: let*, letrec*, let*-values swap, do, parameterize with a converter', () => {
  assert.equal(run('(write (let ((x 2) (y 3)) (let* ((x 7) (z (+ x y))) (* z x))))'), '70');
  assert.equal(run('(write (letrec* ((p (lambda (x) (+ 1 (q (- x 1))))) (q (lambda (y) (if (zero? y) 0 (+ 1 (p (- y 1)))))) (x (p 5)) (y x)) y))'), '5');
  assert.equal(run("(write (let ((a 'a) (b 'b) (x 'x) (y 'y)) (let*-values (((a b) (values x y)) ((x y) (values a b))) (list a b x y))))"), '(x y x y)');
  assert.equal(run('(write (do ((vec (make-vector 5)) (i 0 (+ i 1))) ((= i 5) vec) (vector-set! vec i i)))'), '#(0 1 2 3 4)');
  assert.equal(
    run('(define radix (make-parameter 10 (lambda (x) (if (and (exact-integer? x) (<= 2 x 16)) x (error "invalid radix"))))) (define (f n) (number->string n (radix))) (write (list (f 12) (parameterize ((radix 2)) (f 12)) (f 12)))'),
    '("12" "1100" "12")',
  );
});

test('R7RS §4 examples: my-or against user bindings of temp, let and if; => shadowed in cond; the record pare', () => {
  assert.equal(
    run('(define-syntax my-or (syntax-rules () ((my-or) #f) ((my-or e) e) ((my-or e1 e2 ...) (let ((temp e1)) (if temp temp (my-or e2 ...)))))) (write (let ((x #f) (y 7) (temp 8) (let odd?) (if even?)) (my-or x (let temp) (if y) y)))'),
    '7',
  );
  assert.equal(run("(write (let ((=> #f)) (cond (#t => 'ok))))"), 'ok');
  assert.equal(run('(define-record-type <pare> (kons x y) pare? (x kar set-kar!) (y kdr)) (write (list (pare? (kons 1 2)) (pare? (cons 1 2)) (kar (kons 1 2)) (kdr (kons 1 2)) (let ((k (kons 1 2))) (set-kar! k 3) (kar k))))'), '(#t #f 1 2 3)');
  assert.equal(run("(write `(1 `,(+ 1 ,(+ 2 3)) 4))"), '(1 (quasiquote (unquote (+ 1 5))) 4)');
});

test('R7RS §4.3.2 be-like-begin: a macro-defined macro whose expansion is a begin of several constants', () => {
  assert.equal(run('(define-syntax be-like-begin (syntax-rules () ((be-like-begin name) (define-syntax name (syntax-rules () ((name expr (... ...)) (begin expr (... ...)))))))) (be-like-begin sequence) (write (sequence 1 2 3 4))'), '4');
});
