// @ts-check
/**
 * Directed links and exit signals, terminate!, supervisors (restart, restart-frequency
 * limit, shutdown with and without the worker's cooperation, info lines to the log) and
 * the generic server (call, cast, reply / noreply / stop, terminate); docs/processes.md,
 * "Exceptions, links and exit signals", "Supervisors", "Generic servers".
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { schemeOut, runScheme, SHOW } from './harness.js';

/** @param {string} program @param {string[]} lines */
async function expectLines(program, lines) {
  const out = await schemeOut(SHOW + program);
  assert.deepEqual(out.split('\n').slice(0, -1), lines);
}

/** Scheme: wait (without receiving) until a process has ended. */
const WAIT_DEAD = `(define (wait-dead p) (if (process-alive? p) (wait-dead p)))\n`;

describe('links', () => {
  test('spawn-link: the child’s uncaught exception is raised in the parent at its next receive', async () => {
    await expectLines(
      `${WAIT_DEAD}
       (define p (spawn-link (lambda () (raise 'boom))))
       (wait-dead p)
       ;; the child is dead, but nothing happens to the parent until it receives
       (define (count n) (if (= n 0) 'computed (count (- n 1))))
       (show 'still-running (count 100000))
       (show (catch (lambda (e) (list 'raised-at-receive e)) (? 5 'nothing)))
       ;; one signal, raised once
       (show (? 0 'nothing-more))`,
      ['still-running computed', '(raised-at-receive boom)', 'nothing-more'],
    );
  });

  test('a process waiting in a receive is interrupted by the signal at once', async () => {
    await expectLines(
      `(define t0 (current-jiffy))
       (define p (spawn-link (lambda () (sleep 0.02) (raise 'late-boom))))
       (show (catch (lambda (e) e) (? 10 'timed-out)))
       (show (< (- (current-jiffy) t0) (* 5 (jiffies-per-second))))`,
      ['late-boom', '#t'],
    );
  });

  test('an error object travels through the link unchanged', async () => {
    await expectLines(
      `(spawn-link (lambda () (error "disk full" 'sda 93)))
       (show (catch (lambda (e) (list (error-object? e) (error-object-message e) (error-object-irritants e))) (?)))`,
      ['(#t "disk full" (sda 93))'],
    );
  });

  test('a normal exit does not propagate', async () => {
    await expectLines(
      `${WAIT_DEAD}
       (define p (spawn-link (lambda () 'finished)))
       (wait-dead p)
       (show (catch (lambda (e) (list 'raised e)) (? 0.05 'nothing)))`,
      ['nothing'],
    );
  });

  test('links are directed: outbound carries my exceptions to the other, inbound the other’s to me', async () => {
    await expectLines(
      `${WAIT_DEAD}
       (define me (self))
       ;; inbound: the worker's death reaches me
       (define w1 (spawn (lambda () (recv ('go (raise 'w1-died))))))
       (inbound-link w1)
       (! w1 'go)
       (show (catch (lambda (e) (list 'inbound e)) (? 5 'nothing)))
       ;; outbound: my death would reach w2; w2's death does not reach me
       (define w2 (spawn (lambda () (recv ('go (raise 'w2-died))))))
       (outbound-link w2)
       (! w2 'go)
       (wait-dead w2)
       (show (catch (lambda (e) (list 'outbound e)) (? 0.05 'not-told)))
       ;; and the outbound direction does carry: a process dies with an outbound link to a watcher
       (define watcher (spawn (lambda () (! me (catch (lambda (e) (list 'watcher-saw e)) (? 5 'nothing))))))
       (define dier (spawn (lambda () (outbound-link watcher) (raise 'dier-died))))
       (show (?))`,
      ['(inbound w1-died)', 'not-told', '(watcher-saw dier-died)'],
    );
  });

  test('full-link and link link both ways; unlink removes both directions', async () => {
    await expectLines(
      `${WAIT_DEAD}
       (define q (spawn (lambda () (recv ('go (raise 'q-died))))))
       (full-link q)
       (unlink q)
       (! q 'go)
       (wait-dead q)
       (show (catch (lambda (e) (list 'raised e)) (? 0.05 'unlinked)))
       (define r (spawn (lambda () (recv ('go (raise 'r-died))))))
       (link r)
       (! r 'go)
       (show (catch (lambda (e) (list 'raised e)) (? 5 'nothing)))
       ;; the other direction of link: when I die, the child is told
       (define me (self))
       (define child (spawn (lambda () (! me (catch (lambda (e) (list 'child-saw e)) (? 5 'nothing))))))
       (define middle (spawn (lambda () (link child) (! me 'linked) (? ) (raise 'middle-died))))
       (recv ('linked #t))
       (! middle 'die)
       (show (?))`,
      ['unlinked', '(raised r-died)', '(child-saw middle-died)'],
    );
  });

  test('linking to a process that has already ended raises at once (noproc), not never', async () => {
    await expectLines(
      `${WAIT_DEAD}
       (define p (spawn (lambda () 'gone)))
       (wait-dead p)
       (inbound-link p)
       (show (catch (lambda (e) (if (error-object? e) (error-object-message e) e)) (? 1 'silence)))`,
      ['"linked process is not alive"'],
    );
  });

  // BUG (termite-node/links-and-signals.js, since fixed): TermiteNode.signal() interrupts a process whose
  // `waiting` is still set although the core already made it ready (a message woke it
  // and it has not run yet); the core throws InvalidTransitionError out of the
  // scheduler loop and the whole node dies. Reproduction:
  //   (define me (self))
  //   (spawn-link (lambda () (! me 'hello) (raise 'boom)))
  //   (? 1)
  test('a linked process that sends a message and then dies, in one slice', async () => {
    await expectLines(
      `(define me (self))
       (spawn-link (lambda () (! me 'hello) (raise 'boom)))
       (show (catch (lambda (e) (list 'raised e)) (?)))
       (show (? 0 'empty))`,
      ['(raised boom)', 'hello'],
    );
  });
});

