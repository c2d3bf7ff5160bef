// @ts-check
/**
 * `scale.nat.tab_tab` (bench/scale.js): the round trip of a mesh request between two
 * tabs over their WebRTC link, each tab in its own Chromium behind its own NAT router on
 * the simulated internet (scripts/netsim.js, scripts/netsim-tabs.js), coturn as STUN and
 * TURN server:
 *
 *   scale.nat.tab_tab          ms     behind two symmetric NATs: relayed by TURN (the tabs
 *                                     gather relay candidates only: ?icePolicy=relay)
 *   scale.nat.tab_tab.all      ms     behind two symmetric NATs, every candidate allowed: ICE
 *                                     picks one tab's NAT mapping to the other's TURN relay
 *                                     (one pass through coturn instead of two)
 *   scale.nat.tab_tab.direct   ms     reference: behind two full-cone NATs, STUN only: a
 *                                     direct link through the NAT mappings
 *   scale.nat.tab_tab.vs_direct ratio the first over the second
 *
 * The UDP paths carry no added WAN latency (the latency relay is for TCP links), so the
 * figures are the cost of the relay hop and the machine, not of distance. The pair ICE
 * chose is checked (relay↔relay, and no relay for the direct one) before timing.
 */
import { randomBytes } from 'node:crypto';
import { tabPairBehindNats, tabRoundTrip, waitTabLink, selectedPairs } from '../../scripts/netsim-tabs.js';

/**
 * One pair: its median round trip over the WebRTC link.
 * @param {import('../../scripts/netsim.js').Netsim} sim
 * @param {{natType: import('../../scripts/netsim.js').NatType, turn: boolean, icePolicy: 'all' | 'relay', rounds: number}} o
 */
async function pairRtt(sim, o) {
  /** @type {import('../../e2e/helpers/browser.js').Chromium[]} */
  let browsers = [];
  try {
    const pair = await tabPairBehindNats(sim, { ...o, token: randomBytes(12).toString('hex'), delayMs: 20 });
    browsers = pair.browsers;
    const [a, b] = pair.tabs;
    const [dialler, answerer] = a.id < b.id ? [a, b] : [b, a];
    await waitTabLink(dialler, answerer.id, 'webrtc', 60_000);
    const pairs = await selectedPairs(dialler);
    const rt = await tabRoundTrip(dialler, answerer.id, o.rounds);
    if (rt.hops !== 0) throw new Error(`${o.natType}: the request went through the mesh (${rt.hops} hops), not the WebRTC link`);
    return { ms: rt.ms, pairs: pairs.map((p) => `${p.local}↔${p.remote}`).join(', ') };
  } finally {
    await Promise.all(browsers.map((br) => br.close()));
  }
}

/**
 * @param {import('../lib/index.js').Reporter} rep
 * @param {(f: (sim: import('../../scripts/netsim.js').Netsim) => Promise<void>) => Promise<void>} inSim
 * @param {number} rounds
 */
export async function natTabTab(rep, inSim, rounds) {
  /** @type {{ms: number, pairs: string} | undefined} */
  let direct;
  /** @type {{ms: number, pairs: string} | undefined} */
  let relayed;
  await inSim(async (sim) => { direct = await pairRtt(sim, { natType: 'full-cone', turn: false, icePolicy: 'all', rounds }); });
  await inSim(async (sim) => { relayed = await pairRtt(sim, { natType: 'symmetric', turn: true, icePolicy: 'relay', rounds }); });
  /** @type {{ms: number, pairs: string} | undefined} */
  let mixed;
  await inSim(async (sim) => { mixed = await pairRtt(sim, { natType: 'symmetric', turn: true, icePolicy: 'all', rounds }); });
  if (!direct || !relayed || !mixed) return;
  rep.bench('scale.nat.tab_tab', relayed.ms, 'ms', { note: `two symmetric NATs, TURN (${relayed.pairs}), median of ${rounds}` });
  rep.bench('scale.nat.tab_tab.all', mixed.ms, 'ms', { note: `two symmetric NATs, every candidate (${mixed.pairs}), median of ${rounds}` });
  rep.bench('scale.nat.tab_tab.direct', direct.ms, 'ms', { note: `two full-cone NATs, STUN only (${direct.pairs}), median of ${rounds}` });
  rep.bench('scale.nat.tab_tab.vs_direct', relayed.ms / direct.ms, 'ratio', { note: 'no WAN latency on the UDP paths: the relay hop and the machine only' });
}
