// @ts-check
/**
 * The binary frames the Node WebSocket transport reads and writes itself
 * (transports/ws-frames.js): the codec on byte streams cut every way, the hand-over
 * to ws at every frame kind it does not carry, and real sockets against plain `ws`
 * peers that frame every message with ws's own Sender and Receiver; a reply kept under
 * a hold leaves before what ws writes once the reader handed it the stream.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket, WebSocketServer } from 'ws';
import { FrameReader, applyMask, writeBinaryFrame } from '../src/transports/ws-frames.js';
import { webSocketTransport } from '../src/transports/websocket.js';
import { createMemoryLogger } from '../src/logger.js';
import { within } from './helpers.js';

/** A byte sink with a socket's write/cork/uncork: what writeBinaryFrame calls. */
function sink() {
  /** @type {Buffer[]} */
  const parts = [];
  const s = { write: (/** @type {Uint8Array} */ b) => { parts.push(Buffer.from(b)); return true; }, cork() {}, uncork() {} };
  return { socket: /** @type {any} */ (s), bytes: () => Buffer.concat(parts) };
}

/** @param {number} n @param {number} seed */
function pattern(n, seed) {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7) & 0xff;
  return b;
}

/** @param {boolean} masked @param {number} [max] */
function collect(masked, max = 1 << 24) {
  /** @type {Buffer[]} */
  const got = [];
  /** @type {Buffer[]} */
  const handed = [];
  const reader = new FrameReader(masked, max, (p) => got.push(Buffer.from(p)), (rest) => handed.push(Buffer.from(rest)));
  return { reader, got, handed };
}

test('applyMask XORs byte i with key[i mod 4] at every alignment and length, and undoes itself', () => {
  const key = [0x12, 0xab, 0x00, 0xff];
  for (const n of [0, 1, 3, 4, 5, 63, 64, 65, 127, 1000]) {
    for (let off = 0; off < 4; off++) {
      const buf = new Uint8Array(n + off + 3);
      for (let i = 0; i < buf.length; i++) buf[i] = (i * 13) & 0xff;
      const before = buf.slice();
      applyMask(buf, off, n, key[0], key[1], key[2], key[3]);
      for (let i = 0; i < buf.length; i++) {
        const want = i >= off && i < off + n ? before[i] ^ key[(i - off) & 3] : before[i];
        assert.equal(buf[i], want, `n=${n} off=${off} byte ${i}`);
      }
      applyMask(buf, off, n, key[0], key[1], key[2], key[3]);
      assert.deepEqual(buf, before);
    }
  }
});

test('frames of every length encoding come back whole from a stream cut at every byte or in random pieces', () => {
  const sizes = [0, 1, 125, 126, 127, 1000, 16 * 1024, 16 * 1024 + 1, 65535, 65536, 70000];
  for (const masked of [false, true]) {
    const out = sink();
    const sent = sizes.map((n, i) => pattern(n, i));
    for (const p of sent) writeBinaryFrame(out.socket, p, masked);
    const stream = out.bytes();
    // the heads: FIN+binary, the mask bit as asked, the shortest length encoding
    assert.equal(stream[0], 0x82);
    assert.equal((stream[1] & 0x80) !== 0, masked);
    // small frames, one byte at a time (every head and payload boundary)
    const small = collect(masked);
    const smallStream = stream.subarray(0, frameEnd(stream, 4));
    for (let i = 0; i < smallStream.length; i++) small.reader.push(Buffer.from(smallStream.subarray(i, i + 1)));
    assert.deepEqual(small.got, sent.slice(0, 4), `masked=${masked}: byte by byte`);
    // the whole stream, in pieces of pseudo-random sizes, 20 different cuttings
    for (let seed = 1; seed <= 20; seed++) {
      const c = collect(masked);
      let at = 0;
      let r = seed;
      while (at < stream.length) {
        r = (r * 1103515245 + 12345) & 0x7fffffff;
        const n = 1 + (r % (seed < 10 ? 40 : 90000));
        c.reader.push(Buffer.from(stream.subarray(at, at + n))); // a copy: frames are unmasked in place
        at += n;
      }
      assert.equal(c.got.length, sent.length, `masked=${masked} seed=${seed}`);
      for (let i = 0; i < sent.length; i++) assert.ok(c.got[i].equals(sent[i]), `masked=${masked} seed=${seed} message ${i}`);
      assert.equal(c.handed.length, 0);
    }
  }
});

