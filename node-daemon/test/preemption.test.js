// @ts-check
/**
 * A peer cannot freeze a daemon with the code it sends, nor fill it with processes or
 * messages (docs/processes.md, "Fairness"; docs/security.md, "Limits"). Real daemons
 * on free loopback ports, real `termite-node run` peers that remote-spawn, a witness
 * peer (a real mesh node in this process) whose link to the daemon must stay up. Every
 * wait is bounded; daemons are stopped by PID.
 *
 * Figures (t.diagnostic): the /health round trip from this process over ~50 polls while
 * the attack runs, median and worst, beside the same on the idle daemon before any
 * attack; the bounds are the stated ones (20 ms median, 300 ms worst) plus twice the
 * idle daemon's figures, so the machine's load is not counted as the attack's — or,
 * past those, twice what a daemon running one endless loop of cheap steps gives right
 * after (on a loaded machine a busy daemon is scheduled later than an idle one).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { startDaemon, runProgram, health, newToken, waitFor } from './helpers/daemons.js';
import { hostilePeer, R, F, unitOf, closureRef } from './helpers/peer.js';

/** The bound on the median /health round trip under attack (ms, docs/processes.md). */
const HEALTH_MEDIAN_MS = 20;
/** The worst /health round trip allowed here (ms): the bound plus room for a major GC of the attacker's data and a loaded machine. */
const HEALTH_WORST_MS = 300;
/**
 * The scale: the short version in `npm test`; `npm run attack` (TERMITE_ATTACK=full) runs
 * the issue's numbers — the second loop over a 5,000,000-element list with /health polled
 * for 60 s, a fork bomb to the daemon's default per-peer limit, a 1,000,000-message flood
 * against the default mailbox limit.
 */
const FULL = process.env.TERMITE_ATTACK === 'full';
const BIG_LIST = FULL ? 5_000_000 : 1_000_000;
/** How long /health is polled under the big-list loop (ms; 0: just the 50 polls). */
const POLL_MS = FULL ? 60_000 : 0;
const PER_PEER = FULL ? 100_000 : 400;
const MAILBOX = FULL ? 500_000 : 3000;
/** The flood: BATCHES batches of BATCH sends, each batch followed by a round trip. */
const BATCH = FULL ? 5000 : 500;
const BATCHES = FULL ? 200 : 10;
/** How long a bomb process waits before it ends (s): long enough for the bomb to reach the limit. */
const BOMB_WAIT_S = FULL ? 10 : 5;
/** Pairs each bomb process holds (so that the memory it takes, and gives back, shows). */
const BALLAST = FULL ? 20 : 3000;
/** The bomb's depth: a binary tree of processes twice the per-peer limit, so it meets the limit and then ends. */
const BOMB_DEPTH = Math.ceil(Math.log2(PER_PEER)) + 1;

const token = newToken();
/** @type {import('./helpers/daemons.js').Daemon} the daemon the endless loops run on */
let d;
/** @type {import('./helpers/daemons.js').Daemon} a daemon for the limits, with no loop running */
let e;
/** @type {import('./helpers/daemons.js').Daemon} the reference: a daemon that runs one loop of cheap steps while it is timed (busyFigures) */
let r;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} a well-behaved peer: its link to the daemon must never drop */
let witness;
/** @type {string[]} peers the witness saw go down */
const down = [];
/** /health on the idle daemon, polled before any attack (the machine's load, measured in the same run). */
let idle = { p50: 0, max: 0, polls: 0 };

before(async () => {
  d = await startDaemon({ token });
  e = await startDaemon({ token, args: ['--max-processes-per-peer', String(PER_PEER), '--max-mailbox', String(MAILBOX)] });
  r = await startDaemon({ token });
  witness = await hostilePeer(d, token);
  witness.mesh.on('peer:down', (/** @type {any} */ e) => down.push(String(e?.id ?? e)));
  await healthTimes(10); // warm-up: the first requests compile the HTTP path
  idle = await healthTimes(50);
});

/**
 * The bounds under attack: the stated ones plus twice what an idle daemon took in the
 * same run (on an idle machine that is ~1 ms: the stated bounds; on a loaded one, the
 * time the OS keeps the daemon or this process waiting is not the attack's doing). The
 * idle figure is the larger of the attacked daemon's before any attack and the other
 * daemon's (no loop on it) just after the attack's polls, so a load that rose meanwhile
 * on the shared machine raises the bounds with it.
 * @param {{p50: number, max: number}} now
 */
