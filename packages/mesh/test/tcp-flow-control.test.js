// @ts-check
/**
 * Flow control on a TLS link: a fast producer sends 10,000,000 messages of 16 bytes to a
 * slow receiver in another process (fixtures/slow-receiver.js), sending while
 * `canSend` says there is room and waiting for 'drain' when it says not. What holds
 * memory down: the receiver reads only as fast as it handles messages, TCP's window
 * stops the sender's kernel, the link's queue (maxQueueBytes) fills, and `canSend`
 * turns false. Asserts: every message arrives, in order; the producer was held back;
 * the receiver's resident memory grew by less than 96 MiB (10 million messages held
 * would be well over 500 MiB); what the producer's link held (its queue and the
 * transport's buffer, sampled whenever it was held back) never exceeded the link's
 * budget, maxQueueBytes + sendHighWaterMark and a batch. (The producer's resident
 * memory is not a measure of this: it is mostly garbage of the send loop.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createMeshNode, createIdentity, createMemoryLogger } from '../src/index.js';
import { TOKEN, within } from './helpers.js';

const N = 10_000_000;
const receiverJs = fileURLToPath(new URL('./fixtures/slow-receiver.js', import.meta.url));

test('a slow receiver keeps both sides\' memory bounded while a fast producer sends 10 million messages', { timeout: 300_000 }, async (t) => {
  const child = spawn(process.execPath, ['--expose-gc', receiverJs, String(N), TOKEN], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  /** @type {() => void} */
  let wake = () => {};
  child.stdout.on('data', (d) => { out += d; wake(); });
  const line = async (/** @type {RegExp} */ re, /** @type {number} */ ms) => {
    const t0 = Date.now();
    for (let m = re.exec(out); ; m = re.exec(out)) {
      if (m) return m;
      if (child.exitCode !== null || Date.now() - t0 > ms) throw new Error(`receiver: no ${re} (exit ${child.exitCode}): ${out}`);
      await within(new Promise((r) => { wake = () => r(undefined); }), ms, `receiver output ${re}`).catch(() => {});
    }
  };
  const producer = createMeshNode({ identity: await createIdentity(), token: TOKEN, tcp: {}, logger: createMemoryLogger() });
  await producer.start();
  try {
    const url = (await line(/^listening (\S+)$/m, 20_000))[1];
    const peer = await producer.connect(url);
    assert.equal(peer.links[0].transport, 'tcp');
    let held = 0;
    let peakHeld = 0;
    const msg = new Uint8Array(16);
    /** @type {(() => void) | null} */
    let drained = null;
    producer.on('drain', (e) => { if (e.id === peer.id) drained?.(); });
    for (let i = 0; i < N;) {
      if (!producer.canSend(peer.id)) {
        held++;
        const l = producer.peers()[0]?.links[0];
        if (l) peakHeld = Math.max(peakHeld, l.queuedBytes + l.bufferedBytes);
        await within(new Promise((r) => { drained = () => r(undefined); }), 30_000, `drain after ${i} messages`);
        continue;
      }
      msg[0] = i >>> 24; msg[1] = (i >>> 16) & 0xff; msg[2] = (i >>> 8) & 0xff; msg[3] = i & 0xff;
      assert.equal(producer.send(peer.id, msg), true);
      i++;
      if ((i & 65535) === 0) await new Promise((r) => setImmediate(r)); // let the socket write
    }
    const done = await line(/^done (\d+) (\d+) ([\d.]+) ([\d.]+)$/m, 240_000);
    const [count, disorder, rxPeak, rxBase] = done.slice(1).map(Number);
    assert.equal(count, N, 'every message arrived');
    assert.equal(disorder, 0, 'in order');
    assert.ok(held > 0, 'the producer was held back by canSend');
    assert.ok(rxPeak - rxBase < 96, `receiver grew by ${(rxPeak - rxBase).toFixed(1)} MiB`);
    t.diagnostic(`receiver grew ${(rxPeak - rxBase).toFixed(1)} MiB; producer held back ${held} times, its link held at most ${peakHeld} bytes`);
    const budget = 8 * 1048576 + 1048576 + 65536; // the defaults of maxQueueBytes and sendHighWaterMark, and one write batch
    assert.ok(peakHeld > 0 && peakHeld <= budget, `the producer's link held at most ${peakHeld} bytes (budget ${budget})`);
  } finally {
    await producer.stop();
    child.kill();
  }
});
