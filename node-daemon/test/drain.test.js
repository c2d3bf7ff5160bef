// @ts-check
/**
 * Draining a physical node (`drain-node`, docs/processes.md and docs/messengers.md) across
 * real daemons: daemon A is drained to daemon B while a computation runs on it. Its
 * logical nodes move with their variables, mailbox, links and waiters under the same
 * addresses; a messenger waiting in `wait-until` there moves with its node and completes;
 * a process with messages in its mailbox moves with them, in order, nothing lost; the
 * addresses held elsewhere keep working (a hop, an injection, `m-send`, `node-ref-at` sent
 * to A follow the node to B). Each test starts daemons as OS processes on free ports and
 * runs a program with `termite-node run --join`; every process is stopped by PID.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runProgram, newToken } from './helpers/daemons.js';
import { daemonScope } from './helpers/daemon-scope.js';

const { daemon, started } = daemonScope();

const token = newToken();

/** Start A and B (B joined to A); run `program` joined to both, with `a` and `b` defined. @param {string} program */
async function runOnTwo(program) {
  const a = await daemon({ token });
  const b = await daemon({ token, join: [a.url] });
  const prelude = `(define a (make-node "127.0.0.1" ${a.port}))\n(define b (make-node "127.0.0.1" ${b.port}))\n(define me (self))\n`;
  const r = await runProgram(prelude + program, { token, join: [a.url, b.url], timeoutMs: Number(process.env.DRAIN_TIMEOUT ?? 90000) });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}\n--- A:\n${a.log()}\n--- B:\n${b.log()}`);
  return { lines: r.stdout.split('\n').slice(0, -1), a, b };
}

test('a drained node\'s logical nodes, a waiting messenger and a process with a mailbox move to the target; addresses keep working', async () => {
  const { lines, a } = await runOnTwo(`
