// @ts-check
/**
 * request() / onRequest(): responses, remote errors, timeouts, aborts, a
 * peer going down mid-request, and bounded outstanding requests.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { nodeFactory, nextEvent, within } from './helpers.js';

const nodes = nodeFactory();
after(() => nodes.stopAll());

async function pair(extra = {}) {
  const a = await nodes.start({ listen: { host: '127.0.0.1', port: 0 }, ...extra });
  const b = await nodes.start(extra);
  const up = nextEvent(a, 'peer:up');
  await b.connect(a.addresses()[0]);
  await up; // admitted on both sides
  return { a, b };
}

test('a request gets the response its handler returns, synchronously or through a promise', async () => {
  const { a, b } = await pair();
  a.onRequest((from, p) => {
    assert.equal(from, b.id);
    if (p[0] === 0) return p.slice().reverse();
    return Promise.resolve(new Uint8Array([p[0] * 2]));
  });
  assert.deepEqual([...await b.request(a.id, new Uint8Array([0, 1, 2]))], [2, 1, 0]);
  assert.deepEqual([...await b.request(a.id, new Uint8Array([21]))], [42]);
  const many = await Promise.all(Array.from({ length: 200 }, (_, i) => b.request(a.id, new Uint8Array([0, i]))));
  many.forEach((r, i) => assert.deepEqual([...r], [i, 0]));
});

test('a handler that throws makes the request reject with RemoteError carrying the remote name and message', async () => {
  const { a, b } = await pair();
  a.onRequest(() => { throw new RangeError('no such thing'); });
  await assert.rejects(b.request(a.id, new Uint8Array([1])), (/** @type {any} */ e) => e.name === 'RemoteError' && e.remoteName === 'RangeError' && e.remoteMessage === 'no such thing');
  a.onRequest(async () => { throw new TypeError('later'); });
  await assert.rejects(b.request(a.id, new Uint8Array([1])), (/** @type {any} */ e) => e.remoteName === 'TypeError');
  a.onRequest(() => /** @type {any} */ ('not bytes'));
  await assert.rejects(b.request(a.id, new Uint8Array([1])), (/** @type {any} */ e) => e.remoteName === 'InvalidArgumentError' && /returned string/.test(e.remoteMessage));
});

test('a node without a request handler answers NoHandlerError', async () => {
  const { a, b } = await pair();
  await assert.rejects(b.request(a.id, new Uint8Array([1])), (/** @type {any} */ e) => e.name === 'RemoteError' && e.remoteName === 'NoHandlerError');
});

test('a request that gets no answer rejects with RequestTimeoutError after its timeout, and a late answer is ignored', async () => {
  const { a, b } = await pair();
  /** @type {(v: Uint8Array) => void} */
  let answerLate = () => {};
  a.onRequest(() => new Promise((resolve) => { answerLate = resolve; }));
  const t0 = Date.now();
  await assert.rejects(b.request(a.id, new Uint8Array([1]), { timeoutMs: 200 }), (/** @type {any} */ e) => e.name === 'RequestTimeoutError' && e.timeoutMs === 200);
  const took = Date.now() - t0;
  assert.ok(took >= 190 && took < 2000, `timed out after ${took} ms`);
  answerLate(new Uint8Array([9]));
  a.onRequest((_f, p) => p);
  assert.deepEqual([...await b.request(a.id, new Uint8Array([5]))], [5], 'the link still works after the late answer');
});

test('a request is aborted by its signal, before or while it waits', async () => {
  const { a, b } = await pair();
  a.onRequest(() => new Promise(() => {}));
  const pre = new AbortController();
  pre.abort();
  await assert.rejects(b.request(a.id, new Uint8Array([1]), { signal: pre.signal }), { name: 'AbortError' });
  const ac = new AbortController();
  const p = b.request(a.id, new Uint8Array([1]), { signal: ac.signal, timeoutMs: 10_000 });
  ac.abort();
  await assert.rejects(p, { name: 'AbortError' });
});

