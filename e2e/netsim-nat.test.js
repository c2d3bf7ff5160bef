// @ts-check
/**
 * Tabs behind NATs reaching each other over WebRTC on the simulated internet
 * (scripts/netsim.js NAT types, coturn started by the test, scripts/netsim-tabs.js).
 * Skipped, with the reason, without root, `ip netns`, iptables or coturn's `turnserver`.
 *
 * - two tabs behind two full-cone NATs, given only a STUN server, open a WebRTC link to
 *   each other; the pair ICE chose is of NAT mappings (server- or peer-reflexive, no
 *   relay was offered), and a request crosses the link without the daemon (0 hops);
 * - two tabs behind two symmetric NATs, given STUN and TURN in the page URL and
 *   `?icePolicy=relay` (relay candidates only), open a WebRTC link through coturn: the
 *   chosen pair is relay to relay, and a request crosses it;
 * - two tabs behind two symmetric NATs with nothing in the page URL and every
 *   candidate allowed: the daemon was started with --stun, --turn and --turn-secret
 *   (coturn with that shared secret), the tabs use the servers and the credentials of
 *   limited life the daemon put in the page it served, and the link goes through
 *   coturn (a relay candidate on at least one side: no direct path exists);
 * - both: the round trip is well under the 80 ms of the way through the daemon (two
 *   relayed 20 ms links; the UDP paths have no added latency here);
 * - nothing of the run is left.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Netsim, unavailable } from '../scripts/netsim.js';
import { tabPairBehindNats, tabRoundTrip, waitTabLink, selectedPairs } from '../scripts/netsim-tabs.js';

const why = unavailable({ nat: true, turn: true });

/**
 * `pair`: what the dialler's chosen ICE pair must be, as "LOCAL-REMOTE" candidate types.
 * @type {{natType: import('../scripts/netsim.js').NatType, turn: boolean, iceFrom: 'url' | 'daemon', icePolicy?: 'all' | 'relay', pair: RegExp, what: string}[]}
 */
const CASES = [
  { natType: 'full-cone', turn: false, iceFrom: 'url', pair: /^(srflx|prflx|host)-(srflx|prflx|host)$/, what: 'directly (STUN only)' },
  { natType: 'symmetric', turn: true, iceFrom: 'url', icePolicy: 'relay', pair: /^relay-relay$/, what: 'relayed by TURN (?icePolicy=relay)' },
  { natType: 'symmetric', turn: true, iceFrom: 'daemon', pair: /^(relay-(relay|srflx|prflx)|(srflx|prflx)-relay)$/, what: 'through TURN, all candidates, servers from the daemon' },
];

const only = process.env.NETSIM_NAT_CASE;
for (const c of CASES.filter((x) => !only || x.what.includes(only))) {
  test(`two tabs behind two ${c.natType} NATs link over WebRTC ${c.what}`, { skip: why ?? false, timeout: 180_000 }, async () => {
    const sim = new Netsim().setup();
    /** @type {import('../e2e/helpers/browser.js').Chromium[]} */
    let browsers = [];
    try {
      const pair = await tabPairBehindNats(sim, { natType: c.natType, turn: c.turn, iceFrom: c.iceFrom, icePolicy: c.icePolicy, token: randomBytes(12).toString('hex'), delayMs: 20 });
      browsers = pair.browsers;
      const [a, b] = pair.tabs;
      const [dialler, answerer] = a.id < b.id ? [a, b] : [b, a];
      await waitTabLink(dialler, answerer.id, 'webrtc', 60_000);
      const rt = await tabRoundTrip(dialler, answerer.id, 3);
      assert.equal(rt.hops, 0, 'a direct link, not through the daemon');
      assert.ok(rt.ms < 80, `a round trip (${rt.ms} ms) that does not cross the daemon's two 20 ms links`);
      const pairs = await selectedPairs(dialler);
      assert.ok(pairs.length >= 1, 'an ICE pair was chosen');
      for (const p of pairs) assert.match(`${p.local}-${p.remote}`, c.pair, JSON.stringify(pairs));
    } finally {
      await Promise.all(browsers.map((br) => br.close()));
      await sim.cleanup();
      assert.deepEqual(sim.leftovers(), [], 'no namespace of the run is left');
    }
  });
}
