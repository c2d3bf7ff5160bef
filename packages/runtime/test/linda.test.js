// @ts-check
/**
 * Local Linda on the C core's tuple store (docs/linda.md). out/in/rd/inp/rdp, formals of
 * every type, exact integers never match floats, named spaces, blocking (a process in
 * in/rd is woken by the matching out; rd wakes every reader), timeouts, tuple-count,
 * spawn-tuple (Linda's eval), the asynchronous operations, and bad input (clear,
 * catchable errors; the node keeps working).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { schemeOut, withNode, SHOW } from './harness.js';

/** @param {string} program @param {string[]} lines */
async function expectLines(program, lines) {
  const out = await schemeOut(SHOW + program);
  assert.deepEqual(out.split('\n').slice(0, -1), lines);
}

/** Scheme: the message of an error object (or the raised value). */
const MSG = `(define (msg e) (if (error-object? e) (error-object-message e) (list 'raised e)))\n`;

describe('the operations', () => {
  test('out, then in removes, rd copies, inp/rdp never block', async () => {
    await expectLines(
      `(out 'point 1 2)
       (show (rd 'point ?integer ?integer))
       (show (rdp 'point 1 ?any) (tuple-count 'point ?any ?any))
       (show (in 'point 1 ?integer))
       (show (inp 'point ?any ?any) (rdp 'point ?any ?any) (tuple-count 'point ?any ?any))`,
      ['(point 1 2)', '(point 1 2) 1', '(point 1 2)', '#f #f 0'],
    );
  });

  test('a tuple comes back as a list of its fields, any data included', async () => {
    await expectLines(
      `(out "P" 5 #f '(nested (list)) (vector 1 "two" 'three) (bytevector 9) 1/3 -2.5 #\\x "")
       (show (in "P" ?integer ?boolean ?list ?vector ?bytes ?number ?float ?any ?string))`,
      ['("P" 5 #f (nested (list)) #(1 "two" three) #u8(9) 1/3 -2.5 #\\x "")'],
    );
  });

  test('structured naming: actuals anywhere in the template select the tuple', async () => {
    await expectLines(
      `(out "P" 6 15) (out "P" 6 12) (out "Q" 6 15)
       (show (in "P" ?integer 15))
       (show (inp "P" ?integer 15) (tuple-count "P" ?integer ?integer))`,
      ['("P" 6 15)', '#f 1'],
    );
  });

  test('the number of fields is part of the match', async () => {
    await expectLines(
      `(out 'a 1) (out 'a 1 2) (out 'a)
       (show (tuple-count 'a) (tuple-count 'a ?any) (tuple-count 'a ?any ?any) (tuple-count 'a ?any ?any ?any))`,
      ['1 1 1 0'],
    );
  });

  test('the same tuple several times: each in removes one', async () => {
    await expectLines(
      `(out 'x) (out 'x) (out 'x)
       (show (tuple-count 'x))
       (in 'x) (in 'x)
       (show (tuple-count 'x) (inp 'x) (inp 'x))`,
      ['3', '1 (x) #f'],
    );
  });

  test('what in returns is the process’s own copy', async () => {
    await expectLines(
      `(define v (vector 1 2))
       (out 'v v)
       (vector-set! v 0 'changed)
       (define got (cadr (rd 'v ?vector)))
       (vector-set! got 1 'mine)
       (show v got (rd 'v ?vector))`,
      ['#(changed 2) #(1 mine) (v #(1 2))'],
    );
  });
});

