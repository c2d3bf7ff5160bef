// @ts-check
/**
 * Reassembly of chunked frames (src/chunking.js), with the frames a sender makes
 * (ChunkCursor, read back by decodeFrame): a frame is assembled once, each part copied
 * as it arrives into a buffer of the frame's exact size; a chunk 0 announcing far more
 * than it carries reserves at most RESERVE_FACTOR times its part, and the buffer grows
 * as parts arrive; the node's budget is charged with what is reserved and gets all of
 * it back when the frame completes, is dropped or is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChunkCursor, Reassembler, ReassemblyBudget, RESERVE_FACTOR } from '../src/chunking.js';
import { decodeFrame, encodeChunk } from '../src/frames.js';

/** @param {number} n */
function pattern(n) {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 7 + (i >> 11)) & 0xff;
  return b;
}

/** The CHUNK frames of `frame`, decoded as a receiver sees them. @param {Uint8Array} frame @param {number} maxMessageBytes @param {number} [msgId] */
function chunksOf(frame, maxMessageBytes, msgId = 1) {
  const out = [];
  const cursor = new ChunkCursor(frame, msgId, maxMessageBytes);
  for (let i = 0; i < 100_000 && !cursor.done; i++) out.push(/** @type {import('../src/frames.js').ChunkFrame} */ (decodeFrame(cursor.next())));
  assert.ok(cursor.done);
  return out;
}

/** @param {ReassemblyBudget} budget */
const reassembler = (budget) => new Reassembler({ maxFrameBytes: 64 * 1024 * 1024, budget, timeoutMs: 30_000 });

test('a chunked frame is assembled once, into a buffer of its exact size reserved at chunk 0', () => {
  const frame = pattern(5 * 1024 * 1024 + 123);
  const budget = new ReassemblyBudget(128 * 1024 * 1024);
  const r = reassembler(budget);
  const chunks = chunksOf(frame, 1024 * 1024);
  assert.equal(chunks.length, 6);
  /** @type {Uint8Array | null} */
  let whole = null;
  for (const [i, c] of chunks.entries()) {
    const errors = /** @type {Error[]} */ ([]);
    whole = r.push(c, 0, (e) => errors.push(e));
    assert.deepEqual(errors, []);
    if (i === 0) assert.equal(budget.used, frame.length, 'the whole frame reserved at chunk 0 (parts of 1 MiB)');
    if (i < chunks.length - 1) {
      assert.equal(whole, null);
      assert.equal(r.reserved, frame.length, 'never grown: no copy of what arrived');
    }
    c.part.fill(0); // the part was copied on arrival: the receive buffer may be reused
  }
  assert.ok(whole !== null);
  assert.equal(whole.length, frame.length);
  assert.equal(whole.buffer.byteLength, frame.length, 'the frame is the buffer: no copy at the end');
  assert.ok(Buffer.from(whole).equals(Buffer.from(frame)));
  assert.equal(budget.used, 0, 'all of it given back');
});

test('a chunk 0 announcing far more than it carries reserves at most RESERVE_FACTOR times its part; the buffer grows as parts arrive', () => {
  const budget = new ReassemblyBudget(128 * 1024 * 1024);
  const r = reassembler(budget);
  const frame = pattern(1024 * 1024);
  const chunks = chunksOf(frame, 1024); // parts of 1024 - CHUNK_OVERHEAD bytes
  const part = chunks[0].part.length;
  assert.equal(r.push(chunks[0], 0, assert.fail), null);
  assert.equal(budget.used, part * RESERVE_FACTOR, '40 bytes sent cannot reserve a megabyte');
  /** @type {Uint8Array | null} */
  let whole = null;
  let maxReserved = 0;
  for (const c of chunks.slice(1)) {
    whole = r.push(c, 0, assert.fail);
    maxReserved = Math.max(maxReserved, budget.used);
  }
  assert.ok(whole !== null);
  assert.ok(Buffer.from(whole).equals(Buffer.from(frame)), 'intact through every growth');
  assert.equal(whole.length, frame.length);
  assert.ok(maxReserved <= frame.length, `never more than the total reserved (${maxReserved})`);
  assert.equal(budget.used, 0);
});

test('the budget gets back what a dropped, refused or timed-out frame reserved', () => {
  const budget = new ReassemblyBudget(3 * 1024 * 1024);
  const r = reassembler(budget);
  const chunks = chunksOf(pattern(2 * 1024 * 1024), 1024 * 1024, 7);
  /** @type {Error[]} */
  const errors = [];
  const report = (/** @type {Error} */ e) => errors.push(e);
  r.push(chunks[0], 0, report);
  assert.equal(budget.used, 2 * 1024 * 1024);
  // another frame's chunk 0 in the middle: the first is dropped, the second reserved
  const other = chunksOf(pattern(2 * 1024 * 1024 + 10), 1024 * 1024, 8);
  r.push(other[0], 0, report);
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /chunk 0 of message 8 arrived while message 7 is incomplete/);
  assert.equal(budget.used, 2 * 1024 * 1024 + 10);
  // over the budget: refused, nothing more charged
  const third = new Reassembler({ maxFrameBytes: 64 * 1024 * 1024, budget, timeoutMs: 30_000 });
  third.push(chunksOf(pattern(2 * 1024 * 1024), 1024 * 1024, 9)[0], 0, report);
  assert.equal(errors.length, 2);
  assert.equal(errors[1].name, 'ReassemblyLimitError');
  assert.equal(budget.used, 2 * 1024 * 1024 + 10);
  // the frame in progress times out: its reservation comes back
  const e = r.expire(60_000);
  assert.ok(e !== null && e.name === 'ReassemblyTimeoutError');
  assert.equal(budget.used, 0);
  // a part that does not fit its declared total is refused and releases the reservation
  r.push(decodeChunk(encodeChunk(10, 0, 4000, new Uint8Array(3000))), 0, report);
  assert.equal(budget.used, 4000);
  r.push(decodeChunk(encodeChunk(10, 1, 4000, new Uint8Array(3000))), 0, report);
  assert.match(errors[errors.length - 1].message, /does not fit/);
  assert.equal(budget.used, 0);
});

/** @param {Uint8Array} bytes */
function decodeChunk(bytes) {
  return /** @type {import('../src/frames.js').ChunkFrame} */ (decodeFrame(bytes));
}