function bounds(now, busy = { p50: 0, max: 0 }, gcMs = 0) {
  return {
    median: Math.max(HEALTH_MEDIAN_MS + 2 * Math.max(idle.p50, now.p50), 2 * busy.p50),
    worst: Math.max(HEALTH_WORST_MS + 2 * Math.max(idle.max, now.max), 2 * busy.max) + gcMs,
  };
}

/**
 * The longest garbage-collection pause the attacked daemon reports (/health `gcPauses`)
 * during the polls `f`: a collection of the attacker's live data is not preemption's to
 * bound (docs/processes.md states its length), so the worst answer may take that longer.
 * @param {{startedAt: number}} f @param {string} url
 */
async function gcPauseDuring(f, url) {
  const h = await health(url);
  const since = performance.now() - f.startedAt;
  return Math.max(0, ...(h.gcPauses ?? []).filter((/** @type {any} */ p) => p.endedMsAgo <= since).map((/** @type {any} */ p) => p.ms));
}

/**
 * /health, `polls` times, on the reference daemon `r` while it runs one endless loop of
 * cheap steps (spawned by a peer for the polls, then killed): what a busy daemon's
 * answers take on this machine now. On a loaded machine an idle daemon, woken by a
 * request, is scheduled sooner than one that runs, so a busy daemon is held to twice
 * this rather than to the idle figures alone (the runtime's preemption test holds its
 * cases the same way, to one loop of cheap steps).
 * @param {number} polls
 */
async function busyFigures(polls) {
  const peer = await hostilePeer(r, token);
  try {
    const u = unitOf('(lambda (s) (lambda () (let loop ((i s)) (loop (+ i 1)))))');
    peer.units.set(u.hash, ['busy-reference', u.data, false]);
    const inner = u.lambdas.findIndex((l) => l.nfree === 1);
    const spawned = await peer.request([R.SPAWN, closureRef(u.hash, 'busy-env', inner, [0]), null, false, []], 20_000);
    assert.equal(spawned[0], true, String(spawned[1]));
    try {
      return await healthTimes(polls, 0, r.url);
    } finally {
      peer.send([F.KILL, spawned[1].node, spawned[1].n, []]);
      await waitFor(async () => (await health(r.url)).processes <= 1, 10_000, 'the reference loop killed');
    }
  } finally {
    await peer.stop();
  }
}

/**
 * Check /health figures against bounds(), with `now` the idle figures of this moment:
 * by default the daemon `e` (no loop on it) timed right after.
 * @param {{p50: number, max: number, polls: number, startedAt: number}} f @param {string} what @param {import('node:test').TestContext} t
 * @param {{p50: number, max: number}} [given] @param {string} [url] the attacked daemon's
 */
async function withinBounds(f, what, t, given, url = d.url) {
  const gcMs = await gcPauseDuring(f, url);
  const now = given ?? await healthTimes(Math.min(f.polls, 200), 0, e.url);
  let b = bounds(now, undefined, gcMs);
  let busy = gcMs > 0 ? `; the attacked daemon's longest GC pause meanwhile ${gcMs} ms` : '';
  if (f.p50 > b.median || f.max > b.worst) {
    // past the bounds an idle daemon gives: held to what a daemon running cheap steps gives now
    const ref = await busyFigures(Math.min(f.polls, 100));
    b = bounds(now, ref, gcMs);
    busy += `; a daemon running one loop of cheap steps, right after: median ${ref.p50.toFixed(1)} ms, worst ${ref.max.toFixed(1)} ms`;
  }
  t.diagnostic(`/health ${what}: median ${f.p50.toFixed(1)} ms, worst ${f.max.toFixed(1)} ms; idle daemon before: median ${idle.p50.toFixed(1)} ms, worst ${idle.max.toFixed(1)} ms; the idle daemon just before or after: median ${now.p50.toFixed(1)} ms, worst ${now.max.toFixed(1)} ms${busy} (load average ${os.loadavg()[0].toFixed(1)}); bounds ${b.median.toFixed(1)} / ${b.worst.toFixed(1)} ms`);
  assert.ok(f.p50 <= b.median, `median /health ${f.p50.toFixed(1)} ms (bound ${b.median.toFixed(1)})`);
  assert.ok(f.max <= b.worst, `worst /health ${f.max.toFixed(1)} ms (bound ${b.worst.toFixed(1)})`);
}