describe('formals', () => {
  const TUPLES = `
    (for-each (lambda (v) (out 'v v))
              (list 1 -7 1.0 100000000000000000000000 1/3 "s" 'sym (bytevector 1) #t #f (vector 1) '() '(1 2) #\\c '(1 . 2)))
  `;

  test('each formal type matches exactly the fields of its type', async () => {
    await expectLines(
      `${TUPLES}
       (define (values-matching f)
         (let loop ((acc '()))
           (let ((t (inp 'v f)))
             (if t (loop (cons (cadr t) acc))
                 (begin (for-each (lambda (x) (out 'v x)) acc) (length acc))))))
       (show (map values-matching
                  (list ?any ?integer ?number ?float ?string ?symbol ?bytes ?boolean ?vector ?null ?list)))`,
      // any: 15; integer: 1 -7 bignum; number: those + 1.0 1/3; float: 1.0; string; symbol;
      // bytes; boolean: #t #f; vector; null: (); list: (1 2) (proper, non-empty)
      ['(15 3 5 1 1 1 1 2 1 1 1)'],
    );
  });

  test('(formal type) builds the same formals; tagged formals match by CBOR tag', async () => {
    await expectLines(
      `${TUPLES}
       (show (equal? (formal 'integer) ?integer) (formal? ?any) (formal? 'any))
       (show (tuple-count 'v (formal 'tagged 40961))    ; characters
             (tuple-count 'v (formal 'tagged 40963))    ; improper lists
             (tuple-count 'v (formal 'tagged 30))       ; exact rationals
             (tuple-count 'v (formal 'array))           ; vectors, by the wire name
             (tuple-count 'v (formal 'list)))`,
      ['#t #t #f', '1 1 1 1 1'],
    );
  });

  test('an exact integer never matches a float, nor a float an integer (1 vs 1.0)', async () => {
    await expectLines(
      `(out 'n 1)
       (show (rdp 'n 1.0) (rdp 'n ?float) (rdp 'n 1) (rdp 'n ?integer))
       (in 'n 1)
       (out 'n 1.0)
       (show (rdp 'n 1) (rdp 'n ?integer) (rdp 'n 1.0) (rdp 'n ?float))
       (out 'n 2/4)
       (show (rdp 'n 1/2) (rdp 'n 0.5))`,
      ['#f #f (n 1) (n 1)', '#f #f (n 1.0) (n 1.0)', '(n 1/2) #f'],
    );
  });

  test('actuals match by equal? data, not identity: lists, vectors, strings, bignums', async () => {
    await expectLines(
      `(out 'k (list 1 (vector 2 "x")) 123456789012345678901234567890)
       (show (rdp 'k (list 1 (vector 2 (string #\\x))) (* 12345678901234567890123456789 10)))`,
      ['(k (1 #(2 "x")) 123456789012345678901234567890)'],
    );
  });

  test('formals are values: a template can be built and passed around', async () => {
    await expectLines(
      `(define template (list 'job ?integer ?string))
       (out 'job 1 "render")
       (show (apply rd template))
       (show (apply in template))
       ;; a stored template is data
       (out 'saved template)
       (show (rd 'saved ?list))`,
      ['(job 1 "render")', '(job 1 "render")', '(saved (job #<formal integer> #<formal string>))'],
    );
  });
});

describe('spaces', () => {
  test('named spaces are independent of each other and of the default space', async () => {
    await expectLines(
      `(define s1 (make-space 'one))
       (define s2 (make-space "two"))
       (out s1 'k 1) (out s2 'k 2) (out 'k 0)
       (show (rdp s1 'k ?any) (rdp s2 'k ?any) (rdp 'k ?any) (rdp (default-space) 'k ?any))
       (show (tuple-count s1 'k ?any) (inp s1 'k 2) (inp s2 'k 1))
       (show (equal? s1 (make-space 'one)) (equal? s1 s2) (space? s1) (space? 'one))`,
      ['(k 1) (k 2) (k 0) (k 0)', '1 #f #f', '#t #f #t #f'],
    );
  });

  test('a space handle sent to another process names the same space', async () => {
    await expectLines(
      `(define s (make-space 'shared))
       (define me (self))
       (define child (spawn (lambda () (let ((sp (?))) (out sp 'from-child 2) (! me 'done)))))
       (! child s)
       (recv ('done #t))
       (show (in s 'from-child ?integer))`,
      ['(from-child 2)'],
    );
  });
});

