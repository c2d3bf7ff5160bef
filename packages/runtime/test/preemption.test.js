// @ts-check
/**
 * Pre-emption that holds whatever a process runs (docs/processes.md, "Fairness"): a
 * process in an endless loop over primitives that do a lot of work per call — walking,
 * copying or comparing a 100,000-element list, bignum arithmetic, printing, `apply`
 * over a long list, copying big messages — leaves the JavaScript event loop a turn
 * every scheduler run (8 ms) plus about one slice. Each case spawns the loop on a fresh
 * node and samples the event loop with a 1 ms interval (bounded: 60 samples after 5
 * warm-up ticks, SAMPLES below); the node's own processes keep running meanwhile.
 * The bounds are the stated ones (20 ms median, 500 ms worst), or twice what one loop
 * of cheap consing steps gives in the same run (measured again as the load rises, and
 * right after a case that passes the bounds measured before it) when the machine's load
 * makes that more; the worst bound also allows the longest garbage-collection pause of
 * the case (observed in this process), which pre-emption does not bound.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import { createNode } from '../src/index.js';
import { eventLoopGaps } from './harness.js';

/** The bound on the median event-loop turn stated in docs/processes.md (ms). */
const MEDIAN_BOUND_MS = 20;
/**
 * The worst single turn allowed here (ms): the stated bound plus room for a major
 * garbage collection of the attacker's data and for a machine loaded by parallel
 * test files (up to ~280 ms seen in a full run). A frozen node (the failure this
 * guards against) waits seconds, or for good.
 */
const WORST_BOUND_MS = 500;
/**
 * Event-loop samples per case: 60 in `npm test`; `npm run attack` (TERMITE_ATTACK=full)
 * samples 1,000 (8–40 s of each attack).
 */
const SAMPLES = process.env.TERMITE_ATTACK === 'full' ? 1000 : 60;

/**
 * Run `thunks` (Scheme source of procedures of no arguments) on a fresh node and sample
 * the event loop meanwhile; returns the sorted gaps between 1 ms interval ticks.
 * @param {string[]} thunks
 */
async function lagUnder(thunks) {
  /** @type {string[]} */
  const log = [];
  const node = /** @type {any} */ (await createNode({ stdout: () => {}, log: (s) => log.push(s) }));
  // the longest garbage-collection pause meanwhile: not preemption's to bound (docs/processes.md)
  let gcMax = 0;
  const gc = new PerformanceObserver((list) => { for (const e of list.getEntries()) gcMax = Math.max(gcMax, e.duration); });
  gc.observe({ entryTypes: ['gc'] });
  try {
    for (const t of thunks) node.spawnScheme(t);
    const gaps = await eventLoopGaps(SAMPLES, 5);
    assert.ok(node.stats.slices > 10, `the attacking processes ran only ${node.stats.slices} slices`);
    assert.deepEqual(log.filter((l) => /died/.test(l)), [], 'no attacking process died');
    return { p50: gaps[Math.floor(gaps.length / 2)], max: gaps[gaps.length - 1], slices: node.stats.slices, gcMax };
  } finally {
    gc.disconnect();
    node.stop();
  }
}

/** The reference: one endless loop of cheap steps that allocate (a 100,000-pair list built and dropped, over and over). */
const CHEAP_CONSING = `(lambda () (let loop ((i 0) (l '())) (if (= i 100000) (loop 0 '()) (loop (+ i 1) (cons i l)))))`;
/** @type {Promise<{p50: number, max: number, slices: number, gcMax: number}> | null} */
let baselineRun = null;
/** When the baseline was measured (performance.now()) and the 1-minute load average then. */
let baselineAt = 0;
let baselineLoad = 0;
/** A baseline older than this (ms) is measured again: the load of a shared machine drifts. */
const BASELINE_MAX_AGE_MS = 60_000;

