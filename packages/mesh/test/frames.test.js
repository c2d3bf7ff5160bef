// @ts-check
/**
 * Frames: every type round-trips; the decoder is strict and names what is
 * wrong; hostile bytes only ever produce the named errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  T, VERSION, decodeFrame, encodeAccept, encodeAuth, encodeBye, encodeChunk, encodeError, encodeGossip, encodeHello,
  encodeIdPayload, encodeMsg, encodePing, encodePong, encodeResErr, encodeRoute, encodeSignal, encodeSwitch, encodeSwitchAck,
  msgPayload, peekType,
} from '../src/frames.js';
import { Writer } from '../src/cbor-lite.js';
import { bytes } from './helpers.js';

const ID_A = 'a'.repeat(32);
const ID_B = 'b'.repeat(32);
const NAMED = new Set(['MalformedFrameError', 'ProtocolVersionError', 'UnknownFrameTypeError', 'UnknownTagError']);

test('every frame type round-trips through encode and decode', () => {
  const pk = bytes(32, 1);
  const nonce = bytes(32, 2);
  const cases = [
    [encodeHello({ nodeId: ID_A, publicKey: pk, nonce, role: 1, maxMessageBytes: 262144, listenUrl: 'ws://127.0.0.1:7400/' }),
      { type: T.HELLO, nodeId: ID_A, publicKey: pk, nonce, role: 1, maxMessageBytes: 262144, listenUrl: 'ws://127.0.0.1:7400/' }],
    [encodeHello({ nodeId: ID_A, publicKey: pk, nonce, role: 0, maxMessageBytes: 1024, listenUrl: null }),
      { type: T.HELLO, nodeId: ID_A, publicKey: pk, nonce, role: 0, maxMessageBytes: 1024, listenUrl: null }],
    [encodeAuth(nonce, bytes(32, 3), bytes(64, 4)), { type: T.AUTH, echoNonce: nonce, mac: bytes(32, 3), signature: bytes(64, 4) }],
    [encodeAccept(), { type: T.ACCEPT }],
    [encodeError('FrameTooLargeError', 'too big', false, T.MSG), { type: T.ERROR, name: 'FrameTooLargeError', message: 'too big', fatal: false, refType: T.MSG }],
    [encodeError('AdmissionError', 'admission refused: bad token', true, null), { type: T.ERROR, name: 'AdmissionError', message: 'admission refused: bad token', fatal: true, refType: null }],
    [encodePing(7), { type: T.PING, seq: 7 }],
    [encodePong(2 ** 40), { type: T.PONG, seq: 2 ** 40 }],
    [encodeMsg(bytes(300)), { type: T.MSG, payload: bytes(300) }],
    [encodeMsg(new Uint8Array(0)), { type: T.MSG, payload: new Uint8Array(0) }],
    [encodeIdPayload(T.REQ, 70000, bytes(5)), { type: T.REQ, id: 70000, payload: bytes(5) }],
    [encodeIdPayload(T.RES, 1, bytes(0)), { type: T.RES, id: 1, payload: bytes(0) }],
    [encodeResErr(9, 'RemoteError', 'boom'), { type: T.RES_ERR, id: 9, name: 'RemoteError', message: 'boom' }],
    [encodeChunk(3, 2, 1_000_000, bytes(100)), { type: T.CHUNK, msgId: 3, index: 2, total: 1_000_000, part: bytes(100) }],
    [encodeRoute(ID_B, ID_A, 4, encodeMsg(bytes(3))), { type: T.ROUTE, dst: ID_B, src: ID_A, hopsLeft: 4, inner: encodeMsg(bytes(3)) }],
    [encodeGossip(5, [[ID_A, 'ws://x/'], [ID_B, null]]), { type: T.GOSSIP, seq: 5, entries: [[ID_A, 'ws://x/'], [ID_B, null]] }],
    [encodeSignal('s1', 'candidate', 'candidate:1 1 udp 1 127.0.0.1 5000 typ host', '0'), { type: T.SIGNAL, session: 's1', kind: 'candidate', a: 'candidate:1 1 udp 1 127.0.0.1 5000 typ host', b: '0' }],
    [encodeSignal('s1', 'bye', null, null), { type: T.SIGNAL, session: 's1', kind: 'bye', a: null, b: null }],
    [encodeSwitch(11), { type: T.SWITCH, epoch: 11 }],
    [encodeSwitchAck(11), { type: T.SWITCH_ACK, epoch: 11 }],
    [encodeBye('node stopping'), { type: T.BYE, reason: 'node stopping' }],
  ];
  for (const [bytes_, expected] of cases) {
    const got = /** @type {any} */ (decodeFrame(/** @type {Uint8Array} */ (bytes_)));
    const norm = (/** @type {any} */ o) => JSON.parse(JSON.stringify(o, (_k, v) => (v instanceof Uint8Array ? [...v] : v)));
    assert.deepEqual(norm(got), norm(expected));
    assert.equal(peekType(/** @type {Uint8Array} */ (bytes_)), /** @type {any} */ (expected).type);
  }
});

test('the MSG fast path reads exactly the frames the full decoder accepts as MSG', () => {
  for (const n of [0, 1, 23, 24, 255, 256, 65535, 65536, 300_000]) {
    const f = encodeMsg(bytes(n, n));
    const p = msgPayload(f);
    assert.ok(p);
    assert.deepEqual([...p], [...bytes(n, n)]);
  }
  const f = encodeMsg(bytes(10));
  assert.equal(msgPayload(f.subarray(0, f.length - 1)), null, 'truncated');
  assert.equal(msgPayload(new Uint8Array([...f, 0])), null, 'trailing byte');
  assert.equal(msgPayload(encodePing(1)), null, 'not a MSG');
});

