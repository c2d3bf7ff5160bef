// @ts-check
/**
 * Calls across nodes that never hang silently (docs/processes.md, "`!?`: a call and
 * its failures"), with real daemons on loopback and a program joined to them: after
 * `terminate!` of a process on a daemon, `process-alive?` says #f and `!?` to it ends
 * with "not alive" (the daemon answers the link for a process it no longer has); a
 * process on a daemon that dies while the caller waits ends the call with its error;
 * a daemon killed while the caller waits for its process ends the call with "its node
 * … is unreachable". A process on a daemon that returns without answering — also after
 * migrating to another daemon, or migrating there from the caller's node — ends the
 * call with "ended before it answered", promptly and with no timeout given; a normal end
 * kills or signals no ordinary process linked to it, on either side. Every case ends
 * within its bound, not at the test's time limit.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runProgram, newToken, health } from './helpers/daemons.js';
import { hostilePeer } from './helpers/peer.js';
import { Pid } from '@termite/runtime';

/** @type {Array<{stop: (s?: any) => Promise<void>}>} */
const started = [];
after(async () => {
  for (const s of started.reverse()) await s.stop('SIGKILL');
});

/** How long a program of these tests may take, at most. */
const BOUND_MS = 20_000;

const SHOW = `(define (show . xs) (for-each (lambda (x) (write x) (display " ")) xs) (newline))
(define (message-of thunk) (catch (lambda (e) (if (error-object? e) (error-object-message e) e)) (thunk)))`;

test('a process on another node: terminated (process-alive? #f, !? not alive), or dying while the caller waits', async () => {
  const token = newToken();
  const d = await startDaemon({ token });
  started.push(d);
  const t0 = performance.now();
  const r = await runProgram(`${SHOW}
(define d (make-node "127.0.0.1" ${d.port}))
(define p (remote-spawn d (lambda () (recv (('never) #t)))))
(show 'alive (process-alive? p))
(terminate! p)
(show 'alive (process-alive? p))
(show (message-of (lambda () (!? p 'hello))))
(define q (remote-spawn d (lambda () (?) (car 2))))
(show (message-of (lambda () (!? q 'hello))))`, { token, join: [d.url], timeoutMs: BOUND_MS });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.equal(lines[0], 'alive #t ');
  assert.equal(lines[1], 'alive #f ');
  assert.equal(lines[2], '"the process is not alive" ');
  assert.match(lines[3], /^"the process died before it answered \(car: expected a pair: 2 \(at .*prog\.scm:9:\d+\)\)" $/);
  assert.ok(performance.now() - t0 < BOUND_MS, 'ended by itself');
});

