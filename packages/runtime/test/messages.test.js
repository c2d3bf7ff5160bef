// @ts-check
/**
 * Sending and receiving (docs/processes.md, "The Termite API"). Receive timeouts with and without a
 * default, selective receive (skipped messages stay, in order), every recv pattern kind,
 * `where` and `after`, `!?` with a timeout, tags, pids (printable, equal? and eqv? after
 * a round trip), message isolation (copy on send), exceptions (catch, handle, guard),
 * and standard output as a process (output in arrival order).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { schemeOut, runScheme, SHOW } from './harness.js';

/** Run a program (with `show`) and compare its output with the expected lines. */
async function expectLines(/** @type {string} */ program, /** @type {string[]} */ lines) {
  const out = await schemeOut(SHOW + program);
  assert.deepEqual(out.split('\n').slice(0, -1), lines);
}

describe('receive timeouts', () => {
  test('? without a message: the default after the timeout, or the symbol timeout raised', async () => {
    await expectLines(
      `(show (? 0.02 'default))
       (show (catch (lambda (e) (list 'raised e)) (? 0.02)))
       (show (? 0 #f))
       (! (self) 'here)
       (show (? 0 'none))
       (show (timeout? (catch (lambda (e) e) (? 0))))`,
      ['default', '(raised timeout)', '#f', 'here', '#t'],
    );
  });

  test('a timeout is waited for, not skipped: (? 0.1) takes at least 100 ms', async () => {
    await expectLines(
      `(define t0 (current-jiffy))
       (? 0.1 #f)
       (show (>= (- (current-jiffy) t0) (* 0.09 (jiffies-per-second))))`,
      ['#t'],
    );
  });

  test('a message arriving before the timeout is returned', async () => {
    await expectLines(
      `(define me (self))
       (spawn (lambda () (sleep 0.02) (! me 'late-but-in-time)))
       (show (? 5 'timed-out))`,
      ['late-but-in-time'],
    );
  });

  test('?? with timeout and default, and raising timeout without one', async () => {
    await expectLines(
      `(! (self) 2)
       (show (?? odd? 0.02 'no-odd))
       (show (catch (lambda (e) e) (?? odd? 0.02)))
       (show (? 0))`,
      ['no-odd', 'timeout', '2'],
    );
  });

  test('recv with (after seconds body ...), including after alone and after 0', async () => {
    await expectLines(
      `(show (recv (after 0.02 'only-after)))
       (show (recv (x x) (after 0 'empty-mailbox)))
       (! (self) 'm)
       (show (recv (x (list 'got x)) (after 0 'empty-mailbox)))
       (show (catch (lambda (e) e) (recv (x x) (after 0.01 (raise 'timeout)))))`,
      ['only-after', 'empty-mailbox', '(got m)', 'timeout'],
    );
  });

  test('a bad timeout is a clear error', async () => {
    await expectLines(
      `(show (catch (lambda (e) (error-object? e)) (? -1)))
       (show (catch (lambda (e) (error-object? e)) (? 'soon)))`,
      ['#t', '#t'],
    );
  });
});

describe('selective receive', () => {
  test('the paper’s example: (?) (?? odd?) (?) ⇒ 1 3 2', async () => {
    await expectLines(`(! (self) 1) (! (self) 2) (! (self) 3) (show (list (?) (?? odd?) (?)))`, ['(1 3 2)']);
  });

  test('unmatched messages stay in the mailbox in their order', async () => {
    await expectLines(
      `(for-each (lambda (x) (! (self) x)) '(a 1 b 2 c 3 d))
       (show (?? number?) (?? number?))
       (show (recv ((? symbol? ) 'never) (3 'three)))
       (show (? 0) (? 0) (? 0) (? 0) (? 0 'empty))`,
      ['1 2', 'three', 'a b c d empty'],
    );
  });

  test('a message that arrives while waiting is checked; the skipped ones stay', async () => {
    await expectLines(
      `(define me (self))
       (! me 'skip-1)
       (spawn (lambda () (! me 'skip-2) (! me '(wanted 42))))
       (show (recv (('wanted n) n)))
       (show (? 0) (? 0) (? 0 'empty))`,
      ['42', 'skip-1 skip-2 empty'],
    );
  });

  test('10,000 skipped messages, then the wanted one', async () => {
    await expectLines(
      `(do ((i 0 (+ i 1))) ((= i 10000)) (! (self) i))
       (! (self) 'wanted)
       (show (?? symbol?))
       (show (let loop ((k 0) (ok #t)) (if (= k 10000) ok (loop (+ k 1) (and ok (= (? 0) k))))))`,
      ['wanted', '#t'],
    );
  });
});

