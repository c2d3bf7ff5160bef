// @ts-check
// syntax-rules: pattern language, templates, and hygiene in both directions.
import test from 'node:test';
import assert from 'node:assert/strict';
import { core, expand, syntaxErrorOf } from './fixtures/expand/helpers.js';

const SWAP = '(define-syntax swap! (syntax-rules () ((_ a b) (let ((tmp a)) (set! a b) (set! b tmp)))))';
const MY_OR = '(define-syntax my-or (syntax-rules () ((_) #f) ((_ e) e) ((_ e r ...) (let ((t e)) (if t t (my-or r ...))))))';

test('swap! with a user variable named tmp swaps the user variables, not the macro temporary', () => {
  assert.equal(
    core(`${SWAP} (let ((tmp 1) (other 2)) (swap! tmp other))`),
    '(let ((tmp.1 (quote 1)) (other.2 (quote 2))) (let ((tmp.3 tmp.1)) (begin (set! tmp.1 other.2) (set! other.2 tmp.3))))',
  );
});

test('my-or with a user variable t refers to the user t, not the macro binding', () => {
  assert.equal(core(`${MY_OR} (let ((t 5)) (my-or #f t))`), '(let ((t.1 (quote 5))) (let ((t.2 (quote #f))) (if t.2 t.2 t.1)))');
});

test('a template\'s if means the if of the definition site even where the use site rebinds if', () => {
  assert.equal(core(`${MY_OR} (let ((if list)) (my-or #f 1))`), '(let ((if.1 rt::list)) (let ((t.2 (quote #f))) (if t.2 t.2 (quote 1))))');
});

test('a free identifier in a template refers to the global visible where the macro was defined', () => {
  assert.equal(
    core("(define x 'outer) (define-syntax get-x (syntax-rules () ((_) x))) (let ((x 'inner)) (get-x))"),
    '(begin (define .::x (quote outer)) (let ((x.1 (quote inner))) .::x))',
  );
});

test('let-syntax transformers see the outer scope and letrec-syntax ones their own bindings', () => {
  assert.equal(core("(define x 'outer) (let-syntax ((m (syntax-rules () ((_) x)))) (let ((x 'inner)) (m)))"), '(begin (define .::x (quote outer)) (let ((x.1 (quote inner))) .::x))');
  assert.equal(
    core('(letrec-syntax ((ev? (syntax-rules () ((_) #t) ((_ x . r) (od? . r)))) (od? (syntax-rules () ((_) #f) ((_ x . r) (ev? . r))))) (ev? 1 2 3))'),
    '(quote #f)',
  );
  assert.equal(
    core("(define (f) 'global) (let-syntax ((f (syntax-rules () ((_) 'macro)))) (let-syntax ((g (syntax-rules () ((_) (f))))) (g)))"),
    '(begin (define .::f (lambda:f () (quote global))) (quote macro))',
  );
});

test('a macro defined in a body is visible only in that body', () => {
  assert.equal(core('(define (f) (define-syntax twice (syntax-rules () ((_ e) (begin e e)))) (twice (display 1)) 2) (f)'), '(begin (define .::f (lambda:f () (begin (rt::display (quote 1)) (rt::display (quote 1)) (quote 2)))) (.::f))');
  assert.match(syntaxErrorOf(() => expand('(define (f) (define-syntax twice (syntax-rules () ((_ e) e))) 1) (twice 1)')).message, /twice: unbound variable/);
});

test('a macro expanding into definitions defines them in a body and at top level', () => {
  const DEF2 = '(define-syntax def2 (syntax-rules () ((_ a b v) (begin (define a v) (define b v)))))';
  assert.equal(core(`${DEF2} (def2 x y 3) (+ x y)`), '(begin (define .::x (quote 3)) (define .::y (quote 3)) (rt::+ .::x .::y))');
  assert.equal(core(`${DEF2} (let () (def2 x y 3) (+ x y))`), '(letrec* ((x.1 (quote 3)) (y.2 (quote 3))) (rt::+ x.1 y.2))');
});

test('a helper a macro defines in a body is hidden from the user, who can use the same name', () => {
  assert.equal(
    core('(define-syntax def-counter (syntax-rules () ((_ get) (begin (define n 0) (define (get) n))))) (let () (define n 99) (def-counter get) (list n (get)))'),
    '(letrec* ((n.1 (quote 99)) (n.2 (quote 0)) (get.3 (lambda:get () n.2))) (rt::list n.1 (get.3)))',
  );
});

test('a helper a macro defines at top level is hidden too: two uses do not share it, the user\'s own is untouched', () => {
  const DEF = '(define-syntax def-counter (syntax-rules () ((_ get) (begin (define n 0) (define (get) (set! n (+ n 1)) n)))))';
  assert.equal(
    core(`${DEF} (define n 99) (def-counter a) (def-counter b) (list n (a) (b))`),
    '(begin (define .::n (quote 99)) (define .::n%1 (quote 0)) (define .::a (lambda:a () (begin (set! .::n%1 (rt::+ .::n%1 (quote 1))) .::n%1)))' +
      ' (define .::n%2 (quote 0)) (define .::b (lambda:b () (begin (set! .::n%2 (rt::+ .::n%2 (quote 1))) .::n%2))) (rt::list .::n (.::a) (.::b)))',
  );
  assert.match(syntaxErrorOf(() => expand('(define-syntax def-x (syntax-rules () ((_) (define x 1)))) (def-x) x')).message, /x: unbound variable/);
});

