// @ts-check
/**
 * QoS across nodes (docs/linda.md, "QoS"): the priority of `with-qos` travels with a
 * remote `in` to the space's holder, whose waiting helper runs at it, and the holder's
 * core serves the waiting `in` of the highest priority first. Two requesters of another
 * daemon wait at the holder, the low-priority one first; the first tuple goes to the
 * high-priority one, the second to the other. Daemons are OS processes on free
 * loopback ports, stopped by PID.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runProgram, newToken } from './helpers/daemons.js';

/** @type {import('./helpers/daemons.js').Daemon[]} */
const started = [];
after(async () => {
  await Promise.all(started.map((d) => d.stop('SIGKILL')));
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
