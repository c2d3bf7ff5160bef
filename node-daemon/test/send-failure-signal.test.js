// @ts-check
/**
 * A sender learns that its messages were dropped even when it no longer waits for them
 * (docs/mesh.md, "When the mesh cannot take a frame"). A program run with `termite-node
 * run --join` floods a process on a daemon that is stopped (SIGSTOP): the sender is
 * held while its frames wait for room. An exit signal from a linked process interrupts
 * the hold; the sender catches it and computes on without ever receiving. When the
 * daemon's link times out, its waiting frames are dropped: the error naming them is
 * raised in the sender at once (at its next slice), not at a receive that never comes.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runProgram, newToken } from './helpers/daemons.js';

/** @type {import('./helpers/daemons.js').Daemon[]} */
const started = [];
after(async () => {
  for (const d of started) {
    d.child.kill('SIGCONT');
    await d.stop('SIGKILL');
  }
});

test('frames dropped after their sender stopped waiting for them raise in it at once, not at a receive it never reaches', async () => {
  const token = newToken();
  const d = await startDaemon({ token });
  started.push(d);
  let stopped = false;
  const r = await runProgram(
    `
(define d (make-node "127.0.0.1" ${d.port}))
(define sink (remote-spawn d (lambda () (let loop () (?) (loop)))))
(define me (self))
(define (spin-until t) (if (< (current-second) t) (spin-until t) 'not-told))
(define sender
  (spawn (lambda ()
    (! me 'ready)
    ;; dies in 2.5 s: its exit signal interrupts the sender, held by then
    (spawn-link (lambda () (recv (after 2.5 (error "linked process failed")))))
    (let ((why (guard (e (#t (error-object-message e)))
                 (let flood ((i 0)) (if (< i 100000) (begin (! sink (make-bytevector 65536 1)) (flood (+ i 1))) 'all-sent)))))
      (! me (list 'interrupted why))
      ;; computing, never receiving, for at most 20 s
      (! me (list 'told (guard (e (#t (error-object-message e))) (spin-until (+ (current-second) 20)))))))))
(recv ('ready #t))
(display "ready") (newline)
(let loop ()
  (recv
    (('interrupted why) (write (list 'interrupted why)) (newline) (loop))
    (('told why) (write (list 'told why)) (newline))
    (after 40 (display "timeout") (newline))))
`,
    {
      token, join: [d.url], timeoutMs: 60_000,
      onStdout: (all) => {
        if (!stopped && all.includes('ready')) {
          stopped = true;
          d.child.kill('SIGSTOP');
        }
      },
    },
  );
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines[0], 'ready');
  assert.equal(lines[1], '(interrupted "linked process failed")', r.stdout);
  assert.match(lines[2], /^\(told "\d+ messages? to node \w+ not sent: .+"\)$/, r.stdout);
});
