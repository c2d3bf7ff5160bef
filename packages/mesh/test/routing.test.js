// @ts-check
/**
 * Routing through an intermediate node, gossip of neighbour lists, routed
 * errors, and the upgrade of a pair to a direct WebRTC link (signalled over
 * the mesh) with messages kept in order across the switch.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { admittedRaw, bytes, nextEvent, nodeFactory, within } from './helpers.js';
import { T, encodeIdPayload, encodeMsg, encodeRoute } from '../src/frames.js';

const nodes = nodeFactory();
after(() => nodes.stopAll());

/**
 * A hub B that A and C joined (as tabs join a daemon), with A knowing C
 * through B's gossip and C knowing A.
 * @param {object} [extra] options for all three
 * @param {object} [extraC] options for C
 */
async function star(extra = {}, extraC = {}) {
  const b = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, ...extra });
  const a = await nodes.start(extra);
  const c = await nodes.start({ ...extra, ...extraC });
  await a.connect(b.addresses()[0]);
  const aKnowsC = nextEvent(a, 'routes', () => a.isReachable(c.id));
  const cKnowsA = nextEvent(c, 'routes', () => c.isReachable(a.id));
  await c.connect(b.addresses()[0]);
  await Promise.all([aKnowsC, cKnowsA]);
  return { a, b, c };
}

/**
 * Collect `n` messages at `node` from `from`, each a 4-byte big-endian
 * sequence number; resolves with the numbers in arrival order.
 * @param {any} node @param {string} from @param {number} n
 */
function collectSeq(node, from, n) {
  /** @type {number[]} */
  const got = [];
  /** @type {() => void} */
  let off = () => {};
  const p = new Promise((resolve) => {
    off = node.onMessage((/** @type {string} */ f, /** @type {Uint8Array} */ p) => {
      if (f !== from || p.length !== 4) return;
      got.push(new DataView(p.buffer, p.byteOffset).getUint32(0));
      if (got.length === n) resolve(got);
    });
  });
  return within(p, 20_000, `${n} numbered messages (got ${got.length})`).finally(() => off());
}

/** @param {number} i */
function seq(i) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, i);
  return b;
}

test('a node reaches a peer it has no link to through a neighbour both are connected to, and learns the route from gossip', async () => {
  const { a, b, c } = await star();
  assert.deepEqual(a.peers().map((p) => p.id), [b.id]);
  const route = a.routes().find((r) => r.id === c.id);
  assert.ok(route, 'A knows C through gossip');
  assert.deepEqual(route.via, [b.id]);
  c.onRequest((from, p) => {
    assert.equal(from, a.id);
    return p.slice().reverse();
  });
  const res = await a.request(c.id, new Uint8Array([1, 2, 3]), { timeoutMs: 3000 });
  assert.deepEqual([...res], [3, 2, 1]);
  const got = collectSeq(c, a.id, 1000);
  for (let i = 0; i < 1000; i++) assert.equal(a.send(c.id, seq(i)), true);
  assert.deepEqual(await got, Array.from({ length: 1000 }, (_, i) => i), 'routed messages arrive in order');
});

test('a routed payload of 5 MiB is chunked on each hop and arrives intact', async () => {
  const { a, c } = await star();
  const big = bytes(5 * 1024 * 1024, 9);
  const got = new Promise((resolve) => c.onMessage((f, p) => { if (p.length > 1000) resolve(p); }));
  assert.equal(a.send(c.id, big), true);
  const p = /** @type {Uint8Array} */ (await within(got, 20_000, '5 MiB routed'));
  assert.equal(p.length, big.length);
  assert.ok(Buffer.from(p).equals(Buffer.from(big)));
});

test('when the far peer leaves the hub, gossip removes the route and sends to it fail with UnreachableError', async () => {
  const { a, b, c } = await star();
  const gone = nextEvent(a, 'routes', () => !a.isReachable(c.id));
  await c.stop();
  await gone;
  assert.equal(a.routes().some((r) => r.id === c.id), false);
  const err = nextEvent(a, 'send:error');
  assert.equal(a.send(c.id, new Uint8Array([1])), false);
  assert.equal((await err).error.name, 'UnreachableError');
  assert.ok(a.isReachable(b.id));
});

