// @ts-check
/**
 * Processes across a daemon and worker tabs (docs/browser.md): a real daemon, three tabs
 * in Chromium, and programs run with `termite-node run --join` (a node that reaches the
 * tabs only through the daemon). A process tours daemon → tab → tab → daemon keeping its
 * state, pid and mailbox; `on` and `remote-spawn` target a tab like any node, with
 * closures and code the tab has never seen; closing a tab raises exit signals in the
 * processes linked to its processes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newToken, health } from '../node-daemon/test/helpers/daemons.js';
import { startDaemonWithTabs, stopDaemonWithTabs } from './helpers/daemon-with-tabs.js';
import { waitJoined, waitPeers, waitStatus, tabStatus, startProgram, runToEnd, FIND_NODE } from './helpers/mesh.js';

const token = newToken();
/** @type {import('../node-daemon/test/helpers/daemons.js').Daemon} */
let daemon;
/** @type {import('./helpers/browser.js').Chromium} */
let chromium;
/** @type {import('./helpers/mesh.js').Tab[]} */
let tabs = [];
/** @type {import('./helpers/mesh.js').Program[]} */
const programs = [];
const scratch = mkdtempSync(path.join(os.tmpdir(), 'termite-e2e-migration-'));

before(async () => {
  ({ daemon, chromium, tabs } = await startDaemonWithTabs('migration', 3, { token }, { transport: 'webrtc' }));
});

after(async () => {
  for (const p of programs) await p.stop();
  await stopDaemonWithTabs('migration', { daemon, chromium, tabs });
  rmSync(scratch, { recursive: true, force: true });
});

/** The prelude of every program: the daemon and the tabs as node references. */
function prelude() {
  return `${FIND_NODE}
(define daemon (make-node "127.0.0.1" ${daemon.port}))
(define tab1 (find-node "${tabs[0].id}"))
(define tab2 (find-node "${tabs[1].id}"))
(define tab3 (find-node "${tabs[2].id}"))
`;
}

/** @param {string} source @param {string} [file] where to put it (default: a new temporary directory) */
async function run(source, file) {
  const r = await runToEnd(prelude() + source, { token, join: [daemon.url], timeoutMs: 60000, file });
  assert.equal(r.stderr, '', 'nothing on stderr');
  assert.equal(r.status, 0, `exit status; stdout:\n${r.stdout}`);
  return r.stdout;
}

test('a process tours daemon → tab → tab → daemon keeping its state, its pid and its mailbox', async () => {
  const before = await Promise.all(tabs.slice(0, 2).map((t) => waitStatus(t, (s) => s.counters !== undefined, 5000, 'a status')));
  // The tourist carries a counter, the ids of the nodes it ran on, the numbers the
  // main process sent it at each stop (to its pid as returned by remote-spawn, so each
  // one has to find it where it is now), a closure and a 100,000-element list (a
  // state larger than a data channel's largest message).
  const out = await run(String.raw`
(define me (self))
(define (make-adder k) (lambda (x) (+ x k)))
(define (numbers n) (let loop ((i (- n 1)) (acc '())) (if (< i 0) acc (loop (- i 1) (cons i acc)))))
(define (fold-sum xs) (let loop ((xs xs) (s 0)) (if (null? xs) s (loop (cdr xs) (+ s (car xs))))))
(define tourist
  (remote-spawn daemon
    (lambda ()
      (let ((born (self)) (add (make-adder 1000)) (big (numbers 100000)))
        (let loop ((stops (list tab1 tab2 daemon)) (count 0) (seen '()) (got '()))
          (let* ((here (node-id (current-node)))
                 (seen (cons here seen)))
            (! me (list 'at here count))
            (let ((x (recv (('go x) x) (after 20 (error "no go message at" here)))))
              (if (null? stops)
                  (! me (list 'done count (reverse seen) (reverse (cons x got))
                              (add count) (length big) (fold-sum big)
                              (equal? born (self)) (self)))
                  (begin
                    (migrate (car stops))
                    (loop (cdr stops) (+ count 1) seen (cons x got)))))))))))
(let loop ((i 0))
  (recv
    (('at where n)
     (write (list 'at where n)) (newline)
     (! tourist (list 'go (* i i)))
     (loop (+ i 1)))
    (('done . report)
     (write (cons 'done (reverse (cdr (reverse report))))) (newline)
     (write (equal? tourist (car (reverse report)))) (newline))
    (after 30 (display "timeout") (newline))))
`);
  const [d, t1, t2] = [daemon.id, tabs[0].id, tabs[1].id];
  const sum = (100000 * 99999) / 2;
  assert.equal(out, [
    `(at "${d}" 0)`,
    `(at "${t1}" 1)`,
    `(at "${t2}" 2)`,
    `(at "${d}" 3)`,
    `(done 3 ("${d}" "${t1}" "${t2}" "${d}") (0 1 4 9) 1003 100000 ${sum} #t)`,
    '#t',
    '',
  ].join('\n'));
  // each tab counted the process in and out
  for (const [i, t] of tabs.slice(0, 2).entries()) {
    const was = before[i].counters;
    await waitStatus(t, (s) => s.counters.migrationsIn === (was.migrationsIn ?? 0) + 1 && s.counters.migrationsOut === (was.migrationsOut ?? 0) + 1, 5000, 'one migration in and one out');
  }
});

