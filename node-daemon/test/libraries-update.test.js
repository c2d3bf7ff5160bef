// @ts-check
/**
 * Hot update of a running service by the module-system paper's method, across real
 * daemons: a server running version 1.0 of its library on a daemon is sent, among a
 * stream of requests sent at full rate, a procedure compiled against version 2.0; it
 * calls it with its state and goes on as 2.0. Every request is answered, in order, by
 * 1.0 before the update and by 2.0 after, with the state carried over; the daemon
 * installed each version once; its dashboard state lists the server as the one process
 * using 2.0 and none using 1.0, which is then unloaded (logged, gone from the dashboard's
 * list, counted), while 2.0 stays. Daemons are OS
 * processes on free loopback ports, stopped by PID.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runProgram, newToken, waitFor } from './helpers/daemons.js';
import { libraryWorkspace } from './helpers/library-workspace.js';

/** The service library, version `v`. @param {string} v */
const counterSource = (v) => `(define-library (svc counter@${v})
  (export serve)
  (import (scheme base) (termite))
  (begin
    ;; the service loop: answers calls, counting them; an upgrade message brings the
    ;; procedure to continue with, which is given the count
    (define (serve count)
      (recv
        (('call from n) (! from (list 'v${v} n count)) (serve (+ count 1)))
        (('upgrade k) (k count))))))`;
const { libs, publisherDir, publisher, started } = await libraryWorkspace('termite-libs-update-', {
  'svc/counter@1.0.sld': counterSource('1.0'),
  'svc/counter@2.0.sld': counterSource('2.0'),
});

const N = 3000;
const UPDATE_AT = 1500;

test('a service updated to a new library version under load loses and reorders nothing, and keeps its state', async () => {
  const token = newToken();
  const b = await startDaemon({ token, args: ['--trust', publisher.id] });
  started.push(b);
  const prog = `
(import (scheme base) (scheme write) (termite) (prefix (svc counter@1.0) v1:) (prefix (svc counter@2.0) v2:))
(define there (make-node "127.0.0.1" ${b.port}))
(define server (spawn (lambda () (migrate there) (v1:serve 0))))
(define me (self))
(let loop ((i 0))
  (when (< i ${N})
    (when (= i ${UPDATE_AT}) (! server (list 'upgrade (lambda (count) (v2:serve count)))))
    (! server (list 'call me i))
    (loop (+ i 1))))
(let loop ((i 0) (switch #f) (bad 0))
  (if (< i ${N})
      (recv
        ((v k c)
         (loop (+ i 1)
               (if (and (not switch) (eq? v 'v2.0)) i switch)
               (if (and (= k i) (= c i) (eq? v (if (< i ${UPDATE_AT}) 'v1.0 'v2.0))) bad (+ bad 1))))
        (after 10 (write (list 'lost (- ${N} i))) (newline)))
      (begin (write (list 'received i 'switch switch 'bad bad)) (newline))))`;
  const r = await runProgram(prog, { token, join: [b.url], args: ['--lib', libs, '--publisher', publisherDir], timeoutMs: 60000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), `(received ${N} switch ${UPDATE_AT} bad 0)`);
  for (const v of ['1.0', '2.0']) {
    await waitFor(() => b.log().includes(`installed library (svc counter) version ${v} `), 5000, `the install of ${v} logged`);
    assert.equal((b.log().match(new RegExp(`installed library \\(svc counter\\) version ${v.replace('.', '\\.')} `, 'g')) ?? []).length, 1);
  }
  /** The daemon's own snapshot on its dashboard. */
  const own = async () => (await (await fetch(`http://127.0.0.1:${b.port}/api/state`)).json()).nodes.find((/** @type {any} */ n) => n.id === b.id);
  // the dashboard samples the node about once a second: wait (bounded) for a sample
  // taken after the update, then look at which processes use which version: the server
  // runs 2.0 now, nothing uses 1.0 (which may already be unloaded)
  /** @type {Record<string, any[]>} */
  let users = {};
  await waitFor(async () => {
    users = Object.fromEntries((await own()).libraries.map((/** @type {any} */ l) => [l.version, [l.users, l.pids, l.publisher]]));
    return users['2.0']?.[0] === 1 && (users['1.0'] === undefined || users['1.0'][0] === 0);
  }, 30000, 'a sample showing the server using 2.0 only'); // about one a second; more under load
  assert.match(users['2.0'][1][0], /^\d+@\w{8}$/);
  assert.equal(users['2.0'][2], publisher.id);
  if (users['1.0'] !== undefined) assert.deepEqual(users['1.0'].slice(0, 2), [0, []], 'no process uses 1.0 after the update');
  // the old version is unloaded: nothing refers to it, and a newer one is loaded
  await waitFor(() => b.log().includes('unloaded library (svc counter) version 1.0'), 20000, 'the unload of 1.0 logged');
  /** @type {any} */
  let after = null;
  await waitFor(async () => {
    after = await own();
    return after.libraries.length === 1;
  }, 10000, 'a sample taken after the unload');
  assert.deepEqual(after.libraries.map((/** @type {any} */ l) => `${l.name}@${l.version}`), ['(svc counter)@2.0']);
  assert.equal(after.libraryCounts.unloaded, 1);
  assert.doesNotMatch(b.log(), /unloaded library \(svc counter\) version 2\.0/);
});
