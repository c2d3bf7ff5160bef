// @ts-check
/**
 * Draining, on one node (docs/messengers.md, "Draining a physical node"): logical nodes
 * taken off one logical network and adopted by another keep their addresses, variables,
 * links, mailbox and waiters;
 * the data a target adopts is checked as a peer's input (malformed data, an address it
 * holds already, an over-full mailbox: clear errors, nothing adopted); `drain-node` to
 * the node itself or to a non-node is refused. The drain across daemons is tested in
 * node-daemon/test/drain.test.js.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { schemeOut, SHOW } from './harness.js';
import { LogicalNetwork } from '../src/messengers/logical-network.js';
import { exportNodes, adoptNodes } from '../src/messengers/lnet-transfer.js';
import { Sym, arrayToList } from '../src/scheme-data.js';

/** @param {string} program */
async function lines(program) {
  const out = await schemeOut(SHOW + program);
  return out.split('\n').slice(0, -1);
}

test('logical nodes exported and adopted back keep their addresses, variables, links, mailbox and waiters', () => {
  const net = new LogicalNetwork({ id: 'n1' });
  const root = net.root();
  const x = net.makeNode(Sym.intern('x'));
  net.addLink(root, Sym.intern('l'), 5, x.addr, Sym.intern('x'));
  net.addLink(x, Sym.intern('l'), 5, root.addr, Sym.intern('init'));
  net.write(x, 'v', arrayToList([1, 2, 3]), -1);
  net.post(x, Sym.intern('mail'));
  net.addVarWaiter(x, 'v', { id: 41, pid: 'a-pid', tag: 'a-tag', pred: 'a-pred' });
  const data = exportNodes(net, 'n2');
  assert.equal(data.length, 2);
  assert.equal(net.nodes.size, 0);
  assert.equal(net.physicalIdOf(x.addr), 'n2');
  const target = new LogicalNetwork({ id: 'n2' });
  assert.equal(adoptNodes(target, arrayToList(data)), 41);
  const y = /** @type {any} */ (target.nodes.get(x.addr));
  assert.equal(y.name, Sym.intern('x'));
  assert.equal(String(target.read(y, 'v', false)), String(arrayToList([1, 2, 3])));
  assert.equal(target.version(y, 'v'), 1);
  assert.deepEqual(y.mail, [Sym.intern('mail')]);
  assert.deepEqual(y.links.map((/** @type {any} */ l) => [l.to, l.weight, l.toNameKey]), [[root.addr, 5, 'sinit']]);
  assert.equal(y.varWaiters.get('v')[0].id, 41);
  assert.equal(y.waiterCount, 1);
  // the drained node's root stays permanent where it went: never deleted when left empty
  const r = /** @type {any} */ (target.nodes.get(root.addr));
  assert.equal(r.permanent, true);
  r.links = [];
  assert.equal(target.deleteIfEmpty(r, null), false);
  assert.equal(target.physicalIdOf(x.addr), 'n2');
});

test('adopted data is checked as a peer\'s input: malformed fields, an address held already and an over-full mailbox are refused whole', () => {
  const net = new LogicalNetwork({ id: 'n2' });
  const root = net.root();
  const node = (/** @type {any} */ addr, /** @type {any[]} */ mail = []) => [addr, Sym.intern('n'), false, [], [], mail, [], []];
  /** @param {any} items */
  const refusal = (items) => {
    try {
      adoptNodes(net, items);
    } catch (e) {
      return /** @type {any} */ (e).payload?.message ?? String(e);
    }
    return 'adopted';
  };
  assert.match(refusal([['@abc/1', false, false, null, [], [], [], []]]), /malformed logical node data: variables must be a vector/);
  assert.match(refusal([node('@abc/1'), 7]), /malformed logical node data: a node must be a vector/);
  assert.match(refusal([node('nope')]), /malformed logical node data: not an address/);
  assert.match(refusal([node(root.addr)]), /a logical node with this address is here already/);
  assert.match(refusal([node('@abc/2', new Array(10001).fill(0))]), /mailbox is full \(limit 10000\)/);
  assert.match(refusal([['@abc/3', false, false, [], [[false, false, 42, false]], [], [], []]]), /malformed link/);
  assert.equal(net.nodes.size, 1, 'nothing adopted');
  assert.equal(refusal([node('@abc/4')]), 'adopted');
});

test('drain-node refuses this node and a value that is not a node', async () => {
  const out = await lines(`
(define (try x) (guard (e (#t (error-object-message e))) (drain-node x)))
(show (try (current-node)))
(show (try 42))
`);
  assert.deepEqual(out, ['"drain-node: the target is this node"', '"drain-node: expected a node"']);
});
