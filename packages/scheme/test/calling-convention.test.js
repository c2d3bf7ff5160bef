// @ts-check
/**
 * The calling convention (values.js CALL, callWord): every call passes its argument
 * count in the low bits of the call word, and every entry checks its arity there
 * instead of reading `arguments`. What a bug there would break: a wrong count accepted
 * or a right one refused (fixed, variadic, case-lambda, apply, primitives as values,
 * a callee redefined at run time), a rest procedure or a typed loop passing a count off
 * by its own, a call resumed by the driver (pre-emption, a resumed frame, a migrated
 * thread) or by a continuation with the wrong word, and generated JavaScript of another
 * convention taken from a host's cache.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileProgramText, linkProgram, Thread, runSlice, runToCompletion, snapshotThread, restoreThread,
  SLICE_DONE, SLICE_YIELD, writeString,
} from '../src/index.js';
import { fastSourcesOf, presetFastSources, hasFastSource } from '../src/engine/linker.js';
import { generateJs } from '../src/passes/generate-js.js';
import { CALLING_CONVENTION, DEPTH_UNIT, ARGC_MASK, callWord } from '../src/values.js';

/** Run a program to completion: its value written, or `error: <message>`. @param {string} text */
function run(text) {
  const prog = linkProgram(compileProgramText(text, { file: 'cc.scm' }));
  const r = runToCompletion(new Thread(prog.top, []));
  return r.ok ? writeString(r.value) : `error: ${r.error instanceof Error ? r.error.message : writeString(r.error)}`;
}

/** The message of the error `expr` raises, caught in Scheme. @param {string} defs @param {string} expr */
function errorOf(defs, expr) {
  return run(`${defs}
    (guard (e ((error-object? e) (error-object-message e)) (#t (list 'raised e))) ${expr} 'no-error)`);
}

test('wrong arity is an error with the same message: too few, too many, variadic minimum', () => {
  const defs = '(define (two a b) (list a b)) (define (at-least-two a b . r) (list a b r)) (define (none) 0)';
  assert.equal(errorOf(defs, '(two 1)'), '"expected 2 arguments, got 1"');
  assert.equal(errorOf(defs, '(two 1 2 3)'), '"expected 2 arguments, got 3"');
  assert.equal(errorOf(defs, '(none 1)'), '"expected 0 arguments, got 1"');
  assert.equal(errorOf(defs, '(at-least-two 1)'), '"expected at least 2 arguments, got 1"');
  assert.equal(run(`${defs} (list (two 1 2) (at-least-two 1 2) (at-least-two 1 2 3 4) (none))`), '((1 2) (1 2 ()) (1 2 (3 4)) 0)');
  // in tail position and through a local (not a global) the same
  assert.equal(errorOf(defs, '(let ((f two)) (f 1))'), '"expected 2 arguments, got 1"');
  assert.equal(errorOf('(define (two a b) a) (define (t x) (two x))', '(t 1)'), '"expected 2 arguments, got 1"');
});

test('apply with a list passes the list\'s length; a wrong one is the same error', () => {
  const defs = '(define (two a b) (list a b)) (define (v a . r) (cons a r))';
  assert.equal(run(`${defs} (list (apply two '(1 2)) (apply two 1 '(2)) (apply v '(1)) (apply v 1 2 '(3 4)) (apply + 1 2 '(3)))`), '((1 2) (1 2) (1) (1 2 3 4) 6)');
  assert.equal(errorOf(defs, "(apply two '(1 2 3))"), '"expected 2 arguments, got 3"');
  assert.equal(errorOf(defs, "(apply two '())"), '"expected 2 arguments, got 0"');
  assert.equal(errorOf(defs, "(apply v '())"), '"expected at least 1 arguments, got 0"');
  // apply called from a procedure of three arguments: its own count is not passed on
  assert.equal(run(`${defs} (define (a3 x y z) (apply two (list x y))) (a3 1 2 3)`), '(1 2)');
  assert.equal(errorOf(`${defs} (define (a3 x y z) (apply two (list x)))`, '(a3 1 2 3)'), '"expected 2 arguments, got 1"');
});

