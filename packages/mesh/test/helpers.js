// @ts-check
/**
 * Test helpers: nodes that clean up after themselves, bounded waits on
 * events (tests never sleep), a capturing logger.
 */
import assert from 'node:assert/strict';
import nodeDataChannel from 'node-datachannel';
import { createMeshNode, createIdentity, createMemoryLogger } from '../src/index.js';
import { webSocketTransport } from '../src/transports/websocket.js';
import { NonceCache, ROLE_DIALER, deriveTokenKey, runHandshake } from '../src/admission.js';
import { T, decodeFrame, encodePing, encodePong } from '../src/frames.js';

export const TOKEN = 'test-token-0123456789abcdef';

/**
 * Await `p` for at most `ms` (the timer never outlives the wait).
 * @template T @param {Promise<T>} p @param {number} ms @param {string} what @returns {Promise<T>}
 */
export function within(p, ms, what) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let t;
  return Promise.race([p, new Promise((_, reject) => { t = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(t));
}

/**
 * Wait until `cond()` holds, checking every 10 ms, for at most `ms`.
 * @param {() => boolean} cond @param {number} ms @param {string} what
 */
export async function until(cond, ms, what) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The next event `name` of `node` whose detail satisfies `pred`.
 * @param {import('../src/mesh-node.js').MeshNode} node @param {any} name
 * @param {(d: any) => boolean} [pred] @param {number} [ms]
 * @returns {Promise<any>}
 */
export function nextEvent(node, name, pred = () => true, ms = 10_000) {
  /** @type {() => void} */
  let off = () => {};
  const p = new Promise((resolve) => {
    off = node.on(name, (/** @type {any} */ d) => { if (pred(d)) resolve(d); });
  });
  return within(p, ms, `event ${name}`).finally(() => off());
}

/**
 * The next message to `node` that satisfies `pred`.
 * @param {import('../src/mesh-node.js').MeshNode} node
 * @param {(from: string, p: Uint8Array) => boolean} [pred] @param {number} [ms]
 * @returns {Promise<{from: string, payload: Uint8Array}>}
 */
export function nextMessage(node, pred = () => true, ms = 10_000) {
  /** @type {() => void} */
  let off = () => {};
  const p = new Promise((resolve) => {
    off = node.onMessage((from, payload) => { if (pred(from, payload)) resolve({ from, payload }); });
  });
  return /** @type {Promise<{from: string, payload: Uint8Array}>} */ (within(p, ms, 'message').finally(() => off()));
}

/**
 * A factory of started nodes, all stopped by `stopAll()` (call it in a finally / after()).
 */
export function nodeFactory() {
  /** @type {import('../src/mesh-node.js').MeshNode[]} */
  const nodes = [];
  return {
    /**
     * @param {Partial<import('../src/options.js').MeshNodeInit> & {listen?: any}} [init]
     */
    async start(init = {}) {
      const logger = createMemoryLogger();
      const node = createMeshNode({ identity: await createIdentity(), token: TOKEN, logger, ...init });
      nodes.push(node);
      await node.start();
      return Object.assign(node, { logs: logger.entries });
    },
    /** Stop every node, then end libdatachannel's threads, which a peer connection
     * closed while still gathering leaves running (they would keep the test process alive). */
    async stopAll() {
      await Promise.all(nodes.splice(0).map((n) => n.stop()));
      nodeDataChannel.cleanup();
    },
  };
}

/** @param {number} n @param {number} [seed] */
export function bytes(n, seed = 0) {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 131 + seed) & 0xff;
  return b;
}

/**
 * An admitted raw connection to `url`, with a queue of the frames it receives.
 * @param {string} url @param {import('../src/transports/ws-common.js').WebSocketInit} [init]
 *   transport options (`origin`: dial as a browser page)
 */
export async function admittedRaw(url, init = {}) {
  const conn = await webSocketTransport(init)({ logger: createMemoryLogger() }).dial(url);
  const identity = await createIdentity();
  await runHandshake(conn, {
    identity, tokenKey: await deriveTokenKey(TOKEN), role: ROLE_DIALER, maxMessageBytes: 1 << 20, listenUrl: null,
    nonceCache: new NonceCache(), timeoutMs: 5000, logger: createMemoryLogger(),
  });
  /** @type {any[]} */
  const errors = [];
  /** @type {any[]} every frame received, decoded */
  const frames = [];
  /** @type {Array<() => void>} */
  let wake = [];
  let lastPong = 0;
  conn.onmessage = (b) => {
    const f = decodeFrame(b);
    frames.push(f);
    if (f.type === T.PING) conn.send(encodePong(f.seq)); // stay alive for the node's heartbeat
    if (f.type === T.ERROR) errors.push(f);
    if (f.type === T.PONG) lastPong = f.seq;
    for (const w of wake.splice(0)) w();
  };
  conn.onclose = () => { for (const w of wake.splice(0)) w(); };
  return {
    conn, id: identity.id, errors, frames,
    /** Wait until a received frame satisfies `pred`. @param {(f: any) => boolean} pred */
    async waitFrame(pred) {
      for (let i = 0; i < 1000; i++) {
        const f = frames.find(pred);
        if (f) return f;
        if (conn.status !== 'open') break;
        await within(new Promise((r) => wake.push(() => r(undefined))), 10_000, 'frame');
      }
      throw new Error('connection closed before the frame arrived');
    },
    /** A PING/PONG round trip: every frame the node sent before the PONG has arrived. @param {number} seq */
    async roundTrip(seq) {
      conn.send(encodePing(seq));
      for (let i = 0; i < 100 && lastPong !== seq && conn.status === 'open'; i++) {
        await within(new Promise((r) => wake.push(() => r(undefined))), 10_000, 'PONG');
      }
      assert.equal(lastPong, seq, 'PONG received');
    },
    /** The next ERROR frame the node sends us. @returns {Promise<any>} */
    async nextError() {
      for (let i = 0; i < 100 && errors.length === 0 && conn.status === 'open'; i++) {
        await within(new Promise((r) => wake.push(() => r(undefined))), 10_000, 'ERROR frame');
      }
      const e = errors.shift();
      if (!e) throw new Error('connection closed without an ERROR frame');
      return e;
    },
  };
}

