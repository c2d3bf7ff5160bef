// @ts-check
/**
 * Bytevectors received from another node are decoded as views of the received frame
 * when they are most of it (packages/scheme codec viewBytes): across real daemons, over
 * TLS and over plain TCP, a received bytevector written with `bytevector-u8-set!` changes no other message, received before or after, from the same
 * burst or the same sender; an echo sent back before the write is not changed by it; a
 * message holding a 64 KiB and a small bytevector arrives with both intact. Daemons are
 * OS processes on free loopback ports, stopped by PID.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runProgram, newToken } from './helpers/daemons.js';

/** @type {import('./helpers/daemons.js').Daemon[]} */
const started = [];
after(async () => {
  await Promise.all(started.map((d) => d.stop('SIGKILL')));
});

const PROGRAM = `
(define peer (make-node "127.0.0.1" PORT))
(define me (self))
(define (fill! b v) (do ((i 0 (+ i 1))) ((= i (bytevector-length b))) (bytevector-u8-set! b i v)))
(define (pattern n k) (let ((b (make-bytevector n 0))) (do ((i 0 (+ i 1))) ((= i n) b) (bytevector-u8-set! b i (modulo (+ i k) 256)))))
;; the peer's process: keeps every message, writes each received bytevector after
;; answering it, and says whether the messages it kept are still as they came
(define keeper
  (remote-spawn peer
    (lambda ()
      (let loop ((kept '()))
        (let ((m (?)))
          (cond
            ((eq? (car m) 'echo)
             (let ((bv (caddr m)))
               (! (cadr m) bv)
               (fill! bv 0)
               (loop (cons (cons bv (make-bytevector 65536 0)) kept))))
            ((eq? (car m) 'keep)
             ;; as sent on arrival; then written, and kept with what it must stay
             (let ((bv (cadr m)) (ok (equal? (cadr m) (pattern 65536 (caddr m)))))
               (bytevector-u8-set! bv 0 255)
               (bytevector-u8-set! bv 65535 255)
               (loop (cons (cons bv (if ok (bytevector-copy bv) 'changed-before-arrival)) kept))))
            ((eq? (car m) 'pair)
             (let ((big (car (cadr m))) (small (cdr (cadr m))))
               (fill! small 9)
               (! me (list 'pair (equal? big (pattern 65536 5)) (bytevector-length small)))
               (loop kept)))
            ((eq? (car m) 'check)
             (! me (list 'intact (let all ((k kept)) (or (null? k) (and (equal? (caar k) (cdar k)) (all (cdr k))))))))))))))
;; a burst of large bytevectors, the same contents each time: each is written on arrival
(do ((i 0 (+ i 1))) ((= i 20))
  (! keeper (list 'keep (pattern 65536 (modulo i 2)) (modulo i 2))))
;; an echo comes back as it was sent, though the peer wrote its copy after sending it
(define sent (pattern 65536 3))
(! keeper (list 'echo me sent))
(define back (?))
(display (list 'echo (equal? back sent) (equal? sent (pattern 65536 3))))
(newline)
(! keeper (list 'pair (cons (pattern 65536 5) (pattern 100 1))))
(display (?))
(newline)
(! keeper (list 'check))
(display (?))
(newline)
`;

for (const links of ['tls', 'tcp']) {
  test(`received bytevectors written by their receiver change no other message (${links} links)`, { timeout: 60_000 }, async () => {
    const token = newToken();
    const args = links === 'tcp' ? ['--insecure'] : [];
    const a = await startDaemon({ token, args });
    started.push(a);
    const r = await runProgram(PROGRAM.replace('PORT', String(a.port)), { token, join: [a.url], args, timeoutMs: 45_000 });
    assert.equal(r.status, 0, r.stderr.slice(-2000));
    assert.equal(r.stdout, '(echo #t #t)\n(pair #t 100)\n(intact #t)\n');
  });
}
