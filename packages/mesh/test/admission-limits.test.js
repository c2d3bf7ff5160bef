// @ts-check
/**
 * Admission an unauthenticated client cannot exhaust: the HELLO deadline, the
 * per-address and global bounds on handshakes in progress with eviction of the
 * oldest that has not sent its HELLO (or not proven the token), the grace of a new
 * handshake (placed beyond the share rather than evicted while young), and the Origin
 * check on WebSocket upgrades. Real listening nodes; the attacker is a raw `ws`
 * client (bound to other loopback addresses where the test needs several IPs).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { WebSocket } from 'ws';
import { nodeFactory, within, TOKEN } from './helpers.js';
import { createIdentity } from '../src/identity.js';
import { createMemoryLogger } from '../src/logger.js';
import { encodeHello, encodeError, decodeFrame, T } from '../src/frames.js';
import { randomBytes } from '../src/bytes.js';
import { addressKey } from '../src/handshake-table.js';
import { NonceCache, ROLE_DIALER, ROLE_LISTENER, deriveTokenKey, runHandshake } from '../src/admission.js';
import { webSocketTransport } from '../src/transports/websocket.js';

const nodes = nodeFactory();
/** @type {Set<WebSocket>} */
const sockets = new Set();
after(async () => {
  for (const s of sockets) s.terminate();
  await nodes.stopAll();
});

/**
 * A raw WebSocket client that sends nothing (or what the test makes it send).
 * Resolves once upgraded; `closed` resolves with the daemon's ERROR message (if it
 * sent one) and the close time.
 * @param {string} url @param {{localAddress?: string, headers?: Record<string, string>}} [o]
 */
async function idle(url, o = {}) {
  const ws = new WebSocket(url, { localAddress: o.localAddress, headers: o.headers, perMessageDeflate: false });
  sockets.add(ws);
  /** @type {string | null} */
  let error = null;
  /** @type {number[]} types of the frames received */
  const types = [];
  /** @type {(() => void) | null} */
  let wake = null;
  ws.on('message', (b) => {
    try {
      const f = /** @type {any} */ (decodeFrame(new Uint8Array(/** @type {Buffer} */ (b))));
      types.push(f.type);
      if (f.type === T.ERROR) error = f.message;
      wake?.();
    } catch { /* not a mesh frame */ }
  });
  const closed = new Promise((resolve) => ws.once('close', () => { sockets.delete(ws); resolve({ error, at: Date.now() }); }));
  await within(new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); }), 5000, 'upgrade');
  return {
    ws, opened: Date.now(), closed: /** @type {Promise<{error: string | null, at: number}>} */ (closed), isOpen: () => ws.readyState === WebSocket.OPEN,
    /** Wait for a frame of this type from the listener. @param {number} type */
    frame: (type) => within(new Promise((resolve) => {
      const check = () => { if (types.includes(type)) resolve(undefined); };
      wake = check;
      check();
    }), 3000, `frame ${type}`),
  };
}

/** A HELLO of a fresh identity, as a dialler sends first. */
async function hello() {
  const id = await createIdentity();
  return encodeHello({ nodeId: id.id, publicKey: id.publicKey, nonce: randomBytes(32), role: ROLE_DIALER, maxMessageBytes: 1 << 20, listenUrl: null });
}

test('an inbound connection that sends no HELLO within helloTimeoutMs is refused with "handshake timeout" and closed', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, helloTimeoutMs: 300, handshakeTimeoutMs: 5000 });
  const s = await idle(a.addresses()[0]);
  const c = await within(s.closed, 3000, 'close of the idle connection');
  assert.match(String(c.error), /^admission refused: handshake timeout \(no HELLO within 300 ms\)/);
  assert.ok(c.at - s.opened >= 250 && c.at - s.opened < 1500, `closed after ${c.at - s.opened} ms`);
  // logged once as a flood summary (warn), each connection at info
  assert.ok(a.logs.some((e) => e.level === 'warn' && /handshakes refused or evicted/.test(e.message) && /** @type {any} */ (e.fields).helloTimeouts === 1));
  assert.ok(a.logs.some((e) => e.level === 'info' && e.message === 'handshake abandoned' && /no HELLO/.test(String(e.fields?.detail))));
});

