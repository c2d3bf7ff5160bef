// @ts-check
/**
 * Linda confined for restricted peers (docs/security.md, "Trust model by role"), against
 * a real daemon driven by hand (helpers/peer.js sends raw frames and requests):
 *  - a restricted peer's SPACE_OP on a space of the daemon it was not given (the default
 *    space, one another peer made) is answered with an error naming the reason and
 *    changes nothing; making a new space makes it its own, usable from then on; naming
 *    an existing space in a make is no way in;
 *  - a process the restricted peer spawned on the daemon gets a `capability` error from
 *    out/rdp/make-space on a space not given, and may use one it made;
 *  - an unrestricted peer does all of it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeString, encodeValue, decodeValue, Sym } from '@termite/scheme';
import { Pid } from '@termite/runtime';
import { health } from './helpers/daemons.js';
import { daemonWithRestrictedPeer } from './helpers/restricted-daemon.js';
import { hostilePeer, closureRef, unitOf, F, R } from './helpers/peer.js';

const SPACE_OP = 30, SPACE_REPLY = 31;
const OP = { out: 1, inp: 2, rdp: 3, count: 6, make: 7 };
const S_VALUE = 0, S_TAKEN = 1, S_READ = 2, S_ERROR = 4;

/** @type {import('./helpers/daemons.js').Daemon} */
let d;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} the restricted peer */
let tab;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} an unrestricted peer */
let peer;
let requests = 0;
const tag = `sp${process.pid}`;

/** @type {(() => Promise<void>) | undefined} */
let stop;

before(async () => {
  ({ d, tab, peer, stop } = await daemonWithRestrictedPeer());
});

after(() => stop?.());

/**
 * `who` asks the daemon for a space operation; resolves with the reply [status, value].
 * @param {typeof tab} who @param {number} op @param {string} name @param {any[] | null} fields @param {string} [kind]
 */
async function spaceOp(who, op, name, fields, kind = 'local') {
  const n = ++requests;
  who.send([SPACE_OP, n, op, name, kind, fields === null ? false : encodeValue(fields, { stringsAsText: true }), false, []]);
  const f = await who.frame((x) => x[0] === SPACE_REPLY && x[1] === n, `the reply to space request ${n}`);
  return [f[2], f[2] === S_READ ? writeString(decodeValue(f[3])) : f[3]];
}

const refused = (/** @type {typeof tab} */ who, /** @type {string} */ name) => [S_ERROR, new RegExp(`${who.id.slice(0, 12)} is a restricted peer and the space ${name} was not given to it`)];

/** @param {any[]} got @param {any[]} want */
function assertRefused(got, [status, re]) {
  assert.equal(got[0], status, String(got[1]));
  assert.match(String(got[1]), re);
}

test('a restricted peer cannot read, take, count or write a space of the daemon it was not given', async () => {
  const secret = `${tag}-secret`;
  assert.deepEqual(await spaceOp(peer, OP.make, secret, null), [S_VALUE, 'local']);
  assert.deepEqual(await spaceOp(peer, OP.out, secret, ['key', 42]), [S_VALUE, true]);
  for (const [op, fields] of /** @type {[number, any[]][]} */ ([[OP.rdp, ['key', 42]], [OP.inp, ['key', 42]], [OP.count, ['key', 42]], [OP.out, ['planted', 1]]])) {
    assertRefused(await spaceOp(tab, op, secret, fields), refused(tab, secret));
    assertRefused(await spaceOp(tab, op, 'default', fields), refused(tab, 'default'));
  }
  // naming it in a make is no way in
  assertRefused(await spaceOp(tab, OP.make, secret, null), refused(tab, secret));
  // nothing changed: the tuple is still there, nothing was planted
  assert.deepEqual(await spaceOp(peer, OP.rdp, secret, ['key', 42]), [S_READ, '#("key" 42)']);
  assert.deepEqual(await spaceOp(peer, OP.count, secret, ['planted', 1]), [S_VALUE, 0]);
  assert.ok(await health(d.url), 'the daemon still answers /health');
});

