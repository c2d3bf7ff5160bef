// @ts-check
/**
 * Mesh nodes linked over TCP (link-transports.js): a ws:// URL is dialled over TLS
 * when TCP links are on, and admission is bound to the TLS session. Every test runs
 * real nodes on loopback ports; the relay is a real TLS proxy.
 * - the link is TCP in TLS and carries messages both ways;
 * - a peer that cannot prove its key is refused (bad signature);
 * - a relay that terminates TLS on each side and re-encrypts is refused (the signatures
 *   cover the session's keying material: bad signature, the detail naming the relay);
 * - a plain-TCP dialler at an encrypted node is refused with 'encryption required';
 * - an insecure node links to an insecure node over plain TCP;
 * - a 100 MiB message arrives intact over TLS.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import { createHash } from 'node:crypto';
import { TOKEN, nodeFactory, nextMessage, within } from './helpers.js';
import { createIdentity, createMemoryLogger } from '../src/index.js';
import { tcpTransport } from '../src/transports/tcp.js';
import { selfSignedCertificate } from '../src/transports/tls-certificate.js';
import { NonceCache, ROLE_DIALER, deriveTokenKey, runHandshake } from '../src/admission.js';

const LOCAL = { host: '127.0.0.1', port: 0 };

test('two nodes with TCP links: a ws:// URL is dialled over TLS, and messages cross both ways', async () => {
  const f = nodeFactory();
  try {
    const a = await f.start({ listen: LOCAL, tcp: {} });
    const b = await f.start({ tcp: {} });
    assert.match(a.addresses()[0], /^ws:\/\//, 'the WebSocket address is announced first');
    assert.match(a.addresses()[1], /^tls:\/\//);
    const peer = await b.connect(a.addresses()[0]);
    assert.equal(peer.links[0].transport, 'tcp');
    const got = nextMessage(a);
    b.send(a.id, new Uint8Array([1, 2, 3]));
    assert.deepEqual([...(await got).payload], [1, 2, 3]);
    const back = nextMessage(b);
    a.send(b.id, new Uint8Array([4]));
    assert.deepEqual([...(await back).payload], [4]);
  } finally {
    await f.stopAll();
  }
});

test('a peer that claims a key it does not hold is refused on a TLS link (bad signature)', async () => {
  const f = nodeFactory();
  try {
    const a = await f.start({ listen: LOCAL, tcp: {} });
    const victim = await createIdentity();
    const thief = await createIdentity();
    // HELLO carries the victim's id and key; the signatures are the thief's
    const impostor = /** @type {any} */ ({ id: victim.id, publicKey: victim.publicKey, sign: (/** @type {Uint8Array} */ d) => thief.sign(d) });
    const conn = await tcpTransport()({ logger: createMemoryLogger() }).dial(a.addresses()[1]);
    await assert.rejects(runHandshake(conn, {
      identity: impostor, tokenKey: await deriveTokenKey(TOKEN), role: ROLE_DIALER, maxMessageBytes: 1 << 20, listenUrl: null,
      nonceCache: new NonceCache(), timeoutMs: 5000, logger: createMemoryLogger(),
    }), (e) => /** @type {any} */ (e).reason === 'bad signature');
    assert.equal(a.peers().length, 0);
  } finally {
    await f.stopAll();
  }
});

/**
 * A man in the middle: accepts TLS with its own certificate, opens its own TLS
 * connection to `target`, and copies the decrypted bytes both ways.
 * @param {number} targetPort
 */
async function tlsRelay(targetPort) {
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  let relayed = 0;
  const server = tls.createServer({ ...selfSignedCertificate(), minVersion: 'TLSv1.3' }, (inner) => {
    const outer = tls.connect({ host: '127.0.0.1', port: targetPort, rejectUnauthorized: false });
    for (const s of [inner, outer]) { sockets.add(s); s.on('error', () => {}); s.on('close', () => { inner.destroy(); outer.destroy(); }); }
    inner.on('data', (d) => { relayed += d.length; outer.write(d); });
    outer.on('data', (d) => { relayed += d.length; inner.write(d); });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  return {
    port: /** @type {net.AddressInfo} */ (server.address()).port,
    relayed: () => relayed,
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve(undefined)); }),
  };
}

test('a relay that terminates TLS towards each side and re-encrypts is refused by admission', async () => {
  const f = nodeFactory();
  const a = await f.start({ listen: LOCAL, tcp: {} });
  const relay = await tlsRelay(Number(new URL(a.addresses()[1]).port));
  try {
    const b = await f.start({ tcp: {} });
    await assert.rejects(b.connect(`tls://127.0.0.1:${relay.port}`), (e) => {
      assert.equal(/** @type {any} */ (e).reason, 'bad signature');
      assert.match(/** @type {Error} */ (e).message, /a relay between us/);
      return true;
    });
    assert.ok(relay.relayed() > 0, 'the relay did carry the handshake');
    assert.equal(a.peers().length, 0);
    assert.equal(b.peers().length, 0);
  } finally {
    await relay.close();
    await f.stopAll();
  }
});

test('a plain-TCP dialler at an encrypted node is refused with "encryption required", and the node keeps serving', async () => {
  const f = nodeFactory();
  try {
    const a = await f.start({ listen: LOCAL, tcp: {} });
    const plain = await f.start({ tcp: { encrypt: false } });
    const port = new URL(a.addresses()[1]).port;
    await assert.rejects(plain.connect(`tcp://127.0.0.1:${port}`), (e) => {
      assert.equal(/** @type {any} */ (e).reason, 'encryption required');
      assert.match(/** @type {Error} */ (e).message, /accepts TLS links only/);
      return true;
    });
    assert.ok(a.logs.some((/** @type {any} */ r) => /plain TCP link refused/.test(r.message)), 'the node logged the refusal');
    const b = await f.start({ tcp: {} });
    assert.equal((await b.connect(a.addresses()[0])).links[0].transport, 'tcp', 'and still admits an encrypted peer');
  } finally {
    await f.stopAll();
  }
});

test('insecure nodes link over plain TCP', async () => {
  const f = nodeFactory();
  try {
    const a = await f.start({ listen: LOCAL, tcp: { encrypt: false } });
    const b = await f.start({ tcp: { encrypt: false } });
    assert.match(a.addresses()[1], /^tcp:\/\//);
    const peer = await b.connect(a.addresses()[0]);
    assert.equal(peer.links[0].transport, 'tcp');
    assert.equal(peer.links[0].address, `tcp://${new URL(a.addresses()[0]).host}`);
  } finally {
    await f.stopAll();
  }
});

test('a 100 MiB message crosses a TLS link intact', { timeout: 120_000 }, async () => {
  const f = nodeFactory();
  try {
    const big = { tcp: {}, maxFrameBytes: 128 * 1024 * 1024, maxReassemblyBytes: 256 * 1024 * 1024 };
    const a = await f.start({ listen: LOCAL, ...big });
    const b = await f.start(big);
    await b.connect(a.addresses()[0]);
    const payload = new Uint8Array(100 * 1024 * 1024);
    for (let i = 0; i < payload.length; i += 4096) payload[i] = (i / 4096) & 0xff;
    payload[payload.length - 1] = 0x5a;
    const sent = createHash('sha256').update(payload).digest('hex');
    const got = nextMessage(a, () => true, 90_000);
    assert.equal(b.send(a.id, payload), true);
    const { payload: arrived } = await within(got, 90_000, '100 MiB message');
    assert.equal(arrived.length, payload.length);
    assert.equal(createHash('sha256').update(arrived).digest('hex'), sent);
  } finally {
    await f.stopAll();
  }
});
