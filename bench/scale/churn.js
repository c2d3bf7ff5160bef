// @ts-check
/**
 * `scale.churn` (bench/scale.js): daemons leaving and joining at a rate while requests
 * flow across them, on the simulated internet (scripts/netsim.js).
 *
 * Topology: an entry daemon E and a target daemon T that never link to each other, and
 * MIDDLE daemons each joined to both (20 ms relayed links): T is two hops from E through
 * any middle. A probe beside E sends a request to T every 100 ms (each awaited, at most
 * 2 s). Every PERIOD, the oldest middle leaves — by SIGTERM and by SIGKILL in turn (a
 * kill is only noticed by the heartbeat timeout) — and a new middle, in a new
 * namespace, starts and joins E and T (it boots while the next period runs; on a loaded
 * machine a boot takes longer than a period, so fewer middles are up at times). T is alive throughout: every request should be answered or
 * refused with an error the sender sees, and none silently lost.
 *
 *   scale.churn.delivered  ratio  answered / sent
 *   scale.churn.lost       count  requests neither answered nor refused within 2 s
 *   scale.churn.refused    count  requests refused at once (no route while repairing)
 *   scale.churn.repair_ms  ms     median outage: first unanswered request → next answer
 *
 * Env: BENCH_SCALE_CHURN_S (how long, default 60), BENCH_SCALE_CHURN_PERIOD_S (default 10).
 */
import { randomBytes } from 'node:crypto';

const DELAY_MS = 20;
const MIDDLE = 3;

/**
 * @param {import('../lib/index.js').Reporter} rep @param {import('../../scripts/netsim.js').Netsim} sim
 * @param {{seconds: number, periodS: number}} o
 */
export async function churn(rep, sim, o) {
  const token = randomBytes(12).toString('hex');
  const entry = sim.addHost('entry');
  const target = sim.addHost('target');
  let made = 0;
  const middle = async () => {
    const h = sim.addHost(`m${made++}`);
    const join = [sim.link(entry, DELAY_MS), sim.link(target, DELAY_MS)];
    await sim.startRelays();
    return sim.startDaemon(h, { token, join });
  };
  const [e, t] = await Promise.all([sim.startDaemon(entry, { token }), sim.startDaemon(target, { token })]);
  /** @type {import('../../scripts/netsim.js').SimDaemon[]} */
  const alive = [];
  for (let i = 0; i < MIDDLE; i++) alive.push(await middle());
  const durationMs = o.seconds * 1000;
  const probe = sim.probe(entry, { join: e.url, token, targets: [t.id], rounds: 0, rtt: [], timeoutMs: durationMs + 90_000, stream: { to: t.id, durationMs, intervalMs: 100 } }, durationMs + 120_000);
  let replaced = 0;
  const until = Date.now() + durationMs;
  /** @type {Promise<unknown>[]} the leavers' exits and the joiners' boots */
  const pending = [];
  // the churn runs beside the probe's stream, one daemon leaving and one joining per period
  // (the wait is the scenario's rate); a joiner boots while the next period runs
  while (Date.now() + o.periodS * 1000 < until) {
    await new Promise((r) => setTimeout(r, o.periodS * 1000));
    const leaving = alive.shift();
    if (leaving) {
      const how = replaced % 2 === 0 ? 'SIGTERM' : 'SIGKILL';
      pending.push(new Promise((r) => { leaving.child.once('exit', r); leaving.child.kill(how); }));
      replaced++;
    }
    pending.push(middle().then((d) => { alive.push(d); }));
  }
  const r = await probe;
  await Promise.all(pending);
  if (!r.ok || !r.stream) throw new Error(`scale.churn: ${r.error ?? 'no stream result'}`);
  const s = r.stream;
  const outages = /** @type {Array<[number, number | null]>} */ (s.outages).map(([a, b]) => (b ?? a) - a).sort((x, y) => x - y);
  const note = `${o.seconds} s, a middle daemon replaced every ${o.periodS} s (${replaced} replaced, SIGTERM and SIGKILL in turn), ${MIDDLE} ways from entry to target; ${s.sent} requests`;
  rep.bench('scale.churn.delivered', s.answered / s.sent, 'ratio', { note });
  rep.bench('scale.churn.lost', s.timedOut, 'count', { note: 'neither answered nor refused within 2 s (target: 0)' });
  rep.bench('scale.churn.refused', s.refused, 'count', { note: 'refused with an error the sender saw (no route, peer down) while a route was repaired' });
  rep.bench('scale.churn.repair_ms', outages.length ? outages[Math.floor(outages.length / 2)] : 0, 'ms', { note: `median of ${outages.length} outages (all: ${outages.join(', ') || 'none'})` });
}
