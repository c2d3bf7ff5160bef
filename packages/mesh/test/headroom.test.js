// @ts-check
/**
 * Headroom (src/headroom.js): a payload given with spare bytes in front becomes a MSG
 * frame built in place (no copy), a large one is marked for the transport, and the TCP
 * writer then writes its head in front of it: one buffer, one write, read back intact.
 * Without spare bytes, or with too few, the frame is a copy and the payload's neighbours
 * are never touched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { encodeMsg, msgPayload } from '../src/frames.js';
import { hasHeadroom, TRANSPORT_HEADROOM } from '../src/headroom.js';
import { TcpFrameReader, TcpFrameWriter } from '../src/transports/tcp-frames.js';

/** A payload of n bytes with `room` free bytes in front of it, in a buffer of its own. @param {number} n @param {number} room */
function roomy(n, room) {
  const buf = new Uint8Array(room + n).fill(0xee, 0, room);
  const p = buf.subarray(room);
  for (let i = 0; i < n; i++) p[i] = i & 0xff;
  return p;
}

test('headroom: a MSG frame is built in place in front of a payload with spare bytes', () => {
  const p = roomy(65_536, 16);
  const f = encodeMsg(p, 16);
  assert.equal(f.buffer, p.buffer, 'the same buffer: no copy');
  assert.equal(f.byteOffset + f.length, p.byteOffset + p.length);
  assert.deepEqual(msgPayload(f), p);
  assert.ok(hasHeadroom(f), 'room left for the transport head');
  assert.ok(f.byteOffset >= TRANSPORT_HEADROOM);
  // the same bytes as a copy
  assert.deepEqual(Buffer.from(f), Buffer.from(encodeMsg(p.slice())));
});

test('headroom: too few spare bytes, or none, and the frame is a copy; small frames are not marked', () => {
  const p = roomy(65_536, 16);
  const f = encodeMsg(p, 2); // less than the envelope
  assert.notEqual(f.buffer, p.buffer);
  assert.ok(!hasHeadroom(f));
  assert.deepEqual(new Uint8Array(p.buffer, 0, 16), new Uint8Array(16).fill(0xee), 'nothing in front was written');
  const q = roomy(65_536, 16);
  const g = encodeMsg(q, 8); // the envelope fits (8), no room for the head
  assert.equal(g.buffer, q.buffer);
  assert.ok(!hasHeadroom(g));
  const s = roomy(100, 16);
  const h = encodeMsg(s, 16);
  assert.equal(h.buffer, s.buffer, 'built in place');
  assert.ok(!hasHeadroom(h), 'a small frame is not marked');
  // another view of a marked buffer is not taken for the marked frame
  assert.ok(!hasHeadroom(encodeMsg(p.slice(), 0)));
  const f2 = encodeMsg(roomy(65_536, 16), 16);
  assert.ok(!hasHeadroom(f2.subarray(1)));
});

test('headroom: the TCP writer puts its head in front of a marked frame and writes one buffer', () => {
  /** @type {Buffer[][]} */
  const calls = [];
  const sink = new Writable({
    write(chunk, _e, cb) { calls.push([chunk]); cb(); },
    writev(chunks, cb) { calls.push(chunks.map((c) => c.chunk)); cb(); },
  });
  const w = new TcpFrameWriter(/** @type {any} */ (sink));
  const f = encodeMsg(roomy(65_536, 16), 16);
  w.write(f);
  assert.equal(calls.length, 1);
  assert.equal(calls[0].length, 1, 'one buffer');
  assert.equal(calls[0][0].buffer, f.buffer, 'the frame\'s own buffer');
  assert.equal(calls[0][0].length, 4 + f.length);
  // behind a batch of small messages: one call, the batch then the frame with its head
  for (let i = 0; i < 20; i++) w.write(Buffer.alloc(10, i));
  const before = calls.length;
  const g = encodeMsg(roomy(20_000, 16), 16);
  w.write(g);
  assert.equal(calls.length, before + 1);
  assert.equal(calls.at(-1)?.at(-1)?.buffer, g.buffer);
  // everything reads back the same
  /** @type {Buffer[]} */
  const got = [];
  const r = new TcpFrameReader(1 << 20, (m) => got.push(Buffer.from(m)), () => assert.fail('not too large'));
  for (const c of calls) for (const b of c) r.push(b);
  assert.equal(got.length, 22);
  assert.deepEqual(got[0], Buffer.from(f));
  assert.deepEqual(got[21], Buffer.from(g));
});