test('idle connections filling an address\'s share are evicted oldest first; a dialler that sends its HELLO joins every time', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, maxHandshakesPerAddress: 4, maxHandshakes: 8, helloTimeoutMs: 20_000, handshakeTimeoutMs: 30_000, handshakeGraceMs: 0 });
  const url = a.addresses()[0];
  const held = [];
  for (let i = 0; i < 4; i++) held.push(await idle(url));
  const fifth = await idle(url); // evicts the oldest
  const c = await within(held[0].closed, 3000, 'eviction of the oldest');
  assert.match(String(c.error), /^admission refused: too many handshakes \(evicted after \d+ ms without a HELLO: 4 handshakes from 127\.0\.0\.1 are in progress\)/);
  assert.deepEqual(held.slice(1).map((h) => h.isOpen()), [true, true, true]);
  assert.ok(fifth.isOpen());
  const open = [...held.slice(1), fifth];
  for (let i = 0; i < 5; i++) {
    // the address's share is full of idle connections: the join takes the oldest's place
    const b = await nodes.start();
    const peer = await within(b.connect(url, { timeoutMs: 5000 }), 5000, `join ${i}`);
    assert.equal(peer.id, a.id);
    await b.stop();
    const oldest = /** @type {(typeof open)[0]} */ (open.shift());
    assert.match(String((await within(oldest.closed, 3000, `eviction by join ${i}`)).error), /too many handshakes/);
    assert.ok(open.every((s) => s.isOpen()), 'only the oldest was evicted');
    open.push(await idle(url));
  }
});

test('a handshake whose peer sent its HELLO outlives idle ones; when only such remain the oldest unproven is evicted', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, maxHandshakesPerAddress: 2, helloTimeoutMs: 20_000, handshakeTimeoutMs: 30_000, handshakeGraceMs: 0 });
  const url = a.addresses()[0];
  const staller = await idle(url);
  staller.ws.send(await hello()); // then never AUTH
  await staller.frame(T.AUTH); // the listener checked the HELLO and answers it
  const x = await idle(url);
  const y = await idle(url); // the table of 127.0.0.1 is full: x (no HELLO) goes, not the staller
  assert.match(String((await within(x.closed, 3000, 'eviction of x')).error), /without a HELLO/);
  assert.ok(staller.isOpen() && y.isOpen());
  y.ws.send(await hello());
  await y.frame(T.AUTH);
  const z = await idle(url); // both remaining sent HELLOs: the older of them, the staller, goes
  assert.match(String((await within(staller.closed, 3000, 'eviction of the staller')).error), /without proof of the token/);
  assert.ok(y.isOpen() && z.isOpen());
});

test('a new handshake keeps its place through its grace: newer idle connections are placed beyond the share, up to four times it, and a late HELLO is answered', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, maxHandshakesPerAddress: 2, helloTimeoutMs: 20_000, handshakeTimeoutMs: 30_000, handshakeGraceMs: 15_000 });
  const url = a.addresses()[0];
  const late = await idle(url); // a dialler whose HELLO a loaded machine delays
  const more = [];
  for (let i = 0; i < 7; i++) more.push(await idle(url)); // 8 from 127.0.0.1: four times its share
  assert.ok(late.isOpen() && more.every((s) => s.isOpen()), 'no place taken back in its grace');
  late.ws.send(await hello());
  await late.frame(T.AUTH); // answered: it kept its place (with no grace the third connection evicts it)
  const ninth = await idle(url); // the overflow is full: the oldest young one without a HELLO goes
  assert.match(String((await within(more[0].closed, 3000, 'eviction at four times the share')).error),
    /^admission refused: too many handshakes \(evicted after \d+ ms without a HELLO: 8 handshakes from 127\.0\.0\.1 are in progress, all started within 15000 ms\)/);
  assert.ok(late.isOpen() && ninth.isOpen() && more.slice(1).every((s) => s.isOpen()));
});

