// @ts-check
/**
 * Mutable strings across real daemons: a process holding a mutable string (twice, so
 * shared) migrates to another daemon and back; there its string is still mutable and
 * still one string; a mutable string sent to it across the mesh arrives as a mutable
 * copy (the sender's stays as it was), and the answer it sends back is mutable too.
 * Daemons are OS processes on free loopback ports, stopped by PID.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runProgram, newToken } from './helpers/daemons.js';

/** @type {import('./helpers/daemons.js').Daemon[]} */
const started = [];
after(async () => {
  await Promise.all(started.map((d) => d.stop('SIGKILL')));
});

test('a migrating process keeps its mutable strings mutable and shared; strings sent across the mesh are copies', async () => {
  const token = newToken();
  const a = await startDaemon({ token });
  started.push(a);
  const r = await runProgram(
    `
(define node1 (current-node))
(define node2 (make-node "127.0.0.1" ${a.port}))
(define p
  (spawn
    (lambda ()
      (let* ((s (make-string 3 #\\a)) (both (list s s)) (kept #f))
        (let loop ()
          (recv
            ((from tag 'show)
             (! from (list tag (list (car both) (eq? (car both) (cadr both)) (if (equal? (current-node) node1) 'node1 'node2)))))
            ((from tag ('set k c))
             (string-set! (car both) k c)
             (! from (list tag (cadr both))))
            ((from tag ('take str))
             (string-set! str 0 #\\Z)
             (set! kept str)
             (! from (list tag kept)))
            (('migrate to) (migrate to)))
          (loop))))))
(write (!? p 'show 5)) (newline)
(! p (list 'migrate node2))
(write (!? p '(set 1 #\\b) 5)) (newline)
(write (!? p 'show 5)) (newline)
(define mine (string-copy "xyz"))
(define back (!? p (list 'take mine) 5))
(string-set! back 1 #\\Q)
(write (list mine back)) (newline)
(! p (list 'migrate node1))
(write (!? p '(set 2 #\\c) 5)) (newline)
(write (!? p 'show 5)) (newline)
`,
    { token, join: [a.url] },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '("aaa" #t node1)\n"aba"\n("aba" #t node2)\n("xyz" "ZQz")\n"abc"\n("abc" #t node1)\n');
});
