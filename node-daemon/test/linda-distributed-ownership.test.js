// @ts-check
/**
 * Where the tuples of a distributed space are owned, so that most withdrawals need no
 * round trip (docs/linda.md, "Distributed spaces", ownership): a real daemon holds the
 * space and raw peers (helpers/peer.js) play the other members, so every DTS frame the
 * daemon sends them is seen and counted.
 *  - an `in` takes a match its node owns before an older match owned elsewhere, and
 *    sends no CHOWN_REQ for it;
 *  - new tuples are owned by the members whose announced `in`s they match, in turn;
 *  - an `in` whose matches belong to another node asks that node for a few of them at
 *    once (asked ahead), and the next `in`s take the granted ones with no request;
 *  - a member that joins is told the `in`s the node's processes wait on;
 *  - a restricted peer (a tab) is handed one tuple per announcement, no more.
 * The daemon is an OS process on a free loopback port, stopped by PID; every wait is
 * bounded.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { encodeValue, decodeValue, writeString } from '@termite/scheme';
import { createIdentity } from '@termite/mesh';
import { startDaemon, newToken } from './helpers/daemons.js';
import { DTS, D, joinMember, onDaemon as runOnDaemon, taskTemplate, dtsFramesSince as sent } from './helpers/dts-members.js';
import { hostilePeer } from './helpers/peer.js';

const token = newToken();
/** @type {import('./helpers/daemons.js').Daemon} */
let d;
/** @type {Awaited<ReturnType<typeof createIdentity>>} a peer the daemon restricts (a tab's standing) */
let tabIdentity;
/** @type {Array<Awaited<ReturnType<typeof hostilePeer>>>} */
const peers = [];

before(async () => {
  tabIdentity = await createIdentity();
  d = await startDaemon({ token, args: ['--restricted-peer', tabIdentity.id] });
});

after(async () => {
  await Promise.all(peers.map((p) => p.stop()));
  await d?.stop('SIGKILL');
});

/** A raw peer joined to the daemon's distributed space `name`. @param {string} name @param {any} [init] hostilePeer's */
const member = async (name, init = {}) => (await joinMember(d, token, name, peers, init)).p;

/** Run Scheme on the daemon (through a node joined to it); its printed lines. @param {string} body */
const onDaemon = (body) => runOnDaemon(d, token, body);

test("an in takes the match its node owns before an older one owned elsewhere, with no CHOWN_REQ", async () => {
  await onDaemon(`(on d (lambda () (make-space 'mine 'distributed) #t))`);
  const p = await member('mine');
  const theirs = `${p.id}/b/1`;
  p.send([DTS, D.OUT, 'mine', theirs, p.id, encodeValue(['job', 1], { stringsAsText: true }), []]);
  const mark = p.frames.length;
  const out = await onDaemon(`(show 'took (on d (lambda ()
  (define s (make-space 'mine 'distributed))
  (let loop ((i 0)) (if (and (< i 500) (< (space-count s "job" ?integer) 1)) (begin (sleep 0.01) (loop (+ i 1)))))
  (out s "job" 2)
  (list (in s "job" ?integer) (space-count s "job" ?integer)))))`);
  assert.match(out, /\(took \(\("job" 2\) 1\)\)/, 'the newer tuple, owned here, is taken; the peer\'s stays');
  const del = await p.frame((f) => p.frames.indexOf(f) >= mark && f[0] === DTS && f[1] === D.DELETE && typeof f[3] === 'string' && f[3] !== theirs, 'the DELETE of the daemon\'s own tuple');
  assert.ok(del[3].startsWith(d.id), 'the tuple withdrawn is one the daemon made');
  assert.deepEqual(sent(p, mark, D.CHOWN_REQ, 'mine'), [], 'no ownership request for the older tuple the peer owns');
});

test('new tuples are owned by the members with announced waiting ins, in turn', async () => {
  await onDaemon(`(on d (lambda () (make-space 'turn 'distributed) #t))`);
  const p1 = await member('turn');
  const p2 = await member('turn');
  const m1 = p1.frames.length, m2 = p2.frames.length;
  p1.send([DTS, D.IN, 'turn', 1, taskTemplate(), []]);
  p2.send([DTS, D.IN, 'turn', 1, taskTemplate(), []]);
  await onDaemon(`(on d (lambda ()
  (define s (make-space 'turn 'distributed))
  (do ((k 1 (+ k 1))) ((> k 6)) (out s "task" k))))`);
  await p1.frame(() => sent(p1, m1, D.OUT, 'turn').length === 6, 'the six OUTs');
  const owners = sent(p1, m1, D.OUT, 'turn').map((f) => [writeString(decodeValue(f[5])), f[4]]);
  const who = (/** @type {string} */ id) => (id === p1.id ? 'p1' : id === p2.id ? 'p2' : id === d.id ? 'daemon' : id);
  // the two INs come over two links, in either order: the first announcer owns tasks 1, 3, 5
  const [x, y] = owners[0][1] === p1.id ? ['p1', 'p2'] : ['p2', 'p1'];
  assert.deepEqual(owners.map(([t, o]) => `${t} ${who(o)}`), [`#("task" 1) ${x}`, `#("task" 2) ${y}`, `#("task" 3) ${x}`, `#("task" 4) ${y}`, `#("task" 5) ${x}`, `#("task" 6) ${y}`],
    'each announcer owns every other task (before, only the first two left the daemon)');
  await p2.frame(() => sent(p2, m2, D.OUT, 'turn').length === 6, 'the second member hears of all six too');
  // a withdrawal carrying the announcement's number ends the turn: the next tuple goes to the one still waiting
  const k1 = owners.findIndex((o) => o[1] === p1.id) + 1; // the first task p1 owns
  p1.send([DTS, D.DELETE, 'turn', sent(p1, m1, D.OUT, 'turn')[k1 - 1][3], 1, []]);
  await onDaemon(`(on d (lambda ()
  (define s (make-space 'turn 'distributed))
  (let loop ((i 0)) (if (and (< i 500) (> (space-count s "task" ${k1}) 0)) (begin (sleep 0.01) (loop (+ i 1)))))
  (out s "task" 7)))`);
  await p1.frame(() => sent(p1, m1, D.OUT, 'turn').length === 7, 'the seventh OUT');
  assert.equal(sent(p1, m1, D.OUT, 'turn')[6][4], p2.id, 'owned by the member whose in still waits');
});

