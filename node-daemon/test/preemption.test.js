// @ts-check
/**
 * A peer cannot freeze a daemon with the code it sends, nor fill it with processes or
 * messages (docs/processes.md, "Fairness"; docs/security.md, "Limits"). Real daemons
 * on free loopback ports, real `termite-node run` peers that remote-spawn, a witness
 * peer (a real mesh node in this process) whose link to the daemon must stay up. Every
 * wait is bounded; daemons are stopped by PID.
 *
 * Figures (t.diagnostic): the /health round trip from this process over ~50 polls while
 * the attack runs, median and worst.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runProgram, health, newToken, waitFor } from './helpers/daemons.js';
import { hostilePeer, R } from './helpers/peer.js';

/** The bound on the median /health round trip under attack (ms, docs/processes.md). */
const HEALTH_MEDIAN_MS = 20;
/** The worst /health round trip allowed here (ms): the bound plus room for a major GC of the attacker's data and a loaded machine. */
const HEALTH_WORST_MS = 300;

const token = newToken();
/** @type {import('./helpers/daemons.js').Daemon} */
let d;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} a well-behaved peer: its link to the daemon must never drop */
let witness;
/** @type {string[]} peers the witness saw go down */
const down = [];

before(async () => {
  d = await startDaemon({ token, args: ['--max-processes-per-peer', '400', '--max-mailbox', '3000'] });
  witness = await hostilePeer(d, token);
  witness.mesh.on('peer:down', (/** @type {any} */ e) => down.push(String(e?.id ?? e)));
});

after(async () => {
  await witness?.stop();
  await d?.stop('SIGKILL');
});

/** Poll /health `n` times, one after the other; each must answer ok. @param {number} n */
async function healthTimes(n) {
  /** @type {number[]} */
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const h = await health(d.url);
    times.push(performance.now() - t0);
    assert.equal(h.ok, true);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(n / 2)], max: times[n - 1] };
}

