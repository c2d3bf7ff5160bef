// @ts-check
// R7RS derived forms and the runtime hooks they expand into.
import test from 'node:test';
import assert from 'node:assert/strict';
import { core, expand, syntaxErrorOf } from './fixtures/expand/helpers.js';
import { Pair, Sym } from '../src/values.js';

test('let binds in parallel and names lambdas after their variables', () => {
  assert.equal(core('(let ((x 1) (f (lambda () 2))) (f))'), '(let ((x.1 (quote 1)) (f.2 (lambda:f () (quote 2)))) (f.2))');
  assert.equal(core('(define x 1) (let ((x 2) (y x)) y)'), '(begin (define .::x (quote 1)) (let ((x.1 (quote 2)) (y.2 .::x)) y.2))');
});

test('named let is a letrec* of the loop procedure applied to the inits, evaluated outside it', () => {
  assert.equal(
    core('(define loop 0) (let loop ((i loop)) (if (< i 10) (loop (+ i 1)) i))'),
    '(begin (define .::loop (quote 0)) ((letrec* ((loop.1 (lambda:loop (i.2) (if (rt::< i.2 (quote 10)) (loop.1 (rt::+ i.2 (quote 1))) i.2)))) loop.1) .::loop))',
  );
});

test('let* nests one let per binding', () => {
  assert.equal(core('(let* ((a 1) (b a) (a b)) a)'), '(let ((a.1 (quote 1))) (let ((b.2 a.1)) (let ((a.3 b.2)) a.3)))');
});

test('letrec and letrec* become Letrec with every init in the scope of all variables', () => {
  const out = '(letrec* ((even?.1 (lambda:even? (n.3) (if (rt::= n.3 (quote 0)) (quote #t) (odd?.2 (rt::- n.3 (quote 1)))))) (odd?.2 (lambda:odd? (n.4) (if (rt::= n.4 (quote 0)) (quote #f) (even?.1 (rt::- n.4 (quote 1))))))) (even?.1 (quote 10)))';
  const src = '((even? (lambda (n) (if (= n 0) #t (odd? (- n 1))))) (odd? (lambda (n) (if (= n 0) #f (even? (- n 1)))))) (even? 10))';
  assert.equal(core(`(letrec ${src}`), out);
  assert.equal(core(`(letrec* ${src}`), out);
});

test('let-values and let*-values go through rt::call-with-values with the right scopes', () => {
  assert.equal(
    core('(let-values (((a b) (values 1 2)) ((c . d) (values 3 4 5))) (list a b c d))'),
    '(rt::call-with-values (lambda () (rt::values (quote 1) (quote 2))) (lambda (a.1 b.2) (rt::call-with-values (lambda () (rt::values (quote 3) (quote 4) (quote 5))) (lambda (c.3 . d.4) (rt::list a.1 b.2 c.3 d.4)))))',
  );
  assert.equal(core('(define a 0) (let-values (((a) (values 1)) ((b) (values a))) b)'), '(begin (define .::a (quote 0)) (rt::call-with-values (lambda () (rt::values (quote 1))) (lambda (a.1) (rt::call-with-values (lambda () (rt::values .::a)) (lambda (b.2) b.2)))))');
  assert.equal(core('(define a 0) (let*-values (((a) (values 1)) ((b) (values a))) b)'), '(begin (define .::a (quote 0)) (rt::call-with-values (lambda () (rt::values (quote 1))) (lambda (a.1) (rt::call-with-values (lambda () (rt::values a.1)) (lambda (b.2) b.2)))))');
});

test('define-values at top level defines each variable, checking the number of values', () => {
  assert.equal(
    core('(define-values (a b . c) (values 1 2 3 4))'),
    '(begin (define .::a (rt::call-with-values (lambda () (rt::values (quote 1) (quote 2) (quote 3) (quote 4))) (lambda (a.1 b.2 . c.3) (rt::list a.1 b.2 c.3)))) (define .::b (rt::cadr .::a)) (define .::c (rt::caddr .::a)) (set! .::a (rt::car .::a)))',
  );
  assert.equal(core('(define-values (q) 5)'), '(define .::q (rt::call-with-values (lambda () (quote 5)) (lambda (q.1) q.1)))');
});

