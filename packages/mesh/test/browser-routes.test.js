// @ts-check
/**
 * The browser mark travels with routed frames (forwarding.js): a node that receives a
 * ROUTE from a browser peer forwards it marked, and the destination reports its source
 * as a browser origin ('peer:browser') before it receives the inner frame, so a tab that
 * reaches a node only through another is known there as what it is; and a neighbour's
 * gossip marks its browser peers, so a node knows a tab two hops away as one before
 * anything is sent to or from it. A page cannot pose
 * as a daemon: a ROUTE from a browser naming the forwarding node, or a node linked to it
 * as a daemon, as its source is refused. Real nodes on loopback; the tab is a raw
 * admitted connection whose upgrade carried an `Origin` header, as every browser's does.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { admittedRaw, nodeFactory, nextEvent, nextMessage, within } from './helpers.js';
import { encodeMsg, encodeRoute, encodeGossip, decodeFrame } from '../src/frames.js';

const nodes = nodeFactory();
after(() => nodes.stopAll());

/**
 * Daemons A (listening) and B (linked to A), a browser tab T and a daemon-like raw peer D
 * linked to A only. `seen` lists, in order, what B reported and received from the start.
 */
async function setup() {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const b = await nodes.start();
  /** @type {string[]} */
  const seen = [];
  b.on('peer:browser', (e) => seen.push(`browser ${e.id} via ${e.via}`));
  b.onMessage((from) => seen.push(`message from ${from}`));
  await b.connect(a.addresses()[0]);
  const url = a.addresses()[0];
  const port = new URL(url).port;
  const t = await admittedRaw(url, { origin: `http://127.0.0.1:${port}` });
  const d = await admittedRaw(url);
  await within((async () => { for (let i = 0; i < 200 && !(a.isBrowserPeer(t.id) && a.peers().length === 3); i++) await new Promise((r) => setTimeout(r, 10)); })(), 5000, 'A admitting all three');
  assert.equal(a.isBrowserPeer(t.id), true, 'A knows T as a browser peer');
  assert.equal(a.isBrowserPeer(d.id), false);
  return { a, b, t, d, seen };
}

test('a neighbour\'s gossip says which of its peers are browsers: B reports T before T sends anything', async () => {
  const { a, b, t, d, seen } = await setup();
  await within((async () => { for (let i = 0; i < 500 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 10)); })(), 6000, 'B reporting T');
  await within((async () => { for (let i = 0; i < 500 && !b.isReachable(d.id); i++) await new Promise((r) => setTimeout(r, 10)); })(), 6000, 'B learning D from A');
  assert.deepEqual(seen, [`browser ${t.id} via ${a.id}`], 'T reported from gossip alone, D not at all');
});

test('a tab that reaches a node through another is reported there as a browser origin before its frame, once', async () => {
  const { a, b, t, d, seen } = await setup();
  const got = nextMessage(b, (from) => from === t.id);
  t.conn.send(encodeRoute(b.id, t.id, 3, encodeMsg(new Uint8Array([1, 2, 3]))));
  await got;
  const i = seen.indexOf(`browser ${t.id} via ${a.id}`);
  assert.ok(i >= 0 && i < seen.indexOf(`message from ${t.id}`), seen.join('; '));
  // a daemon's routed frame carries no mark
  const fromD = nextMessage(b, (from) => from === d.id);
  d.conn.send(encodeRoute(b.id, d.id, 3, encodeMsg(new Uint8Array([4]))));
  await fromD;
  assert.ok(!seen.some((x) => x.startsWith(`browser ${d.id}`)), 'D is not reported as a browser origin');
  // reported once per source
  const again = nextMessage(b, (from) => from === t.id);
  t.conn.send(encodeRoute(b.id, t.id, 3, encodeMsg(new Uint8Array([5]))));
  await again;
  assert.equal(seen.filter((x) => x.startsWith('browser')).length, 1);
});

