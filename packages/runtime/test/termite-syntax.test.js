// @ts-check
// The (termite) special forms: match, recv, catch, handle (src/syntax/), as the expander
// expands them once the runtime has defined the library.
import test from 'node:test';
import assert from 'node:assert/strict';
import { expander } from '@termite/scheme/internal';
import { core, expand, syntaxErrorOf } from './syntax-helpers.js';
import { TERMITE_PROCEDURES } from '../src/syntax/termite-library.js';
import { termiteForms } from '../src/syntax/termite-forms.js';

test('match binds identifiers, tests list structure and ends with an error naming match and the value', () => {
  assert.equal(
    core('(match (list 1 2) ((a b) (+ a b)))'),
    '(let ((value.1 (rt::list (quote 1) (quote 2)))) (if (rt::pair? value.1) (let ((a.2 (rt::car value.1))) (let ((d.3 (rt::cdr value.1))) (if (rt::pair? d.3) (let ((b.4 (rt::car d.3))) (if (rt::null? (rt::cdr d.3)) (rt::+ a.2 b.4) (rt::error (quote "match: no clause matches") value.1))) (rt::error (quote "match: no clause matches") value.1)))) (rt::error (quote "match: no clause matches") value.1)))',
  );
});

test('match clauses fail to the next clause through thunks bound outside them', () => {
  assert.equal(
    core("(match 5 (1 'one) (x (where (> x 3)) 'big) (_ 'small))"),
    '(let ((value.1 (quote 5))) (let ((fail.2 (lambda () (quote small)))) (let ((fail.3 (lambda () (let ((x.4 value.1)) (if (rt::> x.4 (quote 3)) (quote big) (fail.2)))))) (if (rt::equal? value.1 (quote 1)) (quote one) (fail.3)))))',
  );
});

test('a repeated identifier must match an equal? value', () => {
  assert.equal(
    core("(match '(1 1) ((x x) x))"),
    '(let ((value.1 (quote (1 1)))) (if (rt::pair? value.1) (let ((x.2 (rt::car value.1))) (let ((d.3 (rt::cdr value.1))) (if (rt::pair? d.3) (if (rt::equal? (rt::car d.3) x.2) (if (rt::null? (rt::cdr d.3)) x.2 (rt::error (quote "match: no clause matches") value.1)) (rt::error (quote "match: no clause matches") value.1)) (rt::error (quote "match: no clause matches") value.1)))) (rt::error (quote "match: no clause matches") value.1)))',
  );
});

test('quoted data, unquoted expressions, literals, dotted tails and vectors in patterns', () => {
  assert.equal(
    core("(define tag 7) (match 0 (('add ,tag . rest) rest) (#(p _ \"s\") p) (#\\c 'char))"),
    "(begin (define .::tag (quote 7)) (let ((value.1 (quote 0))) (let ((fail.2 (lambda () (if (rt::equal? value.1 (quote #\\c)) (quote char) (rt::error (quote \"match: no clause matches\") value.1))))) (let ((fail.3 (lambda () (if (rt::vector? value.1) (if (rt::eqv? (rt::vector-length value.1) (quote 3)) (let ((p.4 (rt::vector-ref value.1 (quote 0)))) (if (rt::equal? (rt::vector-ref value.1 (quote 2)) (quote \"s\")) p.4 (fail.2))) (fail.2)) (fail.2))))) (if (rt::pair? value.1) (if (rt::equal? (rt::car value.1) (quote add)) (let ((d.5 (rt::cdr value.1))) (if (rt::pair? d.5) (if (rt::equal? (rt::car d.5) .::tag) (let ((rest.6 (rt::cdr d.5))) rest.6) (fail.3)) (fail.3))) (fail.3)) (fail.3))))))",
  );
});