/**
 * The event-loop turn under one endless loop of cheap steps that allocate (a list of
 * 100,000 pairs built and dropped, over and over), measured in the same run: what the
 * scheduler's runs and the collection of their garbage cost on this machine at this
 * load. Measured again when it is older than a minute or the load average rose by more
 * than a quarter since (plus 0.5), so a case is held to the load it ran under, not to
 * a quieter moment at the start of the file.
 */
function baseline() {
  const load = os.loadavg()[0];
  if (baselineRun === null || performance.now() - baselineAt > BASELINE_MAX_AGE_MS || load > baselineLoad * 1.25 + 0.5) {
    baselineAt = performance.now();
    baselineLoad = load;
    baselineRun = lagUnder([CHEAP_CONSING]);
  }
  return baselineRun;
}

/**
 * The bounds a case is held to: the stated ones, or, on a machine so loaded that one
 * loop of cheap allocating steps already comes near them, twice what that loop gives in
 * the same run (a heavy primitive must hold the event loop about as long as cheap steps
 * doing the same allocation do, no more; a frozen node waits seconds, or for good).
 * @param {number} medianBound
 * @param {{p50: number, max: number}} [after] the reference measured again right after the case
 * @param {number} [gcMs] the case's longest garbage-collection pause, added to the worst bound
 */
async function bounds(medianBound, after, gcMs = 0) {
  const before = await /** @type {Promise<{p50: number, max: number}>} */ (baselineRun ?? baseline());
  const base = after ? { p50: Math.max(before.p50, after.p50), max: Math.max(before.max, after.max) } : before;
  return {
    median: Math.max(medianBound, 2 * base.p50),
    worst: Math.max(WORST_BOUND_MS, 2 * base.max) + gcMs,
    base: `one loop of cheap consing steps: median ${base.p50.toFixed(1)} ms, worst ${base.max.toFixed(1)} ms (load average ${baselineLoad.toFixed(1)}${after ? `; the larger of before and right after the case, at load average ${os.loadavg()[0].toFixed(1)}` : ''}); the case's longest GC pause ${gcMs.toFixed(0)} ms, added to the worst bound`,
  };
}

/**
 * Hold a case's figures to its bounds. A case past the bounds measured before it is held
 * to the reference measured again right after it (the larger of the two): on a shared
 * machine the load can rise within the case's own seconds, which the reference taken
 * before did not see. A frozen node fails either way.
 * @param {{p50: number, max: number, slices: number, gcMax: number}} f @param {number} medianBound @param {import('node:test').TestContext} t
 */
async function holdToBounds(f, medianBound, t) {
  let bound = await bounds(medianBound, undefined, f.gcMax);
  if (f.p50 > bound.median || f.max > bound.worst) {
    const after = await lagUnder([CHEAP_CONSING]);
    bound = await bounds(medianBound, after, f.gcMax);
    baselineRun = Promise.resolve(after); // the next case is held to the newer reference
    baselineAt = performance.now();
    baselineLoad = os.loadavg()[0];
  }
  t.diagnostic(`event-loop turn: median ${f.p50.toFixed(1)} ms, worst ${f.max.toFixed(1)} ms (${f.slices} slices); ${bound.base}`);
  assert.ok(f.p50 <= bound.median, `median turn ${f.p50.toFixed(1)} ms (bound ${bound.median.toFixed(1)})`);
  assert.ok(f.max <= bound.worst, `worst turn ${f.max.toFixed(1)} ms (bound ${bound.worst.toFixed(1)})`);
}

const LIST = '(make-list 100000 1)';
/**
 * name, the endless loop's body (l is a 100,000-element list, v a vector, s a string,
 * n a 280,000-bit number, big and bigv a 1,000,000-element list and vector, built only
 * for the cases that use them), and the median bound when it is not MEDIAN_BOUND_MS.
 * @type {Array<[string, string, number?]>}
 */
