// @ts-check
/**
 * S/Net's formals inside tuples on a central space of another daemon (docs/linda.md,
 * "Formals in tuples"): a tuple with a formal `out` from the joined node is matched at
 * the holder by an actual of its type, wakes an `in` blocked there, and is never matched
 * by a formal; an unknown formal is refused with its reason (by `formal`, before
 * anything is sent) and the holder keeps serving. The daemon is an OS process on a free loopback port, stopped by PID.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runProgram, newToken } from './helpers/daemons.js';

/** @type {import('./helpers/daemons.js').Daemon[]} */
const started = [];
after(async () => {
  await Promise.all(started.map((d) => d.stop('SIGKILL')));
});

test('formals in tuples on another daemon\'s central space', async () => {
  const token = newToken();
  const h = await startDaemon({ token });
  started.push(h);
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define s (make-space 'snet 'central h))
(define (show . xs) (write xs) (newline))
(define me (self))
(spawn (lambda () (! me 'asking) (! me (list 'woken (in s 'task 5)))))
(show (?))
(out s 'task ?integer)
(show (let ((m (?))) (list (car m) (equal? (cadr m) (list 'task ?integer)))))
(out s 'cfg ?string)
(show 'formal-vs-formal (rdp s 'cfg ?string) (rdp s 'cfg ?any) (space-count s 'cfg ?any))
(show 'actual (rdp s 'cfg 42) (equal? (inp s 'cfg "x") (list 'cfg ?string)) (space-count s 'cfg "y"))
(show 'unknown (catch (lambda (e) (error-object-message e)) (inp s 'x (formal 'nope))))
(out s 'after 1)
(show 'serving (in s 'after ?integer))
`, { token, join: [h.url], timeoutMs: 30000 });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), [
    '(asking)',
    '((woken #t))',
    '(formal-vs-formal #f #f 0)',
    '(actual #f #t 0)',
    '(unknown "unknown formal type (expected one of any, integer, number, float, string, symbol, bytes, boolean, vector, map, null, tagged, array, list)")',
    '(serving (after 1))',
  ]);
});
