// @ts-check
/**
 * SEND frames, the commonest frame between nodes: send() encodes them in one pass with
 * the pid's part cached, and a SEND to a local process is delivered without decoding
 * the frame around its message. Both must agree byte for byte and value for value with
 * the general encoder and decoder. The mesh is a stand-in that records what is sent;
 * node-daemon/test/mesh.test.js sends the same frames between real daemons.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pair, Sym, encodeValue, decodeValue } from '@termite/scheme';
import { withNode } from './harness.js';
import { Distribution } from '../src/distribution.js';
import { Pid } from '../src/termite-values.js';

const F_SEND = 1;

/** @param {Uint8Array} a */
const hex = (a) => Buffer.from(a).toString('hex');

/** A stand-in for a started MeshNode that keeps what is sent. */
function recordingMesh() {
  /** @type {Array<{to: string, bytes: Uint8Array}>} */
  const sent = [];
  return {
    sent,
    mesh: { id: 'stand-in', onMessage() {}, onRequest() {}, on() {}, isReachable: () => true, send: (/** @type {string} */ to, /** @type {Uint8Array} */ bytes) => { sent.push({ to, bytes: bytes.slice() }); return true; } },
  };
}

/** Let a process reach its receive (bounded). @param {any} node @param {any} proc */
async function untilWaiting(node, proc) {
  for (let i = 0; i < 1000 && !node.isWaiting(proc); i++) await new Promise((r) => setImmediate(r));
  assert.ok(node.isWaiting(proc), 'the process never waited');
}

test('send() writes a SEND frame byte for byte as the general encoder does, for pids of every serial size and node', () =>
  withNode(async ({ node }) => {
    const { sent, mesh } = recordingMesh();
    const dist = new Distribution(node, mesh);
    try {
      const msgs = [0, 'text', new Pair(new Pid(node.id, 3), 0), [1, [2, new Uint8Array([3])]], Sym.intern('ping')];
      const pids = [new Pid('peer-node-0123456789abcdefghijklm', 5), new Pid('peer', 300), new Pid('p'.repeat(40), 70_000), new Pid('ü-node', 1), new Pid('x'.repeat(300), 2)];
      for (const pid of pids) {
        for (const msg of msgs) {
          dist.send(pid, msg);
          dist.send(pid, msg); // the second time from the cache of heads
          const [a, b] = sent.splice(0);
          const general = hex(dist.encode([F_SEND, pid.node, pid.n, msg]));
          assert.equal(hex(a.bytes), general, `${pid.node.slice(0, 8)}/${pid.n}`);
          assert.equal(hex(b.bytes), general);
          assert.equal(a.to, pid.node);
        }
      }
      // a message with a procedure goes the general way, with its environment list
      const r = await withProcedure(node);
      dist.send(pids[0], r);
      assert.equal(sent.length, 1);
    } finally {
      node.remote = null;
    }
  }));

/** @param {any} node */
async function withProcedure(node) {
  const r = await node.runProgram('(lambda (x) x)', { file: 'send-frames.scm' });
  assert.ok(r.ok);
  return r.value;
}

