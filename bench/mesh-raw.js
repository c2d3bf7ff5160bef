#!/usr/bin/env node
// @ts-check
/**
 * The ceilings of bench/mesh.js: the same ping-pong as the mesh figures with bare
 * transports between two Node processes, nothing else on the path.
 *
 *   node bench/mesh-raw.js echo                       an echo server: prints "port N", echoes
 *                                                     every WebSocket message, and answers
 *                                                     WebRTC offers signalled over the socket;
 *                                                     prints "tcpport N" and echoes TCP bytes
 *   node bench/mesh-raw.js ws PORT BYTES COUNT ROUNDS      ping-pong over a bare `ws` socket
 *   node bench/mesh-raw.js tcp TCPPORT BYTES COUNT ROUNDS  over a bare TCP socket (node:net, no
 *                                                     framing at all: the floor of any Node
 *                                                     transport on this machine)
 *   node bench/mesh-raw.js tls TLSPORT BYTES COUNT ROUNDS  the same in TLS 1.3 (node:tls, the
 *                                                     mesh's self-signed certificate, the
 *                                                     cipher OpenSSL picks: what the mesh's
 *                                                     TLS links run on); the echo prints
 *                                                     "tlsport N"
 *   node bench/mesh-raw.js webrtc PORT BYTES COUNT ROUNDS  over a bare node-datachannel channel
 *                                                     (ordered, reliable; signalled over ws)
 *
 * The client prints "result raw.<ws|webrtc|tcp|tls>[.<bytes>] <round> <round trips/s>" per
 * timed round after a warm-up round. TCP_NODELAY is set on both ends (`ws`'s default).
 */
import net from 'node:net';
import tls from 'node:tls';
import { selfSignedCertificate } from '../packages/mesh/src/transports/tls-certificate.js';
import { WebSocketServer, WebSocket } from 'ws';
import nodeDataChannel from 'node-datachannel';

const [mode, portS, bytesS, countS, roundsS] = process.argv.slice(2);

