// @ts-check
/**
 * `scale.tabs.100` (bench/scale.js): a hundred worker tabs, in four Chromium processes
 * each inside its own home network behind a NAT router, joining daemons across the
 * simulated internet (scripts/netsim.js, scripts/netsim-tabs.js).
 *
 * Topology: four daemons in a tree of 20 ms links (d1, d2 join d0; d3 joins d1); browser
 * k opens its tabs on daemon k through a relayed 20 ms link. Tabs load over WebSocket
 * only (`webrtc=0`: the figure is joining, not a hundred tabs meshing among themselves).
 *
 *   scale.tabs.100            ms  first tab opened → the last of the 100 joined
 *   scale.tabs.100.join_p50   ms  median of one tab's page-open → joined
 *   scale.tabs.100.rtt.hops.3 ms  median round trip of a mesh request from a tab on d3 to
 *                                 d0, three hops away (tab → d3 → d1 → d0): six link
 *                                 crossings of 20 ms each way, 120 ms of added latency
 *
 * Env: BENCH_SCALE_TABS (default 100), BENCH_SCALE_TAB_PARALLEL (tabs loading at once per
 * browser, default 2), BENCH_SCALE_TAB_TIMEOUT_S (one tab's bound to join, default 180),
 * BENCH_SCALE_ROUNDS (round trips, default 20).
 */
import { randomBytes } from 'node:crypto';
import { buildTree } from '../../scripts/netsim.js';
import { chromiumIn, workerUrl, openSimTabs, tabRoundTrip } from '../../scripts/netsim-tabs.js';

const DELAY_MS = 20;
const BROWSERS = 4;

/**
 * @param {import('../lib/index.js').Reporter} rep @param {import('../../scripts/netsim.js').Netsim} sim
 * @param {{tabs: number, parallel: number, rounds: number, tabTimeoutS: number}} o
 */
export async function tabs(rep, sim, o) {
  /** @type {import('../../e2e/helpers/browser.js').Chromium[]} */
  const browsers = [];
  try {
    const token = randomBytes(12).toString('hex');
    const homes = Array.from({ length: BROWSERS }, (_, k) => sim.addNatHost(`home${k}`));
    const { hosts, daemons } = await buildTree(sim, { daemons: BROWSERS, nat: 0, delayMs: DELAY_MS, token });
    const links = hosts.map((h) => sim.link(h, DELAY_MS));
    await sim.startRelays();
    browsers.push(...await Promise.all(homes.map((h, k) => chromiumIn(h, [links[k]]))));
    const per = Math.ceil(o.tabs / BROWSERS);
    const t0 = Date.now();
    const opened = await Promise.all(browsers.map(async (br, k) => {
      const n = Math.max(0, Math.min(per, o.tabs - k * per));
      return openSimTabs(await br.browser.newContext(), workerUrl(links[k], token), n, { parallel: o.parallel, timeoutMs: o.tabTimeoutS * 1000 });
    }));
    const all = opened.flat();
    rep.bench(`scale.tabs.${o.tabs}`, Date.now() - t0, 'ms', { note: `${all.length} tabs in ${BROWSERS} browsers behind ${BROWSERS} NATs, ${o.parallel} loading at once per browser, on ${BROWSERS} daemons over 20 ms links` });
    const joins = all.map((t) => t.joinMs).sort((a, b) => a - b);
    rep.bench(`scale.tabs.${o.tabs}.join_p50`, joins[Math.floor(joins.length / 2)], 'ms', { note: `one tab, page open → joined (slowest ${joins[joins.length - 1]} ms)` });
    const far = await tabRoundTrip(opened[3][0], daemons[0].id, o.rounds);
    if (far.hops !== 3) throw new Error(`the tab on d3 is ${far.hops} hops from d0, not 3`);
    rep.bench(`scale.tabs.${o.tabs}.rtt.hops.3`, far.ms, 'ms', { note: `tab → d3 → d1 → d0 with ${all.length} tabs joined, median of ${o.rounds}; the links add ${3 * 2 * DELAY_MS} ms` });
  } finally {
    await Promise.all(browsers.map((b) => b.close()));
  }
}
