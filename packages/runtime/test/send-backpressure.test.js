// @ts-check
/**
 * No silent loss between two nodes (distribution/send-queue.js): two real mesh nodes in
 * this process, linked by a real WebSocket on loopback, each with a Termite node and its
 * Distribution. A Scheme process that sends faster than the link carries is suspended
 * and resumed (every message arrives, in order); a message the mesh can never carry
 * raises in the sender; a node that goes away while a sender waits ends the wait with
 * an error raised in the sender and one log line for the burst. Every wait is bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMeshNode, createIdentity, createMemoryLogger } from '@termite/mesh';
import { createNode } from '../src/index.js';
import { Distribution } from '../src/distribution.js';
import { ErrorObject } from '@termite/scheme';
import { Pid } from '../src/termite-values.js';

const TOKEN = 'send-backpressure-test-token';

/**
 * Await `p` for at most `ms`.
 * @template T @param {Promise<T>} p @param {number} ms @param {string} what @returns {Promise<T>}
 */
function within(p, ms, what) {
  /** @type {any} */
  let t;
  return Promise.race([p, new Promise((_, reject) => { t = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(t));
}

/**
 * Two linked nodes: `a` sends (its mesh queue bounded by `maxQueueBytes`), `b` receives.
 * @param {{maxQueueBytes?: number, requestTimeoutMs?: number}} [opts]
 */
async function twoNodes(opts = {}) {
  const meshB = createMeshNode({ identity: await createIdentity(), token: TOKEN, listen: { host: '127.0.0.1', port: 0 }, webrtc: false, logger: createMemoryLogger() });
  await meshB.start();
  const meshA = createMeshNode({
    identity: await createIdentity(), token: TOKEN, webrtc: false, logger: createMemoryLogger(),
    join: [meshB.addresses()[0]], maxQueueBytes: opts.maxQueueBytes,
  });
  const joined = await meshA.start();
  assert.equal(joined.joined.length, 1, 'a joined b');
  /** @type {string[]} */
  const logA = [];
  const a = /** @type {any} */ (await createNode({ id: meshA.id, log: (s) => logA.push(s) }));
  const b = /** @type {any} */ (await createNode({ id: meshB.id }));
  const distA = new Distribution(a, meshA, { log: (s) => logA.push(s), requestTimeoutMs: opts.requestTimeoutMs });
  new Distribution(b, meshB, {});
  const stop = async () => {
    a.stop();
    b.stop();
    await Promise.all([meshA.stop(), meshB.stop()]);
  };
  return { a, b, meshA, meshB, distA, logA, stop };
}

/**
 * Start the procedure `source` evaluates to on `node` with `args`; resolves with how
 * the process ended.
 * @param {any} node @param {string} source @param {any[]} args
 * @returns {Promise<{proc: any, ended: Promise<{ok: boolean, value: any}>}>}
 */
async function spawnProcedure(node, source, args) {
  const r = await node.runProgram(source, { file: 'sender.scm' });
  // the receiver's pid as the sending node knows it (without the cache of the process
  // that a pid made in this realm by the other node carries)
  args = args.map((a) => (a instanceof Pid ? new Pid(a.node, a.n) : a));
  assert.ok(r.ok, r.message);
  const proc = node.spawnCall(r.value, args);
  const ended = new Promise((resolve) => (proc.onExit = resolve));
  return { proc, ended: /** @type {Promise<{ok: boolean, value: any}>} */ (ended) };
}

const BURST = `(lambda (to n size)
  (let loop ((i 0))
    (if (< i n)
        (begin (! to (vector i (make-bytevector size (modulo i 256)))) (loop (+ i 1)))
        'sent)))`;

test('a burst of 2,000 messages of 64 KiB through a 1 MiB queue: the sender is held and resumed, and every message arrives once, in order', async () => {
  const n = await twoNodes({ maxQueueBytes: 1024 * 1024 });
  try {
    /** @type {number[]} */
    const got = [];
    let damaged = 0;
    /** @type {() => void} */
    let all = () => {};
    const allIn = new Promise((resolve) => (all = () => resolve(undefined)));
    const receiver = n.b.spawnHandler((/** @type {any} */ msg) => {
      const [i, bytes] = msg;
      if (!(bytes instanceof Uint8Array) || bytes.length !== 65536 || bytes[0] !== i % 256 || bytes[65535] !== i % 256) damaged++;
      got.push(i);
      if (got.length === 2000) all();
    });
    const { ended } = await spawnProcedure(n.a, BURST, [receiver.pid, 2000, 65536]);
    const end = await within(ended, 30_000, 'the sender ending');
    assert.equal(end.ok, true, `the sender died: ${end.value?.message ?? end.value}`);
    await within(allIn, 10_000, `all 2,000 messages arriving (got ${got.length})`);
    assert.deepEqual(got, Array.from({ length: 2000 }, (_, i) => i), 'every sequence number once, in order');
    assert.equal(damaged, 0);
    assert.ok(n.distA.stats.backPressured >= 1 && n.distA.stats.queued >= 1, `the queue was full at least once (${JSON.stringify(n.distA.stats)})`);
    assert.ok(n.a.stats.sendHolds >= 1, 'the sender was held (and, since it ended, resumed)');
    assert.equal(n.distA.stats.dropped, 0);
    assert.equal(n.distA.outboxes.size, 0, 'nothing left waiting');
    assert.deepEqual(n.logA.filter((l) => l.includes('not sent')), []);
  } finally {
    await n.stop();
  }
});

test('a message larger than the mesh\'s frame limit raises in the sender, naming the node, the size and the limit; the link keeps working', async () => {
  const n = await twoNodes();
  try {
    /** @type {any[]} */
    const got = [];
    /** @type {() => void} */
    let arrived = () => {};
    const afterIn = new Promise((resolve) => (arrived = () => resolve(undefined)));
    const receiver = n.b.spawnHandler((/** @type {any} */ msg) => {
      got.push(msg);
      arrived();
    });
    const { ended } = await spawnProcedure(n.a, `(lambda (to)
      (let ((r (guard (e (#t (list 'raised (error-object-message e))))
                 (! to (make-bytevector 73400320 7))
                 'no-error)))
        (! to 'after)
        r))`, [receiver.pid]);
    const end = await within(ended, 20_000, 'the sender ending');
    assert.equal(end.ok, true, String(end.value?.message ?? end.value));
    const [tag, message] = [end.value.car, end.value.cdr.car];
    assert.equal(tag.name, 'raised');
    assert.match(message, new RegExp(`^message to process ${receiver.pid.n} on node ${n.meshB.id.slice(0, 12)} not sent: its frame of 734\\d{5} bytes \\(70 MiB\\) exceeds the mesh's limit of 67108864 bytes \\(64 MiB\\)$`));
    await within(afterIn, 10_000, 'the message after it arriving');
    assert.equal(got.length, 1);
    assert.equal(got[0].name, 'after');
    assert.equal(n.logA.filter((l) => l.includes('FrameTooLargeError')).length, 1, n.logA.join('\n'));
    assert.equal(n.distA.stats.dropped, 1);
  } finally {
    await n.stop();
  }
});

test('the receiving node goes away while the sender waits for room: the wait ends with an error raised in the sender, and the burst is logged in few lines', async () => {
  const n = await twoNodes({ maxQueueBytes: 1024 * 1024 });
  try {
    let count = 0;
    const receiver = n.b.spawnHandler(() => {
      // the receiving node stops after 50 messages, with the sender far ahead
      if (++count === 50) queueMicrotask(() => n.meshB.stop());
    });
    const { ended } = await spawnProcedure(n.a, BURST, [receiver.pid, 2000, 65536]);
    const end = await within(ended, 15_000, 'the sender ending');
    assert.equal(end.ok, false, 'the sender was told');
    assert.ok(end.value instanceof ErrorObject, String(end.value));
    assert.equal(end.value.kind, 'send');
    assert.match(end.value.message, /^\d+ messages? to node \w+ not sent: node \w+ is unreachable/);
    assert.ok(n.distA.stats.dropped >= 1);
    const lines = n.logA.filter((l) => l.includes('not sent'));
    assert.ok(lines.length >= 1 && lines.length <= 3, `a line per reason and burst, not per frame:\n${lines.join('\n')}`);
    assert.equal(n.distA.outboxes.size, 0);
    // a frame that is not a message (an exit signal) to the node that is gone: counted, logged
    const dropped = n.distA.stats.dropped;
    n.a.signal(new Pid(receiver.pid.node, receiver.pid.n), 'gone');
    assert.equal(n.distA.stats.dropped, dropped + 1);
  } finally {
    await n.stop();
  }
});

test('a JS process learns the same: send returns false behind a full queue, sendReady settles once it has room, and nothing is lost', async () => {
  const n = await twoNodes({ maxQueueBytes: 1024 * 1024 });
  try {
    /** @type {number[]} */
    const got = [];
    /** @type {() => void} */
    let all = () => {};
    const allIn = new Promise((resolve) => (all = () => resolve(undefined)));
    const receiver = n.b.spawnHandler((/** @type {any} */ msg) => {
      got.push(msg[0]);
      if (got.length === 2000) all();
    });
    const to = new Pid(receiver.pid.node, receiver.pid.n);
    const bytes = new Uint8Array(65536);
    const waited = new Promise((resolve, reject) => n.a.spawnJs(async (/** @type {any} */ self) => {
      let waits = 0;
      try {
        for (let i = 0; i < 2000; i++) {
          if (!self.send(to, [i, bytes])) {
            waits++;
            await self.sendReady(to);
          }
        }
      } catch (e) {
        reject(e);
      }
      resolve(waits);
    }));
    const waits = await within(waited, 30_000, 'the JS sender ending');
    assert.ok(Number(waits) >= 1, 'the queue was full at least once');
    await within(allIn, 10_000, `all 2,000 messages arriving (got ${got.length})`);
    assert.deepEqual(got, Array.from({ length: 2000 }, (_, i) => i));
    assert.equal(n.distA.stats.dropped, 0);
  } finally {
    await n.stop();
  }
});
