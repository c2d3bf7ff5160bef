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
 *   node bench/mesh-stages.js cpu tcp|tls BYTES COUNT [PASSES]
 *       CPU of the echo side per round trip (user + system, /proc/PID/stat, Linux only),
 *       for the bare socket echo (bench/mesh-raw.js), our framing alone and a MeshNode:
 *       the echo servers run as child processes, each client does 3 timed rounds of
 *       COUNT round trips after COUNT of warm-up, PASSES times in turn;
 *       "bench cpu.echo.<raw|framed|mesh>.<tcp|tls>.<BYTES> <µs> us" (median of the
 *       passes), "# pass N: ..." lines, and for bench/mesh.js
 *       "result stage.cpu.echo.<raw|framed|mesh>.<tcp|tls>.<BYTES> <pass> <µs>". Where the echo side's time goes per layer, with
 *       the client's time and the wake-ups out of the picture.
 *
 * Below the framed figure is the bare socket (bench/mesh-raw.js tcp|tls); above the
 * mesh figure, the Scheme echo (payload.64k.2node): the runtime's decode, scheduling,
 * the process's receive and send, and encode. Every loop is bounded by a count.
 */
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { TcpFrameReader, TcpFrameWriter, readIntoOwnBuffers } from '../packages/mesh/src/transports/tcp-frames.js';
import { selfSignedCertificate } from '../packages/mesh/src/transports/tls-certificate.js';
import { encodeMsg, msgPayload } from '../packages/mesh/src/frames.js';
import { createMeshNode, createIdentity, createMemoryLogger } from '../packages/mesh/src/index.js';
import { encodeValue, encodedSpare, decodeValue } from '../packages/scheme/src/codec/index.js';
import { Pair, Sym } from '../packages/scheme/src/values.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startChild, stopChild, runChild, waitFor } from './lib/index.js';

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

/** CPU µs (user + system) a process has used so far, from /proc. @param {number} pid */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

/**
 * The echo side's CPU per round trip for the bare echo, our framing and a MeshNode (see the header).
 * size: one bounded sequence (start both echo servers, the passes, stop them); split, it would pass the handles around.
 * @param {string} links tcp|tls @param {number} bytes @param {number} count @param {number} passes
 */
async function echoCpu(links, bytes, count, passes) {
  const self = fileURLToPath(import.meta.url);
  const raw = path.join(path.dirname(self), 'mesh-raw.js');
  const ours = startChild(process.execPath, [self, 'echo']);
  const bare = startChild(process.execPath, [raw, 'echo']);
  try {
    const key = links === 'tls' ? 'tlsport' : 'tcpport';
    const ok = await waitFor(() => /mesh-tls/.test(ours.stdout()) && new RegExp(key).test(bare.stdout()), 30_000);
    if (!ok) throw new Error('echo servers did not start');
    const at = (/** @type {string} */ out, /** @type {string} */ name) => /** @type {string} */ ((new RegExp(`^${name} (\\S+)$`, 'm').exec(out) ?? [])[1]);
    /** @type {[string, number, string[]][]} */
    const stages = [
      ['raw', bare.pid, [raw, links, at(bare.stdout(), key), String(bytes), String(count), '3']],
      ['framed', ours.pid, [self, 'framed', links, at(ours.stdout(), `framed-${links}`), String(bytes), String(count), '3']],
      ['mesh', ours.pid, [self, 'mesh', links, at(ours.stdout(), `mesh-${links}`), String(bytes), String(count), '3']],
    ];
    /** @type {Record<string, number[]>} */
    const per = {};
    for (let p = 1; p <= passes; p++) {
      const line = [];
      for (const [name, pid, args] of stages) {
        const c0 = cpuMicros(pid);
        const r = await runChild(process.execPath, args, { timeoutMs: 300_000 });
        if (r.code !== 0) throw new Error(`${name} client failed: ${r.stderr.slice(-500)}`);
        const us = (cpuMicros(pid) - c0) / (4 * count); // warm-up and 3 rounds
        (per[name] ??= []).push(us);
        line.push(`${name} ${us.toFixed(1)}`);
        process.stdout.write(`result stage.cpu.echo.${name}.${links}.${bytes} ${p} ${us}\n`);
      }
      process.stdout.write(`# pass ${p}: echo-side CPU µs per round trip: ${line.join(', ')}\n`);
    }
    for (const [name, v] of Object.entries(per)) {
      const m = [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
      process.stdout.write(`bench cpu.echo.${name}.${links}.${bytes} ${m.toFixed(1)} us\n`);
    }
  } finally {
    await stopChild(ours);
    await stopChild(bare);
  }
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
} else if (mode === 'cpu') {
  await echoCpu(kind, Number(where), Number(bytesS), Number(countS ?? 1));
  process.exit(0);
} else {
  process.stderr.write('usage: mesh-stages.js echo | framed tcp|tls PORT BYTES COUNT ROUNDS | mesh tcp|tls URL BYTES COUNT ROUNDS | codec BYTES COUNT | cpu tcp|tls BYTES COUNT [PASSES]\n');
  process.exit(2);
}
