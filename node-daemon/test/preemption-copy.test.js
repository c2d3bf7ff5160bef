// @ts-check
/**
 * A sender moved while its `!` is copying a big message (docs/processes.md, "Fairness"):
 * daemon A is drained to daemon B while a process on A is between two chunks of its copy
 * of a 300,000-pair list to another process of A. The `!` has not happened until its
 * copy ends, so the sender resumes on B *before* it, sends from there, and the message
 * arrives once, equal. Daemons are OS processes on free ports, stopped by PID.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runProgram, newToken } from './helpers/daemons.js';

/** @type {import('./helpers/daemons.js').Daemon[]} */
const started = [];
after(async () => {
  await Promise.all(started.map((d) => d.stop('SIGKILL')));
});

test('a process drained to another node in the middle of a big local ! sends the message once, from where it resumes', { timeout: 180_000 }, async () => {
  const token = newToken();
  const a = await startDaemon({ token });
  started.push(a);
  const b = await startDaemon({ token, join: [a.url] });
  started.push(b);
  const program = `
(define a (make-node "127.0.0.1" ${a.port}))
(define b (make-node "127.0.0.1" ${b.port}))
(define me (self))
(define (pairs n) (let loop ((i 0) (l '())) (if (= i n) l (loop (+ i 1) (cons (cons i i) l)))))
;; on a: four processes that keep its scheduler busy for a while (so the copy takes many
;; runs), a receiver, and a sender whose ! to it copies 300,000 pairs (600,000 objects:
;; ~150 chunks; the moved thread, message included, stays under the link's 8 MiB queue)
(define (busy) (remote-spawn a (lambda () (let loop ((i 0)) (if (< i 200000000) (loop (+ i 1)))))))
(busy) (busy) (busy) (busy)
(define receiver
  (remote-spawn a
    (lambda ()
      (let* ((m (?)) (more (? 3 'nothing-more)))
        (! me (list 'received (length m) (equal? (car m) (cons 299999 299999)) more))))))
(define sender
  (remote-spawn a
    (lambda ()
      (let ((l (pairs 300000)))
        (! me 'copying)
        (! receiver l)
        (! me (list 'sent-from-b (equal? (current-node) b)))))))
(recv ('copying #t))
(define report (on a (lambda () (drain-node b))))
(write (list 'moved (and (memv sender (cdr (assq 'moved report))) #t))) 
(newline)
(write (recv (('sent-from-b x) (list 'sent-from-b x))))
(newline)
(write (recv (('received . r) r)))
(newline)
`;
  const r = await runProgram(program, { token, join: [a.url, b.url], timeoutMs: 150_000 });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}\n--- A:\n${a.log()}\n--- B:\n${b.log()}`);
  assert.deepEqual(r.stdout.split('\n').slice(0, -1), [
    '(moved #t)',
    '(sent-from-b #t)', // the ! completed on b: it was under way when a was drained
    '(300000 #t nothing-more)', // one copy, equal
  ]);
});