/** End offset of the first `count` frames of an unmasked or masked stream. @param {Buffer} b @param {number} count */
function frameEnd(b, count) {
  let at = 0;
  for (let i = 0; i < count; i++) {
    let n = b[at + 1] & 0x7f;
    let head = 2;
    if (n === 126) { n = b.readUInt16BE(at + 2); head = 4; } else if (n === 127) { n = Number(b.readBigUInt64BE(at + 2)); head = 10; }
    if (b[at + 1] & 0x80) head += 4;
    at += head + n;
  }
  return at;
}

test('masked frames carry a fresh key each', () => {
  const out = sink();
  for (let i = 0; i < 3; i++) writeBinaryFrame(out.socket, pattern(10, 0), true);
  const b = out.bytes();
  const keys = [0, 1, 2].map((i) => b.subarray(i * 16 + 2, i * 16 + 6).toString('hex'));
  assert.equal(new Set(keys).size, 3, `keys ${keys.join(' ')}`);
});

test('the reader hands the stream over at the first frame it does not carry, from that frame\'s first byte', () => {
  /** @type {Array<[string, Buffer]>} */
  const kinds = [
    ['a text frame', Buffer.from([0x81, 0x02, 0x68, 0x69])],
    ['a ping', Buffer.from([0x89, 0x00])],
    ['a close', Buffer.from([0x88, 0x02, 0x03, 0xe8])],
    ['a first fragment', Buffer.from([0x02, 0x01, 0x07])],
    ['a frame with RSV1 (compressed)', Buffer.from([0xc2, 0x01, 0x07])],
    ['a masked frame where none may be', Buffer.from([0x82, 0x81, 1, 2, 3, 4, 0x07])],
    ['a frame above maxPayload', Buffer.from([0x82, 0x7e, 0x04, 0x01])],
    ['a 64-bit length above 2^53', Buffer.from([0x82, 0x7f, 0xff, 0, 0, 0, 0, 0, 0, 0])],
  ];
  for (const [what, frame] of kinds) {
    const c = collect(false, 1024);
    const before = Buffer.from([0x82, 0x01, 0x2a]);
    const after = Buffer.from([0x82, 0x01, 0x2b]);
    c.reader.push(Buffer.concat([before, frame, after]));
    assert.deepEqual(c.got, [Buffer.from([0x2a])], `${what}: the frame before it is delivered`);
    assert.equal(c.handed.length, 1, what);
    assert.ok(c.handed[0].equals(Buffer.concat([frame, after])), `${what}: handed over from its first byte`);
    assert.equal(c.reader.handedOver, true);
    assert.throws(() => c.reader.push(after), /after the stream was handed over/);
  }
  // a server's reader wants masked frames: an unmasked one goes to ws (which closes with 1002)
  const server = collect(true);
  server.reader.push(Buffer.from([0x82, 0x01, 0x2a]));
  assert.equal(server.handed.length, 1);
  assert.equal(server.got.length, 0);
});

test('random bytes never make the reader throw: it delivers, holds or hands over, and after a hand-over delivers nothing', () => {
  let r = 12345;
  const next = () => (r = (r * 1103515245 + 12345) & 0x7fffffff);
  for (let round = 0; round < 2000; round++) {
    const n = 1 + (next() % 300);
    const bytes = Buffer.alloc(n);
    for (let i = 0; i < n; i++) bytes[i] = next() & 0xff;
    // often a plausible head, so the frame paths are reached and not only the hand-over
    if (round % 2 === 0) bytes[0] = 0x82;
    let handedOver = 0;
    let afterHandOver = 0;
    const reader = new FrameReader(round % 4 < 2, 200, () => { if (handedOver > 0) afterHandOver++; }, () => { handedOver++; });
    for (let at = 0; at < n && !reader.handedOver;) {
      const k = 1 + (next() % 40);
      reader.push(bytes.subarray(at, at + k));
      at += k;
    }
    assert.ok(handedOver <= 1, `round ${round}: handed over ${handedOver} times`);
    assert.equal(afterHandOver, 0, `round ${round}`);
  }
});

