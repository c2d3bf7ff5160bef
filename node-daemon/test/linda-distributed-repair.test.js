// @ts-check
/**
 * Repair of a distributed space on a real reconnecting daemon (docs/linda.md,
 * "Distributed spaces", join and repair): a member daemon holding tuples it owns is
 * frozen with SIGSTOP; meanwhile the home withdraws two of them (adopted once the member
 * counts as gone, after the mesh's heartbeat timeout), one of its own, and makes two
 * new ones; the member is continued, its links come back, and ACCESS/REPAIR bring both
 * replicas to the same five tuples (the withdrawals it missed are not resurrected, the
 * new tuples reach it). The two sides agree on one owner for every tuple again (the
 * adopter's claim): the remaining tuples, raced for by both daemons at once, are each
 * withdrawn exactly once. The same after a *restart*: a member daemon started with
 * --data is killed (SIGKILL) while it owns tuples, the home adopts them, and the member
 * is started again with the same --data (the same identity): its replica, empty (a
 * distributed space is not durable), joins again and converges, and every remaining
 * tuple is withdrawn exactly once. Daemons are OS processes on free loopback ports,
 * stopped by PID (a SIGSTOPped one continued first).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, health, newToken } from './helpers/daemons.js';
import { runTagged } from './helpers/tagged-lines.js';
import { within } from './helpers/peer.js';

/** @type {import('./helpers/daemons.js').Daemon[]} */
const started = [];
const dir = mkdtempSync(path.join(os.tmpdir(), 'linda-repair-'));
after(async () => {
  for (const d of started) d.child.kill('SIGCONT');
  await Promise.all(started.map((d) => d.stop('SIGKILL')));
  rmSync(dir, { recursive: true, force: true });
});

/** Scheme helpers: show a tagged line; wait (bounded) for a count on a space. */
const HELPERS = `
(define (show . xs) (write xs) (newline))
(define (await-count s n . template)
  (let loop ((i 0))
    (let ((c (apply space-count s template)))
      (cond ((= c n) c)
            ((< i 1000) (sleep 0.02) (loop (+ i 1)))
            (else (list 'count c 'expected n))))))`;

/** The racers: both daemons take the listed tuples at once; each tuple must be taken once. @param {string} nodes @param {string} tuples */
const RACE = (nodes, tuples) => `
(define me (self))
;; both takers start at once (each waits for go): a tuple both sides believed they owned would be taken twice
(define takers
  (map (lambda (n)
         (remote-spawn n (lambda ()
           (! me 'ready)
           (?)
           (! me (list (node-id (current-node))
                       (map (lambda (t) (if (inp ds (car t) (cadr t)) 1 0))
                            '${tuples}))))))
       (list ${nodes})))
(?) (?)
(for-each (lambda (p) (! p 'go)) takers)
(define a (?)) (define b (?))
(show 'taken (map + (cadr a) (cadr b)))`;

/** The space's home h and the space ds, for every program. @param {number} port @param {string} space */
const homeAndSpace = (port, space) => `
(define h (make-node "127.0.0.1" ${port}))
(define ds (on h (lambda () (make-space '${space} 'distributed))))`;

/**
 * The start both tests share: the member m makes four tuples it owns, the home two; both
 * replicas hold the six.
 * @param {string} nodes homeAndSpace's program @param {number} mPort @param {string} token @param {string[]} join
 */
function seedSix(nodes, mPort, token, join) {
  return runTagged(`${HELPERS}${nodes}
(define m (make-node "127.0.0.1" ${mPort}))
(on m (lambda () (do ((i 0 (+ i 1))) ((= i 4)) (out ds 'm i))))
(on h (lambda () (out ds 'h 0) (out ds 'h 1)))
(show 'before (on h (lambda () (await-count ds 6 ?symbol ?integer))) (on m (lambda () (await-count ds 6 ?symbol ?integer))))`,
  { token, join, timeoutMs: 30000 }, { before: '(before 6 6)' });
}

