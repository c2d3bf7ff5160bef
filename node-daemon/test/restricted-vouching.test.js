// @ts-check
/**
 * A daemon vouches to a third node for the pids of that node it gives a tab
 * (docs/security.md, "A pid of a third node that a daemon hands a tab"): two real
 * daemons A and B (B joined A, and lets pages of A's origin open its mesh WebSocket),
 * tabs played by Node mesh nodes whose upgrades carried A's `Origin` (one linked to A
 * only, one linked to A and B), unrestricted peers on each daemon.
 *  - A process of A sends a tab a pid of a process of B: the tab's SEND, LINK and KILL to
 *    it are taken by B, routed through A and over a direct link; a pid of B it was not
 *    given is still refused.
 *  - The order problem: a tab's SEND over its direct link to B that arrives before A's
 *    vouch is held by B and taken once the vouch comes; a SPAWN naming the pid waits for
 *    it too; one naming a pid no node gave is refused.
 *  - A restricted peer's VOUCH for a pid it does not hold is refused with its reason, and
 *    logged (restricted-passing-on.test.js: one for a pid it holds).
 *  - One vouching node can make B record at most MAX_GIVEN (tab, pid) entries: beyond,
 *    its VOUCH is refused with the reason, and logged; B keeps serving.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeString, encodeValue, decodeValue } from '@termite/scheme';
import { Pid } from '@termite/runtime';
import { createIdentity } from '@termite/mesh';
import { health, newToken, waitFor } from './helpers/daemons.js';
import { startDaemonPair, framesFrom, frameIn, peerSpawner, PASS } from './helpers/daemon-pair.js';
import { hostilePeer, closureRef, F, R } from './helpers/peer.js';

const MAX_GIVEN = 65536;
const token = newToken();
const tag = `rv${process.pid}`;
/** @type {import('./helpers/daemons.js').Daemon} */
let a;
/** @type {import('./helpers/daemons.js').Daemon} */
let b;
/** @typedef {Awaited<ReturnType<typeof hostilePeer>>} Peer */
/** @type {Peer} a tab linked to A only */
let routed;
/** @type {Peer} a tab linked to A and to B */
let direct;
/** @type {Peer} an unrestricted peer of A */
let peerA;
/** @type {Peer} an unrestricted peer of B */
let peerB;
/** @type {Map<Peer, any[]>} frames each tab got from B */
const fromB = new Map();

before(async () => {
  let tabOfA;
  ({ a, b, tabOfA } = await startDaemonPair(token));
  routed = await tabOfA();
  direct = await tabOfA();
  peerA = await hostilePeer(a, token);
  peerB = await hostilePeer(b, token);
  await direct.mesh.connect(b.url);
  fromB.set(routed, framesFrom(routed, b.id));
  fromB.set(direct, framesFrom(direct, b.id));
  await waitFor(() => routed.mesh.isReachable(b.id) && peerA.mesh.isReachable(b.id), 10_000, 'the tabs reaching B');
  assert.equal(routed.mesh.peers().length, 1, 'the routed tab is linked to A only');
  assert.equal(direct.mesh.peers().length, 2, 'the direct tab is linked to A and B');
});

after(async () => {
  await Promise.all([routed?.stop(), direct?.stop(), peerA?.stop(), peerB?.stop()]);
  await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
});


const { echoOn, give, nextEnv } = peerSpawner(tag);

/** An echo server on B, spawned by peerB. */
const echoOnB = () => echoOn(peerB);

/** A process of A gives `tab` the value `x` (in a SEND to its process `n`). @param {Peer} tab @param {any} x @param {number} n */
const giveFromA = (tab, x, n) => give(peerA, tab, x, n);

/** Whether `tab` got (echo text) from B at its process `n`. @param {Peer} tab @param {number} n @param {string} text */
const echoed = (tab, n, text) => /** @type {any[]} */ (fromB.get(tab)).some((f) => f[0] === F.SEND && f[2] === n && writeString(f[3]) === `(echo "${text}")`);

