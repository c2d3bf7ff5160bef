#!/usr/bin/env node
// @ts-check
/**
 * The stages of a 64 KiB round trip between two Node processes, for bench/mesh.js: the
 * same echo as payload.64k.2node with one layer added at a time, so that the difference
 * between two neighbouring figures is what that layer costs.
 *
 *   node bench/mesh-stages.js echo
 *       echo servers: prints "framed-tcp PORT", "framed-tls PORT" (the mesh's TCP framing,
 *       tcp-frames.js, over node:net and node:tls, nothing else; read into the reader's
 *       own buffers, as the transport reads) and "mesh-tcp URL",
 *       "mesh-tls URL" (a MeshNode each, admitted links, MSG frames echoed back)
 *   node bench/mesh-stages.js framed tcp|tls PORT BYTES COUNT ROUNDS
 *   node bench/mesh-stages.js mesh tcp|tls URL BYTES COUNT ROUNDS
 *       the client: "result stage.<framed|mesh>.<tcp|tls>.<BYTES> <round> <round trips/s>"
 *   node bench/mesh-stages.js codec BYTES COUNT
 *       CPU per message of the runtime's own steps, in this process: encoding a SEND of
 *       a BYTES bytevector (the value codec), the MSG envelope (in place, headroom),
 *       assembling a message that spans two socket reads (the copy the TCP reader
 *       makes), and decoding it with and without viewBytes:
 *       "result stage.<encode|envelope|assemble|decode.copy|decode.view>.<BYTES> 0 <µs>"
 *
 * Below the framed figure is the bare socket (bench/mesh-raw.js tcp|tls); above the
 * mesh figure, the Scheme echo (payload.64k.2node): the runtime's decode, scheduling,
 * the process's receive and send, and encode. Every loop is bounded by a count.
 */
import net from 'node:net';
import tls from 'node:tls';
import { TcpFrameReader, TcpFrameWriter, readIntoOwnBuffers } from '../packages/mesh/src/transports/tcp-frames.js';
import { selfSignedCertificate } from '../packages/mesh/src/transports/tls-certificate.js';
import { encodeMsg, msgPayload } from '../packages/mesh/src/frames.js';
import { createMeshNode, createIdentity, createMemoryLogger } from '../packages/mesh/src/index.js';
import { encodeValue, encodedSpare, decodeValue } from '../packages/scheme/src/codec/index.js';
import { Pair, Sym } from '../packages/scheme/src/values.js';

const TOKEN = 'bench-stages-0123456789abcdef';
const [mode, kind, where, bytesS, countS, roundsS] = process.argv.slice(2);

/** @param {Partial<import('../packages/mesh/src/options.js').MeshNodeInit>} init */
async function meshNode(init) {
  const n = createMeshNode({ identity: await createIdentity(), token: TOKEN, logger: createMemoryLogger(), ...init });
  await n.start();
  return n;
}

/**
 * Read framed messages from `socket` as the TCP transport does: into the reader's own
 * buffers (plain TCP and TLS).
 * @param {net.Socket} socket @param {TcpFrameReader} r
 */
function readFrames(socket, r) {
  socket.pause();
  if (!readIntoOwnBuffers(socket, r, new Uint8Array(0), (n) => r.readDone(n))) socket.on('data', (c) => r.push(c));
  socket.resume();
}

/** Echo every framed message back on `socket`. @param {net.Socket} socket */
function framedEcho(socket) {
  const w = new TcpFrameWriter(socket);
  readFrames(socket, new TcpFrameReader(1 << 30, (m) => w.write(m), () => socket.destroy()));
  socket.on('error', () => socket.destroy());
}

/** `count` round trips of `send`, after a warm-up, ROUNDS times; prints each round. @param {string} name @param {(m: Uint8Array) => void} send @param {(f: () => void) => void} onReply */
async function timed(name, send, onReply) {
  const bytes = Number(bytesS);
  const count = Number(countS);
  const msg = new Uint8Array(bytes).fill(7);
  /** @type {() => void} */
  let next = () => {};
  onReply(() => next());
  /** @param {number} n */
  const trip = (n) => new Promise((resolve) => {
    let left = n;
    next = () => (--left === 0 ? resolve(undefined) : send(msg));
    send(msg);
  });
  await trip(count);
  for (let r = 1; r <= Number(roundsS); r++) {
    const t0 = performance.now();
    await trip(count);
    process.stdout.write(`result ${name}.${bytes} ${r} ${(count * 1000) / (performance.now() - t0)}\n`);
  }
}

