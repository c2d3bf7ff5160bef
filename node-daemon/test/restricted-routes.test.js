// @ts-check
/**
 * A tab stays restricted beyond its own daemon (docs/security.md, "Trust model by
 * role"): two real daemons A and B (B joined A), a tab played by a Node mesh node whose
 * upgrade to A carried an `Origin` header (as every browser's does), and unrestricted
 * peers on each daemon to own processes and spaces and to check the same acts succeed.
 *  - Routes: the tab reaches B only through A. Its routed SEND to a process of B whose pid
 *    B never gave it is refused by B (an ERROR naming the reason) and the process gets
 *    nothing; its routed SPACE_OP on B's default space is answered with the refusal.
 *  - No confused deputy: a process the tab spawned on A, holding a forged pid and space
 *    of B, sends to that pid and reads that space: B checks both as the tab's (they come
 *    wrapped, naming the tab) and refuses them; a process it remote-spawns on B from A is
 *    the tab's there (a capability error from B's default space). The same program
 *    spawned by an unrestricted peer of A does all of it.
 *  - What such a process spawns on A itself, and the process itself once it migrated to
 *    B, are still the tab's (a capability error from the default space of each).
 *  - An AS frame (a process acting for a peer) from a restricted peer is refused, so a tab
 *    cannot pose as a daemon's deputy; a malformed one is refused with its reason.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeString, encodeValue } from '@termite/scheme';
import { Pid, SpaceRef, NodeRef } from '@termite/runtime';
import { health, newToken, waitFor } from './helpers/daemons.js';
import { startDaemonPair, framesFrom, frameIn } from './helpers/daemon-pair.js';
import { hostilePeer, closureRef, unitOf, F, R } from './helpers/peer.js';

const SPACE_OP = 30, SPACE_REPLY = 31, OP_OUT = 1, OP_RDP = 3, S_VALUE = 0, S_ERROR = 4;
const token = newToken();
const tag = `rr${process.pid}`;
/** @type {import('./helpers/daemons.js').Daemon} */
let a;
/** @type {import('./helpers/daemons.js').Daemon} */
let b;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} the tab, a browser peer of A */
let tab;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} an unrestricted peer of A */
let peerA;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} an unrestricted peer of B */
let peerB;
/** @type {any[]} frames B sent to the tab (they come routed through A) */
let tabFromB = [];
/** @type {any[]} frames B sent to peerA */
let peerAFromB = [];

before(async () => {
  let tabOfA;
  ({ a, b, tabOfA } = await startDaemonPair(token, { allowOriginOfA: false }));
  tab = await tabOfA();
  peerA = await hostilePeer(a, token);
  peerB = await hostilePeer(b, token);
  tabFromB = framesFrom(tab, b.id);
  peerAFromB = framesFrom(peerA, b.id);
  await waitFor(() => tab.mesh.isReachable(b.id) && peerA.mesh.isReachable(b.id), 10_000, 'the tab reaching B through A');
  assert.equal(tab.mesh.peers().length, 1, 'the tab is linked to A only');
});

after(async () => {
  await Promise.all([tab?.stop(), peerA?.stop(), peerB?.stop()]);
  await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
});

// an echo server: it sends its pid to `to`, then answers each #(reply-to text) with (echo text)
const ECHO = unitOf('(lambda (to) (lambda () (! to (self)) (let loop () (let ((m (?))) (! (vector-ref m 0) (list \'echo (vector-ref m 1))) (loop)))))');
let envs = 0;

/** peerB spawns an echo server on B; resolves with its pid. */
async function echoOnB() {
  const to = new Pid(peerB.id, 1000 + ++envs);
  peerB.units.set(ECHO.hash, ['echo', ECHO.data, false]);
  const answer = await peerB.request([R.SPAWN, closureRef(ECHO.hash, `${tag}-env-${envs}`, ECHO.lambdas.findIndex((l) => l.nfree === 1), [to]), null, false, []]);
  assert.equal(answer[0], true, String(answer[1]));
  return /** @type {Pid} */ (answer[1]);
}

/** Whether peerB got (echo text) at its process `n`. @param {number} n @param {string} text */
const echoed = (n, text) => peerB.frames.some((f) => f[0] === F.SEND && f[2] === n && writeString(f[3]) === `(echo "${text}")`);

