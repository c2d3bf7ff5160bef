// @ts-check
/**
 * The transport compliance suite: every transport —
 * WebSocket and WebRTC, in Node and in Chromium — must pass these on real
 * loopback connections. It checks the Connection contract of
 * src/interfaces.js from one end; the other end runs serveCompliancePeer
 * (peer.js), so the far side may live in another process or a browser.
 *
 * In Chromium the same file is bundled with `node:test` mapped to a small
 * runner (test/browser/harness.js), hence the browser-safe assertions.
 *
 * @typedef {object} ComplianceContext
 * @property {import('../../src/interfaces.js').Connection} conn an open
 *   connection whose far end runs serveCompliancePeer
 * @property {(options: {signal?: AbortSignal, timeoutMs?: number}) => Promise<unknown>} dialUnanswered
 *   dial an address where nobody answers (a closed port; a peer that ignores offers)
 *
 * @typedef {object} ComplianceOptions
 * @property {() => Promise<ComplianceContext>} setup
 * @property {(ctx: ComplianceContext) => Promise<void>} teardown
 * @property {string} [prefix] prepended to test names
 */
import { test } from 'node:test';
import { CMD, burstCommand } from './peer.js';
import { equal, equalBytes, ok, rejectsNamed, throwsNamed, within } from './assert.js';

const STEP_MS = 15_000;

/**
 * Collect the next `n` messages (or those that `keep` selects) from a connection.
 * @param {import('../../src/interfaces.js').Connection} conn @param {number} n @param {string} what
 * @returns {Promise<Uint8Array[]>}
 */
function collect(conn, n, what) {
  /** @type {Uint8Array[]} */
  const got = [];
  return within(new Promise((resolve) => {
    conn.onmessage = (data) => {
      got.push(data.slice());
      if (got.length === n) resolve(got);
    };
  }), STEP_MS, `${what} (${got.length} of ${n} received)`);
}

/** @param {number} size @param {number} seed */
function pattern(size, seed) {
  const m = new Uint8Array(size);
  m[0] = CMD.ECHO;
  for (let i = 1; i < size; i++) m[i] = (i * 31 + seed) & 0xff;
  return m;
}

/**
 * @param {ComplianceOptions} opts
 * size: one suite, the Connection contract's rules one test each, in the order
 * src/interfaces.js states them (split, it would no longer read as the contract).
 */
