// @ts-check
/**
 * A tab passes on what it holds (docs/security.md, "A tab passes on what it holds"): two
 * real daemons A and B (B joined A), two tabs of A played by Node mesh nodes whose
 * upgrades carried A's `Origin` (linked to A only: B restricts both, as tabs routed
 * through A), unrestricted peers on each daemon.
 *  - a tab that A gave a pid of B vouches for it to B on behalf of the other tab: B takes
 *    the vouch, and the other tab's SEND to that pid (which B refused before the vouch);
 *  - a tab's VOUCH naming a pid of B it does not hold is refused whole with the reason
 *    and logged, and nothing of it is recorded: a pid it does hold, named in the same
 *    request, stays refused to the other tab; a tab vouching for itself is refused.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeString, encodeValue, decodeValue } from '@termite/scheme';
import { Pid } from '@termite/runtime';
import { newToken, waitFor } from './helpers/daemons.js';
import { startDaemonPair, framesFrom, frameIn, peerSpawner } from './helpers/daemon-pair.js';
import { hostilePeer, F, R } from './helpers/peer.js';

const token = newToken();
const tag = `rpo${process.pid}`;
/** @type {import('./helpers/daemons.js').Daemon} */
let a;
/** @type {import('./helpers/daemons.js').Daemon} */
let b;
/** @typedef {Awaited<ReturnType<typeof hostilePeer>>} Peer */
/** @type {Peer} the tab that holds pids of B (given by A) */
let holder;
/** @type {Peer} the tab it hands them to */
let other;
/** @type {Peer} an unrestricted peer of A */
let peerA;
/** @type {Peer} an unrestricted peer of B */
let peerB;
/** @type {Map<Peer, any[]>} frames each tab got from B */
const fromB = new Map();

before(async () => {
  let tabOfA;
  ({ a, b, tabOfA } = await startDaemonPair(token));
  holder = await tabOfA();
  other = await tabOfA();
  peerA = await hostilePeer(a, token);
  peerB = await hostilePeer(b, token);
  fromB.set(holder, framesFrom(holder, b.id));
  fromB.set(other, framesFrom(other, b.id));
  await waitFor(() => holder.mesh.isReachable(b.id) && other.mesh.isReachable(b.id) && peerA.mesh.isReachable(b.id), 10_000, 'the tabs reaching B');
  assert.equal(other.mesh.peers().length, 1, 'the tabs are linked to A only');
});

after(async () => {
  await Promise.all([holder?.stop(), other?.stop(), peerA?.stop(), peerB?.stop()]);
  await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
});


const { echoOn, give } = peerSpawner(tag);

/** An echo server on B, spawned by peerB. */
const echoOnB = () => echoOn(peerB);

/** A process of A gives `tab` the value `x` (in a SEND to its process `n`). @param {Peer} tab @param {any} x @param {number} n */
const giveFromA = (tab, x, n) => give(peerA, tab, x, n);

/** `tab` asks B (routed through A) to record `serials` of B as given to `peer`; the decoded answer. @param {Peer} tab @param {string} peer @param {number[]} serials */
async function vouchToB(tab, peer, serials) {
  const bytes = await tab.mesh.request(b.id, encodeValue([R.VOUCH, peer, false, serials, []]), { timeoutMs: 10_000 });
  return decodeValue(bytes, { resolveCode: () => ({ lams: [], lamsByName: new Map() }) });
}

/** `tab` sends `text` to `server` on B with its process `n` as reply-to. @param {Peer} tab @param {Pid} server @param {number} n @param {string} text */
function sendToB(tab, server, n, text) {
  tab.mesh.send(b.id, encodeValue([F.SEND, server.node, server.n, [new Pid(tab.id, n), text], []]));
}

/** Whether `tab` got (echo text) from B at its process `n`. @param {Peer} tab @param {number} n @param {string} text */
const echoed = (tab, n, text) => /** @type {any[]} */ (fromB.get(tab)).some((f) => f[0] === F.SEND && f[2] === n && writeString(f[3]) === `(echo "${text}")`);

/** B's refusal of `tab`'s SEND to `server` (after the hold), as B wrote it. @param {Peer} tab @param {Pid} server */
async function refusalOf(tab, server) {
  const list = /** @type {any[]} */ (fromB.get(tab));
  const why = `SEND to process ${server.n} refused: ${tab.id.slice(0, 12)} is a restricted peer and was not given that pid`;
  await frameIn(list, (f) => f[0] === F.ERROR && String(f[1]) === why, 'B refusing the SEND to a pid not given');
  return why;
}

test('a tab vouches for a pid of B it holds on behalf of another tab: B takes it, and the other tab\'s SEND', async () => {
  const server = await echoOnB();
  await giveFromA(holder, server, 10);
  // before the vouch, the other tab is refused that pid (B restricts it)
  sendToB(other, server, 11, 'before');
  await refusalOf(other, server);
  assert.equal(echoed(other, 11, 'before'), false);
  const answer = await vouchToB(holder, other.id, [server.n]);
  assert.deepEqual(answer.slice(0, 2), [true, 1], 'B recorded the pid for the other tab');
  sendToB(other, server, 12, 'vouched');
  await waitFor(() => echoed(other, 12, 'vouched'), 10_000, 'the echo of the SEND to a pid vouched for by a tab that held it');
});

test('a tab\'s VOUCH naming a pid of B it does not hold is refused whole, with the reason, logged; nothing is recorded', async () => {
  const held = await echoOnB();
  const notHeld = await echoOnB();
  await giveFromA(holder, held, 20);
  const answer = await vouchToB(holder, other.id, [held.n, notHeld.n]);
  assert.equal(answer[0], false);
  const why = `VOUCH refused: ${holder.id.slice(0, 12)} is a restricted peer and does not hold process ${notHeld.n}, which it vouches for`;
  assert.equal(answer[1], `Error: ${why}`);
  await waitFor(() => b.log().includes(why), 5000, 'B logging the refusal');
  // refused whole: the pid it held, named with the other, was not recorded either
  sendToB(other, held, 21, 'not recorded');
  await refusalOf(other, held);
  sendToB(other, notHeld, 22, 'never held');
  await refusalOf(other, notHeld);
  assert.equal(echoed(other, 21, 'not recorded') || echoed(other, 22, 'never held'), false);
  // a holder vouching for itself is no way in either
  const self = await vouchToB(holder, holder.id, [notHeld.n]);
  assert.equal(self[1], `Error: VOUCH refused: ${holder.id.slice(0, 12)} is a restricted peer and vouches for itself`);
});
