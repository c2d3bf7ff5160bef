// @ts-check
/**
 * Asynchronous operations on a distributed space (docs/linda.md, "Distributed spaces"):
 * `in-async` / `rd-async` wait as records beside the caller's replica
 * (packages/runtime/src/linda/dts-async.js), with no process behind them — counted on
 * the caller through /api/state — and every tuple is collected once; owners killed while
 * their `in-async` is pending leave each tuple in the space exactly once, at every
 * replica. Daemons are OS processes on free loopback ports, stopped by PID; a program
 * that must wait for the test polls for a file the test writes (bounded).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runProgram, newToken, waitFor } from './helpers/daemons.js';
import { daemonScope } from './helpers/daemon-scope.js';

const { daemon, dir } = daemonScope('linda-dts-async-');

const AWAIT = `
(define (await-file f)
  (let loop ((i 0))
    (cond ((file-exists? f) #t)
          ((< i 1000) (sleep 0.02) (loop (+ i 1)))
          (else (error "the test did not write" f)))))
(define (await-count s n . template)
  (let loop ((i 0))
    (let ((c (apply space-count s template)))
      (cond ((= c n) c)
            ((< i 500) (sleep 0.02) (loop (+ i 1)))
            (else c)))))
`;

/**
 * The daemon's own process counters from /api/state, sampled after `since`.
 * @param {{port: number, id: string}} d @param {number} [since]
 */
async function processCounts(d, since = Date.now()) {
  /** @type {any} */
  let st;
  await waitFor(async () => {
    st = await (await fetch(`http://127.0.0.1:${d.port}/api/state`)).json();
    return st.t >= since;
  }, 10000, 'a fresh sample of /api/state');
  const self = st.nodes.find((/** @type {any} */ n) => n.id === d.id);
  return { live: /** @type {number} */ (self.processes.live), spawned: /** @type {number} */ (self.counters.spawned) };
}

test('in-async and rd-async on a distributed space wait as records of the caller\'s replica: no helper process, every tuple collected once', async () => {
  const token = newToken();
  const h = await daemon({ token });
  const q = await daemon({ token, join: [h.url] });
  const go = path.join(dir, 'async-go');
  /** @type {{live: number, spawned: number}[]} */
  const counts = [await processCounts(q)];
  let stage = 0;
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define q (make-node "127.0.0.1" ${q.port}))
(define s (on h (lambda () (make-space 'async-dts 'distributed))))
(on h (lambda () (out s 'early 1)))
${AWAIT}
(define me (self))
;; one process on q starts 50 in-async and 2 rd-async on the space, then collects them
(remote-spawn q (lambda ()
  (let* ((e (in-async s 'early ?integer))
         (hs (let loop ((i 0) (acc '())) (if (= i 50) (reverse acc) (loop (+ i 1) (cons (in-async s 'task i) acc)))))
         (rs (list (rd-async s 'note ?any) (rd-async s 'note ?any))))
    (! me (list 'early (async-collect e 10)))
    (! me (list 'polled (async-poll (car hs)) (async-poll (car rs))))
    (! me (list 'got (apply + (map (lambda (h) (cadr (async-collect h 20))) hs)) (map async-collect rs))))))
(write (?)) (newline)
(write (?)) (newline)
(write '(count-now)) (newline)
(await-file "${go}")
(on h (lambda () (do ((i 0 (+ i 1))) ((= i 50)) (out s 'task i)) (out s 'note 'n)))
(write (? 30)) (newline)
(write (list 'left (await-count s 0 'task ?integer) (space-count s 'note ?any) (space-count s 'early ?integer))) (newline)
(write (list 'at-h (on h (lambda () (list (await-count s 0 'task ?integer) (space-count s 'note ?any)))))) (newline)
`, {
    token,
    join: [h.url, q.url],
    timeoutMs: 60000,
    onStdout: (out) => {
      if (stage === 0 && out.includes('(count-now)')) {
        stage = 1;
        void processCounts(q).then((c) => {
          counts.push(c);
          writeFileSync(go, '');
        });
      }
    },
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /\(early \(early 1\)\)/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(polled #f #f\)/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(got 1225 \(\(note n\) \(note n\)\)\)/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(left 0 1 0\)/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(at-h \(0 1\)\)/, r.stdout + r.stderr);
  assert.equal(counts.length, 2, 'counted while the operations waited');
  assert.equal(counts[1].spawned - counts[0].spawned, 1, '53 operations waiting on a distributed space spawned no process beside their owner');
  assert.equal(counts[1].live - counts[0].live, 1, 'only the owner is alive on the caller');
});

test('owners killed while their in-async on a distributed space is pending: each tuple stays in the space exactly once, at every replica', async () => {
  const token = newToken();
  const h = await daemon({ token });
  const q = await daemon({ token, join: [h.url] });
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define q (make-node "127.0.0.1" ${q.port}))
(define s (on h (lambda () (make-space 'async-dts-killed 'distributed))))
${AWAIT}
(define me (self))
(define N 20)
;; N processes on q, each with an in-async pending on the space, never collected
(define owners
  (on q (lambda ()
          (let loop ((i 0) (acc '()))
            (if (= i N) acc
                (loop (+ i 1) (cons (spawn (lambda () (in-async s 'x ?integer) (! me 'pending) (?))) acc)))))))
(do ((i 0 (+ i 1))) ((= i N)) (?))
;; killed, then the tuples are put in on the home at once: an announced in cancelled in time
;; leaves its tuple to the home; a tuple made for an announcement still standing there is
;; owned by q and stays at q; none is handed to a dead owner
(on q (lambda () (for-each terminate! owners) 'killed))
(on h (lambda () (do ((i 0 (+ i 1))) ((= i N)) (out s 'x i))))
(write (list 'at-q (on q (lambda () (await-count s N 'x ?integer))))) (newline)
(write (list 'at-h (on h (lambda () (await-count s N 'x ?integer))))) (newline)
(write (list 'each-once (let loop ((i 0) (ok #t)) (if (= i N) ok (loop (+ i 1) (and ok (inp s 'x i) (not (inp s 'x i)))))))) (newline)
(write (list 'after (on h (lambda () (await-count s 0 'x ?integer))) (on q (lambda () (await-count s 0 'x ?integer))))) (newline)
`, { token, join: [h.url, q.url], timeoutMs: 60000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /\(at-q 20\)/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(at-h 20\)/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(each-once #t\)/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(after 0 0\)/, r.stdout + r.stderr);
});