// ------------------------------------------------------------ real sockets

/** Our listener, and a plain `ws` client to it that frames with ws's Sender and Receiver. */
async function listenerAndPlainClient(hardLimitBytes = 1 << 20) {
  const transport = webSocketTransport({ maxMessageBytes: 1 << 18, hardLimitBytes })({ logger: createMemoryLogger() });
  /** @type {(c: any) => void} */
  let accepted = () => {};
  const conn = new Promise((resolve) => { accepted = resolve; });
  const listener = transport.createListener({ onConnection: (c) => accepted(c) });
  await listener.listen({ host: '127.0.0.1', port: 0 });
  const client = new WebSocket(listener.addresses()[0], { perMessageDeflate: false });
  await within(new Promise((resolve, reject) => { client.once('open', resolve); client.once('error', reject); }), 5000, 'plain client open');
  const server = /** @type {any} */ (await within(conn, 5000, 'accepted connection'));
  return { server, client, listener };
}

/** @param {any} conn @param {number} n @returns {Promise<Array<[Uint8Array, boolean]>>} */
function received(conn, n) {
  /** @type {Array<[Uint8Array, boolean]>} */
  const got = [];
  return within(new Promise((resolve) => {
    conn.onmessage = (/** @type {Uint8Array} */ d, /** @type {boolean} */ t) => { got.push([Buffer.from(d), t]); if (got.length === n) resolve(got); };
  }), 10_000, `${n} messages`);
}

/** @param {WebSocket} ws @param {number} n @returns {Promise<Buffer[]>} */
function plainReceived(ws, n) {
  /** @type {Buffer[]} */
  const got = [];
  return within(new Promise((resolve) => {
    ws.on('message', (d) => { got.push(/** @type {Buffer} */ (d)); if (got.length === n) resolve(got); });
  }), 10_000, `${n} messages at the plain peer`);
}

test('a plain ws client and our listener exchange messages of every length encoding both ways', async () => {
  const { server, client, listener } = await listenerAndPlainClient();
  try {
    assert.deepEqual(server.framing, { reads: 'here', writes: 'here' });
    const sizes = [1, 125, 126, 65536, 200_000];
    const inbound = received(server, sizes.length);
    for (const [i, n] of sizes.entries()) client.send(pattern(n, i)); // masked by ws with random keys
    const got = await inbound;
    for (const [i, n] of sizes.entries()) assert.ok(Buffer.from(got[i][0]).equals(pattern(n, i)) && got[i][1] === false, `message ${i} (${n} bytes)`);
    const outbound = plainReceived(client, sizes.length);
    for (const [i, n] of sizes.entries()) server.send(pattern(n, i + 10)); // unmasked, ws's Receiver checks
    const back = await outbound;
    for (const [i, n] of sizes.entries()) assert.ok(back[i].equals(pattern(n, i + 10)), `reply ${i} (${n} bytes)`);
    assert.deepEqual(server.framing, { reads: 'here', writes: 'here' });
  } finally {
    client.terminate();
    await listener.close();
  }
});

test('our dial to a plain ws server: it accepts our masked frames and its replies come through', async () => {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await within(new Promise((resolve) => wss.once('listening', resolve)), 5000, 'listening');
  wss.on('connection', (ws) => ws.on('message', (d, isBinary) => ws.send(d, { binary: isBinary })));
  const port = /** @type {import('node:net').AddressInfo} */ (wss.address()).port;
  const transport = webSocketTransport({})({ logger: createMemoryLogger() });
  const conn = /** @type {any} */ (await transport.dial(`ws://127.0.0.1:${port}/`));
  try {
    assert.deepEqual(conn.framing, { reads: 'here', writes: 'here' });
    const sizes = [0, 7, 126, 70_000];
    const echoed = received(conn, sizes.length);
    for (const [i, n] of sizes.entries()) conn.send(pattern(n, i));
    const got = await echoed;
    for (const [i, n] of sizes.entries()) assert.ok(Buffer.from(got[i][0]).equals(pattern(n, i)), `echo ${i} (${n} bytes)`);
  } finally {
    conn.close('done');
    await new Promise((resolve) => wss.close(() => resolve(undefined)));
  }
});

