// @ts-check
// The expander's primitive forms: references, application, quote, if, set!, lambda,
// define (top level and internal), begin, and source locations on Core nodes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { core, expand, show, syntaxErrorOf } from './fixtures/expand/helpers.js';
import { Pair, Sym, VOID } from '../src/values.js';
import { expandProgram } from '../src/expand/index.js';

test('a top-level procedure definition becomes a named GlobalDef in namespace "."', () => {
  assert.equal(core('(define (f x) (* x 2)) (f 21)'), '(begin (define .::f (lambda:f (x.1) (rt::* x.1 (quote 2)))) (.::f (quote 21)))');
});

test('standard procedures are references to the runtime namespace', () => {
  assert.equal(core('(car (cons 1 2))'), '(rt::car (rt::cons (quote 1) (quote 2)))');
});

test('self-evaluating data and quote become Const nodes holding the datum as read', () => {
  const { units } = expand('(quote (a b)) "s" #\\x 1.5 #(1 2) #u8(1)');
  const es = units[0].body.es;
  assert.ok(es.every((/** @type {any} */ n) => n.t === 'Const'));
  assert.ok(es[0].value instanceof Pair && es[0].value.car === Sym.intern('a'));
  assert.equal(es[1].value, 's');
  assert.deepEqual(es[4].value, [1, 2]);
  assert.ok(es[5].value instanceof Uint8Array);
});

test('a one-armed if has the unspecified value as its alternative', () => {
  const { units } = expand('(if #t 1)');
  assert.equal(units[0].body.t, 'If');
  assert.equal(units[0].body.else.value, VOID);
});

test('lambda with a rest parameter and a variadic lambda', () => {
  assert.equal(core('(lambda (a . r) r)'), '(lambda (a.1 . r.2) r.2)');
  assert.equal(core('(lambda args args)'), '(lambda args.1 args.1)');
});

test('internal definitions anywhere in a body become one letrec*', () => {
  assert.equal(
    core('(define (f) (define a 1) (display a) (define (g) a) (g)) (f)'),
    '(begin (define .::f (lambda:f () (letrec* ((a.1 (quote 1)) (_.2 (rt::display a.1)) (g.3 (lambda:g () a.1))) (g.3)))) (.::f))',
  );
});

test('set! assigns locals and the program\'s own globals', () => {
  assert.equal(core('(define x 1) (let ((y 2)) (set! y 3) (set! x y))'), '(begin (define .::x (quote 1)) (let ((y.1 (quote 2))) (begin (set! y.1 (quote 3)) (set! .::x y.1))))');
});

test('assigning an imported binding is a syntax error', () => {
  const e = syntaxErrorOf(() => expand('(set! car cdr)'));
  assert.match(e.message, /^test\.scm:1:1: set!: cannot assign car: it is imported/);
});

test('top-level begin splices definitions', () => {
  assert.equal(core('(begin (define a 1) (define b a)) b'), '(begin (define .::a (quote 1)) (define .::b .::a) .::b)');
});

test('a top-level definition may refer to one that comes later', () => {
  assert.equal(core('(define (f) (g)) (define (g) 1)'), '(begin (define .::f (lambda:f () (.::g))) (define .::g (lambda:g () (quote 1))))');
});

test('a program may shadow an imported name with its own definition, for the whole program', () => {
  assert.equal(core('(define (f) (list 1)) (define (list x) x)'), '(begin (define .::f (lambda:f () (.::list (quote 1)))) (define .::list (lambda:list (x.1) x.1)))');
});

test('a reference to a name defined nowhere is reported at its location', () => {
  const e = syntaxErrorOf(() => expand('(define (f) 1)\n(display (undefined-thing))'));
  assert.equal(e.message, 'test.scm:2:10: undefined-thing: unbound variable in program test.scm');
  assert.equal(e.payload.kind, 'syntax');
  assert.equal(e.payload.loc, 'test.scm:2:10');
});

test('a local variable may shadow a special form', () => {
  assert.equal(core('(let ((if list)) (if 1 2 3))'), '(let ((if.1 rt::list)) (if.1 (quote 1) (quote 2) (quote 3)))');
});

test('a program with no forms is the unspecified value', () => {
  const { units } = expand('');
  assert.equal(units.length, 1);
  assert.equal(units[0].kind, 'program');
  assert.equal(units[0].body.value, VOID);
});

test('the program unit is named after its file and needs no library when it imports only standard ones', () => {
  const { units } = expand('(import (scheme base)) 1', { file: 'dir/prog.scm' });
  assert.equal(units[0].name, 'dir/prog.scm');
  assert.deepEqual(units[0].requires, []);
});

