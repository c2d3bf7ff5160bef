// @ts-check
/**
 * Calls that never hang silently (docs/processes.md, "`!?`: a call and its failures"),
 * on one node: `!?` to a process that is not alive, that dies or is terminated while
 * the caller waits, or that ends without answering, ends at once with an error saying
 * which (or with the default, when one was given); an answered call leaves no notice
 * behind in the caller's mailbox; generic-server-call, built on `!?`, does the same; the
 * README's migrate snippet on a node without a mesh ends with an error instead of
 * waiting for ever. (Across nodes: node-daemon/test/rpc-hangs.test.js.)
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { runScheme, SHOW } from './harness.js';

/** Each case must end well within this (the harness's own bound is 20 s). */
const QUICK_MS = 5_000;

/** @param {string} program */
async function outcome(program) {
  const t0 = performance.now();
  const r = await runScheme(SHOW + program, { limitMs: QUICK_MS });
  return { ...r, ms: performance.now() - t0 };
}

/** Show what a call raised: its kind of error and message. */
const CAUGHT = `(define-syntax caught
  (syntax-rules () ((_ e) (catch (lambda (x) (if (error-object? x) (list 'error (error-object-message x)) (list 'raised x))) e))))`;

describe('!? to a target that cannot answer', () => {
  test('a process that is not alive: an error at once', async () => {
    const r = await outcome(`${CAUGHT}
      (define p (spawn (lambda () 'done)))
      (let wait ((n 0)) (if (and (process-alive? p) (< n 1000000)) (wait (+ n 1))))
      (show (caught (!? p 'hello)))`);
    assert.ok(r.ok, r.message);
    assert.equal(r.out, '(error "the process is not alive")\n');
  });

  test('a process that dies while the caller waits: its error is in the caller\'s', async () => {
    const r = await outcome(`${CAUGHT}
      (define q (spawn (lambda () (?) (car 2))))
      (show (caught (!? q 'hello)))`);
    assert.ok(r.ok, r.message);
    assert.match(r.out, /^\(error "the process died before it answered \(car: expected a pair: 2 \(at test-\d+\.scm:\d+:\d+\)\)"\)\n$/);
  });

  test('a process that returns without answering, or is terminated', async () => {
    const r = await outcome(`${CAUGHT}
      (define q (spawn (lambda () (?) 'bye)))
      (show (caught (!? q 'hello)))
      (define me (self))
      (define t (spawn (lambda () (! me 'ready) (? 100))))
      (?)
      (spawn (lambda () (terminate! t)))
      (show (caught (!? t 'hello)))`);
    assert.ok(r.ok, r.message);
    assert.equal(r.out, '(error "the process ended before it answered")\n(error "the process was terminated before it answered")\n');
  });

  test('with a default, the default: no answer can come', async () => {
    const r = await outcome(`
      (define q (spawn (lambda () (?) 'bye)))
      (show (!? q 'hello 10 'no-answer))`);
    assert.ok(r.ok, r.message);
    assert.equal(r.out, 'no-answer\n');
    assert.ok(r.ms < QUICK_MS, `${r.ms} ms: the default came at the end, not after the 10 s timeout`);
  });

  test('uncaught: the program ends with the error, the call and its location', async () => {
    const r = await outcome(`(define p (spawn (lambda () 'done)))
      (let wait ((n 0)) (if (and (process-alive? p) (< n 1000000)) (wait (+ n 1))))
      (!? p 'hello)`);
    assert.equal(r.ok, false);
    // line 3 of the program, after the 5 lines of SHOW
    assert.match(r.message, /^!\?: the process is not alive: #<pid \d+@[0-9a-f]+> \(at test-\d+\.scm:8:7\)$/);
  });

  test('generic-server-call to a server that stopped: an error, not a wait', async () => {
    const r = await outcome(`${CAUGHT}
      (define s (spawn (lambda () (let ((m (?))) (! (car m) (list (cadr m) 'pong))))))
      (show (!? s 'ping))
      (show (caught (generic-server-call s 'again)))`);
    assert.ok(r.ok, r.message);
    // it has ended by the second call, or ends while the caller waits
    assert.match(r.out, /^pong\n\(error "the process (is not alive|ended before it answered)"\)\n$/);
  });
});

describe('!? that is answered', () => {
  test('leaves no notice in the mailbox, even when the target ends right after answering', async () => {
    const r = await outcome(`
      (define (answer-once) (let ((m (?))) (! (car m) (list (cadr m) 'ok))))
      (define answers
        (let loop ((i 0) (acc '()))
          (if (= i 50) acc (loop (+ i 1) (cons (!? (spawn answer-once) i) acc)))))
      (show (length answers) (car answers))
      (! (self) 'only-this)
      (show (? 0 'empty) (? 0 'empty))`);
    assert.ok(r.ok, r.message);
    assert.equal(r.out, '50 ok\nonly-this empty\n');
  });

  test('a timeout still raises timeout, and the monitor is gone with it', async () => {
    const r = await outcome(`${CAUGHT}
      (define silent (spawn (lambda () (recv (('never) #t)))))
      (show (caught (!? silent 'x 0.02)))
      (terminate! silent)
      (show (? 0.05 'nothing-came))`);
    assert.ok(r.ok, r.message);
    assert.equal(r.out, '(raised timeout)\nnothing-came\n');
  });
});

test("the README's migrate snippet on a node without a mesh ends with an error", async () => {
  const r = await outcome(`
(define other (make-node "127.0.0.1" 7400))
(define counter
  (spawn (lambda ()
    (let loop ((n 0))
      (recv ((from tag 'next) (! from (list tag n)) (loop (+ n 1)))
            (('move-to node) (migrate node) (loop n)))))))
(show (!? counter 'next))
(! counter (list 'move-to other))
(!? counter 'next)`);
  assert.equal(r.out, '0\n');
  assert.equal(r.ok, false);
  assert.match(r.message, /^!\?: the process died before it answered \(migrate: this node is not part of a mesh/);
  assert.ok(r.log.some((l) => /died: migrate: this node is not part of a mesh/.test(l)), r.log.join('\n'));
});