const ATTACKS = [
  ['length of a 100,000-element list', '(length l)'],
  ['equal? of two 100,000-element lists', '(equal? l (cdr (cons 0 l2)))'],
  ['reverse', '(reverse l)'],
  ['append', '(append l l)'],
  ['list-copy and list->vector', '(list->vector (list-copy l))'],
  ['vector->list', '(vector->list v)'],
  ['member and assoc that find nothing', '(member 2 l) (assoc 2 (list (cons 1 1)))'],
  ['list-tail to the end', '(list-tail l 99999)'],
  ['string-append and string->list of 100,000 characters', '(string-append s s) (string->list s)'],
  ['apply + to a 40,000-element list', '(apply + (list-tail l 60000))'],
  ['bignum multiplication', '(* n n)'],
  ['write of a 100,000-element list to a string port', '(let ((p (open-output-string))) (write l p) (get-output-string p))'],
  ['sending a 100,000-element list to a process that drops it', '(! sink l)'],
  ['sending a 1,000,000-element list and a 1,000,000-element vector to a process that drops them', '(! sink big) (! sink bigv)'],
  ['sending a list of 300,000 pairs to a process that drops it', '(! sink pairs)'],
  ['equal? of two lists of 10,000 vectors', '(equal? vs vs2)'],
  ['vector-append and vector-copy! of 100,000 slots', '(vector-copy! v 0 (vector-append v v) 0 100000)'],
];

for (const [name, body, medianBound = MEDIAN_BOUND_MS] of ATTACKS) {
  test(`an endless loop of ${name} leaves the event loop its turn`, { timeout: 120_000 }, async (t) => {
    const thunk = `(lambda ()
      (let ((l ${LIST}) (l2 ${LIST}) (v (make-vector 100000 1)) (s (make-string 100000 #\\a))
            (n (expt 7 100000)) (sink (spawn (lambda () (let drop () (?) (drop)))))
            (vs (map (lambda (i) (make-vector 10 i)) (make-list 10000 1))) (vs2 (map (lambda (i) (make-vector 10 i)) (make-list 10000 1)))
            (big ${body.includes('big') ? '(make-list 1000000 1)' : "'()"}) (bigv ${body.includes('bigv') ? '(make-vector 1000000 1)' : "'#()"})
            (pairs ${body.includes('pairs') ? '(map (lambda (i) (cons i i)) (make-list 300000 1))' : "'()"}))
        (let loop () ${body} (loop))))`;
    await baseline(); // the reference before the case
    await holdToBounds(await lagUnder([thunk]), medianBound, t);
  });
}

test('ten endless loops of cheap steps: the event loop still gets its turn every scheduler run', { timeout: 120_000 }, async (t) => {
  const loops = Array.from({ length: 10 }, () => '(lambda () (let loop ((i 0)) (loop (+ i 1))))');
  await baseline();
  await holdToBounds(await lagUnder(loops), MEDIAN_BOUND_MS, t);
});

test('runs started at the end of tasks (remote spawns, remote answers) do not add chains of later runs', { timeout: 60_000 }, async (t) => {
  /** @type {string[]} */
  const log = [];
  const node = /** @type {any} */ (await createNode({ stdout: () => {}, log: (s) => log.push(s) }));
  try {
    node.spawnScheme('(lambda () (let loop ((i 0)) (loop (+ i 1))))');
    // what each remote spawn or remote answer does: a run at the end of its task, while
    // a later run is pending (before the fix, each started one more chain of 8 ms runs)
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setImmediate(r));
      node.pokeAfterTask();
    }
    let immediates = 0;
    let runs = 0;
    const runLoop = node.runLoop.bind(node);
    node.runLoop = () => { runs++; runLoop(); };
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setImmediate(r));
      immediates++;
    }
    t.diagnostic(`${runs} scheduler runs in ${immediates} event-loop turns`);
    assert.ok(runs <= immediates + 1, `${runs} scheduler runs in ${immediates} event-loop turns`);
  } finally {
    node.stop();
  }
});
