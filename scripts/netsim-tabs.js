// @ts-check
/**
 * Browser tabs on the simulated internet (scripts/netsim.js): Debian's Chromium, driven
 * by playwright-core, started *inside* a host's network namespace — behind that host's
 * NAT router when it has one — so its tabs reach daemons only across the simulated
 * links, as a browser at home does.
 *
 * How: playwright launches the executable it is given with a pipe on fds 3 and 4; the
 * executable here is a two-line wrapper that runs `ip netns exec NS chromium "$@"`,
 * and both `sh` and `ip netns exec` exec rather than fork, so the pipe, the PID and the
 * process group Playwright records are Chromium's own (e2e/helpers/browser.js stops it
 * by its handle, then by that PID). Nothing listens on a port for the browser's control.
 *
 * Tabs open the daemon's /worker page through a relayed link (a ws:// URL from
 * Netsim.link, turned into http://), with `fresh=1` (a new identity per tab) and the
 * mesh token in the fragment. A tab's round trip is a mesh request from its worker (the
 * same SERVICE request the probe times, which a daemon answers at once).
 *
 * Invariants: every wait is bounded and names what it waited for; the wrapper's
 * directory is removed when its browser is closed; Netsim.cleanup() kills whatever is
 * left in the namespace anyway.
 */
import { mkdtempSync, writeFileSync, rmSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchChromium, CHROMIUM } from '../e2e/helpers/browser.js';

/** SERVICE [24, "netsim-probe", []] in the value codec's CBOR (as netsim-probe.js sends). */
const SERVICE_REQUEST = [0x83, 0x18, 0x18, 0x6c, ...new TextEncoder().encode('netsim-probe'), 0x80];

/**
 * @typedef {object} SimTab
 * @property {import('playwright-core').Page} page
 * @property {string} id its node id
 * @property {number} joinMs from opening the page until it said it joined
 */

/**
 * Chromium running in `host`'s namespace. `links`: the relayed daemon URLs its tabs will
 * open. A page over plain http from a non-loopback address is not a secure context, and
 * the worker needs WebCrypto (its identity) there; on the real internet a daemon serves
 * tabs over https, here the browser is told to treat those origins as secure.
 * @param {import('./netsim.js').SimHost} host @param {string[]} links
 * @returns {Promise<import('../e2e/helpers/browser.js').Chromium>}
 */
