// @ts-check
/**
 * How the tasks of a distributed space are shared among the members that take them
 * (docs/linda.md, "Distributed spaces", sharing): a real daemon holds the space and raw
 * peers (helpers/peer.js) play the workers, so every DTS frame the daemon sends them is
 * seen and counted.
 *  - an ownership request for a tuple the owner has withdrawn, or handed to another
 *    member, is answered with another match the owner holds (a REPAIR_ACK naming the
 *    requester its owner, sent before the answer about the tuple asked for): two
 *    workers that ask for the same oldest task each get one;
 *  - a request in the earlier form (no template) gets the answer alone.
 *  - a burst of tasks made while two members have announced their `in`s is owned by
 *    them in turn (each a share within 2 of the other's), and reaches each in a few
 *    frames (batching).
 * The daemon is an OS process on a free loopback port, stopped by PID; every wait is
 * bounded.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { encodeValue, decodeValue, writeString } from '@termite/scheme';
import { startDaemon, newToken } from './helpers/daemons.js';
import { DTS, D, joinMember, onDaemon as runOnDaemon, taskTemplate, dtsFramesSince as sent } from './helpers/dts-members.js';
import { hostilePeer } from './helpers/peer.js';

const token = newToken();
/** @type {import('./helpers/daemons.js').Daemon} */
let d;
/** @type {Array<Awaited<ReturnType<typeof hostilePeer>>>} */
const peers = [];

before(async () => {
  d = await startDaemon({ token });
});

after(async () => {
  await Promise.all(peers.map((p) => p.stop()));
  await d?.stop('SIGKILL');
});

/** A raw peer joined to the daemon's distributed space `name`; its join's REPAIR_ACK. @param {string} name */
const member = (name) => joinMember(d, token, name, peers);

/** Run Scheme on the daemon (through a node joined to it); its printed lines. @param {string} body */
const onDaemon = (body) => runOnDaemon(d, token, body);

/** The id of the tuple ("task" k) in a join's REPAIR_ACK. @param {any[]} ack @param {number} k */
function taskId(ack, k) {
  const hit = ack[3].find((/** @type {any[]} */ t) => writeString(decodeValue(t[2])) === `#("task" ${k})`);
  assert.ok(hit !== undefined, `task ${k} is in the join's answer`);
  return hit[0];
}

