// @ts-check
/**
 * A restricted peer (`--restricted-peer ID`, docs/security.md, "Trust model by role")
 * against a real daemon, driven by hand (helpers/peer.js): it may act only on the
 * daemon's processes whose pids the daemon gave it (wrote in a frame to it) or that it
 * spawned. A SEND to a process it was not given is refused (an ERROR naming the reason,
 * a log line) and the process gets nothing; a KILL of it leaves it alive. The same peer
 * reaches a process whose pid a message brought it, and one it spawned; an unrestricted
 * peer reaches every process.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeString } from '@termite/scheme';
import { Pid } from '@termite/runtime';
import { health, waitFor } from './helpers/daemons.js';
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

// an echo server: it sends its pid to `to`, then answers each #(reply-to text) with (echo text)
const ECHO = unitOf('(lambda (to) (lambda () (! to (self)) (let loop () (let ((m (?))) (! (vector-ref m 0) (list \'echo (vector-ref m 1))) (loop)))))');
const inner = ECHO.lambdas.findIndex((l) => l.nfree === 1);
let envs = 0;

/** `who` spawns an echo server on the daemon that sends its pid to `to`; resolves with that pid. @param {typeof tab} who @param {Pid} to @param {typeof tab} told */
async function echoServer(who, to, told) {
  who.units.set(ECHO.hash, ['echo', ECHO.data, false]);
  const answer = await who.request([R.SPAWN, closureRef(ECHO.hash, `caps-env-${process.pid}-${++envs}`, inner, [to]), null, false, []]);
  assert.equal(answer[0], true, String(answer[1]));
  const server = answer[1];
  await told.frame((f) => f[0] === F.SEND && f[1] === to.node && f[2] === to.n && f[3] instanceof Pid && f[3].n === server.n, 'the server\'s pid');
  return server;
}

/** `who` sends `text` to `server` and waits for the echo at its process `n`. @param {typeof tab} who @param {Pid} server @param {string} text @param {number} n */
async function echoes(who, server, text, n) {
  who.send([F.SEND, server.node, server.n, [new Pid(who.id, n), text], []]);
  const got = await who.frame((f) => f[0] === F.SEND && f[2] === n && writeString(f[3]) === `(echo "${text}")`, `the echo of ${text}`);
  assert.ok(got);
}

test('a restricted peer cannot send to or kill a process whose pid it was not given; the process serves others', async () => {
  const hidden = await echoServer(peer, new Pid(peer.id, 1), peer);
  tab.send([F.SEND, hidden.node, hidden.n, [new Pid(tab.id, 2), 'intrusion'], []]);
  const refusal = await tab.errorFrame(/^SEND to process \d+ refused/);
  assert.equal(String(refusal[1]), `SEND to process ${hidden.n} refused: ${tab.id.slice(0, 12)} is a restricted peer and was not given that pid`);
  await waitFor(() => d.log().includes(`frame from ${tab.id.slice(0, 12)} refused: ${refusal[1]}`), 5000, 'the daemon logging the refusal');
  tab.send([F.KILL, hidden.node, hidden.n, []]);
  // held a bounded time for a vouch that does not come (a node that gave the pid), then refused
  const killRefusal = await tab.errorFrame(/^KILL to process \d+ refused/);
  assert.equal(String(killRefusal[1]), `KILL to process ${hidden.n} refused: ${tab.id.slice(0, 12)} is a restricted peer and was not given that pid`);
  await echoes(peer, hidden, 'still-alive', 3);
  assert.ok(!tab.frames.some((f) => f[0] === F.SEND && f[2] === 2), 'the intrusion got no answer');
  assert.equal((await health(d.url)).ok, true);
});

test('a restricted peer reaches a process whose pid the daemon sent it, and one it spawned', async () => {
  // spawned by the unrestricted peer, the server's first message gives its pid to the tab
  const given = await echoServer(peer, new Pid(tab.id, 4), tab);
  await echoes(tab, given, 'given', 5);
  const own = await echoServer(tab, new Pid(tab.id, 6), tab);
  await echoes(tab, own, 'own', 7);
});
