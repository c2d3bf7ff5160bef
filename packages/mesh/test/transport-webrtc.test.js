// @ts-check
/**
 * The transport compliance suite against the WebRTC transport in Node: two
 * node-datachannel peer connections on 127.0.0.1 (loopback candidates only),
 * signalled through an in-memory signaller instead of the mesh.
 */
import { after } from 'node:test';
import nodeDataChannel from 'node-datachannel';
import { transportTests } from './compliance/transport.js';
import { serveCompliancePeer } from './compliance/peer.js';
import { webRTCTransport } from '../src/transports/webrtc.js';
import { createMemoryLogger } from '../src/logger.js';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const NOBODY = 'c'.repeat(32);

/** @type {WeakMap<object, () => Promise<void>>} */
const cleanups = new WeakMap();
// A peer connection closed while it is still gathering candidates keeps
// libdatachannel's threads, and so this process, alive: end them all here.
after(() => nodeDataChannel.cleanup());

transportTests({
  prefix: 'webrtc (node-datachannel)',
  async setup() {
    /** @type {any} */
    let a = null;
    /** @type {any} */
    let b = null;
    // Signals are delivered asynchronously, as the mesh would; signals to NOBODY vanish.
    const to = (/** @type {() => any} */ target, /** @type {string} */ from) => ({
      send: (/** @type {string} */ peerId, /** @type {any} */ s) => {
        if (peerId === NOBODY) return true;
        queueMicrotask(() => { try { target().handleSignal(from, s); } catch { /* late signal */ } });
        return true;
      },
    });
    a = webRTCTransport()({ logger: createMemoryLogger(), signaller: to(() => b, A) });
    b = webRTCTransport()({ logger: createMemoryLogger(), signaller: to(() => a, B) });
    const listener = b.createListener({ onConnection: serveCompliancePeer });
    await listener.listen();
    const conn = await a.dial(B, { timeoutMs: 10_000 });
    const ctx = { conn, dialUnanswered: (/** @type {any} */ o) => a.dial(NOBODY, o) };
    cleanups.set(ctx, async () => {
      conn.close('teardown');
      await a.close();
      await b.close();
    });
    return ctx;
  },
  async teardown(ctx) {
    await cleanups.get(ctx)?.();
  },
});
