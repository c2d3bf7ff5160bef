// @ts-check
/**
 * Resumable builtins (engine/resumable.js): a procedure over a big list or vector does at
 * most one chunk of work per call, so a slice ends soon after its fuel is spent whatever
 * the data, the thread can be snapshotted between chunks and resumed, small inputs finish
 * in the first call, and a step called with a forged state gets a clear error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  boot, compileProgramText, linkProgram, Thread, runSlice, runProgramText, snapshotThread, restoreThread,
  SLICE_DONE, SLICE_YIELD, writeString,
} from '@termite/scheme';
import { CHUNK, runBuiltin } from '../src/engine/resumable.js';
import { Pair, SchemeError } from '../src/values.js';
import { primitives } from '../src/engine/registry.js';

const N = 1_000_000;

/**
 * Run `expr` (after `setup`, run to completion first) in slices of `fuel` reductions.
 * @param {string} setup @param {string} expr @param {number} fuel
 */
function sliced(setup, expr, fuel) {
  boot();
  const units = compileProgramText(`${setup}\n(define (go) ${expr})`);
  const prog = linkProgram(units);
  const init = new Thread(prog.top, []);
  for (let i = 0; runSlice(init, 1e9) !== SLICE_DONE; i++) assert.ok(i < 1000, 'setup finishes');
  const th = new Thread(prog.env.cell('go').v, []);
  let slices = 1;
  let longest = 0;
  for (;;) {
    const t0 = performance.now();
    const r = runSlice(th, fuel);
    longest = Math.max(longest, performance.now() - t0);
    if (r === SLICE_DONE) return { value: th.val, slices, longest, prog, th };
    assert.equal(r, SLICE_YIELD, `slice ${slices}: ${writeString(th.val)}`);
    assert.ok(++slices < 100_000, 'bounded');
  }
}

const CASES = [
  ['length', `(length big)`, N],
  ['list-ref', `(list-ref big ${N - 2})`, 7],
  ['list-tail', `(length (list-tail big ${N - 3}))`, 3],
  ['memv', `(car (memv 8 big))`, 8],
  ['member', `(car (member 8 big))`, 8],
  ['assv', `(cdr (assv 2 alist))`, 9],
  ['reverse', `(car (reverse big))`, 8],
  ['list-copy', `(length (list-copy big))`, N],
  ['append', `(length (append big big (list 1)))`, 2 * N + 1],
  ['make-list', `(length (make-list ${N} 0))`, N],
  ['make-vector', `(vector-length (make-vector ${N} 0))`, N],
  ['list->vector', `(vector-ref (list->vector big) ${N - 1})`, 8],
  ['vector->list', `(length (vector->list vec))`, N],
  ['vector-copy', `(vector-length (vector-copy vec 1))`, N - 1],
  ['vector-fill!', `(begin (vector-fill! vec 3 5) (vector-ref vec ${N - 1}))`, 3],
  ['list->string', `(string-length (list->string chars))`, N],
];
const SETUP = `
(define big (append (make-list ${N - 1} 7) (list 8)))
(define alist (append (make-list ${N} (cons 1 1)) (list (cons 2 9))))
(define vec (make-vector ${N} 1))
(define chars (make-list ${N} #\\a))`;

for (const [name, expr, want] of CASES) {
  test(`${name} over ${N.toLocaleString('en')} elements is cut into chunks the scheduler can preempt between`, () => {
    assert.equal(primitives.has(String(name)), false, 'not a primitive (compiled code cannot call it directly)');
    const r = sliced(SETUP, String(expr), 1000);
    assert.equal(r.value, want);
    // one slice cannot run more than a chunk past its fuel: a million elements take many slices
    assert.ok(r.slices >= N / CHUNK - 1, `${r.slices} slices`);
  });
}

test('a small input finishes in the call that starts it (one slice, no step call)', () => {
  const r = sliced('(define l (list 1 2 3))', '(list (length l) (reverse l) (append l l) (memq 3 l) (list-ref l 2) (vector->list (make-vector 3 0)))', 1000);
  assert.equal(r.slices, 1);
  assert.equal(writeString(r.value), '(3 (3 2 1) (1 2 3 1 2 3) (3) 3 (0 0 0))');
});

test('a thread stopped between two chunks serializes and resumes with the right answer', () => {
  boot();
  const units = compileProgramText(`(define big (make-list ${N} 1)) (define (go) (+ 1 (length (append big big))))`);
  const prog = linkProgram(units);
  const init = new Thread(prog.top, []);
  while (runSlice(init, 1e9) !== SLICE_DONE);
  const th = new Thread(prog.env.cell('go').v, []);
  for (let i = 0; i < 5; i++) assert.equal(runSlice(th, 1000), SLICE_YIELD);
  const bytes = snapshotThread(th);
  const back = restoreThread(bytes, { resolveCode: (/** @type {string} */ hash) => (hash === prog.hash ? prog : null) });
  let r;
  for (let i = 0; (r = runSlice(back, 1e6)) !== SLICE_DONE; i++) assert.ok(i < 10_000, 'bounded');
  assert.equal(back.val, 2 * N + 1);
});

test('cyclic and improper lists are still errors across chunks', () => {
  const cyc = `(let ((l (make-list ${3 * CHUNK} 1))) (set-cdr! (list-tail l ${3 * CHUNK - 1}) l) (length l))`;
  const r = runProgramText(cyc);
  assert.ok(!r.ok);
  assert.match(r.message.slice(0, 200), /^length: expected a proper list, got a cyclic list/);
  const imp = runProgramText(`(reverse (append (make-list ${2 * CHUNK} 1) 5))`);
  assert.ok(!imp.ok);
  assert.match(imp.message.slice(0, 200), /^reverse: expected a proper list/);
});

test('a step called with a forged state gets a clear error, not a crash', () => {
  boot();
  const one = () => new Pair(1, null);
  const frozen = Object.freeze(new Pair(1, null));
  for (const [name, state] of /** @type {[string, any[]][]} */ ([
    ['%length/step', [1, 2, -1, 4]],
    ['%memq/step', [99, 1, one(), one(), 0, one()]],
    ['%vector-fill!/step', [[1], 0, 0, 5]],
    ['%list-copy/step', [frozen, frozen, frozen, frozen, 0, frozen]],
    ['%append/step', [[one()], 0, null, null, null, 0, null]],
  ])) {
    assert.throws(() => runBuiltin(name, state), (e) => e instanceof SchemeError && /bad resumption state|literal constant/.test(e.message), name);
  }
});

test('apply refuses a huge argument list after a bounded walk', () => {
  const t0 = performance.now();
  const r = runProgramText(`(define l (make-list 3000000 1)) (apply + l)`);
  assert.ok(!r.ok);
  assert.match(r.message, /too many arguments \(at most 50000\)/);
  assert.ok(performance.now() - t0 < 10_000);
});