describe('recv patterns', () => {
  test('identifiers bind, _ matches anything, a repeated identifier must be equal?', async () => {
    await expectLines(
      `(! (self) '(1 2 3))
       (show (recv ((a _ c) (list a c))))
       (! (self) '(x y))
       (! (self) '(z z))
       (show (recv ((a a) (list 'same a))))
       (show (? 0))`,
      ['(1 3)', '(same z)', '(x y)'],
    );
  });

  test('quoted data and literals match by equal?', async () => {
    await expectLines(
      `(define (kind m)
         (! (self) m)
         (recv ('sym 'symbol) ('(a (b)) 'quoted-list) (42 'integer) (2.5 'float) ("str" 'string)
               (#\\c 'char) (#t 'true) (#f 'false) (() 'empty) (#(1 2) 'vector-pattern)
               (_ 'other)))
       (show (map kind (list 'sym (list 'a (list 'b)) 42 2.5 (string #\\s #\\t #\\r) #\\c #t #f '() (vector 1 2) 'other)))
       ;; equal?, not eqv?: 42 and 42.0 differ
       (show (kind 42.0))`,
      ['(symbol quoted-list integer float string char true false empty vector-pattern other)', 'other'],
    );
  });

  test(',expr matches the value of an expression of the enclosing scope', async () => {
    await expectLines(
      `(define wanted (list 'k 1))
       (define n 5)
       (! (self) '(k 0))
       (! (self) '(k 1))
       (! (self) 6)
       (show (recv (,wanted 'matched-variable)))
       (show (recv (,(+ n 1) 'matched-expression)))
       (show (? 0))`,
      ['matched-variable', 'matched-expression', '(k 0)'],
    );
  });

  test('nested lists, dotted tails and vectors', async () => {
    await expectLines(
      `(! (self) '(req (3 4) extra more))
       (! (self) (vector 'point 1 2))
       (show (recv (('req (x y) . rest) (list (* x y) rest))))
       (show (recv (#('point x y) (+ x y))))`,
      ['(12 (extra more))', '3'],
    );
  });

  test('(where guard) sees the pattern variables; a failing guard tries the next clause', async () => {
    await expectLines(
      `(for-each (lambda (x) (! (self) x)) '(-1 5 50))
       (define (classify)
         (recv (n (where (> n 10)) (list 'big n))
               (n (where (> n 0)) (list 'small n))))
       (show (classify) (classify))
       (show (? 0))`,
      ['(small 5) (big 50)', '-1'],
    );
  });

  test('the first clause that matches the oldest matching message wins', async () => {
    await expectLines(
      `(! (self) '(b 1))
       (! (self) '(a 2))
       (show (recv (('a n) (list 'a n)) (('b n) (list 'b n))))`,
      ['(b 1)'],
    );
  });

  test('match has the same patterns, and an error when no clause matches', async () => {
    await expectLines(
      `(show (match '(1 (2 3)) ((a (b c)) (+ a b c))))
       (show (match 7 (n (where (even? n)) 'even) (n 'odd)))
       (show (catch (lambda (e) (error-object-message e)) (match 1 (2 'two))))`,
      ['6', 'odd', '"match: no clause matches"'],
    );
  });
});

