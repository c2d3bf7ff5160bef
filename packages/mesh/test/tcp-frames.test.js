// @ts-check
/**
 * The TCP transport's framing (src/transports/tcp-frames.js) on its own: messages cut
 * at every possible place arrive whole and in order; an announced length above the
 * hard limit stops the reader before any of it is buffered; the writer's output
 * (messages written at once, then coalesced, then a large one) reads back the same.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { TcpFrameReader, TcpFrameWriter, readIntoOwnBuffers } from '../src/transports/tcp-frames.js';

/** @param {Buffer[]} messages */
function framed(messages) {
  return Buffer.concat(messages.flatMap((m) => { const h = Buffer.alloc(4); h.writeUInt32BE(m.length); return [h, m]; }));
}

const messages = [0, 1, 3, 4, 5, 100, 70_000, 2].map((n, i) => Buffer.alloc(n, i + 1));

test('tcp frames: a stream cut at every place yields the same messages, in order', () => {
  const stream = framed(messages);
  for (let cut = 0; cut <= stream.length; cut += cut < 200 ? 1 : 997) {
    /** @type {Buffer[]} */
    const got = [];
    const r = new TcpFrameReader(1 << 20, (m) => got.push(Buffer.from(m)), () => assert.fail('not too large'));
    r.push(stream.subarray(0, cut));
    r.push(stream.subarray(cut));
    assert.deepEqual(got, messages, `cut at ${cut}`);
  }
  // and one byte at a time
  /** @type {Buffer[]} */
  const got = [];
  const r = new TcpFrameReader(1 << 20, (m) => got.push(Buffer.from(m)), () => assert.fail('not too large'));
  for (let i = 0; i < stream.length; i++) r.push(stream.subarray(i, i + 1));
  assert.deepEqual(got, messages);
});

test('tcp frames: a length above the hard limit stops the reader at its head', () => {
  let tooLarge = -1;
  let delivered = 0;
  const r = new TcpFrameReader(1000, () => delivered++, (n) => { tooLarge = n; });
  r.push(framed([Buffer.alloc(10), Buffer.alloc(1001), Buffer.alloc(5)]));
  assert.equal(delivered, 1);
  assert.equal(tooLarge, 1001);
});

test('tcp frames: what the writer writes (at once, coalesced, large) reads back the same', async () => {
  /** @type {Buffer[]} */
  const written = [];
  const sink = new Writable({ write(chunk, _e, cb) { written.push(chunk); cb(); } });
  const w = new TcpFrameWriter(/** @type {any} */ (sink));
  const sent = [];
  for (let i = 0; i < 40; i++) sent.push(Buffer.alloc(i * 7, i));
  sent.push(Buffer.alloc(100_000, 9), Buffer.alloc(3, 8));
  for (const m of sent) w.write(m);
  await new Promise((r) => process.nextTick(r));
  assert.ok(written.length < sent.length, `coalesced: ${written.length} writes for ${sent.length} messages`);
  /** @type {Buffer[]} */
  const got = [];
  const r = new TcpFrameReader(1 << 20, (m) => got.push(Buffer.from(m)), () => assert.fail('not too large'));
  for (const c of written) r.push(c);
  assert.deepEqual(got, sent);
});

test('tcp frames: a large message leaves with its head in one write (writev), never as a 4-byte write of its own', () => {
  /** @type {number[][]} sizes of the buffers of each call to the stream's output */
  const calls = [];
  const sink = new Writable({
    write(chunk, _e, cb) { calls.push([chunk.length]); cb(); },
    writev(chunks, cb) { calls.push(chunks.map((c) => c.chunk.length)); cb(); },
  });
  const w = new TcpFrameWriter(/** @type {any} */ (sink));
  w.write(Buffer.alloc(65_536, 1));
  assert.deepEqual(calls, [[4, 65_536]], 'the head and the message in one call');
  // behind small messages of the same tick: the batch, the head and the message, one call
  calls.length = 0;
  for (let i = 0; i < 20; i++) w.write(Buffer.alloc(10, i));
  const before = calls.length;
  w.write(Buffer.alloc(20_000, 2));
  assert.equal(calls.length, before + 1);
  assert.equal(calls.at(-1)?.at(-1), 20_000);
  assert.ok(/** @type {number[]} */ (calls.at(-1))[0] > 4, 'the batch carries the head');
});

/** A stream that records each call to its output: the sizes of the buffers of a write or writev. */
function recordingSink() {
  /** @type {{kind: string, sizes: number[], bytes: Buffer}[]} */
  const calls = [];
  const sink = new Writable({
    write(chunk, _e, cb) { calls.push({ kind: 'write', sizes: [chunk.length], bytes: chunk }); cb(); },
    writev(chunks, cb) { calls.push({ kind: 'writev', sizes: chunks.map((c) => c.chunk.length), bytes: Buffer.concat(chunks.map((c) => c.chunk)) }); cb(); },
  });
  return { sink, calls };
}

