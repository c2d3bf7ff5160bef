#!/usr/bin/env node
// @ts-check
/**
 * The copy a local `!` makes (packages/runtime/src/copy-job.js) against the one-call
 * copy every message took before (copy.js copyMessage, still what other callers use),
 * in one process, alternating rounds:
 *  - small and medium messages: time per copy, `beginCopy` (the copy `!` makes, one call
 *    for these) over `copyMessage`, as the median of per-round ratios;
 *  - big messages: the one-call copy's time, the chunked copy's total, and its longest
 *    and median chunk (what the event loop waits for at most, collections included);
 *    `shared1M` is a message whose memo passes 524,288 entries (shared parts, 1M pairs);
 *  - stalls (`copy.stall.*`, below): the event loop of a node while one of its
 *    processes sends shared1M or builds a 5,000,000-element list, collections apart.
 *
 *   node bench/local-send-copy.js [PREFIX]
 *
 * Prints `bench copy.<message>.<figure> <value> <unit>`; CPU time for the small ones.
 */
import { Reporter, prefixFromArgv } from './lib/index.js';
import { copyMessage } from '../packages/runtime/src/copy.js';
import { beginCopy, CopyJob } from '../packages/runtime/src/copy-job.js';
import { Pair } from '../packages/runtime/src/scheme-data.js';
import { R } from '@termite/scheme/internal';
import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';

const rep = new Reporter(prefixFromArgv());
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

/** @param {number} n @param {(i: number) => any} f */
const list = (n, f) => {
  let l = null;
  for (let i = n - 1; i >= 0; i--) l = new Pair(f(i), l);
  return l;
};
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** @param {number[]} a */
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];

/** CPU time of this thread (ms; Linux, else 0): /proc's scheduler statistics. */
const threadCpuMs = () => {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6;
  } catch {
    return 0;
  }
};

/** @type {[string, any, number][]} name, message, copies a round */
const SMALL = [
  ['pair', new Pair(1, 2), 1_000_000],
  ['list10', list(10, (i) => i), 300_000],
  ['list1000', list(1000, (i) => i), 3000],
  ['nested100', list(50, (i) => list(2, () => i)), 30_000],
  ['nested5000', list(2500, (i) => [i, i]), 300],
];
for (const [name, msg, n] of SMALL) {
  if (!rep.wants(`copy.${name}`)) continue;
  const ratios = [];
  const times = [];
  for (let r = 0; r < ROUNDS; r++) {
    R.fuel = 1e12; // the charges of a copy would otherwise end no slice here: none runs
    let t = cpuMs();
    for (let i = 0; i < n; i++) copyMessage(msg);
    const one = cpuMs() - t;
    t = cpuMs();
    for (let i = 0; i < n; i++) beginCopy(msg);
    const chunked = cpuMs() - t;
    ratios.push(chunked / one);
    times.push((chunked * 1e6) / n);
  }
  rep.bench(`copy.${name}.ns`, median(times), 'ns', { note: '`!`\'s copy, CPU time' });
  rep.bench(`copy.${name}.vs_one_call`, median(ratios), 'x', { note: 'median of per-round ratios; 1 = the same time' });
}

/** @type {[string, () => any][]} */
const BIG = [
  ['list1M', () => list(1_000_000, (i) => i)],
  ['vector1M', () => Array.from({ length: 1_000_000 }, (_, i) => i)],
  ['pairs300k', () => list(300_000, (i) => new Pair(i, i))],
  // 1M pairs with shared parts: 700,000 spine pairs whose cars are 300,000 pairs, each
  // the car of two or three elements (the memo's case: it grows past 524,288 entries)
  ['shared1M', () => {
    const cars = Array.from({ length: 300_000 }, (_, i) => new Pair(i, i));
    return list(700_000, (i) => cars[i % 300_000]);
  }],
];
for (const [name, make] of BIG) {
  if (!rep.wants(`copy.${name}`)) continue;
  const msg = make();
  const one = [];
  const total = [];
  const worst = [];
  const med = [];
  const worstNoGc = [];
  const worstNoGcCpu = [];
  /** @type {[number, number][]} */
  const gcs = [];
  const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) gcs.push([e.startTime, e.startTime + e.duration]); });
  obs.observe({ entryTypes: ['gc'] });
  for (let r = 0; r < 3; r++) {
    R.fuel = 1e12;
    let t = performance.now();
    copyMessage(msg);
    one.push(performance.now() - t);
    const job = beginCopy(msg);
    /** @type {[number, number, number][]} start, end, this thread's CPU time */
    const chunks = [];
    if (job instanceof CopyJob) {
      for (let done = false; !done;) {
        const cpu = threadCpuMs();
        t = performance.now();
        done = job.run();
        chunks.push([t, performance.now(), threadCpuMs() - cpu]);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20)); // the round's gc entries delivered
    const times = chunks.map(([a, b]) => b - a);
    const plain = chunks.filter(([a, b]) => !gcs.some(([s, e]) => s < b && e > a));
    total.push(times.reduce((a, b) => a + b, 0));
    worst.push(Math.max(0, ...times));
    worstNoGc.push(Math.max(0, ...plain.map(([a, b]) => b - a)));
    worstNoGcCpu.push(Math.max(0, ...plain.map((c) => c[2])));
    med.push(times.length > 0 ? median(times) : 0);
  }
  obs.disconnect();
  rep.bench(`copy.${name}.one_call`, median(one), 'ms', { note: 'copyMessage: one call, as a local ! was' });
  rep.bench(`copy.${name}.chunked_total`, median(total), 'ms');
  rep.bench(`copy.${name}.chunk_median`, median(med), 'ms');
  rep.bench(`copy.${name}.chunk_worst`, median(worst), 'ms', { note: 'collections included' });
  rep.bench(`copy.${name}.chunk_worst_no_gc`, median(worstNoGc), 'ms', { note: 'chunks with no collection in them' });
  rep.bench(`copy.${name}.chunk_worst_no_gc_cpu`, median(worstNoGcCpu), 'ms', { note: 'the main thread\'s CPU time in those chunks (descheduling left out; Linux; brought up to date at scheduler ticks, so a few ms either way per chunk)' });
}

