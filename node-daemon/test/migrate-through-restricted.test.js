// @ts-check
/**
 * A restricted peer brings in a process that passed through it but never through the
 * daemon (docs/security.md, "Trust model by role"; distribution/whereabouts.js), between
 * real daemons on loopback and test peers driven by hand (helpers/peer.js). This is how
 * a messenger travels over tabs: born on the program's node B, it goes to a tab T (B
 * sends it there), then to daemon D — which restricts T and has never heard of the
 * process. D asks B, its birth node, where it is: B says T, so D takes it and it runs
 * on. A process whose birth node does not place it at T (a forged or stale claim) is
 * still refused, with the reason, and its birth node keeps it — also when T sent it
 * straight back to B before B had read T's answer (B then keeps no forwarding entry to
 * vouch with). A process that migrated to D and gave T its pid there gets T's messages.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { encodeValue, decodeValue } from '@termite/scheme/internal';
import { writeString } from '@termite/scheme';
import { NodeRef, Pid } from '@termite/runtime';
import { createIdentity } from '@termite/mesh';
import { startDaemon, newToken, waitFor } from './helpers/daemons.js';
import { hostilePeer, closureRef, unitOf, F, R } from './helpers/peer.js';

const token = newToken();
/** @type {import('./helpers/daemons.js').Daemon} the process's birth node (unrestricted peer of D) */
let b;
/** @type {import('./helpers/daemons.js').Daemon} the daemon that restricts T */
let d;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} the restricted peer (a tab's part) */
let t;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} an unrestricted peer of D: spawns the traveller, hears from it */
let m;
/** @type {Uint8Array[]} MIGRATE requests T took, as they came */
const taken = [];
/** @type {Promise<Uint8Array> | null} when set to a promise, T sends the next process it takes straight back to B before answering */
let bounced = null;
let bounceNext = false;

// the traveller: goes to T, then reports from wherever it runs next
// (one free value, a vector #(t home n): no question of the order of free values)
const TRAVELLER = unitOf(`(lambda (v) (lambda () (migrate (vector-ref v 0))
  (! (vector-ref v 1) (list (vector-ref v 2) (current-node)))))`);
const inner = TRAVELLER.lambdas.findIndex((l) => l.nfree === 1);

before(async () => {
  const identity = await createIdentity();
  b = await startDaemon({ token });
  d = await startDaemon({ token, join: [b.url], args: ['--restricted-peer', identity.id] });
  t = await hostilePeer(d, token, { identity });
  await t.mesh.connect(b.url);
  m = await hostilePeer(d, token);
  await m.mesh.connect(b.url);
  for (const p of [t, m]) p.units.set(TRAVELLER.hash, ['traveller', TRAVELLER.data, false]);
  // T takes every process offered to it (it runs none) and serves the code it carries
  t.mesh.onRequest((_from, bytes) => {
    // a MIGRATE (type 21, the array's first item) is kept as it came, never decoded here
    if (bytes[1] === R.MIGRATE) {
      taken.push(bytes);
      if (bounceNext) {
        bounceNext = false;
        bounced = t.mesh.request(b.id, bytes, { timeoutMs: 10_000 });
      }
      return encodeValue([true, true, []]);
    }
    const req = decodeValue(bytes);
    if (req[0] === R.CODE) return encodeValue([true, ['traveller', TRAVELLER.data, false], []]);
    if (req[0] === R.ENV) return encodeValue([true, [0, []], []]);
    return encodeValue([false, 'not served here', []]);
  });
});

after(async () => {
  await Promise.all([t?.stop(), m?.stop()]);
  await d?.stop('SIGKILL');
  await b?.stop('SIGKILL');
});

/** M spawns a traveller on B that goes to T; resolves with the MIGRATE T took. @param {number} n */
async function travellerAtT(n) {
  const home = new Pid(m.id, n);
  const env = `through-${process.pid}-${n}`;
  const before = taken.length;
  const req = [R.SPAWN, closureRef(TRAVELLER.hash, env, inner, [[new NodeRef(t.id, null, null), home, n]]), null, false, []];
  const answer = decodeValue(await m.mesh.request(b.id, encodeValue(req), { timeoutMs: 10_000 }), { resolveCode: () => ({ lams: [], lamsByName: new Map() }) });
  assert.equal(answer[0], true, String(answer[1]));
  await waitFor(() => taken.length > before, 10_000, 'the traveller reaching T');
  return { pid: /** @type {Pid} */ (answer[1]), bytes: taken[taken.length - 1] };
}

