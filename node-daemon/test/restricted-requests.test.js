// @ts-check
/**
 * What a restricted peer may ask of a real daemon besides one-way frames (docs/security.md,
 * "Trust model by role"), driven by hand (helpers/peer.js sends raw frames and requests):
 *  - MIGRATE: not under a forged pid (one naming the daemon, or a third node), and not a
 *    process of its own whose links or state name a daemon process it was not given;
 *  - SPAWN: not a thunk, nor a link, naming a daemon process it was not given;
 *  - SEND: not a message naming a daemon process it was not given, even to one it was;
 *  - SERVICE: only a service whose process it may reach; ENV: only an environment the
 *    daemon sent it a procedure of.
 * Each refusal names its reason, and the daemon process named gets nothing; the same
 * requests from an unrestricted peer go through.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeString } from '@termite/scheme';
import { Pid } from '@termite/runtime';
import { health } from './helpers/daemons.js';
import { daemonWithRestrictedPeer } from './helpers/restricted-daemon.js';
import { hostilePeer, closureRef, unitOf, F, R } from './helpers/peer.js';

/** @type {import('./helpers/daemons.js').Daemon} */
let d;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} the restricted peer */
let tab;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} an unrestricted peer */
let peer;

/** @type {(() => Promise<void>) | undefined} */
let stop;

before(async () => {
  ({ d, tab, peer, stop } = await daemonWithRestrictedPeer());
});

after(() => stop?.());

// a counter: sends its pid to `to`, counts the messages it gets, answers #(count from) with the count
const COUNTER = unitOf(`(lambda (to) (lambda () (! to (self))
  (let loop ((n 0)) (let ((m (?))) (if (and (vector? m) (equal? (vector-ref m 0) "count")) (begin (! (vector-ref m 1) (list 'count n)) (loop n)) (loop (+ n 1)))))))`);
const inner = COUNTER.lambdas.findIndex((l) => l.nfree === 1);
let envs = 0;
let serials = 100;

/** `who` spawns a counter on the daemon that tells `who`'s process `n` its pid. @param {typeof tab} who */
async function counter(who) {
  const to = new Pid(who.id, ++serials);
  who.units.set(COUNTER.hash, ['counter', COUNTER.data, false]);
  const answer = await who.request([R.SPAWN, closureRef(COUNTER.hash, `caps-req-${process.pid}-${++envs}`, inner, [to]), null, false, []]);
  assert.equal(answer[0], true, String(answer[1]));
  await who.frame((f) => f[0] === F.SEND && f[2] === to.n && f[3] instanceof Pid && f[3].n === answer[1].n, 'the counter\'s pid');
  return /** @type {Pid} */ (answer[1]);
}

/** How many messages the counter got, asked by `who`. @param {typeof tab} who @param {Pid} c */
async function countOf(who, c) {
  const n = ++serials;
  who.send([F.SEND, c.node, c.n, ['count', new Pid(who.id, n)], []]);
  const f = await who.frame((x) => x[0] === F.SEND && x[2] === n, 'the count');
  return writeString(f[3]);
}

/** A process state as MIGRATE carries it: [pid thread mailbox links visited]; the thread is never read when refused. @param {Pid} pid @param {Pid[]} links */
const state = (pid, links = []) => [pid, ['not', 'a', 'thread'], [], links, []];

test('a restricted peer cannot migrate a process in under a pid naming the daemon or a third node', async () => {
  const victim = await counter(peer);
  for (const forged of [victim, new Pid(d.id, victim.n + 1000), new Pid(peer.id, 7)]) {
    const a = await tab.request([R.MIGRATE, state(forged), []]);
    assert.equal(a[0], false);
    assert.equal(String(a[1]), `Error: MIGRATE of process ${forged.n} of ${forged.node.slice(0, 12)} refused: ${tab.id.slice(0, 12)} is a restricted peer, the process was not born there, and this node did not send it there nor hear that it went there`);
  }
  // its own pid passes that check (the made-up thread is what is wrong then)
  const own = await tab.request([R.MIGRATE, state(new Pid(tab.id, 1)), []]);
  assert.equal(own[0], false);
  assert.doesNotMatch(String(own[1]), /restricted peer/);
  assert.equal(await countOf(peer, victim), '(count 0)');
});

test('a restricted peer cannot migrate in a process whose links name a daemon process it was not given', async () => {
  const victim = await counter(peer);
  const a = await tab.request([R.MIGRATE, state(new Pid(tab.id, 2), [victim]), []]);
  assert.equal(a[0], false);
  assert.equal(String(a[1]), `Error: MIGRATE of process 2 refused: ${tab.id.slice(0, 12)} is a restricted peer and it names process ${victim.n}, whose pid it was not given`);
});

test('a restricted peer cannot spawn a thunk, or a link, naming a daemon process it was not given', async () => {
  const victim = await counter(peer);
  tab.units.set(COUNTER.hash, ['counter', COUNTER.data, false]);
  const thunk = closureRef(COUNTER.hash, `caps-req-${process.pid}-${++envs}`, inner, [victim]);
  const a = await tab.request([R.SPAWN, thunk, null, false, []]);
  assert.equal(a[0], false);
  assert.equal(String(a[1]), `Error: SPAWN refused: ${tab.id.slice(0, 12)} is a restricted peer and it names process ${victim.n}, whose pid it was not given`);
  const own = closureRef(COUNTER.hash, `caps-req-${process.pid}-${++envs}`, inner, [new Pid(tab.id, 3)]);
  const linked = await tab.request([R.SPAWN, own, null, victim, []]);
  assert.equal(linked[0], false);
  assert.match(String(linked[1]), new RegExp(`names process ${victim.n}, whose pid it was not given`));
  // the counter got nothing: the forged thunk never ran
  assert.equal(await countOf(peer, victim), '(count 0)');
  // the unrestricted peer spawns the same thunk
  const ok = await peer.request([R.SPAWN, closureRef(COUNTER.hash, `caps-req-${process.pid}-${++envs}`, inner, [victim]), null, false, []]);
  assert.equal(ok[0], true, String(ok[1]));
  assert.equal(await countOf(peer, victim), '(count 1)');
});

