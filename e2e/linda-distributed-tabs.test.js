// @ts-check
/**
 * A distributed tuple space with Chromium tabs among its replicas (docs/linda.md,
 * "Distributed spaces"): a program makes a distributed space on a daemon, two tabs join
 * it (each caches a replica), `rd` a configuration tuple from their own replica, `in`
 * tasks and `out` results; the program collects every result exactly once and nothing is
 * left over — on the daemon's replica either; then the Linda matrix multiplication
 * (examples/mesh/matrix-tabs.scm, MATRIX_KIND=distributed) with its workers on two daemons
 * and two tabs, the product checked. Daemons are OS processes on free loopback ports,
 * stopped by PID.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon, newToken, runProgram } from '../node-daemon/test/helpers/daemons.js';
import { startDaemonWithTabs, stopDaemonWithTabs } from './helpers/daemon-with-tabs.js';
import { waitPeers } from './helpers/mesh.js';

const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'mesh');
const token = newToken();
/** @type {import('../node-daemon/test/helpers/daemons.js').Daemon} */
let daemon;
/** @type {import('./helpers/browser.js').Chromium} */
let chromium;
/** @type {import('./helpers/mesh.js').Tab[]} */
let tabs = [];

before(async () => {
  ({ daemon, chromium, tabs } = await startDaemonWithTabs('linda-distributed-tabs', 2, { token }));
});

after(async () => {
  await stopDaemonWithTabs('linda-distributed-tabs', { daemon, chromium, tabs });
});

const TASKS = 40;

test('two tabs share a distributed space with a daemon and a program: rd from their replica, every task taken once', async () => {
  const r = await runProgram(`
(define h (make-node "127.0.0.1" ${daemon.port}))
(define s (on h (lambda () (make-space 'tab-dts 'distributed))))
(define n ${TASKS})
(define (tabs-among ns)
  (cond ((null? ns) '())
        ((eq? (on (car ns) (lambda () (node-kind))) 'tab) (cons (car ns) (tabs-among (cdr ns))))
        (else (tabs-among (cdr ns)))))
(define workers (tabs-among (mesh-nodes)))
(out s 'config 'square)
(define (worker)
  (let ((how (cadr (rd s 'config ?symbol))))     ; from the tab's own replica
    (let loop ()
      (let ((i (cadr (in s 'task ?integer))))
        (out s 'result i (if (eq? how 'square) (* i i) i) (node-id (current-node)))
        (loop)))))
(write (list 'tabs (length workers) (map (lambda (t) (on t (lambda () (space-kind s)))) workers))) (newline)
(for-each (lambda (t) (remote-spawn t worker)) workers)
(do ((i 0 (+ i 1))) ((= i n)) (out s 'task i))
(define by (let loop ((i 0) (acc '())) (if (= i n) (reverse acc) (loop (+ i 1) (cons (cadddr (in s 'result i ?integer ?string)) acc)))))
(define (count-of x) (let loop ((l by) (k 0)) (if (null? l) k (loop (cdr l) (if (equal? (car l) x) (+ k 1) k)))))
(write (list 'summary 'results (length by)
             'by-tabs (map (lambda (t) (count-of (node-id t))) workers)
             'extra (inp s 'result ?integer ?integer ?string)
             'left (space-count s 'task ?integer)
             'home-left (on h (lambda () (let loop ((i 0)) (let ((c (space-count s 'result ?integer ?integer ?string)))
                                                            (if (or (= c 0) (= i 200)) c (begin (sleep 0.02) (loop (+ i 1))))))))))
(newline)
`, { token, join: [daemon.url], timeoutMs: 90_000 });
  assert.equal(r.status, 0, `exit status; stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  assert.match(r.stdout, /\(tabs 2 \(distributed distributed\)\)/, r.stdout);
  const m = /\(summary results (\d+) by-tabs \((\d+) (\d+)\) extra #f left 0 home-left 0\)/.exec(r.stdout);
  assert.ok(m, `unexpected output:\n${r.stdout}\n${r.stderr}`);
  assert.equal(Number(m[1]), TASKS);
  assert.equal(Number(m[2]) + Number(m[3]), TASKS, 'every result came from a tab');
});

test('Linda matrix multiplication on a distributed space, its workers on two daemons and two tabs, gives the right product', async () => {
  const second = await startDaemon({ token, join: [daemon.url] });
  try {
    await waitPeers(daemon.url, [second.id], { timeoutMs: 30000 });
    const r = await runProgram({ file: path.join(examples, 'matrix-tabs.scm') }, {
      token, join: [daemon.url], timeoutMs: 90_000,
      env: { MATRIX_N: '12', MATRIX_ON: 'all', MATRIX_WORKERS: '4', MATRIX_KIND: 'distributed' },
    });
    assert.equal(r.status, 0, `exit status; stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    const m = /\(rows 12 workers (\d+) reissued 0 product-correct #t\)/.exec(r.stdout);
    assert.ok(m, `unexpected output:\n${r.stdout}\n${r.stderr}`);
    assert.ok(Number(m[1]) >= 4, `workers on ${m[1]} nodes (two daemons and two tabs at least)`);
  } finally {
    await second.stop();
  }
});
