// @ts-check
/**
 * Typed loops (passes/typed-loops.js): a named-let loop on fixnums or flonums gets a
 * guarded copy on unboxed JS numbers. What a bug there would break: the result of an
 * overflow to bignum inside the loop, the sign of a flonum zero, the fall-back to the
 * general code for other types (a flonum bound, a ratio, a non-number giving the same
 * error), pre-emption (a loop of 10^9 iterations yields every slice, its state goes
 * into a snapshot that restores and runs on), an escape through call/cc from inside
 * one, and which loops get the typed copy at all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileProgramText, linkProgram, Thread, runToCompletion, runSlice, snapshotThread, restoreThread,
  decodeValue, SLICE_YIELD, SLICE_DONE, Environment, instantiate,
} from '../src/index.js';
import { generateJs } from '../src/passes/generate-js.js';
import { writeString } from '../src/printer.js';

/** @param {string} text */
function generated(text) {
  return compileProgramText(text, { file: 'typed.scm' }).map((u) => generateJs(/** @type {any} */ (u).wire)).join('\n');
}

/** Run a program; the value of its last expression, written. @param {string} text */
function run(text) {
  const prog = linkProgram(compileProgramText(text, { file: 'typed.scm' }));
  const r = runToCompletion(new Thread(prog.top, []));
  return r.ok ? writeString(r.value) : `error: ${writeString(r.error)}`;
}

const SUM = `(define (sum-from start n)
  (let loop ((i 0) (acc start))
    (if (= i n) acc (loop (+ i 1) (+ acc i)))))`;

test('a fixnum loop and a flonum loop get a typed copy; a loop with a non-tail call does not', () => {
  assert.match(generated(SUM), /typeof l0 === 'number' && typeof l1 === 'number'/);
  assert.match(generated('(define (h x) (let loop ((x x) (i 0)) (if (= i 3) x (loop (* x 0.5) (+ i 1)))))'), /l0 instanceof Flonum && typeof l1 === 'number'/);
  const withCall = generated('(define (p n) (let loop ((i 0)) (if (= i n) 0 (begin (display i) (loop (+ i 1))))))');
  assert.doesNotMatch(withCall, /let fuel = R\.fuel/);
  // mixed types in one class (compared with a fixnum literal, added to a flonum one): not typed
  const mixed = '(define (m) (let loop ((x 0.0)) (if (> x 5) x (loop (+ x 1.5)))))';
  assert.doesNotMatch(generated(mixed), /let fuel = R\.fuel/);
  assert.equal(run(`${mixed} (m)`), '6.0');
});

test('a fixnum sum that leaves the fixnum range inside the typed loop becomes an exact bignum', () => {
  const start = 4503599627370000n; // 2^52 - 495: the range is left after ~32 iterations
  const n = 1000n;
  const want = start + (n * (n - 1n)) / 2n;
  assert.equal(run(`${SUM} (sum-from ${start} ${n})`), String(want));
  // and a product: 30! by a typed loop
  let fact = 1n;
  for (let i = 1n; i <= 30n; i++) fact *= i;
  assert.equal(run('(let loop ((i 1) (acc 1)) (if (> i 30) acc (loop (+ i 1) (* acc i))))'), String(fact));
  // from below: a negative sum
  assert.equal(run(`${SUM} (sum-from -4503599627370000 1000) `), String(-start + (n * (n - 1n)) / 2n));
});

test('flonum loops compute what JS computes, -0.0 and NaN included', () => {
  assert.equal(run('(let loop ((x -0.0) (i 0)) (if (= i 5) x (loop (* x 1.0) (+ i 1))))'), '-0.0');
  let third = 1.0;
  for (let i = 0; i < 20; i++) third /= 3.0;
  assert.equal(run('(let loop ((x 1.0) (i 0)) (if (= i 20) x (loop (/ x 3.0) (+ i 1))))'), run(String(third)));
  assert.equal(run('(let loop ((x +nan.0) (i 0)) (if (= i 3) x (loop (+ x 1.0) (+ i 1))))'), '+nan.0');
  let z = 0.1;
  for (let i = 0; i < 1000; i++) z = z * z + 0.25 - z * 0.5;
  assert.equal(run('(let loop ((z 0.1) (i 0)) (if (= i 1000) z (loop (- (+ (* z z) 0.25) (* z 0.5)) (+ i 1))))'), run(String(z)));
});

