// @ts-check
/**
 * GONE believed only from the node that can know (docs/security.md, "Trust model by
 * role"), between real daemons on loopback and test peers driven by hand
 * (helpers/peer.js). A process spawned on daemon D1 moves to daemon D2, then to the
 * peer W (which takes it: it answers MIGRATE). D1 forwards it to D2, D2 to W. Another
 * peer, M, says it ended (GONE): D1 refuses (an ERROR naming where it sends the
 * process's messages, a log line) and still forwards its messages. When W says it
 * ended, GONE goes back along the path: D2 believes W (it forwards there) and tells D1,
 * which believes D2 — after which D1 keeps nothing for it (a GONE from M is ignored).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { encodeValue } from '@termite/scheme/internal';
import { writeString } from '@termite/scheme';
import { NodeRef } from '@termite/runtime';
import { startDaemon, health, newToken, waitFor } from './helpers/daemons.js';
import { hostilePeer, closureRef, unitOf, F, R } from './helpers/peer.js';

/** @type {Array<{stop: (s?: any) => Promise<void>}>} */
const started = [];
after(async () => {
  for (const s of started.reverse()) await s.stop('SIGKILL');
});

/** @param {string} s */
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('a GONE from a peer that is not where the daemon sends the process\'s messages is refused; the real one goes back along the path', async () => {
  const token = newToken();
  const d1 = await startDaemon({ token });
  started.push(d1);
  const d2 = await startDaemon({ token, join: [d1.url] });
  started.push(d2);
  const m = await hostilePeer(d1, token);
  started.push({ stop: () => m.stop() });
  const w = await hostilePeer(d2, token);
  started.push({ stop: () => w.stop() });
  await w.mesh.connect(d1.url);
  // W takes every process offered to it (MIGRATE, type 21: [#t #t []]); it runs none
  /** @type {number} */
  let taken = 0;
  w.mesh.onRequest((_from, bytes) => {
    if (bytes[1] !== R.MIGRATE) return encodeValue([false, 'not served here', []]);
    taken++;
    return encodeValue([true, true, []]);
  });

  const u = unitOf('(lambda (d2 w) (lambda () (migrate d2) (migrate w)))');
  m.units.set(u.hash, ['traveller', u.data, false]);
  const inner = u.lambdas.findIndex((l) => l.nfree === 2);
  const spawned = await m.request([R.SPAWN, closureRef(u.hash, 'gone-env', inner, [new NodeRef(d2.id, null, null), new NodeRef(w.id, null, null)]), null, false, []]);
  assert.equal(spawned[0], true, String(spawned[1]));
  const pid = spawned[1];
  await waitFor(() => taken === 1, 10_000, 'the process reaching W through D2');

  // M says it ended: refused, logged, the ERROR naming D2 (where D1 forwards it)
  m.send([F.GONE, pid.node, pid.n, []]);
  const refusal = await m.errorFrame(/^GONE for process /);
  assert.equal(String(refusal[1]), `GONE for process ${pid.n} of ${d1.id.slice(0, 12)} from ${m.id.slice(0, 12)}, which is not where this node sends its messages (${d2.id.slice(0, 12)})`);
  await waitFor(() => d1.log().includes(`frame from ${m.id.slice(0, 12)} refused: ${refusal[1]}`), 5000, 'D1 logging the refusal');

  // its messages still go D1 → D2 → W
  m.send([F.SEND, pid.node, pid.n, 'still-here', []]);
  const sent = await w.frame((f) => f[0] === F.SEND && f[1] === pid.node && f[2] === pid.n, 'the message forwarded to W');
  assert.equal(writeString(sent[3]), '"still-here"');

  // W says it ended (to D2, the node it came from): D2 tells D1; then D1 keeps nothing for it,
  // so a GONE from M is ignored rather than refused (tried until then, each try closed by a
  // frame of unknown type whose ERROR says the GONE before it was handled)
  w.mesh.send(d2.id, encodeValue([F.GONE, pid.node, pid.n, []]));
  let tries = 0;
  for (let cleared = false; !cleared; tries++) {
    assert.ok(tries < 100, 'D1 dropping its entries within 100 tries');
    const before = m.frames.length;
    m.send([F.GONE, pid.node, pid.n, []]);
    m.send([99, tries, []]);
    await m.frame((f) => m.frames.indexOf(f) >= before && f[0] === F.ERROR && String(f[1]) === 'unknown frame type 99', 'the probe\'s ERROR');
    cleared = !m.frames.slice(before).some((f) => f[0] === F.ERROR && /^GONE for process /.test(String(f[1])));
  }
  assert.doesNotMatch(d2.log(), new RegExp(`refused: GONE for process ${pid.n}`), 'D2 believed W');
  assert.doesNotMatch(d1.log(), new RegExp(escape(`from ${d2.id.slice(0, 12)} refused`)), 'D1 believed D2');
  assert.equal((await health(d1.url)).ok, true);
  assert.equal((await health(d2.url)).ok, true);
});
