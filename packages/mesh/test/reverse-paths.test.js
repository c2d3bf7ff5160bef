// @ts-check
/**
 * Replies before gossip (reverse-paths.js, paths.js): a node that has no route to the
 * source of a routed request answers it back along the way the request came: a node
 * joining one end of a line asks the far end at once, before gossip has told the far end
 * (or the relays) the way back. The table itself is bounded and its entries expire.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { ReversePaths } from '../src/reverse-paths.js';
import { nodeFactory, until } from './helpers.js';

const nodes = nodeFactory();
after(() => nodes.stopAll());

test('a node that joins the end of a line and at once asks the far end is answered on the first call, the answer retracing the request\'s path', async () => {
  /** @type {import('../src/mesh-node.js').MeshNode[]} */
  const l = [];
  for (let i = 0; i < 4; i++) l.push(await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, join: i === 0 ? [] : [l[i - 1].addresses()[0]] }));
  const [head, , , last] = l;
  await until(() => head.isReachable(last.id) && last.isReachable(head.id), 5000, 'the line converged');
  /** @type {boolean[]} whether the far end knew a route to the asker when it answered */
  const knew = [];
  /** @type {boolean[]} whether it counted the asker reachable then */
  const reachable = [];
  last.onRequest((from, p) => {
    knew.push(last.routes().some((r) => r.id === from));
    reachable.push(last.isReachable(from));
    return p.slice().reverse();
  });
  // each new node learns the whole line from the head's first gossip, while its own route
  // crosses the line a round at a time: its first request reaches the far end first
  for (let i = 0; i < 5 && !knew.includes(false); i++) {
    const asker = await nodes.start({ join: [head.addresses()[0]] });
    await until(() => asker.isReachable(last.id), 5000, 'the asker routes to the far end');
    assert.deepEqual([...await asker.request(last.id, new Uint8Array([1, 2, i]), { timeoutMs: 3000 })], [i, 2, 1], `asker ${i}: the first call is answered`);
  }
  assert.ok(knew.includes(false), `the far end answered at least once before gossip told it the way back (${JSON.stringify(knew)})`);
  // a way known only from the request's path does not make a node reachable (those who watch
  // reachability must see a node that left go)
  assert.deepEqual(reachable, knew, 'isReachable counts gossip routes, not the reverse path');
});

test('the table is bounded (the oldest noted goes first), refreshes only on news, and expires', async () => {
  const t = new ReversePaths(3, 50);
  assert.equal(t.note('a', 'n1'), true);
  assert.equal(t.note('a', 'n1'), false, 'the same way again is no news');
  assert.equal(t.note('b', 'n1'), true);
  assert.equal(t.note('c', 'n2'), true);
  assert.equal(t.note('d', 'n2'), true);
  assert.equal(t.size, 3);
  assert.equal(t.via('a'), null, 'the oldest was dropped');
  assert.equal(t.via('d'), 'n2');
  assert.equal(t.note('d', 'n3'), true, 'another neighbour is news');
  assert.equal(t.via('d'), 'n3');
  await new Promise((r) => setTimeout(r, 80)); // the TTL under test is 50 ms
  assert.equal(t.via('d'), null, 'expired');
});