test('past its grace a place is taken back first: the share holds again once the young ones have aged', async () => {
  const GRACE = 1500;
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, maxHandshakesPerAddress: 2, helloTimeoutMs: 20_000, handshakeTimeoutMs: 30_000, handshakeGraceMs: GRACE });
  const url = a.addresses()[0];
  const old = [await idle(url), await idle(url)];
  const aged = Math.max(...old.map((s) => s.opened)) + GRACE + 100;
  await new Promise((r) => setTimeout(r, aged - Date.now())); // the grace is a time: let it pass
  const young = [await idle(url), await idle(url)]; // each takes the place of an aged one
  await within(Promise.all(old.map((s) => s.closed)), 3000, 'eviction of the aged places');
  for (const s of old) assert.match(String((await s.closed).error), /evicted after \d+ ms without a HELLO: 2 handshakes from 127\.0\.0\.1 are in progress\)/);
  const third = await idle(url); // both places are young: placed beyond the share
  assert.ok(young.every((s) => s.isOpen()) && third.isOpen());
});

test('one address cannot take the whole table: its share is bounded, and a full table evicts the oldest idle connection of any address', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, maxHandshakesPerAddress: 3, maxHandshakes: 5, helloTimeoutMs: 20_000, handshakeTimeoutMs: 30_000, handshakeGraceMs: 0 });
  const url = a.addresses()[0];
  const one = [];
  for (let i = 0; i < 5; i++) one.push(await idle(url, { localAddress: '127.0.0.2' }));
  // 127.0.0.2 holds 3 places at most: its 4th and 5th evicted its 1st and 2nd
  await within(Promise.all([one[0].closed, one[1].closed]), 3000, 'evictions within 127.0.0.2');
  assert.deepEqual(one.slice(2).map((s) => s.isOpen()), [true, true, true]);
  const two = [await idle(url, { localAddress: '127.0.0.3' }), await idle(url, { localAddress: '127.0.0.3' })];
  assert.ok(two.every((s) => s.isOpen()) && one.slice(2).every((s) => s.isOpen()), 'the table holds 5');
  const third = await idle(url, { localAddress: '127.0.0.4' }); // the table is full: the oldest of all goes
  assert.match(String((await within(one[2].closed, 3000, 'eviction of the oldest')).error), /all 5 handshake places are taken/);
  assert.ok(third.isOpen() && two.every((s) => s.isOpen()));
});

test('the address a connection counts against: the IP without port, IPv4-mapped as IPv4, IPv6 by its /64', () => {
  const key = (/** @type {string} */ remoteAddress, transport = 'websocket') => addressKey(/** @type {any} */ ({ remoteAddress, transport }));
  assert.equal(key('127.0.0.1:5555'), '127.0.0.1');
  assert.equal(key('::ffff:10.1.2.3:5555'), '10.1.2.3');
  assert.equal(key('2001:db8:1:2:aaaa::1:443'), '2001:db8:1:2::/64');
  assert.equal(key('2001:db8:1:2:ffff:ffff:ffff:ffff:443'), '2001:db8:1:2::/64');
  assert.equal(key('::1:80'), '0:0:0:0::/64');
  assert.equal(key('webrtc:abc', 'webrtc'), 'webrtc:abc');
});

/**
 * The status an upgrade request gets (101, or the refusal's status and body).
 * @param {number} port @param {Record<string, string>} headers
 * @returns {Promise<{status: number, body: string}>}
 */
function upgradeStatus(port, headers) {
  return within(new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port, path: '/',
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomKey(), ...headers },
    });
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve({ status: /** @type {number} */ (res.statusCode), body: '' }); });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: /** @type {number} */ (res.statusCode), body }));
    });
    req.on('error', reject);
    req.end();
  }), 5000, 'upgrade answer');
}

const randomKey = () => Buffer.from(randomBytes(16)).toString('base64');

