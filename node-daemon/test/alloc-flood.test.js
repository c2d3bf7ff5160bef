// @ts-check
/**
 * An open failure, kept as a test to run (`todo`: it does not fail a run): a daemon on
 * which one peer's process allocates (lists of 200,000 pairs, each kept until the next
 * is built) while another peer sends it 5,000 small messages in batches. Each batch is
 * followed by an `on`. Measured at load average 20–35 on 2 CPUs, 4 runs of 4: the
 * daemon's young-generation collections took 21–28 s of a 25–38 s run, one of them
 * 418 ms; /health waited 13–31 s, and the sending peer's link timed out (no heartbeat
 * for 4.3–4.4 s). Either half alone is fine: without the messages (the `on` calls
 * only), 5.6 s and /health within 0.9 s; without the allocating process, 5.4 s and
 * 0.7 s. A mailbox limit high enough that nothing is refused changes nothing. The
 * cause is not found. Run with TERMITE_ATTACK=full (it is not in `npm run attack`'s
 * list: a `todo` counts neither way); the assertion is
 * the one every attack test makes: the daemon answers /health within its bound and
 * the sender keeps its link.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runProgram, health, newToken } from './helpers/daemons.js';
import { hostilePeer, R, F, unitOf, closureRef } from './helpers/peer.js';

const RUN = process.env.TERMITE_ATTACK === 'full';
const token = newToken();
/** @type {import('./helpers/daemons.js').Daemon} */
let d;

before(async () => {
  if (RUN) d = await startDaemon({ token, args: ['--max-mailbox', '100000'] });
});

after(async () => {
  await d?.stop('SIGKILL');
});

test('an allocating process and a flood of small messages together: /health within 2 s and the sender\'s link kept', { todo: 'the daemon spends most of the time in young-generation collections; cause not found', skip: !RUN && 'run with TERMITE_ATTACK=full', timeout: 120_000 }, async () => {
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
