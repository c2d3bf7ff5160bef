// @ts-check
/**
 * Multi-hop routing (router.js, a path vector over gossip): nodes in a line of five reach
 * the far end through three relays, in order; in a ring routes go the shorter way round; the hop limit bounds what a node learns; a line cut in the
 * middle heals when the middle node comes back (it rejoins, and so does its neighbour);
 * the next hop is chosen by measured cost and kept against noise.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createIdentity, createMeshNode, createMemoryLogger } from '../src/index.js';
import { Router } from '../src/router.js';
import { TOKEN, nextEvent, nodeFactory, within, until } from './helpers.js';

const nodes = nodeFactory();
after(() => nodes.stopAll());

/**
 * `n` listening nodes, each joined to the one before it.
 * @param {number} n @param {object} [extra]
 */
async function line(n, extra = {}) {
  const out = [];
  for (let i = 0; i < n; i++) {
    out.push(await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, join: i === 0 ? [] : [out[i - 1].addresses()[0]], ...extra }));
  }
  return out;
}

/** @param {number} i */
function seq(i) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, i);
  return b;
}

test('in a line of five, each end reaches the other through three relays: requests answer, 500 messages arrive in order, routes() says 4 hops', async () => {
  const l = await line(5);
  const [first, , , , last] = l;
  await until(() => first.isReachable(last.id) && last.isReachable(first.id), 5000, 'both ends routable');
  const r = first.routes().find((x) => x.id === last.id);
  assert.equal(r?.hops, 4);
  assert.deepEqual(r?.via, [l[1].id]);
  assert.equal(r?.url, last.addresses()[0], 'the far node\'s listen URL travels with its route');
  last.onRequest((from, p) => {
    assert.equal(from, first.id);
    return p.slice().reverse();
  });
  assert.deepEqual([...await first.request(last.id, new Uint8Array([1, 2, 3]), { timeoutMs: 5000 })], [3, 2, 1]);
  /** @type {number[]} */
  const got = [];
  last.onMessage((f, p) => { if (f === first.id && p.length === 4) got.push(new DataView(p.buffer, p.byteOffset).getUint32(0)); });
  for (let i = 0; i < 500; i++) assert.equal(first.send(last.id, seq(i)), true);
  await until(() => got.length === 500, 10_000, '500 routed messages');
  assert.deepEqual(got, Array.from({ length: 500 }, (_, i) => i));
});

test('a node learns no route longer than its hop limit, and a send beyond it fails with UnreachableError', async () => {
  const l = await line(5, { hopLimit: 3 });
  await until(() => l[0].isReachable(l[3].id), 5000, 'three hops away routable');
  assert.equal(l[0].isReachable(l[4].id), false, 'four hops is beyond the limit of 3');
  const err = nextEvent(l[0], 'send:error');
  assert.equal(l[0].send(l[4].id, new Uint8Array([1])), false);
  assert.equal((await err).error.name, 'UnreachableError');
});

test('in a ring of six, every node knows every other the shorter way round (at most 3 hops) and a message goes round', async () => {
  const l = await line(6);
  await l[5].connect(l[0].addresses()[0]); // close the ring
  await until(() => l[0].routes().find((r) => r.id === l[2].id)?.hops === 2 && l[0].routes().find((r) => r.id === l[4].id)?.hops === 2, 5000, 'both ways known');
  // node 0 reaches node 2 via 1 and node 4 via 5: the shorter way round (links unmeasured cost the same)
  const via = (/** @type {string} */ id) => l[0].routes().find((r) => r.id === id);
  assert.ok(via(l[2].id)?.via.includes(l[1].id));
  const msg = new Promise((resolve) => l[4].onMessage((f, p) => { if (f === l[0].id) resolve(p[0]); }));
  assert.equal(l[0].send(l[4].id, new Uint8Array([42])), true);
  assert.equal(await within(msg, 5000, 'message round the ring'), 42);
  for (const n of l) for (const r of n.routes()) assert.ok(r.hops !== undefined && r.hops <= 3, `no route longer than half the ring (${r.hops})`);
});

test('a line cut in the middle heals: the middle node restarts on its port, both sides rejoin it, the ends reach each other again', async () => {
  const idMid = await createIdentity();
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const mk = (/** @type {number} */ port) => createMeshNode({ identity: idMid, token: TOKEN, logger: createMemoryLogger(), listen: { host: '127.0.0.1', port }, join: [a.addresses()[0]], rejoinBaseMs: 100, rejoinMaxMs: 400 });
  let mid = mk(0);
  await mid.start();
  const port = Number(new URL(mid.addresses()[0]).port);
  const c = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, join: [mid.addresses()[0]], rejoinBaseMs: 100, rejoinMaxMs: 400 });
  await until(() => a.isReachable(c.id), 5000, 'ends routable');
  const cut = nextEvent(a, 'routes', () => !a.isReachable(c.id));
  await mid.stop();
  await cut;
  const err = nextEvent(a, 'send:error');
  assert.equal(a.send(c.id, new Uint8Array([1])), false);
  assert.equal((await err).error.name, 'UnreachableError');
  mid = mk(port);
  try {
    await mid.start();
    await until(() => a.isReachable(c.id) && c.isReachable(a.id), 5000, 'healed');
    const msg = new Promise((resolve) => c.onMessage((f, p) => { if (f === a.id) resolve(p[0]); }));
    assert.equal(a.send(c.id, new Uint8Array([7])), true);
    assert.equal(await within(msg, 5000, 'message across the healed line'), 7);
  } finally {
    await mid.stop();
  }
});

test('the next hop is the neighbour with the cheapest measured route, and the hop in use is kept against small differences', async () => {
  const [me, b, c, d] = await Promise.all([0, 1, 2, 3].map(async () => (await createIdentity()).id));
  const router = new Router(me, 8);
  // B and C both reach D directly; B announces 30 ms, C 10 ms
  router.update(b, 1, [[d, null, 30, []]]);
  router.update(c, 1, [[d, null, 10, []]]);
  /** @type {Record<string, number>} */
  let rtt = { [b]: 5, [c]: 5 };
  assert.equal(router.nextHop(d, (p) => rtt[p] ?? null), c);
  rtt = { [b]: 5, [c]: 30 }; // through B: 35 ms, through C: 40 ms
  assert.equal(router.nextHop(d, (p) => rtt[p] ?? null), b);
  assert.equal(router.nextHop(d, (p) => rtt[p] ?? null, undefined, c), c, 'C is in use and within a quarter of the best: kept');
  rtt = { [b]: 5, [c]: 80 };
  assert.equal(router.nextHop(d, (p) => rtt[p] ?? null, undefined, c), b, 'C is clearly worse now: moved');
  assert.equal(router.nextHop(d, (p) => rtt[p] ?? null, b), c, 'never back where the frame came from');
  // a route through this node, or longer than the hop limit, is not taken
  router.update(b, 2, [[d, null, 1, [me]]]);
  assert.equal(router.nextHop(d, (p) => rtt[p] ?? null), c);
  const long = await Promise.all([0, 1, 2, 3, 4, 5, 6].map(async () => (await createIdentity()).id));
  router.update(b, 3, [[d, null, 1, long]]);
  assert.equal(router.nextHop(d, (p) => rtt[p] ?? null), c, '9 hops is beyond the limit of 8');
  // split horizon: what we reach through C is not announced back to C
  assert.deepEqual(router.announce(c, [], (p) => rtt[p] ?? null), []);
  assert.deepEqual(router.announce(b, [], (p) => rtt[p] ?? null).map((e) => [e[0], e[3]]), [[d, [c]]]);
});