test('the node of the process a caller waits for leaves the mesh: the call ends with an error naming it', async () => {
  const token = newToken();
  const d1 = await startDaemon({ token });
  started.push(d1);
  const d2 = await startDaemon({ token, join: [d1.url] });
  started.push(d2);
  let killed = false;
  const r = await runProgram(`${SHOW}
(define d2 (make-node "127.0.0.1" ${d2.port}))
(define s (remote-spawn d2 (lambda () (recv (('never) #t)))))
(display "waiting") (newline)
(show (message-of (lambda () (!? s 'hello))))`, {
    token,
    join: [d1.url, d2.url],
    timeoutMs: BOUND_MS,
    onStdout: (all) => {
      if (!killed && all.includes('waiting\n')) {
        killed = true;
        void d2.stop('SIGKILL');
      }
    },
  });
  assert.ok(killed, `the program never waited:\n${r.stdout}\n${r.stderr}`);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^waiting\\n"its node ${d2.id.slice(0, 12)} is unreachable \\(.+\\)" \\n$`));
});

test('a process on another node that returns without answering: the call fails at once, with no timeout given', async () => {
  const token = newToken();
  const d = await startDaemon({ token });
  started.push(d);
  const r = await runProgram(`${SHOW}
(define d (make-node "127.0.0.1" ${d.port}))
(define q (remote-spawn d (lambda () (?) 'bye)))
(define t0 (current-second))
(show (message-of (lambda () (!? q 'hello))))
(show 'quick (< (- (current-second) t0) 2))
(define me (self))
(define r (remote-spawn d (lambda () (! me 'ready) (?) 'bye)))
(?)
(show (message-of (lambda () (!? r 'hello))))
(show (message-of (lambda () (!? r 'again))))`, { token, join: [d.url], timeoutMs: BOUND_MS });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, [
    '"the process ended before it answered" ',
    'quick #t ',
    '"the process ended before it answered" ',
    '"the process is not alive" ',
    '',
  ].join('\n'));
});

test('a process on another node that migrates while the caller waits (to a third node, or to the caller\'s), then returns: the call fails at once', async () => {
  const token = newToken();
  const d1 = await startDaemon({ token });
  started.push(d1);
  const d2 = await startDaemon({ token, join: [d1.url] });
  started.push(d2);
  const r = await runProgram(`${SHOW}
(define d1 (make-node "127.0.0.1" ${d1.port}))
(define d2 (make-node "127.0.0.1" ${d2.port}))
(define me (self))
(define p (remote-spawn d1 (lambda () (?) (migrate d2) (! me (list 'moved (node-id (current-node)))) 'bye)))
(define t0 (current-second))
(show (message-of (lambda () (!? p 'hello))))
(show (? 5 'no-move-notice))
(show 'quick (< (- (current-second) t0) 4))
;; to the caller's own node: the relay is local there
(define home (current-node))
(define h (remote-spawn d1 (lambda () (?) (migrate home) 'bye)))
(define t1 (current-second))
(show (message-of (lambda () (!? h 'hello))))
(show 'quick (< (- (current-second) t1) 4))`, { token, join: [d1.url, d2.url], timeoutMs: BOUND_MS });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, `"the process ended before it answered" \n(moved "${d2.id}") \nquick #t \n"the process ended before it answered" \nquick #t \n`);
});

test('a normal end reaches no ordinary linked process on another node: it is not killed nor signalled', async () => {
  const token = newToken();
  const d = await startDaemon({ token });
  started.push(d);
  const r = await runProgram(`${SHOW}
(define d (make-node "127.0.0.1" ${d.port}))
(define me (self))
;; w, on the daemon, is linked both ways with a process here that returns at once
(define a (spawn (lambda ()
  (! me (remote-spawn-link d (lambda () (let loop () (recv ((from tag 'ping) (! from (list tag 'pong)) (loop)))))))
  'done)))
(define w (?))
(let wait ((n 0)) (if (and (process-alive? a) (< n 1000000)) (wait (+ n 1))))
(show 'a-alive (process-alive? a))
;; ... and the program's own process, linked both ways with a daemon process that returns
(define v (remote-spawn-link d (lambda () (?) 'bye)))
(! v 'go)
(show (? 1 'nothing-raised))
(show (!? w 'ping 5))
(show (!? w 'ping 5))`, { token, join: [d.url], timeoutMs: BOUND_MS });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'a-alive #f \nnothing-raised \npong \npong \n');
  assert.doesNotMatch(r.stderr, /exception exit|died/);
});

test('a process of the caller\'s node that migrates away while the caller waits: its answer arrives, or its end fails the call at once', async () => {
  const token = newToken();
  const d = await startDaemon({ token });
  started.push(d);
  const r = await runProgram(`${SHOW}
(define d (make-node "127.0.0.1" ${d.port}))
(define p (spawn (lambda () (let ((m (?))) (migrate d) (! (car m) (list (cadr m) 'from-there))))))
(show (!? p 'hello))
(define q (spawn (lambda () (?) (migrate d) 'bye)))
(define t0 (current-second))
(show (message-of (lambda () (!? q 'hello))))
(show 'quick (< (- (current-second) t0) 4))
(show (? 0.5 'mailbox-empty))`, { token, join: [d.url], timeoutMs: BOUND_MS });
  assert.equal(r.status, 0, r.stderr);
  // it may end there before the link from its monitor arrives: "not alive" then
  assert.match(r.stdout, /^from-there \n"the process (ended before it answered|is not alive)" \nquick #t \nmailbox-empty \n$/);
});

test('an EXITED frame that is malformed is refused; one for a process that is not a relay changes nothing', async () => {
  const token = newToken();
  const d = await startDaemon({ token });
  started.push(d);
  const peer = await hostilePeer(d, token);
  try {
    const EXITED = 9;
    peer.send([EXITED, d.id, 1, 'not-a-pid', []]);
    await peer.errorFrame(/^malformed EXITED frame$/);
    // for a process that does not exist, and for one that is not a monitor's relay (the
    // daemon's serial 1, whatever it is): dropped, nothing refused, the daemon serves on
    peer.send([EXITED, d.id, 987654, new Pid(peer.id, 1), []]);
    peer.send([EXITED, d.id, 1, new Pid(peer.id, 1), []]);
    const r = await runProgram(`(display (!? (remote-spawn (make-node "127.0.0.1" ${d.port}) (lambda () (let ((m (?))) (! (car m) (list (cadr m) 'served))))) 'x))`, { token, join: [d.url], timeoutMs: BOUND_MS });
    assert.equal(r.stdout, 'served', r.stderr);
    assert.equal((await health(d.url)).ok, true);
    assert.doesNotMatch(d.log(), /refused: (?!malformed EXITED)|handler threw/);
  } finally {
    await peer.stop();
  }
});
