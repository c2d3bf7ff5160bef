// @ts-check
/**
 * Processes on the C core's scheduler (docs/processes.md, "The scheduler"). Hundreds
 * of thousands of them; a process in an endless loop does not starve the others
 * (reduction-based pre-emption); the JavaScript event loop keeps running under load; the idle cost of a
 * process (reported, and bounded well under Erlang's ~2.7 KB).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { withNode, schemeOut, SHOW } from './harness.js';
import { W_EXTERNAL } from '../src/termite-node/process.js';

/**
 * Let `proc` run up to its receive (bounded: a few event-loop turns).
 * @param {any} node @param {any} proc
 */
async function untilWaiting(node, proc) {
  for (let i = 0; i < 1000 && !node.isWaiting(proc); i++) await new Promise((r) => setImmediate(r));
}

/**
 * Spawn a Scheme thunk and let it reach its receive.
 * @param {any} node @param {string} thunk
 */
async function spawnWaiting(node, thunk) {
  const proc = node.local(node.spawnScheme(thunk));
  await untilWaiting(node, proc);
  assert.ok(node.isWaiting(proc), `the process never waited: ${thunk}`);
  return proc;
}

/** A garbage collection on demand, for the memory figure (without --expose-gc on the command line). */
function getGc() {
  v8.setFlagsFromString('--expose-gc');
  return /** @type {() => void} */ (vm.runInNewContext('gc'));
}

test('200,000 processes alive at once all answer', { timeout: 120_000 }, async () => {
  const out = await schemeOut(
    `${SHOW}
    (define n 200000)
    (define me (self))
    ;; every process waits for one message (sender . i) and answers i
    (define pids
      (let loop ((i 0) (acc '()))
        (if (= i n)
            acc
            (loop (+ i 1) (cons (spawn (lambda () (let ((m (?))) (! (car m) (cdr m))))) acc)))))
    (let loop ((ps pids) (i 0))
      (if (pair? ps) (begin (! (car ps) (cons me i)) (loop (cdr ps) (+ i 1)))))
    (define sum (let loop ((k 0) (s 0)) (if (= k n) s (loop (+ k 1) (+ s (?))))))
    (show (= sum (/ (* n (- n 1)) 2)) (length pids))`,
    { limitMs: 100_000 },
  );
  assert.equal(out, '#t 200000\n');
});

test('300,000 short-lived processes: each sends once and ends', { timeout: 120_000 }, async () => {
  await withNode(async ({ node, run }) => {
    const r = await run(
      `${SHOW}
      (define me (self))
      (do ((i 0 (+ i 1))) ((= i 300000)) (spawn (lambda () (! me 1))))
      (show (let loop ((k 0) (s 0)) (if (= k 300000) s (loop (+ k 1) (+ s (?))))))`,
      { limitMs: 100_000 },
    );
    assert.ok(r.ok, r.message);
    assert.equal(r.out, '300000\n');
    assert.ok(node.stats.spawned >= 300001);
  });
});

test('a process in an endless loop does not starve the others', { timeout: 30_000 }, async () => {
  const out = await schemeOut(`${SHOW}
    ;; two processes that never block and never receive
    (define hog1 (spawn (lambda () (let loop ((i 0)) (loop (+ i 1))))))
    (define hog2 (spawn (lambda () (let loop () (loop)))))
    (define echo (spawn (lambda () (let loop () (recv ((from tag x) (! from (list tag x)))) (loop)))))
    ;; a hundred round trips, each bounded: with pre-emption every slice is short
    (define answers
      (let loop ((k 0) (acc '()))
        (if (= k 100) acc (loop (+ k 1) (cons (!? echo k 2 'starved) acc)))))
    (show (length answers) (memq 'starved answers) (process-alive? hog1) (process-alive? hog2))
    (terminate! hog1)
    (terminate! hog2)`);
  assert.equal(out, '100 #f #t #t\n');
});

