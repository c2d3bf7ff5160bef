// @ts-check
/**
 * The transport compliance suite against the TCP transport in Node, three ways: plain
 * TCP on a port of its own, TLS on a port of its own, and TLS sharing an HTTP server's
 * port (the daemon's arrangement: the listener sorts connections by their first bytes,
 * and the HTTP server keeps answering pages on the same port while links run).
 */
import http from 'node:http';
import { createServer } from 'node:net';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { transportTests } from './compliance/transport.js';
import { serveCompliancePeer } from './compliance/peer.js';
import { tcpTransport } from '../src/transports/tcp.js';
import { createMemoryLogger } from '../src/logger.js';

/** @type {WeakMap<object, () => Promise<void>>} */
const cleanups = new WeakMap();

/** @param {boolean} encrypt @param {boolean} onHttp */
function suite(encrypt, onHttp) {
  transportTests({
    prefix: `tcp (${encrypt ? 'tls' : 'plain'}${onHttp ? ', on an HTTP port' : ''})`,
    async setup() {
      const transport = tcpTransport({ encrypt, maxMessageBytes: 256 * 1024 })({ logger: createMemoryLogger() });
      const listener = transport.createListener({ onConnection: serveCompliancePeer });
      /** @type {http.Server | null} */
      let web = null;
      if (onHttp) {
        const server = http.createServer((_req, res) => res.end('page'));
        web = server;
        await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
        await listener.listen({ server, path: '/' });
      } else await listener.listen({ host: '127.0.0.1', port: 0 });
      // A TCP server that accepts and never answers (no TLS handshake, no preamble): dials to it must time out.
      /** @type {Set<import('node:net').Socket>} */
      const sockets = new Set();
      const silent = createServer((s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
      await new Promise((resolve) => silent.listen(0, '127.0.0.1', () => resolve(undefined)));
      const silentPort = /** @type {import('node:net').AddressInfo} */ (silent.address()).port;
      const conn = await transport.dial(listener.addresses()[0]);
      assert.ok(/** @type {any} */ (conn).reader.ownBuffers, 'the link reads into the reader\'s own buffers (plain TCP and TLS)');
      const unanswered = `${encrypt ? 'tls' : 'tcp'}://127.0.0.1:${silentPort}`;
      if (web !== null) {
        const res = await fetch(`http://127.0.0.1:${/** @type {any} */ (web.address()).port}/`);
        assert.equal(await res.text(), 'page', 'the HTTP server still serves pages on the shared port');
      }
      const ctx = { conn, dialUnanswered: (/** @type {any} */ o) => transport.dial(unanswered, o) };
      cleanups.set(ctx, async () => {
        conn.close('teardown');
        await listener.close();
        for (const s of sockets) s.destroy();
        await new Promise((resolve) => silent.close(() => resolve(undefined)));
        if (web !== null) {
          const w = web;
          w.closeAllConnections();
          await new Promise((resolve) => w.close(() => resolve(undefined)));
        }
      });
      return ctx;
    },
    async teardown(ctx) {
      await cleanups.get(ctx)?.();
    },
  });
}

suite(false, false);
suite(false, true);
suite(true, false);
suite(true, true);

test('tcp: a plain link accepted on an HTTP server\'s port reads into its own buffers too; 64 KiB and 300 KiB messages arrive intact both ways', async () => {
  const transport = tcpTransport({ encrypt: false })({ logger: createMemoryLogger() });
  /** @type {any[]} */
  const accepted = [];
  const listener = transport.createListener({ onConnection: (c) => { accepted.push(c); c.onmessage = (/** @type {Uint8Array} */ m) => c.send(m); } });
  const server = http.createServer((_req, res) => res.end('page'));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  await listener.listen({ server, path: '/' });
  try {
    const a = /** @type {any} */ (await transport.dial(listener.addresses()[0]));
    /** @type {Uint8Array[]} */
    const back = [];
    a.onmessage = (/** @type {Uint8Array} */ m) => back.push(m);
    const sent = [65_536 + 60, 300_000, 10, 65_536 + 60].map((n, i) => Buffer.alloc(n, i + 1));
    for (const m of sent) a.send(m);
    for (let i = 0; i < 250 && back.length < sent.length; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(accepted.length, 1);
    assert.ok(accepted[0].reader.ownBuffers, 'the accepted side reads into its own buffers');
    assert.deepEqual(back.map((m) => Buffer.from(m)), sent);
    a.close();
  } finally {
    await listener.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(() => resolve(undefined)));
  }
});

test('tcp: both ends of a TLS link export the same channel binding, and another link gets another', async () => {
  const transport = tcpTransport({ encrypt: true })({ logger: createMemoryLogger() });
  /** @type {any[]} */
  const accepted = [];
  const listener = transport.createListener({ onConnection: (c) => accepted.push(c) });
  await listener.listen({ host: '127.0.0.1', port: 0 });
  try {
    const a = /** @type {any} */ (await transport.dial(listener.addresses()[0]));
    const b = /** @type {any} */ (await transport.dial(listener.addresses()[0]));
    a.send(new Uint8Array([1]));
    b.send(new Uint8Array([1]));
    for (let i = 0; i < 100 && accepted.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(accepted.length, 2);
    const byBinding = new Map(accepted.map((c) => [Buffer.from(c.channelBinding).toString('hex'), c]));
    assert.equal(a.channelBinding.length, 32);
    assert.ok(byBinding.has(Buffer.from(a.channelBinding).toString('hex')), 'the listener side of a exports what a exports');
    assert.ok(byBinding.has(Buffer.from(b.channelBinding).toString('hex')));
    assert.notDeepEqual(a.channelBinding, b.channelBinding);
    a.close();
    b.close();
  } finally {
    await listener.close();
  }
});