test('a restricted peer cannot send a process it may reach a message naming one it may not', async () => {
  const hidden = await counter(peer);
  const own = await counter(tab);
  tab.send([F.SEND, own.node, own.n, ['count', hidden], []]);
  const refusal = await tab.errorFrame(new RegExp(`^SEND to process ${own.n} refused`));
  assert.equal(String(refusal[1]), `SEND to process ${own.n} refused: ${tab.id.slice(0, 12)} is a restricted peer and it names process ${hidden.n}, whose pid it was not given`);
  // the counter of its own got nothing (it would have answered the hidden one)
  assert.equal(await countOf(tab, own), '(count 0)');
  assert.equal(await countOf(peer, hidden), '(count 0)');
});

// publishes itself as a service, then tells `to`
const PUBLISHER = unitOf("(lambda (name to) (lambda () (publish-service name (self)) (! to 'published) (let loop () (? ) (loop))))");
const publisher = PUBLISHER.lambdas.findIndex((l) => l.nfree === 2);

/** `who` spawns a process on the daemon that publishes itself as `name`. @param {typeof tab} who @param {string} name */
async function publish(who, name) {
  const to = new Pid(who.id, ++serials);
  who.units.set(PUBLISHER.hash, ['publisher', PUBLISHER.data, false]);
  const a = await who.request([R.SPAWN, closureRef(PUBLISHER.hash, `caps-req-${process.pid}-${++envs}`, publisher, [name, to]), null, false, []]);
  assert.equal(a[0], true, String(a[1]));
  await who.frame((f) => f[0] === F.SEND && f[2] === to.n, 'published');
  return /** @type {Pid} */ (a[1]);
}

test('a restricted peer finds only services whose process it may reach, and fetches only environments it was sent', async () => {
  const theirs = await publish(peer, `caps-theirs-${process.pid}`);
  const refused = await tab.request([R.SERVICE, `caps-theirs-${process.pid}`, []]);
  assert.equal(refused[0], false);
  assert.equal(String(refused[1]), `Error: SERVICE caps-theirs-${process.pid} refused: ${tab.id.slice(0, 12)} is a restricted peer and was not given that service's pid`);
  const found = await peer.request([R.SERVICE, `caps-theirs-${process.pid}`, []]);
  assert.equal(found[0], true);
  assert.ok(found[1] instanceof Pid && found[1].n === theirs.n);
  const mine = await publish(tab, `caps-mine-${process.pid}`);
  const own = await tab.request([R.SERVICE, `caps-mine-${process.pid}`, []]);
  assert.equal(own[0], true, String(own[1]));
  assert.ok(own[1] instanceof Pid && own[1].n === mine.n);
  const asked = await tab.request([R.SERVICE, 'no-such-service', []]);
  assert.equal(asked[0], false);
  assert.match(String(asked[1]), /no service named no-such-service/);
  const env = await tab.request([R.ENV, 'some-program-environment', []]);
  assert.equal(env[0], false);
  assert.equal(String(env[1]), `Error: ENV some-program-environment refused: ${tab.id.slice(0, 12)} is a restricted peer and this node sent it nothing from that environment`);
  const lib = await peer.request([R.ENV, 'some-program-environment', []]);
  assert.equal(lib[0], false);
  assert.match(String(lib[1]), /has no environment some-program-environment/);
  assert.equal((await health(d.url)).ok, true);
});

// reports to `to` what publishing itself as `name`, then looking `other` up on its own node, did
const SQUATTER = unitOf("(lambda (name other to) (lambda () (! to (list (guard (e (#t (error-object-message e))) (publish-service name (self)) 'published) (guard (e (#t (error-object-message e))) (remote-service other (current-node)) 'found)))))");
const squatter = SQUATTER.lambdas.findIndex((l) => l.nfree === 3);

test('a process a restricted peer spawned cannot take over a service it was not given, nor find one on its node', async () => {
  await publish(peer, `caps-taken-${process.pid}`);
  const to = new Pid(tab.id, ++serials);
  tab.units.set(SQUATTER.hash, ['squatter', SQUATTER.data, false]);
  const a = await tab.request([R.SPAWN, closureRef(SQUATTER.hash, `caps-req-${process.pid}-${++envs}`, squatter, [`caps-taken-${process.pid}`, `caps-taken-${process.pid}`, to]), null, false, []]);
  assert.equal(a[0], true, String(a[1]));
  const f = await tab.frame((x) => x[0] === F.SEND && x[2] === to.n, 'what the squatter did');
  assert.equal(writeString(f[3]), `("a restricted peer's process may not replace a service it was not given" "Error: SERVICE caps-taken-${process.pid} refused: ${tab.id.slice(0, 12)} is a restricted peer and was not given that service's pid")`.replace('"Error: ', '"'));
  // the service is still the other peer's
  const found = await peer.request([R.SERVICE, `caps-taken-${process.pid}`, []]);
  assert.equal(found[0], true);
  assert.notEqual(found[1].n, a[1].n);
});