/** µs per call of `f` over `count` calls (after as many warm-up calls). @param {number} count @param {() => void} f */
function perCall(count, f) {
  for (let i = 0; i < count; i++) f();
  const t0 = performance.now();
  for (let i = 0; i < count; i++) f();
  return ((performance.now() - t0) * 1000) / count;
}

if (mode === 'echo') {
  const plain = net.createServer((s) => { s.setNoDelay(true); framedEcho(s); }).listen(0, '127.0.0.1');
  const secure = tls.createServer({ ...selfSignedCertificate(), minVersion: 'TLSv1.3' }, framedEcho).listen(0, '127.0.0.1');
  secure.on('connection', (raw) => raw.setNoDelay(true));
  await Promise.all([plain, secure].map((s) => new Promise((r) => (s.listening ? r(undefined) : s.once('listening', r)))));
  const meshTcp = await meshNode({ listen: { host: '127.0.0.1', port: 0 }, tcp: { encrypt: false } });
  const meshTls = await meshNode({ listen: { host: '127.0.0.1', port: 0 }, tcp: { encrypt: true } });
  for (const n of [meshTcp, meshTls]) n.onMessage((from, p) => { n.send(from, p); });
  const port = (/** @type {net.Server} */ s) => /** @type {net.AddressInfo} */ (s.address()).port;
  process.stdout.write(`framed-tcp ${port(plain)}\nframed-tls ${port(secure)}\n`);
  process.stdout.write(`mesh-tcp ${meshTcp.addresses().find((u) => u.startsWith('tcp:'))}\nmesh-tls ${meshTls.addresses().find((u) => u.startsWith('tls:'))}\n`);
  const stop = () => process.exit(0);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} else if (mode === 'framed') {
  const socket = kind === 'tls'
    ? tls.connect({ port: Number(where), host: '127.0.0.1', rejectUnauthorized: false, minVersion: 'TLSv1.3' })
    : net.connect(Number(where), '127.0.0.1');
  socket.setNoDelay(true);
  await new Promise((resolve, reject) => {
    socket.once(kind === 'tls' ? 'secureConnect' : 'connect', () => resolve(undefined));
    socket.once('error', reject);
  });
  const w = new TcpFrameWriter(socket);
  await timed(`stage.framed.${kind}`, (m) => w.write(m), (f) => {
    readFrames(socket, new TcpFrameReader(1 << 30, () => f(), () => socket.destroy()));
  });
  process.exit(0);
} else if (mode === 'mesh') {
  const b = await meshNode({ tcp: { encrypt: kind === 'tls' } });
  const peer = await b.connect(where);
  await timed(`stage.mesh.${kind}`, (m) => b.send(peer.id, m), (f) => b.onMessage(() => f()));
  await b.stop();
  process.exit(0);
} else if (mode === 'codec') {
  const bytes = Number(kind);
  const count = Number(where);
  const bv = new Uint8Array(bytes).fill(7);
  const value = [1, 'x'.repeat(43), 12, new Pair(Sym.intern('from'), bv), []]; // a SEND frame's shape
  const encoded = encodeValue(value).slice();
  const frame = encodeMsg(encoded);
  const cut = frame.length - 20; // a message that spans two socket reads
  const parts = [Buffer.from(frame.subarray(0, cut)), Buffer.from(frame.subarray(cut))];
  const whole = Buffer.concat(parts, frame.length);
  const payload = /** @type {Uint8Array} */ (msgPayload(whole));
  const out = {
    encode: perCall(count, () => { encodeValue(value); }),
    envelope: perCall(count, () => { const e = encodeValue(value); encodeMsg(e, encodedSpare(e)); }),
    assemble: perCall(count, () => { Buffer.concat(parts, frame.length); }),
    'decode.copy': perCall(count, () => { decodeValue(payload); }),
    'decode.view': perCall(count, () => { decodeValue(payload, { viewBytes: true }); }),
  };
  out.envelope = Math.max(0, out.envelope - out.encode);
  for (const [k, v] of Object.entries(out)) process.stdout.write(`result stage.${k}.${bytes} 0 ${v}\n`);
  process.exit(0);
} else {
  process.stderr.write('usage: mesh-stages.js echo | framed tcp|tls PORT BYTES COUNT ROUNDS | mesh tcp|tls URL BYTES COUNT ROUNDS | codec BYTES COUNT\n');
  process.exit(2);
}
