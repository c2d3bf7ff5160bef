#!/usr/bin/env node
// @ts-check
/**
 * The mesh at internet scale, simulated (scripts/netsim.js: daemons in their own network
 * namespaces, WAN links through user-space latency relays, some daemons behind NAT):
 *
 *   node bench/scale.js [PREFIX]        (npm run bench -- scale; needs root and `ip netns`)
 *
 *   scale.daemon_start      ms   reference: one daemon started alone in a namespace, spawn to listening
 *   scale.join.10d          ms   10 daemons in a binary tree of 20 ms links (2 leaves behind NAT),
 *                                from the first spawn until a node joined to the root reaches all
 *   scale.join.30d          ms   the same with 30 daemons (6 behind NAT)
 *   scale.join.{10,30}d.after_boot ms  from the last daemon listening (each listens once its
 *                                first join was tried) and the probe joined, until all are
 *                                reached: the mesh forming, without the boot of many daemons
 *                                (and of the probe) on two cores
 *   scale.rtt.hops.{1,3,5}  ms   median round trip of a mesh request from a node beside daemon 0
 *                                to daemon 1, 3, 5 of a line whose links add 20 ms each way
 *   scale.rtt.hops.5.vs_links ratio  hops.5 over the latency its five links add (5 × 2 × 20 ms): ≤ 1.1
 *   scale.rtt.hops.0        ms   reference: the same request to daemon 0 itself (no WAN link)
 *   scale.nat.tab_tab[.direct, .vs_direct]  two tabs in Chromium behind two NATs over
 *                                WebRTC: symmetric NATs through TURN, full-cone directly
 *                                (bench/scale/nat.js; needs coturn's `turnserver`)
 *   scale.churn.{delivered,lost,refused,repair_ms}  requests across a mesh whose middle
 *                                daemons are replaced at a rate (bench/scale/churn.js)
 *   scale.tab_churn.{ms,correct,lost,replaced,reissued}  the Linda matrix multiplication on
 *                                worker tabs while a tenth of them are replaced every 10 s for
 *                                5 minutes (bench/scale/tab-churn.js; BENCH_SCALE_TAB_CHURN_TABS,
 *                                default 20, BENCH_SCALE_TAB_CHURN_S, default 300)

 *   scale.libp2p.{relay,dht,mesh}.*  js-libp2p's circuit-relay-v2 and kad-dht against the
 *                                mesh's relay and routes on the same links (bench/scale/libp2p.js)
 *   scale.tabs.N[.join_p50, .rtt.hops.3]  N tabs (BENCH_SCALE_TABS, default 100) in four
 *                                Chromium processes behind NAT joining four daemons, and a
 *                                tab's round trip 3 hops away (bench/scale/tabs.js)
 *
 * Every process is stopped by PID and every namespace removed at the end, also on failure
 * (Netsim.cleanup, and its exit hook). Env: BENCH_SCALE_ROUNDS (round trips per figure,
 * default 20), BENCH_SCALE_TABS, BENCH_SCALE_TAB_PARALLEL (bench/scale/tabs.js), BENCH_SCALE_LIBP2P_N (nodes of the
 * libp2p evaluation's tree, default 10). Without root or `ip netns` it prints why as a comment and no figure.
 */
import { randomBytes } from 'node:crypto';
import { Reporter, prefixFromArgv } from './lib/index.js';
import { Netsim, buildTree, unavailable } from '../scripts/netsim.js';
import { tabs } from './scale/tabs.js';
import { natTabTab } from './scale/nat.js';
import { churn } from './scale/churn.js';
import { tabChurn } from './scale/tab-churn.js';

import { libp2pEvaluation } from './scale/libp2p.js';

const DELAY_MS = 20;
const ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 20);
const TABS = Number(process.env.BENCH_SCALE_TABS ?? 100);
const TAB_PARALLEL = Number(process.env.BENCH_SCALE_TAB_PARALLEL ?? 2);
const TAB_TIMEOUT_S = Number(process.env.BENCH_SCALE_TAB_TIMEOUT_S ?? 180);
const CHURN_S = Number(process.env.BENCH_SCALE_CHURN_S ?? 60);
const CHURN_PERIOD_S = Number(process.env.BENCH_SCALE_CHURN_PERIOD_S ?? 10);
const TAB_CHURN_TABS = Number(process.env.BENCH_SCALE_TAB_CHURN_TABS ?? 20);
const TAB_CHURN_S = Number(process.env.BENCH_SCALE_TAB_CHURN_S ?? 300);

/** Run `f` in a fresh simulated internet, removed afterwards. @param {(sim: Netsim) => Promise<void>} f */
async function inSim(f) {
  const sim = new Netsim().setup();
  try {
    await f(sim);
  } finally {
    await sim.cleanup();
  }
}

/** @param {Reporter} rep */
async function daemonStart(rep) {
  const sim = new Netsim().setup();
  try {
    const h = sim.addHost('solo');
    const t0 = Date.now();
    await sim.startDaemon(h, { token: randomBytes(12).toString('hex') });
    rep.bench('scale.daemon_start', Date.now() - t0, 'ms');
  } finally {
    await sim.cleanup();
  }
}

