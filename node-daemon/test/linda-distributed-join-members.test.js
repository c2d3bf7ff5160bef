// @ts-check
/**
 * A join of a distributed space away from its home waits for every member the home
 * names (docs/linda.md, "Distributed spaces", convergence rules): a real daemon joins a
 * space whose home (another daemon) still lists a tuple that a member (a raw peer,
 * helpers/peer.js, linked to both) has already withdrawn — its DELETE has not reached the home. The
 * joiner asks the member with an ACCESS of the ids the home gave it (not for every tuple
 * again), the member answers with the withdrawn one, and the joiner's reads never see
 * that tuple; its withdrawals go on as soon as the home has answered (the owner of a
 * tuple decides whether it is still there). Daemons are OS processes on free loopback ports, stopped by PID;
 * every wait is bounded.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { encodeValue } from '@termite/scheme';
import { startDaemon, runProgram, newToken, waitFor } from './helpers/daemons.js';
import { DTS, D } from './helpers/dts-members.js';
import { hostilePeer } from './helpers/peer.js';

const D_ACCESS = 7;
const token = newToken();
/** @type {import('./helpers/daemons.js').Daemon[]} */
const started = [];
/** @type {Array<Awaited<ReturnType<typeof hostilePeer>>>} */
const peers = [];
after(async () => {
  await Promise.all(peers.map((p) => p.stop()));
  await Promise.all(started.map((d) => d.stop('SIGKILL')));
});

test('a joiner waits for the members\' answers: a tuple a member withdrew before the join (its DELETE not at the home yet) is never seen', async () => {
  const h = await startDaemon({ token });
  started.push(h);
  const q = await startDaemon({ token, join: [h.url] });
  started.push(q);
  const made = await runProgram(`(define h (make-node "127.0.0.1" ${h.port}))
(write (on h (lambda () (make-space 'join-race 'distributed) 'made))) (newline)`, { token, join: [h.url], timeoutMs: 30000 });
  assert.match(made.stdout, /made/, made.stdout + made.stderr);
  // the member: a raw peer linked to the joiner (whose frames it records) and to the home
  const p = await hostilePeer(q, token);
  peers.push(p);
  await p.mesh.connect(h.url);
  const toHome = (/** @type {any[]} */ f) => assert.ok(p.mesh.send(h.id, encodeValue(f)), 'sent to the home');
  toHome([DTS, D.REPAIR_REQ, 'join-race', true, []]);
  // it makes two tuples the home caches, then withdraws the first: its DELETE is held back
  const gone = `${p.id}/b/1`, kept = `${p.id}/b/2`;
  toHome([DTS, D.OUT, 'join-race', gone, p.id, encodeValue(['r', 1], { stringsAsText: true }), []]);
  toHome([DTS, D.OUT, 'join-race', kept, p.id, encodeValue(['r', 2], { stringsAsText: true }), []]);
  const counted = await runProgram(`(define h (make-node "127.0.0.1" ${h.port}))
(define s (make-space 'join-race 'distributed h))
(let loop ((i 0)) (if (and (< i 500) (< (on h (lambda () (space-count s "r" ?integer))) 2)) (begin (sleep 0.01) (loop (+ i 1)))))
(on h (lambda () (out s "t" 1)))
(write (list 'home (on h (lambda () (space-count s "r" ?integer))))) (newline)`, { token, join: [h.url], timeoutMs: 30000 });
  assert.match(counted.stdout, /\(home 2\)/, counted.stdout + counted.stderr);
  const mark = p.frames.length;
  const joined = runProgram(`(define q (make-node "127.0.0.1" ${q.port}))
(define h (make-node "127.0.0.1" ${h.port}))
(define s (make-space 'join-race 'distributed h))
(write (list 'at-q (on q (lambda () (list (inp s "t" ?integer) (rdp s "r" 1) (rdp s "r" 2) (space-count s "r" ?integer)))))) (newline)`, { token, join: [h.url], timeoutMs: 30000 });
  /** @type {any} */
  let ask;
  await waitFor(() => (ask = p.frames.slice(mark).find((/** @type {any} */ f) => f[0] === DTS && f[2] === 'join-race' && (f[1] === D_ACCESS || f[1] === D.REPAIR_REQ))) !== undefined, 15000, 'the joiner asks the member');
  assert.equal(ask[1], D_ACCESS, 'the joiner tells the member what it has (ACCESS), it does not ask for every tuple');
  assert.ok(ask[3].includes(gone) && ask[3].includes(kept), 'the ids the home gave the joiner');
  assert.equal(ask[4], true, 'an answer is asked for');
  // a withdrawal goes on once the home has answered (its owner decides): the home's ("t" 1) is
  // taken while the member has not answered yet; the reads after it wait for that answer
  const taken = await runProgram(`(define h (make-node "127.0.0.1" ${h.port}))
(define s (make-space 'join-race 'distributed h))
(let loop ((i 0)) (if (and (< i 500) (> (on h (lambda () (space-count s "t" ?integer))) 0)) (begin (sleep 0.01) (loop (+ i 1)))))
(write (list 'home-t (on h (lambda () (space-count s "t" ?integer))))) (newline)`, { token, join: [h.url], timeoutMs: 30000 });
  assert.match(taken.stdout, /\(home-t 0\)/, taken.stdout + taken.stderr);
  p.send([DTS, D.REPAIR_ACK, 'join-race', [], [gone], [], false, []]);
  p.send([DTS, D_ACCESS, 'join-race', [kept], false, []]);
  const r = await joined;
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /\(at-q \(\("t" 1\) #f \("r" 2\) 1\)\)/, r.stdout + r.stderr);
});