/** Start `thunk` on the daemon from a `termite-node run` peer that then leaves. @param {string} thunk @param {number} [copies] */
async function remoteSpawn(thunk, copies = 1) {
  const r = await runProgram(
    `(define a (make-node "127.0.0.1" ${d.port}))
     (do ((i 0 (+ i 1))) ((= i ${copies})) (remote-spawn a ${thunk}))
     (display "spawned") (newline)`,
    { token, join: [d.url], timeoutMs: 20_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'spawned\n');
}

/** The daemon is alive, answers HTTP and a peer's request, and its link to the witness stayed up. */
async function stillServing() {
  assert.equal(d.child.exitCode, null, 'the daemon process is alive');
  assert.equal((await health(d.url)).ok, true);
  const stats = await witness.request([R.STATS, []], 5000);
  assert.equal(stats[0], true, String(stats[1]));
  assert.deepEqual(down, [], 'the witness never lost the daemon (heartbeats kept up)');
}

test('a remote endless loop of length over a 100,000-element list: /health answers within the bound, heartbeats stay up', { timeout: 60_000 }, async (t) => {
  await remoteSpawn('(lambda () (let ((l (make-list 100000 1))) (let loop () (length l) (loop))))');
  const { p50, max } = await healthTimes(50);
  t.diagnostic(`/health under one 100k-list loop: median ${p50.toFixed(1)} ms, worst ${max.toFixed(1)} ms`);
  assert.ok(p50 <= HEALTH_MEDIAN_MS, `median /health ${p50.toFixed(1)} ms`);
  assert.ok(max <= HEALTH_WORST_MS, `worst /health ${max.toFixed(1)} ms`);
  await stillServing();
});

test('and a second loop over a 1,000,000-element list', { timeout: 60_000 }, async (t) => {
  await remoteSpawn('(lambda () (let ((l (make-list 1000000 1))) (let loop () (length l) (loop))))');
  const { p50, max } = await healthTimes(50);
  t.diagnostic(`/health under the 100k and 1M-list loops: median ${p50.toFixed(1)} ms, worst ${max.toFixed(1)} ms`);
  assert.ok(p50 <= HEALTH_MEDIAN_MS, `median /health ${p50.toFixed(1)} ms`);
  assert.ok(max <= HEALTH_WORST_MS, `worst /health ${max.toFixed(1)} ms`);
  await stillServing();
});

test('and ten remote endless loops of cheap steps', { timeout: 60_000 }, async (t) => {
  await remoteSpawn('(lambda () (let loop ((i 0)) (loop (+ i 1))))', 10);
  const { p50, max } = await healthTimes(50);
  t.diagnostic(`/health under 12 endless loops: median ${p50.toFixed(1)} ms, worst ${max.toFixed(1)} ms`);
  assert.ok(p50 <= HEALTH_MEDIAN_MS, `median /health ${p50.toFixed(1)} ms`);
  assert.ok(max <= HEALTH_WORST_MS, `worst /health ${max.toFixed(1)} ms`);
  await stillServing();
});

test('a remote fork bomb meets the per-peer process limit with resource-limit; the peer is told, another peer still spawns, and the processes are freed', { timeout: 60_000 }, async () => {
  // the bomb: every process spawns two more and waits; its spawns count against the peer
  const bomb = await runProgram(
    `(define a (make-node "127.0.0.1" ${d.port}))
     (remote-spawn a (lambda () (let bomb () (spawn bomb) (spawn bomb) (?))))
     ;; then spawn waiting processes until the daemon refuses (bounded), and say how
     (define (fill k pids)
       (if (= k 2000) (begin (display "never refused") (newline) pids)
           (let ((p (catch (lambda (e) (display (error-object-message e)) (newline) #f)
                      (remote-spawn a (lambda () (?))))))
             (if p (fill (+ k 1) (cons p pids)) pids))))
     (define pids (fill 0 '()))
     ;; end the ones this peer holds pids of, then spawn again once the daemon has room (bounded)
     (for-each terminate! pids)
     (define (again k)
       (cond ((= k 200) (display "still refused") (newline))
             ((catch (lambda (e) (sleep 0.05) #f) (remote-spawn a (lambda () 'ok)))
              (display "spawned again") (newline))
             (else (again (+ k 1)))))
     (again 0)`,
    { token, join: [d.url], timeoutMs: 40_000 },
  );
  assert.equal(bomb.status, 0, bomb.stderr);
  assert.match(bomb.stdout, /too many processes spawned from peer \w+ \(limit 400\)/);
  assert.doesNotMatch(bomb.stdout, /never refused/);
  await waitFor(() => /died: spawn: too many processes spawned from peer \w+ \(limit 400\)/.test(d.log()), 5000, 'the bomb processes refused');
  // another peer is not limited by the bomb's count
  const other = await runProgram(
    `(define a (make-node "127.0.0.1" ${d.port}))
     (display (on a (lambda () (+ 1 2)))) (newline)`,
    { token, join: [d.url], timeoutMs: 20_000 },
  );
  assert.equal(other.status, 0, other.stderr);
  assert.equal(other.stdout, '3\n');
  await stillServing();
});

test('a mailbox flood from a peer meets the mailbox limit; the daemon logs it and keeps serving', { timeout: 60_000 }, async () => {
  const r = await runProgram(
    `(define a (make-node "127.0.0.1" ${d.port}))
     (define sink (remote-spawn a (lambda () (? 600 #f))))
     (do ((i 0 (+ i 1))) ((= i 5000)) (! sink i))
     ;; a round trip after the flood: every SEND before it was handled by then
     (display (on a (lambda () 'after-flood))) (newline)`,
    { token, join: [d.url], timeoutMs: 30_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'after-flood\n');
  await waitFor(() => /mailbox of process \d+ is full \(\d+ messages, limit 3000\)/.test(d.log()), 5000, 'the full mailbox logged');
  await stillServing();
});

test('SIGTERM stops the daemon promptly while the endless loops still run', { timeout: 30_000 }, async (t) => {
  const t0 = performance.now();
  const exited = new Promise((resolve) => d.child.once('exit', (code, signal) => resolve({ code, signal })));
  d.child.kill('SIGTERM');
  const { code, signal } = /** @type {any} */ (await Promise.race([exited, new Promise((r) => setTimeout(() => r({ code: 'none', signal: null }), 5000))]));
  const ms = performance.now() - t0;
  t.diagnostic(`SIGTERM to exit: ${ms.toFixed(0)} ms`);
  assert.equal(signal, null, 'it exited by itself');
  assert.equal(code, 0, `exit status ${code} after ${ms.toFixed(0)} ms`);
  assert.ok(ms < 5000);
});