describe('terminate!', () => {
  test('terminate! ends a process in an endless loop; its links are told', async () => {
    await expectLines(
      `(define hog (spawn (lambda () (let loop () (loop)))))
       (inbound-link hog)
       (terminate! hog)
       (show (process-alive? hog))
       (show (catch (lambda (e) (and (error-object? e) (error-object-message e))) (? 5 'not-told)))`,
      ['#f', '"process terminated"'],
    );
  });

  // BUG (termite-node/links-and-signals.js, since fixed): the 'terminated' and 'noproc' error objects are
  // built with a plain JS object { car: pid, cdr: null } as irritants instead of a list,
  // so (error-object-irritants e) prints #<Object> and is not a pair. Reproduction:
  //   (define hog (spawn (lambda () (let loop () (loop)))))
  //   (inbound-link hog) (terminate! hog)
  //   (catch (lambda (e) (pair? (error-object-irritants e))) (?))   ; ⇒ #f
  test('the irritants of a terminated or noproc error are a list holding the pid', async () => {
    await expectLines(
      `(define hog (spawn (lambda () (let loop () (loop)))))
       (inbound-link hog)
       (terminate! hog)
       (show (catch (lambda (e) (equal? (error-object-irritants e) (list hog))) (? 5 'not-told)))
       (define gone (spawn (lambda () 'done)))
       (let wait () (if (process-alive? gone) (wait)))
       (inbound-link gone)
       (show (catch (lambda (e) (equal? (error-object-irritants e) (list gone))) (? 5 'not-told)))`,
      ['#t', '#t'],
    );
  });

  test('terminate! of a waiting process, of a dead one, and of itself', async () => {
    await expectLines(
      `(define sleeper (spawn (lambda () (? ))))
       (terminate! sleeper)
       (show (process-alive? sleeper))
       (terminate! sleeper)
       (show 'twice-is-fine)
       (define me (self))
       (define suicidal (spawn (lambda () (terminate! (self)) (! me 'not-reached))))
       (show (? 0.1 'ended))`,
      ['#f', 'twice-is-fine', 'ended'],
    );
  });
});

