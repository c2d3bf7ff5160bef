// @ts-check
/**
 * Invoking a continuation (`%reinstate`, builtins.js) unwinds the JS stack by returning
 * the unwind sentinel with PEND_REINSTATE (a JS throw cost most of a call/cc-heavy
 * program's time), and the driver then takes the continuation's frames. What a bug
 * there would break: a value returned to an activation that was escaped from, an
 * escape from a recursion deeper than the
 * JS stack bound, dynamic-wind's after and before thunks, escapes from inside
 * procedures called by builtins, and escapes in a thread pre-empted between them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileProgramText, linkProgram, Thread, runSlice, runToCompletion, SLICE_DONE, SLICE_YIELD, writeString } from '../src/index.js';

/** @param {string} text */
function run(text) {
  const prog = linkProgram(compileProgramText(text, { file: 'escape.scm' }));
  const r = runToCompletion(new Thread(prog.top, []));
  return r.ok ? writeString(r.value) : `error: ${writeString(r.error)}`;
}

test('an escape abandons the activations it unwinds: none of them returns', () => {
  assert.equal(run(`(define (f n k) (if (= n 0) (k 'out) (cons n (f (- n 1) k))))
    (list (call/cc (lambda (k) (f 10 k))) 'after)`), '(out after)');
  // from a recursion deeper than the JS stack bound (part of it already saved as frames)
  assert.equal(run(`(define (f n k) (if (= n 0) (k 5) (+ 1 (f (- n 1) k))))
    (list (call/cc (lambda (k) (f 200000 k))) (+ 1000 (call/cc (lambda (k) (f 200000 k)))))`), '(5 1005)');
});

test('a continuation re-entered after escapes still returns through its own frames', () => {
  assert.equal(run(`(define saved #f)
    (define n 0)
    (define (f d) (if (= d 0) (call/cc (lambda (k) (set! saved k) 0)) (+ 1 (f (- d 1)))))
    (define (escape-from d k) (if (= d 0) (k 'x) (cons d (escape-from (- d 1) k))))
    (define out (f 3000))
    (set! n (+ n 1))
    (call/cc (lambda (k) (escape-from 50 k)))
    (if (< n 4) (saved (* n 100)))
    (list out n)`), '(3300 4)');
});

test('dynamic-wind runs its after thunk on the way out and its before thunk on the way in', () => {
  assert.equal(run(`(define trace '())
    (define (note x) (set! trace (cons x trace)))
    (define re #f)
    (define count 0)
    (define v (call/cc (lambda (out)
      (dynamic-wind (lambda () (note 'before))
                    (lambda () (call/cc (lambda (k) (set! re k))) (set! count (+ count 1)) (if (< count 3) (out count) 'done))
                    (lambda () (note 'after))))))
    (if (< count 3) (re #f))
    (list v count (reverse trace))`), '(done 3 (before after before after before after))');
});

test('an escape from a procedure called by builtins (map, vector-map, sort, apply)', () => {
  assert.equal(run(`(list
    (call/cc (lambda (k) (map (lambda (x) (if (= x 3) (k 'map-out) x)) '(1 2 3 4))))
    (call/cc (lambda (k) (vector-map (lambda (x) (if (= x 2) (k 'vmap-out) x)) #(1 2 3))))
    (call/cc (lambda (k) (list-sort (lambda (a b) (k 'sort-out)) '(3 1 2))))
    (call/cc (lambda (k) (apply (lambda (a b) (k (+ a b))) '(1 2)))))`), '(map-out vmap-out sort-out 3)');
});

test('call/cc-heavy code pre-empted every few reductions gives the same answers', () => {
  const text = `(define (fibc-add x y k) (if (= y 0) (k x) (fibc-add (+ x 1) (- y 1) k)))
    (define (fibc-k n k)
      (cond ((= n 0) (k 0)) ((= n 1) (k 1))
            (else (fibc-add (call/cc (lambda (c) (fibc-k (- n 1) c))) (call/cc (lambda (c) (fibc-k (- n 2) c))) k))))
    (define (go) (fibc-k 16 (lambda (v) v)))`;
  const prog = linkProgram(compileProgramText(text, { file: 'fibc.scm' }));
  assert.ok(runToCompletion(new Thread(prog.top, [])).ok);
  const th = new Thread(prog.env.cell('go').v, []);
  let slices = 0;
  for (;;) {
    const r = runSlice(th, 23);
    if (r === SLICE_DONE) break;
    assert.equal(r, SLICE_YIELD, writeString(th.val));
    assert.ok(++slices < 1_000_000, 'bounded');
  }
  assert.equal(th.val, 987);
  assert.ok(slices > 100, `${slices} slices`);
});