/**
 * The event loop of a node while one process runs a big case (a 1 ms interval's gaps):
 *  - shared1M: a process sends the message of copy.shared1M (built in Scheme) to another;
 *  - list5M: a process builds a list of 5,000,000 numbers (~200 MB live at the end).
 * Each gap during which V8 reported a collection counts as a collection's; the others
 * are the runtime's own (slices, copy chunks, and the machine's descheduling).
 * @type {[string, string][]}
 */
const STALLS = [
  ['shared1M', `(lambda ()
    (let* ((cars (let fill ((i 0) (v (make-vector 300000 #f))) (if (= i 300000) v (begin (vector-set! v i (cons i i)) (fill (+ i 1) v)))))
           (msg (let build ((i 699999) (l '())) (if (< i 0) l (build (- i 1) (cons (vector-ref cars (modulo i 300000)) l)))))
           (sink (spawn (lambda () (let ((m (?))) (display (if (eq? (car m) (list-ref m 300000)) 'done 'not-shared)))))))
      (! sink msg)
      (? 60 #f)))`],
  ['list5M', `(lambda () (let loop ((i 0) (l '())) (if (= i 5000000) (display (if (= (length l) 5000000) 'done 'short)) (loop (+ i 1) (cons i l)))))`],
];
for (const [name, thunk] of STALLS) {
  if (!rep.wants(`copy.stall.${name}`)) continue;
  const { createNode } = await import('../packages/runtime/src/index.js');
  const worst = [];
  const worstOwn = [];
  const worstOwnCpu = [];
  const gcMax = [];
  const medians = [];
  for (let r = 0; r < 3; r++) {
    /** @type {[number, number, number][]} start, end, kind */
    const gcs = [];
    const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) gcs.push([e.startTime, e.startTime + e.duration, /** @type {any} */ (e).detail?.kind ?? 0]); });
    obs.observe({ entryTypes: ['gc'] });
    /** @type {string[]} */
    const out = [];
    // the heap limit raised: a 5,000,000-element list is estimated near the default 256 MiB
    const limits = { maxProcessHeap: 1024 * 1048576 };
    const node = /** @type {any} */ (await createNode({ stdout: (s) => out.push(s), log: (s) => out.push(`log: ${s}`), limits }));
    /** @type {[number, number, number][]} start, end, this thread's CPU time in it */
    const gaps = [];
    try {
      node.spawnScheme(thunk);
      await new Promise((resolve, reject) => {
        const started = performance.now();
        let last = started;
        let lastCpu = threadCpuMs();
        const timer = setInterval(() => {
          const now = performance.now();
          const cpu = threadCpuMs();
          gaps.push([last, now, cpu - lastCpu]);
          last = now;
          lastCpu = cpu;
          const text = out.join('');
          if (text.includes('done') || text.includes('not-') || text.includes('short') || text.includes('died') || now - started > 120_000) {
            clearInterval(timer);
            if (text.includes('done')) resolve(undefined);
            else reject(new Error(`copy.stall.${name}: ${text || 'no result within 120 s'}`));
          }
        }, 1);
      });
    } finally {
      node.stop();
      obs.disconnect();
    }
    const lengths = gaps.map(([a, b]) => b - a);
    const own = gaps.filter(([a, b]) => !gcs.some(([s, e]) => s < b && e > a));
    worst.push(Math.max(...lengths));
    worstOwn.push(Math.max(0, ...own.map(([a, b]) => b - a)));
    worstOwnCpu.push(Math.max(0, ...own.map((g) => g[2])));
    gcMax.push(Math.max(0, ...gcs.map(([s, e]) => e - s)));
    medians.push(median(lengths));
  }
  rep.bench(`copy.stall.${name}.turn_median`, median(medians), 'ms', { note: 'a 1 ms interval\'s gaps while it runs, median of 3 rounds' });
  rep.bench(`copy.stall.${name}.turn_worst`, median(worst), 'ms', { note: `collections included; rounds ${worst.map((w) => w.toFixed(1)).join(', ')}` });
  rep.bench(`copy.stall.${name}.turn_worst_no_gc`, median(worstOwn), 'ms', { note: `gaps with no collection in them; rounds ${worstOwn.map((w) => w.toFixed(1)).join(', ')}` });
  rep.bench(`copy.stall.${name}.turn_worst_no_gc_cpu`, median(worstOwnCpu), 'ms', { note: `the main thread's CPU time in those gaps (a loaded machine's descheduling left out; up to date at scheduler ticks only); rounds ${worstOwnCpu.map((w) => w.toFixed(1)).join(', ')}` });
  rep.bench(`copy.stall.${name}.gc_worst`, median(gcMax), 'ms', { note: `longest collection V8 reported; rounds ${gcMax.map((w) => w.toFixed(1)).join(', ')}` });
}