test('a request for a withdrawn or handed-on task is answered with another task the owner holds', async () => {
  await onDaemon(`(on d (lambda () (define s (make-space 'share 'distributed)) (do ((k 1 (+ k 1))) ((> k 5)) (out s "task" k)) #t))`);
  const { p: w1, ack: a1 } = await member('share');
  const { p: w2 } = await member('share');
  const [t1, t2, t3] = [taskId(a1, 1), taskId(a1, 2), taskId(a1, 3)];
  // the daemon withdraws task 1 itself; both workers then ask for it, as a worker whose
  // replica still holds it does
  const m1 = w1.frames.length, m2 = w2.frames.length;
  assert.match(await onDaemon(`(show (on d (lambda () (in (make-space 'share 'distributed) "task" 1))))`), /\(\("task" 1\)\)/);
  await w1.frame(() => sent(w1, m1, D.DELETE, 'share').length === 1, 'the DELETE of task 1');
  w1.send([DTS, D.CHOWN_REQ, 'share', t1, taskTemplate(), []]);
  await w1.frame(() => sent(w1, m1, D.DELETE, 'share').length === 2, 'the answer to the request for task 1');
  const grant1 = sent(w1, m1, D.DELETE, 'share')[1];
  const subs1 = sent(w1, m1, D.REPAIR_ACK, 'share');
  assert.equal(subs1.length, 1, 'one match granted instead');
  assert.deepEqual(subs1[0][3].map((/** @type {any[]} */ t) => [t[0], t[1]]), [[t2, w1.id]], 'the oldest task the daemon holds, owned by the requester now');
  assert.ok(w1.frames.indexOf(subs1[0]) < w1.frames.indexOf(grant1), 'the grant arrives before the answer about task 1');
  // the second worker asks for task 2, which the daemon handed to the first: it gets task 3
  await w2.frame(() => sent(w2, m2, D.DELETE, 'share').length === 1, 'the DELETE of task 1 at the second worker');
  w2.send([DTS, D.CHOWN_REQ, 'share', t2, taskTemplate(), []]);
  await w2.frame(() => sent(w2, m2, D.CHOWN_ACK, 'share').length === 1, 'the answer to the request for task 2');
  const redirect = sent(w2, m2, D.CHOWN_ACK, 'share')[0];
  assert.equal(redirect[4], w1.id, 'task 2 is the first worker\'s');
  const subs2 = sent(w2, m2, D.REPAIR_ACK, 'share');
  assert.deepEqual(subs2.map((f) => f[3].map((/** @type {any[]} */ t) => [t[0], t[1]])), [[[t3, w2.id]]], 'task 3 granted to the second worker');
  assert.ok(w2.frames.indexOf(subs2[0]) < w2.frames.indexOf(redirect));
  // the earlier form of the request (no template) gets the answer alone
  const m3 = w2.frames.length;
  w2.send([DTS, D.CHOWN_REQ, 'share', t1, []]);
  await w2.frame(() => sent(w2, m3, D.DELETE, 'share').length === 1, 'the answer to the earlier form');
  assert.equal(sent(w2, m3, D.REPAIR_ACK, 'share').length, 0, 'no match granted without a template');
  // the daemon still holds tasks 4 and 5 and withdraws them without asking anyone
  const m4 = w1.frames.length;
  assert.match(await onDaemon(`(show (on d (lambda () (let ((s (make-space 'share 'distributed))) (list (inp s "task" 4) (inp s "task" 5))))))`), /\(\(\("task" 4\) \("task" 5\)\)\)/);
  assert.equal(sent(w1, m4, D.CHOWN_REQ, 'share').length, 0);
});

test('a burst of tasks made while two members wait is shared between them, and reaches each in a few frames', async () => {
  await onDaemon(`(on d (lambda () (make-space 'fair 'distributed) #t))`);
  const { p: w1 } = await member('fair');
  const { p: w2 } = await member('fair');
  const m1 = w1.frames.length, m2 = w2.frames.length, b1 = w1.dtsBatches.length;
  w1.send([DTS, D.IN, 'fair', 1, taskTemplate(), []]);
  w2.send([DTS, D.IN, 'fair', 1, taskTemplate(), []]);
  // both INs are in before the burst: the program first waits for a tuple w2 sends after its IN
  w2.send([DTS, D.OUT, 'fair', `${w2.id}/b/1`, w2.id, encodeValue(['mark', 1], { stringsAsText: true }), []]);
  await onDaemon(`(on d (lambda ()
  (define s (make-space 'fair 'distributed))
  (let loop ((i 0)) (if (and (< i 500) (< (space-count s "mark" 1) 1)) (begin (sleep 0.01) (loop (+ i 1)))))
  (do ((k 1 (+ k 1))) ((> k 20)) (out s "task" k))))`);
  await w1.frame(() => sent(w1, m1, D.OUT, 'fair').length === 20, 'the 20 OUTs at the first worker');
  await w2.frame(() => sent(w2, m2, D.OUT, 'fair').length === 20, 'the 20 OUTs at the second worker');
  const owners = sent(w1, m1, D.OUT, 'fair').map((f) => f[4]);
  const share1 = owners.filter((o) => o === w1.id).length, share2 = owners.filter((o) => o === w2.id).length;
  assert.equal(share1 + share2, 20, 'every task owned by a waiting worker');
  assert.ok(Math.abs(share1 - share2) <= 2, `shared evenly: ${share1} and ${share2}`);
  const frames1 = w1.frames.length - m1 - w1.dtsBatches.slice(b1).reduce((n, b) => n + b[3].length - 1, 0);
  assert.ok(frames1 <= 4, `the burst in at most 4 frames at the first worker (${frames1})`);
});