test('tcp frames: one message under a hold waits for release, then leaves in one plain write, uncorked', () => {
  const { sink, calls } = recordingSink();
  const w = new TcpFrameWriter(/** @type {any} */ (sink));
  w.hold();
  w.write(Buffer.from([1, 2, 3]));
  assert.equal(calls.length, 0, 'nothing leaves while held');
  assert.equal(w.pending, 7, 'the kept message counts as pending (head and body)');
  assert.equal(sink.writableCorked, 0, 'one held message needs no cork');
  w.release();
  assert.deepEqual(calls.map((c) => [c.kind, c.sizes]), [['write', [7]]]);
  assert.deepEqual([...calls[0].bytes], [0, 0, 0, 3, 1, 2, 3]);
  assert.equal(w.pending, 0);
});

test('tcp frames: several messages under a hold (small, large, past the direct count) leave in order in one writev at release', () => {
  const { sink, calls } = recordingSink();
  const w = new TcpFrameWriter(/** @type {any} */ (sink));
  w.hold();
  /** @type {Buffer[]} */
  const sent = [];
  for (let i = 0; i < 20; i++) sent.push(Buffer.alloc(10 + i, i)); // beyond the direct count: batched too
  sent.push(Buffer.alloc(20_000, 99)); // large: written as it is
  sent.push(Buffer.alloc(5, 100));
  for (const m of sent) w.write(m);
  w.flush(); // a flush under the hold (the next tick's) stays in the corked socket
  assert.equal(calls.length, 0, 'nothing leaves while held');
  assert.equal(sink.writableCorked, 1, 'corked once, by the second message');
  w.release();
  assert.equal(sink.writableCorked, 0);
  assert.equal(calls.length, 1, `one call: ${JSON.stringify(calls.map((c) => c.sizes))}`);
  /** @type {Buffer[]} */
  const got = [];
  const r = new TcpFrameReader(1 << 20, (m) => got.push(Buffer.from(m)), () => assert.fail('not too large'));
  r.push(calls[0].bytes);
  assert.deepEqual(got, sent, 'every message, in the order written');
});

test('tcp frames: a message spanning chunks is a buffer of its own, exactly its size; a head announcing much reserves little', () => {
  /** @type {Buffer[]} */
  const got = [];
  const r = new TcpFrameReader(64 << 20, (m) => got.push(m), () => assert.fail('not too large'));
  const big = Buffer.alloc(200_000);
  for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff;
  const stream = framed([big, Buffer.from([5, 6])]);
  // three chunks, the second small: the buffer grows past its first reservation
  r.push(stream.subarray(0, 1000));
  assert.ok(r.reserved >= 996 && r.reserved <= 64 * 1024, `reserved ${r.reserved} after 996 bytes of 200,000`);
  r.push(stream.subarray(1000, 1010));
  r.push(stream.subarray(1010));
  assert.equal(got.length, 2);
  assert.deepEqual(got[0], big);
  assert.equal(got[0].byteOffset, 0, 'its own buffer');
  assert.equal(got[0].buffer.byteLength, big.length, 'exactly the message: no stale bytes, nothing shared');
  assert.deepEqual([...got[1]], [5, 6]);
  assert.equal(r.reserved, 0);
  // 8 bytes announcing 64 MiB: at most 64 KiB reserved
  const r2 = new TcpFrameReader(64 << 20, () => assert.fail('incomplete'), () => assert.fail('not too large'));
  const head = Buffer.alloc(8);
  head.writeUInt32BE(64 << 20, 0);
  r2.push(head);
  assert.equal(r2.reserved, 64 * 1024);
});

test('tcp frames: a 64 KiB message spanning two reads is reserved once, at its announced size', () => {
  /** @type {Buffer[]} */
  const got = [];
  const r = new TcpFrameReader(1 << 20, (m) => got.push(m), () => assert.fail('not too large'));
  const m = Buffer.alloc(65_536 + 60, 3);
  const stream = framed([m]);
  r.push(stream.subarray(0, 65_536));
  assert.equal(r.reserved, m.length, 'the whole message reserved with its first read');
  r.push(stream.subarray(65_536));
  assert.equal(got.length, 1);
  assert.deepEqual(got[0], m);
});