test('on and remote-spawn target a tab like any node, with closures over local data and code the tab has never seen', async () => {
  const fetchedBefore = (await waitStatus(tabs[0], (s) => s.counters !== undefined, 5000, 'a status')).counters.codeFetched ?? 0;
  // a fresh program each run: its code cannot be in any tab yet
  const nonce = Math.random().toString(36).slice(2);
  const out = await run(String.raw`
(define nonce "${nonce}")
(define (scale x) (* x 7))
(define weights (list 1 2 3))
;; on: a closure over local data and a global of this program, run on a tab
(write (on tab1 (lambda () (list (node-id (current-node)) nonce (map scale weights) (vector-map (lambda (x) (+ x 1)) #(1 2))))))
(newline)
;; remote-spawn: a server on a tab, closing over a local, answering by message
(define offset 100)
(define server
  (remote-spawn tab2
    (lambda ()
      (let serve ()
        (recv ((from x) (! from (list (node-id (current-node)) (+ x offset)))))
        (serve)))))
(! server (list (self) 5))
(write (? 10)) (newline)
(! server (list (self) 6))
(write (? 10)) (newline)
;; an error raised on the tab comes back from on
(write (catch (lambda (e) (list 'caught (error-object-message e) (error-object-irritants e)))
              (on tab1 (lambda () (error "boom on a tab" nonce)))))
(newline)
;; output of a process on a tab comes back to the console of the process that started it
(on tab2 (lambda () (display "hello from a tab") (newline)))
;; a tab will not run what its allowed library leaves out (exit is denied to received code)
(write (catch (lambda (e) 'denied) (on tab1 (lambda () (exit 3)) ) 'ran))
(newline)
(write (on tab1 (lambda () 'still-here)))
(newline)
`);
  assert.equal(out, [
    `("${tabs[0].id}" "${nonce}" (7 14 21) #(2 3))`,
    `("${tabs[1].id}" 105)`,
    `("${tabs[1].id}" 106)`,
    `(caught "boom on a tab" ("${nonce}"))`,
    'hello from a tab',
    'denied',
    'still-here',
    '',
  ].join('\n'));
  // the tab fetched the program's code (IR, on demand) from the node it came from
  await waitStatus(tabs[0], (s) => (s.counters.codeFetched ?? 0) > fetchedBefore, 5000, 'code fetched');
  const log = await tabs[0].page.evaluate(() => /** @type {any} */ (window).termite.view.log.join('\n'));
  assert.doesNotMatch(log, /start failed|uncaught/i);
});

test('a reloaded tab takes the code it was shipped from its IndexedDB cache, not from the network', async () => {
  const tab = tabs[0];
  const nonce = Math.random().toString(36).slice(2);
  const source = String.raw`
(define (cube x) (* x x x))
(define (cubes n) (let loop ((i n) (acc '())) (if (= i 0) acc (loop (- i 1) (cons (cube i) acc)))))
(write (on tab1 (lambda () (list "${nonce}" (cubes 5))))) (newline)
`;
  const expected = `("${nonce}" (1 8 27 64 125))\n`;
  // the same file both times (a unit's hash covers its file name)
  const file = path.join(scratch, `cached-${nonce}.scm`);
  const fetched = (await tabStatus(tab)).counters.codeFetched ?? 0;
  assert.equal(await run(source, file), expected);
  await waitStatus(tab, (s) => (s.counters.codeFetched ?? 0) > fetched, 5000, 'the code fetched from the program');
  // a new worker: nothing in memory; the same program from a new node
  const id = tab.id;
  await tab.page.reload();
  assert.equal(await waitJoined(tab), id);
  await waitPeers(daemon.url, [id], { timeoutMs: 20000 });
  assert.equal(await run(source, file), expected);
  const st = await tabStatus(tab);
  const worker = tab.page.workers()[0];
  const stats = await worker.evaluate(() => /** @type {any} */ (self).termite.codeCache.stats);
  assert.equal(st.counters.codeFetched ?? 0, 0, `no code fetched from a peer after the reload; cache ${JSON.stringify(stats)}; log:\n${(await tab.page.evaluate(() => /** @type {any} */ (window).termite.view.log.join('\n')))}`);
  assert.ok(stats.hits > 0, `code cache hits: ${JSON.stringify(stats)}`);
});

test('closing a tab raises an exit signal in the processes linked to its processes', async () => {
  const victim = tabs[2];
  // a process on the daemon links to one on tab 3 and waits; the test then closes tab 3
  const prog = startProgram(prelude() + String.raw`
(define me (self))
(remote-spawn daemon
  (lambda ()
    (let ((worker (remote-spawn-link tab3 (lambda () (let loop () (? ) (loop))))))
      (! me (list 'linked (pid-node worker)))
      (! me (catch (lambda (e) (list 'signal (error-object? e) (error-object-message e)))
                   (? 60)
                   'no-signal)))))
(let ((m (? 30)))
  (write (list (car m) (node-id (cadr m)))) (newline))
(write (? 60)) (newline)
`, { token, join: [daemon.url] });
  programs.push(prog);
  await prog.waitOutput(/\(linked "[a-z2-7]+"\)\n/, 30000, 'the link');
  assert.ok(prog.stdout().includes(`(linked "${victim.id}")`), prog.stdout());
  const t0 = Date.now();
  await victim.page.close();
  const m = await prog.waitOutput(/\(signal (#t) "([^"]*)"\)\n/, 10000, 'the exit signal');
  const ms = Date.now() - t0;
  assert.match(m[2], new RegExp(`node ${victim.id.slice(0, 12)} is unreachable`));
  assert.ok(ms < 6000, `exit signal after ${ms} ms`);
  assert.equal(await prog.exited, 0);
  assert.equal(prog.stderr(), '');
  // the daemon no longer lists the closed tab; the others are still there
  const h = await health(daemon.url);
  assert.ok(!h.peers.some((/** @type {any} */ p) => p.id === victim.id), JSON.stringify(h.peers));
  for (const t of tabs.slice(0, 2)) assert.ok(h.peers.some((/** @type {any} */ p) => p.id === t.id));
});
