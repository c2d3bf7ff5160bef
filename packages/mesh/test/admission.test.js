// @ts-check
/**
 * Admission: a peer is admitted only after proving the mesh token and its
 * key; refusals carry the precise reason to the refused side, are logged,
 * and leave the node serving. Raw connections (the WebSocket transport
 * without a mesh node) play the attacker.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { nodeFactory, nextEvent, within, TOKEN } from './helpers.js';
import { createIdentity } from '../src/identity.js';
import { createMemoryLogger } from '../src/logger.js';
import { webSocketTransport } from '../src/transports/websocket.js';
import { NonceCache, ROLE_DIALER, ROLE_LISTENER, buildTranscript, computeProof, deriveTokenKey, runHandshake } from '../src/admission.js';
import { T, VERSION, decodeFrame, encodeAuth, encodeHello } from '../src/frames.js';
import { randomBytes } from '../src/bytes.js';

const nodes = nodeFactory();
after(() => nodes.stopAll());
const transport = webSocketTransport()({ logger: createMemoryLogger() });

/**
 * A raw connection to `url` with a queue of the frames it receives.
 * @param {string} url
 */
async function raw(url) {
  const conn = await transport.dial(url);
  /** @type {Uint8Array[]} */
  const inbox = [];
  /** @type {((b: Uint8Array | null) => void) | null} */
  let waiter = null;
  let closedReason = /** @type {string | null} */ (null);
  conn.onmessage = (b) => { if (waiter) { const w = waiter; waiter = null; w(b); } else inbox.push(b); };
  conn.onclose = (r) => { closedReason = r; if (waiter) { const w = waiter; waiter = null; w(null); } };
  return {
    conn,
    /** @returns {Promise<Uint8Array | null>} the next frame, or null once closed */
    next: () => within(new Promise((resolve) => {
      const b = inbox.shift();
      if (b || closedReason !== null) resolve(b ?? null);
      else waiter = resolve;
    }), 10_000, 'next raw frame'),
    closed: () => within(conn.closed, 10_000, 'raw connection closed'),
  };
}

/**
 * Read frames until an ERROR arrives; returns it (decoded).
 * @param {{next: () => Promise<Uint8Array | null>}} r
 */
async function refusal(r) {
  for (let i = 0; i < 5; i++) {
    const b = await r.next();
    if (b === null) break;
    const f = decodeFrame(b);
    if (f.type === T.ERROR) return f;
  }
  throw new Error('no ERROR frame before the connection closed');
}

/** @param {any} node @param {string} reason */
function loggedRefusal(node, reason) {
  return node.logs.some((/** @type {any} */ e) => e.name === 'termite:mesh:admission' && e.level === 'warn' && e.message === 'admission refused' && e.fields?.reason === reason);
}

test('two nodes with the same token admit each other, and both learn the other\'s id and listen URL', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const b = await nodes.start();
  const up = nextEvent(a, 'peer:up');
  const peer = await b.connect(a.addresses()[0]);
  assert.equal(peer.id, a.id);
  assert.equal(peer.listenUrl, a.addresses()[0]);
  assert.equal(peer.transport, 'websocket');
  const seen = await up;
  assert.equal(seen.id, b.id);
  assert.equal(seen.transport, 'websocket');
  assert.deepEqual(a.peers().map((p) => p.id), [b.id]);
});

test('a node with the wrong token is refused with "bad token" at both ends, and the refusal is logged', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const b = await nodes.start({ token: 'not the mesh token' });
  const refusedAtA = nextEvent(a, 'peer:refused');
  await assert.rejects(b.connect(a.addresses()[0]), (/** @type {any} */ e) => e.name === 'AdmissionError' && e.reason === 'bad token');
  const r = await refusedAtA;
  assert.equal(r.reason, 'bad token');
  assert.ok(loggedRefusal(a, 'bad token'));
  assert.equal(a.peers().length, 0);
  assert.equal(b.peers().length, 0);
});

