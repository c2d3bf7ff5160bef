// @ts-check
/**
 * A local `!` of a big message (copy-job.js, docs/processes.md "Fairness"): the copy is
 * made in chunks with the sender suspended between them, so the event loop keeps its
 * turn while a 1,000,000-element list or vector is sent; the receiver gets an equal
 * structure, whole, before anything the sender sends after it; sharing and cycles are
 * kept; a sender killed mid-copy delivers nothing and its partial copy is freed; the
 * partial copy counts in the sender's heap; a step called with a state that names no
 * job (a thread resumed elsewhere, or a forged call) sends from scratch. The migration
 * of a sender mid-copy is tested across daemons (node-daemon/test/preemption-copy.test.js).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { PerformanceObserver } from 'node:perf_hooks';
import { createNode } from '../src/index.js';
import { runScheme } from './harness.js';
import { estimateHeld } from '../src/termite-node/heap-limit.js';
import { rtEnv } from '@termite/scheme/internal';
import { arrayToList, Sym } from '../src/scheme-data.js';

v8.setFlagsFromString('--expose-gc');
const collect = /** @type {() => void} */ (vm.runInNewContext('gc'));

/**
 * The longest event-loop turn allowed while a big message is copied (ms), before the
 * longest garbage-collection pause meanwhile is added: the stated bound (a run of 8 ms
 * plus a slice plus one chunk of ~0.3–1.5 ms) with room for a machine loaded by parallel
 * test runs (190 ms was seen at load average 15, with a 139 ms collection). That the
 * copy is chunked is asserted directly: each copy is seen in progress between slices.
 * One copy of 1,000,000 pairs in one call, as before, held the loop 100–600 ms.
 */
const WORST_TURN_MS = 150;

/**
 * A fresh node running `thunk`; resolves once the node's output contains `done`, with the
 * output, the event-loop turns seen meanwhile (1 ms interval ticks) and the longest GC pause.
 * @param {string} thunk @param {(node: any, pid: any) => void} [each] called at every tick
 */
async function runSampled(thunk, each = () => {}) {
  /** @type {string[]} */
  const out = [];
  const node = /** @type {any} */ (await createNode({ stdout: (s) => out.push(s), log: () => {} }));
  let gcMax = 0;
  const gc = new PerformanceObserver((list) => { for (const e of list.getEntries()) gcMax = Math.max(gcMax, e.duration); });
  gc.observe({ entryTypes: ['gc'] });
  try {
    const pid = node.spawnScheme(thunk);
    /** @type {number[]} */
    const turns = [];
    await new Promise((resolve, reject) => {
      let last = performance.now();
      const started = last;
      const timer = setInterval(() => {
        const now = performance.now();
        turns.push(now - last);
        last = now;
        each(node, pid);
        if (out.join('').includes('done') || now - started > 60_000) {
          clearInterval(timer);
          if (now - started > 60_000) reject(new Error(`no result within 60 s; output: ${out.join('')}`));
          else resolve(undefined);
        }
      }, 1);
    });
    turns.sort((a, b) => a - b);
    return { out: out.join(''), worst: turns[turns.length - 1], median: turns[turns.length >> 1], turns: turns.length, gcMax, slices: node.stats.slices };
  } finally {
    gc.disconnect();
    node.stop();
  }
}

test('a 1,000,000-element list and vector sent locally arrive equal and whole, before what the sender sends next, and the event loop keeps its turn', { timeout: 120_000 }, async (t) => {
  /** @type {Set<any>} */
  const jobs = new Set();
  const r = await runSampled(`(lambda ()
    (let* ((l (make-list 1000000 1)) (v (make-vector 1000000 2))
           (me (self))
           (r (spawn (lambda ()
                (let* ((a (?)) (b (?)) (c (?)) (d (?)))
                  (display (list (equal? a (make-list 1000000 1)) b (equal? c (make-vector 1000000 2)) d 'done)))))))
      (! r l) (! r 'after-list) (! r v) (! r 'after-vector)))`, (node) => {
    for (const p of node.bySlot) if (p !== undefined && p.alive && p.copyJob !== null) jobs.add(p.copyJob);
  });
  t.diagnostic(`event-loop turn: median ${r.median.toFixed(1)} ms, worst ${r.worst.toFixed(1)} ms over ${r.turns} turns; longest GC pause ${r.gcMax.toFixed(1)} ms; ${r.slices} slices; ${jobs.size} copies seen in progress`);
  assert.equal(r.out, '(#t after-list #t after-vector done)');
  assert.equal(jobs.size, 2, 'both copies were seen in progress between slices');
  assert.ok(r.worst <= WORST_TURN_MS + r.gcMax, `worst turn ${r.worst.toFixed(1)} ms (bound ${WORST_TURN_MS} ms plus the longest GC pause, ${r.gcMax.toFixed(1)} ms)`);
});

