// @ts-check
/**
 * Central tuple spaces across real daemons (docs/linda.md, "Kinds of space" and "What
 * each operation guarantees"): every operation from another node, blocking across
 * nodes, references that travel, and the exactly-once withdrawal — a requester's
 * process killed in the middle of an `in`, and a requester's daemon frozen with
 * SIGSTOP while the holder has withdrawn tuples for it and then killed with SIGKILL:
 * every tuple is counted, none lost, none duplicated. Daemons are OS processes on free
 * loopback ports, stopped by PID; a program that must wait for the test to act polls
 * for a file the test writes (bounded).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runProgram, newToken, waitFor } from './helpers/daemons.js';
import { daemonScope } from './helpers/daemon-scope.js';

const { daemon, dir } = daemonScope('linda-central-');

/** Scheme: wait (at most 20 s) for a file the test writes. */
const AWAIT_FILE = `
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
            (else (list 'count c 'expected n))))))`;

test('every operation on a central space works from another daemon\'s program, and a blocked in there is woken by the out on the holder', async () => {
  const token = newToken();
  const h = await daemon({ token });
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define s (make-space 'jobs 'central h))
(define (show . xs) (write xs) (newline))
(show 'kind (space-kind s) (equal? (space-home s) h) (equal? s (make-space 'jobs 'central h)) (equal? s (remote-space 'jobs h)))
(out s 'job 1) (out s 'job 2) (out s 'ref s)
(show 'ops (space-count s 'job ?integer) (rdp s 'job 1) (inp s 'job 1) (inp s 'job 1) (rd s 'job ?integer) (in s 'job ?integer))
(show 'timeouts (in-timeout 0.1 'none s 'job ?integer) (rd-timeout 0 'none s 'job ?integer))
(show 'travels (equal? (cadr (rd s 'ref ?any)) s) (on h (lambda () (list (space-kind s) (tuple-count s 'ref ?any)))))
(define me (self))
(spawn (lambda () (! me (list 'woken (in s 'later ?integer)))))
(spawn (lambda () (! me (list 'read (rd s 'later ?integer)))))
(sleep 0.2)
(on h (lambda () (out s 'later 7)))
(show 'blocking (?) (?))
(spawn-tuple s 'sq (lambda () (* 9 9)))
(show 'eval (in s 'sq ?integer))
(define a (in-async s 'async ?integer))
(show 'async-before (async-poll a))
(out s 'async 5)
(show 'async (async-collect a 5))
(show 'empty (space-count s ?any) (space-count s ?any ?any))
(show 'deadline (catch (lambda (e) (error-object-message e)) (with-qos 1 0.2 (lambda () (in s 'never ?integer))))
                (with-qos 2 5 (lambda () (in-timeout 0.05 'own s 'never ?integer))))
(show 'errors (catch (lambda (e) (error-object-message e)) (in s))
              (catch (lambda (e) (error-object-message e)) (in s 'x (list 1 ?integer)))
              (space-kind (make-space 'jobs 'distributed h))
              (catch (lambda (e) (error-object-message e)) (make-space 'jobs 'elsewhere)))
`, { token, join: [h.url], timeoutMs: 30000 });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  const line = (/** @type {string} */ tag) => lines.find((l) => l.startsWith(`(${tag} `)) ?? `missing ${tag}: ${r.stdout}\n${r.stderr}`;
  assert.equal(line('kind'), '(kind central #t #t #t)');
  assert.equal(line('ops'), '(ops 2 (job 1) (job 1) #f (job 2) (job 2))');
  assert.equal(line('timeouts'), '(timeouts none none)');
  assert.equal(line('travels'), '(travels #t (central 1))');
  assert.match(line('blocking'), /\(blocking \((woken|read) \(later 7\)\) \((woken|read) \(later 7\)\)\)/);
  assert.ok(line('blocking').includes('woken') && line('blocking').includes('read'), line('blocking'));
  assert.equal(line('eval'), '(eval (sq 81))');
  assert.equal(line('async-before'), '(async-before #f)');
  assert.equal(line('async'), '(async (async 5))');
  assert.equal(line('empty'), '(empty 0 1)');
  assert.equal(line('deadline'), '(deadline "in: the operation passed its deadline (with-qos) before a tuple matched" own)');
  assert.match(line('errors'), /a tuple needs at least one field/);
  assert.match(line('errors'), /a formal must be a whole field of the template/);
  assert.match(line('errors'), / distributed /); // a distributed reference with that home (joined on first use)
  assert.match(line('errors'), /expected the kind 'local, 'central or 'distributed/);
});

test('a process killed in the middle of a remote in leaves the tuple in the space', async () => {
  const token = newToken();
  const h = await daemon({ token });
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define s (make-space 'kill-mid-in 'central h))
${AWAIT_FILE}
;; twenty processes blocked in an in on the holder, killed before any tuple comes
(define waiters (let loop ((i 0) (acc '())) (if (= i 20) acc (loop (+ i 1) (cons (spawn (lambda () (in s 'x ?integer))) acc)))))
(sleep 0.3)
(for-each terminate! waiters)
;; their requests are cancelled at the holder (a tuple already on its way would be refused here and go back)
(on h (lambda () (do ((i 0 (+ i 1))) ((= i 20)) (out s 'x i))))
(write (list 'count (await-count s 20 'x ?integer))) (newline)
(write (list 'all (let loop ((i 0) (ok #t)) (if (= i 20) ok (loop (+ i 1) (and ok (inp s 'x i) (not (inp s 'x i)))))))) (newline)
`, { token, join: [h.url], timeoutMs: 30000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\(count 20\)/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(all #t\)/, r.stdout + r.stderr);
});

test('a requester daemon frozen while the holder withdrew tuples for it, then killed with SIGKILL: every tuple goes back, none duplicated', async () => {
  const token = newToken();
  const h = await daemon({ token });
  const q = await daemon({ token, join: [h.url] });
  const frozen = path.join(dir, 'frozen'), killed = path.join(dir, 'killed');
  let stage = 0;
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define q (make-node "127.0.0.1" ${q.port}))
(define s (make-space 'sigkill 'central h))
${AWAIT_FILE}
(define K 16)
(define N 40)
;; K processes on the requester daemon, each announcing itself, then waiting in an in
(do ((i 0 (+ i 1))) ((= i K))
  (remote-spawn q (lambda () (out s 'waiting i) (in s 'task ?integer))))
(await-count s K 'waiting ?integer)
(sleep 0.3) ; the in frames follow the announcements on the same link
(write '(freeze-me)) (newline)
(await-file "${frozen}")
;; the holder's helpers withdraw K of these for the frozen daemon, which cannot answer
(do ((i 0 (+ i 1))) ((= i N)) (out s 'task i))
(write (list 'withdrawn (await-count s (- N K) 'task ?integer))) (newline)
(write '(kill-me)) (newline)
(await-file "${killed}")
(write (list 'after (await-count s N 'task ?integer))) (newline)
(write (list 'each-once (let loop ((i 0) (ok #t)) (if (= i N) ok (loop (+ i 1) (and ok (inp s 'task i) (not (inp s 'task i)))))))) (newline)
`, {
    token,
    join: [h.url, q.url],
    timeoutMs: 60000,
    onStdout: (out) => {
      if (stage === 0 && out.includes('(freeze-me)')) {
        stage = 1;
        q.child.kill('SIGSTOP');
        writeFileSync(frozen, '');
      } else if (stage === 1 && out.includes('(kill-me)')) {
        stage = 2;
        void q.stop('SIGKILL').then(() => writeFileSync(killed, ''));
      }
    },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(stage, 2, r.stdout + r.stderr);
  assert.match(r.stdout, /\(withdrawn 24\)/, 'the holder had withdrawn K tuples for the frozen daemon: ' + r.stdout + r.stderr);
  assert.match(r.stdout, /\(after 40\)/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(each-once #t\)/, r.stdout + r.stderr);
});

test('a process waiting on a space whose holder is killed with SIGKILL gets an error, not a wait for ever; so does its in-async', async () => {
  const token = newToken();
  const h = await daemon({ token });
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define s (make-space 'doomed 'central h))
(define a (in-async s 'never-async ?integer))
(write '(waiting)) (newline)
(write (list 'raised (catch (lambda (e) (error-object-message e)) (in s 'never ?integer)))) (newline)
(write (list 'async (async-poll a) (catch (lambda (e) (error-object-message e)) (async-collect a 10)))) (newline)
`, { token, join: [h.url], timeoutMs: 30000, onStdout: (out) => { if (out.includes('(waiting)')) setTimeout(() => void h.stop('SIGKILL'), 300); } });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\(raised "the node holding the space doomed.* is unreachable/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(async #t "the node holding the space doomed.* is unreachable/, r.stdout + r.stderr);
});

test('the dashboard API shows each space with its kind, home, size and counts of tuples in and out', async () => {
  const token = newToken();
  const h = await daemon({ token });
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define s (make-space 'dash-jobs 'central h))
(do ((i 0 (+ i 1))) ((= i 12)) (out s 'job i))
(in s 'job 0) (in s 'job 1)
(write (list 'left (space-count s 'job ?integer))) (newline)
`, { token, join: [h.url], timeoutMs: 30000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\(left 10\)/);
  /** @type {any} */
  let space;
  await waitFor(async () => {
    const res = await fetch(`http://127.0.0.1:${h.port}/api/state`);
    const st = /** @type {any} */ (await res.json());
    const self = st.nodes.find((/** @type {any} */ n) => n.id === h.id);
    space = self?.spaces.find((/** @type {any} */ x) => x.name === 'dash-jobs');
    return space !== undefined && space.tuples === 10;
  }, 10000, 'the space in /api/state');
  assert.deepEqual(space, { name: 'dash-jobs', kind: 'central', home: h.id, durable: false, tuples: 10, outs: 12, ins: 2 });
});

/** A space of /api/state as the daemon `d` reports itself. @param {{port: number, id: string}} d @param {string} name */
async function apiSpace(d, name) {
  const res = await fetch(`http://127.0.0.1:${d.port}/api/state`);
  const st = /** @type {any} */ (await res.json());
  return st.nodes.find((/** @type {any} */ n) => n.id === d.id)?.spaces.find((/** @type {any} */ x) => x.name === name);
}

test('the dashboard API shows a distributed space at each replica: kind, its home, the replica\'s size and its own counts', async () => {
  const token = newToken();
  const h = await daemon({ token });
  const q = await daemon({ token, join: [h.url] });
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define q (make-node "127.0.0.1" ${q.port}))
(define ds (on h (lambda () (make-space 'dash-dts 'distributed))))
(write (on q (lambda () (out ds 'a 1) (out ds 'a 2) (out ds 'a 3) (in ds 'a 1) (list 'left (space-count ds 'a ?integer))))) (newline)
`, { token, join: [h.url], timeoutMs: 30000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\(left 2\)/);
  /** @type {any} */
  let atQ, atH;
  await waitFor(async () => {
    [atQ, atH] = await Promise.all([apiSpace(q, 'dash-dts'), apiSpace(h, 'dash-dts')]);
    return atQ?.tuples === 2 && atH?.tuples === 2;
  }, 10000, 'the distributed space in /api/state of both daemons');
  assert.deepEqual(atQ, { name: 'dash-dts', kind: 'distributed', home: h.id, durable: false, tuples: 2, outs: 3, ins: 1 });
  assert.deepEqual(atH, { name: 'dash-dts', kind: 'distributed', home: h.id, durable: false, tuples: 2, outs: 0, ins: 0 });
});

/** The holder's count of frames received from other nodes (/api/state's counters). @param {{port: number, id: string}} d */
async function framesReceived(d) {
  const res = await fetch(`http://127.0.0.1:${d.port}/api/state`);
  const st = /** @type {any} */ (await res.json());
  return /** @type {number} */ (st.nodes.find((/** @type {any} */ n) => n.id === d.id).counters.received);
}

test('out + in round trips from another daemon: the out rides in the in, and the acknowledgement in the next one (one frame a round trip, not three), and every withdrawal is final once', async () => {
  const token = newToken();
  const h = await daemon({ token });
  const rounds = 300;
  const before = await framesReceived(h);
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define s (make-space 'acked 'central h))
(define (loop i sum) (if (= i ${rounds}) sum (begin (out s 'x i) (loop (+ i 1) (+ sum (cadr (in s 'x ?integer)))))))
(write (list 'sum (loop 0 0) 'left (space-count s 'x ?integer))) (newline)
`, { token, join: [h.url], timeoutMs: 60000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`\\(sum ${(rounds * (rounds - 1)) / 2} left 0\\)`));
  /** @type {any} */
  let space;
  await waitFor(async () => (space = await apiSpace(h, 'acked'))?.ins === rounds, 10000, 'every withdrawal acknowledged');
  assert.deepEqual(space, { name: 'acked', kind: 'central', home: h.id, durable: false, tuples: 0, outs: rounds, ins: rounds });
  const frames = (await framesReceived(h)) - before;
  // one frame a round (the previous ACK, the out held back, the in), plus make-space, the
  // last ACK and what joining costs; the out alone would be 600, the ACK alone too 900
  assert.ok(frames >= rounds && frames <= rounds + 60, `${frames} frames for ${rounds} round trips`);
});

test('an out held back to ride in the next request is never overtaken: a message, a remote call, or nothing at all after it', async () => {
  const token = newToken();
  const h = await daemon({ token });
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define s (make-space 'held 'central h))
(define me (self))
;; a process on the holder looks for the tuple as soon as the message comes
(define checker (remote-spawn h (lambda () (let loop () (let ((m (?))) (! (car m) (list 'seen (cadr m) (and (inp s 'm (cadr m)) #t))) (loop))))))
(define (by-message n) (let loop ((i 0) (ok 0)) (if (= i n) ok (begin (out s 'm i) (! checker (list me i)) (loop (+ i 1) (if (caddr (?)) (+ ok 1) ok))))))
(write (list 'message (by-message 100))) (newline)
;; a remote call after the out
(define (by-call n) (let loop ((i 0) (ok 0)) (if (= i n) ok (begin (out s 'c i) (loop (+ i 1) (if (on h (lambda () (inp s 'c i))) (+ ok 1) ok))))))
(write (list 'call (by-call 30))) (newline)
;; nothing after it: a process on the holder already waits; this node then sends nothing
;; but the out, which leaves when the run loop ends
(remote-spawn h (lambda () (! me (list 'got (cadr (in s 'alone ?integer))))))
(out s 'alone 1)
(write (? 10 'never-came)) (newline)
`, { token, join: [h.url], timeoutMs: 60000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\(message 100\)/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(call 30\)/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(got 1\)/, r.stdout + r.stderr);
});

/**
 * The daemon's own process counters from /api/state, sampled after `since` (ms; the
 * dashboard keeps a sample for a moment): live processes and processes spawned so far.
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

test('in-async and rd-async on another daemon\'s space wait as requests of the caller\'s node: no helper process, every tuple collected', async () => {
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
(define s (make-space 'async-remote 'central h))
${AWAIT_FILE}
(define me (self))
;; one process on q starts 50 in-async and 2 rd-async on the holder's space, then collects them
(remote-spawn q (lambda ()
  (let* ((hs (let loop ((i 0) (acc '())) (if (= i 50) (reverse acc) (loop (+ i 1) (cons (in-async s 'task i) acc)))))
         (rs (list (rd-async s 'note ?any) (rd-async s 'note ?any))))
    (! me (list 'polled (async-poll (car hs)) (async-poll (car rs))))
    (! me (list 'got (apply + (map (lambda (h) (cadr (async-collect h 20))) hs)) (map async-collect rs))))))
(write (?)) (newline)
(write '(count-now)) (newline)
(await-file "${go}")
(on h (lambda () (do ((i 0 (+ i 1))) ((= i 50)) (out s 'task i)) (out s 'note 'n)))
(write (? 30)) (newline)
(write (list 'left (space-count s 'task ?integer) (space-count s 'note ?any))) (newline)
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
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\(polled #f #f\)/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(got 1225 \(\(note n\) \(note n\)\)\)/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(left 0 1\)/, r.stdout + r.stderr);
  assert.equal(counts.length, 2, 'counted while the operations waited');
  assert.equal(counts[1].spawned - counts[0].spawned, 1, '52 operations waiting on another node spawned no process beside their owner');
  assert.equal(counts[1].live - counts[0].live, 1, 'only the owner is alive on the caller');
});

test('processes killed while their in-async on another daemon\'s space is pending: each tuple stays in the space exactly once', async () => {
  const token = newToken();
  const h = await daemon({ token });
  const q = await daemon({ token, join: [h.url] });
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${h.port}))
(define q (make-node "127.0.0.1" ${q.port}))
(define s (make-space 'async-killed 'central h))
${AWAIT_FILE}
(define me (self))
(define N 20)
;; N processes on q, each with an in-async pending on the holder's space, never collected
(define owners
  (on q (lambda ()
          (let loop ((i 0) (acc '()))
            (if (= i N) acc
                (loop (+ i 1) (cons (spawn (lambda () (in-async s 'x ?integer) (! me 'pending) (?))) acc)))))))
(do ((i 0 (+ i 1))) ((= i N)) (?))
;; killed while the tuples are being put in: a request cancelled in time leaves its tuple alone,
;; a tuple already on its way to a dead owner is refused there and goes back
(on q (lambda () (for-each terminate! owners) 'killed))
(on h (lambda () (do ((i 0 (+ i 1))) ((= i N)) (out s 'x i))))
(write (list 'count (await-count s N 'x ?integer))) (newline)
(sleep 0.3)
(write (list 'still (space-count s 'x ?integer))) (newline)
(write (list 'each-once (let loop ((i 0) (ok #t)) (if (= i N) ok (loop (+ i 1) (and ok (inp s 'x i) (not (inp s 'x i)))))))) (newline)
`, { token, join: [h.url, q.url], timeoutMs: 60000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\(count 20\)/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(still 20\)/, r.stdout + r.stderr);
  assert.match(r.stdout, /\(each-once #t\)/, r.stdout + r.stderr);
});