test('a raw client with the wrong token receives an ERROR frame saying "bad token" before the connection closes', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const conn = await transport.dial(a.addresses()[0]);
  const id = await createIdentity();
  const p = runHandshake(conn, {
    identity: id, tokenKey: await deriveTokenKey('wrong'), role: ROLE_DIALER, maxMessageBytes: 1 << 20, listenUrl: null,
    nonceCache: new NonceCache(), timeoutMs: 5000, logger: createMemoryLogger(),
  });
  const e = /** @type {any} */ (await p.catch((x) => x));
  assert.equal(e.name, 'AdmissionError');
  assert.equal(e.reason, 'bad token');
  assert.match(e.message, /refused by the peer|does not know the mesh token/);
  assert.ok(loggedRefusal(a, 'bad token'));
});

test('a replayed handshake is refused with "replayed handshake", whether the HELLO or only the AUTH is replayed', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const url = a.addresses()[0];
  // A legitimate client's handshake, recorded.
  const victim = await createIdentity();
  const c1 = await transport.dial(url);
  /** @type {Uint8Array[]} */
  const recorded = [];
  const send = c1.send.bind(c1);
  c1.send = (b) => { recorded.push(b.slice()); send(b); };
  await runHandshake(c1, {
    identity: victim, tokenKey: await deriveTokenKey(TOKEN), role: ROLE_DIALER, maxMessageBytes: 1 << 20, listenUrl: null,
    nonceCache: new NonceCache(), timeoutMs: 5000, logger: createMemoryLogger(),
  });
  assert.deepEqual(recorded.map((b) => decodeFrame(b).type), [T.HELLO, T.AUTH, T.ACCEPT]);
  c1.close('done');

  // 1. The captured messages sent again, unchanged, on a new connection.
  const r2 = await raw(url);
  r2.conn.send(recorded[0]);
  r2.conn.send(recorded[1]);
  const err2 = await refusal(r2);
  assert.equal(err2.type, T.ERROR);
  assert.match(/** @type {any} */ (err2).message, /^admission refused: replayed handshake/);
  await r2.closed();

  // 2. A fresh HELLO (anyone can forge one: it holds only public data) with the captured AUTH.
  const r3 = await raw(url);
  const hello = decodeFrame(recorded[0]);
  r3.conn.send(encodeHello({ .../** @type {any} */ (hello), nonce: randomBytes(32) }));
  const theirs = await r3.next();
  assert.equal(theirs && decodeFrame(theirs).type, T.HELLO);
  r3.conn.send(recorded[1]);
  const err3 = await refusal(r3);
  assert.match(/** @type {any} */ (err3).message, /^admission refused: replayed handshake \(the AUTH answers a challenge of another connection\)/);
  assert.ok(loggedRefusal(a, 'replayed handshake'));
  const admitted = a.logs.filter((/** @type {any} */ e) => e.message === 'peer up').length;
  assert.equal(admitted, 1, 'only the legitimate connection was ever admitted');
});

test('a signature by another key is refused with "bad signature" even with the right token', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const r = await raw(a.addresses()[0]);
  const claimed = await createIdentity(); // the node the attacker pretends to be
  const attacker = await createIdentity(); // the key the attacker really has
  const hello = encodeHello({ nodeId: claimed.id, publicKey: claimed.publicKey, nonce: randomBytes(32), role: ROLE_DIALER, maxMessageBytes: 1 << 20, listenUrl: null });
  r.conn.send(hello);
  const theirs = /** @type {Uint8Array} */ (await r.next());
  const h = /** @type {any} */ (decodeFrame(theirs));
  const transcript = buildTranscript(hello, theirs);
  const proof = await computeProof(ROLE_DIALER, transcript, await deriveTokenKey(TOKEN), attacker);
  r.conn.send(encodeAuth(h.nonce, proof.mac, proof.signature));
  const err = await refusal(r);
  assert.match(/** @type {any} */ (err).message, /^admission refused: bad signature/);
  assert.equal(/** @type {any} */ (err).fatal, true);
  assert.ok(loggedRefusal(a, 'bad signature'));
});

test('a HELLO whose node id is not the hash of its key is refused with "node id does not match key"', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const r = await raw(a.addresses()[0]);
  const me = await createIdentity();
  const other = await createIdentity();
  r.conn.send(encodeHello({ nodeId: other.id, publicKey: me.publicKey, nonce: randomBytes(32), role: ROLE_DIALER, maxMessageBytes: 1 << 20, listenUrl: null }));
  const err = await refusal(r);
  assert.match(/** @type {any} */ (err).message, /^admission refused: node id does not match key/);
  assert.ok(loggedRefusal(a, 'node id does not match key'));
});

