// @ts-check
/**
 * Routed requests that lose their relay (routed-requests.js, request-dedup.js):
 * - a copy of a routed request that arrives while the first is handled is not run: the
 *   one answer goes the copy's way; a copy of one already answered gets the kept answer
 *   again, the handler still having run once (a raw peer sends the copies);
 * - in a diamond (asker — two relays — answerer) the relay a request went through
 *   leaves while the answerer is handling it: the asker sends it again through the other
 *   relay, gets its one answer, and the handler ran once;
 * - with no other way, the asker is told at once (UnreachableError), not left to time out;
 * - the receiver's table is bounded.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { T, decodeFrame, encodeIdPayload, encodeRoute } from '../src/frames.js';
import { ARRIVAL, MAX_ENTRIES, RequestDedup } from '../src/request-dedup.js';
import { admittedRaw, nodeFactory, until } from './helpers.js';

const nodes = nodeFactory();
after(() => nodes.stopAll());

/** The RES frames carried to a raw peer (directly or in a ROUTE) for request `id`. @param {any[]} frames @param {number} id */
function answersTo(frames, id) {
  return frames.map((f) => (f.type === T.ROUTE ? decodeFrame(f.inner) : f)).filter((f) => f.type === T.RES && f.id === id);
}

test('a copy of a routed request is run once: the one answer goes the copy\'s way, and a copy of an answered one gets the kept answer', async () => {
  const node = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  let runs = 0;
  /** @type {(() => void) | null} */
  let release = null;
  node.onRequest((_from, p) => {
    runs++;
    if (p[0] === 1) return new Promise((resolve) => { release = () => resolve(p.slice().reverse()); });
    return p.slice().reverse();
  });
  const raw = await admittedRaw(node.addresses()[0]);
  await until(() => node.isReachable(raw.id), 5000, 'linked');
  // a request that reached the node through a relay (here the raw peer says so itself)
  const req = (/** @type {number} */ id, /** @type {number[]} */ p) => encodeRoute(node.id, raw.id, 8, encodeIdPayload(T.REQ, id, new Uint8Array(p)));
  raw.conn.send(req(70, [2, 3]));
  await raw.waitFrame((f) => answersTo([f], 70).length === 1);
  raw.conn.send(req(70, [2, 3])); // the same request again: its answer is sent again, it is not run
  await until(() => answersTo(raw.frames, 70).length === 2, 5000, 'the kept answer');
  assert.deepEqual([...answersTo(raw.frames, 70)[1].payload], [3, 2]);
  assert.equal(runs, 1);
  // a copy while the first is being handled: one answer in all
  raw.conn.send(req(71, [1, 9]));
  await until(() => release !== null, 5000, 'handled');
  raw.conn.send(req(71, [1, 9]));
  await raw.roundTrip(1); // the copy has been received
  /** @type {() => void} */ (release)();
  await raw.waitFrame((f) => answersTo([f], 71).length === 1);
  await raw.roundTrip(2);
  assert.equal(answersTo(raw.frames, 71).length, 1, 'one answer');
  assert.equal(runs, 2, 'each request ran once');
});

test('in a diamond, the relay a request went through leaves while it is handled: the request goes the other way, is answered once, and ran once', async () => {
  const answerer = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const r1 = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, join: [answerer.addresses()[0]] });
  const r2 = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, join: [answerer.addresses()[0]] });
  const asker = await nodes.start({ join: [r1.addresses()[0]], rejoin: false });
  await until(() => asker.isReachable(answerer.id), 5000, 'routed through the first relay');
  let runs = 0;
  /** @type {(() => void) | null} */
  let release = null;
  answerer.onRequest((_from, p) => {
    runs++;
    return new Promise((resolve) => { release = () => resolve(p.slice().reverse()); });
  });
  const answer = asker.request(answerer.id, new Uint8Array([4, 5, 6]), { timeoutMs: 5000 });
  await until(() => release !== null, 5000, 'the request reached the answerer');
  // a second way appears, then the relay the request went through leaves
  await asker.connect(r2.addresses()[0]);
  await until(() => asker.routes().some((r) => r.id === answerer.id && r.via.length === 2), 5000, 'the second way known');
  await r1.stop();
  await until(() => asker.logs.some((e) => e.message === 'routed request sent again'), 5000, 'sent again');
  await until(() => answerer.logs.some((e) => e.message === 'copy of a routed request'), 5000, 'the copy arrived');
  /** @type {() => void} */ (release)();
  assert.deepEqual([...await answer], [6, 5, 4]);
  assert.equal(runs, 1, 'run once');
});

test('with no other way, a request whose relay leaves fails at once with UnreachableError', async () => {
  const answerer = await nodes.start({ listen: { host: '127.0.0.1', port: 0 } });
  const relay = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, join: [answerer.addresses()[0]] });
  const asker = await nodes.start({ join: [relay.addresses()[0]], rejoin: false });
  await until(() => asker.isReachable(answerer.id), 5000, 'routed');
  let reached = false;
  answerer.onRequest(() => { reached = true; return new Promise(() => {}); }); // never answers
  const t = Date.now();
  const answer = asker.request(answerer.id, new Uint8Array([1]), { timeoutMs: 10_000 });
  await until(() => reached, 5000, 'the request reached the answerer');
  const told = assert.rejects(answer, (e) => /** @type {Error} */ (e).name === 'UnreachableError' && /went down/.test(/** @type {Error} */ (e).message));
  await relay.stop();
  await told;
  assert.ok(Date.now() - t < 5000, 'told well before the timeout');
});

test('the receiver\'s table of routed requests is bounded', () => {
  const d = new RequestDedup();
  for (let i = 0; i < MAX_ENTRIES + 10; i++) assert.equal(d.arrived('s', i, 'r').arrival, ARRIVAL.NEW);
  assert.ok(d.size <= MAX_ENTRIES);
  assert.equal(d.arrived('s', MAX_ENTRIES + 5, 'r2').arrival, ARRIVAL.COPY, 'a recent one is remembered');
  assert.equal(d.arrived('t', 1, null).arrival, ARRIVAL.NEW, 'a direct request from an unknown source is not remembered');
  assert.equal(d.arrived('t', 1, null).arrival, ARRIVAL.NEW);
});