test('every Core node carries the location of the nearest source form', () => {
  const { units } = expand('(define (f x)\n  (if x\n      (g x)\n      2))\n(define (g y) y)');
  const lambda = units[0].body.es[0].e;
  assert.deepEqual(lambda.loc, { file: 'test.scm', line: 1, col: 1 });
  assert.deepEqual(lambda.body.loc, { file: 'test.scm', line: 2, col: 3 });
  assert.deepEqual(lambda.body.then.loc, { file: 'test.scm', line: 3, col: 7 });
  assert.deepEqual(lambda.body.then.args[0].loc, { file: 'test.scm', line: 3, col: 7 }, 'a variable inherits its enclosing form');
  assert.deepEqual(lambda.body.else.loc, { file: 'test.scm', line: 2, col: 3 });
});

test('macro output is located at the macro use', () => {
  const { units } = expand('(define-syntax m (syntax-rules () ((_ e) (if e 1 2))))\n\n  (m #t)');
  assert.deepEqual(units[0].body.loc, { file: 'test.scm', line: 3, col: 3 });
});

test('datums built by hand (without the reader) expand, without locations', () => {
  const s = Sym.intern;
  const datums = [new Pair(s('define'), new Pair(s('x'), new Pair(1, null))), new Pair(s('+'), new Pair(s('x'), new Pair(2, null)))];
  const { units } = expandProgram(datums, {});
  assert.equal(show(units[0].body), '(begin (define .::x (quote 1)) (rt::+ .::x (quote 2)))');
  assert.equal(units[0].body.loc, null);
});

test('the empty combination is a syntax error', () => {
  assert.match(syntaxErrorOf(() => expand('(list ())')).message, /test\.scm:1:1: \(\) is not an expression/);
});

test('define in an expression context is a syntax error', () => {
  assert.match(syntaxErrorOf(() => expand('(if #t (define x 1))')).message, /define: not allowed in an expression context/);
});

test('a body that ends with a definition is a syntax error', () => {
  assert.match(syntaxErrorOf(() => expand('(lambda () (define x 1))')).message, /a body must end with an expression/);
});

test('duplicate parameters are a syntax error', () => {
  assert.match(syntaxErrorOf(() => expand('(lambda (x x) x)')).message, /parameter x appears twice/);
});

// The same test with the (termite) forms (defined by the runtime) is in
// packages/runtime/test/termite-syntax.test.js.
test('no Core node of a program read from text lacks a location, whatever form produced it', () => {
  const src = `
(define-record-type <p> (mk a) p? (a p-a set-p-a!))
(define-values (q r) (values 1 2))
(define (f x . rest)
  (define-values (u v) (values 1 2))
  (let loop ((i 0)) (if (< i 3) (loop (+ i 1))))
  (let* ((a 1) (b 2)) (letrec ((c (lambda () c))) c))
  (let-values (((a b) (values 1 2))) a)
  (do ((i 0 (+ i 1))) ((= i 3) 'done) (display i))
  (cond ((assv x '()) => cdr) (x) (else 1))
  (case x ((1) 'a) ((2 3) => list) (else 'c))
  (and 1 2) (or 1 2) (when 1 2) (unless 1 2)
  (delay 1) (delay-force 1)
  (parameterize ((current-output-port (current-output-port))) 1)
  (guard (e ((string? e) => string-length) (else 0)) (raise 1))
  (case-lambda ((a) a) ((a b) b))
  \`(1 ,x ,@rest #(,x))
  (set! x 2)
  (let-syntax ((m (syntax-rules () ((_ e) (list e e))))) (m x)))`;
  const { units } = expand(src);
  let count = 0;
  /** @param {any} n @param {string} path */
  const walk = (n, path) => {
    if (!n || typeof n !== 'object' || !n.t) return;
    count++;
    assert.ok(n.loc && n.loc.file === 'test.scm' && n.loc.line >= 1 && n.loc.line <= 20, `${n.t} at ${path} has no location`);
    for (const k of ['test', 'then', 'else', 'e', 'fn', 'args', 'es', 'inits', 'clauses', 'body']) {
      const c = n[k];
      if (Array.isArray(c)) c.forEach((x, i) => walk(x, `${path}.${k}${i}`));
      else walk(c, `${path}.${k}`);
    }
  };
  walk(units[0].body, 'body');
  assert.ok(count > 200);
});

test('circular code (datum labels) is a syntax error, not a hang; circular quoted data is fine', () => {
  assert.match(syntaxErrorOf(() => expand('(display . #0=(1 . #0#))')).message, /a procedure call must be a proper list/);
  assert.match(syntaxErrorOf(() => expand('(lambda #0=(a . #0#) 1)')).message, /lambda: circular parameter list/);
  assert.match(syntaxErrorOf(() => expand('(define-syntax m (syntax-rules () ((_ x ...) 1))) (m . #0=(1 . #0#))')).message, /m: no syntax-rules pattern matches/);
  const { units } = expand("'#0=(a . #0#)");
  assert.equal(units[0].body.value.cdr, units[0].body.value);
});