test('a tab that reaches B only through its daemon A is a restricted peer at B', async () => {
  const hidden = await echoOnB();
  // routed through A: a SEND to a process of B whose pid B never gave the tab
  tab.mesh.send(b.id, encodeValue([F.SEND, hidden.node, hidden.n, [new Pid(peerB.id, 1), 'routed-intrusion'], []]));
  const refusal = await frameIn(tabFromB, (f) => f[0] === F.ERROR && /^SEND to process \d+ refused/.test(String(f[1])), 'B refusing the routed SEND');
  assert.equal(String(refusal[1]), `SEND to process ${hidden.n} refused: ${tab.id.slice(0, 12)} is a restricted peer and was not given that pid`);
  await waitFor(() => b.log().includes(`frame from ${tab.id.slice(0, 12)} refused: ${refusal[1]}`), 5000, 'B logging the refusal');
  // routed through A: B's default space is not the tab's
  peerB.send([SPACE_OP, 1, OP_OUT, 'default', 'local', encodeValue([`${tag}-key`, 1], { stringsAsText: true }), false, []]);
  tab.mesh.send(b.id, encodeValue([SPACE_OP, 7, OP_RDP, 'default', 'local', encodeValue([`${tag}-key`, 1], { stringsAsText: true }), false, []]));
  const reply = await frameIn(tabFromB, (f) => f[0] === SPACE_REPLY && f[1] === 7, 'B answering the routed rdp');
  assert.equal(reply[2], S_ERROR);
  assert.match(String(reply[3]), new RegExp(`rdp: ${tab.id.slice(0, 12)} is a restricted peer and the space default was not given to it`));
  // the process got nothing; it serves an unrestricted peer
  peerB.send([F.SEND, hidden.node, hidden.n, [new Pid(peerB.id, 2), 'served'], []]);
  await waitFor(() => echoed(2, 'served'), 10_000, 'the echo to peerB');
  assert.equal(echoed(1, 'routed-intrusion'), false, 'the routed intrusion reached no one');
  assert.equal((await health(b.url)).ok, true);
});

// the deputy: a process on A holding a pid and a space of B, and B's node
const DEPUTY = unitOf(`(lambda (v) (lambda ()
  (define (try thunk) (guard (e (#t (list 'refused (error-object-message e)))) (thunk)))
  (define target (vector-ref v 0)) (define echo-to (vector-ref v 1)) (define text (vector-ref v 2))
  (define space (vector-ref v 3)) (define node (vector-ref v 4)) (define report (vector-ref v 5))
  (! target (vector echo-to text))
  (let ((read (try (lambda () (rdp space "${tag}-key" ?any)))))
    (remote-spawn node (lambda () (! report (list read (try (lambda () (rdp (default-space) "${tag}-key" ?any))))))))))`);

/**
 * `who` (a peer of A) spawns the deputy on A, aimed at the echo server `hidden` on B, B's
 * default space and B's node; resolves with what its process on B reported to `who`.
 * @param {typeof tab} who @param {any[]} fromB @param {Pid} hidden @param {number} echoN @param {string} text
 */
async function runDeputy(who, fromB, hidden, echoN, text) {
  const report = new Pid(who.id, 2000 + ++envs);
  who.units.set(DEPUTY.hash, ['deputy', DEPUTY.data, false]);
  const thunk = closureRef(DEPUTY.hash, `${tag}-deputy-${envs}`, DEPUTY.lambdas.findIndex((l) => l.nfree === 1),
    [[hidden, new Pid(peerB.id, echoN), text, new SpaceRef(b.id, 'default'), new NodeRef(b.id, null, null), report]]);
  const answer = await who.request([R.SPAWN, thunk, null, false, []]);
  assert.equal(answer[0], true, String(answer[1]));
  const f = await frameIn(fromB, (x) => x[0] === F.SEND && x[1] === who.id && x[2] === report.n, 'the report of the deputy\'s process on B');
  return writeString(f[3]);
}

test('a process the tab spawned on A reaches B only as the tab: no confused deputy', async () => {
  const hidden = await echoOnB();
  peerB.send([SPACE_OP, 2, OP_OUT, 'default', 'local', encodeValue([`${tag}-key`, 2], { stringsAsText: true }), false, []]);
  await frameIn(peerB.frames, (f) => f[0] === SPACE_REPLY && f[1] === 2 && f[2] === S_VALUE, 'the out on B');
  const who = tab.id.slice(0, 12);
  const got = await runDeputy(tab, tabFromB, hidden, 3, 'deputy-intrusion');
  const space = `a process of ${who} (a restricted peer) may not use the space default, which was not given to that peer`;
  const local = 'a restricted peer\'s process may not use the space default, which was not given to it';
  assert.equal(got, `((refused "rdp: ${space}") (refused "${local}"))`);
  // the same program from an unrestricted peer of A reaches all of it
  const control = await runDeputy(peerA, peerAFromB, hidden, 4, 'deputy-allowed');
  assert.match(control, /^\(\("[^"]+-key" \d\) \("[^"]+-key" \d\)\)$/);
  await waitFor(() => echoed(4, 'deputy-allowed'), 10_000, 'the control\'s echo');
  // frames from A to B are handled in order: the tab's SEND was handled before the control's
  assert.equal(echoed(3, 'deputy-intrusion'), false, 'the deputy\'s intrusion reached no one');
  assert.equal((await health(a.url)).ok, true);
  assert.equal((await health(b.url)).ok, true);
});

