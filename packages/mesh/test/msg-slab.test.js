// @ts-check
/**
 * MSG frames without headroom, and REQ and RES frames, are carved from a shared slab up
 * to 4 KiB (frames.js frameBytes): a frame handed to a transport is never overwritten by
 * a later one, at any size up to the slab's limit and across slab refills; a larger
 * frame has a buffer of its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeMsg, msgPayload, encodeIdPayload, decodeFrame, T } from '../src/frames.js';

/** @param {number} n @param {number} seed */
function payload(n, seed) {
  const p = new Uint8Array(n);
  for (let i = 0; i < n; i++) p[i] = (seed * 31 + i * 7) & 0xff;
  return p;
}

test('MSG frames up to 4 KiB from the slab keep their bytes while later frames are made', () => {
  const sizes = [1, 23, 24, 255, 256, 1000, 1024, 1100, 2048, 4000, 4089, 4090, 5000, 70_000];
  /** @type {[Uint8Array, Uint8Array][]} */
  const made = [];
  // several slabs' worth: every size many times over, each frame kept as a transport would
  for (let round = 0; round < 20; round++) {
    for (const [k, n] of sizes.entries()) {
      const p = payload(n, round * 100 + k);
      made.push([encodeMsg(p), p]);
    }
  }
  for (const [i, [frame, p]] of made.entries()) {
    const got = msgPayload(frame);
    assert.ok(got !== null, `frame ${i} (${p.length} bytes) is a well-formed MSG`);
    assert.deepEqual(got, p, `frame ${i} (${p.length} bytes) kept its payload`);
  }
  // at most 4 KiB a frame shares a buffer; a larger one has its own
  const small = made.filter(([f]) => f.length <= 4096);
  const shared = small.filter(([f]) => f.buffer.byteLength > f.length);
  assert.ok(shared.length === small.length, `every frame up to 4 KiB is a view of a slab (${shared.length} of ${small.length})`);
  for (const [f] of made.filter(([x]) => x.length > 4096)) assert.equal(f.buffer.byteLength, f.length);
});

test('REQ and RES frames up to 4 KiB from the slab keep their ids and payloads while later frames are made', () => {
  const sizes = [0, 1, 23, 24, 359, 1024, 4080, 4100, 70_000];
  /** @type {[Uint8Array, 7 | 8, number, Uint8Array][]} */
  const made = [];
  // several slabs' worth, MSG frames in between (they share the slab)
  for (let round = 0; round < 20; round++) {
    for (const [k, n] of sizes.entries()) {
      const p = payload(n, round * 100 + k);
      const type = k % 2 === 0 ? T.REQ : T.RES;
      const id = round * 1000 + k * 37 + (k === 3 ? 70_000 : 0);
      made.push([encodeIdPayload(type, id, p), type, id, p]);
      encodeMsg(payload(100, k));
    }
  }
  for (const [i, [frame, type, id, p]] of made.entries()) {
    const f = /** @type {any} */ (decodeFrame(frame));
    assert.equal(f.type, type, `frame ${i}: its type`);
    assert.equal(f.id, id, `frame ${i}: its id`);
    assert.deepEqual(new Uint8Array(f.payload), p, `frame ${i} (${p.length} bytes) kept its payload`);
  }
  const small = made.filter(([f]) => f.length <= 4096);
  assert.ok(small.every(([f]) => f.buffer.byteLength > f.length), 'every REQ and RES frame up to 4 KiB is a view of a slab');
  for (const [f] of made.filter(([x]) => x.length > 4096)) assert.equal(f.buffer.byteLength, f.length);
});