test('internal define-values binds a hidden list and then each variable, in letrec* order', () => {
  assert.equal(
    core('(let () (define-values (x y) (values 1 2)) (+ x y))'),
    '(letrec* ((values.1 (rt::call-with-values (lambda () (rt::values (quote 1) (quote 2))) (lambda (x.4 y.5) (rt::list x.4 y.5)))) (x.2 (rt::car values.1)) (y.3 (rt::cadr values.1))) (rt::+ x.2 y.3))',
  );
});

test('do loops test, run the commands and step the variables', () => {
  assert.equal(
    core("(do ((i 0 (+ i 1)) (acc '() (cons i acc)) (k 5)) ((= i 3) acc) (display i))"),
    '((letrec* ((do-loop.1 (lambda:do-loop (i.2 acc.3 k.4) (if (rt::= i.2 (quote 3)) acc.3 (begin (rt::display i.2) (do-loop.1 (rt::+ i.2 (quote 1)) (rt::cons i.2 acc.3) k.4)))))) do-loop.1) (quote 0) (quote ()) (quote 5))',
  );
});

test('cond handles =>, test-only clauses and else, testing each once', () => {
  assert.equal(
    core("(cond ((assv 2 '((1 . a) (2 . b))) => cdr) ((> 1 2)) (else 'no))"),
    '(let ((t.1 (rt::assv (quote 2) (quote ((1 . a) (2 . b)))))) (if t.1 (rt::cdr t.1) (let ((t.2 (rt::> (quote 1) (quote 2)))) (if t.2 t.2 (quote no)))))',
  );
  assert.equal(core('(cond (#f 1))'), '(if (quote #f) (quote 1) (quote #!void))', 'no clause and no else: unspecified');
});

test('a local variable named else is not the else keyword', () => {
  assert.equal(core('(let ((else #f)) (cond (else 1)))'), '(let ((else.1 (quote #f))) (if else.1 (quote 1) (quote #!void)))');
});

test('case compares with eqv? / memv and supports => in clauses and else', () => {
  assert.equal(
    core("(case (* 2 3) ((2 3 5 7) 'prime) ((6) => (lambda (x) x)) (else => (lambda (x) (- x))))"),
    "(let ((key.1 (rt::* (quote 2) (quote 3)))) (if (rt::memv key.1 (quote (2 3 5 7))) (quote prime) (if (rt::eqv? key.1 (quote 6)) ((lambda (x.2) x.2) key.1) ((lambda (x.3) (rt::- x.3)) key.1))))",
  );
});

test('and and or evaluate each operand once', () => {
  assert.equal(core('(and 1 2 3)'), '(if (quote 1) (if (quote 2) (quote 3) (quote #f)) (quote #f))');
  assert.equal(core('(define (f) 1) (or (f) 2)'), '(begin (define .::f (lambda:f () (quote 1))) (let ((t.1 (.::f))) (if t.1 t.1 (quote 2))))');
  assert.equal(core('(list (and) (or))'), '(rt::list (quote #t) (quote #f))');
});

test('when and unless', () => {
  assert.equal(core('(when 1 2 3)'), '(if (quote 1) (begin (quote 2) (quote 3)) (quote #!void))');
  assert.equal(core('(unless 1 2)'), '(if (quote 1) (quote #!void) (quote 2))');
});

test('delay and delay-force wrap their expression in a thunk for the runtime', () => {
  assert.equal(core('(list (delay 1) (delay-force 2) (make-promise 3))'), '(rt::list (rt::%delay (lambda () (quote 1))) (rt::%delay-force (lambda () (quote 2))) (rt::make-promise (quote 3)))');
});