test('other types fall back to the general code: a flonum bound, a ratio, a non-number', () => {
  assert.equal(run(`${SUM} (sum-from 0.5 10)`), '45.5');
  assert.equal(run(`${SUM} (sum-from 1/2 10)`), '91/2');
  assert.equal(run(`${SUM} (sum-from 0 10.0)`), '45'); // (= 10 10.0) is true: the general code ends it
  assert.equal(run(`${SUM} (sum-from 'x 3)`).startsWith('error: '), true);
  assert.match(run(`${SUM} (sum-from 'x 3)`), /\+/);
});

test('a call/cc escape from inside a typed loop returns to the receiver', () => {
  const text = `(define (find-root n)
    (call/cc (lambda (k)
      (let loop ((i 0)) (if (= i n) 'none (if (= (* i i) 144) (k i) (loop (+ i 1))))))))
    (list (find-root 1000) (find-root 5))`;
  assert.match(generated(text), /let fuel = R\.fuel/);
  assert.equal(run(text), '(12 none)');
});

test('a typed loop of 10^9 iterations is pre-empted every slice, and its snapshot restores and runs on', () => {
  const prog = linkProgram(compileProgramText(`${SUM}`, { file: 'typed-preempt.scm' }));
  assert.equal(runToCompletion(new Thread(prog.top, [])).ok, true);
  const clo = /** @type {any} */ (prog.env.cells.get('sum-from')).v;
  const th = new Thread(clo, [0, 1_000_000_000]);
  const FUEL = 20_000;
  /** the loop variable i in a snapshot: the suspended call's first argument @param {Uint8Array} bytes */
  const iOf = (bytes) => {
    const data = /** @type {any[]} */ (decodeValue(bytes, { resolveCode: (hash) => (hash === prog.hash ? prog : null) }));
    return data[5][0];
  };
  let last = -1;
  for (let s = 0; s < 10; s++) {
    const t0 = performance.now();
    assert.equal(runSlice(th, FUEL), SLICE_YIELD, `slice ${s} yields`);
    assert.ok(performance.now() - t0 < 2000, 'a slice is bounded by its fuel');
    const i = iOf(snapshotThread(th, null));
    assert.ok(i > last && i <= (s + 1) * FUEL, `slice ${s}: i = ${i} advances by at most the fuel`);
    assert.ok(i >= (s + 1) * FUEL * 0.9, `slice ${s}: i = ${i} advances by about the fuel`);
    last = i;
  }
  // migrate: restore the snapshot in a fresh environment, run on, snapshot again
  const bytes = snapshotThread(th, null);
  const env = new Environment('typed-preempt-copy');
  const inst = instantiate(prog.wire, prog.hash, env);
  const moved = restoreThread(bytes, { env, resolveCode: (hash) => (hash === prog.hash ? inst : null) });
  for (let s = 0; s < 5; s++) assert.equal(runSlice(moved, FUEL), SLICE_YIELD);
  const after = iOf(snapshotThread(moved, null));
  assert.ok(after > last + 4 * FUEL * 0.9 && after <= last + 5 * FUEL, `the restored loop ran on: ${last} -> ${after}`);
  // and it still ends with the right sum when the bound is reachable
  const small = new Thread(clo, [0, 300_000]);
  let r = SLICE_YIELD;
  let slices = 0;
  for (; slices < 1000 && r === SLICE_YIELD; slices++) r = runSlice(small, FUEL);
  assert.equal(r, SLICE_DONE);
  assert.ok(slices >= 15, `pre-empted ${slices - 1} times`);
  assert.equal(small.val, (300_000 * 299_999) / 2);
});