test('a member daemon frozen (SIGSTOP) while it owns tuples, then continued: replicas converge, nothing withdrawn twice', async () => {
  const token = newToken();
  const h = await startDaemon({ token });
  started.push(h);
  const m = await startDaemon({ token, join: [h.url] });
  started.push(m);
  const nodes = homeAndSpace(h.port, 'rep');
  await seedSix(nodes, m.port, token, [h.url, m.url]);

  m.child.kill('SIGSTOP');
  // at the home, (m 0) is asked of its frozen owner: granted to the home once the member counts as gone
  await runTagged(`${HELPERS}${nodes}
(show 'frozen (on h (lambda () (list (in ds 'm 0) (in ds 'm 1) (in ds 'h 0) (begin (out ds 'new 0) (out ds 'new 1) (space-count ds ?symbol ?integer))))))`,
  { token, join: [h.url], timeoutMs: 30000 }, { frozen: '(frozen ((m 0) (m 1) (h 0) 5))' });

  m.child.kill('SIGCONT');
  assert.ok(await within(health(m.url), 10000, "the member's /health"));
  await runTagged(`${HELPERS}${nodes}
(define m (make-node "127.0.0.1" ${m.port}))
(show 'after (on m (lambda () (await-count ds 5 ?symbol ?integer))) (on h (lambda () (await-count ds 5 ?symbol ?integer))))
(show 'member-view (on m (lambda () (list (rdp ds 'm 0) (rdp ds 'm 1) (rdp ds 'h 0) (rd ds 'm 2) (rd ds 'new 1)))))
;; a barrier on the member's link to the home: whatever the member sent the home on its return came first
(on m (lambda () (out ds 'sync 1)))
(show 'synced (on h (lambda () (await-count ds 1 'sync ?integer))))
${RACE('h m', '((m 2) (m 3) (h 1) (new 0) (new 1))')}
(show 'left (on h (lambda () (await-count ds 1 ?symbol ?integer))) (on m (lambda () (await-count ds 1 ?symbol ?integer))) (on m (lambda () (rdp ds ?symbol ?integer))))`,
  { token, join: [h.url, m.url], timeoutMs: 40000 }, {
    after: '(after 5 5)',
    'member-view': '(member-view (#f #f #f (m 2) (new 1)))',
    synced: '(synced 1)',
    taken: '(taken (1 1 1 1 1))',
    left: '(left 1 1 (sync 1))',
  }, { taken: 'each remaining tuple withdrawn exactly once', left: 'only the barrier tuple is left, at both' });
});

test('a member daemon killed (SIGKILL) while it owns tuples, then restarted with the same --data: it joins again, replicas converge, nothing withdrawn twice', async () => {
  const token = newToken();
  const h = await startDaemon({ token });
  started.push(h);
  const data = path.join(dir, 'member');
  const m = await startDaemon({ token, join: [h.url], data });
  started.push(m);
  const nodes = homeAndSpace(h.port, 'rep-restart');
  await seedSix(nodes, m.port, token, [h.url, m.url]);

  await m.stop('SIGKILL');
  // the home adopts the dead member's tuples: (m 0) is withdrawn there once it counts as gone
  await runTagged(`${HELPERS}${nodes}
(show 'killed (on h (lambda () (list (in ds 'm 0) (in ds 'h 0) (begin (out ds 'new 0) (space-count ds ?symbol ?integer))))))`,
  { token, join: [h.url], timeoutMs: 30000 }, { killed: '(killed ((m 0) (h 0) 5))' });

  const m2 = await startDaemon({ token, join: [h.url], data });
  started.push(m2);
  assert.equal(m2.id, m.id, 'the restarted member has its identity back (--data)');
  await runTagged(`${HELPERS}${nodes}
(define m (make-node "127.0.0.1" ${m2.port}))
(show 'after (on m (lambda () (await-count ds 5 ?symbol ?integer))) (on h (lambda () (await-count ds 5 ?symbol ?integer))))
(show 'member-view (on m (lambda () (list (rdp ds 'm 0) (rdp ds 'h 0) (rd ds 'm 1) (rd ds 'h 1) (rd ds 'new 0)))))
;; the restarted member makes a tuple of its own: it reaches the home
(on m (lambda () (out ds 'sync 1)))
(show 'synced (on h (lambda () (await-count ds 1 'sync ?integer))))
${RACE('h m', '((m 1) (m 2) (m 3) (h 1) (new 0) (sync 1))')}
(show 'left (on h (lambda () (await-count ds 0 ?symbol ?integer))) (on m (lambda () (await-count ds 0 ?symbol ?integer))))`,
  { token, join: [h.url, m2.url], timeoutMs: 40000 }, {
    after: '(after 5 5)',
    'member-view': '(member-view (#f #f (m 1) (h 1) (new 0)))',
    synced: '(synced 1)',
    taken: '(taken (1 1 1 1 1 1))',
    left: '(left 0 0)',
  }, {
    after: 'the rejoined replica holds the five tuples left',
    'member-view': 'withdrawals made while it was dead are not resurrected',
    taken: 'each remaining tuple withdrawn exactly once',
    left: 'nothing left at either replica',
  });
});