test('a SEND to a local process is delivered by the fast path; other frames and bad messages go the general way', () =>
  withNode(async ({ node, log }) => {
    const { sent, mesh } = recordingMesh();
    const dist = new Distribution(node, mesh);
    try {
      const proc = node.local(node.spawnScheme('(lambda () (let ((m (?))) (! (car m) (cdr m))))'));
      await untilWaiting(node, proc);
      const replyTo = new Pid('peer-node-0123456789abcdefghijklm', 9);
      const frame = dist.encode([F_SEND, node.id, proc.pid.n, new Pair(replyTo, 'hello')]);
      assert.equal(dist.deliverLocalSend(frame), true);
      // the process took it at once and answered through send(): a SEND to the peer
      assert.equal(sent.length, 1);
      assert.equal(sent[0].to, replyTo.node);
      assert.equal(hex(sent[0].bytes), hex(dist.encode([F_SEND, replyTo.node, replyTo.n, 'hello'])));
      // not for the fast path: another node's process, a serial with no process, a SIGNAL
      assert.equal(dist.deliverLocalSend(dist.encode([F_SEND, 'someone-else', proc.pid.n, 1])), false);
      assert.equal(dist.deliverLocalSend(dist.encode([F_SEND, node.id, 987654, 1])), false);
      assert.equal(dist.deliverLocalSend(dist.encode([2, node.id, proc.pid.n, 1])), false);
      // a message that does not end where the frame says: the general path refuses it
      const waiting = node.local(node.spawnScheme('(lambda () (?))'));
      await untilWaiting(node, waiting);
      const good = dist.encode([F_SEND, node.id, waiting.pid.n, 7]);
      const bad = new Uint8Array([...good.subarray(0, good.length - 1), 0x01, 0x80]);
      assert.equal(dist.deliverLocalSend(bad), false);
      dist.onFrame('peer-node-0123456789abcdefghijklm', bad);
      assert.ok(log.some((l) => /frame from peer-node-01 refused/.test(l)), log.join('\n'));
      assert.ok(node.isWaiting(waiting), 'nothing was delivered');
    } finally {
      node.remote = null;
    }
  }));

test('a pid keeps its encoding from its first message, also when that message outgrew the encoder\'s buffer mid-pid', () => {
  /** @type {Pid[]} */
  const pids = [];
  // messages of every size up to past the 16 KiB slab: some pid's bytes straddle the moment
  // the encoding in progress moves to a bigger buffer
  for (let k = 0; k < 3000; k++) {
    const pid = new Pid(`node-${k % 7}-0123456789abcdefghijklmnop`, k);
    const first = encodeValue(['z'.repeat((k * 37) % 17000), pid]);
    assert.ok(pid.wire !== null, 'kept');
    const [, back] = decodeValue(first);
    assert.ok(back instanceof Pid && back.node === pid.node && back.n === pid.n);
    pids.push(pid);
  }
  for (const pid of pids) {
    const again = decodeValue(encodeValue(new Pair(pid, 0))); // from the kept bytes
    assert.ok(again.car.node === pid.node && again.car.n === pid.n, `pid ${pid.n}: ${again.car.node}/${again.car.n}`);
  }
});

test('another node\'s pid decoded again is the pid decoded before; a different node or serial in the same slot is not', () => {
  const a = new Pid('peer-node-0123456789abcdefghijklm', 70);
  const first = decodeValue(encodeValue(new Pair(a, 0))).car;
  const again = decodeValue(encodeValue(new Pair(new Pid(a.node, 70), 1))).car;
  assert.equal(again, first, 'the same object');
  for (const other of [new Pid('peer-node-0123456789abcdefghijklX', 70), new Pid(a.node, 70 + 64), new Pid('short', 70), new Pid(a.node, 70 + 2 ** 20)]) {
    const d = decodeValue(encodeValue([other, 'after']));
    assert.ok(d[0] instanceof Pid && d[0].node === other.node && d[0].n === other.n, `${other.node}/${other.n}`);
    assert.equal(d[1], 'after', 'decoding went on after the pid at the right byte');
  }
});

test('a known pid under a shareable mark (tag 28) is found again by a later reference (tag 29)', () => {
  const pid = new Pid('peer-node-0123456789abcdefghijklm', 71);
  decodeValue(encodeValue(pid)); // now a known pid
  // [28(pid), 29(0)]: what an encoder that shared the pid would write
  const pidBytes = encodeValue(pid);
  const bytes = new Uint8Array([0x82, 0xd8, 0x1c, ...pidBytes, 0xd8, 0x1d, 0x00]);
  const [a, b] = decodeValue(bytes);
  assert.ok(a instanceof Pid && a.n === 71);
  assert.equal(b, a);
});