test('a request to a peer whose link goes down rejects with PeerDownError at once, not at its timeout', async () => {
  const { a, b } = await pair();
  a.onRequest(() => new Promise(() => {}));
  const outcome = b.request(a.id, new Uint8Array([1]), { timeoutMs: 30_000 }).then(() => null, (e) => e);
  const t0 = Date.now();
  await a.stop();
  const e = await within(outcome, 5000, 'request failure');
  assert.equal(e?.name, 'PeerDownError');
  assert.match(e.message, /peer left: node stopping/);
  assert.ok(Date.now() - t0 < 3000);
});

test('a request to an unknown node rejects with UnreachableError at once', async () => {
  const { b } = await pair();
  await assert.rejects(b.request('z'.repeat(32), new Uint8Array([1])), { name: 'UnreachableError' });
});

test('outstanding requests are bounded by maxPendingRequests', async () => {
  const { a, b } = await pair({ maxPendingRequests: 3 });
  a.onRequest(() => new Promise(() => {}));
  const ps = [1, 2, 3].map(() => b.request(a.id, new Uint8Array([1]), { timeoutMs: 300 }).catch((e) => e.name));
  await assert.rejects(b.request(a.id, new Uint8Array([1])), { name: 'TooManyRequestsError' });
  assert.deepEqual(await Promise.all(ps), ['RequestTimeoutError', 'RequestTimeoutError', 'RequestTimeoutError']);
});

test('a request handler sees its signal aborted when the node stops', async () => {
  const { a, b } = await pair();
  /** @type {(v: AbortSignal) => void} */
  let started = () => {};
  const handlerStarted = new Promise((resolve) => { started = resolve; });
  a.onRequest((_f, _p, { signal }) => {
    started(signal);
    return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('stopping'))));
  });
  const p = b.request(a.id, new Uint8Array([1]), { timeoutMs: 10_000 }).catch((e) => e.name);
  const signal = /** @type {AbortSignal} */ (await within(handlerStarted, 3000, 'handler called'));
  assert.equal(signal.aborted, false);
  await a.stop();
  assert.equal(signal.aborted, true);
  assert.equal(await p, 'PeerDownError');
});

test('one timer serves every pending request: each times out at its own deadline, answered ones never do', async () => {
  const { PendingRequests } = await import('../src/pending-requests.js');
  const { RequestTimeoutError } = await import('../src/errors.js');
  const table = new PendingRequests(100);
  const t0 = performance.now();
  /** @param {Promise<Uint8Array>} p */
  const settled = (p) => p.then(() => ({ ok: true, at: performance.now() - t0 }), (e) => ({ ok: false, e, at: performance.now() - t0 }));
  // a long one first, then a shorter one (an earlier deadline re-arms the timer), then
  // one that is answered in time and one whose deadline equals the long one's
  const long = table.add('p', 400);
  const short = table.add('p', 60);
  const answered = table.add('p', 100);
  const late = table.add('p', 400);
  const results = Promise.all([long, short, answered, late].map((r) => settled(r.promise)));
  assert.equal(table.resolve('p', answered.id, new Uint8Array([1])), true);
  const [rl, rs, ra, rlate] = await within(results, 5000, 'the requests');
  assert.equal(ra.ok, true, 'the answered request resolved');
  // (the short one well before the long one's deadline: its own re-armed the timer)
  for (const [r, ms, latest] of [[rs, 60, 300], [rl, 400, 1400], [rlate, 400, 1400]]) {
    assert.equal(r.ok, false);
    assert.ok(r.e instanceof RequestTimeoutError, String(r.e));
    assert.ok(r.at >= ms - 2 && r.at < latest, `timed out at ${r.at.toFixed(0)} ms for a ${ms} ms timeout`);
  }
  assert.ok(rs.at < rl.at, 'the shorter timeout fired first');
  assert.equal(table.size, 0);
  // a late answer to a timed-out request finds nothing
  assert.equal(table.resolve('p', short.id, new Uint8Array([1])), false);
  // the table empties and fills again: the next request still times out
  const again = settled(table.add('p', 30).promise);
  const r = await within(again, 5000, 'the request');
  assert.ok(!r.ok && r.e instanceof RequestTimeoutError);
  table.failAll(new Error('stop'));
});
