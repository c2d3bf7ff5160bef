// @ts-check
/**
 * What a daemon vouches for besides the pids it writes to a tab (docs/security.md, "A pid
 * of a third node that a daemon hands a tab"): two real daemons A and B (B joined A, and
 * lets pages of A's origin open its mesh WebSocket), tabs played by Node mesh nodes whose
 * upgrades carried A's `Origin` (one linked to A only, one linked to A and B), and
 * unrestricted peers on each daemon.
 *  - A local space of B that a process of A hands a tab: the tab's Linda operations on it
 *    are served by B, routed through A; a local space of B it was not given is refused
 *    with the reason; an operation over the direct link that comes before A's vouch is
 *    held and served when the vouch comes.
 *  - A pid and a space of B that a process of A sends, in a local message on A, to a
 *    process the tab spawned on A: that process's `!` to the pid and its `rdp` on the
 *    space are taken by B (A vouched before the message was delivered); a pid of B no
 *    node gave (the tab wrote it itself) is still refused. A pid of B that a process of
 *    B sends to that process (a SEND frame B → A) is vouched for by A the same way.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeString, encodeValue, decodeValue } from '@termite/scheme';
import { Pid, SpaceRef } from '@termite/runtime';
import { newToken, waitFor } from './helpers/daemons.js';
import { startDaemonPair, framesFrom, peerSpawner, ECHO, PASS } from './helpers/daemon-pair.js';
import { hostilePeer, unitOf, F } from './helpers/peer.js';

const SPACE_OP = 30, SPACE_REPLY = 31;
const OP = { out: 1, rdp: 3, make: 7 };
const S_VALUE = 0, S_READ = 2, S_ERROR = 4;
const token = newToken();
const tag = `rvm${process.pid}`;
/** @type {import('./helpers/daemons.js').Daemon} */
let a;
/** @type {import('./helpers/daemons.js').Daemon} */
let b;
/** @typedef {Awaited<ReturnType<typeof hostilePeer>>} Peer */
/** @type {Peer} a tab linked to A only */
let routed;
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
  peerA = await hostilePeer(a, token);
  peerB = await hostilePeer(b, token);
  fromB.set(routed, framesFrom(routed, b.id));
  await waitFor(() => routed.mesh.isReachable(b.id) && peerA.mesh.isReachable(b.id), 10_000, 'the tab reaching B');
  assert.equal(routed.mesh.peers().length, 1, 'the routed tab is linked to A only');
});

after(async () => {
  await Promise.all([routed?.stop(), peerA?.stop(), peerB?.stop()]);
  await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
});

// a process a tab spawns on A: it waits for (given pid) or #(given pid) and sends #(reply-to text) to that pid
const ASKER = unitOf('(lambda (v) (lambda () (let* ((m (?)) (pid (if (vector? m) (vector-ref m 1) (cadr m)))) (! pid (vector (vector-ref v 0) (vector-ref v 1))))))');
// a process a tab spawns on A: it waits for (given space), reads ("key" ?) there and reports it to `to`
const READER = unitOf(`(lambda (to) (lambda () (let ((m (?)))
  (! to (guard (e (#t (list 'refused (error-object-message e)))) (list 'read (rdp (cadr m) "key" ?any)))))))`);

const { spawnOn, give } = peerSpawner(tag);

let requests = 0;
/**
 * `who` sends B a space operation (over its link to B, or routed through A); resolves
 * with B's reply [status, value].
 * @param {Peer} who @param {number} op @param {string} name @param {any[] | null} fields
 */
async function spaceOpOnB(who, op, name, fields) {
  const n = ++requests;
  who.mesh.send(b.id, encodeValue([SPACE_OP, n, op, name, 'local', fields === null ? false : encodeValue(fields, { stringsAsText: true }), false, []]));
  return replyOf(who, n);
}

/** B's reply to the space request `n` of `who`. @param {Peer} who @param {number} n */
async function replyOf(who, n) {
  const list = /** @type {any[]} */ (fromB.get(who) ?? peerB.frames);
  await waitFor(() => list.some((f) => f[0] === SPACE_REPLY && f[1] === n), 10_000, `the reply to space request ${n}`);
  const f = list.find((x) => x[0] === SPACE_REPLY && x[1] === n);
  return [f[2], f[2] === S_READ ? writeString(decodeValue(f[3])) : f[3]];
}

/** A local space of B, made by peerB, holding ("key" value). @param {string} name @param {number} value */
async function spaceOnB(name, value) {
  peerB.send([SPACE_OP, ++requests, OP.make, name, 'local', false, false, []]);
  assert.deepEqual(await replyOf(peerB, requests), [S_VALUE, 'local']);
  peerB.send([SPACE_OP, ++requests, OP.out, name, 'local', encodeValue(['key', value], { stringsAsText: true }), false, []]);
  assert.deepEqual(await replyOf(peerB, requests), [S_VALUE, true]);
  return new SpaceRef(b.id, name, 'local');
}

/** A process of A gives `tab` the value `x` (in a SEND to its process `n`). @param {Peer} tab @param {any} x @param {number} n */
const giveFromA = (tab, x, n) => give(peerA, tab, x, n);

