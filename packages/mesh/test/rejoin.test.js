// @ts-check
/**
 * Rejoin: a node that joined a peer by URL dials it again when that peer goes (it
 * restarted on the same port, it was killed without a BYE), with a bounded, jittered
 * backoff; traffic resumes on the new link and nothing sent before is delivered twice
 * (a peer killed without a BYE: node-daemon/test/rejoin.test.js);
 * a refusal that cannot pass (a wrong token) is given up; disconnect() gives up too.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createIdentity, createMeshNode, createMemoryLogger } from '../src/index.js';
import { TOKEN, nextEvent, nodeFactory, within } from './helpers.js';

const nodes = nodeFactory();
after(() => nodes.stopAll());

/** @param {number} i */
function seq(i) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, i);
  return b;
}

/**
 * A listening node on `port` (0: a free one) with `identity`, started; stopped by the caller.
 * @param {any} identity @param {number} port @param {object} [extra]
 */
async function listener(identity, port, extra = {}) {
  const node = createMeshNode({ identity, token: TOKEN, logger: createMemoryLogger(), listen: { host: '127.0.0.1', port }, ...extra });
  await node.start();
  return node;
}

test('a peer that restarts on the same port is joined again within the backoff bound, and numbered messages resume with none delivered twice', async () => {
  const idB = await createIdentity();
  let b = await listener(idB, 0);
  const url = b.addresses()[0];
  const port = Number(new URL(url).port);
  const a = await nodes.start({ join: [url], rejoinBaseMs: 100, rejoinMaxMs: 400 });
  assert.equal(a.peers()[0]?.id, idB.id);
  /** @type {number[]} */
  const got = [];
  const collect = (/** @type {any} */ node) => node.onMessage((/** @type {string} */ f, /** @type {Uint8Array} */ p) => {
    if (f === a.id && p.length === 4) got.push(new DataView(p.buffer, p.byteOffset).getUint32(0));
  });
  collect(b);
  for (let i = 0; i < 50; i++) assert.equal(a.send(idB.id, seq(i)), true);
  await within((async () => { for (let k = 0; k < 500 && got.length < 50; k++) await new Promise((r) => setTimeout(r, 10)); })(), 6000, 'first 50');
  assert.equal(got.length, 50);

  const down = nextEvent(a, 'peer:down', (d) => d.id === idB.id);
  await b.stop();
  await down;
  assert.equal(a.isReachable(idB.id), false);
  // the peer is away for a while: several dials fail, each after a longer (bounded) wait
  await within((async () => { for (let k = 0; k < 300 && !(a.rejoining()[0]?.attempts >= 2); k++) await new Promise((r) => setTimeout(r, 10)); })(), 4000, 'two failed dials');
  const up = nextEvent(a, 'peer:up', (d) => d.id === idB.id, 5000);
  const t0 = Date.now();
  b = await listener(idB, port);
  collect(b);
  try {
    await up;
    // the largest delay is 400 ms: the peer is back well within it plus a dial
    assert.ok(Date.now() - t0 < 2000, `rejoined after ${Date.now() - t0} ms`);
    assert.deepEqual(a.rejoining(), []);
    assert.ok(a.logs.some((e) => e.message === 'rejoined' && e.fields?.url === url), 'the rejoin is logged');
    for (let i = 50; i < 100; i++) assert.equal(a.send(idB.id, seq(i)), true);
    await within((async () => { for (let k = 0; k < 500 && got.length < 100; k++) await new Promise((r) => setTimeout(r, 10)); })(), 6000, 'second 50');
    assert.deepEqual(got, Array.from({ length: 100 }, (_, i) => i), 'every number once, in order');
  } finally {
    await b.stop();
  }
});

test('a join refused for a wrong token is not dialled again; disconnect() stops the rejoin of that peer', async () => {
  const other = await listener(await createIdentity(), 0, { token: 'another-token-0123456789' });
  try {
    const a = await nodes.start({ join: [other.addresses()[0]], rejoinBaseMs: 50, rejoinMaxMs: 100 });
    assert.deepEqual(a.rejoining(), []);
    assert.ok(a.logs.some((e) => /not dialling again/.test(e.message)));
  } finally {
    await other.stop();
  }
  const b = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const c = await nodes.start({ join: [b.addresses()[0]], rejoinBaseMs: 50, rejoinMaxMs: 100 });
  const down = nextEvent(c, 'peer:down', (d) => d.id === b.id);
  c.disconnect(b.id, 'user asked');
  await down;
  assert.deepEqual(c.rejoining(), [], 'nothing is dialled after disconnect()');
  // and b does not come back by itself within several backoff periods
  const up = nextEvent(c, 'peer:up', () => true, 600).then(() => true, () => false);
  assert.equal(await up, false);
});
