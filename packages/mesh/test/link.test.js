// @ts-check
/**
 * The link's heartbeat bookkeeping and the connection's bufferedAmount bound: the parts
 * of the per-message path that are written for V8 (a field's representation that never
 * changes, a branch that runs before the code is optimized) must still behave.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { nodeFactory } from './helpers.js';
import { BaseConnection } from '../src/connection.js';

const nodes = nodeFactory();
after(() => nodes.stopAll());

test('a new link pings at its first heartbeat and keeps a round-trip time from the PONGs', async () => {
  const a = await nodes.start({ heartbeatIntervalMs: 50, peerTimeoutMs: 5000 });
  const b = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, heartbeatIntervalMs: 50, peerTimeoutMs: 5000 });
  await a.connect(b.addresses()[0]);
  const rtt = () => a.peers().find((p) => p.id === b.id)?.rttMs ?? null;
  assert.equal(rtt(), null, 'no round trip measured before the first PONG');
  // bounded wait for the condition: the first heartbeat (≤ 50 ms) sends the PING
  const t0 = Date.now();
  while (rtt() === null && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 10));
  const first = rtt();
  assert.ok(typeof first === 'number' && Number.isFinite(first) && first >= 0, `a round-trip time: ${first}`);
  assert.ok(Date.now() - t0 < 2000, `measured after ${Date.now() - t0} ms, not after a delayed first PING`);
  const info = a.peers().find((p) => p.id === b.id)?.links[0];
  assert.ok(info && typeof info.rttMs === 'number', 'the link reports it too');
});

/** A transport that records how often its buffer is read. */
class CountingConnection extends BaseConnection {
  reads = 0;
  buffered = 0;
  /** @type {Uint8Array[]} */
  sent = [];
  constructor() {
    super('websocket', 'outbound', 'test', 1 << 20);
  }

  get bufferedAmount() {
    this.reads++;
    return this.buffered;
  }

  /** @param {Uint8Array} data */
  _send(data) {
    this.sent.push(data);
  }

  _close() {
    this._closed('closed');
  }
}

test('a connection reads its transport\'s buffer at the first send and bufferedBelow, then only when the bound reaches the threshold', () => {
  const c = new CountingConnection();
  c.lowWaterMark = 10_000;
  c.send(new Uint8Array(100));
  assert.equal(c.reads, 1, 'the first send reads the transport');
  assert.equal(c.bufferedBelow(5_000), true);
  assert.equal(c.reads, 1, 'the bound after one message (164 B) says below without a reading');
  for (let i = 0; i < 20; i++) c.send(new Uint8Array(100));
  assert.equal(c.reads, 1, '21 messages (3,444 B with framing) stay under lowWaterMark: no reading');
  assert.equal(c.bufferedBelow(3_000), true, 'the bound passed 3,000, so the transport is read, and it says 0');
  assert.equal(c.reads, 2);
  c.buffered = 50_000; // the transport is slow now
  for (let i = 0; i < 70 && c.reads === 2; i++) c.send(new Uint8Array(100));
  assert.equal(c.reads, 3, 'a send reads the transport once the bound passes lowWaterMark');
  assert.equal(c._drainArmed, true, 'and arms the drain, the buffer being above lowWaterMark');
  assert.equal(c.bufferedBelow(20_000), false, 'a full buffer is never hidden by the bound');
  const fresh = new CountingConnection();
  assert.equal(fresh.bufferedBelow(1 << 20), true);
  assert.equal(fresh.reads, 1, 'bufferedBelow before any send reads the transport');
});