describe('supervisors', () => {
  const PONG = `
    (define (start-pong-server)
      (let loop ()
        (recv ((from tag 'crash) (! from (list tag (/ 1 0))))
              ((from tag 'ping) (! from (list tag 'pong))))
        (loop)))
    (define (wait-dead p) (if (process-alive? p) (begin (sleep 0.01) (wait-dead p))))`;

  test('restarts a failed worker; messages to the supervisor reach the current worker', async () => {
    const r = await runScheme(`${SHOW}${PONG}
       (define s (spawn-thunk-supervised start-pong-server))
       (show (!? s 'ping 5 'timeout))
       (show (!? s 'crash 0.2 'crashed))
       (show (!? s 'ping 5 'timeout))
       (show (!? s 'crash 0.2 'crashed))
       (show (!? s 'ping 5 'timeout))
       (! s 'shutdown)
       (wait-dead s)`);
    assert.ok(r.ok, r.message);
    assert.equal(r.out, 'pong\ncrashed\npong\ncrashed\npong\n');
    assert.deepEqual(r.log, [
      '(info: starting up supervised process)',
      '(info: process failed)',
      '(info: restarting...)',
      '(info: starting up supervised process)',
      '(info: process failed)',
      '(info: restarting...)',
      '(info: starting up supervised process)',
      '(info: had to terminate the process)',
      '(info: halting supervisor)',
    ]);
  });

  test('a worker failing more often than the limit is not restarted again', async () => {
    const r = await runScheme(`${SHOW}
       (define me (self))
       ;; at most 2 restarts within 5 seconds
       (define s (spawn-thunk-supervised (lambda () (! me 'started) (raise 'always-fails)) 2 5))
       (define (wait-dead p) (if (process-alive? p) (begin (sleep 0.01) (wait-dead p))))
       (wait-dead s)
       (show (let count ((n 0)) (recv ('started (count (+ n 1))) (after 0 n))))`);
    assert.ok(r.ok, r.message);
    assert.equal(r.out, '3\n');
    assert.equal(r.log.filter((l) => l === '(info: starting up supervised process)').length, 3);
    assert.equal(r.log[r.log.length - 1], '(info: too many failures, halting supervisor)');
  });

  test('failures spread out in time are each restarted (the limit counts a period)', async () => {
    const r = await runScheme(`${SHOW}
       (define me (self))
       ;; at most 1 restart per 0.05 s; the worker fails every 0.1 s
       (define s (spawn-thunk-supervised (lambda () (! me 'started) (sleep 0.1) (raise 'fails)) 1 0.05))
       (define (count n) (if (= n 4) n (recv ('started (count (+ n 1))) (after 5 n))))
       (show (count 0))
       (terminate! s)`);
    assert.ok(r.ok, r.message);
    assert.equal(r.out, '4\n');
    assert.ok(!r.log.includes('(info: too many failures, halting supervisor)'));
  });

  test('shutdown: a cooperating worker acknowledges and the supervisor halts', async () => {
    const r = await runScheme(`${SHOW}
       (define me (self))
       (define s (spawn-thunk-supervised
                  (lambda ()
                    (recv ((from tag 'shutdown) (! me 'worker-stopping) (! from (list tag 'ok)))))))
       (! s 'shutdown)
       (show (?))
       (define (wait-dead p) (if (process-alive? p) (begin (sleep 0.01) (wait-dead p))))
       (wait-dead s)
       (show 'supervisor-gone)`);
    assert.ok(r.ok, r.message);
    assert.equal(r.out, 'worker-stopping\nsupervisor-gone\n');
    assert.deepEqual(r.log.slice(-2), ['(info: the process shut down)', '(info: halting supervisor)']);
  });

  test('shutdown: a worker that does not cooperate is terminated after the delay', async () => {
    const r = await runScheme(`${SHOW}
       (define me (self))
       (define s (spawn-thunk-supervised (lambda () (! me 'started) (let loop () (loop))) 5 5 0.1))
       (recv ('started #t))
       (define t0 (current-jiffy))
       (! s 'shutdown)
       (define (wait-dead p) (if (process-alive? p) (begin (sleep 0.01) (wait-dead p))))
       (wait-dead s)
       (define waited (/ (- (current-jiffy) t0) (jiffies-per-second)))
       (show (>= waited 0.09) (< waited 5))`);
    assert.ok(r.ok, r.message);
    assert.equal(r.out, '#t #t\n');
    assert.deepEqual(r.log.slice(-2), ['(info: had to terminate the process)', '(info: halting supervisor)']);
  });

  test('info lines go to the log, never to the program’s output', async () => {
    const r = await runScheme(`${PONG} (define s (spawn-thunk-supervised start-pong-server)) (!? s 'crash 0.1 #f) (! s 'shutdown) (wait-dead s)`);
    assert.ok(r.ok, r.message);
    assert.equal(r.out, '');
    assert.ok(r.log.length >= 4);
  });
});

