// @ts-check
/**
 * /health reports the daemon's long garbage-collection pauses and its live heap just
 * after the newest major collection (node-daemon/src/gc-pauses.js): what tells a long
 * answer caused by a collection of the processes' data from one caused by a process,
 * and memory given back from garbage not collected yet. Against a real daemon, made to
 * collect by a remote process that builds and drops big lists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runProgram, health, waitFor } from './helpers/daemons.js';
import { fileDaemon } from './helpers/file-daemon.js';

const file = fileDaemon();

test('/health: gcPauses (each at least 20 ms, newest last) and the heap after the newest major collection', { timeout: 90_000 }, async () => {
  const { daemon: d, token } = file;
  const first = await health(d.url);
  assert.ok(Array.isArray(first.gcPauses), 'gcPauses is a list');
  // a remote process that builds and drops lists of 1,000,000 pairs: old-space fills, V8 collects it
  const r = await runProgram(
    `(define a (make-node "127.0.0.1" ${d.port}))
     (display (on a (lambda () (let loop ((k 0) (kept '())) (if (< k 12) (loop (+ k 1) (if (even? k) (make-list 1000000 k) kept)) (length kept))))))
     (newline)`,
    { token, join: [d.url], timeoutMs: 60_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '1000000\n');
  /** @type {any} */
  let h = null;
  await waitFor(async () => (h = await health(d.url)).heapAfterMajorGc !== null, 20_000, 'a major collection reported');
  const live = h.heapAfterMajorGc;
  assert.ok(Number.isInteger(live.bytes) && live.bytes > 1 << 20 && live.bytes < 4 * 2 ** 30, `live heap ${live.bytes}`);
  assert.ok(Number.isInteger(live.endedMsAgo) && live.endedMsAgo >= 0 && live.endedMsAgo < 120_000);
  for (const p of h.gcPauses) {
    assert.ok(Number.isInteger(p.ms) && p.ms >= 20, `a kept pause is at least 20 ms: ${p.ms}`);
    assert.ok(Number.isInteger(p.endedMsAgo) && p.endedMsAgo >= 0);
  }
  const ages = h.gcPauses.map((/** @type {any} */ p) => p.endedMsAgo);
  assert.deepEqual(ages, [...ages].sort((x, y) => y - x), 'oldest first');
  assert.ok(h.gcPauses.length <= 32);
});