test('macro-defining macros: the inner macro\'s pattern variables and ellipsis escapes work', () => {
  assert.equal(
    core('(define-syntax def-seq (syntax-rules () ((_ name) (define-syntax name (syntax-rules () ((_ e (... ...)) (begin e (... ...)))))))) (def-seq my-begin) (my-begin 1 2 3)'),
    '(begin (quote 1) (quote 2) (quote 3))',
  );
  assert.equal(
    core('(define-syntax def-const (syntax-rules () ((_ name v) (define-syntax name (syntax-rules () ((_) v)))))) (def-const three 3) (let ((v 0)) (three))'),
    '(let ((v.1 (quote 0))) (quote 3))',
  );
});

test('a recursive macro (my-let*) builds nested lets', () => {
  assert.equal(
    core('(define-syntax my-let* (syntax-rules () ((_ () body ...) (let () body ...)) ((_ ((x v) rest ...) body ...) (let ((x v)) (my-let* (rest ...) body ...))))) (my-let* ((a 1) (b a)) (+ a b))'),
    '(let ((a.1 (quote 1))) (let ((b.2 a.1)) (rt::+ a.1 b.2)))',
  );
});

test('nested ellipses flatten and keep structure', () => {
  assert.equal(core("(define-syntax flat (syntax-rules () ((_ (a b ...) ...) '(a ... (b ... ...))))) (flat (1 2 3) (4 5) (6))"), '(quote (1 4 6 (2 3 5)))');
  assert.equal(core("(define-syntax tr (syntax-rules () ((_ ((a b ...) ...) ...) '((a ... ...) ((b ...) ... ...))))) (tr ((1 2) (3)) ((4 5 6)))"), '(quote ((1 3 4) ((2) () (5 6))))');
});

test('a variable of lower ellipsis depth is repeated inside a deeper template', () => {
  assert.equal(core("(define-syntax pairs (syntax-rules () ((_ k (v ...)) '((k v) ...)))) (pairs x (1 2 3))"), '(quote ((x 1) (x 2) (x 3)))');
});

test('an ellipsis may be followed by more patterns', () => {
  assert.equal(core("(define-syntax tail (syntax-rules () ((_ a ... b c) '(b c (a ...))))) (tail 1 2 3 4)"), '(quote (3 4 (1 2)))');
  assert.equal(core("(define-syntax tail (syntax-rules () ((_ a ... b c) '(b c (a ...))))) (tail 1 2)"), '(quote (1 2 ()))');
});

test('dotted patterns match the rest of the form', () => {
  assert.equal(core("(define-syntax dot (syntax-rules () ((_ a . r) '(a r)))) (dot 1 2 3)"), '(quote (1 (2 3)))');
  assert.equal(core("(define-syntax dot (syntax-rules () ((_ a ... . r) '((a ...) r)))) (dot 1 2 . 3)"), '(quote ((1 2) 3))');
});

test('vector patterns and vector templates', () => {
  assert.equal(core("(define-syntax vec (syntax-rules () ((_ #(a b ...)) '#(b ... a)))) (vec #(1 2 3))"), '(quote #(2 3 1))');
  assert.match(syntaxErrorOf(() => expand('(define-syntax vec (syntax-rules () ((_ #(a)) a))) (vec (1))')).message, /no syntax-rules pattern matches/);
});

test('a custom ellipsis frees ... to be an ordinary identifier', () => {
  assert.equal(core('(define-syntax my-list (syntax-rules ::: () ((_ x :::) (list x :::)))) (my-list 1 2 3)'), '(rt::list (quote 1) (quote 2) (quote 3))');
  assert.equal(core("(define-syntax q (syntax-rules ::: () ((_ x :::) '(x ::: ...)))) (q 1 2)"), '(quote (1 2 ...))');
});

test('(... ...) in a template produces a literal ellipsis', () => {
  assert.equal(core("(define-syntax e (syntax-rules () ((_ x) '(x (... ...))))) (e 1)"), '(quote (1 ...))');
});

test('literals match with free-identifier=? semantics', () => {
  const ARROW = "(define-syntax arrow (syntax-rules (=>) ((_ a => b) '(arrow a b)) ((_ a b c) '(plain a b c))))";
  assert.equal(core(`${ARROW} (arrow 1 => 2)`), '(quote (arrow 1 2))');
  assert.equal(core(`${ARROW} (let ((=> 0)) (arrow 1 => 2))`), '(let ((=>.1 (quote 0))) (quote (plain 1 => 2)))');
});