test('parameterize passes the parameters, the values and a body thunk to rt::%parameterize', () => {
  assert.equal(
    core('(define p (make-parameter 1)) (parameterize ((p 2)) (define y 3) (+ (p) y))'),
    '(begin (define .::p (rt::make-parameter (quote 1))) (rt::%parameterize (rt::list .::p) (rt::list (quote 2)) (lambda () (letrec* ((y.1 (quote 3))) (rt::+ (.::p) y.1)))))',
  );
});

test('guard passes a body thunk and a handler of (condition reraise) that re-raises when no clause matches', () => {
  assert.equal(
    core("(guard (e ((symbol? e) e) ((string? e) => string-length)) (raise 'oops))"),
    '(rt::%guard (lambda () (rt::raise (quote oops))) (lambda (e.1 reraise.2) (if (rt::symbol? e.1) e.1 (let ((t.3 (rt::string? e.1))) (if t.3 (rt::string-length t.3) (reraise.2))))))',
  );
  assert.equal(core('(guard (e (else 0)) 1)'), '(rt::%guard (lambda () (quote 1)) (lambda (e.1 reraise.2) (quote 0)))');
});

test('case-lambda becomes CaseLambda of one Lambda per clause', () => {
  assert.equal(core('(define f (case-lambda ((x) x) ((x . r) r)))'), '(define .::f (case-lambda (lambda (x.1) x.1) (lambda (x.2 . r.3) r.3)))');
});

test('quasiquote builds with rt::cons, rt::list, rt::append and rt::list->vector', () => {
  const X = '(define x 1) (define l (list 2 3))';
  const D = '(begin (define .::x (quote 1)) (define .::l (rt::list (quote 2) (quote 3))) ';
  assert.equal(core(`${X} \`(a ,x ,@l b)`), `${D}(rt::append (rt::list (quote a) .::x) .::l (quote (b))))`);
  assert.equal(core(`${X} \`(a . ,x)`), `${D}(rt::cons (quote a) .::x))`);
  assert.equal(core(`${X} \`(a ,x)`), `${D}(rt::list (quote a) .::x))`);
  assert.equal(core(`${X} \`#(a ,x ,@l)`), `${D}(rt::list->vector (rt::append (rt::list (quote a) .::x) .::l)))`);
  assert.equal(core(`${X} \`(,@l . tail)`), `${D}(rt::append .::l (quote tail)))`);
  assert.equal(core('`(a (b c) #(d))'), '(quote (a (b c) #(d)))');
});

test('nested quasiquote only evaluates unquotes at level zero', () => {
  assert.equal(
    core('(define x 1) `(1 `(2 ,(3 ,x)))'),
    '(begin (define .::x (quote 1)) (rt::list (quote 1) (rt::list (quote quasiquote) (rt::list (quote 2) (rt::list (quote unquote) (rt::list (quote 3) .::x))))))',
  );
  assert.equal(core('`(1 `(2 ,(3 4)))'), '(quote (1 (quasiquote (2 (unquote (3 4))))))');
  assert.equal(core('(define x 1) `(1 `(2 ,@(3 ,@x)))'), '(begin (define .::x (quote 1)) (rt::list (quote 1) (rt::list (quote quasiquote) (rt::list (quote 2) (rt::list (quote unquote-splicing) (rt::append (quote (3)) .::x))))))');
});

test('a quasiquoted 100,000-element list with one unquote builds without deep recursion', () => {
  const elems = Array.from({ length: 100000 }, (_, i) => String(i)).join(' ');
  const { units } = expand(`(define x 1) \`(${elems} ,x)`);
  const call = units[0].body.es[1];
  assert.equal(call.fn.g.name, 'list');
  assert.equal(call.args.length, 100001);
});

