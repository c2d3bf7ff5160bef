// @ts-check
/**
 * No silent loss between two nodes (distribution/send-queue.js): a real mesh node in
 * this process sends to a real mesh node in a child process
 * (send-backpressure-receiver.js), linked by a real WebSocket on loopback, each with a
 * Termite node and its Distribution. The child is stopped (SIGSTOP) while the sender
 * bursts, so the mesh's queue fills for certain whatever the machine's load: a Scheme
 * process that sends faster than the link carries is suspended, and once the child goes
 * on (SIGCONT) resumed, and every message arrives, in order; a message the mesh can never
 * carry raises in the sender; a receiver killed (SIGKILL) while a sender waits ends the
 * wait with an error raised in the sender and one log line for the burst. Every wait is
 * bounded, and the child is killed by its pid when a test ends.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMeshNode, createIdentity, createMemoryLogger } from '@termite/mesh';
import { createNode } from '../src/index.js';
import { Distribution } from '../src/distribution.js';
import { ErrorObject } from '@termite/scheme';
import { Pid } from '../src/termite-values.js';

const TOKEN = 'send-backpressure-test-token';
const RECEIVER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'send-backpressure-receiver.js');

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
 * Resolve once `cond()` holds, checked every 2 ms for at most `ms`.
 * @param {() => boolean} cond @param {number} ms @param {string} what
 */
async function until(cond, ms, what) {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * The receiving node, started in a child process; resolves once it listens.
 * @param {number} expected the count of [i, bytes] messages it reports on
 */
async function startReceiver(expected) {
  const child = spawn(process.execPath, [RECEIVER, '--receive', TOKEN, String(expected)], { stdio: ['pipe', 'pipe', 'inherit'] });
  /** @type {any[]} */
  const lines = [];
  /** @type {(() => void)[]} */
  let waiters = [];
  createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) }).on('line', (l) => {
    lines.push(JSON.parse(l));
    for (const w of waiters) w();
  });
  /**
   * The first line `pred` accepts, waiting for at most `ms`.
   * @param {(l: any) => boolean} pred @param {number} ms @param {string} what @returns {Promise<any>}
   */
  const line = (pred, ms, what) => within(new Promise((resolve) => {
    const check = () => {
      const found = lines.find(pred);
      if (found !== undefined) {
        waiters = waiters.filter((w) => w !== check);
        resolve(found);
      }
    };
    waiters.push(check);
    check();
  }), ms, what);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const ready = await line((l) => l.ready, 30_000, 'the receiving node listening');
  const pid = /** @type {number} */ (child.pid);
  return {
    pid: new Pid(ready.node, ready.n),
    address: ready.address,
    line,
    pause: () => process.kill(pid, 'SIGSTOP'),
    resume: () => process.kill(pid, 'SIGCONT'),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await within(exited, 10_000, 'the receiving node exiting');
    },
  };
}

/**
 * A sending node `a` in this process (its mesh queue bounded by `maxQueueBytes`) linked
 * to a receiving node in a child.
 * @param {{maxQueueBytes?: number, expected?: number}} [opts]
 */
async function senderAndReceiver(opts = {}) {
  const receiver = await startReceiver(opts.expected ?? 0);
  try {
    const meshA = createMeshNode({
      identity: await createIdentity(), token: TOKEN, webrtc: false, logger: createMemoryLogger(),
      join: [receiver.address], maxQueueBytes: opts.maxQueueBytes,
    });
    const joined = await meshA.start();
    assert.equal(joined.joined.length, 1, 'a joined the receiving node');
    /** @type {string[]} */
    const logA = [];
    const a = /** @type {any} */ (await createNode({ id: meshA.id, log: (s) => logA.push(s) }));
    const distA = new Distribution(a, meshA, { log: (s) => logA.push(s) });
    const stop = async () => {
      a.stop();
      await meshA.stop();
      await receiver.kill();
    };
    return { a, meshA, distA, logA, receiver, stop };
  } catch (e) {
    await receiver.kill();
    throw e;
  }
}

/**
 * Start the procedure `source` evaluates to on `node` with `args`; resolves with how
 * the process ended.
 * @param {any} node @param {string} source @param {any[]} args
 * @returns {Promise<{proc: any, ended: Promise<{ok: boolean, value: any}>}>}
 */
