// @ts-check
/**
 * The JavaScript API of a node (docs/processes.md, "JavaScript API"): JS and Scheme processes talk to each
 * other, receive is a promise (with timeouts and predicates), `call` does a tagged RPC,
 * and tuple operations work from JavaScript, blocking ones included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createNode, list, sym, formal, toJs, Pid } from '@termite/runtime';

/** @param {(node: any) => Promise<void>} body */
async function withNode(body) {
  const node = await createNode({});
  try {
    await body(node);
  } finally {
    node.stop();
  }
}

test('a JS mailbox exchanges messages with a Scheme process', () =>
  withNode(async (node) => {
    const echo = node.spawnScheme('(lambda () (let loop () (let ((m (?))) (! (car m) (cdr m)) (loop))))');
    assert.ok(echo instanceof Pid);
    const me = node.mailbox();
    me.send(echo, list(me.pid, 'hello', 42, 1.5, [1, 2]));
    assert.deepEqual(toJs(await me.receive({ timeoutMs: 2000 })), ['hello', 42, 1.5, [1, 2]]);
  }));

test('a JS process answers a Scheme process', () =>
  withNode(async (node) => {
    const doubler = node.spawnJs(async (self) => {
      for (let i = 0; i < 3; i++) {
        const m = await self.receive();
        self.send(m.car, m.cdr.car * 2);
      }
    });
    const me = node.mailbox();
    me.send(doubler, list(me.pid, 21));
    assert.equal(await me.receive({ timeoutMs: 2000 }), 42);
  }));

test('call performs a tagged request against a recv-based server', () =>
  withNode(async (node) => {
    const adder = node.spawnScheme("(lambda () (let loop () (recv ((from tag ('add a b)) (! from (list tag (+ a b))))) (loop)))");
    const me = node.mailbox();
    assert.equal(await me.call(adder, list(sym('add'), 20, 22), { timeoutMs: 2000 }), 42);
    assert.equal(await me.call(adder, list(sym('add'), 1, 2), { timeoutMs: 2000 }), 3);
  }));

test('receive rejects after its timeout and can select by predicate', () =>
  withNode(async (node) => {
    const me = node.mailbox();
    await assert.rejects(me.receive({ timeoutMs: 20 }), { name: 'ReceiveTimeoutError' });
    me.send(me.pid, 1);
    me.send(me.pid, 2);
    assert.equal(await me.receive({ pred: (m) => m === 2, timeoutMs: 1000 }), 2);
    assert.equal(await me.receive({ timeoutMs: 1000 }), 1);
  }));

test('tuples go in and out from JavaScript, and a blocking in waits for the out', () =>
  withNode(async (node) => {
    node.out('job', 7);
    assert.deepEqual(await node.in('job', formal.integer), ['job', 7]);
    assert.equal(await node.inp('job', formal.integer), null);
    const pending = node.in('later', formal.string);
    setTimeout(() => node.out('later', 'x'), 20);
    assert.deepEqual(await pending, ['later', 'x']);
    node.out(node.space('other'), 'a', 1);
    assert.equal(await node.rdp('a', formal.integer), null, 'named spaces are separate');
    assert.deepEqual(await node.rdp(node.space('other'), 'a', formal.integer), ['a', 1]);
  }));

test('an exact integer never matches a float', () =>
  withNode(async (node) => {
    node.out('n', 1.5);
    node.out('n', 2);
    assert.deepEqual(await node.inp('n', formal.integer), ['n', 2]);
    assert.deepEqual(await node.inp('n', formal.float), ['n', 1.5]);
  }));