test('after a ping, a fragmented message and a text message from the peer, ws reads on and nothing is lost or reordered', async () => {
  const { server, client, listener } = await listenerAndPlainClient();
  try {
    const inbound = received(server, 5);
    const pong = within(new Promise((resolve) => client.once('pong', resolve)), 5000, 'pong');
    client.send(Buffer.from([1]));
    client.ping(Buffer.from('are you there'));
    client.send(Buffer.from([2]));
    client.send(Buffer.from([3, 3]), { fin: false });
    client.send(Buffer.from([3]), { fin: true });
    client.send('four');
    client.send(Buffer.from([5]));
    assert.deepEqual(Buffer.from(/** @type {Buffer} */ (await pong)).toString(), 'are you there');
    const got = await inbound;
    assert.deepEqual(got.map(([d, t]) => [[...d], t]), [[[1], false], [[2], false], [[3, 3, 3], false], [[...Buffer.from('four')], true], [[5], false]]);
    assert.deepEqual(server.framing, { reads: 'ws', writes: 'here' });
    const back = plainReceived(client, 1);
    server.send(Buffer.from([6]));
    assert.deepEqual([...(await back)[0]], [6]);
  } finally {
    client.terminate();
    await listener.close();
  }
});

test('a frame above the hard limit closes the connection with 1009, and a peer\'s close reaches onclose with its code', async () => {
  const big = await listenerAndPlainClient(1000);
  try {
    const reason = within(new Promise((resolve) => { big.server.onclose = resolve; }), 5000, 'close');
    const code = within(new Promise((resolve) => big.client.once('close', resolve)), 5000, 'client close');
    big.client.send(Buffer.alloc(1001));
    assert.match(String(await reason), /message too big/);
    assert.equal(await code, 1009);
  } finally {
    big.client.terminate();
    await big.listener.close();
  }
  const polite = await listenerAndPlainClient();
  try {
    const inbound = received(polite.server, 1);
    const reason = within(new Promise((resolve) => { polite.server.onclose = resolve; }), 5000, 'close');
    polite.client.send(Buffer.from([9]));
    polite.client.close(1000, 'bye');
    assert.deepEqual([...(await inbound)[0][0]], [9]);
    assert.equal(await reason, 'closed by peer (code 1000: bye)');
  } finally {
    polite.client.terminate();
    await polite.listener.close();
  }
});

test('a reply kept under a hold leaves before the pong ws writes for a ping that follows it in the same chunk', async () => {
  const { server, client, listener } = await listenerAndPlainClient();
  try {
    // the server answers each message from the chunk's handler, under its hold (kept)
    server.onmessage = (/** @type {Uint8Array} */ d) => server.send(Buffer.from(d));
    /** @type {string[]} */
    const order = [];
    const done = within(new Promise((resolve) => {
      client.on('message', (d) => { order.push(`message ${[.../** @type {Buffer} */ (d)]}`); if (order.length === 2) resolve(undefined); });
      client.on('pong', () => { order.push('pong'); if (order.length === 2) resolve(undefined); });
    }), 5000, 'the reply and the pong');
    // one write, so the server reads the message and the ping in one chunk
    const socket = /** @type {any} */ (client)._socket;
    socket.cork();
    client.send(Buffer.from([7]));
    client.ping();
    socket.uncork();
    await done;
    assert.deepEqual(order, ['message 7', 'pong']);
    assert.deepEqual(server.framing, { reads: 'ws', writes: 'here' }, 'the ping handed the reading to ws');
  } finally {
    client.terminate();
    await listener.close();
  }
});
