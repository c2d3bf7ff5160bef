// @ts-check
/**
 * The DTS protocol of distributed spaces against a real daemon driven by hand
 * (helpers/peer.js sends raw frames): a peer joins (REPAIR_REQ #t → REPAIR_ACK with the
 * tuples, join #t), announces a tuple (OUT), is asked for a tuple it named that the
 * daemon lacks (ACCESS → REPAIR_REQ), takes the ownership of the daemon's tuple
 * (CHOWN_REQ → CHOWN_ACK) and withdraws it (DELETE), comes back from a partition (ACCESS
 * answered with the withdrawals it missed and the daemon's own ACCESS); malformed or forged DTS frames are
 * refused with their reason (an ERROR frame) and change nothing; a restricted peer may
 * withdraw only tuples it owns, and what it announces is its own; the daemon keeps serving.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { encodeValue, decodeValue, writeString } from '@termite/scheme';
import { createIdentity } from '@termite/mesh';
import { startDaemon, runProgram, health, newToken } from './helpers/daemons.js';
import { hostilePeer } from './helpers/peer.js';

const DTS = 34;
const D = { OUT: 1, CHOWN_REQ: 4, CHOWN_ACK: 5, DELETE: 6, ACCESS: 7, REPAIR_REQ: 8, REPAIR_ACK: 9, REFUSED: 10 };
const token = newToken();
/** @type {import('./helpers/daemons.js').Daemon} */
let d;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} */
let peer;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} a restricted peer (a tab's standing) */
let tab;

before(async () => {
  const identity = await createIdentity();
  d = await startDaemon({ token, args: ['--restricted-peer', identity.id] });
  const r = await runProgram(`
(define d (make-node "127.0.0.1" ${d.port}))
(on d (lambda () (out (make-space 'hs 'distributed) 'x 1)))`, { token, join: [d.url], timeoutMs: 20000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  peer = await hostilePeer(d, token);
  tab = await hostilePeer(d, token, { identity });
});

after(async () => {
  await Promise.all([peer?.stop(), tab?.stop()]);
  await d?.stop('SIGKILL');
});

/** The tuples of the daemon's replica, by a fresh join of `who`: [[id, owner, text]...]. @param {typeof peer} who */
async function tuplesSeenBy(who) {
  const mark = who.frames.length;
  who.send([DTS, D.REPAIR_REQ, 'hs', true, []]);
  const f = await who.frame((x) => who.frames.indexOf(x) >= mark && x[0] === DTS && x[1] === D.REPAIR_ACK && x[6] === true, 'the REPAIR_ACK of a join');
  return f[3].map((/** @type {any[]} */ [id, owner, bytes]) => [id, owner, writeString(decodeValue(bytes))]);
}

/** Send a frame and wait for the daemon's refusal naming `re` (refusals are reported at most once a second). @param {typeof peer} who @param {any[]} frame @param {RegExp} re */
async function refused(who, frame, re) {
  await new Promise((r) => setTimeout(r, 1100));
  who.send(frame);
  await who.errorFrame(re);
}

test('a peer joins, announces a tuple, is asked to repair, takes the ownership of a tuple and withdraws it', async () => {
  const first = await tuplesSeenBy(peer);
  assert.equal(first.length, 1);
  const [xid, xowner, xtext] = first[0];
  assert.equal(xtext, '#(x 1)');
  assert.equal(xowner, d.id);
  const mine = `${peer.id}/b/1`;
  peer.send([DTS, D.OUT, 'hs', mine, peer.id, encodeValue(['y', 2], { stringsAsText: true }), []]);
  assert.deepEqual((await tuplesSeenBy(peer)).map((t) => t[2]).sort(), ['#("y" 2)', '#(x 1)']);
  const missing = `${peer.id}/b/99`;
  peer.send([DTS, D.ACCESS, 'hs', [mine, missing], false, []]);
  const ask = await peer.frame((f) => f[0] === DTS && f[1] === D.REPAIR_REQ && Array.isArray(f[3]), 'a REPAIR_REQ for what the daemon lacks');
  assert.deepEqual(ask[3], [missing]);
  peer.send([DTS, D.CHOWN_REQ, 'hs', xid, []]);
  const ack = await peer.frame((f) => f[0] === DTS && f[1] === D.CHOWN_ACK && f[3] === xid, 'the CHOWN_ACK');
  assert.equal(ack[4], peer.id, 'the daemon owned it and gave it');
  peer.send([DTS, D.DELETE, 'hs', xid, false, []]);
  assert.deepEqual((await tuplesSeenBy(peer)).map((t) => t[2]), ['#("y" 2)']);
  // asked again for a withdrawn tuple, the daemon says it was deleted
  peer.send([DTS, D.CHOWN_REQ, 'hs', xid, []]);
  await peer.frame((f) => f[0] === DTS && f[1] === D.DELETE && f[3] === xid, 'a DELETE for a withdrawn tuple');
  // after a partition: the peer says what it holds (a tuple withdrawn meanwhile among them) and asks for the daemon's list
  peer.send([DTS, D.ACCESS, 'hs', [xid, mine], true, []]);
  const gone = await peer.frame((f) => f[0] === DTS && f[1] === D.REPAIR_ACK && Array.isArray(f[4]) && f[4].includes(xid) && f[6] === false, 'the withdrawals the peer missed');
  assert.deepEqual(gone[3], [], 'no tuple to repair');
  const back = await peer.frame((f) => f[0] === DTS && f[1] === D.ACCESS, "the daemon's own ACCESS");
  assert.deepEqual(back[3], [mine], 'the ids the daemon holds');
});

test('malformed and forged DTS frames are refused with their reason and change nothing', async () => {
  const before = (await tuplesSeenBy(peer)).map((t) => t[2]).sort();
  const bytes = encodeValue(['z', 3], { stringsAsText: true });
  await refused(peer, [DTS, 99, 'hs', []], /malformed DTS frame: unknown message 99/);
  await refused(peer, [DTS, D.OUT, 'hs', 'id', []], /malformed DTS OUT frame: 4 items, expected 6/);
  await refused(peer, [DTS, D.OUT, 'hs', `${peer.id}/b/2`, peer.id, encodeValue(5), []], /malformed DTS OUT frame: a tuple is a CBOR array/);
  await refused(peer, [DTS, D.OUT, 'hs', `someone-else/b/1`, peer.id, bytes, []], /only the node that made a tuple announces it/);
  await refused(peer, [DTS, D.ACCESS, 'hs', [1, 2], false, []], /ACCESS carries a vector of tuple ids/);
  await refused(peer, [DTS, D.OUT, 'x'.repeat(300), `${peer.id}/b/3`, peer.id, bytes, []], /the space name must be a string of 1 to 256 characters/);
  await new Promise((r) => setTimeout(r, 1100));
  peer.send([DTS, D.REPAIR_REQ, 'nope', true, []]);
  await peer.frame((f) => f[0] === DTS && f[1] === D.REFUSED && f[2] === 'nope', 'REFUSED for a space the daemon does not hold');
  await peer.errorFrame(/DTS REPAIR_REQ for nope, which is not a distributed space of this node/);
  assert.deepEqual((await tuplesSeenBy(peer)).map((t) => t[2]).sort(), before);
  assert.ok(await health(d.url), 'the daemon still answers /health');
});

test('a restricted peer uses a distributed space, but announces only its own tuples and withdraws only those it owns', async () => {
  const seen = await tuplesSeenBy(tab);
  const other = seen.find((t) => t[1] !== tab.id);
  assert.ok(other, 'a tuple the tab does not own');
  const bytes = encodeValue(['t', 1], { stringsAsText: true });
  await refused(tab, [DTS, D.OUT, 'hs', `${peer.id}/b/7`, peer.id, bytes, []], /only the node that made a tuple announces it/);
  await refused(tab, [DTS, D.DELETE, 'hs', other[0], false, []], /a restricted peer withdraws only tuples it owns/);
  // a tuple it says another node owns is taken as its own
  tab.send([DTS, D.OUT, 'hs', `${tab.id}/b/2`, peer.id, bytes, []]);
  const after = await tuplesSeenBy(tab);
  assert.deepEqual(after.map((t) => t[2]).sort(), [...seen.map((t) => t[2]), '#("t" 1)'].sort());
  assert.equal(after.find((t) => t[2] === '#("t" 1)')?.[1], tab.id);
  assert.ok(after.some((t) => t[0] === other[0]), 'the tuple it may not withdraw is still there');
});
