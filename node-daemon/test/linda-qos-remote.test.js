// @ts-check
/**
 * QoS across nodes (docs/linda.md, "QoS"): the priority of `with-qos` travels with a
 * remote `in` to the space's holder, where it waits as a waiter record of that priority,
 * and the holder serves the waiting `in` of the highest priority first. Two requesters
 * of another daemon wait at the holder, the low-priority one first; the first tuple
 * goes to the high-priority one, the second to the other. A remote `in` with a timeout
 * or a deadline waits the same way — a record and a timer, no process at the holder.
 * Daemons are OS processes on free loopback ports, stopped by PID.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, runProgram, newToken, health } from './helpers/daemons.js';

/** @type {import('./helpers/daemons.js').Daemon[]} */
const started = [];
const dir = mkdtempSync(path.join(os.tmpdir(), 'linda-qos-'));
after(async () => {
  await Promise.all(started.map((d) => d.stop('SIGKILL')));
  rmSync(dir, { recursive: true, force: true });
});

test('of two remote ins waiting at the holder, the one of higher priority is served first', async () => {
  const token = newToken();
  const h = await startDaemon({ token });
  started.push(h);
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define s (make-space 'qos-jobs 'central h))
(define me (self))
(define (requester name priority)
  (spawn (lambda ()
           (! me (list 'asking name))
           (! me (list name (with-qos priority #f (lambda () (in s 'job ?integer))))))))
(requester 'low 3)
(display (?)) (newline)          ; low's request is on its way first
(requester 'high 0)
(display (?)) (newline)
(space-count s 'job ?integer)    ; both requests have reached the holder
(out s 'job 1)
(display (?)) (newline)
(out s 'job 2)
(display (?)) (newline)
(display (list 'left (space-count s 'job ?integer))) (newline)
`, { token, join: [h.url], timeoutMs: 30000 });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), ['(asking low)', '(asking high)', '(high (job 1))', '(low (job 2))', '(left 0)']);
});

test('a priority out of range is refused at the requester; a remote in under with-qos is served', async () => {
  const token = newToken();
  const h = await startDaemon({ token });
  started.push(h);
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define s (make-space 'qos-bad 'central h))
(display (catch (lambda (e) (error-object-message e)) (with-qos 4 #f (lambda () (in s 'x)))))
(newline)
(out s 'x 1)
(display (with-qos 1 5 (lambda () (in s 'x ?integer))))
(newline)
`, { token, join: [h.url], timeoutMs: 30000 });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), ['a priority is 0 (first), 1, 2 or 3 (last)', '(x 1)']);
});

test('remote ins with a timeout or a deadline wait at the holder without a process: served by priority, timed out by a timer, nothing left behind', async () => {
  const token = newToken();
  const h = await startDaemon({ token });
  started.push(h);
  const before = (await health(h.url)).processes;
  const checked = path.join(dir, 'checked');
  /** @type {number | undefined} */
  let during;
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define s (make-space 'timed-jobs 'central h))
(define me (self))
(define (await-file f)
  (let loop ((i 0))
    (cond ((file-exists? f) #t)
          ((< i 1000) (sleep 0.02) (loop (+ i 1)))
          (else (error "the test did not write" f)))))
;; twenty timed ins waiting at the holder, one per job number
(do ((i 0 (+ i 1))) ((= i 20))
  (let ((i i)) (spawn (lambda () (! me (list 'got (in-timeout 30 'none s 'job i)))))))
;; a low-priority in without a timeout first, then a high-priority one with a deadline
(spawn (lambda () (! me (list 'low (with-qos 3 #f (lambda () (in s 'prio ?integer)))))))
(space-count s 'prio ?integer)
(spawn (lambda () (! me (list 'high (with-qos 0 20 (lambda () (in s 'prio ?integer)))))))
(space-count s 'prio ?integer)   ; every request has reached the holder
(write '(waiting)) (newline)
(await-file "${checked}")
(do ((i 0 (+ i 1))) ((= i 20)) (out s 'job i))
(write (list 'served (let loop ((i 0) (n 0)) (if (= i 20) n (loop (+ i 1) (if (equal? (cadr (?)) 'none) n (+ n 1))))))) (newline)
(out s 'prio 1)
(write (?)) (newline)
(out s 'prio 2)
(write (?)) (newline)
;; a timed in that times out leaves no record behind: a later tuple stays in the space
(write (list 'timeouts (in-timeout 0.1 'none s 'late ?integer) (rd-timeout 0.1 'none s 'late ?integer))) (newline)
(out s 'late 7)
(write (list 'left (space-count s 'late ?integer) (space-count s 'job ?integer))) (newline)
`, {
    token,
    join: [h.url],
    timeoutMs: 40000,
    onStdout: (out) => {
      if (during === undefined && out.includes('(waiting)')) {
        during = -1;
        void health(h.url).then((st) => {
          during = st.processes;
          writeFileSync(checked, '');
        });
      }
    },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(during, before, `no process waits at the holder for the 22 remote ins (before ${before}, while waiting ${during})`);
  const lines = r.stdout.trim().split('\n');
  assert.deepEqual(lines.slice(1), ['(served 20)', '(high (prio 1))', '(low (prio 2))', '(timeouts none none)', '(left 1 0)'], r.stdout + r.stderr);
});