test('case-lambda dispatches on the count, and no matching clause is an error', () => {
  const defs = `(define f (case-lambda ((a) (list 'one a)) ((a b) (list 'two a b)) ((a b c . r) (list 'many a b c r))))
    (define g (case-lambda ((a b) (list a b))))`;
  assert.equal(run(`${defs} (list (f 1) (f 1 2) (f 1 2 3) (f 1 2 3 4 5) (apply f '(9)))`),
    '((one 1) (two 1 2) (many 1 2 3 ()) (many 1 2 3 (4 5)) (one 9))');
  // (the message names the lambda's smallest count, as before)
  assert.equal(errorOf(defs, '(f)'), '"expected at least 1 arguments, got 0"');
  assert.equal(errorOf(defs, '(g 1 2 3)'), '"expected 2 arguments, got 3"');
  // a clause with a rest list calls on with its own count cleared
  assert.equal(run('(define (two a b) (+ a b)) (define h (case-lambda ((a) a) ((a . r) (two a (length r))))) (list (h 5) (h 5 6 7 8))'), '(5 8)');
});

test('a procedure with a rest list calls fixed-arity procedures with their own counts', () => {
  const defs = '(define (two a b) (list a b)) (define (one a) a)';
  assert.equal(run(`${defs} (define (v . r) (list (two 1 2) (one r) (length r))) (list (v) (v 1 2 3 4 5 6 7))`),
    '(((1 2) () 0) ((1 2) (1 2 3 4 5 6 7) 7))');
  assert.equal(run(`${defs} (define (v a . r) (if (null? r) a (apply v r))) (v 1 2 3 4)`), '4');
  assert.equal(errorOf(`${defs} (define (v . r) (two r))`, '(v 1 2 3)'), '"expected 2 arguments, got 1"');
});

test('primitives called as procedures check their counts', () => {
  assert.equal(run("(list (map car '((1) (2))) (apply max '(3 9 2)) (let ((f cons)) (f 1 2)))"), '((1 2) 9 (1 . 2))');
  assert.match(errorOf('', '(let ((f car)) (f 1 2))'), /expected 1 argument, got 2/);
  assert.match(errorOf('', "(apply cons '(1))"), /expected 2 arguments, got 1/);
});

test('a callee redefined at run time is called with the new arity', () => {
  const defs = '(define (g x) (list x)) (define (h) (g 1))';
  assert.equal(run(`${defs} (define a (h)) (set! g (lambda (x y) (list x y))) (list a (guard (e (#t (error-object-message e))) (h)))`),
    '((1) "expected 2 arguments, got 1")');
  assert.equal(run(`${defs} (define a (h)) (set! g (lambda r (cons 'rest r))) (define b (h)) (set! g car) (list a b (guard (e (#t 'car-error)) (h)))`),
    '((1) (rest 1) car-error)');
});

test('a typed loop that leaves by a tail call passes the right count', () => {
  assert.equal(run(`(define (three a b c) (list a b c))
    (define (sum-then n) (let loop ((i 0) (acc 0)) (if (= i n) (three i acc 'end) (loop (+ i 1) (+ acc i)))))
    (sum-then 100000)`), '(100000 4999950000 end)');
});

/** Run `name` on `args` of the program in slices of `fuel`; the thread snapshotted and restored every `every` slices. */
function sliced(/** @type {string} */ text, /** @type {string} */ name, /** @type {any[]} */ args, /** @type {number} */ fuel, /** @type {number} */ every) {
  const prog = linkProgram(compileProgramText(text, { file: 'sliced.scm' }));
  assert.ok(runToCompletion(new Thread(prog.top, [])).ok);
  let th = new Thread(prog.env.cell(name).v, args);
  let slices = 0;
  let restored = 0;
  for (;;) {
    const r = runSlice(th, fuel);
    if (r === SLICE_DONE) return { value: th.val, slices, restored };
    assert.equal(r, SLICE_YIELD, writeString(th.val));
    assert.ok(++slices < 200_000, 'bounded');
    if (every > 0 && slices % every === 0) {
      th = restoreThread(snapshotThread(th, null), { resolveCode: (/** @type {string} */ hash) => (hash === prog.hash ? prog : null), env: null });
      restored++;
    }
  }
}

