// @ts-check
/**
 * A hostile neighbour's routes (router.js, paths.js, routed-requests.js): a peer that
 * answers heartbeats announces 1,024 routes — one, at no cost, to a real node that is
 * reachable another way, and 1,023 to nodes that do not exist — and swallows every frame
 * it is given to forward. What a neighbour may announce is bounded; the first request to
 * the real node, sent through the liar, is sent again around it when no answer comes and
 * answered within its timeout; after that the liar is avoided for that node: requests are
 * answered at once and messages arrive, and the liar is given nothing more for it.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { T, encodeGossip, MAX_GOSSIP_ENTRIES } from '../src/frames.js';
import { admittedRaw, nodeFactory, until } from './helpers.js';

const nodes = nodeFactory();
after(() => nodes.stopAll());

/** A well-formed node id that no node has. */
function fakeId() {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return [...randomBytes(32)].map((b) => alphabet[b & 31]).join('');
}

test('a neighbour announcing a free route to a real node and swallowing its frames does not black-hole it: the request goes around, the liar is avoided after', { timeout: 60_000 }, async () => {
  const target = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const relay = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, join: [target.addresses()[0]] });
  const asker = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const liar = await admittedRaw(asker.addresses()[0]);
  await until(() => asker.isReachable(liar.id), 5000, 'the liar linked');
  const fakes = Array.from({ length: MAX_GOSSIP_ENTRIES - 1 }, () => [fakeId(), null, 0, []]);
  liar.conn.send(encodeGossip(1, /** @type {any} */ ([[target.id, null, 0, []], ...fakes])));
  await until(() => asker.isReachable(target.id), 5000, 'the lie taken: the target routed through the liar');
  assert.ok(asker.routes().length <= MAX_GOSSIP_ENTRIES, 'what one neighbour announces is bounded');
  // the honest way appears after the lie is in use (a route in use is kept against a slightly cheaper one)
  await asker.connect(relay.addresses()[0]);
  await until(() => asker.routes().some((r) => r.id === target.id && r.via.length === 2), 5000, 'the honest way known too');
  target.onRequest((_from, p) => p.slice().reverse());
  const toTarget = () => liar.frames.filter((f) => f.type === T.ROUTE && f.dst === target.id).length;

  assert.deepEqual([...await asker.request(target.id, new Uint8Array([1, 2, 3]), { timeoutMs: 5000 })], [3, 2, 1], 'the first request is answered within its timeout');
  assert.ok(toTarget() >= 1, 'the first request went to the liar');
  assert.ok(asker.logs.some((e) => e.message === 'routed request sent again' && /** @type {any} */ (e.fields).why === 'no answer'));
  const swallowed = toTarget();
  for (let i = 0; i < 3; i++) {
    const t = Date.now();
    assert.deepEqual([...await asker.request(target.id, new Uint8Array([i, 9]), { timeoutMs: 5000 })], [9, i]);
    assert.ok(Date.now() - t < 1000, `answered at once, around the liar (${Date.now() - t} ms)`);
  }
  const got = new Promise((resolve) => target.onMessage((from, p) => { if (from === asker.id) resolve([...p]); }));
  assert.equal(asker.send(target.id, new Uint8Array([7])), true);
  assert.deepEqual(await got, [7], 'messages arrive too');
  assert.equal(toTarget(), swallowed, 'the liar was given nothing more for the target');
});
