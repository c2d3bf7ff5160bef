// @ts-check
/**
 * The JS stack bound of generated code (passes/generate-js.js MAX_DEPTH, frameWeight):
 * each activation adds a weight from its number of locals to the depth it passes on,
 * so the stack is unwound to the heap after a bounded number of bytes, not of calls.
 * What a bug there would break: a deep non-tail recursion whose activations keep
 * hundreds of values live (with a bound in calls, 800 such frames overflow Node's
 * stack: "JavaScript stack overflow in a primitive"), and deep recursion through
 * small frames, nested data printed and compared, callbacks of primitives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileProgramText, linkProgram, Thread, runToCompletion } from '../src/index.js';
import { generateJs, frameWeight, MAX_DEPTH } from '../src/passes/generate-js.js';
import { writeString } from '../src/printer.js';
import { DEPTH_UNIT } from '../src/values.js';

/** @param {string} text */
function run(text) {
  const prog = linkProgram(compileProgramText(text, { file: 'depth.scm' }));
  const r = runToCompletion(new Thread(prog.top, []));
  return r.ok ? writeString(r.value) : `error: ${writeString(r.error)}`;
}

/** A non-tail recursion k deep whose every activation keeps n values live. @param {number} n @param {number} k */
function bigFrames(n, k) {
  const vars = Array.from({ length: n }, (_, i) => `(v${i} (+ k ${i}))`).join(' ');
  const all = Array.from({ length: n }, (_, i) => `v${i}`).join(' ');
  return `(define (big k) (if (= k 0) 0 (let (${vars}) (+ (big (- k 1)) (vector-length (vector ${all}))))))
    (big ${k})`;
}

test('recursion through activations of 40 and 300 live values goes 3,000 deep', () => {
  for (const n of [40, 300]) assert.equal(run(bigFrames(n, 3000)), String(n * 3000), `${n} values per activation`);
});

test('a call passes on its activation\'s weight; small activations weigh 1', () => {
  assert.ok(MAX_DEPTH * 150 <= 400 * 1024, 'the bound stays well inside the default stack');
  const units = compileProgramText(`(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) ${bigFrames(300, 1)}`, { file: 'w.scm' });
  const wire = /** @type {any} */ (units.at(-1)).wire;
  const js = generateJs(wire);
  const weights = wire.lambdas.map((/** @type {any} */ l) => frameWeight(l.clauses[0]));
  assert.ok(weights.includes(1));
  const heavy = Math.max(...weights);
  assert.ok(heavy >= 300 / 16, `the 300-value activation weighs ${heavy}`);
  // the call word: d plus the weight in depth units, less the caller's own argument
  // count, plus the callee's (both 1 here)
  assert.match(js, new RegExp(`\\[CALL\\]\\(d \\+ ${heavy * DEPTH_UNIT}, `));
  assert.match(js, new RegExp(`\\[CALL\\]\\(d \\+ ${DEPTH_UNIT}, `));
});

test('deep recursion, deeply nested data written and compared, primitives calling back', () => {
  assert.equal(run(`(define (deep n) (if (= n 0) 0 (+ 1 (deep (- n 1)))))
    (define (nest n) (if (= n 0) '() (list (nest (- n 1)))))
    (list (deep 1000000)
          (length (map (lambda (x) (deep 3000)) (list 1 2 3 4 5 6 7 8 9 10)))
          (let ((p (open-output-string))) (write (nest 5000) p) (string-length (get-output-string p)))
          (equal? (nest 5000) (nest 5000)))`), '(1000000 10 10002 #t)');
});
