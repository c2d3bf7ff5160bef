// @ts-check
/**
 * Backtraces and error messages (docs/processes.md, "When a process fails"): an
 * uncaught error carries the chain of Scheme procedures that led to it, innermost
 * first, with source locations, bounded and with repeats folded; the main process's
 * result has it; the log line of an unwatched death has the error's values and its
 * frames; an error caught by `guard` still has its backtrace (`schemeBacktrace`); a
 * receive that timed out says where it was.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createNode } from '../src/index.js';
import { withNode } from './harness.js';

/**
 * Run a program on a fresh node; the full runProgram result (with its backtrace).
 * @param {string} text
 */
async function runRaw(text) {
  /** @type {string[]} */
  const log = [];
  const node = /** @type {any} */ (await createNode({ stdout: () => {}, log: (s) => log.push(s) }));
  try {
    const r = await Promise.race([
      node.runProgram(text, { file: 'bt.scm' }),
      new Promise((_, reject) => setTimeout(() => reject(new Error('the program did not end within 10 s')), 10_000).unref()),
    ]);
    return { r, log };
  } finally {
    node.stop();
  }
}

// size: one describe for the backtrace cases, each a few lines
describe('backtraces', () => {
  test('the frames of a known program, innermost first, with their call sites', async () => {
    const { r } = await runRaw(
      `(define (process-all l) (map (lambda (x) (car x)) l))
(define (go) (display (process-all (list (list 1) 2))) (newline))
(go)`,
    );
    assert.equal(r.ok, false);
    assert.equal(r.message, 'car: expected a pair: 2 (at bt.scm:1:42)');
    // map and its loop come from the runtime library, which has no source locations
    assert.deepEqual(r.backtrace, [
      '(anonymous procedure) at bt.scm:1:42',
      'loop',
      'map',
      'process-all at bt.scm:1:25',
      'go at bt.scm:2:23',
      'top level of bt.scm at bt.scm:3:1',
    ]);
    assert.deepEqual(r.error.schemeBacktrace, r.backtrace);
  });

  test('error raised by (error …) in a non-tail recursion: the raising procedure first, repeats folded', async () => {
    const { r } = await runRaw(
      `(define (g x) (error "bad thing" x 'more))
(define (f n) (if (= n 0) (g 42) (+ 1 (f (- n 1)))))
(f 3)`,
    );
    assert.equal(r.message, 'bad thing: 42 more (at bt.scm:1:15)');
    assert.deepEqual(r.backtrace, ['g at bt.scm:1:15', 'f at bt.scm:2:27', 'f at bt.scm:2:39 (×3)', 'top level of bt.scm at bt.scm:3:1']);
  });

  test('a recursion 100,000 deep: repeats folded into one line with their count', async () => {
    const { r } = await runRaw(
      `(define (h n) (if (= n 0) (vector-ref (vector) n) (cons n (h (- n 1)))))
(define (k n) (if (= n 0) (h 100000) (list (k (- n 1)))))
(k 40)`,
    );
    assert.equal(r.ok, false);
    assert.ok(r.backtrace.length <= 31, `${r.backtrace.length} lines`);
    assert.equal(r.backtrace[0], 'h at bt.scm:1:27');
    // V8 keeps the innermost 60 JS frames: the count of the line they end in is a lower bound
    assert.match(r.backtrace[1], /^h at bt\.scm:1:59 \(×\d+\+?\)$/);
    assert.ok(Number(/×(\d+)/.exec(r.backtrace[1])?.[1]) > 99_000, r.backtrace[1]);
    // (h 100000) is k's tail call: no frame of its own; the 40 activations of k are exact
    assert.equal(r.backtrace[2], 'k at bt.scm:2:44 (×40)');
    assert.equal(r.backtrace.length, 3, '(k 40) is the top level\'s tail call');
  });

  test('more than 30 different lines: the first 30 and a count of the rest', async () => {
    const { r } = await runRaw(`(define (a n) (if (= n 0) (car 0) (+ 1 (b (- n 1)))))\n(define (b n) (+ 2 (a n)))\n(a 20)`);
    assert.equal(r.backtrace.length, 31);
    assert.equal(r.backtrace[0], 'a at bt.scm:1:27');
    assert.equal(r.backtrace[1], 'b at bt.scm:2:20');
    assert.equal(r.backtrace[2], 'a at bt.scm:1:40');
    // 42 activations: a 21 times, b 20 times, and the top level (its tail call to a
    // is still a JS frame: the stretch of the stack not yet unwound shows tail calls too)
    assert.equal(r.backtrace[30], '… 12 more frames');
  });

  test('a raised value that is not an error object: the backtrace of the raise, and where in the message', async () => {
    const { r } = await runRaw(`(define (f) (raise 'boom) 1)\n(define (g) (+ 1 (f)))\n(g)`);
    assert.equal(r.message, 'uncaught exception: boom (raised at bt.scm:1:13)');
    assert.deepEqual(r.backtrace, ['f at bt.scm:1:13', 'g at bt.scm:2:18', 'top level of bt.scm at bt.scm:3:1']);
  });

  test('a receive that timed out says which one', async () => {
    const { r } = await runRaw(`(define (wait-reply) (+ 1 (? 0.02)))\n(wait-reply)`);
    assert.equal(r.message, 'uncaught exception: timeout (raised at bt.scm:1:27)');
  });

  test('an error caught by guard keeps its backtrace (what a REPL shows for its last error)', async () => {
    await withNode(async (h) => {
      const r = await h.node.runProgram(`(define (f x) (+ 1 (vector-ref x 3)))\n(guard (e (#t e)) (f (vector 1 2)))`, { file: 'g.scm' });
      assert.equal(r.ok, true);
      // then guard's own machinery (from the runtime library, without locations)
      assert.deepEqual(r.value.schemeBacktrace.slice(0, 2), ['f at g.scm:1:20', '(anonymous procedure) at g.scm:2:19']);
    });
  });

  test('an unwatched process that dies: the log line has the offending value and the frames', async () => {
    const { r, log } = await runRaw(
      `(define (worker l) (+ 1 (car l)))
(define p (spawn (lambda () (worker 2))))
(let wait ((n 0)) (if (and (process-alive? p) (< n 1000000)) (wait (+ n 1))))`,
    );
    assert.equal(r.ok, true);
    const line = log.find((l) => /died:/.test(l)) ?? '';
    assert.match(line, /^process \d+ died: car: expected a pair: 2 \(at bt\.scm:1:25\)\n {2}in worker at bt\.scm:1:25\n {2}in \(anonymous procedure\) at bt\.scm:2:29$/, line);
  });
});

test('the dashboard snapshot keeps the last logged deaths, with their frames, at most 8', async () => {
  const { createNode: make } = await import('../src/index.js');
  const node = /** @type {any} */ (await make({ stdout: () => {}, log: () => {} }));
  try {
    const r = await node.runProgram(
      `(define (worker l) (+ 1 (car l)))
(define ps (let loop ((i 0) (acc '())) (if (= i 10) acc (loop (+ i 1) (cons (spawn (lambda () (worker i))) acc)))))
(define (any-alive? l) (cond ((null? l) #f) ((process-alive? (car l)) #t) (else (any-alive? (cdr l)))))
(let wait ((n 0)) (if (and (any-alive? ps) (< n 1000000)) (wait (+ n 1))))`,
      { file: 'd.scm' },
    );
    assert.equal(r.ok, true, r.message);
    const deaths = node.snapshot().deaths;
    assert.equal(deaths.length, 8);
    assert.match(deaths[7].text, /^process \d+ died: car: expected a pair: 9 \(at d\.scm:1:25\)\n {2}in worker at d\.scm:1:25/);
    assert.match(deaths[7].pid, /^\d+@/);
  } finally {
    node.stop();
  }
});