describe('generic server', () => {
  const PLUGIN = `
    (define me (self))
    (define plugin
      (make-generic-server-plugin
       (lambda (start) start)                                         ; init
       (lambda (term from state)                                      ; call
         (match term
           ('get (list 'reply state state))
           ('who (list 'reply (equal? from me) state))
           ('ignore (list 'noreply state))
           ('crash (list 'stop 'crashed state))
           ('bad 42)))
       (lambda (term state)                                           ; cast
         (match term
           (('add n) (list 'noreply (+ state n)))
           ('stop (list 'stop 'normal state))
           ('fail (list 'stop 'cast-failure state))))
       (lambda (reason state) (! me (list 'terminated reason state))))) ; terminate
  `;

  test('call replies, cast updates the state, init takes the start arguments', async () => {
    await expectLines(
      `${PLUGIN}
       (define s (generic-server-start-link plugin 10))
       (show (generic-server-call s 'get))
       (generic-server-cast s '(add 5))
       (generic-server-cast s '(add 1))
       (show (generic-server-call s 'get))
       (show (generic-server-call s 'who))`,
      ['10', '16', '#t'],
    );
  });

  test('noreply leaves the caller waiting: a call with a timeout gets its default', async () => {
    await expectLines(
      `${PLUGIN}
       (define s (generic-server-start-link plugin 1))
       (show (generic-server-call s 'ignore 0.05 'no-reply))
       (show (catch (lambda (e) e) (generic-server-call s 'ignore 0.05)))
       (show (generic-server-call s 'get))`,
      ['no-reply', 'timeout', '1'],
    );
  });

  test('(stop normal state): terminate is called, the server ends, nothing propagates', async () => {
    await expectLines(
      `${PLUGIN}
       (define s (generic-server-start-link plugin 7))
       (generic-server-cast s 'stop)
       (show (recv (('terminated reason state) (list reason state))))
       (define (wait-dead p) (if (process-alive? p) (wait-dead p)))
       (wait-dead s)
       (show (catch (lambda (e) (list 'raised e)) (? 0.05 'quiet)))`,
      ['(normal 7)', 'quiet'],
    );
  });

  test('a stop with another reason is raised in the linked starter', async () => {
    await expectLines(
      `(define quiet-plugin
         (make-generic-server-plugin
          (lambda () 0)
          (lambda (term from state) (list 'reply state state))
          (lambda (term state) (list 'stop term state))
          (lambda (reason state) #t)))
       (define s (generic-server-start-link quiet-plugin))
       (generic-server-cast s 'cast-failure)
       (show (catch (lambda (e) (list 'raised e)) (?? (lambda (m) #f))))`,
      ['(raised cast-failure)'],
    );
  });

  // The same, with a terminate callback that sends a message just before the server
  // raises: hit the signal() bug (see 'a linked process that sends a message
  // and then dies, in one slice' above).
  test('a stop with another reason calls terminate, then is raised in the linked starter', async () => {
    await expectLines(
      `${PLUGIN}
       (define s (generic-server-start-link plugin 3))
       (generic-server-cast s 'fail)
       (show (catch (lambda (e) (list 'raised e)) (?? (lambda (m) #f))))
       (show (recv (('terminated reason state) (list reason state))))`,
      ['(raised cast-failure)', '(cast-failure 3)'],
    );
  });

  test('a callback that returns nonsense kills the server with a clear error', async () => {
    await expectLines(
      `${PLUGIN}
       (define (message-of e) (if (error-object? e) (error-object-message e) e))
       (define s (generic-server-start-link plugin 3))
       (show (catch message-of (generic-server-call s 'bad 5 'no-reply)))
       (define s2 (generic-server-start-link
                   (make-generic-server-plugin (lambda () 0) (lambda (t f s) (list 'reply t)) (lambda (t s) 'what) (lambda (r s) #t))))
       (show (catch message-of (generic-server-call s2 'x 5 'no-reply)))
       (define s3 (generic-server-start-link
                   (make-generic-server-plugin (lambda () 0) (lambda (t f s) (list 'reply t s)) (lambda (t s) 'what) (lambda (r s) #t))))
       (generic-server-cast s3 'x)
       (show (catch message-of (?? (lambda (m) #f))))`,
      [
        '"generic server: a call callback must return (reply v s), (noreply s) or (stop r s)"',
        '"generic server: a call callback must return (reply v s), (noreply s) or (stop r s)"',
        '"generic server: a cast callback must return (noreply s) or (stop r s)"',
      ],
    );
  });

  test('messages that are neither calls nor casts are ignored', async () => {
    await expectLines(
      `${PLUGIN}
       (define s (generic-server-start-link plugin 2))
       (! s 'junk)
       (! s '(1 2 3))
       (show (generic-server-call s 'get))`,
      ['2'],
    );
  });
});
