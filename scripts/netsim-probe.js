// @ts-check
/**
 * The simulated internet's measuring node (scripts/netsim.js runs it inside a
 * namespace): a mesh node that joins one daemon and answers one JSON task, printed as
 * `probe {...}` on stdout, then stops.
 *
 * Task: {join, token, targets, rounds, timeoutMs, rtt?: string[], unreachable?: string[], settleMs?: number}
 * - waits until every node id of `targets` is reachable (direct or routed) and reports
 *   when (`reachedAt`, Date.now()), when its own join was admitted (`joinedAt`), and how
 *   many hops away each is (`hops`);
 * - waits `settleMs` more if asked (the mesh measuring its links, routes settling);
 * - for each id of `rtt` (default: targets), times `rounds` mesh round trips (after 3
 *   unmeasured ones): a SERVICE request for a name nobody published, which the daemon's
 *   Termite layer answers at once ("no such service"); reports each median in ms;
 * - tries a TCP connection to each `unreachable` host:port and reports whether any
 *   succeeded (a NAT hides the daemons behind it: none should).
 * - with `stream: {to, durationMs, intervalMs}`, then sends one request to `to` every
 *   intervalMs for durationMs (each waits for its answer, at most 2 s, before the next)
 *   and reports `stream`: how many were sent, answered, refused with an error (no route,
 *   peer down: the sender was told), and timed out (neither: lost), and each outage (a run
 *   of unanswered requests) as [first failure, next answer] in Date.now() ms.
 * Bounded: the whole task by timeoutMs; each connection attempt by 2 s.
 */
import net from 'node:net';
import { createIdentity, createMeshNode } from '@termite/mesh';

/** SERVICE [24, "netsim-probe", []] in the value codec's CBOR: a request the daemon answers at once. */
const SERVICE_REQUEST = new Uint8Array([0x83, 0x18, 0x18, 0x6c, ...new TextEncoder().encode('netsim-probe'), 0x80]);

/** @param {number[]} xs */
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? null : s[Math.floor(s.length / 2)];
}

/** @param {string} hp @returns {Promise<boolean>} true if a connection was made */
function canConnect(hp) {
  const i = hp.lastIndexOf(':');
  return new Promise((resolve) => {
    const s = net.connect(Number(hp.slice(i + 1)), hp.slice(0, i));
    const done = (/** @type {boolean} */ ok) => { clearTimeout(t); s.destroy(); resolve(ok); };
    const t = setTimeout(() => done(false), 2000);
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/**
 * Requests to one node, one at a time, for a while (the `stream` task above).
 * @param {any} mesh @param {{to: string, durationMs: number, intervalMs: number}} s
 */
async function streamRequests(mesh, s) {
  const counts = { sent: 0, answered: 0, refused: 0, timedOut: 0 };
  /** @type {Array<[number, number | null]>} */
  const outages = [];
  /** @type {number | null} */
  let downSince = null;
  const end = Date.now() + s.durationMs;
  while (Date.now() < end) {
    const t = Date.now();
    counts.sent++;
    /** @type {'answered' | 'refused' | 'timedOut'} */
    let outcome = 'answered';
    await mesh.request(s.to, SERVICE_REQUEST, { timeoutMs: 2000 }).catch((/** @type {any} */ e) => {
      outcome = e?.name === 'RequestTimeoutError' ? 'timedOut' : 'refused';
    });
    counts[outcome]++;
    if (outcome !== 'answered' && downSince === null) downSince = t;
    if (outcome === 'answered' && downSince !== null) {
      outages.push([downSince, Date.now()]);
      downSince = null;
    }
    await new Promise((r) => setTimeout(r, Math.max(0, s.intervalMs - (Date.now() - t))));
  }
  if (downSince !== null) outages.push([downSince, null]);
  return { ...counts, outages };
}

/** @param {any} task */
async function run(task) {
  const deadline = Date.now() + task.timeoutMs;
  const mesh = createMeshNode({ identity: await createIdentity(), token: task.token, join: [task.join], webrtc: false });
  await mesh.start();
  const joinedAt = Date.now();
  try {
    while (!task.targets.every((/** @type {string} */ t) => mesh.isReachable(t))) {
      if (Date.now() > deadline) {
        const missing = task.targets.filter((/** @type {string} */ t) => !mesh.isReachable(t));
        return { ok: false, error: `not reachable within ${task.timeoutMs} ms: ${missing.length} of ${task.targets.length}` };
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    const reachedAt = Date.now();
    // let heartbeats measure the links and gossip carry the costs before timing (bounded by the task)
    if (task.settleMs) await new Promise((r) => setTimeout(r, Math.min(task.settleMs, Math.max(0, deadline - Date.now()))));
    /** @type {Record<string, number>} */
    const hops = {};
    for (const r of mesh.routes()) hops[r.id] = r.hops ?? 0;
    /** @type {Record<string, number | null>} */
    const rttMs = {};
    for (const id of task.rtt ?? task.targets) {
      /** @type {number[]} */
      const times = [];
      for (let i = 0; i < task.rounds + 3 && Date.now() < deadline; i++) {
        const t = performance.now();
        await mesh.request(id, SERVICE_REQUEST, { timeoutMs: 10_000 }).catch(() => null);
        if (i >= 3) times.push(performance.now() - t);
      }
      rttMs[id] = median(times);
    }
    const stream = task.stream ? await streamRequests(mesh, task.stream) : undefined;
    let reachedPrivate = false;
    for (const hp of task.unreachable ?? []) if (await canConnect(hp)) reachedPrivate = true;
    return { ok: true, joinedAt, reachedAt, hops, rttMs, reachedPrivate, stream };
  } finally {
    await mesh.stop();
  }
}

run(JSON.parse(process.argv[2] ?? '{}')).then((r) => {
  process.stdout.write(`probe ${JSON.stringify(r)}\n`);
  process.exit(0);
}, (e) => {
  process.stdout.write(`probe ${JSON.stringify({ ok: false, error: String(e?.stack ?? e) })}\n`);
  process.exit(1);
});
