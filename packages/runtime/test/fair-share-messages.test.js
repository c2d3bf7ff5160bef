// @ts-check
/**
 * CPU shares of owners hold for processes woken by messages too (docs/processes.md,
 * "Fairness"): a peer whose processes pass messages around in a ring — each woken by a
 * message, doing nearly a slice of work, then sending on and waiting — cannot take more
 * than its share, because a woken process of a group over its quota is put back like a
 * yielded one (its wake-up taken first, so no message is lost). Measured as in
 * fair-share.test.js: the time a counting process of another peer, or of the node
 * itself, takes beside the ring against the same count alone, in the same test; and the
 * ring still passes every message, in order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createNode } from '../src/index.js';

const PEER_A = 'a'.repeat(40);
const PEER_B = 'b'.repeat(40);
const COUNT = 10_000_000;
const RING = 20;

/** @param {any} node @param {any} thunk @param {string|null} peer @returns {Promise<number>} ms to finish */
function timed(node, thunk, peer) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = node.spawn(thunk, { peer });
    p.onExit = (/** @type {{ok: boolean, value: any}} */ o) => (o.ok ? resolve(performance.now() - t0) : reject(new Error(String(o.value?.message ?? o.value))));
  });
}

/** The best of three runs (the machine is shared: the least disturbed run). @param {() => Promise<number>} f */
async function best(f) {
  let m = Infinity;
  for (let i = 0; i < 3; i++) m = Math.min(m, await f());
  return m;
}

// A ring member takes a number, works ~2,000 reductions (under one slice), and passes
// the number on plus one; the process that started the ring checks that each number
// it gets back went through every member (it is the ring's size less one).
const RING_SOURCE = `
(define (busy n) (let loop ((i 0)) (if (< i n) (loop (+ i 1)) i)))
(define (member next) (let loop () (let ((m (?))) (busy 1000) (! next (+ m 1)) (loop))))
(define (ring-main size tokens)
  (let* ((first (self))
         (ring (let build ((k 1) (next first)) (if (= k size) next (build (+ k 1) (spawn (lambda () (member next))))))))
    (let start ((t 0)) (if (< t tokens) (begin (! ring 0) (start (+ t 1)))))
    (let loop ()
      (let ((m (?)))
        (if (not (= m (- size 1))) (error "a message skipped a ring member" m))
        (busy 1000)
        (! ring 0)
        (loop)))))
(lambda () (ring-main ${RING} ${RING}))`;

test(`a ring of ${RING} processes of one peer, woken by messages, leaves another peer and the node at least a third of their run time alone`, { timeout: 90_000 }, async (t) => {
  const node = /** @type {any} */ (await createNode({}));
  try {
    const ringMain = (await node.runProgram(RING_SOURCE)).value;
    const count = (await node.runProgram(`(lambda () (let loop ((i 0)) (if (< i ${COUNT}) (loop (+ i 1)) i)))`)).value;
    const alone = await best(() => timed(node, count, PEER_B));
    const ring = node.spawn(ringMain, { peer: PEER_A });
    /** @type {any} */
    let ended = null;
    ring.onExit = (/** @type {any} */ o) => { ended = o; };
    const ringWork = () => node.byCore.filter((/** @type {any} */ p) => p?.group?.peer === PEER_A).reduce((n, /** @type {any} */ p) => n + p.work, 0);
    const w0 = ringWork();
    const peer = await best(() => timed(node, count, PEER_B));
    assert.ok(ringWork() > w0, 'the ring ran meanwhile');
    const local = await best(() => timed(node, count, null));
    const groupA = node.peerGroups.get(PEER_A);
    assert.ok(groupA && groupA.live === RING, `the ring's ${RING} processes are alive (${groupA?.live})`);
    assert.equal(ended, null, `the ring runs on: ${ended?.value?.message ?? ''}`);
    node.terminate(ring.pid);
    t.diagnostic(`counting to ${COUNT}: alone ${alone.toFixed(0)} ms; beside the ring: a peer's ${peer.toFixed(0)} ms (share ${(alone / peer).toFixed(2)}), the node's ${local.toFixed(0)} ms (share ${(alone / local).toFixed(2)}); ${node.stats.putBacks} put back`);
    assert.ok(alone / peer >= 1 / 3, `a peer's process got ${(alone / peer).toFixed(2)} of its run time alone`);
    assert.ok(alone / local >= 1 / 3, `the node's process got ${(alone / local).toFixed(2)} of its run time alone`);
  } finally {
    node.stop();
  }
});