/** T sends a MIGRATE to D. @param {Uint8Array} bytes */
async function migrateToD(bytes) {
  return decodeValue(await t.mesh.request(d.id, bytes, { timeoutMs: 15_000 }), { resolveCode: () => ({ lams: [], lamsByName: new Map() }) });
}

test('a process born on B that went to the restricted peer T moves on to D, which never saw it: B vouches and it runs there', async () => {
  const { pid, bytes } = await travellerAtT(1);
  assert.equal(pid.node, b.id);
  const a = await migrateToD(bytes);
  assert.equal(a[0], true, String(a[1]));
  // it runs on D: its report comes from D (D → M). D vouched for it by custody, but the
  // restricted peer T brought it in, so D sends what it does as T's: wrapped in an AS
  // frame naming T, for M to check as if T sent it (capabilities.js)
  const wrapped = await m.frame((f) => f[0] === F.AS && f[1] === t.id && f[3]?.[0] === F.SEND && f[3][1] === m.id && f[3][2] === 1, 'the traveller\'s report from D');
  assert.match(writeString(wrapped[3][3]), /^\(1 #<node /);
});

test('a process whose birth node does not place it at the restricted peer is refused, with the reason, and stays put', async () => {
  const { bytes } = await travellerAtT(2);
  // the same process comes back to B from T: B takes it (T is where B sent it) ...
  const home = decodeValue(await t.mesh.request(b.id, bytes, { timeoutMs: 10_000 }), { resolveCode: () => ({ lams: [], lamsByName: new Map() }) });
  assert.equal(home[0], true, String(home[1]));
  // ... so a second copy of it offered to D is a stale claim: B does not place it at T
  const started = Date.now();
  const a = await migrateToD(bytes);
  assert.equal(a[0], false);
  assert.match(String(a[1]), /MIGRATE of process \d+ of \w+ refused: \w+ is a restricted peer, the process was not born there, and this node did not send it there nor hear that it went there$/);
  assert.ok(Date.now() - started < 10_000, 'the refusal within the vouching wait');
  assert.equal(m.frames.filter((f) => f[0] === F.SEND && f[2] === 2).length, 0, 'no copy ran on D');
});

// a process that goes to D, hands its pid to T (D writes it to T) and passes on what it gets
const HANDER = unitOf(`(lambda (v) (lambda () (migrate (vector-ref v 0))
  (! (vector-ref v 1) (self)) (! (vector-ref v 2) (list 'got (?)))))`);

test('a process that migrated to D and gave its pid to the restricted peer T there gets T\'s messages', async () => {
  for (const p of [m, t]) p.units.set(HANDER.hash, ['hander', HANDER.data, false]);
  const toT = new Pid(t.id, 3), home = new Pid(m.id, 3);
  const f = HANDER.lambdas.findIndex((l) => l.nfree === 1);
  const req = [R.SPAWN, closureRef(HANDER.hash, `hander-${process.pid}`, f, [[new NodeRef(d.id, null, null), toT, home]]), null, false, []];
  const answer = decodeValue(await m.mesh.request(b.id, encodeValue(req), { timeoutMs: 10_000 }), { resolveCode: () => ({ lams: [], lamsByName: new Map() }) });
  assert.equal(answer[0], true, String(answer[1]));
  // born on B, it lives on D now and never was on T: D gave T its pid, which is all T has
  const given = await t.frame((x) => x[0] === F.SEND && x[2] === 3 && x[3] instanceof Pid, 'the pid D gave T');
  assert.equal(given[3].node, b.id);
  t.send([F.SEND, given[3].node, given[3].n, 'hello', []]);
  const got = await m.frame((x) => x[0] === F.SEND && x[2] === 3, 'what it got from T');
  assert.equal(writeString(got[3]), '(got "hello")');
  assert.equal(t.frames.filter((x) => x[0] === F.ERROR).length, 0, 'nothing refused');
});

test('a process sent straight back before its old node read the answer leaves no forwarding entry there to vouch with', async () => {
  bounceNext = true;
  const { bytes } = await travellerAtT(4);
  // B took it back (T sent it before answering B) and it ran there ...
  const home = decodeValue(await /** @type {Promise<Uint8Array>} */ (bounced), { resolveCode: () => ({ lams: [], lamsByName: new Map() }) });
  assert.equal(home[0], true, String(home[1]));
  // ... so B does not say it sent it to T: D refuses the copy T still has
  const a = await migrateToD(bytes);
  assert.equal(a[0], false);
  assert.match(String(a[1]), /is a restricted peer, the process was not born there, and this node did not send it there nor hear that it went there$/);
  assert.equal(m.frames.filter((f) => f[0] === F.SEND && f[2] === 4).length, 0, 'no copy ran on D');
});
