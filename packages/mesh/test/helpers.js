// @ts-check
/**
 * Test helpers: nodes that clean up after themselves, bounded waits on
 * events (tests never sleep), a capturing logger.
 */
import { createMeshNode, createIdentity, createMemoryLogger } from '../src/index.js';

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
    async stopAll() {
      await Promise.all(nodes.splice(0).map((n) => n.stop()));
    },
  };
}

/** @param {number} n @param {number} [seed] */
export function bytes(n, seed = 0) {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 131 + seed) & 0xff;
  return b;
}