/**
 * `tab`, given `server` by A, sends to it, links it to one of its processes and kills it:
 * all three are taken by B (the echo comes, then the exit signal of the link).
 * @param {Peer} tab @param {Pid} server @param {number} base serials of the tab's processes
 */
async function sendLinkKill(tab, server, base) {
  const list = /** @type {any[]} */ (fromB.get(tab));
  tab.mesh.send(b.id, encodeValue([F.SEND, server.node, server.n, [new Pid(tab.id, base), 'vouched'], []]));
  await waitFor(() => echoed(tab, base, 'vouched'), 10_000, 'the echo of the SEND to a vouched pid');
  tab.mesh.send(b.id, encodeValue([F.LINK, server.node, server.n, new Pid(tab.id, base + 1), []]));
  tab.mesh.send(b.id, encodeValue([F.KILL, server.node, server.n, []]));
  const signal = await frameIn(list, (f) => f[0] === F.SIGNAL && f[2] === base + 1, 'the exit signal of the killed process');
  assert.equal(signal[1], tab.id);
  assert.ok(!list.some((f) => f[0] === F.ERROR), `B refused nothing: ${JSON.stringify(list.filter((f) => f[0] === F.ERROR).map((f) => String(f[1])))}`);
}

test('a tab reaching B through A acts on the pid of B that A gave it; not on one it was not given', async () => {
  const given = await echoOnB();
  const other = await echoOnB();
  await giveFromA(routed, given, 10);
  await sendLinkKill(routed, given, 11);
  routed.mesh.send(b.id, encodeValue([F.SEND, other.node, other.n, [new Pid(routed.id, 13), 'not given'], []]));
  const refusal = await frameIn(/** @type {any[]} */ (fromB.get(routed)), (f) => f[0] === F.ERROR, 'B refusing the SEND to a pid not given');
  assert.equal(String(refusal[1]), `SEND to process ${other.n} refused: ${routed.id.slice(0, 12)} is a restricted peer and was not given that pid`);
  assert.equal(echoed(routed, 13, 'not given'), false);
});

test('a tab linked to B acts there on the pid of B that A gave it; not on one it was not given', async () => {
  const given = await echoOnB();
  const other = await echoOnB();
  await giveFromA(direct, given, 20);
  await sendLinkKill(direct, given, 21);
  const list = /** @type {any[]} */ (fromB.get(direct));
  direct.mesh.send(b.id, encodeValue([F.SEND, other.node, other.n, [new Pid(direct.id, 23), 'not given'], []]));
  const refusal = await frameIn(list, (f) => f[0] === F.ERROR, 'B refusing the SEND to a pid not given');
  assert.equal(String(refusal[1]), `SEND to process ${other.n} refused: ${direct.id.slice(0, 12)} is a restricted peer and was not given that pid`);
  list.length = 0;
});

test('a frame over the direct link that comes before A\'s vouch is held, and taken when the vouch comes', async () => {
  const server = await echoOnB();
  const list = /** @type {any[]} */ (fromB.get(direct));
  list.length = 0;
  // the tab knows the serial before A gives it the pid (as if A's frame outran A's vouch)
  direct.mesh.send(b.id, encodeValue([F.SEND, server.node, server.n, [new Pid(direct.id, 30), 'early'], []]));
  direct.mesh.send(b.id, encodeValue([F.SEND, server.node, server.n, [new Pid(direct.id, 30), 'early, second'], []]));
  await giveFromA(direct, server, 31);
  await waitFor(() => echoed(direct, 30, 'early, second'), 10_000, 'the echoes of the held frames');
  const echoes = list.filter((f) => f[0] === F.SEND && f[2] === 30).map((f) => writeString(f[3]));
  assert.deepEqual(echoes, ['(echo "early")', '(echo "early, second")'], 'held frames are taken in order');
  assert.ok(!list.some((f) => f[0] === F.ERROR));
});