test('the underscore matches anything and binds nothing', () => {
  assert.equal(core("(define-syntax second (syntax-rules () ((_ _ b . _) 'b))) (second 1 2 3)"), '(quote 2)');
});

test('self-evaluating data in patterns match by equality', () => {
  const M = "(define-syntax m (syntax-rules () ((_ 1 x) 'one) ((_ \"s\" x) 'str) ((_ #t x) 'true) ((_ y x) 'other)))";
  assert.equal(core(`${M} (list (m 1 a) (m "s" a) (m #t a) (m 2 a))`), '(rt::list (quote one) (quote str) (quote true) (quote other))');
});

test('quote in a template strips renamed identifiers back to symbols', () => {
  assert.equal(core("(define-syntax q (syntax-rules () ((_) '(a (b) #(c))))) (q)"), '(quote (a (b) #(c)))');
});

test('syntax-error reports its message and arguments at the macro use', () => {
  const e = syntaxErrorOf(() => expand('(define-syntax m (syntax-rules () ((_ a) (syntax-error "bad use of m:" a))))\n(m 42)'));
  assert.equal(e.message, 'test.scm:2:1: bad use of m: 42');
});

test('no matching rule is a syntax error naming the macro at the use site', () => {
  assert.equal(syntaxErrorOf(() => expand('(define-syntax m (syntax-rules () ((_ a) a)))\n (m)')).message, 'test.scm:2:2: m: no syntax-rules pattern matches this use in (m)');
});

test('malformed transformers are syntax errors at definition', () => {
  assert.match(syntaxErrorOf(() => expand('(define-syntax m (syntax-rules () ((_ a ...) a)))')).message, /pattern variable a is used with too few ellipses/);
  assert.match(syntaxErrorOf(() => expand('(define-syntax m (syntax-rules () ((_ a a) a)))')).message, /pattern variable a appears twice/);
  assert.match(syntaxErrorOf(() => expand('(define-syntax m (syntax-rules () ((_ a ... b ...) a)))')).message, /two ellipses/);
  assert.match(syntaxErrorOf(() => expand('(define-syntax m 42)')).message, /m: expected a syntax-rules transformer/);
  assert.match(syntaxErrorOf(() => expand("(define-syntax m (syntax-rules () ((_ a) '(x ...))))")).message, /followed by more ellipses than its pattern variables have/);
  assert.match(syntaxErrorOf(() => expand("(define-syntax m (syntax-rules () ((_ a ...) '(a ... ...))))")).message, /followed by more ellipses than its pattern variables have/);
});

test('ellipsis variables of different lengths in one template are a syntax error', () => {
  assert.match(syntaxErrorOf(() => expand("(define-syntax z (syntax-rules () ((_ (a ...) (b ...)) '((a b) ...)))) (z (1 2) (3))")).message, /matched different numbers of forms/);
});

test('a keyword used as a variable is a syntax error', () => {
  assert.match(syntaxErrorOf(() => expand('(define-syntax m (syntax-rules () ((_) 1))) (list m)')).message, /m: syntactic keyword used as a variable/);
});

test('a macro with a 100,000-form use expands without deep recursion', () => {
  const args = Array.from({ length: 100000 }, (_, i) => String(i)).join(' ');
  const { units } = expand(`(define-syntax my-list (syntax-rules () ((_ x ...) (list x ...)))) (my-list ${args})`);
  assert.equal(units[0].body.args.length, 100000);
  assert.equal(units[0].body.args[99999].value, 99999);
});

test('a local macro refers to the local variable in scope at its definition, not one the use site binds', () => {
  assert.equal(
    core('(define (f x) (let-syntax ((getx (syntax-rules () ((_) x)))) (let ((x 2)) (getx))))'),
    '(define .::f (lambda:f (x.1) (let ((x.2 (quote 2))) x.1)))',
  );
});

test('a pattern variable and a template identifier with the same name stay distinct', () => {
  assert.equal(
    core('(define-syntax m (syntax-rules () ((_ x) (let ((x 1) (y 2)) (+ x y))))) (define y 10) (m y)'),
    '(begin (define .::y (quote 10)) (let ((y.1 (quote 1)) (y.2 (quote 2))) (rt::+ y.1 y.2)))',
  );
});

test('a template keyword means the definition-site macro even if the use site binds its name', () => {
  assert.equal(
    core("(define-syntax m2 (syntax-rules () ((_) 'from-m2))) (define-syntax m1 (syntax-rules () ((_) (m2)))) (let ((m2 list)) (m1))"),
    '(let ((m2.1 rt::list)) (quote from-m2))',
  );
});

test('quasiquote in a template splices pattern variables', () => {
  assert.equal(core('(define-syntax qq (syntax-rules () ((_ a b ...) `(a ,a ,@(list b ...))))) (define x 1) (qq x 2 3)'), '(begin (define .::x (quote 1)) (rt::append (rt::list (quote x) .::x) (rt::list (quote 2) (quote 3))))');
});