after(async () => {
  await witness?.stop();
  await Promise.all([d?.stop('SIGKILL'), e?.stop('SIGKILL'), r?.stop('SIGKILL')]);
});

/**
 * Poll /health `n` times, one after the other, and for at least `ms`; each must answer ok.
 * @param {number} n @param {number} [ms] @param {string} [url] the attacked daemon's by default
 */
async function healthTimes(n, ms = 0, url = d.url) {
  /** @type {number[]} */
  const times = [];
  const t00 = performance.now();
  for (let i = 0; i < n || performance.now() - t00 < ms; i++) {
    const t0 = performance.now();
    const h = await health(url);
    times.push(performance.now() - t0);
    assert.equal(h.ok, true);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)], max: times[times.length - 1], polls: times.length, startedAt: t00 };
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
  const f = await healthTimes(50);
  await withinBounds(f, `under one 100k-list loop (${f.polls} polls)`, t);
  await stillServing();
});

test(`and a second loop over a ${BIG_LIST.toLocaleString('en')}-element list`, { timeout: POLL_MS + 60_000 }, async (t) => {
  await remoteSpawn(`(lambda () (let ((l (make-list ${BIG_LIST} 1))) (let loop () (length l) (loop))))`);
  const f = await healthTimes(50, POLL_MS);
  await withinBounds(f, `under the 100k and ${BIG_LIST / 1e6}M-list loops (${f.polls} polls)`, t);
  await stillServing();
});

test('and ten remote endless loops of cheap steps', { timeout: 60_000 }, async (t) => {
  await remoteSpawn('(lambda () (let loop ((i 0)) (loop (+ i 1))))', 10);
  const f = await healthTimes(50);
  await withinBounds(f, `under 12 endless loops (${f.polls} polls)`, t);
  await stillServing();
});

/**
 * The fork bomb's processes end (they were the attacker's), and their memory comes back:
 * with the other peer's process allocating (so that V8 collects), the daemon's heap falls
 * back near where it was before the bomb.
 * @param {any} other the other peer @param {{hash: string, lambdas: any[]}} churn the allocating unit
 * @param {any} before /health before the bomb @param {any} peak /health at the bomb's largest heap
 * @param {import('node:test').TestContext} t
 */
async function memoryBack(other, churn, before, peak, t) {
  const churnInner = churn.lambdas.findIndex((l) => l.nfree === 1);
  const held = peak.heapUsedBytes - before.heapUsedBytes;
  assert.ok(held > 16 * 2 ** 20, `the bomb held ${(held / 2 ** 20).toFixed(0)} MiB at its peak`);
  await waitFor(async () => (await health(e.url)).processes <= before.processes, 30_000, 'the bomb\'s processes ended');
  const ended = performance.now();
  const churning = await other.request([R.SPAWN, closureRef(churn.hash, 'other-env', churnInner, [FULL ? 2000 : 400]), null, false, []], 20_000);
  assert.equal(churning[0], true, String(churning[1]));
  const churners = [churning[1]];
  /** @type {any} */
  let now = null;
  // the heap shows memory given back only after a major collection: on a loaded machine
  // the first churn can end before V8 made one, so another is started (one at a time,
  // at most 8) while the heap is still high and the last churn has ended
  let churns = 1;
  await waitFor(async () => {
    now = await health(e.url);
    if (now.heapUsedBytes < before.heapUsedBytes + held / 2) return true;
    // or the live heap, read just after a major collection made since the bomb ended
    // (at any other moment the churn's own garbage is counted too)
    const live = now.heapAfterMajorGc;
    if (live !== null && live.endedMsAgo < performance.now() - ended && live.bytes < before.heapUsedBytes + held / 2) {
      now = { ...now, heapUsedBytes: live.bytes };
      return true;
    }
    if (now.processes <= before.processes && churns < 8) {
      churns++;
      const again = await other.request([R.SPAWN, closureRef(churn.hash, 'other-env', churnInner, [FULL ? 2000 : 400]), null, false, []], 20_000);
      assert.equal(again[0], true, String(again[1]));
      churners.push(again[1]);
    }
    return false;
  }, 60_000, 'the bomb\'s memory back').catch((err) => {
    throw new Error(`${err.message}: ${now?.processes} processes (${before.processes} before), heap ${(now?.heapUsedBytes / 2 ** 20).toFixed(0)} MiB (after the last major collection ${now?.heapAfterMajorGc === null ? 'none' : `${(now?.heapAfterMajorGc.bytes / 2 ** 20).toFixed(0)} MiB, ${now?.heapAfterMajorGc.endedMsAgo} ms ago`}) (${(before.heapUsedBytes / 2 ** 20).toFixed(0)} MiB before, ${(peak.heapUsedBytes / 2 ** 20).toFixed(0)} at the peak)`);
  });
  // the churn has done its work: it must not run on into the next test
  for (const pid of churners) other.send([F.KILL, pid.node, pid.n, []]);
  await waitFor(async () => (await health(e.url)).processes <= before.processes, 10_000, 'the churn killed');
  t.diagnostic(`daemon heap: ${(before.heapUsedBytes / 2 ** 20).toFixed(0)} MiB before, ${(peak.heapUsedBytes / 2 ** 20).toFixed(0)} MiB at the bomb's peak, ${(now.heapUsedBytes / 2 ** 20).toFixed(0)} MiB after`);
}