test('a routed frame to an unknown node comes back as UnreachableError, a routed request as a RES_ERR, and the hop limit holds', async () => {
  const b = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const h = await admittedRaw(b.addresses()[0]);
  const nobody = 'q'.repeat(32);
  // B answers its direct neighbour H with the end-to-end frame itself (no ROUTE needed for one hop).
  h.conn.send(encodeRoute(nobody, h.id, 4, encodeMsg(new Uint8Array([1]))));
  const err = await h.waitFrame((f) => f.type === T.ERROR);
  assert.equal(err.name, 'UnreachableError');
  assert.equal(err.refType, T.MSG);
  assert.match(err.message, new RegExp(`node ${nobody} is unreachable: no route from ${b.id}`));
  h.conn.send(encodeRoute(nobody, h.id, 4, encodeIdPayload(T.REQ, 77, new Uint8Array([1]))));
  const resErr = await h.waitFrame((f) => f.type === T.RES_ERR);
  assert.equal(resErr.id, 77);
  assert.equal(resErr.name, 'UnreachableError');
  h.conn.send(encodeRoute(nobody, h.id, 1, encodeMsg(new Uint8Array([1]))));
  const hop = await h.waitFrame((f) => f.type === T.ERROR && f.name === 'HopLimitError');
  assert.match(hop.message, /exceeded the hop limit of 8/);
});

test('two nodes that meet through a hub upgrade to a direct WebRTC link signalled through it, keeping messages in order', async () => {
  const { a, b, c } = await star();
  const n = 3000;
  const got = collectSeq(c, a.id, n);
  const back = collectSeq(a, c.id, n);
  let i = 0;
  // Keep sending while the upgrade runs: the switch from the routed path to the
  // direct link must not reorder anything.
  const pump = () => { for (let k = 0; k < 50 && i < n; k++, i++) { a.send(c.id, seq(i)); c.send(a.id, seq(i)); } };
  pump();
  const cSeesA = nextEvent(c, 'peer:up', (d) => d.id === a.id && d.transport === 'webrtc', 15_000);
  const up = a.upgrade(c.id, 'webrtc', { timeoutMs: 15_000 });
  const timer = setInterval(pump, 1);
  try {
    const info = await up;
    assert.equal(info.id, c.id);
    assert.equal(info.transport, 'webrtc');
    assert.deepEqual(await got, Array.from({ length: n }, (_, k) => k));
    assert.deepEqual(await back, Array.from({ length: n }, (_, k) => k));
  } finally {
    clearInterval(timer);
  }
  await cSeesA; // C admits the link a moment after A (its ACCEPT is the last frame)
  assert.equal(a.peers().find((p) => p.id === c.id)?.transport, 'webrtc');
  assert.equal(c.peers().find((p) => p.id === a.id)?.transport, 'webrtc');
  // Traffic now goes direct: it still flows with the hub gone.
  await b.stop();
  c.onRequest((_f, p) => p);
  assert.deepEqual([...await a.request(c.id, new Uint8Array([5]), { timeoutMs: 3000 })], [5]);
});

test('a WebSocket pair upgrades to WebRTC and back-to-back messages stay in order across the switch', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const b = await nodes.start();
  await b.connect(a.addresses()[0]);
  const n = 2000;
  const got = collectSeq(a, b.id, n);
  let i = 0;
  const pump = () => { for (let k = 0; k < 40 && i < n; k++, i++) b.send(a.id, seq(i)); };
  pump();
  const up = b.upgrade(a.id, 'webrtc');
  const timer = setInterval(pump, 1);
  try {
    assert.equal((await up).transport, 'webrtc');
    assert.deepEqual(await got, Array.from({ length: n }, (_, k) => k));
  } finally {
    clearInterval(timer);
  }
  const info = b.peers()[0];
  assert.deepEqual(info.links.map((l) => l.transport), ['webrtc', 'websocket'], 'the WebRTC link is used, the WebSocket link kept');
  assert.equal((await b.upgrade(a.id, 'webrtc')).transport, 'webrtc', 'a second upgrade returns the existing link');
});

test('an upgrade the peer cannot accept fails with UpgradeError and traffic stays on the existing path', async () => {
  const { a, c } = await star({}, { webrtc: false });
  await assert.rejects(a.upgrade(c.id, 'webrtc', { timeoutMs: 5000 }), (/** @type {any} */ e) => e.name === 'UpgradeError' && /WebRTC is disabled|not accepting/.test(e.message));
  c.onRequest((_f, p) => p);
  assert.deepEqual([...await a.request(c.id, new Uint8Array([8]), { timeoutMs: 3000 })], [8]);
  await assert.rejects(a.upgrade('x'.repeat(32), 'webrtc'), { name: 'UpgradeError' });
  await assert.rejects(a.upgrade(c.id, /** @type {any} */ ('carrier-pigeon')), { name: 'InvalidArgumentError' });
});
