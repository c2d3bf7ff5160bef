// @ts-check
/**
 * CPU shares of owners (docs/processes.md, "Fairness"): while 20 endless loops of one
 * peer run, a counting process of another peer — or of the node itself — still gets at
 * least a third of the run time it gets alone (measured as the time it takes to count to
 * a number, against the same count alone, in the same test); side by side, the two
 * peers' processes do about equal work (the reductions the node counts, which the
 * machine's load does not skew); a node whose processes all have one owner never puts a
 * process back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createNode } from '../src/index.js';

const PEER_A = 'a'.repeat(40);
const PEER_B = 'b'.repeat(40);
const COUNT = 10_000_000;

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

test('20 endless loops of one peer leave another peer, and the node itself, at least a third of their run time alone', { timeout: 60_000 }, async (t) => {
  const node = /** @type {any} */ (await createNode({}));
  try {
    const loop = (await node.runProgram(`(lambda () (let loop ((i 0)) (loop (+ i 1))))`)).value;
    const count = (await node.runProgram(`(lambda () (let loop ((i 0)) (if (< i ${COUNT}) (loop (+ i 1)) i)))`)).value;
    const alone = await best(() => timed(node, count, PEER_B));
    assert.equal(node.stats.putBacks, 0, 'one owner: nothing put back');
    const hogs = [];
    for (let i = 0; i < 20; i++) hogs.push(node.spawn(loop, { peer: PEER_A }));
    const peer = await best(() => timed(node, count, PEER_B));
    const local = await best(() => timed(node, count, null));
    for (const h of hogs) node.terminate(h.pid);
    t.diagnostic(`counting to ${COUNT}: alone ${alone.toFixed(0)} ms; beside 20 loops of another peer: a peer's ${peer.toFixed(0)} ms (share ${(alone / peer).toFixed(2)}), the node's ${local.toFixed(0)} ms (share ${(alone / local).toFixed(2)})`);
    assert.ok(alone / peer >= 1 / 3, `a peer's process got ${(alone / peer).toFixed(2)} of its run time alone`);
    assert.ok(alone / local >= 1 / 3, `the node's process got ${(alone / local).toFixed(2)} of its run time alone`);
    assert.ok(node.stats.putBacks > 0);
  } finally {
    node.stop();
  }
});

test('side by side for a second, one peer\'s loop does about as much work as another peer\'s 20 loops together (reductions counted by the node)', { timeout: 30_000 }, async (t) => {
  const node = /** @type {any} */ (await createNode({}));
  try {
    const loop = (await node.runProgram(`(lambda () (let loop ((i 0)) (loop (+ i 1))))`)).value;
    const hogs = [];
    for (let i = 0; i < 20; i++) hogs.push(node.spawn(loop, { peer: PEER_A }));
    const b = node.spawn(loop, { peer: PEER_B });
    await new Promise((r) => setTimeout(r, 300));
    const a0 = hogs.reduce((s, h) => s + h.work, 0);
    const b0 = b.work;
    await new Promise((r) => setTimeout(r, 1000));
    const a = hogs.reduce((s, h) => s + h.work, 0) - a0;
    const bw = b.work - b0;
    for (const p of [...hogs, b]) node.terminate(p.pid);
    t.diagnostic(`in 1 s: peer B's one loop ${bw} reductions, peer A's 20 loops ${a} (B's part ${(bw / (a + bw)).toFixed(2)}; by process it would be 1/21)`);
    assert.ok(bw / (a + bw) >= 1 / 3, `B's part of the work: ${(bw / (a + bw)).toFixed(2)}`);
    assert.ok(a / (a + bw) >= 1 / 3, `A's part of the work: ${(a / (a + bw)).toFixed(2)}`);
  } finally {
    node.stop();
  }
});

test('the loops of one peer still share the node between them, and with another peer, once that peer goes', { timeout: 60_000 }, async () => {
  const node = /** @type {any} */ (await createNode({}));
  try {
    const loop = (await node.runProgram(`(lambda () (let loop ((i 0)) (loop (+ i 1))))`)).value;
    const count = (await node.runProgram(`(lambda () (let loop ((i 0)) (if (< i ${COUNT / 10}) (loop (+ i 1)) i)))`)).value;
    const hogs = [];
    for (let i = 0; i < 5; i++) hogs.push(node.spawn(loop, { peer: PEER_A }));
    // a peer's counting processes finish while the loops run; the loops all progress
    await Promise.all([timed(node, count, PEER_B), timed(node, count, PEER_A)]);
    const before = hogs.map((h) => h.work);
    await new Promise((r) => setTimeout(r, 200));
    for (const [i, h] of hogs.entries()) assert.ok(h.work > before[i], `loop ${i} ran`);
    for (const h of hogs) node.terminate(h.pid);
    assert.equal(node.peerGroups.size, 0, 'a group goes with its last process');
  } finally {
    node.stop();
  }
});