test('the envelope is deterministic CBOR: [version, type, ...fields] with shortest heads', () => {
  assert.equal(VERSION, 2);
  assert.deepEqual([...encodePing(1)], [0x83, VERSION, 0x04, 0x01]);
  assert.deepEqual([...encodeMsg(new Uint8Array([0xaa]))], [0x83, VERSION, 0x06, 0x41, 0xaa]);
  assert.deepEqual([...encodeAccept()], [0x82, VERSION, 0x02]);
});

/** @param {Uint8Array} b @param {string} name @param {RegExp} msg */
function refuses(b, name, msg) {
  assert.throws(() => decodeFrame(b), (/** @type {any} */ e) => e.name === name && msg.test(e.message), `${name} ${msg}`);
}

test('the decoder refuses malformed envelopes and says what and where', () => {
  refuses(new Uint8Array(0), 'MalformedFrameError', /empty frame/);
  refuses(new Uint8Array([0xa1, 0x01, 0x02]), 'MalformedFrameError', /frame envelope: expected array at byte 0, found map/);
  refuses(encodeMsg(bytes(10)).subarray(0, 8), 'MalformedFrameError', /truncated frame: MSG payload at byte 3 declares 10 bytes, 4 left/);
  refuses(new Uint8Array([...encodePing(1), 0x00]), 'MalformedFrameError', /PING frame: 1 trailing bytes/);
  refuses(new Uint8Array([0x83, 0x01, 0x04, 0x01]), 'ProtocolVersionError', /^protocol version 1 is not supported \(this node speaks version 2\)$/);
  refuses(new Uint8Array([0x83, 0x03, 0x04, 0x01]), 'ProtocolVersionError', /^protocol version 3 is not supported \(this node speaks version 2\)$/);
  refuses(new Uint8Array([0x83, VERSION, 0x18, 0x63, 0x01]), 'UnknownFrameTypeError', /unknown frame type 99/);
  refuses(new Uint8Array([0x83, VERSION, 0x06, 0xd9, 0xa0, 0x00, 0x41, 0x00]), 'UnknownTagError', /unknown CBOR tag 40960 at byte 3/);
  refuses(new Uint8Array([0x84, VERSION, 0x04, 0x01, 0x02]), 'MalformedFrameError', /PING frame has 2 fields, expected 1/);
  refuses(new Uint8Array([0x9f, VERSION, 0x04, 0x01, 0xff]), 'MalformedFrameError', /indefinite length/);
  refuses(new Uint8Array([0x83, VERSION, 0x04, 0x1c]), 'MalformedFrameError', /reserved additional information 28/);
  refuses(new Uint8Array([0x83, VERSION, 0x04, 0x1b, 0xff, 0, 0, 0, 0, 0, 0, 0]), 'MalformedFrameError', /exceeds 2\^53 - 1/);
  refuses(new Writer().array(3).uint(VERSION).uint(T.MSG).text('not bytes').finish(), 'MalformedFrameError', /MSG payload: expected byte string at byte 3, found text string/);
  refuses(new Writer().array(5).uint(VERSION).uint(T.AUTH).bytes(bytes(31)).bytes(bytes(32)).bytes(bytes(64)).finish(), 'MalformedFrameError', /AUTH echoed nonce is 31 bytes, expected 32/);
  refuses(new Writer().array(3).uint(VERSION).uint(T.BYE).head(3, 2).bytes(new Uint8Array(0)).finish().subarray(0, 3), 'MalformedFrameError', /truncated/);
  const badUtf8 = new Uint8Array([0x83, VERSION, 0x10, 0x62, 0xff, 0xfe]);
  refuses(badUtf8, 'MalformedFrameError', /BYE reason at byte 3 is not valid UTF-8/);
});

test('random and mutated bytes only ever produce the named frame errors', () => {
  let seed = 12345;
  const rnd = () => { seed = (seed * 1103515245 + 12345) >>> 0; return seed; };
  const valid = [encodePing(3), encodeMsg(bytes(40)), encodeGossip(1, [[ID_A, null]]), encodeRoute(ID_A, ID_B, 3, encodeMsg(bytes(2))),
    encodeHello({ nodeId: ID_A, publicKey: bytes(32), nonce: bytes(32), role: 0, maxMessageBytes: 4096, listenUrl: null })];
  let errors = 0;
  for (let i = 0; i < 20_000; i++) {
    let b;
    if (i % 2 === 0) {
      b = new Uint8Array(rnd() % 64);
      for (let j = 0; j < b.length; j++) b[j] = rnd() & 0xff;
    } else {
      b = valid[rnd() % valid.length].slice();
      const flips = 1 + (rnd() % 3);
      for (let k = 0; k < flips; k++) b[rnd() % b.length] = rnd() & 0xff;
      if (rnd() % 4 === 0) b = b.subarray(0, rnd() % b.length);
    }
    try {
      decodeFrame(b);
    } catch (e) {
      errors++;
      assert.ok(NAMED.has(/** @type {Error} */ (e).name), `unexpected ${/** @type {Error} */ (e).name}: ${/** @type {Error} */ (e).message}`);
    }
  }
  assert.ok(errors > 10_000);
});