test('define-record-type defines the type, constructor, predicate, accessors and modifiers through the rt hooks', () => {
  assert.equal(
    core('(define-record-type <point> (make-point x y) point? (x point-x) (y point-y set-point-y!) (z point-z))'),
    '(begin (define .::<point> (rt::%make-record-type (quote <point>) (quote #(x y z)) (quote 0)))' +
      ' (define .::make-point (lambda:make-point (x.1 y.2) (rt::%make-record .::<point> x.1 y.2 (quote #f))))' +
      ' (define .::point? (lambda:point? (obj.3) (rt::%record? obj.3 .::<point>)))' +
      ' (define .::point-x (lambda:point-x (obj.4) (rt::%record-ref obj.4 .::<point> (quote 0) (quote point-x))))' +
      ' (define .::point-y (lambda:point-y (obj.5) (rt::%record-ref obj.5 .::<point> (quote 1) (quote point-y))))' +
      ' (define .::set-point-y! (lambda:set-point-y! (obj.6 value.7) (rt::%record-set! obj.6 .::<point> (quote 1) value.7 (quote set-point-y!))))' +
      ' (define .::point-z (lambda:point-z (obj.8) (rt::%record-ref obj.8 .::<point> (quote 2) (quote point-z)))))',
  );
});

test('record type ordinals number the define-record-type forms of the unit, internal ones included, without repeats', () => {
  const { units } = expand('(define-record-type a (mk-a) a?) (define (f) (define-record-type b (mk-b) b?) mk-b) (define-record-type c (mk-c) c?)');
  const ordinals = [];
  JSON.stringify(units[0].body, (k, v) => {
    if (v && v.t === 'Call' && v.fn.t === 'GlobalRef' && v.fn.g.name === '%make-record-type') ordinals.push(v.args[2].value);
    return v;
  });
  assert.deepEqual(ordinals, [0, 2, 1], 'top-level forms are numbered first, then bodies as they are expanded');
});

test('a constructor argument that is not a field is a syntax error', () => {
  assert.match(syntaxErrorOf(() => expand('(define-record-type p (make-p q) p? (x p-x))')).message, /constructor argument q is not a field/);
});

test('include splices the forms of a file read relative to the including file', () => {
  const files = { 'dir/inc.scm': '(define a 1) (define b 2)', 'dir/sub/two.scm': '(+ a b)', 'dir/CI.scm': '(DEFINE C 3)' };
  const readFile = (/** @type {string} */ p) => files[/** @type {'dir/inc.scm'} */ (p)] ?? null;
  assert.equal(
    core('(include "inc.scm") (include-ci "CI.scm") (let () (include "sub/two.scm"))', { file: 'dir/main.scm', readFile }),
    '(begin (define .::a (quote 1)) (define .::b (quote 2)) (define .::c (quote 3)) (rt::+ .::a .::b))',
  );
  const e = syntaxErrorOf(() => expand('(include "missing.scm")', { file: 'dir/main.scm', readFile }));
  assert.equal(e.message, 'dir/main.scm:1:1: include: cannot read file dir/missing.scm in (include "missing.scm")');
});

test('cond-expand chooses by features, library availability, and/or/not and else', () => {
  const src = "(cond-expand ((and r7rs (not no-such)) 'a) (else 'b)) (cond-expand ((library (scheme base)) 'c)) (cond-expand ((or no-such my-feature) 'd) (else 'e)) (cond-expand (no-such 'f))";
  assert.equal(core(src), '(begin (quote a) (quote c) (quote e))', 'at top level a cond-expand without a match splices nothing');
  assert.equal(core(src, { features: ['my-feature'] }), '(begin (quote a) (quote c) (quote d))');
  assert.equal(core('(list (cond-expand (no-such 1)))'), '(rt::list (quote #!void))');
  assert.equal(core("(cond-expand (termite (define t 'yes))) t"), '(begin (define .::t (quote yes)) .::t)');
});

test('expanding quoted data leaves it untouched', () => {
  const { units } = expand("'(a b (c))");
  const v = units[0].body.value;
  assert.ok(v instanceof Pair && v.car === Sym.intern('a'));
  assert.equal(Object.isFrozen(v), false, 'the compiler freezes constants, not the expander');
});
