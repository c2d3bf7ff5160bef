// @ts-check
/**
 * The transport compliance suite against the WebSocket transport in Node:
 * a real `ws` listener on 127.0.0.1 port 0, a real client connection.
 */
import { createServer } from 'node:net';
import { transportTests } from './compliance/transport.js';
import { serveCompliancePeer } from './compliance/peer.js';
import { webSocketTransport } from '../src/transports/websocket.js';
import { createMemoryLogger } from '../src/logger.js';

/** @type {WeakMap<object, () => Promise<void>>} */
const cleanups = new WeakMap();

transportTests({
  prefix: 'websocket (node)',
  async setup() {
    const transport = webSocketTransport({ maxMessageBytes: 256 * 1024 })({ logger: createMemoryLogger() });
    const listener = transport.createListener({ onConnection: serveCompliancePeer });
    await listener.listen({ host: '127.0.0.1', port: 0 });
    // A TCP server that accepts and never answers the HTTP upgrade: dials to it must time out.
    /** @type {Set<import('node:net').Socket>} */
    const sockets = new Set();
    const silent = createServer((s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
    await new Promise((resolve) => silent.listen(0, '127.0.0.1', () => resolve(undefined)));
    const silentUrl = `ws://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (silent.address()).port}/`;
    const conn = await transport.dial(listener.addresses()[0]);
    const ctx = { conn, dialUnanswered: (/** @type {any} */ o) => transport.dial(silentUrl, o) };
    cleanups.set(ctx, async () => {
      conn.close('teardown');
      await listener.close();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(() => resolve(undefined)));
    });
    return ctx;
  },
  async teardown(ctx) {
    await cleanups.get(ctx)?.();
  },
});
