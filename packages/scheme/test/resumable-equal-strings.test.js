// @ts-check
/**
 * The resumable builtins added after the list and vector walks: equal? (and member/assoc
 * when one element's comparison is long), string->list, vector-append, vector-copy!.
 * Each is cut into calls of at most one chunk over big data, answers as the single-call
 * version did, finishes a small input in one call, and its steps treat their state as
 * hostile: a forged state gets a clear error or a correct answer, never a crash, and
 * cannot build past the per-call build limit that the first call checks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  boot, compileProgramText, linkProgram, Thread, runSlice, runProgramText, snapshotThread, restoreThread,
  SLICE_DONE, SLICE_YIELD, writeString,
} from '@termite/scheme';
import { CHUNK, runBuiltin } from '../src/engine/resumable.js';
import { R } from '../src/engine/engine.js';
import { Pair, SchemeError, list } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';

const N = 1_000_000;

/**
 * Run `expr` (after `setup`, run to completion first) in slices of `fuel` reductions.
 * @param {string} setup @param {string} expr @param {number} fuel
 */
function sliced(setup, expr, fuel) {
  boot();
  const prog = linkProgram(compileProgramText(`${setup}\n(define (go) ${expr})`));
  const init = new Thread(prog.top, []);
  for (let i = 0; runSlice(init, 1e9) !== SLICE_DONE; i++) assert.ok(i < 1000, 'setup finishes');
  const th = new Thread(prog.env.cell('go').v, []);
  let slices = 1;
  for (;;) {
    const r = runSlice(th, fuel);
    if (r === SLICE_DONE) return { value: th.val, slices };
    assert.equal(r, SLICE_YIELD, `slice ${slices}: ${writeString(th.val)}`);
    assert.ok(++slices < 100_000, 'bounded');
  }
}

const SETUP = `
(define (iota n) (let loop ((i (- n 1)) (l '())) (if (< i 0) l (loop (- i 1) (cons i l)))))
(define a (make-list ${N} 7))
(define b (make-list ${N} 7))
(define c (append (make-list ${N - 1} 7) (list 8)))
(define ta (map (lambda (i) (list i (vector i "x"))) (iota ${N / 10})))
(define tb (map (lambda (i) (list i (vector i "x"))) (iota ${N / 10})))
(define tc (map (lambda (i) (list i (vector i (if (= i ${N / 10 - 1}) "y" "x")))) (iota ${N / 10})))
(define va (make-vector ${N} (list 1)))
(define vb (make-vector ${N} (list 1)))
(define vc (vector-copy vb))
(vector-set! vc ${N - 1} (list 2))
(define s (make-string ${N} #\\a))
(define v (make-vector ${N} 1))`;

const CASES = [
  ['equal? of two lists of numbers', '(equal? a b)', true, N],
  ['equal? of two lists differing in the last element', '(equal? a c)', false, N],
  ['equal? of two lists of nested structures', '(equal? ta tb)', true, N / 2],
  ['equal? of nested structures differing in the last leaf', '(equal? ta tc)', false, N / 2],
  ['equal? of two vectors of lists', '(equal? va vb)', true, N],
  ['equal? of vectors differing in the last slot', '(equal? va vc)', false, N],
  ['member with one long comparison', '(length (member b (list 1 c a 2)))', 2, N],
  ['assoc with one long comparison', '(cdr (assoc b (list (cons 1 1) (cons c 2) (cons a 3))))', 3, N],
  ['string->list', '(length (string->list s 1))', N - 1, N],
  ['vector-append', '(vector-length (vector-append v v v))', 3 * N, 3 * N],
  ['vector-copy! forward', `(begin (vector-copy! v 0 (make-vector ${N} 2)) (vector-ref v ${N - 1}))`, 2, N],
];

for (const [name, expr, want, work] of CASES) {
  test(`${name} is cut into chunks the scheduler can preempt between`, () => {
    const r = sliced(SETUP, String(expr), 1000);
    assert.equal(r.value, want);
    assert.ok(r.slices >= Number(work) / CHUNK - 1, `${r.slices} slices`);
  });
}

test('none of them is a primitive any more (compiled code cannot call them directly)', () => {
  boot();
  for (const name of ['equal?', 'string->list', 'vector-append', 'vector-copy!']) assert.equal(primitives.has(name), false, name);
});

test('small inputs finish in the call that starts them', () => {
  const r = sliced('(define l (list 1 (vector 2 "x") 3))', `(list (equal? l (list 1 (vector 2 "x") 3)) (member (vector 2 "x") l) (string->list "h\u{1F600}i")
    (vector-append #(1) #(2 3)) (let ((w (vector 1 2 3 4 5))) (vector-copy! w 1 w 0 3) w))`, 1000);
  assert.equal(r.slices, 1);
  assert.equal(writeString(r.value), '(#t (#(2 "x") 3) (#\\h #\\\u{1F600} #\\i) #(1 2 3) #(1 1 2 3 5))');
});

test('an overlapping vector-copy! over many chunks copies as if through a temporary, both ways', () => {
  const n = 3 * CHUNK + 17;
  const r = runProgramText(`
    (define (ramp n) (let ((v (make-vector n 0))) (let loop ((i 0)) (if (< i n) (begin (vector-set! v i i) (loop (+ i 1))) v))))
    (define up (ramp ${n + 5}))
    (vector-copy! up 5 up 0 ${n})
    (define down (ramp ${n + 5}))
    (vector-copy! down 0 down 5)
    (list (vector-ref up 5) (vector-ref up ${n + 4}) (vector-ref down 0) (vector-ref down ${n - 1}))`);
  assert.ok(r.ok, r.message);
  assert.equal(writeString(r.value), `(0 ${n - 1} 5 ${n + 4})`);
});

