// @ts-check
/**
 * A node of an older release is refused cleanly at its first frame. The peer of the
 * previous envelope version is played by a raw connection (a real socket on loopback)
 * writing frames of that version by hand: the layout of every handshake frame is the
 * same in both versions, only the version byte differs, so a frame of version 1 is this
 * release's frame with byte 1 set to 1 (the version is a CBOR uint below 24: one byte).
 * - a version-1 HELLO, over WebSocket and over TCP in TLS, is refused with
 *   "protocol version 1 is not supported (this node speaks version 2)": the node logs
 *   it, and the refused peer receives it in an ERROR frame of *its* version (readable by
 *   an older node), then the connection closes; the node then admits and serves a peer
 *   of this version;
 * - a node of this version dialling a listener that speaks version 1 is refused at once
 *   with the same reason (connect() rejects; no hang, no generic error).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { nodeFactory, within } from './helpers.js';
import { createIdentity } from '../src/identity.js';
import { createMemoryLogger } from '../src/logger.js';
import { webSocketTransport } from '../src/transports/websocket.js';
import { tcpTransport } from '../src/transports/tcp.js';
import { ROLE_DIALER, ROLE_LISTENER } from '../src/admission.js';
import { T, VERSION, decodeFrame, encodeHello } from '../src/frames.js';
import { randomBytes } from '../src/bytes.js';

const OLD = 1;
const REASON = `protocol version ${OLD} is not supported (this node speaks version ${VERSION})`;
const nodes = nodeFactory();
after(() => nodes.stopAll());

/** A frame rewritten as the same frame of envelope version `v` (read as this release's with `v` = VERSION). @param {Uint8Array} frame @param {number} v */
function asVersion(frame, v) {
  const b = frame.slice();
  b[1] = v;
  return b;
}

/** A HELLO of version 1 from a fresh identity. @param {0 | 1} role */
async function oldHello(role) {
  const id = await createIdentity();
  return asVersion(encodeHello({ nodeId: id.id, publicKey: id.publicKey, nonce: randomBytes(32), role, maxMessageBytes: 1 << 20, listenUrl: null }), OLD);
}

/**
 * Every frame a raw connection receives until it closes (bounded: 5 s).
 * @param {import('../src/interfaces.js').Connection} conn
 */
function collect(conn) {
  /** @type {Uint8Array[]} */
  const frames = [];
  conn.onmessage = (b) => { frames.push(b.slice()); };
  return within(conn.closed, 5000, 'the refused connection closed').then(() => frames);
}

/** @param {any} node */
function loggedVersionRefusal(node) {
  return node.logs.find((/** @type {any} */ e) => e.name === 'termite:mesh:admission' && e.level === 'warn' && e.message === 'admission refused' && e.fields?.reason === 'protocol version');
}

for (const via of ['websocket', 'tcp']) {
  test(`a version-1 HELLO over ${via} is refused with the reason in the old peer's own version, and the node serves a version-${VERSION} peer`, async () => {
    const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, tcp: {} });
    a.onRequest((_from, p) => p.slice().reverse());
    const logger = createMemoryLogger();
    const conn = via === 'websocket'
      ? await webSocketTransport()({ logger }).dial(a.addresses()[0])
      : await tcpTransport()({ logger }).dial(a.addresses()[1]);
    const frames = collect(conn);
    conn.send(await oldHello(ROLE_DIALER));
    const got = await frames;
    const versions = got.map((b) => b[1]);
    // this node's HELLO (sent at once, before it read ours), then its refusal in version 1
    assert.deepEqual(versions, [VERSION, OLD], 'a HELLO of this version, then a frame of the old one');
    assert.equal(decodeFrame(got[0]).type, T.HELLO);
    const err = /** @type {any} */ (decodeFrame(asVersion(got[1], VERSION)));
    assert.equal(err.type, T.ERROR);
    assert.equal(err.name, 'AdmissionError');
    assert.equal(err.fatal, true);
    assert.equal(err.message, `admission refused: protocol version (${REASON})`);
    const line = loggedVersionRefusal(a);
    assert.ok(line, 'the refusal is logged at warn');
    assert.ok(String(line.fields.detail).includes(REASON), line.fields.detail);

    const good = await nodes.start();
    await good.connect(a.addresses()[0]);
    assert.deepEqual([...await good.request(a.id, new Uint8Array([1, 2, 3]), { timeoutMs: 3000 })], [3, 2, 1]);
  });
}

test(`a version-${VERSION} node dialling a listener of version 1 is refused at once with the reason`, async () => {
  /** @type {Uint8Array[]} */
  const heard = [];
  /** @type {() => void} */
  let heardTwo = () => {};
  const twoFrames = new Promise((resolve) => { heardTwo = () => resolve(undefined); });
  const listener = webSocketTransport()({ logger: createMemoryLogger() }).createListener({
    onConnection: async (conn) => {
      conn.onmessage = (b) => { heard.push(b.slice()); if (heard.length === 2) heardTwo(); };
      conn.send(await oldHello(ROLE_LISTENER));
    },
  });
  await listener.listen({ host: '127.0.0.1', port: 0 });
  try {
    const b = await nodes.start();
    const t0 = Date.now();
    await assert.rejects(within(b.connect(listener.addresses()[0]), 5000, 'connect'), (/** @type {any} */ e) => e.name === 'AdmissionError' && e.reason === 'protocol version' && e.message.includes(REASON));
    assert.ok(Date.now() - t0 < 2000, `refused in ${Date.now() - t0} ms, not at a timeout`);
    assert.ok(loggedVersionRefusal(b), 'the dialler logs the refusal');
    // what the old listener read: the dialler's HELLO, then the refusal written in version 1
    await within(twoFrames, 3000, 'the refusal reached the listener');
    assert.deepEqual(heard.map((f) => f[1]), [VERSION, OLD]);
    assert.match(/** @type {any} */ (decodeFrame(asVersion(heard[1], VERSION))).message, /^admission refused: protocol version \(protocol version 1 is not supported/);
  } finally {
    await listener.close();
  }
});
