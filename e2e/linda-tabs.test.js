// @ts-check
/**
 * Tuple spaces with Chromium tabs as the workers (docs/linda.md, "What each operation
 * guarantees"): tabs `in` tasks from a central space held by a daemon and `out` their
 * results, and a tab closed in the middle of its `in`s (most of the time it is blocked
 * in one, waiting at the daemon) loses no task and duplicates none — every task is
 * counted: it has exactly one result, or it was taken by the closed tab (recorded at
 * once by the worker), and nothing is left over; then the Linda matrix multiplication
 * (examples/mesh/matrix-tabs.scm) with its workers on two daemons and two tabs, the
 * product checked. Daemons are OS processes on free loopback ports, stopped by PID.
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
  ({ daemon, chromium, tabs } = await startDaemonWithTabs('linda-tabs', 3, { token }));
});

after(async () => {
  await stopDaemonWithTabs('linda-tabs', { daemon, chromium, tabs });
});

/** The program: N tasks, outed at a pace slower than the tabs work, so they wait in `in`. */
const TASKS = 80;
const program = (/** @type {number} */ port) => `
(define h (make-node "127.0.0.1" ${port}))
(define s (make-space 'tab-tasks 'central h))
(define n ${TASKS})
(define (tabs-among ns)
  (cond ((null? ns) '())
        ((eq? (on (car ns) (lambda () (node-kind))) 'tab) (cons (car ns) (tabs-among (cdr ns))))
        (else (tabs-among (cdr ns)))))
(define workers (let ((ts (tabs-among (mesh-nodes)))) (list (car ts) (cadr ts))))
(define closed (node-id (car workers)))
(define (worker s)
  (lambda ()
    (let loop ()
      (let ((i (cadr (in s 'task ?integer))))
        (out s 'taken i (node-id (current-node)))   ; recorded at once: the tab may go
        (out s 'result i (* i i))
        (loop)))))
(for-each (lambda (t) (remote-spawn t (worker s))) workers)
(let feed ((i 0))
  (if (< i n)
      (begin
        (out s 'task i)
        (if (= i 30) (begin (write (list 'close closed)) (newline)))
        (sleep 0.03)
        (feed (+ i 1)))))
(define (count-if p) (let loop ((i 0) (k 0)) (if (= i n) k (loop (+ i 1) (if (p i) (+ k 1) k)))))
(define (accounted? i) (or (rdp s 'result i ?integer) (rdp s 'taken i closed)))
(let settle ((tries 0))   ; every task has a result, or was taken by the closed tab
  (if (and (< (count-if accounted?) n) (< tries 600))
      (begin (sleep 0.05) (settle (+ tries 1)))))
(write (list 'summary
             'results (count-if (lambda (i) (rdp s 'result i ?integer)))
             'orphans (count-if (lambda (i) (and (not (rdp s 'result i ?integer)) (rdp s 'taken i closed))))
             'lost (count-if (lambda (i) (not (accounted? i))))
             'dup-taken (count-if (lambda (i) (> (space-count s 'taken i ?string) 1)))
             'dup-results (count-if (lambda (i) (> (space-count s 'result i ?integer) 1)))
             'left (space-count s 'task ?integer)
             'closed-took (space-count s 'taken ?integer closed)))
(newline)
`;

test('a tab closed in the middle of its ins: no task lost, none duplicated, every one counted', async (t) => {
  let closedId = '';
  const r = await runProgram(program(daemon.port), {
    token, join: [daemon.url], timeoutMs: 90_000,
    onStdout: (sofar) => {
      const m = /\(close "([a-z2-7]{32})"\)/.exec(sofar);
      if (closedId === '' && m) {
        closedId = m[1];
        const tab = tabs.find((t) => t.id === closedId);
        assert.ok(tab, `the program chose a tab of this test: ${closedId}`);
        void tab.page.close();
      }
    },
  });
  assert.equal(r.status, 0, `exit status; stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  assert.notEqual(closedId, '', 'a tab was closed during the work');
  const m = /\(summary results (\d+) orphans (\d+) lost (\d+) dup-taken (\d+) dup-results (\d+) left (\d+) closed-took (\d+)\)/.exec(r.stdout);
  assert.ok(m, `unexpected output:\n${r.stdout}`);
  t.diagnostic(m[0]);
  const [results, orphans, lost, dupTaken, dupResults, left, closedTook] = m.slice(1).map(Number);
  assert.equal(lost, 0, 'no task lost');
  assert.equal(dupTaken, 0, 'no task taken twice');
  assert.equal(dupResults, 0, 'no result twice');
  assert.equal(left, 0, 'no task left over');
  assert.equal(results + orphans, TASKS, 'every task counted once');
  assert.ok(closedTook >= 1, 'the closed tab was working before it was closed');
});

test('Linda matrix multiplication with its workers on two daemons and two tabs gives the right product', async () => {
  const second = await startDaemon({ token, join: [daemon.url] });
  try {
    await waitPeers(daemon.url, [second.id], { timeoutMs: 30000 });
    const r = await runProgram({ file: path.join(examples, 'matrix-tabs.scm') }, {
      token, join: [daemon.url], timeoutMs: 90_000,
      env: { MATRIX_N: '16', MATRIX_ON: 'all', MATRIX_WORKERS: '4' },
    });
    assert.equal(r.status, 0, `exit status; stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    const m = /\(rows 16 workers (\d+) reissued 0 product-correct #t\)/.exec(r.stdout);
    assert.ok(m, `unexpected output:\n${r.stdout}`);
    assert.ok(Number(m[1]) >= 4, `workers on ${m[1]} nodes (two daemons and two tabs at least)`);
  } finally {
    await second.stop();
  }
});