test('equal? on two distinct cyclic lists longer than a chunk ends across calls', () => {
  const m = 3 * CHUNK;
  const cyc = (/** @type {string} */ name) => `(define ${name} (make-list ${m} 1)) (set-cdr! (list-tail ${name} ${m - 1}) ${name})`;
  const r = sliced(`${cyc('p')} ${cyc('q')}`, '(equal? p q)', 1000);
  assert.equal(r.value, true);
  const nested = sliced(
    `(define p (map (lambda (i) (list i)) (make-list ${m} 1))) (set-cdr! (list-tail p ${m - 1}) p)
     (define q (map (lambda (i) (list i)) (make-list ${m} 1))) (set-cdr! (list-tail q ${m - 1}) q)`,
    '(equal? p q)', 1000);
  assert.equal(nested.value, true);
});

test('a thread stopped in the middle of equal? serializes and resumes with the right answer', () => {
  boot();
  const prog = linkProgram(compileProgramText(`
    (define (iota n) (let loop ((i (- n 1)) (l '())) (if (< i 0) l (loop (- i 1) (cons i l)))))
    (define a (map (lambda (i) (vector i)) (iota ${N / 4}))) (define b (map (lambda (i) (vector i)) (iota ${N / 4})))
    (define (go) (if (equal? a b) 'same 'different))`));
  const init = new Thread(prog.top, []);
  while (runSlice(init, 1e9) !== SLICE_DONE);
  const th = new Thread(prog.env.cell('go').v, []);
  for (let i = 0; i < 3; i++) assert.equal(runSlice(th, 1000), SLICE_YIELD);
  const back = restoreThread(snapshotThread(th), { resolveCode: (/** @type {string} */ hash) => (hash === prog.hash ? prog : null) });
  let r;
  for (let i = 0; (r = runSlice(back, 1e6)) !== SLICE_DONE; i++) assert.ok(i < 10_000, 'bounded');
  assert.equal(writeString(back.val), 'same');
});

/** @param {string} name @param {any[]} state @param {RegExp} why */
function refused(name, state, why) {
  assert.throws(() => runBuiltin(name, state), (e) => e instanceof SchemeError && why.test(e.message), name);
}

test('equal? and member steps called with a forged state get a clear error', () => {
  boot();
  const frozen = Object.freeze([1, 2]);
  refused('%equal?/step', [frozen, null, 0, 1, false, null], /bad resumption state/);
  refused('%equal?/step', [[1], null, 0, 1, false, null], /bad resumption state/);
  refused('%equal?/step', [[1, 1], null, 10 ** 6, 1, false, null], /bad resumption state/);
  refused('%equal?/step', [[1, 1], Object.freeze([]), 0, 1, false, null], /bad resumption state/);
  refused('%equal?/step', [[1, 1], null, 0, 1, 42, []], /bad resumption state/);
  refused('%equal?/step', [[1, 1], null, 0, 1, false, null].slice(0, 5), /expected 6/);
  refused('%equal?-spine/step', [list(1), list(1), list(1), 2 ** 60, false, null], /bad resumption state/);
  refused('%member/step', ['yes', 2, 1, list(1), list(1), 0, list(1)], /bad resumption state/);
  refused('%member/step', [false, 0, 1, list(1), list(1), 0, list(1)], /bad resumption state/);
  refused('%memq/step', [0, 9, list(1, 2, 3), list(1, 2, 3), 1, 5], /bad resumption state/);
  refused('%string->list/step', ['abc', 2, 9, null], /bad resumption state/);
  refused('%vector-copy!/step', [[1, 2], 1, [1, 2, 3], 0, 3], /bad resumption state/);
  refused('%vector-append/step', [[[1]], 0, 5, []], /bad resumption state/);
});

test('forged states that are well typed still give answers, not crashes', () => {
  boot();
  // a tortoise that is not on the list only ends the fast spine walk
  assert.equal(runBuiltin('%equal?-spine/step', [list(1, 2, 3), list(1, 2, 3), 7, 0, false, null]), true);
  assert.equal(runBuiltin('%equal?-spine/step', [list(1, 2, 3), list(1, 2, 4), list(9), 1, false, null]), false);
  // a vector run that is not [vector, vector, index] compares as unequal
  assert.equal(runBuiltin('%equal?/step', [[], [[1], [1, 2], 0], 0, 1, false, null]), false);
  assert.equal(runBuiltin('%equal?/step', [[], [[[1, 2], [1, 2], 1]], 0, 1, false, null]), true);
});

test('a forged step cannot build past the per-call build limit the first call checks', () => {
  boot();
  const cap = R.buildCap;
  R.buildCap = 100_000;
  try {
    refused('%make-list/step', [10 ** 9, 0, null], /cannot build 1000000000 elements in one call/);
    refused('%make-vector/step', [[], 10 ** 9, 0], /cannot build/);
    refused('%make-vector/step', [new Array(99_999).fill(0), 2, 0], /cannot build 100001 elements/);
    refused('%vector-append/step', [[[1]], 0, 0, new Array(100_001).fill(0)], /cannot build/);
    // the first calls refuse the same sizes before building anything
    for (const expr of ['(make-list 1000000000)', '(make-vector 1000000)', '(vector-append (make-vector 60000) (make-vector 60000))',
      '(make-string 2000000)', '(string-append (make-string 1000000) (make-string 1000000))']) {
      const r = runProgramText(expr);
      assert.ok(!r.ok && /cannot build/.test(r.message), `${expr}: ${r.message}`);
    }
  } finally {
    R.buildCap = cap;
  }
  // within the limit, a step is an ordinary continuation of the work
  assert.equal(runBuiltin('%make-list/step', [3, 0, null]) instanceof Pair, true);
});