describe('blocking', () => {
  test('a process blocked in in is woken by the matching out (and not by others)', async () => {
    await expectLines(
      `(define me (self))
       (define waiter (spawn (lambda () (! me 'waiting) (! me (list 'got (in 'job ?integer))))))
       (recv ('waiting #t))
       (out 'job "not an integer")
       (out 'other 1)
       (show (? 0.05 'still-blocked))
       (out 'job 7)
       (show (?))
       (show (tuple-count 'job ?any))`,
      ['still-blocked', '(got (job 7))', '1'],
    );
  });

  test('rd wakes every reader; in then takes the tuple once', async () => {
    await expectLines(
      `(define me (self))
       (define (reader k) (spawn (lambda () (! me 'ready) (! me (list k (rd 'flag ?symbol))))))
       (for-each reader '(1 2 3 4 5 6 7 8 9 10))
       (let wait ((n 0)) (if (< n 10) (recv ('ready (wait (+ n 1))))))
       (sleep 0.01)   ; the readers are now blocked in rd (or about to be: either way they see it)
       (out 'flag 'up)
       (define got (let loop ((n 0) (acc '())) (if (= n 10) acc (loop (+ n 1) (cons (?) acc)))))
       (show (length got) (list-sort < (map car got)))
       (show (tuple-count 'flag ?symbol))`,
      ['10 (1 2 3 4 5 6 7 8 9 10)', '1'],
    );
  });

  test('several processes blocked in in: each out wakes exactly one', async () => {
    await expectLines(
      `(define me (self))
       (do ((k 0 (+ k 1))) ((= k 5)) (spawn (lambda () (! me (in 'token ?integer)))))
       (do ((k 0 (+ k 1))) ((= k 3)) (out 'token k))
       (define got (list (?) (?) (?)))
       (show (list-sort < (map cadr got)) (? 0.05 'two-still-waiting) (tuple-count 'token ?any))
       (out 'token 10) (out 'token 11) (out 'token 12)
       (show (list-sort < (list (cadr (?)) (cadr (?)))) (tuple-count 'token ?any))`,
      ['(0 1 2) two-still-waiting 0', '(10 11) 1'],
    );
  });

  test('a process waiting in in lets the others run (it waits in the core, not in a loop)', async () => {
    await withNode(async ({ node, run }) => {
      const r = await run(`${SHOW}
        (define me (self))
        (do ((k 0 (+ k 1))) ((= k 1000)) (spawn (lambda () (in 'never-comes))))
        (sleep 0.05)
        (show 'main-runs)`);
      assert.ok(r.ok, r.message);
      assert.equal(r.out, 'main-runs\n');
      const { ready } = node.core.processStats();
      assert.equal(ready, 0, 'blocked processes are not ready');
    });
  });

  test('an exit signal reaches a process blocked in in', async () => {
    await expectLines(
      `(spawn-link (lambda () (sleep 0.02) (raise 'linked-died)))
       (show (catch (lambda (e) (list 'raised e)) (in 'never-comes)))`,
      ['(raised linked-died)'],
    );
  });

  test('a process terminated while blocked in in does not take a later tuple', async () => {
    await expectLines(
      `(define me (self))
       (define ghost (spawn (lambda () (in 'ghost) (! me 'ghost-took-it))))
       (sleep 0.01)
       (terminate! ghost)
       (out 'ghost)
       (show (tuple-count 'ghost) (? 0.05 'nothing))`,
      ['1 nothing'],
    );
  });

  test('in-timeout and rd-timeout: the default after the timeout, the tuple if it comes', async () => {
    await expectLines(
      `(show (in-timeout 0.02 'none 'nothing-here))
       (show (rd-timeout 0 'none 'nothing-here))
       (out 'here 1)
       (show (rd-timeout 1 'none 'here ?any) (in-timeout 0 'none 'here ?any) (tuple-count 'here ?any))
       (spawn (lambda () (sleep 0.02) (out 'later 2)))
       (show (in-timeout 5 'none 'later ?integer))
       (define s (make-space 'timed))
       (show (in-timeout 0.01 'none s 'x))`,
      ['none', 'none', '(here 1) (here 1) 0', '(later 2)', 'none'],
    );
  });

  test('tuple-count counts matching tuples without removing them', async () => {
    await expectLines(
      `(do ((i 0 (+ i 1))) ((= i 100)) (out 'item i (if (even? i) 'even 'odd)))
       (show (tuple-count 'item ?integer ?symbol) (tuple-count 'item ?integer 'even) (tuple-count 'item 3 ?any) (tuple-count 'nothing))`,
      ['100 50 1 0'],
    );
  });
});

describe('spawn-tuple (Linda’s eval)', () => {
  test('procedure fields are computed by a new process; the tuple then appears', async () => {
    await expectLines(
      `(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
       (for-each (lambda (n) (spawn-tuple 'fib n (lambda () (fib n)))) '(10 15 20))
       (show (in 'fib 20 ?integer) (in 'fib 10 ?integer) (in 'fib 15 ?integer))
       (show (pid? (spawn-tuple 'done (lambda () 'yes))) (in 'done ?symbol))`,
      ['(fib 20 6765) (fib 10 55) (fib 15 610)', '#t (done yes)'],
    );
  });

  test('the computation runs in its own process, concurrently with the caller', async () => {
    await expectLines(
      `(define me (self))
       (spawn-tuple 'who (lambda () (list (equal? (self) me))))
       (show (in 'who ?list))
       ;; a live tuple whose computation waits for something the caller does later
       (spawn-tuple 'answer (lambda () (cadr (in 'question ?integer))))
       (out 'question 41)
       (show (in 'answer ?integer))`,
      ['(who (#f))', '(answer 41)'],
    );
  });

  test('spawn-tuple into a named space', async () => {
    await expectLines(
      `(define s (make-space 'results))
       (spawn-tuple s 'sq (lambda () (* 12 12)))
       (show (in s 'sq ?integer) (inp 'sq ?any))`,
      ['(sq 144) #f'],
    );
  });
});

