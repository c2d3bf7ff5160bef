// @ts-check
/**
 * Migration at its edges, between a real daemon and peers driven by hand
 * (helpers/peer.js) or a program run with `termite-node run --join`:
 *  - a process that comes back to the daemon before the daemon has finished sending it
 *    away (the node it went to sends it straight back) leaves no forwarding entry
 *    behind: once it has ended, a message to it is not forwarded to where it once went,
 *    and its sender is not told it moved there;
 *  - a process whose mailbox holds more messages than the daemon's mailbox limit is
 *    refused whole with the reason (`cannot migrate: …` raised in it, where it stays),
 *    and the daemon keeps no copy of it.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeString } from '@termite/scheme';
import { NodeRef, Pid } from '@termite/runtime';
import { startDaemon, runProgram, health, newToken, waitFor } from './helpers/daemons.js';
import { hostilePeer, closureRef, unitOf, F, R } from './helpers/peer.js';

/** @type {Array<{stop: (s?: any) => Promise<void>}>} */
const started = [];
after(async () => {
  for (const s of started.reverse()) await s.stop('SIGKILL');
});

test('a process sent straight back leaves no forwarding entry: once it ended, its messages are not forwarded nor its sender told it moved', async () => {
  const token = newToken();
  const d = await startDaemon({ token });
  started.push(d);
  const m = await hostilePeer(d, token);
  started.push({ stop: () => m.stop() });
  const w = await hostilePeer(d, token);
  started.push({ stop: () => w.stop() });
  // W sends every process offered to it straight back (the same state, as a MIGRATE of
  // its own, sent before it answers), then accepts it
  let bounced = 0;
  w.mesh.onRequest((from, bytes) => {
    if (bytes[1] !== R.MIGRATE) return new Uint8Array([0x83, 0xf4, 0x60, 0x80]); // [#f "" []]
    bounced++;
    w.mesh.request(from, bytes, { timeoutMs: 10_000 }).catch(() => {});
    return new Uint8Array([0x83, 0xf5, 0xf5, 0x80]); // [#t #t []]
  });
  const before = (await health(d.url)).processes;
  const u = unitOf("(lambda (w to) (lambda () (migrate w) (! to 'home) (recv (x (! to (list 'got x))))))");
  m.units.set(u.hash, ['boomerang', u.data, false]);
  const inner = u.lambdas.findIndex((l) => l.nfree === 2);
  const to = new Pid(m.id, 1);
  const spawned = await m.request([R.SPAWN, closureRef(u.hash, 'boomerang-env', inner, [new NodeRef(w.id, null, null), to]), null, false, []]);
  assert.equal(spawned[0], true, String(spawned[1]));
  const pid = spawned[1];
  await m.frame((f) => f[0] === F.SEND && f[2] === 1 && writeString(f[3]) === 'home', 'the process back home');
  assert.equal(bounced, 1);
  // it runs at home: it answers, then ends
  m.send([F.SEND, pid.node, pid.n, 'hello', []]);
  await m.frame((f) => f[0] === F.SEND && f[2] === 1 && writeString(f[3]) === '(got "hello")', 'its answer');
  await waitFor(async () => (await health(d.url)).processes === before, 5000, 'the process ended');
  // a message to it now: dropped (send and pray), not forwarded to W, no MOVED to M;
  // frames from M are handled in order, so once the probe after it is refused, it was handled
  m.send([F.SEND, pid.node, pid.n, 'late', []]);
  m.send([99, []]);
  await m.errorFrame(/^unknown frame type 99$/);
  assert.deepEqual(m.frames.filter((f) => f[0] === F.MOVED), [], 'no MOVED: the process lives nowhere else');
  assert.deepEqual(w.frames.filter((f) => f[0] === F.SEND && f[2] === pid.n), [], 'nothing forwarded to W');
});

test('a process whose mailbox is over the daemon\'s limit is refused whole, with the reason, and runs on where it was', async () => {
  const token = newToken();
  const d = await startDaemon({ token, args: ['--max-mailbox', '10'] });
  started.push(d);
  const before = (await health(d.url)).processes;
  const r = await runProgram(
    `
(define target (make-node "127.0.0.1" ${d.port}))
(define me (self))
(define mover
  (spawn (lambda ()
    (recv ('go #t))
    (! me (list 'outcome (guard (e (#t (error-object-message e))) (migrate target) 'moved)
                         (equal? (current-node) target)))
    (recv (x x) (after 20 'done)))))
(let fill ((i 0)) (if (< i 200) (begin (! mover i) (fill (+ i 1)))))
(! mover 'go)
(recv (('outcome what where) (write (list what where)) (newline)))
`,
    { token, join: [d.url], timeoutMs: 30_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^\("cannot migrate: .*its mailbox holds 200 messages, over the limit of 10 messages a mailbox may hold on node .*" #f\)\n$/);
  assert.equal((await health(d.url)).processes, before, 'the daemon kept no copy of it');
});
