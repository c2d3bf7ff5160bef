// @ts-check
/**
 * Hostile input from an admitted peer: each bad frame gets an ERROR frame
 * back naming the problem, a log line, and the node keeps serving its other
 * peers — and that peer too, unless it exceeds the error budget or sends a
 * message above the transport's hard limit.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { admittedRaw, nodeFactory, nextEvent, nextMessage, within } from './helpers.js';
import { T, VERSION, encodeChunk, encodeHello, encodeMsg, encodeRoute } from '../src/frames.js';
import { Writer } from '../src/cbor-lite.js';
import { randomBytes } from '../src/bytes.js';

const nodes = nodeFactory();
after(() => nodes.stopAll());

/** A node A, a well-behaved peer B connected to it, and a hostile admitted raw peer H. */
async function setup(extra = {}) {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, ...extra });
  a.onRequest((_from, p) => p.slice().reverse());
  const b = await nodes.start();
  await b.connect(a.addresses()[0]);
  const h = await admittedRaw(a.addresses()[0]);
  const stillServing = async () => {
    const res = await b.request(a.id, new Uint8Array([1, 2, 3]), { timeoutMs: 3000 });
    assert.deepEqual([...res], [3, 2, 1], 'A still answers B');
  };
  return { a, b, h, stillServing };
}

/** @param {any} node @param {string} name */
function logged(node, name) {
  return node.logs.some((/** @type {any} */ e) => e.message === 'bad frame from peer' && e.fields?.error === name);
}

test('bad frames from an admitted peer each get an ERROR frame naming the problem, and both peers are still served', async () => {
  const { a, h, stillServing } = await setup();
  /** @type {Array<[Uint8Array | string, string, RegExp]>} */
  const cases = [
    [randomBytes(100).map((x, i) => (i === 0 ? 0xff : x)), 'MalformedFrameError', /frame envelope: expected array at byte 0/],
    [encodeMsg(new Uint8Array(1000)).subarray(0, 500), 'MalformedFrameError', /truncated frame: MSG payload at byte 3 declares 1000 bytes, 494 left/],
    [new Uint8Array([0x83, VERSION, 0x18, 0xc8, 0x00]), 'UnknownFrameTypeError', /unknown frame type 200/],
    [new Uint8Array([0x83, VERSION, 0x06, 0xd8, 0x2a, 0x40]), 'UnknownTagError', /unknown CBOR tag 42 at byte 3/],
    [new Uint8Array([0x83, 0x01, 0x06, 0x40]), 'ProtocolVersionError', /protocol version 1 is not supported \(this node speaks version 2\)/],
    ['{"hello": "json"}', 'MalformedFrameError', /text message of 17 bytes/],
    [encodeHello({ nodeId: h.id, publicKey: randomBytes(32), nonce: randomBytes(32), role: 0, maxMessageBytes: 4096, listenUrl: null }), 'UnexpectedFrameError', /HELLO after admission/],
    [encodeChunk(5, 3, 1000, new Uint8Array(10)), 'ChunkOrderError', /chunk 3 of message 5 arrived out of order: no chunked message is in progress/],
    [encodeChunk(6, 0, 2 ** 40, new Uint8Array(10)), 'FrameTooLargeError', /chunked frame \(message 6\) of 1099511627776 bytes exceeds the limit of 67108864 bytes/],
    [encodeRoute('x', h.id, 3, encodeMsg(new Uint8Array(1))), 'MalformedFrameError', /ROUTE with an invalid node id/],
    [new Writer().array(3).uint(VERSION).uint(T.PING).text('seven').finish(), 'MalformedFrameError', /PING sequence number: expected unsigned integer at byte 3, found text string/],
  ];
  for (const [frame, name, message] of cases) {
    if (typeof frame === 'string') /** @type {any} */ (h.conn).ws.send(frame);
    else h.conn.send(frame);
    const e = await h.nextError();
    assert.equal(e.name, name, `error name for ${message}`);
    assert.match(e.message, message);
    assert.equal(e.fatal, false);
    assert.ok(logged(a, name), `logged ${name}`);
  }
  // The hostile peer is still connected and its good frames are delivered.
  const got = nextMessage(a, (from) => from === h.id);
  h.conn.send(encodeMsg(new Uint8Array([42])));
  assert.deepEqual([...(await got).payload], [42]);
  await stillServing();
});

test('a message above the transport limit gets FrameTooLargeError; one above the hard limit closes only that connection', async () => {
  const { a, h, stillServing } = await setup({ websocket: { maxMessageBytes: 64 * 1024, hardLimitBytes: 256 * 1024 } });
  h.conn.maxMessageBytes = 1 << 20; // lift our own send limit to play the attacker
  h.conn.send(encodeMsg(new Uint8Array(100 * 1024)));
  const e = await h.nextError();
  assert.equal(e.name, 'FrameTooLargeError');
  assert.match(e.message, /websocket message of 102408 bytes exceeds the limit of 65536 bytes/);
  assert.equal(e.refType, T.MSG);
  const down = nextEvent(a, 'peer:down', (d) => d.id === h.id);
  h.conn.send(encodeMsg(new Uint8Array(300 * 1024)));
  assert.match((await down).reason, /message too big: Max payload size exceeded/);
  await stillServing();
});

test('bytes on an admitted connection\'s socket that are not a WebSocket frame close only that connection (1002); the others are still served', async () => {
  const { a, h, stillServing } = await setup();
  const down = nextEvent(a, 'peer:down', (d) => d.id === h.id);
  // a masked frame with reserved opcode 0xB: not carried by A's frame reader, so ws's Receiver gets it
  /** @type {any} */ (h.conn).ws._socket.write(Buffer.from([0x8b, 0x82, 1, 2, 3, 4, 5, 6]));
  assert.match((await down).reason, /code 1002|Invalid opcode/i);
  await stillServing();
});

test('a peer that exceeds the error budget gets a fatal TooManyErrorsError and is disconnected; the others are still served', async () => {
  const { a, h, stillServing } = await setup({ errorBudget: 5 });
  const down = nextEvent(a, 'peer:down', (d) => d.id === h.id);
  for (let i = 0; i < 6; i++) h.conn.send(randomBytes(8).map((x, j) => (j === 0 ? 0xff : x)));
  /** @type {any} */
  let e;
  for (let i = 0; i < 6; i++) {
    e = await h.nextError();
    if (e.fatal) break;
  }
  assert.equal(e.name, 'TooManyErrorsError');
  assert.equal(e.fatal, true);
  assert.match((await down).reason, /6 protocol errors within 10000 ms/);
  await within(h.conn.closed, 5000, 'hostile connection closed');
  await stillServing();
});

test('an ERROR frame is never answered with an ERROR frame', async () => {
  const { a, h, stillServing } = await setup();
  const reported = nextEvent(a, 'peer:error', (d) => d.id === h.id);
  h.conn.send(new Writer().array(6).uint(VERSION).uint(T.ERROR).text('MadeUpError').text('just saying').bool(false).null().finish());
  const d = await reported;
  assert.equal(d.name, 'MadeUpError');
  // A broken ERROR frame is logged but not answered either.
  h.conn.send(new Writer().array(6).uint(VERSION).uint(T.ERROR).uint(5).text('x').bool(false).null().finish());
  await h.roundTrip(99); // anything A sent in reply would have arrived before this PONG
  assert.equal(h.errors.length, 0, 'no ERROR frame came back');
  assert.ok(logged(a, 'MalformedFrameError'));
  await stillServing();
});
