// @ts-check
/**
 * Requests routed through daemons that leave (packages/mesh/src/routed-requests.js,
 * request-dedup.js): real daemons — a target T and relays M1, M2, M3, each joined to T —
 * and an asker node linked to one relay at a time, so the relay in use is known. The
 * asker sends T a request every 50 ms (each waits for its answer, at most 2 s) while the
 * relay in use falls silent (SIGSTOP: its sockets stay open and swallow what is sent, as
 * a killed daemon behind a WAN relay or a dropped network does; noticed by the heartbeat
 * timeout only 4 s later; killed then) and later the next one is stopped (SIGTERM: its
 * links close). Every request is answered: none times out and none is refused, the
 * requests caught by the silence being sent again around the silent relay and answered
 * around it.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createIdentity, createMeshNode, createMemoryLogger } from '@termite/mesh';
import { startDaemon, newToken, waitFor } from './helpers/daemons.js';

/** SERVICE [24, "netsim-probe", []] in the value codec's CBOR: a request a daemon answers at once. */
const SERVICE_REQUEST = new Uint8Array([0x83, 0x18, 0x18, 0x6c, ...new TextEncoder().encode('netsim-probe'), 0x80]);

/** @type {Array<{stop: (s?: any) => Promise<void>}>} */
const started = [];
after(async () => {
  await Promise.all(started.map((d) => d.stop()));
});

test('requests routed through a relay that falls silent, then one that is stopped, are all answered (sent again around it)', { timeout: 120_000 }, async () => {
  const token = newToken();
  const target = await startDaemon({ token });
  started.push(target);
  const relays = [];
  for (let i = 0; i < 3; i++) {
    const d = await startDaemon({ token, join: [target.url] });
    started.push(d);
    relays.push(d);
  }
  const logger = createMemoryLogger();
  const asker = createMeshNode({ identity: await createIdentity(), token, join: [relays[0].url], webrtc: false, rejoin: false, logger });
  started.push(asker);
  await asker.start();
  await waitFor(() => asker.isReachable(target.id), 10_000, 'the target routed through the first relay');

  const counts = { sent: 0, answered: 0, refused: 0, timedOut: 0 };
  /** @type {string[]} */
  const failures = [];
  let streaming = true;
  const stream = (async () => {
    for (let i = 0; streaming && i < 2000; i++) {
      const t = Date.now();
      counts.sent++;
      try {
        await asker.request(target.id, SERVICE_REQUEST, { timeoutMs: 2000 });
        counts.answered++;
      } catch (e) {
        const err = /** @type {Error} */ (e);
        if (err.name === 'RequestTimeoutError') counts.timedOut++;
        else counts.refused++;
        failures.push(`${err.name}: ${err.message}`);
      }
      await new Promise((r) => setTimeout(r, Math.max(0, 50 - (Date.now() - t))));
    }
  })();
  const gone = (/** @type {string} */ id) => waitFor(() => !asker.peers().some((p) => p.id === id), 10_000, `the asker saw ${id} go`);
  const twoWays = () => waitFor(() => asker.routes().some((r) => r.id === target.id && r.via.length === 2), 10_000, 'a second way to the target');
  try {
    // a second way, then the relay in use (the first: a route in use is kept) falls silent
    await asker.connect(relays[1].url);
    await twoWays();
    const before = counts.answered;
    await waitFor(() => counts.answered >= before + 10, 10_000, 'requests flowing');
    relays[0].child.kill('SIGSTOP');
    await gone(relays[0].id);
    await relays[0].stop('SIGKILL');
    // a third way, then the relay now in use is stopped
    await asker.connect(relays[2].url);
    await twoWays();
    const mid = counts.answered;
    await waitFor(() => counts.answered >= mid + 10, 10_000, 'requests flowing again');
    await relays[1].stop('SIGTERM');
    await gone(relays[1].id);
    const end = counts.answered;
    await waitFor(() => counts.answered >= end + 10, 10_000, 'requests flowing after both');
  } finally {
    streaming = false;
    await stream;
  }
  assert.deepEqual({ timedOut: counts.timedOut, refused: counts.refused }, { timedOut: 0, refused: 0 }, `of ${counts.sent} requests: ${failures.slice(0, 5).join('; ')}`);
  assert.ok(logger.entries.some((e) => e.message === 'routed request sent again'), 'the silence caught requests, which were sent again');
});