test('a request over the direct link that comes before A\'s vouch waits for it', async () => {
  const server = await echoOnB();
  direct.units.set(PASS.hash, ['unit', PASS.data, false]);
  const thunk = closureRef(PASS.hash, nextEnv(), PASS.lambdas.findIndex((l) => l.nfree === 1), [[new Pid(direct.id, 40), server]]);
  // a SPAWN on B whose thunk names the pid, sent before A gives it
  const asked = direct.mesh.request(b.id, encodeValue([R.SPAWN, thunk, null, false, []]), { timeoutMs: 10_000 });
  await giveFromA(direct, server, 41);
  const answer = decodeValue(await asked, { resolveCode: () => ({ lams: [], lamsByName: new Map() }) });
  assert.equal(answer[0], true, String(answer[1]));
  await frameIn(/** @type {any[]} */ (fromB.get(direct)), (f) => f[0] === F.SEND && f[2] === 40 && writeString(f[3]).startsWith('(given '), 'the spawned process running on B');
  // a SPAWN naming a pid no node gave is refused, after the wait
  const other = await echoOnB();
  const forged = closureRef(PASS.hash, nextEnv(), PASS.lambdas.findIndex((l) => l.nfree === 1), [[new Pid(direct.id, 42), other]]);
  const refused = decodeValue(await direct.mesh.request(b.id, encodeValue([R.SPAWN, forged, null, false, []]), { timeoutMs: 10_000 }), { resolveCode: () => ({ lams: [], lamsByName: new Map() }) });
  assert.equal(refused[0], false);
  assert.match(String(refused[1]), new RegExp(`^Error: SPAWN refused: ${direct.id.slice(0, 12)} is a restricted peer and it names process ${other.n}, whose pid it was not given$`));
});

test('a restricted peer\'s VOUCH for a pid it does not hold is refused with its reason', async () => {
  const answer = await routed.request([R.VOUCH, (await createIdentity()).id, true, [1], []]);
  assert.equal(answer[0], false);
  assert.equal(answer[1], `Error: VOUCH refused: ${routed.id.slice(0, 12)} is a restricted peer and does not hold process 1, which it vouches for`);
  await waitFor(() => a.log().includes(`request from ${routed.id.slice(0, 12)} refused: Error: VOUCH refused`), 5000, 'A logging the refusal');
});

test('a node vouching past the bound is refused, and B keeps serving', async () => {
  // 20 live processes of B; vouching for them to 3,300 made-up tabs is 66,000 entries
  const servers = [];
  for (let i = 0; i < 20; i++) servers.push(await echoOnB());
  const serials = servers.map((p) => p.n);
  let recorded = 0;
  /** @type {string[]} */
  const refused = [];
  for (let round = 0; round < 33; round++) {
    const answers = await Promise.all(Array.from({ length: 100 }, async (_, i) => peerB.request([R.VOUCH, `${tag}-tab-${round}-${i}`, true, serials, []], 20_000)));
    for (const [ok, value] of answers) {
      if (ok) recorded += Number(value);
      else refused.push(String(value));
    }
  }
  assert.ok(recorded <= MAX_GIVEN, `recorded ${recorded}`);
  assert.ok(recorded >= MAX_GIVEN - serials.length, `recorded ${recorded}`);
  assert.ok(refused.length >= 1);
  assert.match(refused[0], new RegExp(`^Error: VOUCH refused: ${peerB.id.slice(0, 12)} has vouched for \\d+ pids of live processes or spaces of this node, and 20 more would pass the ${MAX_GIVEN} one node may vouch for$`));
  await waitFor(() => b.log().includes(`request from ${peerB.id.slice(0, 12)} refused: Error: VOUCH refused`), 5000, 'B logging the refusal');
  assert.equal((await health(b.url)).ok, true);
  // an ordinary request still answered
  const answer = await peerB.request([R.VOUCH, `${tag}-tab-0-0`, true, serials, []]);
  assert.equal(answer[0], true, 'entries already recorded are no new ones');
});
