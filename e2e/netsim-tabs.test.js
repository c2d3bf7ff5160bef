// @ts-check
/**
 * Tabs on the simulated internet (scripts/netsim.js, scripts/netsim-tabs.js): Chromium
 * started inside namespaces behind NAT routers, its tabs joining daemons across relayed
 * WAN links of 20 ms each way. Skipped, with the reason, without root, `ip netns` or
 * iptables.
 *
 * - three daemons in a line d0 — d1 — d2; a browser behind NAT A opens two tabs on d0,
 *   another behind NAT B one tab on d2;
 * - the tabs join; a tab's round trip to d2, three hops away (tab → d0 → d1 → d2),
 *   carries the latency of its three links (≥ 120 ms) and its route says 3 hops;
 * - a tab behind NAT A reaches the tab behind NAT B through the mesh (a request
 *   answered across four links);
 * - nothing of the run is left: no namespace with its prefix, no browser process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Netsim, unavailable } from '../scripts/netsim.js';
import { chromiumIn, workerUrl, openSimTabs, tabRoundTrip } from '../scripts/netsim-tabs.js';

const DELAY_MS = 20;
const why = unavailable({ nat: true });

test('tabs in Chromium behind two NATs join daemons across the simulated internet and reach a daemon 3 hops away and each other', { skip: why ?? false, timeout: 240_000 }, async () => {
  const sim = new Netsim().setup();
  /** @type {import('../e2e/helpers/browser.js').Chromium[]} */
  const browsers = [];
  try {
    const token = randomBytes(12).toString('hex');
    const line = [0, 1, 2].map((i) => sim.addHost(`t${i}`));
    const joins = line.map((_, i) => (i === 0 ? [] : [sim.link(line[i - 1], DELAY_MS)]));
    const homeA = sim.addNatHost('homeA');
    const homeB = sim.addNatHost('homeB');
    const toD0 = sim.link(line[0], DELAY_MS);
    const toD2 = sim.link(line[2], DELAY_MS);
    await sim.startRelays();
    const [ds, a, b] = await Promise.all([
      Promise.all(line.map((h, i) => sim.startDaemon(h, { token, join: joins[i] }))),
      chromiumIn(homeA, [toD0]),
      chromiumIn(homeB, [toD2]),
    ]);
    browsers.push(a, b);
    const [tabsA, tabsB] = await Promise.all([
      openSimTabs(await a.browser.newContext(), workerUrl(toD0, token), 2, { timeoutMs: 60_000 }),
      openSimTabs(await b.browser.newContext(), workerUrl(toD2, token), 1, { timeoutMs: 60_000 }),
    ]);
    assert.equal(new Set([...tabsA, ...tabsB].map((t) => t.id)).size, 3, 'three tabs, three identities');

    const far = await tabRoundTrip(tabsA[0], ds[2].id, 3);
    assert.equal(far.hops, 3, 'tab → d0 → d1 → d2');
    assert.ok(far.ms >= 3 * 2 * DELAY_MS, `the round trip (${far.ms} ms) carries its three links' ${3 * 2 * DELAY_MS} ms`);

    const across = await tabRoundTrip(tabsA[1], tabsB[0].id, 3);
    assert.equal(across.hops, 4, 'tab A → d0 → d1 → d2 → tab B');
    assert.ok(across.ms >= 4 * 2 * DELAY_MS, `tab to tab (${across.ms} ms) across four links`);
  } finally {
    await Promise.all(browsers.map((br) => br.close()));
    await sim.cleanup();
    assert.deepEqual(sim.leftovers(), [], 'no namespace of the run is left');
  }
});