test('an unquoted expression in a pattern is evaluated in the scope of the match, not of the pattern', () => {
  const out = core('(define (f x) (match x ((x ,x) 1)))');
  assert.match(out, /^\(define \.::f \(lambda:f \(x\.1\)/);
  assert.match(out, /\(rt::equal\? \(rt::car d\.\d+\) x\.1\)/, ',x is the parameter x.1, not the pattern variable x');
});

test('recv expands to a call of the thunk that rt::%recv returns, with a matcher, timeout and after thunk', () => {
  assert.equal(
    core("(recv ((from tag 'ping) (! from (list tag 'pong))) (x x) (after 10 'timeout))"),
    '((rt::%recv (lambda (msg.1) (let ((fail.2 (lambda () (let ((x.3 msg.1)) (lambda () x.3))))) (if (rt::pair? msg.1) (let ((from.4 (rt::car msg.1))) (let ((d.5 (rt::cdr msg.1))) (if (rt::pair? d.5) (let ((tag.6 (rt::car d.5))) (let ((d.7 (rt::cdr d.5))) (if (rt::pair? d.7) (if (rt::equal? (rt::car d.7) (quote ping)) (if (rt::null? (rt::cdr d.7)) (lambda () (rt::! from.4 (rt::list tag.6 (quote pong)))) (fail.2)) (fail.2)) (fail.2)))) (fail.2)))) (fail.2)))) (quote 10) (lambda () (quote timeout))))',
  );
});

test('recv without after passes #f for the timeout and the after thunk; the matcher answers #f on no match', () => {
  assert.equal(core("(recv ('ok 1))"), "((rt::%recv (lambda (msg.1) (if (rt::equal? msg.1 (quote ok)) (lambda () (quote 1)) (quote #f))) (quote #f) (quote #f)))");
  assert.equal(core("(recv (after 0 'nothing))"), "((rt::%recv (lambda (msg.1) (quote #f)) (quote 0) (lambda () (quote nothing))))");
});

test('recv with a where guard and a tag from the enclosing scope (the paper\'s RPC reply)', () => {
  assert.equal(
    core('(let ((tag (make-tag))) (recv ((,tag reply) (where (number? reply)) reply)))'),
    '(let ((tag.1 (rt::make-tag))) ((rt::%recv (lambda (msg.2) (if (rt::pair? msg.2) (if (rt::equal? (rt::car msg.2) tag.1) (let ((d.3 (rt::cdr msg.2))) (if (rt::pair? d.3) (let ((reply.4 (rt::car d.3))) (if (rt::null? (rt::cdr d.3)) (if (rt::number? reply.4) (lambda () reply.4) (quote #f)) (quote #f))) (quote #f))) (quote #f)) (quote #f))) (quote #f) (quote #f))))',
  );
});

test('an after clause that is not last is a syntax error', () => {
  assert.match(syntaxErrorOf(() => expand("(recv (after 1 'x) (y y))")).message, /recv: the after clause must be the last/);
});

test('catch and handle pass the handler and a body thunk to the runtime', () => {
  assert.equal(core('(catch (lambda (e) e) (raise 42) 123)'), '(rt::%catch (lambda (e.1) e.1) (lambda () (begin (rt::raise (quote 42)) (quote 123))))');
  assert.equal(core('(handle (lambda (e) e) (raise 42) 123)'), '(rt::%handle (lambda (e.1) e.1) (lambda () (begin (rt::raise (quote 42)) (quote 123))))');
});

test('the termite forms are available only through (termite)', () => {
  assert.match(syntaxErrorOf(() => expand('(import (scheme base)) (match 1 (x x))')).message, /unbound variable/);
  assert.equal(core("(import (scheme base) (only (termite) match)) (match 1 (x x))"), '(let ((value.1 (quote 1))) (let ((x.2 value.1)) x.2))');
});

test('a macro can expand into match patterns hygienically', () => {
  assert.equal(
    core("(define-syntax first-of (syntax-rules () ((_ e) (match e ((x . _) x))))) (let ((x 'user)) (first-of (list x)))"),
    "(let ((x.1 (quote user))) (let ((value.2 (rt::list x.1))) (if (rt::pair? value.2) (let ((x.3 (rt::car value.2))) x.3) (rt::error (quote \"match: no clause matches\") value.2))))",
  );
});

test('no Core node of a program read from text lacks a location, whatever form produced it (the termite forms among the language\'s)', () => {
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
  (match x ((a 'b ,x . c) (where a) c) (#(1 _) 2) (_ 3))
  (recv ((a b) a) (after 1 2))
  (catch list 1) (handle list 1)
  (set! x 2)
  (let-syntax ((m (syntax-rules () ((_ e) (list e e))))) (m x)))`;
  const { units } = expand(src);
  let count = 0;
  /** @param {any} n @param {string} path */
  const walk = (n, path) => {
    if (!n || typeof n !== 'object' || !n.t) return;
    count++;
    assert.ok(n.loc && n.loc.file === 'test.scm' && n.loc.line >= 1 && n.loc.line <= 23, `${n.t} at ${path} has no location`);
    for (const k of ['test', 'then', 'else', 'e', 'fn', 'args', 'es', 'inits', 'clauses', 'body']) {
      const c = n[k];
      if (Array.isArray(c)) c.forEach((x, i) => walk(x, `${path}.${k}${i}`));
      else walk(c, `${path}.${k}`);
    }
  };
  walk(units[0].body, 'body');
  assert.ok(count > 300);
});

test('a program without an import form sees every standard library and (termite)', () => {
  assert.equal(core('(list (string-upcase "a") (sqrt 4) (force (delay 1)) (spawn (lambda () 1)))'), '(rt::list (rt::string-upcase (quote "a")) (rt::sqrt (quote 4)) (rt::force (rt::%delay (lambda () (quote 1)))) (rt::spawn (lambda () (quote 1))))');
});

test('(termite) exports the language\'s own procedures, then the Termite API\'s, and the four forms', () => {
  const lib = expander.libraryExports('(termite)');
  assert.deepEqual(lib?.procedures, ['list-sort', 'vector-sort', 'sort', 'record?', 'error-object-who', ...TERMITE_PROCEDURES]);
  assert.deepEqual(lib?.syntax, Object.keys(termiteForms));
  assert.deepEqual([...(lib?.syntax ?? [])].sort(), ['catch', 'handle', 'match', 'recv']);
  assert.ok(expander.isDefaultImport('(termite)'));
});