test('an in whose matches another node owns asks for a few at once, and the next ins need no request', async () => {
  await onDaemon(`(on d (lambda () (make-space 'ahead 'distributed) #t))`);
  const p = await member('ahead');
  for (let k = 1; k <= 6; k++) p.send([DTS, D.OUT, 'ahead', `${p.id}/b/${k}`, p.id, encodeValue(['task', k], { stringsAsText: true }), []]);
  const mark = p.frames.length;
  const running = onDaemon(`(show 'took (on d (lambda ()
  (define s (make-space 'ahead 'distributed))
  (let loop ((i 0)) (if (and (< i 500) (< (space-count s "task" ?integer) 6)) (begin (sleep 0.01) (loop (+ i 1)))))
  (let loop ((k 0) (got '())) (if (< k 4) (loop (+ k 1) (cons (cadr (in s "task" ?integer)) got)) (reverse got))))))`);
  // no answer until four requests are in: the first in asks for its match and three more at once
  await p.frame(() => sent(p, mark, D.CHOWN_REQ, 'ahead').length >= 4, 'four ownership requests before any answer');
  for (const f of sent(p, mark, D.CHOWN_REQ, 'ahead')) p.send([DTS, D.CHOWN_ACK, 'ahead', f[3], d.id, []]);
  assert.match(await running, /\(took \(1 2 3 4\)\)/, 'the oldest four, in order: the next ins waited for the answers asked ahead');
  const asked = sent(p, mark, D.CHOWN_REQ, 'ahead').map((f) => f[3]);
  assert.deepEqual(asked, [1, 2, 3, 4].map((k) => `${p.id}/b/${k}`), 'one request for the first and three asked ahead in the same turn, none for the next three ins');
  await p.frame(() => sent(p, mark, D.DELETE, 'ahead').length === 4, 'four DELETEs');
});

test('a member that joins is told the ins the node\'s processes wait on', async () => {
  // a process on the daemon waits on the space before any member exists (the second
  // round trip to the daemon runs after the spawned process has reached its in)
  await onDaemon(`(on d (lambda ()
  (define s (make-space 'told 'distributed))
  (spawn (lambda () (out s "done" (cadr (in s "reply" ?integer)))))
  #t))
(on d (lambda () #t))`);
  const p = await member('told');
  const ann = await p.frame((f) => f[0] === DTS && f[1] === D.IN && f[2] === 'told', 'the IN of the waiting process, sent to the joiner');
  assert.equal(writeString(decodeValue(ann[4])), '#("reply" #<formal integer>)');
  p.send([DTS, D.OUT, 'told', `${p.id}/b/1`, d.id, encodeValue(['reply', 5], { stringsAsText: true }), []]);
  const done = await p.frame((f) => f[0] === DTS && f[1] === D.OUT && f[2] === 'told', 'the waiting process took the reply and made its answer');
  assert.equal(writeString(decodeValue(done[5])), '#("done" 5)');
});

test('a restricted peer is handed one tuple per announced in, not every new one', async () => {
  await onDaemon(`(on d (lambda () (make-space 'tabs 'distributed) #t))`);
  const tab = await member('tabs', { identity: tabIdentity });
  const m = tab.frames.length;
  tab.send([DTS, D.IN, 'tabs', 1, taskTemplate(), []]);
  // the IN is in before the daemon's outs: the program first waits for a frame the tab sends after it
  tab.send([DTS, D.OUT, 'tabs', `${tab.id}/b/1`, tab.id, encodeValue(['mark', 1], { stringsAsText: true }), []]);
  await onDaemon(`(on d (lambda ()
  (define s (make-space 'tabs 'distributed))
  (let loop ((i 0)) (if (and (< i 500) (< (space-count s "mark" 1) 1)) (begin (sleep 0.01) (loop (+ i 1)))))
  (do ((k 1 (+ k 1))) ((> k 3)) (out s "task" k))))`);
  await tab.frame(() => sent(tab, m, D.OUT, 'tabs').length === 3, 'the three OUTs');
  assert.deepEqual(sent(tab, m, D.OUT, 'tabs').map((f) => f[4] === tab.id ? 'tab' : f[4] === d.id ? 'daemon' : f[4]), ['tab', 'daemon', 'daemon']);
});