/** @param {Reporter} rep @param {number} n */
async function join(rep, n) {
  const sim = new Netsim().setup();
  try {
    const token = randomBytes(12).toString('hex');
    const nat = Math.floor(n / 5);
    const { hosts, daemons, t0 } = await buildTree(sim, { daemons: n, nat, delayMs: DELAY_MS, token });
    const r = await sim.probe(hosts[0], { join: daemons[0].url, token, targets: daemons.slice(1).map((d) => d.id), rounds: 0, timeoutMs: 180_000 }, 200_000);
    if (!r.ok) throw new Error(`scale.join.${n}d: ${r.error}`);
    const maxHops = Math.max(...Object.values(/** @type {Record<string, number>} */ (r.hops)));
    rep.bench(`scale.join.${n}d`, r.reachedAt - t0, 'ms', { note: `${nat} behind NAT; the farthest daemon ${maxHops} hops from the probe; the boot of ${n} daemons at once included` });
    const lastUp = Math.max(r.joinedAt, ...daemons.map((d) => d.readyAt));
    rep.bench(`scale.join.${n}d.after_boot`, Math.max(0, r.reachedAt - lastUp), 'ms', { note: 'from the last daemon listening (its first join tried) and the probe joined, until all are reached' });
  } finally {
    await sim.cleanup();
  }
}

/** @param {Reporter} rep */
async function rtt(rep) {
  const sim = new Netsim().setup();
  try {
    const token = randomBytes(12).toString('hex');
    const hosts = [0, 1, 2, 3, 4, 5].map((i) => sim.addHost(`l${i}`));
    const joins = hosts.map((_, i) => (i === 0 ? [] : [sim.link(hosts[i - 1], DELAY_MS)]));
    await sim.startRelays();
    /** @type {import('../scripts/netsim.js').SimDaemon[]} */
    const ds = [];
    for (let i = 0; i < hosts.length; i++) ds.push(await sim.startDaemon(hosts[i], { token, join: joins[i] }));
    const want = [0, 1, 3, 5].map((i) => ds[i].id);
    const r = await sim.probe(hosts[0], { join: ds[0].url, token, targets: ds.slice(1).map((d) => d.id), rtt: want, rounds: ROUNDS, timeoutMs: 120_000 }, 150_000);
    if (!r.ok) throw new Error(`scale.rtt: ${r.error}`);
    rep.bench('scale.rtt.hops.0', r.rttMs[ds[0].id], 'ms', { note: 'reference: the probe and daemon 0 share a namespace' });
    for (const k of [1, 3, 5]) rep.bench(`scale.rtt.hops.${k}`, r.rttMs[ds[k].id], 'ms', { note: `${k} links of ${DELAY_MS} ms each way (+1 local hop to daemon 0), median of ${ROUNDS}` });
    const links = 5 * 2 * DELAY_MS;
    rep.bench('scale.rtt.hops.5.vs_links', r.rttMs[ds[5].id] / links, 'ratio', { note: `over ${links} ms, the latency the five links add (target <= 1.1: ${r.rttMs[ds[5].id] / links <= 1.1 ? 'met' : 'NOT met'})` });
  } finally {
    await sim.cleanup();
  }
}

async function main() {
  const rep = new Reporter(prefixFromArgv());
  const why = unavailable({ nat: rep.wantsAny(['scale.join', 'scale.tabs', 'scale.nat']), turn: rep.wants('scale.nat') });
  if (why) {
    rep.comment(`scale: not measured: ${why}`);
    return;
  }
  if (rep.wants('scale.daemon_start') || rep.wantsAny(['scale.join'])) await daemonStart(rep);
  if (rep.wants('scale.rtt')) await rtt(rep);
  if (rep.wants('scale.join.10d')) await join(rep, 10);
  if (rep.wants('scale.join.30d')) await join(rep, 30);
  if (rep.wants('scale.nat')) await natTabTab(rep, inSim, ROUNDS);
  if (rep.wants('scale.libp2p') || rep.prefix.startsWith('scale.libp2p')) await libp2pEvaluation(rep, inSim, { nodes: Number(process.env.BENCH_SCALE_LIBP2P_N ?? 10), rounds: ROUNDS });
  if (rep.wants('scale.churn')) await inSim((sim) => churn(rep, sim, { seconds: CHURN_S, periodS: CHURN_PERIOD_S }));
  if (rep.wants('scale.tab_churn')) await tabChurn(rep, { tabs: TAB_CHURN_TABS, seconds: TAB_CHURN_S, periodS: CHURN_PERIOD_S });
  if (rep.wants(`scale.tabs.${TABS}`)) await inSim((sim) => tabs(rep, sim, { tabs: TABS, parallel: TAB_PARALLEL, rounds: ROUNDS, tabTimeoutS: TAB_TIMEOUT_S }));
}

main().then(() => process.exit(0), (e) => {
  console.error(`bench scale: ${e instanceof Error ? e.stack : e}`);
  process.exit(1);
});