describe('asynchronous operations (L²imbo)', () => {
  test('in-async returns at once; poll; collect waits for the tuple', async () => {
    await expectLines(
      `(define h (in-async 'result ?integer))
       (show (async-poll h))
       (spawn (lambda () (sleep 0.02) (out 'result 42)))
       (show (async-collect h))
       (show (async-poll h) (async-collect h) (inp 'result ?any))`,
      ['#f', '(result 42)', '#t (result 42) #f'],
    );
  });

  test('a tuple already there completes the operation at once', async () => {
    await expectLines(
      `(out 'ready 1)
       (define h (in-async 'ready ?any))
       (show (async-poll h) (tuple-count 'ready ?any) (async-collect h))
       (out 'shared 2)
       (define r (rd-async 'shared ?any))
       (show (async-poll r) (async-collect r) (tuple-count 'shared ?any))`,
      ['#t 0 (ready 1)', '#t (shared 2) 1'],
    );
  });

  test('several operations in flight, collected in any order', async () => {
    await expectLines(
      `(define hs (map (lambda (i) (rd-async 'item i ?string)) '(1 2 3)))
       (out 'item 3 "three") (out 'item 1 "one") (out 'item 2 "two")
       (show (map async-collect (reverse hs)))`,
      ['((item 3 "three") (item 2 "two") (item 1 "one"))'],
    );
  });

  test('collect with a timeout: the default, and no tuple is lost afterwards', async () => {
    await expectLines(
      `(define h (in-async 'late ?any))
       (show (async-collect h 0.02 'gave-up))
       (show (catch (lambda (e) (list 'raised e)) (async-collect (in-async 'later) 0.01)))
       ;; the abandoned operations do not take tuples that come afterwards
       (out 'late 1)
       (out 'later)
       (sleep 0.02)
       (show (tuple-count 'late ?any) (tuple-count 'later))`,
      ['gave-up', '(raised timeout)', '1 1'],
    );
  });

  test('a timeout just after the tuple was handed to the helper still returns the tuple', async () => {
    await expectLines(
      `(define h (in-async 'x ?any))
       (sleep 0.01)            ; the helper is now blocked in in
       (out 'x 1)              ; the core hands it the tuple; it has not run yet
       (show (async-collect h 0 'none) (tuple-count 'x ?any))`,
      ['(x 1) 0'],
    );
  });

  test('asynchronous operations on a named space', async () => {
    await expectLines(
      `(define s (make-space 'async))
       (define h (in-async s 'job ?integer))
       (spawn (lambda () (out s 'job 5)))
       (show (async-collect h) (tuple-count s 'job ?any))`,
      ['(job 5) 0'],
    );
  });

  test('a handle belongs to the process that started the operation', async () => {
    await expectLines(
      `${MSG}
       (define me (self))
       (define h (in-async 'never))
       (spawn (lambda () (! me (catch msg (async-poll h)))))
       (show (?))
       (show (catch msg (async-collect 'not-a-handle)))`,
      ['"async-poll: this handle belongs to the process that started the operation"', '"async-collect: expected a handle from in-async or rd-async"'],
    );
  });
});

