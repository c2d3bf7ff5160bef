#!/usr/bin/env node
// @ts-check
/**
 * The mesh's envelope codec against cbor-x: encode + decode of the frames the mesh
 * exchanges most (MSG, REQ, RES) and the handshake's HELLO, with the hand-written
 * envelope codec (packages/mesh/src/frames.js over cbor-lite.js: the encoders, and
 * on receipt msgPayload for MSG and decodeFrame for the rest, as a Link does) and
 * with cbor-x (encode of the same array, decode back to an array: no shape checks,
 * which favours cbor-x). The bytes are checked to be the same before timing.
 *
 *   node bench/mesh-envelope-codec.js
 *
 * Prints `bench mesh.envelope.<codec>.<frame> <ns> ns` per encode + decode: the median
 * of ROUNDS rounds of N pairs, in CPU time (so other processes on the machine count
 * less). packages/mesh/src/cbor-lite.js's header quotes the figures.
 */
// cbor-x is @termite/core's dependency (its fallback encoder), installed at the top of
// node_modules; the root does not declare it again (npm ci then asks for the lock to list
// every platform build of cbor-extract, which npm install does not write).
import { Encoder } from 'cbor-x';
import { T, decodeFrame, encodeHello, encodeIdPayload, encodeMsg, msgPayload } from '../packages/mesh/src/frames.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const N = Number(process.env.BENCH_PAIRS ?? 100_000);

const cborx = new Encoder({ useRecords: false, tagUint8Array: false, mapsAsObjects: false, pack: false });
const NODE_ID = 'abcdefghijklmnopqrstuvwxyz234567';
const small = new Uint8Array(40).fill(7);
const large = new Uint8Array(4096).fill(9);
const hello = {
  nodeId: NODE_ID, publicKey: new Uint8Array(32).fill(1), nonce: new Uint8Array(32).fill(2), role: /** @type {0} */ (0),
  maxMessageBytes: 1 << 20, listenUrl: 'ws://127.0.0.1:7400/',
};

/**
 * Each case: the frame as an array (for cbor-x) and the mesh's own encode + decode.
 * @type {Array<{name: string, value: unknown[], lite: () => unknown}>}
 */
const CASES = [
  { name: 'msg40', value: [1, T.MSG, small], lite: () => msgPayload(encodeMsg(small)) },
  { name: 'msg4k', value: [1, T.MSG, large], lite: () => msgPayload(encodeMsg(large)) },
  { name: 'req', value: [1, T.REQ, 123456, small], lite: () => decodeFrame(encodeIdPayload(T.REQ, 123456, small)) },
  { name: 'res', value: [1, T.RES, 123456, small], lite: () => decodeFrame(encodeIdPayload(T.RES, 123456, small)) },
  {
    name: 'hello',
    value: [1, T.HELLO, hello.nodeId, hello.publicKey, hello.nonce, hello.role, hello.maxMessageBytes, hello.listenUrl],
    lite: () => decodeFrame(encodeHello(hello)),
  },
];

/** The two encodings must be the same bytes, or the comparison means nothing. */
function checkSameBytes() {
  const ours = [encodeMsg(small), encodeMsg(large), encodeIdPayload(T.REQ, 123456, small), encodeIdPayload(T.RES, 123456, small), encodeHello(hello)];
  CASES.forEach((c, i) => {
    const theirs = cborx.encode(c.value);
    if (Buffer.compare(Buffer.from(ours[i]), theirs) !== 0) throw new Error(`${c.name}: cbor-x encodes other bytes than frames.js`);
  });
}

/** @param {string} name @param {() => unknown} pair one encode + decode */
function report(name, pair) {
  /** @type {number[]} */
  const rounds = [];
  let sink = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const u0 = process.cpuUsage();
    for (let i = 0; i < N; i++) if (pair() !== null) sink++;
    const u = process.cpuUsage(u0);
    rounds.push(((u.user + u.system) * 1000) / N);
  }
  rounds.sort((a, b) => a - b);
  if (sink !== ROUNDS * N) throw new Error(`${name}: a decode failed`);
  console.log(`bench mesh.envelope.${name} ${rounds[rounds.length >> 1].toFixed(1)} ns`);
}

checkSameBytes();
for (const c of CASES) {
  report(`cbor-lite.${c.name}`, c.lite);
  report(`cbor-x.${c.name}`, () => cborx.decode(cborx.encode(c.value)));
}
