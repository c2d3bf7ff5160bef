#!/usr/bin/env node
// @ts-check
/**
 * CPU per round trip of a link's layers, both ends in this one process: a measuring tool
 * for the small-message sections of BENCHMARKS.md, not a script of `npm run bench`.
 *
 *   node bench/link-cpu.js LAYER tcp|tls|ws BYTES [COUNT]
 *       LAYER: bare  a bare node:net / node:tls socket echoing (ws: not measured)
 *              conn  the mesh's transport connections (tcp.js with tcp-frames.js, or
 *                    websocket.js with ws-frames.js), a message echoed from onmessage,
 *                    so both ends write under the hold a received chunk sets
 *              mesh  two admitted MeshNodes, a MSG echoed (envelope, link, routing)
 *       prints "stage link.<LAYER>.<tcp|tls|ws>.<BYTES> <CPU µs per round trip> <rt/s>",
 *       the median of 5 rounds of COUNT round trips (default 20,000) after as many warm-up
 *
 * Why in one process: two processes measured apart swing with where the kernel runs them
 * (a wake across CPUs costs ~30 µs); here a round trip is the CPU of both ends, two
 * writes and two reads through the kernel's loopback, and the difference between two
 * layers is what the upper one adds. Run it pinned (`taskset -c 0`) on a loaded machine.
 * Every loop is bounded by its count.
 */
import net from 'node:net';
import tls from 'node:tls';
import { selfSignedCertificate } from '../packages/mesh/src/transports/tls-certificate.js';
import { tcpTransport } from '../packages/mesh/src/transports/tcp.js';
import { webSocketTransport } from '../packages/mesh/src/transports/websocket.js';
import { createMeshNode, createIdentity, createMemoryLogger } from '../packages/mesh/src/index.js';

const [layer, kind, bytesS, countS] = process.argv.slice(2);
const BYTES = Number(bytesS);
const COUNT = Number(countS ?? 20000);
if (!['bare', 'conn', 'mesh'].includes(layer) || !['tcp', 'tls', 'ws'].includes(kind) || !(BYTES > 0) || !(COUNT > 0) || (layer === 'bare' && kind === 'ws')) {
  process.stderr.write('usage: link-cpu.js bare|conn|mesh tcp|tls|ws BYTES [COUNT] (bare: tcp|tls)\n');
  process.exit(2);
}

/**
 * A ping-pong: `send` writes the message, `onReply` registers what runs on each reply.
 * @typedef {{send: (m: Uint8Array) => void, onReply: (f: () => void) => void, stop: () => Promise<void>}} Pair
 */

/** @returns {Promise<Pair>} */
async function bare() {
  /** @param {net.Socket} s */
  const echo = (s) => {
    s.setNoDelay(true);
    s.on('data', (d) => s.write(d));
  };
  const server = kind === 'tls' ? tls.createServer({ ...selfSignedCertificate(), minVersion: 'TLSv1.3' }, echo) : net.createServer(echo);
  server.on('connection', (/** @type {net.Socket} */ raw) => raw.setNoDelay(true));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const port = /** @type {net.AddressInfo} */ (server.address()).port;
  const s = kind === 'tls' ? tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false, minVersion: 'TLSv1.3' }) : net.connect(port, '127.0.0.1');
  s.setNoDelay(true);
  await new Promise((resolve) => s.once(kind === 'tls' ? 'secureConnect' : 'connect', () => resolve(undefined)));
  let got = 0;
  /** @type {() => void} */
  let reply = () => {};
  // a reply is whole once BYTES bytes came back (a stream may split them)
  s.on('data', (d) => {
    got += d.length;
    if (got >= BYTES) {
      got -= BYTES;
      reply();
    }
  });
  return { send: (m) => { s.write(m); }, onReply: (f) => { reply = f; }, stop: async () => { s.destroy(); server.close(); } };
}

/** @returns {Promise<Pair>} */
async function conn() {
  const logger = createMemoryLogger();
  const t = kind === 'ws' ? webSocketTransport({})({ logger }) : tcpTransport({ encrypt: kind === 'tls' })({ logger });
  const listener = t.createListener({
    onConnection: (/** @type {any} */ c) => {
      c.onmessage = (/** @type {Uint8Array} */ d) => c.send(d.slice());
      c.onclose = () => {};
    },
  });
  await listener.listen({ host: '127.0.0.1', port: 0 });
  const c = await t.dial(/** @type {string} */ (listener.addresses()[0]));
  /** @type {() => void} */
  let reply = () => {};
  c.onmessage = () => reply();
  return { send: (m) => c.send(m), onReply: (f) => { reply = f; }, stop: async () => { c.close('done'); await listener.close(); } };
}

/** @returns {Promise<Pair>} */
async function mesh() {
  const token = 'link-cpu-0123456789abcdef';
  const tcp = { encrypt: kind === 'tls' };
  const start = async (/** @type {any} */ init) => {
    const n = createMeshNode({ identity: await createIdentity(), token, logger: createMemoryLogger(), tcp, ...init });
    await n.start();
    return n;
  };
  const a = await start({ listen: { host: '127.0.0.1', port: 0 } });
  const b = await start({});
  a.onMessage((from, p) => { a.send(from, p); });
  const scheme = kind === 'ws' ? 'ws:' : `${kind}:`;
  const peer = await b.connect(/** @type {string} */ (a.addresses().find((u) => u.startsWith(scheme))));
  /** @type {() => void} */
  let reply = () => {};
  b.onMessage(() => reply());
  return { send: (m) => { b.send(peer.id, m); }, onReply: (f) => { reply = f; }, stop: async () => { await b.stop(); await a.stop(); } };
}

const pair = await (layer === 'bare' ? bare() : layer === 'conn' ? conn() : mesh());
const msg = new Uint8Array(BYTES).fill(3);
/** @param {number} n */
const trip = (n) => new Promise((resolve) => {
  let left = n;
  pair.onReply(() => (--left === 0 ? resolve(undefined) : pair.send(msg)));
  pair.send(msg);
});
await trip(COUNT);
/** @type {[number, number][]} [CPU µs per round trip, round trips/s] */
const rounds = [];
for (let r = 0; r < 5; r++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await trip(COUNT);
  const cpu = process.cpuUsage(c0);
  rounds.push([(cpu.user + cpu.system) / COUNT, (COUNT * 1000) / (performance.now() - t0)]);
}
rounds.sort((x, y) => x[0] - y[0]);
process.stdout.write(`stage link.${layer}.${kind}.${BYTES} ${rounds[2][0].toFixed(2)} ${Math.round(rounds[2][1])}\n`);
await pair.stop();
process.exit(0);