describe('!? and tags', () => {
  test('!? sends (self tag msg) and waits for (tag reply)', async () => {
    await expectLines(
      `(define server (spawn (lambda () (let loop () (recv ((from tag ('add a b)) (! from (list tag (+ a b))))) (loop)))))
       (show (!? server '(add 21 21)))`,
      ['42'],
    );
  });

  test('!? with a timeout: the default, or timeout raised; a late reply does not confuse the next call', async () => {
    await expectLines(
      `(define slow (spawn (lambda ()
         (let loop ()
           (recv ((from tag ('after s v)) (sleep s) (! from (list tag v))))
           (loop)))))
       (show (!? slow '(after 0.1 late) 0.01 'gave-up))
       (show (catch (lambda (e) e) (!? slow '(after 0.1 late) 0.01)))
       (show (!? slow '(after 0 fresh) 5))`,
      ['gave-up', 'timeout', 'fresh'],
    );
  });

  test('tags are unique, printable, and equal? to themselves after a round trip', async () => {
    const out = await schemeOut(
      `${SHOW}
       (define t1 (make-tag))
       (define t2 (make-tag))
       (define echo (spawn (lambda () (let ((m (?))) (! (car m) (cdr m))))))
       (! echo (cons (self) t1))
       (define back (?))
       (show (equal? t1 t2) (equal? back t1) (eqv? back t1) (tag? back) (tag? 'x))
       (show t1)`,
    );
    assert.match(out, /^#f #t #t #t #f\n#<tag \d+@[0-9a-f]+>\n$/);
  });
});

describe('pids', () => {
  test('a pid is printable', async () => {
    const out = await schemeOut(`(write (self)) (newline) (display (spawn (lambda () 1)))`);
    assert.match(out, /^#<pid \d+@[0-9a-f]+>\n#<pid \d+@[0-9a-f]+>$/);
  });

  test('a pid sent in a message and back is equal? and eqv? to the original', async () => {
    const out = await schemeOut(
      `${SHOW}
       (define p (spawn (lambda () (let ((m (?))) (! (car m) (list (self) (cdr m)))))))
       (! p (cons (self) (self)))
       (define reply (?))
       (show (equal? (car reply) p) (eqv? (car reply) p) (equal? (cadr reply) (self)) (eqv? (cadr reply) (self)))
       (show (pid? p) (pid? 'p) (equal? p (self)))
       (show (and (memv p (list (self) p)) #t) (cdr (assv p (list (cons p 'found)))))`,
    );
    assert.equal(out, '#t #t #t #t\n#t #f #f\n#t found\n');
  });

  test('self, process-alive? and a message to a finished process (silently dropped)', async () => {
    await expectLines(
      `(define p (spawn (lambda () 'done)))
       (let wait () (if (process-alive? p) (wait)))
       (! p 'into-the-void)
       (show (process-alive? p) (process-alive? (self)))`,
      ['#f #t'],
    );
  });
});

describe('message isolation (copy on send)', () => {
  const ECHO = `(define me (self))
    (define echo (spawn (lambda () (let loop () (let ((m (?))) (! (car m) (cdr m)) (loop))))))
    (define (round-trip x) (! echo (cons me x)) (?))
  `;

  test('a vector sent and then mutated by the sender is unchanged for the receiver', async () => {
    await expectLines(
      `(define v (vector 1 2 3))
       (define keeper (spawn (lambda () (let ((got (?))) (recv ((from 'show) (! from got)))))))
       (! keeper v)
       (vector-set! v 0 'mutated)
       (! keeper (list (self) 'show))
       (show (?) v)`,
      ['#(1 2 3) #(mutated 2 3)'],
    );
  });

  test('what the receiver mutates is its own copy', async () => {
    await expectLines(
      `${ECHO}
       (define v (list 1 (vector 2 3)))
       (define mutator (spawn (lambda () (let ((m (?))) (vector-set! (cadr (cdr m)) 0 'x) (! (car m) (cdr m))))))
       (! mutator (cons me v))
       (show (?) v)`,
      ['(1 #(x 3)) (1 #(2 3))'],
    );
  });

  test('bytevectors, records and closures over mutable variables are copied', async () => {
    await expectLines(
      `${ECHO}
       (define bv (bytevector 1 2))
       (define bv2 (round-trip bv))
       (bytevector-u8-set! bv 0 99)
       (define-record-type point (make-point x y) point? (x point-x set-point-x!) (y point-y))
       (define pt (make-point 1 2))
       (define pt2 (round-trip pt))
       (set-point-x! pt 100)
       (define counter (let ((n 0)) (lambda () (set! n (+ n 1)) n)))
       (define counter2 (round-trip counter))
       (counter) (counter)
       (show bv2 (point-x pt2) (point? pt2) (counter2) (counter))`,
      ['#u8(1 2) 1 #t 1 3'],
    );
  });

  test('cycles are copied: a circular list arrives circular, as a new object', async () => {
    await expectLines(
      `${ECHO}
       (define c (list 1 2 3))
       (set-cdr! (cddr c) c)
       (define c2 (round-trip c))
       (show (eq? c2 c) (car c2) (cadr c2) (caddr c2) (eq? (cdddr c2) c2))
       (define v (vector 'self))
       (vector-set! v 0 v)
       (define v2 (round-trip v))
       (show (eq? v2 v) (eq? (vector-ref v2 0) v2))`,
      ['#f 1 2 3 #t', '#f #t'],
    );
  });

  test('a long list (100,000 elements) is copied without deep recursion', async () => {
    await expectLines(`${ECHO} (define l (let loop ((i 0) (acc '())) (if (= i 100000) acc (loop (+ i 1) (cons i acc))))) (define l2 (round-trip l)) (show (equal? l l2) (eq? l l2))`, ['#t #f']);
  });

  // BUG (copy.js, reported to the lead): the fast path of copyMessage copies frozen
  // literal constants and does not keep sharing inside a small message.
  //   (define lit '(a b c)) (! echo (cons me lit)) → the echoed list is not eq? to lit
  //   (define s (list 'x)) (! echo (cons me (list s s))) → (eq? (car m) (cadr m)) is #f
  test('immutable data is shared, not copied: literals, strings, symbols; sharing inside a message is kept', async () => {
    await expectLines(
      `${ECHO}
       (define lit '(a (b c) #(1 2)))
       (define str (symbol->string (quote abcd))) ; an immutable string (string-append makes mutable ones, which are copied)
       (define shared (list 'x))
       (show (eq? (round-trip lit) lit) (eq? (round-trip str) str) (eq? (round-trip 'sym) 'sym))
       (define m (round-trip (list shared shared)))
       (show (eq? (car m) (cadr m)) (eq? (car m) shared))`,
      ['#t #t #t', '#t #f'],
    );
  });

  test('literal constants cannot be mutated (so sharing them is safe)', async () => {
    await expectLines(
      `(define lit '(a b))
       (show (catch (lambda (e) (error-object? e)) (set-car! lit 'z)))
       (show lit)`,
      ['#t', '(a b)'],
    );
  });
});

describe('exceptions', () => {
  test('catch resumes where the handler was installed, handle where the exception was raised', async () => {
    await expectLines(
      `(show (catch (lambda (e) e) (raise 42) 123))
       (show (handle (lambda (e) e) (raise 42) 123))
       (show (handle (lambda (e) (* e 2)) (+ 1 (raise 20))))
       (show (catch (lambda (e) (list 'outer e)) (catch (lambda (e) (raise (list 'again e))) (raise 'inner))))`,
      ['42', '123', '41', '(outer (again inner))'],
    );
  });

  test('R7RS guard and with-exception-handler work in processes; errors are error objects', async () => {
    await expectLines(
      `(show (guard (e ((symbol? e) (list 'sym e)) ((error-object? e) (error-object-message e))) (raise 'oops)))
       (show (guard (e ((error-object? e) (list (error-object-message e) (error-object-irritants e)))) (error "bad thing" 1 2)))
       (show (with-exception-handler (lambda (e) 10) (lambda () (+ 1 (raise-continuable 'c)))))
       (define me (self))
       (spawn (lambda () (! me (guard (e (#t (list 'child-caught e))) (car '())))))
       (show (car (?)))`,
      ['(sym oops)', '("bad thing" (1 2))', '11', 'child-caught'],
    );
  });

  test('an uncaught exception ends the process that raised it, and no other', async () => {
    const r = await runScheme(`${SHOW}
       (define me (self))
       (define p (spawn (lambda () (car 1))))
       (let wait () (if (process-alive? p) (wait)))
       (show 'main-still-here (process-alive? p))`);
    assert.ok(r.ok, r.message);
    assert.equal(r.out, 'main-still-here #f\n');
    assert.ok(r.log.some((l) => /died: car/.test(l)), `log: ${r.log.join('\n')}`);
  });

  test('an uncaught exception in the main process is reported with its message', async () => {
    const r = await runScheme(`(car 5)`);
    assert.equal(r.ok, false);
    assert.match(r.message, /car/);
    assert.match(r.message, /pair/);
  });
});

describe('standard output is a process', () => {
  test('output from several processes appears in the order it reached the stdout process', async () => {
    // Each process prints a line (one display call) and then tells main it printed. Main
    // records the order of the "printed" messages: the output must be in the same order.
    const out = await schemeOut(`
      (define me (self))
      (define n 50)
      (do ((i 0 (+ i 1))) ((= i n))
        (spawn (lambda ()
                 (let loop ((k (* i 37))) (if (> k 0) (loop (- k 1))))   ; uneven work
                 (display (string-append "line " (number->string i) "\\n"))
                 (! me i))))
      (define order (let loop ((k 0) (acc '())) (if (= k n) (reverse acc) (loop (+ k 1) (cons (?) acc)))))
      (display "order")
      (for-each (lambda (i) (display " ") (display i)) order)
      (newline)`);
    const lines = out.split('\n');
    const order = lines[lines.length - 2].split(' ').slice(1);
    assert.equal(order.length, 50);
    assert.deepEqual(
      lines.slice(0, 50),
      order.map((i) => `line ${i}`),
    );
  });

  test('causal order: a child prints, then tells the parent, which prints', async () => {
    const out = await schemeOut(`
      (define me (self))
      (define (chain k)
        (if (> k 0)
            (begin (spawn (lambda () (display k) (display " ") (! me 'go))) (recv ('go #t)) (chain (- k 1)))))
      (chain 5)
      (display "liftoff")`);
    assert.equal(out, '5 4 3 2 1 liftoff');
  });

  test('print, println, write and newline go through the same process', async () => {
    const out = await schemeOut(`(print "a" 1 'b) (println " c") (write "q") (newline) (write-char #\\z) (write-string "!")`);
    assert.equal(out, 'a1b c\n"q"\nz!');
  });

  test('a process that parameterizes its output port writes there, not to stdout', async () => {
    await expectLines(
      `(define s (parameterize ((current-output-port (open-output-string)))
                   (display "captured")
                   (get-output-string (current-output-port))))
       (show s)`,
      ['"captured"'],
    );
  });
});