const notGiven = (/** @type {Peer} */ who, /** @type {string} */ name) => new RegExp(`${who.id.slice(0, 12)} is a restricted peer and the space ${name} was not given to it`);

test('a tab reaching B through A uses the local space of B that A gave it; not one it was not given', async () => {
  const given = await spaceOnB(`${tag}-given`, 1);
  const other = await spaceOnB(`${tag}-other`, 2);
  await giveFromA(routed, given, 10);
  assert.deepEqual(await spaceOpOnB(routed, OP.rdp, given.name, ['key', 1]), [S_READ, '#("key" 1)']);
  assert.deepEqual(await spaceOpOnB(routed, OP.out, given.name, ['tab', 1]), [S_VALUE, true]);
  const refused = await spaceOpOnB(routed, OP.rdp, other.name, ['key', 2]);
  assert.equal(refused[0], S_ERROR);
  assert.match(String(refused[1]), notGiven(routed, other.name));
  await waitFor(() => b.log().includes(`space request from ${routed.id.slice(0, 12)} refused`), 5000, 'B logging the refusal');
});

test('a pid of B that reaches the tab\'s process on A in a local message is vouched for: its `!` is taken by B', async () => {
  const server = await spawnOn(peerB, ECHO, new Pid(peerB.id, 5000));
  // the echo goes to a peer linked to B (B's frames to a tab of A may take any route)
  const asker = await spawnOn(routed, ASKER, [new Pid(peerB.id, 40), 'from the tab\'s process']);
  assert.equal(asker.node, a.id, 'the asker runs on A');
  await spawnOn(peerA, PASS, [asker, server]); // a process of A hands it the pid, on A
  await peerB.frame((f) => f[0] === F.SEND && f[2] === 40 && writeString(f[3]) === '(echo "from the tab\'s process")', 'the echo of the asker\'s `!`');
  assert.ok(!a.log().includes('refused') && !b.log().includes(`from a process of ${routed.id.slice(0, 12)} refused`), b.log());
  // a pid of B that no node gave: the same process's `!` is refused by B
  const other = await spawnOn(peerB, ECHO, new Pid(peerB.id, 5001));
  const forger = await spawnOn(routed, ASKER, [new Pid(peerB.id, 41), 'forged']);
  routed.send([F.SEND, forger.node, forger.n, ['given', other], []]); // the tab writes it itself
  await waitFor(() => b.log().includes(`SEND to process ${other.n} from a process of ${routed.id.slice(0, 12)} refused`), 10_000, 'B refusing the forged pid');
  assert.ok(!peerB.frames.some((f) => f[0] === F.SEND && f[2] === 41));
});

test('a pid of B that a process of B sends to the tab\'s process on A is vouched for by A: that process\'s `!` is taken by B', async () => {
  const server = await spawnOn(peerB, ECHO, new Pid(peerB.id, 5002));
  const asker = await spawnOn(routed, ASKER, [new Pid(peerB.id, 42), 'told by B']);
  await spawnOn(peerB, PASS, [asker, server]); // a process of B hands it the pid: a SEND frame from B to A
  await peerB.frame((f) => f[0] === F.SEND && f[2] === 42 && writeString(f[3]) === '(echo "told by B")', 'the echo of the asker\'s `!`');
});

test('a local space of B that reaches the tab\'s process on A in a local message is vouched for', async () => {
  const space = await spaceOnB(`${tag}-local-message`, 5);
  const reader = await spawnOn(routed, READER, new Pid(routed.id, 50));
  await spawnOn(peerA, PASS, [reader, space]);
  const got = await routed.frame((f) => f[0] === F.SEND && f[2] === 50, 'what the reader read');
  assert.equal(writeString(got[3]), '(read ("key" 5))');
});

test('a Linda operation over the direct link that comes before A\'s vouch is held, and served when the vouch comes', async () => {
  // a tab linked to A and B, for this test only
  const direct = await hostilePeer(a, token, { websocket: { origin: `http://127.0.0.1:${a.port}` } });
  try {
    await direct.mesh.connect(b.url);
    fromB.set(direct, framesFrom(direct, b.id));
    await waitFor(() => direct.mesh.isReachable(b.id), 10_000, 'the direct tab reaching B');
    assert.equal(direct.mesh.peers().length, 2, 'the direct tab is linked to A and B');
    await heldUntilVouched(direct);
  } finally {
    await direct.stop();
  }
});

/** The held test's body, for the tab `direct` linked to A and B. @param {Peer} direct */
async function heldUntilVouched(direct) {
  const space = await spaceOnB(`${tag}-early`, 3);
  // the tab knows the name before A gives it the space (as if A's frame outran A's vouch)
  const n = ++requests;
  direct.mesh.send(b.id, encodeValue([SPACE_OP, n, OP.rdp, space.name, 'local', encodeValue(['key', 3], { stringsAsText: true }), false, []]));
  await giveFromA(direct, space, 30);
  assert.deepEqual(await replyOf(direct, n), [S_READ, '#("key" 3)']);
  // one never given is refused, after the hold
  const other = await spaceOnB(`${tag}-never`, 4);
  const refused = await spaceOpOnB(direct, OP.rdp, other.name, ['key', 4]);
  assert.equal(refused[0], S_ERROR);
  assert.match(String(refused[1]), notGiven(direct, other.name));
}
