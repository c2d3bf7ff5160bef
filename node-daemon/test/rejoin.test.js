// @ts-check
/**
 * Rejoin with real daemons: A started with --join B. B is stopped by PID (SIGTERM: A
 * hears its BYE) or killed (SIGKILL: no BYE, the socket just dies) and started again
 * on the same port with the same --data (same identity); A's /health lists B again
 * within a bound, and a program joined to B reaches a process on A through the
 * restored link.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDaemon, health, newToken, waitFor, runProgram } from './helpers/daemons.js';

/** @type {Array<{stop: () => Promise<void>}>} */
const running = [];
const dirs = /** @type {string[]} */ ([]);
after(async () => {
  await Promise.all(running.map((d) => d.stop()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** @param {any} opts */
async function daemon(opts) {
  const d = await startDaemon(opts);
  running.push(d);
  return d;
}

/** How long a rejoin may take once the peer listens again: the largest backoff (5 s) and a dial. */
const REJOIN_BOUND_MS = 8000;

for (const signal of /** @type {NodeJS.Signals[]} */ (['SIGTERM', 'SIGKILL'])) {
  test(`a daemon whose peer is stopped with ${signal} and restarted on the same port lists it again in /health within ${REJOIN_BOUND_MS / 1000} s`, { timeout: 60_000 }, async () => {
    const token = newToken();
    const dataB = mkdtempSync(path.join(os.tmpdir(), 'termite-rejoin-'));
    dirs.push(dataB);
    let b = await daemon({ token, data: dataB });
    const a = await daemon({ token, join: [b.url] });
    await waitFor(async () => (await health(a.url)).peers.some((/** @type {any} */ p) => p.id === b.id), 5000, 'A lists B');
    await b.stop(signal);
    await waitFor(async () => (await health(a.url)).peers.length === 0, 10_000, 'A sees B gone');
    const port = b.port;
    const id = b.id;
    b = await daemon({ token, data: dataB, args: ['--port', String(port)] });
    assert.equal(b.id, id, 'same identity');
    assert.equal(b.port, port, 'same port');
    const t0 = Date.now();
    await waitFor(async () => (await health(a.url)).peers.some((/** @type {any} */ p) => p.id === id), REJOIN_BOUND_MS, 'A lists B again');
    const took = Date.now() - t0;
    assert.ok(took < REJOIN_BOUND_MS, `rejoined in ${took} ms`);
    // its log (flushed every 50 ms) says so: B joined, left, joined again
    await waitFor(() => a.log().split(`peer ${id} joined`).length - 1 === 2, 2000, 'A logging B joining again');
    // the restored link carries Termite traffic: a program joined to B runs code on A through it
    const r = await runProgram(`(display (on (make-node "127.0.0.1" ${a.port}) (lambda () (+ 40 2))))`, { token, join: [b.url], timeoutMs: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), '42');
    await b.stop();
  });
}