async function spawnProcedure(node, source, args) {
  const r = await node.runProgram(source, { file: 'sender.scm' });
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

test('a burst of 2,000 messages of 64 KiB through a 1 MiB queue to a stopped receiver: the sender is held and resumed, and every message arrives once, in order', { timeout: 120_000 }, async () => {
  const n = await senderAndReceiver({ maxQueueBytes: 1024 * 1024, expected: 2000 });
  try {
    n.receiver.pause(); // it reads nothing now: the queue fills, whatever the load
    const { ended } = await spawnProcedure(n.a, BURST, [n.receiver.pid, 2000, 65536]);
    await until(() => n.a.stats.sendHolds >= 1, 20_000, 'the sender held behind the full queue');
    assert.ok(n.distA.stats.backPressured >= 1 && n.distA.stats.queued >= 1, `the queue was full (${JSON.stringify(n.distA.stats)})`);
    n.receiver.resume();
    const end = await within(ended, 60_000, 'the sender ending');
    assert.equal(end.ok, true, `the sender died: ${end.value?.message ?? end.value}`);
    const report = await n.receiver.line((l) => l.got !== undefined, 60_000, 'all 2,000 messages arriving');
    assert.deepEqual(report, { got: 2000, inOrder: true, damaged: 0 }, 'every sequence number once, in order, intact');
    assert.equal(n.distA.stats.dropped, 0);
    assert.equal(n.distA.outboxes.size, 0, 'nothing left waiting');
    assert.deepEqual(n.logA.filter((l) => l.includes('not sent')), []);
  } finally {
    await n.stop();
  }
});

test('a message larger than the mesh\'s frame limit raises in the sender, naming the node, the size and the limit; the link keeps working', { timeout: 60_000 }, async () => {
  const n = await senderAndReceiver();
  try {
    const { ended } = await spawnProcedure(n.a, `(lambda (to)
      (let ((r (guard (e (#t (list 'raised (error-object-message e))))
                 (! to (make-bytevector 73400320 7))
                 'no-error)))
        (! to 'after)
        r))`, [n.receiver.pid]);
    const end = await within(ended, 20_000, 'the sender ending');
    assert.equal(end.ok, true, String(end.value?.message ?? end.value));
    const [tag, message] = [end.value.car, end.value.cdr.car];
    assert.equal(tag.name, 'raised');
    assert.match(message, new RegExp(`^message to process ${n.receiver.pid.n} on node ${n.receiver.pid.node.slice(0, 12)} not sent: its frame of 734\\d{5} bytes \\(70 MiB\\) exceeds the mesh's limit of 67108864 bytes \\(64 MiB\\)$`));
    const after = await n.receiver.line((l) => l.symbol !== undefined, 10_000, 'the message after it arriving');
    assert.deepEqual(after, { symbol: 'after', count: 0 }, 'the message after it, and nothing before it');
    assert.equal(n.logA.filter((l) => l.includes('FrameTooLargeError')).length, 1, n.logA.join('\n'));
    assert.equal(n.distA.stats.dropped, 1);
  } finally {
    await n.stop();
  }
});

test('the receiving node goes away (killed) while the sender waits for room: the wait ends with an error raised in the sender, and the burst is logged in few lines', { timeout: 60_000 }, async () => {
  const n = await senderAndReceiver({ maxQueueBytes: 1024 * 1024 });
  try {
    n.receiver.pause();
    const { ended } = await spawnProcedure(n.a, BURST, [n.receiver.pid, 2000, 65536]);
    await until(() => n.a.stats.sendHolds >= 1, 20_000, 'the sender held behind the full queue');
    await n.receiver.kill(); // its socket closes with it
    const end = await within(ended, 20_000, 'the sender ending');
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
    n.a.signal(new Pid(n.receiver.pid.node, n.receiver.pid.n), 'gone');
    assert.equal(n.distA.stats.dropped, dropped + 1);
  } finally {
    await n.stop();
  }
});

test('a JS process learns the same: send returns false behind a full queue, sendReady settles once it has room, and nothing is lost', { timeout: 120_000 }, async () => {
  const n = await senderAndReceiver({ maxQueueBytes: 1024 * 1024, expected: 2000 });
  try {
    n.receiver.pause();
    const to = n.receiver.pid;
    let waits = 0;
    /** @type {Promise<void>} */
    const done = new Promise((resolve, reject) => n.a.spawnJs(async (/** @type {any} */ self) => {
      try {
        for (let i = 0; i < 2000; i++) {
          const bytes = new Uint8Array(65536).fill(i % 256);
          if (!self.send(to, [i, bytes])) {
            waits++;
            await self.sendReady(to);
          }
        }
        resolve();
      } catch (e) {
        reject(e);
      }
    }));
    await until(() => waits >= 1, 20_000, 'send returning false behind the full queue');
    n.receiver.resume();
    await within(done, 60_000, 'the JS sender ending');
    const report = await n.receiver.line((l) => l.got !== undefined, 60_000, 'all 2,000 messages arriving');
    assert.deepEqual(report, { got: 2000, inOrder: true, damaged: 0 });
    assert.equal(n.distA.stats.dropped, 0);
  } finally {
    await n.stop();
  }
});