test('big messages keep their sharing and cycles, and share their immutable parts', { timeout: 60_000 }, async () => {
  const o = await runScheme(`
    (define me (self))
    (define r (spawn (lambda () (let loop () (! me (?)) (loop)))))
    (define (echo x) (! r x) (?))
    (define (iota n) (let loop ((i (- n 1)) (l '())) (if (< i 0) l (loop (- i 1) (cons i l)))))
    (define x (vector 1 2))
    (define shared (cons x (map (lambda (i) (if (= 0 (modulo i 1000)) x (vector i))) (iota 200000))))
    (define s (echo shared))
    (define cyc (let ((l (iota 100000))) (set-cdr! (list-tail l 99999) l) l))
    (define c (echo cyc))
    (define flat (iota 300000))
    (define f (echo flat))
    (define k '(1 2 3))
    (define withk (cons k (iota 100000)))
    (define wk (echo withk))
    (display (list (eq? (car s) (list-ref s 1)) (eq? (car s) x) (equal? (cdr s) (cdr shared))
                   (eq? (list-tail c 100000) c) (eq? c cyc) (= (car (list-tail c 99999)) 99999)
                   (equal? f flat) (eq? f flat) (eq? (car wk) k)))`);
  assert.equal(o.ok, true, o.message);
  assert.equal(o.out, '(#t #f #t #t #f #t #t #f #t)');
});

test('a sender killed mid-copy delivers nothing, and its partial copy, counted in its heap until then, is freed', { timeout: 60_000 }, async () => {
  /** @type {WeakRef<object>|null} */
  let partial = null;
  /** @type {any} */
  let killed = null;
  let accounted = -1;
  let jobBytes = 0;
  const r = await runSampled(`(lambda ()
    (let* ((r (spawn (lambda () (let ((m (?))) (display (list 'got (if (pair? m) 'the-list m) 'done))))))
           (s (spawn-link (lambda () (! r (make-list 1000000 1)) (! r 'sender-finished)))))
      (guard (e (#t (! r 'probe))) (? 30))))`, (node) => {
    if (killed !== null) return;
    for (const p of node.bySlot) {
      if (p === undefined || !p.alive || p.copyJob === null || p.copyJob.units === 0) continue;
      const job = p.copyJob;
      const held = estimateHeld(node, p, Infinity).bytes;
      p.copyJob = null;
      accounted = held - estimateHeld(node, p, Infinity).bytes;
      p.copyJob = job;
      jobBytes = job.bytes;
      partial = new WeakRef(job.result ?? job.graph?.result);
      killed = p;
      node.terminate(p.pid);
      return;
    }
  });
  assert.ok(killed !== null, 'the sender was seen mid-copy');
  assert.equal(r.out, '(got probe done)', 'nothing of the killed sender was delivered');
  assert.ok(jobBytes > 0 && accounted === jobBytes, `the partial copy (${jobBytes} bytes) counted in the sender's heap: ${accounted}`);
  assert.equal(killed.copyJob, null, 'the job is dropped with the process');
  killed = null;
  for (let i = 0; i < 5 && /** @type {any} */ (partial).deref() !== undefined; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    collect();
  }
  assert.equal(/** @type {any} */ (partial).deref(), undefined, 'the partial copy was collected');
});

test('a step state that names no job (a thread resumed elsewhere, a forged call) sends the message from scratch', { timeout: 30_000 }, async () => {
  /** @type {string[]} */
  const out = [];
  const node = /** @type {any} */ (await createNode({ stdout: (s) => out.push(s), log: () => {} }));
  try {
    const receiver = node.spawnScheme(`(lambda () (let* ((a (?)) (b (?))) (display (list a b 'done))))`);
    const step = rtEnv.cell('%!/step').v;
    // two processes whose threads are about to call the step, as a thread serialized
    // between chunks resumes: one naming a job no process has, one with a forged key
    for (const [msg, key] of [[arrayToList([0, 1, 2, 3, 4]), 123456], [Sym.intern('second'), 0]]) {
      node.spawnCall(step, [receiver, msg, key]);
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (let i = 0; i < 1000 && !out.join('').includes('done'); i++) await new Promise((resolve) => setTimeout(resolve, 2));
    assert.equal(out.join(''), '((0 1 2 3 4) second done)');
  } finally {
    node.stop();
  }
});