test('a central space is shared with the whole mesh by its maker: a restricted peer may use it without being given it', async () => {
  const shared = `${tag}-shared`;
  assert.deepEqual(await spaceOp(peer, OP.make, shared, null, 'central'), [S_VALUE, 'central']);
  assert.deepEqual(await spaceOp(peer, OP.out, shared, ['task', 1], 'central'), [S_VALUE, true]);
  assert.deepEqual(await spaceOp(tab, OP.rdp, shared, ['task', 1], 'central'), [S_READ, '#("task" 1)']);
  assert.equal((await spaceOp(tab, OP.inp, shared, ['task', 1], 'central'))[0], S_TAKEN);
  assert.deepEqual(await spaceOp(tab, OP.out, shared, ['result', 1], 'central'), [S_VALUE, true]);
  assert.deepEqual(await spaceOp(peer, OP.count, shared, ['task', 1], 'central'), [S_VALUE, 0]);
  assert.deepEqual(await spaceOp(peer, OP.count, shared, ['result', 1], 'central'), [S_VALUE, 1]);
});

test('a space a restricted peer makes is its own: it may use it, and the owner of the daemon too', async () => {
  const mine = `${tag}-mine`;
  assert.deepEqual(await spaceOp(tab, OP.make, mine, null), [S_VALUE, 'local']);
  assert.deepEqual(await spaceOp(tab, OP.out, mine, ['a', 1]), [S_VALUE, true]);
  assert.deepEqual(await spaceOp(tab, OP.rdp, mine, ['a', 1]), [S_READ, '#("a" 1)']);
  assert.deepEqual(await spaceOp(peer, OP.count, mine, ['a', 1]), [S_VALUE, 1]);
});

// a process that reports what each Linda operation did, to `to`
const PROBE = unitOf(`(lambda (secret to) (lambda ()
  (define (try thunk) (guard (e (#t (list 'refused (error-object-message e)))) (thunk)))
  (! to (list (try (lambda () (out 'planted 1)))
              (try (lambda () (rdp (make-space secret) "key" ?any)))
              (try (lambda () (tuple-count (remote-space secret (current-node)) "key" ?any)))
              (try (lambda () (let ((s (make-space (string-append secret "-spawned")))) (out s 'x 7) (rdp s 'x ?integer))))))))`);
const probe = PROBE.lambdas.findIndex((l) => l.nfree === 2);
let envs = 0;

/** `who` spawns the probe on the daemon; resolves with what it reported. @param {typeof tab} who @param {string} secret */
async function runProbe(who, secret) {
  const to = new Pid(who.id, 1000 + ++envs);
  who.units.set(PROBE.hash, ['probe', PROBE.data, false]);
  const a = await who.request([R.SPAWN, closureRef(PROBE.hash, `${tag}-env-${envs}`, probe, [secret, to]), null, false, []]);
  assert.equal(a[0], true, String(a[1]));
  const f = await who.frame((x) => x[0] === F.SEND && x[2] === to.n, 'what the probe did');
  return writeString(f[3]);
}

test('a process a restricted peer spawned gets a capability error from spaces not given, and uses one it made', async () => {
  const secret = `${tag}-secret2`;
  assert.deepEqual(await spaceOp(peer, OP.make, secret, null), [S_VALUE, 'local']);
  assert.deepEqual(await spaceOp(peer, OP.out, secret, ['key', 1]), [S_VALUE, true]);
  const not = (/** @type {string} */ name) => `(refused "a restricted peer's process may not use the space ${name}, which was not given to it")`;
  assert.equal(await runProbe(tab, secret), `(${not('default')} ${not(secret)} ${not(secret)} ("x" 7))`.replace(/\("x" 7\)/, '(x 7)'));
  // the same program from an unrestricted peer reaches everything
  assert.equal(await runProbe(peer, secret), '(#!void ("key" 1) 1 (x 7))');
  assert.deepEqual(await spaceOp(peer, OP.count, 'default', [Sym.intern('planted'), 1]), [S_VALUE, 1]);
});