test('pre-emption and migration in the middle of a recursion resume with the right counts', () => {
  const text = `(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
    (define (v . r) (if (null? (cdr r)) (fib (car r)) (+ (apply v (cdr r)) 0)))
    (define (go n) (+ (fib n) (v 1 2 3 n)))`;
  // pre-empted every 37 reductions: every resumed call (the driver's) and frame (a resume form's)
  const pre = sliced(text, 'go', [18], 37, 0);
  assert.equal(pre.value, 2 * 2584);
  assert.ok(pre.slices > 100, `${pre.slices} slices`);
  // and the thread serialized and decoded (as a migration ships it) every 10 slices
  const mig = sliced(text, 'go', [18], 37, 10);
  assert.equal(mig.value, 2 * 2584);
  assert.ok(mig.restored > 10, `${mig.restored} restores`);
});

test('a continuation captured deep in a recursion and resumed later returns through its frames', () => {
  assert.equal(run(`(define saved #f)
    (define count 0)
    (define (down n) (if (= n 0) (call/cc (lambda (k) (set! saved k) 0)) (+ 1 (down (- n 1)))))
    (define first (down 5000))
    (set! count (+ count 1))
    (if (< count 3) (saved 10))
    (list first count)`), '(5010 3)');
  // a continuation called with several values, and one called with the wrong count for its receiver
  assert.equal(run('(call-with-values (lambda () (call/cc (lambda (k) (k 1 2)))) list)'), '(1 2)');
  assert.match(run('(call-with-values (lambda () (call/cc (lambda (k) (k 1 2 3)))) (lambda (a b) a))'), /expected 2 arguments, got 3/);
});

test('the call word: depth in the high part, count in the low bits', () => {
  assert.equal(callWord(5 * DEPTH_UNIT + 3, 2), 6 * DEPTH_UNIT + 2);
  assert.equal(callWord(0, 0), DEPTH_UNIT);
  assert.equal(ARGC_MASK, DEPTH_UNIT - 1);
  // generated entries test the count in the word, never `arguments`
  const js = generateJs(/** @type {any} */ (compileProgramText('(define (f a b) (f b a)) (define (g . r) r) (define (g2 a . r) r) (define h (case-lambda ((a) a) ((a b) b)))', { file: 'g.scm' }).at(-1)).wire);
  assert.match(js, /if \(\(d & 65535\) !== 2\) return arity\(this, d & 65535\);/);
  assert.match(js, /d -= d & 65535;/, 'a rest clause clears the count');
  assert.match(js, /if \(\(d & 65535\) < 1\) return arity\(this, d & 65535\);/);
  assert.match(js, /const n = d & 65535;/);
  assert.doesNotMatch(js, /arguments\.length/);
});

test('kept JavaScript carries its calling convention; another convention\'s is not taken', () => {
  const prog = linkProgram(compileProgramText('(define (kept x) (* x 2)) (kept 21)', { file: 'kept.scm' }));
  const sources = fastSourcesOf([prog.hash]);
  const text = sources[prog.hash];
  assert.ok(text.startsWith(`/* calling convention ${CALLING_CONVENTION} */`), 'marked');
  const unmarked = text.slice(text.indexOf('*/') + 2);
  const other = `/* calling convention ${CALLING_CONVENTION - 1} */${unmarked}`;
  const fresh = ['a', 'b', 'c'].map((s) => s.repeat(64));
  assert.deepEqual(presetFastSources({ [fresh[0]]: unmarked, [fresh[1]]: other, [fresh[2]]: text }), [fresh[2]]);
  assert.equal(hasFastSource(fresh[0]), false, 'unmarked source refused');
  assert.equal(hasFastSource(fresh[1]), false, 'another convention refused');
  assert.equal(hasFastSource(fresh[2]), true, 'this convention taken');
});
