// @ts-check
/**
 * An allocating process and a message flood together, against a real daemon: one
 * peer's process allocates (lists of 200,000 pairs, each kept until the next is built)
 * while a program sends 5,000 small messages in batches of 500, each batch followed by
 * an `on`. The daemon must answer /health within 2 s throughout and the sender keep its
 * link. Before the scheduler's fix this failed every time (/health waited 5–31 s, the
 * sender's link timed out): each message of a received chunk ran the scheduler loop on
 * arrival for up to its 8 ms, with the allocating process ready and its young-generation
 * collections inside, so a chunk of 500 messages kept the event loop for seconds. A run
 * on arrival is now skipped while a run is already due (the node is busy).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runProgram, health, newToken } from './helpers/daemons.js';
import { hostilePeer, R, F, unitOf, closureRef } from './helpers/peer.js';

const token = newToken();
/** @type {import('./helpers/daemons.js').Daemon} */
let d;

before(async () => {
  d = await startDaemon({ token, args: ['--max-mailbox', '100000'] });
});

after(async () => {
  await d?.stop('SIGKILL');
});

test('an allocating process and a flood of small messages together: /health within 2 s and the sender\'s link kept', { timeout: 120_000 }, async () => {
  const peer = await hostilePeer(d, token);
  try {
    const churn = unitOf('(lambda (n) (lambda () (let loop ((k 0) (kept \'())) (if (< k n) (loop (+ k 1) (make-list 200000 k)) (length kept)))))');
    peer.units.set(churn.hash, ['alloc-flood', churn.data, false]);
    const spawned = await peer.request([R.SPAWN, closureRef(churn.hash, 'alloc-env', churn.lambdas.findIndex((l) => l.nfree === 1), [400]), null, false, []], 20_000);
    assert.equal(spawned[0], true, String(spawned[1]));
    let polling = true;
    /** @type {number[]} */
    const waits = [];
    const poller = (async () => {
      for (let i = 0; polling && i < 10_000; i++) {
        const t0 = performance.now();
        await health(d.url).catch(() => null);
        waits.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const r = await runProgram(
      `(define a (make-node "127.0.0.1" ${d.port}))
       (define sink (remote-spawn a (lambda () (sleep 600))))
       (do ((b 0 (+ b 1))) ((= b 10))
         (do ((i 0 (+ i 1))) ((= i 500)) (! sink (+ (* b 500) i)))
         (on a (lambda () 'sync)))
       (display (on a (lambda () 'after-flood))) (newline)`,
      { token, join: [d.url], timeoutMs: 90_000 },
    );
    polling = false;
    await poller;
    try { peer.send([F.KILL, spawned[1].node, spawned[1].n, []]); } catch { /* the link is down: the daemon is stopped after */ }
    const worst = Math.max(...waits);
    console.log(`# /health worst ${worst.toFixed(0)} ms over ${waits.length} polls; the sender: status ${r.status}`);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(worst < 2000, `worst /health ${worst.toFixed(0)} ms`);
  } finally {
    await peer.stop();
  }
});