test('a HELLO of another protocol version, random bytes, or a frame out of order are refused with the precise reason', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const url = a.addresses()[0];
  const r1 = await raw(url);
  r1.conn.send(new Uint8Array([0x83, VERSION + 1, 0x00, 0x00])); // a newer node's (an older one's: protocol-version.test.js)
  assert.match(/** @type {any} */ (await refusal(r1)).message, new RegExp(`^admission refused: protocol version \\(protocol version ${VERSION + 1} is not supported \\(this node speaks version ${VERSION}\\)\\)`));
  const r2 = await raw(url);
  r2.conn.send(randomBytes(64));
  assert.match(/** @type {any} */ (await refusal(r2)).message, /^admission refused: malformed handshake/);
  const r3 = await raw(url);
  r3.conn.send(encodeAuth(randomBytes(32), randomBytes(32), randomBytes(64)));
  assert.match(/** @type {any} */ (await refusal(r3)).message, /^admission refused: unexpected frame \(expected HELLO, got AUTH\)/);
  assert.ok(loggedRefusal(a, 'protocol version') && loggedRefusal(a, 'malformed handshake') && loggedRefusal(a, 'unexpected frame'));
});

test('a client that never completes the handshake is dropped after handshakeTimeoutMs', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, handshakeTimeoutMs: 300 });
  const r = await raw(a.addresses()[0]);
  const t0 = Date.now();
  const err = await refusal(r);
  assert.match(/** @type {any} */ (err).message, /^admission refused: handshake timeout/);
  await r.closed();
  assert.ok(Date.now() - t0 < 3000);
});

test('a node that dials itself is refused with "connected to self"', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  await assert.rejects(a.connect(a.addresses()[0]), (/** @type {any} */ e) => e.reason === 'connected to self');
  assert.equal(a.peers().length, 0);
});

test('the dialer authenticates the listener too: a listener that cannot sign for its id is refused with "bad signature"', async () => {
  // A fake listener: it knows the token but signs with a key that is not its claimed id's.
  const fakeId = await createIdentity();
  const realKey = await createIdentity();
  const tokenKey = await deriveTokenKey(TOKEN);
  const listener = transport.createListener({
    onConnection: (conn) => {
      let theirHello = /** @type {Uint8Array | null} */ (null);
      const mine = encodeHello({ nodeId: fakeId.id, publicKey: fakeId.publicKey, nonce: randomBytes(32), role: ROLE_LISTENER, maxMessageBytes: 1 << 20, listenUrl: null });
      conn.send(mine);
      conn.onmessage = async (b) => {
        const f = /** @type {any} */ (decodeFrame(b));
        if (f.type !== T.HELLO || theirHello) return;
        theirHello = b.slice();
        const proof = await computeProof(ROLE_LISTENER, buildTranscript(theirHello, mine), tokenKey, realKey);
        if (conn.status === 'open') conn.send(encodeAuth(f.nonce, proof.mac, proof.signature));
      };
    },
  });
  await listener.listen({ host: '127.0.0.1', port: 0 });
  try {
    const b = await nodes.start();
    await assert.rejects(b.connect(listener.addresses()[0]), (/** @type {any} */ e) => e.name === 'AdmissionError' && e.reason === 'bad signature');
  } finally {
    await listener.close();
  }
});

test('after refusals the node still admits and serves a good peer', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const bad = await nodes.start({ token: 'wrong' });
  await assert.rejects(bad.connect(a.addresses()[0]));
  const r = await raw(a.addresses()[0]);
  r.conn.send(randomBytes(10));
  await refusal(r);
  a.onRequest((_from, p) => p.slice().reverse());
  const good = await nodes.start();
  await good.connect(a.addresses()[0]);
  const res = await good.request(a.id, new Uint8Array([1, 2, 3]), { timeoutMs: 2000 });
  assert.deepEqual([...res], [3, 2, 1]);
});