test('a busy process is pre-empted: its slices alternate with another busy process', { timeout: 30_000 }, async () => {
  // Two counting processes report their progress; both make progress while the other runs.
  const out = await schemeOut(`${SHOW}
    (define me (self))
    (define (counter name)
      (lambda ()
        (let loop ((i 0))
          (if (= (remainder i 20000) 0) (! me (list name i)))
          (loop (+ i 1)))))
    (define a (spawn (counter 'a)))
    (define b (spawn (counter 'b)))
    ;; wait until each has reported at least 10 times
    (define (wait na nb)
      (if (and (>= na 10) (>= nb 10))
          'both-progressed
          (recv (('a _) (wait (+ na 1) nb))
                (('b _) (wait na (+ nb 1)))
                (after 10 (list 'stuck na nb)))))
    (show (wait 0 0))
    (terminate! a)
    (terminate! b)`);
  assert.equal(out, 'both-progressed\n');
});

test('the JavaScript event loop stays responsive while processes compute', { timeout: 30_000 }, async () => {
  await withNode(async ({ node, run }) => {
    // The main program returns at once; its two busy processes keep the scheduler full.
    const r = await run(`(spawn (lambda () (let loop ((i 0)) (loop (+ i 1)))))
                         (spawn (lambda () (let loop () (loop))))
                         'started`);
    assert.ok(r.ok, r.message);
    const slices0 = node.stats.slices;
    const timerLatencies = [];
    for (let k = 0; k < 20; k++) {
      const t0 = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 5));
      timerLatencies.push(performance.now() - t0);
    }
    const t0 = performance.now();
    await new Promise((resolve) => setImmediate(resolve));
    const immediate = performance.now() - t0;
    // the processes kept running between the timers
    assert.ok(node.stats.slices > slices0 + 20, `only ${node.stats.slices - slices0} slices ran`);
    const worst = Math.max(...timerLatencies);
    // a 5 ms timer fires within a scheduler turn (8 ms) plus generous slack for a loaded machine
    assert.ok(worst < 250, `a 5 ms timer took ${worst.toFixed(1)} ms`);
    assert.ok(immediate < 250, `setImmediate took ${immediate.toFixed(1)} ms`);
  });
});

test('I/O completes under load: a file read finishes while processes compute', { timeout: 30_000 }, async () => {
  const { readFile } = await import('node:fs/promises');
  await withNode(async ({ run }) => {
    const r = await run(`(spawn (lambda () (let loop () (loop)))) 'started`);
    assert.ok(r.ok, r.message);
    const t0 = performance.now();
    const text = await readFile(new URL(import.meta.url), 'utf8');
    assert.ok(text.length > 0);
    assert.ok(performance.now() - t0 < 1000);
  });
});