describe('asynchronous operations without a helper process', () => {
  test('an operation on a space of this node waits in the core as a record, not in a helper process', async () => {
    await withNode(async ({ node, run }) => {
      const before = node.live;
      const r = await run(`
        (define me (self))
        (spawn (lambda ()
                 (let ((hs (let loop ((i 0) (acc '())) (if (= i 50) acc (loop (+ i 1) (cons (in-async 'task i) acc))))))
                   (rd-async 'note ?any) (rd-async 'note ?any)
                   (! me (length hs))
                   (?))))
        (?)`);
      assert.ok(r.ok, r.message);
      assert.equal(r.value, 50);
      assert.equal(node.live, before + 1, '52 operations waiting cost no process beside their owner');
      assert.equal(node.spaces.get('default').waiters, 52, 'each waits in the core');
    });
  });

  test('records are served in one order with waiting processes: priority first, whatever the kind', async () => {
    await expectLines(
      `(define me (self))
       ;; a process waits first, at priority 1; then an in-async at priority 0, then one at 3
       (spawn (lambda () (with-qos 1 #f (lambda () (! me (list 'process (in 'job ?integer)))))))
       (sleep 0.01)
       (define urgent (with-qos 0 #f (lambda () (in-async 'job ?integer))))
       (define lazy (with-qos 3 #f (lambda () (in-async 'job ?integer))))
       (out 'job 1)
       (show (async-poll urgent) (async-poll lazy))
       (out 'job 2)
       (show (?))
       (out 'job 3)
       (show (async-collect urgent) (async-collect lazy) (tuple-count 'job ?any))`,
      ['#t #f', '(process (job 2))', '(job 1) (job 3) 0'],
    );
  });

  test('a process that ends with an operation waiting leaves no record, and loses no tuple', async () => {
    await withNode(async ({ node, run }) => {
      const r = await run(`
        (define me (self))
        (spawn (lambda () (in-async 'orphan ?any) (rd-async 'orphan ?any) (! me 'started)))
        (?)
        (sleep 0.01)
        (out 'orphan 1)
        (tuple-count 'orphan ?any)`);
      assert.ok(r.ok, r.message);
      assert.equal(r.value, 1, 'the tuple stays in the space');
      assert.equal(node.spaces.get('default').waiters, 0, 'the ended process\'s records were cancelled');
    });
  });
});

describe('bad input', () => {
  test('an unknown formal type is a clear error that can be caught', async () => {
    await expectLines(
      `${MSG}
       (show (catch msg (formal 'nope)))
       (show (catch msg (formal 'tagged 'x)) (catch msg (formal 'tagged -1)) (catch msg (formal 'integer 5)))`,
      [
        '"unknown formal type (expected one of any, integer, number, float, string, symbol, bytes, boolean, vector, map, null, tagged, array, list)"',
        '"a tagged formal needs a CBOR tag number (a non-negative exact integer)" "a tagged formal needs a CBOR tag number (a non-negative exact integer)" "only a tagged formal takes a tag number: (formal \'tagged n)"',
      ],
    );
  });

  test('templates and tuples that are not well formed are clear errors', async () => {
    await expectLines(
      `${MSG}
       (show (catch msg (out (quote x) (formal (quote nope)))))
       (show (catch msg (in (make-space 'empty))))
       (show (catch msg (rdp 'x (list 1 ?any))))
       (show (catch msg (in 'x (vector ?integer))))
       (show (catch msg (in-timeout 'x)))
       (show (catch msg (in-timeout -1 #f 'x)))
       (show (catch msg (make-space 42)))`,
      [
        '"unknown formal type (expected one of any, integer, number, float, string, symbol, bytes, boolean, vector, map, null, tagged, array, list)"',
        '"a tuple needs at least one field"',
        '"a formal must be a whole field of the template, not inside a list or vector (it would be matched as data)"',
        '"a formal must be a whole field of the template, not inside a list or vector (it would be matched as data)"',
        '"expected seconds, a default and at least one field"',
        '"expected a non-negative timeout in seconds"',
        '"expected a symbol or string naming the space"',
      ],
    );
  });

  test('after bad input the node keeps working: same process, other processes, same space', async () => {
    await withNode(async ({ run }) => {
      const r1 = await run(`${SHOW}${MSG}
        (out 'before 1)
        (show (catch msg (in 'x (formal 'nope))))
        (show (catch msg (out 'x ?integer)))
        (show (in 'before ?integer))
        (define me (self))
        (spawn (lambda () (out 'from-child (+ 1 1)) (! me 'ok)))
        (recv ('ok #t))
        (show (in 'from-child ?integer))`);
      assert.ok(r1.ok, r1.message);
      // an uncaught Linda error kills only the process that made it
      const r2 = await run(`(in 'x (list ?any))`);
      assert.equal(r2.ok, false);
      assert.match(r2.message, /formal must be a whole field/);
      const r3 = await run(`(out 'after 3) (display (in 'after ?integer))`);
      assert.ok(r3.ok, r3.message);
      assert.ok(r3.out.endsWith('(after 3)'), r3.out);
    });
  });
});