test('a remote fork bomb meets the per-peer process limit with resource-limit; /health answers and another peer spawns while it is at the limit, and the processes and their memory are freed', { timeout: FULL ? 240_000 : 90_000 }, async (t) => {
  // another peer, linked before the bomb (a real mesh node in this process), whose SPAWN
  // is made while the bomb holds the daemon at the attacker's limit
  const other = await hostilePeer(e, token);
  try {
    const u = unitOf('(lambda (s) (lambda () (? s #f)))');
    other.units.set(u.hash, ['other-peer', u.data, false]);
    const inner = u.lambdas.findIndex((l) => l.nfree === 1);
    // a process that allocates (lists of 200,000 pairs, each kept until the next is built,
    // n times): what makes V8 collect, so that memory given back shows in the heap. Each
    // list outlives young-generation collections, so it fills the old generation until
    // V8 makes the major collection that shows the bomb's memory given back
    const churn = unitOf('(lambda (n) (lambda () (let loop ((k 0) (kept \'())) (if (< k n) (loop (+ k 1) (make-list 200000 k)) (length kept)))))');
    other.units.set(churn.hash, ['other-peer', churn.data, false]);
    const quiet = await healthTimes(30, 0, e.url); // e before the bomb: the idle figures of now
    const before = await health(e.url);
    const t0 = performance.now();
    // the bomb: every process holds BALLAST pairs and spawns two more (until refused, or
    // BOMB_DEPTH deep: the bomb is finite, so once it meets the limit it ends),
    // then waits BOMB_WAIT_S and ends; spawns count against the peer
    const bombRun = runProgram(
      `(define a (make-node "127.0.0.1" ${e.port}))
       (remote-spawn a (lambda () (let bomb ((depth 0)) (let ((ballast (make-list ${BALLAST} 1))) (if (< depth ${BOMB_DEPTH}) (catch (lambda (e) #f) (spawn (lambda () (bomb (+ depth 1)))) (spawn (lambda () (bomb (+ depth 1)))))) (? ${BOMB_WAIT_S} #f) (length ballast)))))
       ;; spawn more from here until the daemon refuses (bounded), and say how
       (define (fill k)
         (cond ((= k 2000) (display "never refused") (newline))
               ((catch (lambda (e) (display (error-object-message e)) (newline) #f)
                  (remote-spawn a (lambda () (? ${BOMB_WAIT_S} #f))))
                (fill (+ k 1)))))
       (fill 0)
       ;; once the bomb's processes have ended, this peer may spawn again (bounded wait)
       (define (again k)
         (cond ((= k ${BOMB_WAIT_S * 100}) (display "still refused") (newline))
               ((catch (lambda (e) (sleep 0.05) #f) (remote-spawn a (lambda () 'ok)))
                (display "spawned again") (newline))
               (else (again (+ k 1)))))
       (again 0)`,
      { token, join: [e.url], timeoutMs: FULL ? 200_000 : 60_000 },
    );
    // /health while the bomb grows, until it holds the daemon at the limit (bounded);
    // timed from the poll after the bomb has a tenth of its processes: before that, the
    // daemon compiles the code the attacker sent (its first unit, on a cold compiler),
    // which is not the bomb's doing
    /** @type {number[]} */
    const times = [];
    let peak = before;
    let growing = false;
    await waitFor(async () => {
      const h0 = performance.now();
      const h = await health(e.url);
      if (growing) times.push(performance.now() - h0);
      growing ||= h.processes >= PER_PEER / 10;
      if (h.heapUsedBytes > peak.heapUsedBytes) peak = h;
      return h.processes >= PER_PEER;
    }, FULL ? 150_000 : 40_000, `the bomb at the per-peer limit of ${PER_PEER}`);
    times.sort((x, y) => x - y);
    const growth = times.length === 0 ? 'none' : `median ${times[times.length >> 1].toFixed(1)} ms, worst ${times[times.length - 1].toFixed(1)} ms (${times.length} polls)`;
    t.diagnostic(`/health while the bomb grew from a tenth of the limit to the limit: ${growth}`);
    assert.ok(times.length === 0 || times[times.length - 1] <= bounds(quiet).worst, `worst /health while the bomb grew: ${growth}`);
    // and while the bomb holds the daemon at the limit
    const held = await healthTimes(20, 0, e.url);
    const spawned = await other.request([R.SPAWN, closureRef(u.hash, 'other-env', inner, [5]), null, false, []], 20_000);
    const during = await health(e.url);
    assert.equal(spawned[0], true, `another peer's spawn while the bomb is at its limit: ${spawned[1]}`);
    assert.ok(during.processes >= PER_PEER, `the bomb still held the limit when the other peer spawned (${during.processes} processes)`);
    await withinBounds(held, `while the bomb held the limit (${held.polls} polls)`, t, quiet, e.url);
    const bomb = await bombRun;
    t.diagnostic(`fork bomb to the per-peer limit of ${PER_PEER} and back: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    assert.equal(bomb.status, 0, bomb.stderr + bomb.stdout);
    assert.match(bomb.stdout, new RegExp(`^spawn: too many processes spawned from peer \\w+ \\(limit ${PER_PEER}\\)`, 'm'));
    assert.doesNotMatch(bomb.stdout, /never refused|still refused/);
    assert.match(bomb.stdout, /spawned again\n$/);
    await memoryBack(other, churn, before, peak, t);
    assert.equal(e.child.exitCode, null);
  } finally {
    await other.stop();
  }
});

test('a mailbox flood from a peer meets the mailbox limit; the daemon logs it and keeps serving', { timeout: FULL ? 400_000 : 60_000 }, async (t) => {
  const t0 = performance.now();
  // batches of BATCH SENDs, each followed by a round trip (so each batch has arrived)
  const r = await runProgram(
    `(define a (make-node "127.0.0.1" ${e.port}))
     (define sink (remote-spawn a (lambda () (sleep 600))))
     (do ((b 0 (+ b 1))) ((= b ${BATCHES}))
       (do ((i 0 (+ i 1))) ((= i ${BATCH})) (! sink (+ (* b ${BATCH}) i)))
       (on a (lambda () 'sync)))
     (display (on a (lambda () 'after-flood))) (newline)`,
    { token, join: [e.url], timeoutMs: FULL ? 360_000 : 30_000 },
  );
  const seconds = (performance.now() - t0) / 1000;
  t.diagnostic(`${BATCH * BATCHES} messages against a mailbox limit of ${MAILBOX}: ${seconds.toFixed(1)} s`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'after-flood\n');
  await waitFor(() => new RegExp(`mailbox of process \\d+ is full \\(\\d+ messages, limit ${MAILBOX}\\)`).test(e.log()), 5000, 'the full mailbox logged');
  // each refused message is dropped with its sender told, one log line a second, not one a message
  const refusals = e.log().split('\n').filter((l) => /refused: .*mailbox of process \d+ is full/.test(l));
  assert.ok(refusals.length >= 1, 'the refusal is logged');
  assert.ok(refusals.length <= Math.max(10, Math.ceil(seconds) + 1), `refusals are logged once a second, not per message (${refusals.length} lines)`);
  assert.doesNotMatch(e.log(), /message handler threw/);
  assert.match(r.stderr, /refused a frame from this node: .*mailbox of process \d+ is full/, 'the sender\'s node is told');
  assert.equal(e.child.exitCode, null);
  assert.equal((await health(e.url)).ok, true);
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

test('a limit that is not a positive integer is a usage error: exit status 2 with the reason', async () => {
  const { spawnSync } = await import('node:child_process');
  const { bin } = await import('./helpers/daemons.js');
  const r = spawnSync(process.execPath, [bin, '--max-mailbox', '0', '--port', '0'], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--max-mailbox must be a positive integer, got 0/);
});