export function transportTests(opts) {
  const name = (/** @type {string} */ s) => (opts.prefix ? `${opts.prefix}: ${s}` : s);

  /** @param {(ctx: ComplianceContext) => Promise<void>} body */
  const withConn = (body) => async () => {
    const ctx = await opts.setup();
    try {
      await body(ctx);
    } finally {
      await opts.teardown(ctx);
    }
  };

  test(name('messages come back whole and in the order they were sent'), withConn(async ({ conn }) => {
    const sizes = [1, 2, 100, 1000, 16_384, 65_535, 65_536, 100_000, 3];
    const sent = [];
    for (let round = 0; round < 20; round++) for (const s of sizes) sent.push(pattern(Math.min(s, conn.maxMessageBytes), round));
    const done = collect(conn, sent.length, 'echoes');
    for (const m of sent) conn.send(m);
    const got = await done;
    for (let i = 0; i < sent.length; i++) equalBytes(got[i], sent[i], `echo ${i}`);
  }));

  test(name('a message of exactly maxMessageBytes is carried'), withConn(async ({ conn }) => {
    ok(conn.maxMessageBytes >= 65_536, `maxMessageBytes ${conn.maxMessageBytes} is at least 64 KiB`);
    const m = pattern(conn.maxMessageBytes, 7);
    const done = collect(conn, 1, 'echo of the largest message');
    conn.send(m);
    equalBytes((await done)[0], m, 'largest message');
  }));

  test(name('a message above maxMessageBytes is refused with FrameTooLargeError and the connection stays open'), withConn(async ({ conn }) => {
    const e = throwsNamed(() => conn.send(new Uint8Array(conn.maxMessageBytes + 1)), 'FrameTooLargeError', 'oversized send');
    ok(e.message.includes(String(conn.maxMessageBytes + 1)), `the message names the size: ${e.message}`);
    equal(conn.status, 'open', 'status after the refused send');
    const m = pattern(10, 1);
    const done = collect(conn, 1, 'echo after the refusal');
    conn.send(m);
    equalBytes((await done)[0], m, 'echo after the refusal');
  }));

  test(name('a burst from the peer arrives complete and in order'), withConn(async ({ conn }) => {
    const n = 2000;
    const done = collect(conn, n, 'burst');
    conn.send(burstCommand(n, 100));
    const got = await done;
    for (let i = 0; i < n; i++) {
      equal(got[i][0], CMD.BURST, `burst message ${i} command byte`);
      equal(new DataView(got[i].buffer, got[i].byteOffset).getUint32(1), i, `burst message ${i} index`);
    }
  }));

  test(name('bufferedAmount rises under a flood of sends and ondrain fires once it is back at lowWaterMark'), withConn(async ({ conn }) => {
    conn.lowWaterMark = 64 * 1024;
    const chunk = new Uint8Array(Math.min(64 * 1024, conn.maxMessageBytes));
    chunk[0] = CMD.SINK;
    let drained = 0;
    const drain = new Promise((resolve) => { conn.ondrain = () => { drained++; resolve(undefined); }; });
    let sent = 0;
    ok(conn.bufferedBelow(1), 'bufferedBelow(1) before any send');
    // Bounded flood: stop as soon as the transport buffers more than 4 × lowWaterMark, or at 256 MiB.
    while (conn.bufferedAmount <= 4 * conn.lowWaterMark && sent < 256 * 1024 * 1024) {
      conn.send(chunk);
      sent += chunk.length;
    }
    ok(conn.bufferedAmount > conn.lowWaterMark, `bufferedAmount ${conn.bufferedAmount} above lowWaterMark after ${sent} bytes`);
    // the bound it keeps between readings never hides a full buffer
    ok(!conn.bufferedBelow(conn.lowWaterMark), 'bufferedBelow(lowWaterMark) after the flood');
    await within(drain, STEP_MS, 'ondrain');
    ok(conn.bufferedAmount <= conn.lowWaterMark, `bufferedAmount ${conn.bufferedAmount} at or below lowWaterMark when ondrain fired`);
    ok(conn.bufferedBelow(conn.lowWaterMark + 1), 'bufferedBelow(lowWaterMark + 1) once drained');
    equal(drained, 1, 'ondrain calls');
    const m = pattern(100, 3);
    const done = collect(conn, 1, 'echo after the flood');
    conn.send(m);
    equalBytes((await done)[0], m, 'echo after the flood');
  }));

  test(name('the peer closing fires onclose exactly once with a reason'), withConn(async ({ conn }) => {
    let calls = 0;
    const closed = new Promise((resolve) => { conn.onclose = (reason) => { calls++; resolve(reason); }; });
    conn.send(new Uint8Array([CMD.CLOSE, ...new TextEncoder().encode('compliance bye')]));
    const reason = await within(closed, STEP_MS, 'onclose after the peer closed');
    ok(typeof reason === 'string' && reason.length > 0, `a reason: ${String(reason)}`);
    equal(conn.status, 'closed', 'status');
    equal(await within(conn.closed, STEP_MS, 'closed promise'), reason, 'closed promise value');
    throwsNamed(() => conn.send(new Uint8Array([CMD.ECHO])), 'ConnectionClosedError', 'send after close');
    equal(calls, 1, 'onclose calls');
  }));

  test(name('closing locally fires onclose once and later sends throw ConnectionClosedError'), withConn(async ({ conn }) => {
    let calls = 0;
    const closed = new Promise((resolve) => { conn.onclose = (reason) => { calls++; resolve(reason); }; });
    conn.close('local close');
    conn.close('second close is a no-op');
    ok(conn.status !== 'open', 'status is no longer open');
    throwsNamed(() => conn.send(new Uint8Array([CMD.ECHO])), 'ConnectionClosedError', 'send after close');
    const reason = await within(closed, STEP_MS, 'onclose after a local close');
    ok(String(reason).includes('local close'), `the reason is ours: ${String(reason)}`);
    equal(calls, 1, 'onclose calls');
  }));

  test(name('a dial where nobody answers fails within its time bound, and an aborted dial rejects with AbortError'), withConn(async ({ dialUnanswered }) => {
    const t0 = Date.now();
    const e = await rejectsNamed(dialUnanswered({ timeoutMs: 1500 }), 'DialError', 'unanswered dial');
    ok(Date.now() - t0 < 6000, `failed within the bound (${Date.now() - t0} ms): ${e.message}`);
    const ac = new AbortController();
    const p = dialUnanswered({ signal: ac.signal, timeoutMs: 10_000 });
    ac.abort();
    await rejectsNamed(p, 'AbortError', 'aborted dial');
    const pre = new AbortController();
    pre.abort();
    await rejectsNamed(dialUnanswered({ signal: pre.signal }), 'AbortError', 'dial with an already aborted signal');
  }));
}
