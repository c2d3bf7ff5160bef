// @ts-check
/**
 * A received REQ or RES frame is read without the general decoder (frames.js
 * idPayloadFrame, used by link.js): for every well-formed one it gives what decodeFrame
 * gives, and for anything else null, so that decodeFrame (with its precise error) runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { T, VERSION, encodeIdPayload, encodeMsg, decodeFrame, idPayloadFrame } from '../src/frames.js';

/** @param {number} n */
function payload(n) {
  const p = new Uint8Array(n);
  for (let i = 0; i < n; i++) p[i] = (i * 13 + 5) & 0xff;
  return p;
}

test('a well-formed REQ or RES reads as decodeFrame reads it, at every head size of its id and payload', () => {
  const ids = [0, 1, 23, 24, 255, 256, 65535, 65536, 2 ** 32 - 1];
  const sizes = [0, 1, 23, 24, 255, 256, 65535, 65536];
  for (const type of /** @type {(7 | 8)[]} */ ([T.REQ, T.RES])) {
    for (const id of ids) {
      for (const n of sizes) {
        const frame = encodeIdPayload(type, id, payload(n));
        const fast = idPayloadFrame(frame);
        const full = /** @type {any} */ (decodeFrame(frame));
        assert.ok(fast !== null, `type ${type} id ${id} payload ${n}: read`);
        assert.equal(fast.type, full.type);
        assert.equal(fast.id, full.id);
        assert.deepEqual(new Uint8Array(fast.payload), new Uint8Array(full.payload), `type ${type} id ${id} payload ${n}: same bytes`);
        assert.equal(fast.payload.buffer, frame.buffer, 'the payload is a view of the frame');
      }
    }
  }
});

test('anything but a well-formed REQ or RES gives null (decodeFrame then says what is wrong)', () => {
  const good = encodeIdPayload(T.REQ, 300, payload(40));
  assert.equal(idPayloadFrame(encodeMsg(payload(40))), null, 'a MSG');
  assert.equal(idPayloadFrame(good.subarray(0, good.length - 1)), null, 'truncated payload');
  const longer = new Uint8Array(good.length + 1);
  longer.set(good);
  assert.equal(idPayloadFrame(longer), null, 'a byte after the payload');
  const otherVersion = good.slice();
  otherVersion[1] = VERSION + 1;
  assert.equal(idPayloadFrame(otherVersion), null, 'another protocol version');
  const textPayload = good.slice();
  textPayload[6] = (textPayload[6] & 31) | (3 << 5); // the payload's head as a text string
  assert.equal(idPayloadFrame(textPayload), null, 'a payload that is not a byte string');
  assert.throws(() => decodeFrame(textPayload), /payload/);
  const negativeId = good.slice();
  negativeId[3] = (negativeId[3] & 31) | (1 << 5); // the id as a negative integer
  assert.equal(idPayloadFrame(negativeId), null, 'an id that is not an unsigned integer');
  assert.throws(() => decodeFrame(negativeId));
  const fiveFields = good.slice();
  fiveFields[0] = 0x85;
  assert.equal(idPayloadFrame(fiveFields), null, 'an envelope of another length');
  assert.equal(idPayloadFrame(new Uint8Array([0x84, VERSION, T.REQ])), null, 'a frame that ends at its type');
  // an id of 2^32 or more has an 8-byte head: read by decodeFrame only
  const big = encodeIdPayload(T.RES, 2 ** 40, payload(3));
  assert.equal(idPayloadFrame(big), null);
  assert.equal(/** @type {any} */ (decodeFrame(big)).id, 2 ** 40);
});