(define root-a (on a (lambda () (lnet-root))))
;; a messenger on a: a node x with a variable, then it waits (wait-until) for 'go there
(spawn
  (lambda ()
    (! me (list 'done
      (inject-and-wait
        (lambda ()
          (create 'node 'x 'link 'l 'weight 2 'physical a)
          (node-set! 'count 41)
          (m-send (current-lnode) 'first)
          (! me (list 'ready (current-lnode)))
          (wait-until 'go (lambda (v) (eq? v #t)))
          (node-update! 'count (lambda (c) (+ c 1)))
          (let* ((m1 (m-recv)) (m2 (m-recv)))
            (! me (list 'final (lnode-name) (node-ref 'count) m1 m2 (equal? (current-node) b) (last-link) (last-weight)))))
        root-a 60)))))
(define x (recv (('ready addr) addr)))
;; a process on a waiting for 'start (a selective receive) while other messages queue
(define keeper
  (remote-spawn a
    (lambda ()
      (recv ('start #t))
      ;; until 'end and four messages ('end may overtake m4: m4 goes by way of a)
      (let loop ((acc '()) (ended #f))
        (if (and ended (= (length acc) 4))
            (! me (list 'kept (reverse acc) (equal? (current-node) b)))
            (let ((m (?)))
              (if (eq? m 'end) (loop acc #t) (loop (cons m acc) ended))))))))
(! keeper 'm1) (! keeper 'm2) (! keeper 'm3)
(define report (on a (lambda () (drain-node b))))
(define (count-of key) (length (cdr (assq key report))))
(write (list 'report (count-of 'moved) (count-of 'failed) (cdr (assq 'logical-nodes report))
             (and (memv keeper (cdr (assq 'moved report))) #t)))
(newline)
(write (list 'describe-a (length (on a (lambda () (lnet-describe)))))) (newline)
;; the old addresses work: from here (a names x's physical node), a forwards to b
(m-send x 'second)
(write (list 'count-at (node-ref-at x 'count))) (newline)
(inject (lambda () (node-set! 'go #t)) x)
(write (recv (('final . r) r))) (newline)
(write (recv (('done r) r))) (newline)
(! keeper 'm4) (! keeper 'start) (! keeper 'end)
(write (recv (('kept . r) r))) (newline)
`);
  // moved: the messenger and the keeper (at least); nothing failed; a's two logical nodes
  assert.deepEqual(lines[0], '(report 2 0 2 #t)');
  assert.equal(lines[1], '(describe-a 0)');
  assert.equal(lines[2], '(count-at 41)');
  assert.equal(lines[3], '(x 42 first second #t l 2)');
  assert.equal(lines[4], '#t');
  assert.equal(lines[5], '((m1 m2 m3 m4) #t)');
  assert.doesNotMatch(a.log(), /could not|ended:/);
});

test('a shortest-path run whose columns are on A and B is drained from A to B mid-run: right distances, no messenger lost or duplicated', async () => {
  const { lines } = await runOnTwo(`
(define n 6)
(define (hw i j) (+ 1 (modulo (+ (* i 7) (* j 13) 3) 9)))
(define (vw i j) (+ 1 (modulo (+ (* i 11) (* j 5) 1) 9)))
(define (idx i j) (+ (* i n) j))
(define (cell-name i j) (string->symbol (string-append "n" (number->string i) "-" (number->string j))))
(define (place i j) (if (< j (quotient n 2)) a b))
(define (build)
  (let ((addr (make-vector (* n n) #f)))
    (let row ((i 0))
      (when (< i n)
        (if (= i 0)
            (create 'node (cell-name 0 0) 'link 'start 'directed #t 'physical (place 0 0))
            (begin (hop 'node (vector-ref addr (idx (- i 1) 0)))
                   (create 'node (cell-name i 0) 'link 'v 'weight (vw (- i 1) 0) 'physical (place i 0))))
        (vector-set! addr (idx i 0) (current-lnode))
        (let col ((j 1))
          (when (< j n)
            (create 'node (cell-name i j) 'link 'h 'weight (hw i (- j 1)) 'physical (place i j))
            (vector-set! addr (idx i j) (current-lnode))
            (when (> i 0)
              (create 'node (vector-ref addr (idx (- i 1) j)) 'link 'v 'weight (vw (- i 1) j))
              (hop 'node (vector-ref addr (idx i j))))
            (col (+ j 1))))
        (row (+ i 1))))
    (! me (list 'mesh addr))))
;; (every procedure the messengers call is defined before the first one leaves: a
;; physical node fetches the program's definitions once)
;; the first walker waits on its cell (on A) for 'go, sent once the drain has returned:
;; the drain always finds the run in the middle, however fast the rest would be; each
;; step also spins a while, so that other walkers are under way on both daemons
(define (spin k) (when (> k 0) (spin (- k 1))))
(define (walker* d)
  (let ((old (node-update! 'dist (lambda (cur) (if (and cur (<= cur d)) cur d)) #f)))
    (when (= d 0) (! me 'started) (m-recv 60))
    (spin 20000)
    (when (or (not old) (< d old))
      (hop)
      (walker* (+ d (last-weight))))))
(inject-and-wait build)
(define addr (recv (('mesh v) v)))
(spawn (lambda () (! me (list 'finished (inject-and-wait (lambda () (walker* 0)) (vector-ref addr 0) 120)))))
(recv ('started #t))
(define report (on a (lambda () (drain-node b))))
(write (list 'drained (> (length (cdr (assq 'moved report))) 0) (cdr (assq 'failed report)) (cdr (assq 'logical-nodes report))))
(newline)
(m-send (vector-ref addr 0) 'go)
(write (recv (('finished r) r))) (newline)
;; Dijkstra, sequentially, on the same weights
(define (neighbours i j)
  (append (if (> j 0) (list (list i (- j 1) (hw i (- j 1)))) '())
          (if (< j (- n 1)) (list (list i (+ j 1) (hw i j))) '())
          (if (> i 0) (list (list (- i 1) j (vw (- i 1) j))) '())
          (if (< i (- n 1)) (list (list (+ i 1) j (vw i j))) '())))
(define (dijkstra)
  (let ((dist (make-vector (* n n) #f)) (done (make-vector (* n n) #f)))
    (vector-set! dist 0 0)
    (let loop ((k 0))
      (when (< k (* n n))
        (let pick ((c 0) (best #f))
          (cond ((< c (* n n))
                 (pick (+ c 1) (if (and (not (vector-ref done c)) (vector-ref dist c)
                                        (or (not best) (< (vector-ref dist c) (vector-ref dist best))))
                                   c best)))
                (best
                 (vector-set! done best #t)
                 (for-each (lambda (nb)
                             (let ((t (idx (car nb) (cadr nb))) (d (+ (vector-ref dist best) (caddr nb))))
                               (when (or (not (vector-ref dist t)) (< d (vector-ref dist t))) (vector-set! dist t d))))
                           (neighbours (quotient best n) (modulo best n)))
                 (loop (+ k 1)))))))
    dist))
(define got (vector-map (lambda (ad) (node-ref-at ad 'dist)) addr))
(write (list 'same (equal? got (dijkstra)) 'on-a (length (on a (lambda () (lnet-describe)))))) (newline)
`);
  // the logical nodes of A's half of the mesh (18 of the 36 cells) moved, with messengers on them
  assert.equal(lines[0], '(drained #t () 18)');
  assert.equal(lines[1], '#t');
  assert.equal(lines[2], '(same #t on-a 0)');
});

test('a daemon started with --drain-to moves its logical nodes and messengers to that node when it gets SIGTERM, then stops', async () => {
  const b = await daemon({ token });
  const a = await daemon({ token, join: [b.url], args: ['--drain-to', b.url] });
  const prelude = `(define a (make-node "127.0.0.1" ${a.port}))\n(define b (make-node "127.0.0.1" ${b.port}))\n(define me (self))\n`;
  /** @type {() => void} */
  let ready = () => {};
  const isReady = new Promise((resolve) => (ready = () => resolve(undefined)));
  const run = runProgram(`${prelude}
(define root-a (on a (lambda () (lnet-root))))
(spawn
  (lambda ()
    (inject-and-wait
      (lambda ()
        (create 'node 'x 'physical a)
        (node-set! 'count 7)
        (! me (list 'ready (current-lnode)))
        (wait-until 'go (lambda (v) v))
        (! me (list 'final (lnode-name) (node-ref 'count) (node-ref 'go) (equal? (current-node) b))))
      root-a)))
(define x (recv (('ready addr) addr)))
(display "ready") (newline)
;; the test stops a by SIGTERM now: wait (bounded) until it has left the mesh; x is on b
;; then, which holds it under the same address
(define others (length (mesh-nodes)))
(let wait ((i 0))
  (when (and (< i 1200) (= (length (mesh-nodes)) others))
    (sleep 0.05)
    (wait (+ i 1))))
(on b (lambda () (inject (lambda () (node-set! 'go 'woken)) x)))
(write (recv (('final . r) r))) (newline)
`, { token, join: [a.url, b.url], timeoutMs: 60000, onStdout: (out) => { if (out.includes('ready')) ready(); } });
  const early = await Promise.race([isReady.then(() => null), run]);
  assert.equal(early, null, `the program ended before it was ready: ${JSON.stringify(early)}`);
  await a.stop('SIGTERM');
  assert.match(a.log(), /drained to ws:\/\/127\.0\.0\.1:\d+: 1 processes moved, \d+ stayed, 0 failed; 2 logical nodes moved/);
  const r = await run;
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.split('\n').slice(0, -1), ['ready', '(x 7 woken #t)']);
});
