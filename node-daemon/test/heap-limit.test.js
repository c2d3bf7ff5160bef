// @ts-check
/**
 * A peer's process cannot crash a daemon by allocating (docs/security.md, "Limits on
 * processes and their time"): against real daemons whose JavaScript heap is limited to
 * 512 MiB (`--max-old-space-size=512`), a remote process that builds a list forever is
 * stopped with a `resource-limit` error at the per-process heap limit, so is a
 * recursion 10,000,000 frames deep, and — with a per-process limit above the heap, and
 * a heap of 256 MiB — the node-wide guard stops it before V8 runs out of memory. Each time the daemon
 * stays alive, /health answers, and its used heap comes back under a bound (the
 * daemons run with --expose-gc, so the heap is collected at once after a kill).
 * Waits are bounded; daemons are stopped by PID.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runProgram, health, newToken, waitFor } from './helpers/daemons.js';

const token = newToken();
const NODE_OPTIONS = '--max-old-space-size=512 --expose-gc';
/** @type {import('./helpers/daemons.js').Daemon[]} */
const daemons = [];

after(async () => {
  await Promise.all(daemons.map((d) => d.stop('SIGKILL')));
});

/** @param {string[]} args @param {string} [nodeOptions] */
async function daemon(args = [], nodeOptions = NODE_OPTIONS) {
  const d = await startDaemon({ token, args, env: { NODE_OPTIONS: nodeOptions } });
  daemons.push(d);
  return d;
}

/** Start `thunk` on the daemon from a `termite-node run` peer that then leaves. @param {import('./helpers/daemons.js').Daemon} d @param {string} thunk */
async function remoteSpawn(d, thunk) {
  const r = await runProgram(
    `(define a (make-node "127.0.0.1" ${d.port}))
     (remote-spawn a ${thunk})
     (display "spawned") (newline)`,
    { token, join: [d.url], timeoutMs: 20_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'spawned\n');
}

/**
 * Poll /health, one poll after the other, until `re` appears in the daemon's log (at
 * most 60 s); every poll must answer. The median and worst round trips.
 * @param {import('./helpers/daemons.js').Daemon} d @param {RegExp} re
 */
async function healthUntilLogged(d, re) {
  /** @type {number[]} */
  const times = [];
  const end = performance.now() + 60_000;
  while (!re.test(d.log())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${re} in the daemon's log`);
    const t0 = performance.now();
    assert.equal((await health(d.url)).ok, true);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return `/health median ${(times[times.length >> 1] ?? 0).toFixed(1)} ms, worst ${(times[times.length - 1] ?? 0).toFixed(1)} ms (${times.length} polls)`;
}

/**
 * The daemon is alive and answers /health, and its used heap comes back under `mib`.
 * @param {import('./helpers/daemons.js').Daemon} d @param {number} mib
 */
async function recovered(d, mib) {
  assert.equal(d.child.exitCode, null, 'the daemon process is alive');
  /** @type {number} */
  let used = Infinity;
  await waitFor(async () => {
    const h = await health(d.url);
    assert.equal(h.ok, true);
    used = h.heapUsedBytes;
    return used < mib * 1048576;
  }, 20_000, `the daemon's heap back under ${mib} MiB`).catch((e) => {
    throw new Error(`${e.message}: ${(used / 1048576).toFixed(0)} MiB used`);
  });
  return used;
}

test('a remote process that builds a list forever is stopped at the per-process heap limit (256 MiB); the daemon lives and its memory comes back', { timeout: 120_000 }, async (t) => {
  const d = await daemon();
  const before = (await health(d.url)).heapUsedBytes;
  const t0 = performance.now();
  await remoteSpawn(d, `(lambda () (let loop ((l '())) (loop (cons 1 l))))`);
  const polled = await healthUntilLogged(d, /process \d+ stopped: it holds more than 256 MiB, its heap limit/);
  const killedAfter = performance.now() - t0;
  assert.match(d.log(), /process \d+ died: heap: process \d+ stopped: it holds more than 256 MiB/);
  const used = await recovered(d, 96);
  t.diagnostic(`list builder stopped after ${(killedAfter / 1000).toFixed(1)} s (${polled}); heap ${(before / 1048576).toFixed(0)} MiB before, ${(used / 1048576).toFixed(0)} MiB after`);
  // and a recursion 10,000,000 frames deep
  await remoteSpawn(d, `(lambda () (let f ((n 10000000)) (if (= n 0) 0 (+ 1 (f (- n 1))))))`);
  await waitFor(() => (d.log().match(/stopped: it holds more than 256 MiB/g) ?? []).length >= 2, 60_000, 'the heap limit for the recursion');
  await recovered(d, 96);
});

test('with the per-process limit above the heap, the node-wide guard stops the allocating process before V8 runs out of memory', { timeout: 120_000 }, async (t) => {
  // a smaller heap (256 MiB) than the first test's, so that it fills sooner
  const d = await daemon(['--max-process-heap', '4096'], '--max-old-space-size=256 --expose-gc');
  const t0 = performance.now();
  await remoteSpawn(d, `(lambda () (let loop ((l '())) (loop (cons 1 l))))`);
  const polled = await healthUntilLogged(d, /stopped: it allocated the most while the node's heap was nearly full/);
  const killedAfter = performance.now() - t0;
  const used = await recovered(d, 96);
  t.diagnostic(`list builder stopped by the guard after ${(killedAfter / 1000).toFixed(1)} s (${polled}); heap ${(used / 1048576).toFixed(0)} MiB after`);
  // the node still runs what peers send
  const r = await runProgram(
    `(define a (make-node "127.0.0.1" ${d.port}))
     (display (on a (lambda () (length (make-list 1000 1))))) (newline)`,
    { token, join: [d.url], timeoutMs: 20_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '1000\n');
});

test('--max-process-heap that is not a positive number of MiB is a usage error: exit status 2 with the reason', async () => {
  const { spawnSync } = await import('node:child_process');
  const { bin } = await import('./helpers/daemons.js');
  const r = spawnSync(process.execPath, [bin, '--max-process-heap', '1.5', '--port', '0'], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--max-process-heap must be a positive integer, got 1\.5/);
});