test('idle processes are cheap: bytes per process waiting in ?', { timeout: 120_000 }, async (t) => {
  const gc = getGc();
  await withNode(async ({ node, run }) => {
    const N = 100_000;
    const settle = async () => {
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    await run(`(do ((i 0 (+ i 1))) ((= i 100)) (spawn (lambda () (?))))`);
    await settle();
    const heap0 = process.memoryUsage().heapUsed;
    const core0 = node.core.liveBytes;
    const live0 = node.core.processStats().live;
    const r = await run(`(do ((i 0 (+ i 1))) ((= i ${N})) (spawn (lambda () (?))))`);
    assert.ok(r.ok, r.message);
    // let every new process run up to its receive (bounded)
    const deadline = performance.now() + 30_000;
    while (node.core.processStats().ready > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    await settle();
    const live = node.core.processStats().live - live0;
    assert.equal(live, N);
    const corePer = (node.core.liveBytes - core0) / N;
    const heapPer = (process.memoryUsage().heapUsed - heap0) / N;
    t.diagnostic(`idle process: ${corePer.toFixed(0)} B in the core + ${heapPer.toFixed(0)} B of JS heap`);
    assert.ok(corePer > 0 && corePer < 1024, `core bytes per process: ${corePer}`);
    assert.ok(heapPer > 0 && heapPer < 1024, `heap bytes per process: ${heapPer}`);
  });
});

test('a message delivered from the network runs its receiver before the next task, not a task later', () =>
  withNode(async ({ node }) => {
    const proc = await spawnWaiting(node, '(lambda () (?) (? 0.001 #f))');
    /** @type {boolean | null} */
    let tookIt = null;
    // queued before the delivery: it sees whether the receiver already ran
    setImmediate(() => { tookIt = proc.waiting?.hasDefault === true; }); // in its second receive
    // what the distribution layer does for a SEND frame
    node.core.send(proc.cpid, 1);
    node.pokeAfterTask();
    await new Promise((r) => setImmediate(r));
    assert.equal(tookIt, true);
  }));

test('an answer from outside (a remote call\'s) resumes its process before the next task, not a task later', () =>
  withNode(async ({ node }) => {
    /** @type {(v: any) => void} */
    let answer = () => {};
    // a stand-in for the distribution layer: only the promise of a remote spawn's answer
    node.remote = { remoteSpawn: () => new Promise((resolve) => { answer = resolve; }) };
    try {
      const proc = await spawnWaiting(node, '(lambda () (remote-spawn (make-node "127.0.0.1" 1) (lambda () 1)) (?))');
      assert.equal(proc.waiting?.kind, W_EXTERNAL, 'blocked on the remote spawn');
      /** @type {number | null} */
      let kindThen = null;
      setImmediate(() => { kindThen = proc.waiting?.kind ?? null; }); // queued before the answer
      answer(7);
      await new Promise((r) => setImmediate(r));
      assert.ok(kindThen !== null && kindThen !== W_EXTERNAL, `the process had taken its answer and gone on to its receive (kind ${kindThen})`);
    } finally {
      node.remote = null;
    }
  }));

/** The two ways the distribution layer runs a message delivered from the network. */
const DELIVERIES = /** @type {Array<[string, (node: any) => void]>} */ ([
  ['pokeAfterTask then runArrivedNow', (node) => { node.pokeAfterTask(); node.runArrivedNow(); }],
  ['runDelivered', (node) => node.runDelivered()],
]);

for (const [how, deliver] of DELIVERIES) {
  test(`${how} runs a delivered message's receiver at once, once, and never inside a running loop`, () =>
    withNode(async ({ node }) => {
      const proc = await spawnWaiting(node, '(lambda () (let loop () (?) (loop)))');
      let runs = 0;
      const runLoop = node.runLoop.bind(node);
      node.runLoop = () => { runs++; runLoop(); };
      node.core.send(proc.cpid, 1);
      deliver(node);
      assert.equal(runs, 1, 'the loop ran synchronously');
      assert.ok(node.isWaiting(proc), 'the receiver took the message and waits again');
      assert.equal(node.runQueued, false);
      await new Promise((r) => setImmediate(r));
      assert.equal(runs, 1, 'no microtask ran the loop again');
      // inside a running loop (a transport delivering synchronously) nothing re-enters
      node.looping = true;
      node.core.send(proc.cpid, 2);
      deliver(node);
      assert.equal(runs, 1, 'no run while the loop is on the stack');
      node.looping = false;
      await new Promise((r) => setImmediate(r));
      assert.equal(runs, 2, 'the microtask ran it after the loop');
      assert.ok(node.isWaiting(proc));
    }));
}

test('one wake-up timer: a later timeout keeps it, an earlier one re-arms it, and with nothing due it holds no process alive', () =>
  withNode(async ({ node }) => {
    const t0 = performance.now();
    // a long wait first, then a short one: the short one must not wait for the long one's timer
    const long = await spawnWaiting(node, '(lambda () (? 5 #f))');
    const armed = node.timer;
    assert.ok(armed !== null && node.timerAt !== Infinity, 'a timer for the long wait');
    const short = await spawnWaiting(node, '(lambda () (? 0.05 #f))');
    assert.notEqual(node.timer, armed, 're-armed for the earlier deadline');
    const deadline = performance.now() + 5000;
    while (short.alive && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.equal(short.alive, false, 'the short wait timed out');
    const took = performance.now() - t0;
    assert.ok(took < 2000, `the 50 ms wait ended after ${took.toFixed(0)} ms`);
    // a third wait, later than the armed deadline: the timer is kept
    const kept = node.timer;
    const later = await spawnWaiting(node, '(lambda () (? 9 #f))');
    assert.equal(node.timer, kept, 'no new timer for a later deadline');
    // both waiting processes get their message: nothing is due, the timer holds nothing alive
    node.core.send(long.cpid, 1);
    node.core.send(later.cpid, 2);
    node.poke();
    for (let i = 0; i < 1000 && (long.alive || later.alive); i++) await new Promise((r) => setImmediate(r));
    assert.equal(long.alive || later.alive, false);
    assert.ok(node.timer === null || node.timer.hasRef() === false, 'no referenced timer is left');
  }));