/**
 * Feed `stream` to a reader in own-buffer mode, each read a size from `sizes` (cycled)
 * capped by what the reader offers; the delivered messages are kept as delivered (views).
 * @param {Buffer} stream @param {number[]} sizes @param {number} [hardLimit]
 */
function readOwn(stream, sizes, hardLimit = 1 << 24) {
  /** @type {Buffer[]} */
  const got = [];
  const r = new TcpFrameReader(hardLimit, (m) => got.push(m), () => got.push(Buffer.from('too large')));
  r.startOwnBuffers(new Uint8Array(0));
  let at = 0;
  for (let i = 0; at < stream.length && i < 1_000_000; i++) {
    const t = r.readTarget();
    assert.ok(t.length > 0, 'a read target is never empty');
    const n = Math.min(t.length, sizes[i % sizes.length], stream.length - at);
    stream.copy(t, 0, at, at + n);
    at += n;
    r.readDone(n);
  }
  return { got, r };
}

const mixed = [0, 1, 3, 100, 17_000, 20_000, 2, 65_600, 70_000, 200_000, 4, 30_000, 5].map((n, i) => {
  const b = Buffer.alloc(n);
  for (let j = 0; j < n; j++) b[j] = (j * 13 + i) & 0xff;
  return b;
});

test('tcp frames, own buffers: every read size yields the same messages, in order, and a message handed out is never written again', () => {
  const stream = framed(mixed);
  for (const sizes of [[1], [3, 5], [100], [4096, 7], [65_536], [69_632], [1 << 20], [13, 65_536, 2, 30_000]]) {
    const { got, r } = readOwn(stream, sizes);
    // compared only now: a later read overwriting an earlier message (a view) would show
    assert.deepEqual(got, mixed, `reads of ${sizes}`);
    assert.ok(r.ownBuffers);
    assert.equal(r.reserved, 0);
  }
});

test('tcp frames, own buffers: a 64 KiB message read whole is a view of a buffer about its size; small ones are copies of their own', () => {
  const m = Buffer.alloc(65_600, 9);
  const { got } = readOwn(framed([Buffer.from([1, 2]), m]), [1 << 20]);
  assert.deepEqual(got[1], m);
  assert.ok(got[1].buffer.byteLength < 2 * m.length, `a view of a read buffer of ${got[1].buffer.byteLength} bytes: a received bytevector may be a view of it`);
  assert.ok(got[0].buffer !== got[1].buffer, 'the small message is not a view of the read buffer');
  // a message larger than a read buffer: its own buffer, exactly its size
  const big = Buffer.alloc(300_000, 4);
  const r2 = readOwn(framed([big]), [65_536]);
  assert.equal(r2.got[0].buffer.byteLength, big.length);
  assert.equal(r2.got[0].byteOffset, 0);
});

test('tcp frames, own buffers: a length above the hard limit stops the reader at its head', () => {
  const { got } = readOwn(framed([Buffer.alloc(10, 1), Buffer.alloc(1001), Buffer.alloc(5)]), [1 << 20], 1000);
  assert.deepEqual(got.map((m) => m.toString('latin1')), [Buffer.alloc(10, 1).toString('latin1'), 'too large']);
});

test('tcp frames, own buffers: real sockets, accepted and dialled, read into the reader\'s buffers; bytes already read come first', async () => {
  const { createServer, connect } = await import('node:net');
  const messages = mixed.concat(mixed);
  const stream = framed(messages);
  /** @type {Buffer[]} */
  const got = [];
  let own = false;
  const done = new Promise((resolve) => {
    const server = createServer((socket) => {
      socket.pause();
      const r = new TcpFrameReader(1 << 24, (m) => { got.push(m); if (got.length === messages.length) { socket.destroy(); server.close(); resolve(undefined); } }, () => assert.fail('not too large'));
      own = readIntoOwnBuffers(socket, r, stream.subarray(0, 10), (n) => r.readDone(n));
      socket.resume();
    }).listen(0, '127.0.0.1', async () => {
      const c = connect(/** @type {import('node:net').AddressInfo} */ (server.address()).port, '127.0.0.1');
      c.setNoDelay(true);
      await new Promise((ok) => c.once('connect', ok));
      // the first 10 bytes were "already read" (given to readIntoOwnBuffers); the rest in uneven writes, some a tick apart
      for (let at = 10, i = 0; at < stream.length; i++) {
        const n = [7, 70_000, 3, 65_540, 100_000][i % 5];
        c.write(stream.subarray(at, at + n));
        at += n;
        if (i % 2 === 0) await new Promise((ok) => setTimeout(ok, 1));
      }
      c.end();
    });
  });
  await done;
  assert.ok(own, 'the accepted socket reads into the reader\'s buffers');
  assert.deepEqual(got, messages);
});
