// @ts-check
/**
 * Messengers over a daemon and worker tabs in Chromium (docs/messengers.md): logical
 * nodes created on tabs, a hop that replicates a messenger onto two tabs, node variables
 * and mailboxes across them, virtual time spanning tabs, and the shortest-path and
 * Wa-Tor examples with their logical networks spread over the daemon, the tabs and the
 * joined program's node, checked against their sequential runs.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, appendFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newToken } from '../node-daemon/test/helpers/daemons.js';
import { startDaemonWithTabs, stopDaemonWithTabs } from './helpers/daemon-with-tabs.js';
import { runToEnd, artifactsDir, FIND_NODE } from './helpers/mesh.js';

const token = newToken();
const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'messengers');
/** @type {import('../node-daemon/test/helpers/daemons.js').Daemon} */
let daemon;
/** @type {import('./helpers/browser.js').Chromium} */
let chromium;
/** @type {import('./helpers/mesh.js').Tab[]} */
let tabs = [];

before(async () => {
  ({ daemon, chromium, tabs } = await startDaemonWithTabs('messengers', 2, { token }));
});

after(async () => {
  await stopDaemonWithTabs('messengers', { daemon, chromium, tabs });
});

/** @param {string} source @param {number} [timeoutMs] @param {string[]} [args] the program node's options */
async function run(source, timeoutMs = 60000, args = []) {
  const prelude = `${FIND_NODE}
(define tab1 (find-node "${tabs[0].id}"))
(define tab2 (find-node "${tabs[1].id}"))
(define me (self))
(define root (lnet-root))
`;
  const r = await runToEnd(prelude + source, { token, join: [daemon.url], timeoutMs, args });
  // the program's node's log, kept with the daemon's and the tabs' for a failed run
  appendFileSync(path.join(artifactsDir(), 'messengers-program.log'), `--- exit ${r.status}\n${r.stderr}`);
  assert.equal(r.status, 0, `exit status; stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r.stdout;
}

test('a hop replicates a messenger onto two tabs; node variables and mailboxes work there', async () => {
  const out = await run(`
(inject-and-wait
  (lambda ()
    (create 'node 'w 'link 's 'physical tab1) (node-set! 'who 'first) (hop 'node 'init)
    (create 'node 'w 'link 's 'physical tab2) (node-set! 'who 'second) (hop 'node 'init)))
(inject-and-wait
  (lambda ()
    (hop 'node 'w)
    (m-send root (list (node-ref 'who) (node-kind) (or (equal? (current-node) tab1) (equal? (current-node) tab2))))))
(inject-and-wait (lambda () (! me (list (m-recv 5) (m-recv 5)))) root)
(write (list-sort (lambda (a b) (string<? (symbol->string (car a)) (symbol->string (car b)))) (?)))
(newline)
`);
  assert.equal(out, '((first tab #t) (second tab #t))\n');
});

test('virtual time orders messengers on two tabs under one global virtual time', async () => {
  const out = await run(`
(inject-and-wait
  (lambda ()
    (let ((k (if (fork) 2 3)))
      (create 'physical (if (= k 2) tab1 tab2))
      (let loop ((i 0))
        (when (< i 3)
          (sched-time-delta k)
          (! me (list (virtual-time) k (node-kind)))
          (loop (+ i 1)))))))
(define (all) (let ((m (?? pair? 0 #f))) (if m (cons m (all)) '())))
(write (list-sort (lambda (x y) (or (< (car x) (car y)) (and (= (car x) (car y)) (< (cadr x) (cadr y))))) (all)))
(newline)
`);
  assert.equal(out, '((2 2 tab) (3 3 tab) (4 2 tab) (6 2 tab) (6 3 tab) (9 3 tab))\n');
});

for (const [file, pattern] of /** @type {const} */ ([['shortest-path.scm', /\(mesh 8 x 8 on 4 physical nodes\)/], ['wator.scm', /on 4 physical nodes/]])) {
  // Messengers here go tab → tab → daemon: the daemon, which restricts tabs, takes one
  // it never saw once the messenger's birth node vouches that it is on that tab.
  test(`${file} with its logical network over the daemon, two tabs and the program's node equals its sequential run`, async () => {
    const source = readFileSync(path.join(examples, file), 'utf8');
    // wait until this node knows the tabs, so the example stripes its network over all four
    const out = await run(`(define tabs-known (list tab1 tab2))\n${source}`, 60000);
    assert.match(out, pattern);
    assert.match(out, /\(same as sequential #t\)/);
  });
}