// a process that reports what B's default space gives it after it moved to `node`, and
// what a process it spawns on the node it was spawned on gets from that node's default space
const MOVER = unitOf(`(lambda (v) (lambda ()
  (define (try thunk) (guard (e (#t (list 'refused (error-object-message e)))) (thunk)))
  (define node (vector-ref v 0)) (define report (vector-ref v 1)) (define report-here (vector-ref v 2))
  (remote-spawn (current-node) (lambda () (! report-here (try (lambda () (rdp (default-space) "${tag}-key" ?any))))))
  (migrate node)
  (! report (try (lambda () (rdp (default-space) "${tag}-key" ?any))))))`);

/**
 * `who` spawns the mover on A; resolves with what its remote spawn on A reported (from A)
 * and what it reported after it migrated to B (from B).
 * @param {typeof tab} who @param {any[]} fromB
 */
async function runMover(who, fromB) {
  const report = new Pid(who.id, 3000 + ++envs), here = new Pid(who.id, 3000 + ++envs);
  who.units.set(MOVER.hash, ['mover', MOVER.data, false]);
  const thunk = closureRef(MOVER.hash, `${tag}-mover-${envs}`, MOVER.lambdas.findIndex((l) => l.nfree === 1), [[new NodeRef(b.id, null, null), report, here]]);
  const answer = await who.request([R.SPAWN, thunk, null, false, []]);
  assert.equal(answer[0], true, String(answer[1]));
  const onA = await who.frame((x) => x[0] === F.SEND && x[2] === here.n, 'the report of the process spawned on A');
  const onB = await frameIn(fromB, (x) => x[0] === F.SEND && x[1] === who.id && x[2] === report.n, 'the report of the process moved to B');
  return [writeString(onA[3]), writeString(onB[3])];
}

test('what a process of the tab spawns on A itself, or takes to B by migrating, is still the tab\'s', async () => {
  peerA.send([SPACE_OP, 3, OP_OUT, 'default', 'local', encodeValue([`${tag}-key`, 3], { stringsAsText: true }), false, []]);
  await frameIn(peerA.frames, (f) => f[0] === SPACE_REPLY && f[1] === 3 && f[2] === S_VALUE, 'the out on A');
  const local = '(refused "a restricted peer\'s process may not use the space default, which was not given to it")';
  assert.deepEqual(await runMover(tab, tabFromB), [local, local]);
  // from an unrestricted peer, both read the tuple
  const [onA, onB] = await runMover(peerA, peerAFromB);
  assert.match(onA, /^\("[^"]+-key" 3\)$/);
  assert.match(onB, /^\("[^"]+-key" \d\)$/);
});

test('an AS frame from a restricted peer does not act for its owner: its inner frame is the tab\'s own, refused for a pid not given', async () => {
  const hidden = await echoOnB();
  // the tab claims, in an AS frame routed to B, to act for peerA (an unrestricted peer)
  tab.mesh.send(b.id, encodeValue([10, peerA.id, false, [F.SEND, hidden.node, hidden.n, [new Pid(peerB.id, 5), 'posing']], []]));
  await frameIn(tabFromB, (f) => f[0] === F.ERROR && String(f[1]) === `SEND to process ${hidden.n} refused: ${tab.id.slice(0, 12)} is a restricted peer and was not given that pid`, 'B refusing the inner SEND as the tab\'s own');
  // and a malformed one from an unrestricted peer is refused with its reason
  peerB.send([10, 'x', 'not a boolean', [F.SEND, hidden.node, hidden.n, 1], []]);
  await peerB.errorFrame(/^Error: malformed AS frame$/);
  peerB.send([F.SEND, hidden.node, hidden.n, [new Pid(peerB.id, 6), 'after'], []]);
  await waitFor(() => echoed(6, 'after'), 10_000, 'the echo after');
  assert.equal(echoed(5, 'posing'), false, 'the posing SEND reached no one');
});