test('a ROUTE from a browser that names the relay or a daemon linked to it as its source is refused', async () => {
  const { a, b, t } = await setup();
  /** @type {string[]} */
  const wrong = [];
  a.onMessage((from) => { if (from === b.id) wrong.push(`A took a message as from B`); });
  b.onMessage((from) => { if (from === a.id) wrong.push(`B took a message as from A`); });
  // to A as if from B (a daemon linked to A); to B as if from A (the relay itself)
  t.conn.send(encodeRoute(a.id, b.id, 3, encodeMsg(new Uint8Array([6]))));
  const e1 = await t.nextError();
  assert.equal(e1.name, 'MalformedFrameError');
  assert.match(e1.message, new RegExp(`ROUTE from a browser names ${b.id.slice(0, 12)} as its source, a node linked to ${a.id.slice(0, 12)} as a daemon`));
  t.conn.send(encodeRoute(b.id, a.id, 3, encodeMsg(new Uint8Array([7]))));
  const e2 = await t.nextError();
  assert.match(e2.message, new RegExp(`ROUTE from a browser names ${a.id.slice(0, 12)} as its source`));
  // a page's gossip about others counts for nothing
  /** @type {string[]} */
  const reported = [];
  a.on('peer:browser', (e) => reported.push(e.id));
  t.conn.send(encodeGossip(1, [['x'.repeat(32), null, true]]));
  await t.roundTrip(77);
  assert.deepEqual(reported, []);
  // the link is still up and T's own routed frames still go through
  const ok = nextMessage(b, (from) => from === t.id);
  t.conn.send(encodeRoute(b.id, t.id, 3, encodeMsg(new Uint8Array([8]))));
  await ok;
  assert.deepEqual(wrong, []);
});

test('the mark reaches a node two hops from the tab: C reports it (by the gossip\'s mark, carried on by B, or by the ROUTE\'s, whichever comes first) and gets its frame', async () => {
  const { a, b, t } = await setup();
  // C is linked to B only: T → A → B → C
  const c = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const reported = nextEvent(c, 'peer:browser', (e) => e.id === t.id);
  await b.connect(c.addresses()[0]);
  await within((async () => { for (let i = 0; i < 500 && !a.isReachable(c.id); i++) await new Promise((r) => setTimeout(r, 10)); })(), 6000, 'A learning a route to C');
  assert.equal(a.isReachable(c.id), true, 'A has a route to C (through B)');
  const got = nextMessage(c, (from) => from === t.id);
  // A forwards to B (which lists C), B forwards to C
  t.conn.send(encodeRoute(c.id, t.id, 4, encodeMsg(new Uint8Array([9]))));
  const e = await reported;
  assert.equal(e.via, b.id);
  await got;
});

test('the mark is a sixth field of ROUTE, true when present; anything else there is refused', () => {
  const id = 'a'.repeat(32), src = 'b'.repeat(32), inner = encodeMsg(new Uint8Array([1]));
  const plain = /** @type {any} */ (decodeFrame(encodeRoute(id, src, 3, inner)));
  const marked = /** @type {any} */ (decodeFrame(encodeRoute(id, src, 3, inner, true)));
  assert.equal(plain.browser, undefined);
  assert.equal(marked.browser, true);
  assert.deepEqual([marked.dst, marked.src, marked.hopsLeft, [...marked.inner]], [id, src, 3, [...inner]]);
  assert.equal(encodeRoute(id, src, 3, inner, true).length, encodeRoute(id, src, 3, inner).length + 1);
  const bad = encodeRoute(id, src, 3, inner, true);
  bad[bad.length - 1] = 0x01; // an integer where the flag goes
  assert.throws(() => decodeFrame(bad), /ROUTE browser flag/);
});

test('a tab is never a relay: routes a browser peer announces are not taken, a daemon\'s are', async () => {
  const { a, b, t, d } = await setup();
  const behind = (/** @type {number} */ n) => String.fromCharCode(97 + n).repeat(32); // well-formed ids no node has
  t.conn.send(encodeGossip(1, /** @type {any} */ ([[behind(0), null, 0, []], [b.id, null, 0, []]])));
  // a frame T sends after its gossip: once B has it, A has handled the gossip (one link, in order)
  const got = nextMessage(b, (from) => from === t.id);
  t.conn.send(encodeRoute(b.id, t.id, 3, encodeMsg(new Uint8Array([7]))));
  await got;
  assert.equal(a.isReachable(behind(0)), false, 'no route through the tab');
  assert.equal(a.routes().some((r) => r.via.includes(t.id) && r.id !== t.id), false, 'nothing routed through the tab');
  d.conn.send(encodeGossip(1, /** @type {any} */ ([[behind(1), null, 0, []]])));
  await within((async () => { for (let i = 0; i < 500 && !a.isReachable(behind(1)); i++) await new Promise((r) => setTimeout(r, 10)); })(), 5000, 'A taking the daemon-like peer\'s route');
});