export async function chromiumIn(host, links) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'netsim-chromium-'));
  const wrapper = path.join(dir, 'chromium');
  writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec '${host.ns}' '${CHROMIUM}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  try {
    // the simulated internet's addresses are IP literals; let them past the resolver rule that keeps tests on loopback
    const c = await launchChromium({ executablePath: wrapper, args: [
      '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE 10.77.*',
      `--unsafely-treat-insecure-origin-as-secure=${links.map((l) => l.replace(/^ws:/, 'http:')).join(',')}`,
    ] });
    return {
      ...c,
      close: async () => {
        await c.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/**
 * The worker page's URL behind a relayed link (`ws://IP:PORT` from Netsim.link).
 * `webrtc`: let the tab open WebRTC links (off by default); `ice`: its STUN/TURN URLs
 * (absent: those the daemon gives the page); `icePolicy`: the page's `?icePolicy=`.
 * @param {string} linkUrl @param {string} token @param {{webrtc?: boolean, ice?: string[], icePolicy?: 'all' | 'relay'}} [opts]
 */
export function workerUrl(linkUrl, token, opts = {}) {
  const q = new URLSearchParams({ fresh: '1' });
  if (!opts.webrtc) q.set('webrtc', '0');
  if (opts.icePolicy) q.set('icePolicy', opts.icePolicy);
  const frag = new URLSearchParams({ token });
  if (opts.ice?.length) frag.set('ice', opts.ice.join(','));
  return `${linkUrl.replace(/^ws:/, 'http:')}/worker?${q}#${frag}`;
}

/**
 * Open one worker tab at `url` and wait (bounded) until it joined. A page whose
 * connection itself fails (`net::ERR_...`, or the error page replacing it), or that has
 * not joined within a third of `timeoutMs`, is closed and opened again, at most 3 times
 * within `timeoutMs`, as a person would reload on a loaded link; `tries` says how many
 * it took.
 * @param {import('playwright-core').BrowserContext} context @param {string} url @param {number} timeoutMs
 * @returns {Promise<SimTab & {tries: number}>}
 */
export async function openSimTab(context, url, timeoutMs) {
  const t0 = Date.now();
  for (let tries = 1; ; tries++) {
    const page = await context.newPage();
    // the page's own console and errors, the last 20 kept: what a tab that never joins said
    /** @type {string[]} */
    const said = [];
    const keep = (/** @type {string} */ line) => {
      said.push(line);
      if (said.length > 20) said.shift();
    };
    page.on('console', (m) => keep(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (err) => keep(`pageerror: ${err.message}`));
    try {
      await page.goto(url, { timeout: Math.max(1, t0 + timeoutMs - Date.now()) });
      // joined, and its id drawn (the id comes with the worker's next status, up to a second later)
      const drawn = await page.waitForFunction(() => {
        const id = document.getElementById('node-id')?.textContent ?? '';
        return document.getElementById('state')?.dataset.state === 'joined' && /^[a-z2-7]{32}$/.test(id) ? id : false;
      }, null, { timeout: Math.max(1, Math.min(t0 + timeoutMs - Date.now(), Math.ceil(timeoutMs / 3))), polling: 100 });
      const id = /** @type {string} */ (await drawn.jsonValue());
      return { page, id, joinMs: Date.now() - t0, tries };
    } catch (e) {
      const log = await page.evaluate(() => /** @type {any} */ (window).termite?.view?.log?.slice(-20) ?? []).catch(() => []);
      const state = await page.evaluate(() => document.getElementById('state')?.dataset.state ?? '(no state element)').catch(() => '(page gone)');
      await page.close().catch(() => {});
      if (tries < 3 && Date.now() < t0 + timeoutMs && /net::ERR_|chrome-error:|interrupted by another navigation|waitForFunction: Timeout/.test(String(e))) continue;
      throw new Error(`a tab at ${url.replace(/#.*/, '')} did not join within ${timeoutMs} ms (${tries} tries): ${e instanceof Error ? e.message.split('\n')[0] : e}; its state: ${state}; its log: ${log.join(' | ')}; its console: ${said.join(' | ')}`);
    }
  }
}

/**
 * Open `n` tabs at `url`, at most `parallel` loading at once; each must join within `timeoutMs`.
 * @param {import('playwright-core').BrowserContext} context @param {string} url @param {number} n
 * @param {{parallel?: number, timeoutMs?: number}} [opts]
 * @returns {Promise<(SimTab & {tries: number})[]>}
 */
export async function openSimTabs(context, url, n, opts = {}) {
  /** @type {(SimTab & {tries: number})[]} */
  const tabs = [];
  let next = 0;
  const lane = async () => {
    while (next < n) {
      next++;
      tabs.push(await openSimTab(context, url, opts.timeoutMs ?? 60_000));
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, opts.parallel ?? 4) }, lane));
  return tabs;
}

/**
 * Median round trip (ms) of `rounds` mesh requests from a tab's worker to node `id`,
 * after waiting (bounded) until the tab has a route to it and 3 unmeasured requests.
 * @param {SimTab} tab @param {string} id @param {number} rounds @param {number} [timeoutMs]
 * @returns {Promise<{ms: number, hops: number}>}
 */
export async function tabRoundTrip(tab, id, rounds, timeoutMs = 30_000) {
  const worker = tab.page.workers()[0];
  if (!worker) throw new Error(`tab ${tab.id} has no worker`);
  return worker.evaluate(async ([to, bytes, n, bound]) => {
    const mesh = /** @type {any} */ (self).termite.mesh;
    const until = Date.now() + bound;
    while (!mesh.isReachable(to)) {
      if (Date.now() > until) throw new Error(`no route to ${to} within ${bound} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const req = new Uint8Array(bytes);
    /** @type {number[]} */
    const times = [];
    for (let i = 0; i < n + 3; i++) {
      if (Date.now() > until) throw new Error(`round trips to ${to} not done within ${bound} ms`);
      const t = performance.now();
      await mesh.request(to, req, { timeoutMs: 10_000 });
      if (i >= 3) times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const route = mesh.routes().find((/** @type {any} */ r) => r.id === to);
    return { ms: times[Math.floor(times.length / 2)], hops: route?.hops ?? 0 };
  }, /** @type {[string, number[], number, number]} */ ([id, SERVICE_REQUEST, rounds, timeoutMs]));
}

/**
 * Wait (bounded) until a tab reports a direct link to `peerId` over `transport`.
 * @param {SimTab} tab @param {string} peerId @param {string} transport @param {number} timeoutMs
 */
export async function waitTabLink(tab, peerId, transport, timeoutMs) {
  const until = Date.now() + timeoutMs;
  let last = null;
  while (Date.now() < until) {
    last = await tab.page.evaluate(() => /** @type {any} */ (window).termite.view.status);
    if (last?.links?.some((/** @type {any} */ l) => l.id === peerId && l.transport === transport)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  const log = await tab.page.evaluate(() => /** @type {any} */ (window).termite.view.log.slice(-15)).catch(() => []);
  throw new Error(`tab ${tab.id}: no ${transport} link to ${peerId} within ${timeoutMs} ms; links ${JSON.stringify(last?.links ?? [])}; log: ${log.join(' | ')}`);
}

/**
 * Two tabs behind two NAT routers of `natType`, each in its own Chromium, both joined
 * to one public daemon over 20 ms relayed links, with a public coturn as their STUN
 * server — and as their TURN server when `turn` is set. The tabs try WebRTC with each
 * other as soon as they learn of each other (the worker's upgrader).
 *
 * `iceFrom`: 'url' gives the tabs the servers in the page URL (`#ice=`, coturn with one
 * long-term user); 'daemon' starts the daemon with --stun, --turn and --turn-secret and
 * coturn with that shared secret, and the page URL names no server: the tabs get them,
 * with credentials of limited life, from the page the daemon served.
 * `icePolicy`: 'relay' (relay candidates only) or 'all': the daemon's --ice-policy with
 * 'daemon', the page's `?icePolicy=` with 'url'.
 * The caller closes `browsers` (Netsim.cleanup() stops coturn and the daemon).
 * @param {import('./netsim.js').Netsim} sim
 * @param {{natType: import('./netsim.js').NatType, turn: boolean, iceFrom?: 'url' | 'daemon', icePolicy?: 'all' | 'relay', token: string, delayMs: number}} o
 */
export async function tabPairBehindNats(sim, o) {
  const pub = sim.addHost('pub');
  const relayHost = sim.addHost('turn');
  const homes = [sim.addNatHost('homeA', o.natType), sim.addNatHost('homeB', o.natType)];
  const link = sim.link(pub, o.delayMs);
  await sim.startRelays();
  /** @type {import('../e2e/helpers/browser.js').Chromium[]} */
  const browsers = [];
  const fromDaemon = o.iceFrom === 'daemon';
  const secret = fromDaemon ? o.token.slice(0, 16) : undefined;
  const ice = await sim.startTurn(relayHost, { user: 'tab', password: o.token.slice(0, 12), secret });
  const daemonArgs = fromDaemon ? [
    '--stun', ice.stun,
    ...(o.turn ? ['--turn', ice.turnServer, '--turn-secret', /** @type {string} */ (secret)] : []),
    ...(o.icePolicy ? ['--ice-policy', o.icePolicy] : []),
  ] : [];
  const [daemon] = await Promise.all([
    sim.startDaemon(pub, { token: o.token, args: daemonArgs }),
    ...homes.map(async (h) => { browsers.push(await chromiumIn(h, [link])); }),
  ]);
  const url = workerUrl(link, o.token, { webrtc: true, icePolicy: fromDaemon ? undefined : o.icePolicy, ice: fromDaemon ? [] : o.turn ? [ice.stun, ice.turn] : [ice.stun] });
  try {
    const tabs = await Promise.all(browsers.map(async (b) => openSimTab(await b.browser.newContext(), url, 60_000)));
    return { daemon, tabs, browsers, homes };
  } catch (e) {
    await Promise.all(browsers.map((b) => b.close()));
    throw e;
  }
}

/**
 * The candidate types ("host", "srflx", "prflx", "relay") of the nominated, succeeded
 * ICE pairs of a tab's open peer connections (the worker page's own getStats()).
 * @param {SimTab} tab @returns {Promise<{local: string, remote: string}[]>}
 */
export function selectedPairs(tab) {
  return tab.page.evaluate(() => /** @type {any} */ (window).termite.selectedPairs());
}