test('WebSocket upgrades: a foreign Origin is refused with 403 before the upgrade; no Origin, the node\'s own pages and allowed origins are upgraded', async () => {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, allowedOrigins: ['http://app.example:8080/'] });
  const port = Number(new URL(a.addresses()[0]).port);
  const local = `127.0.0.1:${port}`;
  const cases = [
    { headers: {}, status: 101 },
    { headers: { origin: `http://${local}` }, status: 101 },
    { headers: { origin: `http://localhost:${port}` }, status: 101 }, // a page of localhost:P dialling 127.0.0.1:P
    { headers: { origin: `http://localhost:${port}`, host: `localhost:${port}` }, status: 101 },
    { headers: { origin: 'http://app.example:8080' }, status: 101 },
    { headers: { origin: 'http://evil.example' }, status: 403 },
    { headers: { origin: `http://evil.example:${port}`, host: `evil.example:${port}` }, status: 403 }, // DNS rebinding
    { headers: { origin: `http://127.0.0.1:${port + 1}` }, status: 403 },
    { headers: { origin: 'http://app.example:8081' }, status: 403 },
    { headers: { origin: 'null' }, status: 403 },
  ];
  for (const c of cases) {
    const r = await upgradeStatus(port, c.headers);
    assert.equal(r.status, c.status, `${JSON.stringify(c.headers)} → ${r.status} ${r.body}`);
    if (c.status === 403) assert.match(r.body, /^origin .* (is neither this node's own nor allowed|may not open a WebSocket here)/);
  }
  const refusals = a.logs.filter((e) => e.message === 'WebSocket upgrade refused (403)');
  assert.equal(refusals.length, 1, 'one log line for a burst of refusals');
  assert.match(String(refusals[0].fields?.reason), /evil\.example/);
  // a mesh node (no Origin) still joins
  const b = await nodes.start();
  assert.equal((await b.connect(a.addresses()[0], { timeoutMs: 5000 })).id, a.id);
});

test('allowedOrigins must be origins', async () => {
  await assert.rejects(nodes.start({ allowedOrigins: ['ftp://x'] }), /allowedOrigins: "ftp:\/\/x" is not an origin/);
  await assert.rejects(nodes.start({ allowedOrigins: ['http://x/page'] }), /is not an origin/);
});

/**
 * A listener that answers its first `refusals` connections as a flooded table does
 * (ERROR 'too many handshakes', close) and runs the real handshake on the next.
 * @param {number} refusals
 */
async function floodedListener(refusals) {
  const identity = await createIdentity();
  const tokenKey = await deriveTokenKey(TOKEN);
  let seen = 0;
  const listener = webSocketTransport()({ logger: createMemoryLogger() }).createListener({
    onConnection: (conn) => {
      if (++seen <= refusals) {
        conn.send(encodeError('AdmissionError', 'admission refused: too many handshakes (evicted after 3 ms without a HELLO: 16 handshakes from 127.0.0.1 are in progress)', true, null));
        conn.close('too many handshakes');
        return;
      }
      runHandshake(conn, { identity, tokenKey, role: ROLE_LISTENER, maxMessageBytes: 1 << 20, listenUrl: null, nonceCache: new NonceCache(), timeoutMs: 5000, logger: createMemoryLogger() })
        .catch(() => {});
    },
  });
  await listener.listen({ host: '127.0.0.1', port: 0 });
  return { listener, identity, connections: () => seen };
}

test('a dialler refused with "too many handshakes" dials again: it joins on a later attempt, and gives up after three', async () => {
  const ok = await floodedListener(2);
  try {
    const b = await nodes.start();
    const peer = await within(b.connect(ok.listener.addresses()[0], { timeoutMs: 5000 }), 10_000, 'the join');
    assert.equal(peer.id, ok.identity.id);
    assert.equal(ok.connections(), 3);
    assert.equal(b.logs.filter((e) => e.message === 'handshake table of the peer full: dialling again').length, 2);
  } finally {
    await ok.listener.close();
  }
  const never = await floodedListener(10);
  try {
    const b = await nodes.start();
    await assert.rejects(b.connect(never.listener.addresses()[0], { timeoutMs: 5000 }),
      (/** @type {any} */ e) => e.name === 'AdmissionError' && e.reason === 'too many handshakes' && e.byPeer === true);
    assert.equal(never.connections(), 3);
  } finally {
    await never.listener.close();
  }
});