if (mode === 'echo') {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  wss.on('listening', () => {
    const a = /** @type {import('node:net').AddressInfo} */ (wss.address());
    process.stdout.write(`port ${a.port}\n`);
  });
  const tcp = net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('data', (d) => socket.write(d));
    socket.on('error', () => socket.destroy());
  });
  tcp.listen(0, '127.0.0.1', () => {
    process.stdout.write(`tcpport ${/** @type {import('node:net').AddressInfo} */ (tcp.address()).port}\n`);
  });
  const secure = tls.createServer({ ...selfSignedCertificate(), minVersion: 'TLSv1.3' }, (socket) => {
    socket.on('data', (d) => socket.write(d));
    socket.on('error', () => socket.destroy());
  });
  secure.on('connection', (raw) => raw.setNoDelay(true));
  secure.listen(0, '127.0.0.1', () => {
    process.stdout.write(`tlsport ${/** @type {import('node:net').AddressInfo} */ (secure.address()).port}\n`);
  });
  wss.on('connection', (ws) => {
    /** @type {import('node-datachannel').PeerConnection | null} */
    let pc = null;
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        ws.send(data, { binary: true });
        return;
      }
      const m = JSON.parse(String(data));
      if (m.kind === 'offer') {
        pc = new nodeDataChannel.PeerConnection('echo', { iceServers: [], bindAddress: '127.0.0.1', maxMessageSize: 262144 });
        pc.onLocalDescription((sdp, type) => ws.send(JSON.stringify({ kind: type, sdp })));
        pc.onLocalCandidate((candidate, mid) => ws.send(JSON.stringify({ kind: 'candidate', candidate, mid })));
        pc.onDataChannel((dc) => dc.onMessage((msg) => {
          if (typeof msg === 'string') dc.sendMessage(msg);
          else dc.sendMessageBinary(/** @type {any} */ (msg));
        }));
        pc.setRemoteDescription(m.sdp, m.kind);
      } else if (m.kind === 'candidate' && pc) pc.addRemoteCandidate(m.candidate, m.mid);
    });
    ws.on('close', () => pc?.close());
  });
  const stop = () => {
    wss.close();
    tcp.close();
    secure.close();
    nodeDataChannel.cleanup();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} else if (mode === 'tcp' || mode === 'tls') {
  const bytes = Number(bytesS);
  const count = Number(countS);
  const rounds = Number(roundsS);
  const msg = new Uint8Array(bytes).fill(7);
  const name = `raw.${mode}${bytes > 64 ? `.${bytes}` : ''}`;
  const socket = mode === 'tcp'
    ? net.connect(Number(portS), '127.0.0.1')
    : tls.connect({ port: Number(portS), host: '127.0.0.1', rejectUnauthorized: false, minVersion: 'TLSv1.3' });
  socket.setNoDelay(true);
  await new Promise((resolve, reject) => {
    socket.once(mode === 'tcp' ? 'connect' : 'secureConnect', () => resolve(undefined));
    socket.once('error', reject);
  });
  /** @type {(() => void) | null} */
  let onReply = null;
  // a reply is whole once `bytes` bytes came back (TCP may split them)
  let got = 0;
  socket.on('data', (d) => {
    got += d.length;
    if (got >= bytes) {
      got -= bytes;
      onReply?.();
    }
  });
  /** @param {number} n */
  const trip = (n) => new Promise((resolve) => {
    let left = n;
    onReply = () => {
      if (--left === 0) resolve(undefined);
      else socket.write(msg);
    };
    socket.write(msg);
  });
  await trip(count); // warm-up
  for (let r = 1; r <= rounds; r++) {
    const t0 = performance.now();
    await trip(count);
    process.stdout.write(`result ${name} ${r} ${(count * 1000) / (performance.now() - t0)}\n`);
  }
  socket.destroy();
  process.exit(0);
} else if (mode === 'ws' || mode === 'webrtc') {
  const bytes = Number(bytesS);
  const count = Number(countS);
  const rounds = Number(roundsS);
  const msg = new Uint8Array(bytes).fill(7);
  const name = `raw.${mode}${bytes > 64 ? `.${bytes}` : ''}`;
  const ws = new WebSocket(`ws://127.0.0.1:${portS}/`);
  await new Promise((resolve, reject) => {
    ws.once('open', () => resolve(undefined));
    ws.once('error', reject);
  });
  /** @type {(m: Uint8Array) => void} */
  let send;
  /** @type {(() => void) | null} */
  let onReply = null;
  /** @type {import('node-datachannel').PeerConnection | null} */
  let pc = null;
  if (mode === 'ws') {
    send = (m) => ws.send(m, { binary: true });
    ws.on('message', () => onReply?.());
  } else {
    pc = new nodeDataChannel.PeerConnection('ping', { iceServers: [], bindAddress: '127.0.0.1', maxMessageSize: 262144 });
    const p = /** @type {import('node-datachannel').PeerConnection} */ (pc);
    /** @type {{candidate: string, mid: string}[]} */
    const held = [];
    let answered = false;
    p.onLocalDescription((sdp, type) => ws.send(JSON.stringify({ kind: type, sdp })));
    // candidates only after the answer is applied (see transports/webrtc.js: DTLS race)
    p.onLocalCandidate((candidate, mid) => {
      if (answered) ws.send(JSON.stringify({ kind: 'candidate', candidate, mid }));
      else held.push({ candidate, mid });
    });
    const dc = p.createDataChannel('raw');
    ws.on('message', (data) => {
      const m = JSON.parse(String(data));
      if (m.kind === 'answer') {
        p.setRemoteDescription(m.sdp, m.kind);
        answered = true;
        for (const c of held.splice(0)) ws.send(JSON.stringify({ kind: 'candidate', ...c }));
      } else if (m.kind === 'candidate') p.addRemoteCandidate(m.candidate, m.mid);
    });
    await new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('data channel did not open within 15 s')), 15000);
      dc.onOpen(() => {
        clearTimeout(t);
        resolve(undefined);
      });
    });
    send = (m) => dc.sendMessageBinary(m);
    dc.onMessage(() => onReply?.());
  }
  /** @param {number} n */
  const trip = (n) => new Promise((resolve) => {
    let left = n;
    onReply = () => {
      if (--left === 0) resolve(undefined);
      else send(msg);
    };
    send(msg);
  });
  await trip(count); // warm-up: as many round trips as a timed round
  for (let r = 1; r <= rounds; r++) {
    const t0 = performance.now();
    await trip(count);
    process.stdout.write(`result ${name} ${r} ${(count * 1000) / (performance.now() - t0)}\n`);
  }
  ws.close();
  pc?.close();
  nodeDataChannel.cleanup();
  process.exit(0);
} else {
  process.stderr.write('usage: mesh-raw.js echo | ws PORT BYTES COUNT ROUNDS | webrtc PORT BYTES COUNT ROUNDS | tcp TCPPORT BYTES COUNT ROUNDS | tls TLSPORT BYTES COUNT ROUNDS\n');
  process.exit(2);
}
